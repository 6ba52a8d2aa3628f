#!/usr/bin/env python3
"""Beat and downbeat detection on the development corpus's test half (issue 21), against
madmom, librosa and aubio on the same pieces in the same run.

Runs `bench/beats/run corpus` with $PRACTICE_BIN (it builds the corpus when missing, reuses
detections and baseline outputs that are newer than the piece and the binary, and writes
bench/out/beats-corpus-results.json), then turns the test half's figures into rows for
bench/RESULTS.md with the issue's targets. The tuning half's means are shown for reference:
choices are made on it, so its figures are not the result.
"""

import json
import os
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

RESULTS = os.path.join(b.OUT_DIR, "beats-corpus-results.json")
RUNS = os.path.join(b.OUT_DIR, "beats-corpus-detected", "runs.json")
TRACKERS = ("madmom", "librosa", "aubio")


def fmt(v):
    return "n/a" if v is None else f"{v:.3f}"


def mean(res, half, tracker, group, key):
    m = res.get(half, {}).get(tracker, {}).get("means", {}).get(group)
    return None if not m or m.get(key) is None else m[key]


def detect_and_score(binary, corpus, out, model):
    """`beats detect` with `PRACTICE_BEAT_MODEL=model` (`net` is `--method network`) on both
    halves of `corpus` into `out` (detect-dir reuses detections newer than the binary),
    scored by half: score.py's JSON, {"test": ..., "tune": ...}."""
    subprocess.run(b.beats_tool("detect-dir", binary, corpus, out, "--half", "both",
                                "--env", f"PRACTICE_BEAT_MODEL={model}"), check=True)
    scores = {}
    for half in ("test", "tune"):
        path = out + f"-{half}.json"
        subprocess.run(b.beats_tool("score", corpus, out, "--split", half, "--json", path),
                       check=True, stdout=subprocess.DEVNULL)
        with open(path) as f:
            scores[half] = json.load(f)
    return scores


def scored(scores, half, group="all"):
    m = scores[half]["means"].get(group)
    if not m:
        return "n/a"
    return f"{fmt(m.get('beat_f'))} / {fmt(m.get('downbeat_f'))}"


def warning_row(label, pieces, runs):
    """How often a piece below beat F 0.8 was warned about, and a warned piece right:
    `pieces` score.py's per-piece figures, `runs` detect-dir.py's runs.json."""
    names = list(pieces)
    poor = {n for n in names if pieces[n]["beat_f"] < 0.8}
    warned = {n for n in names
              if runs.get(n, {}).get("warned", "warning" in runs.get(n, {}).get("stderr", ""))}
    refused = {n for n in names if runs.get(n, {}).get("exit", 0) != 0}
    return b.row(label,
                 f"{len(poor)} of {len(names)} pieces below beat F 0.8: {len(poor & warned)} "
                 f"warned, {len(poor & refused)} refused; {len(warned)} warned, "
                 f"{len(warned - poor)} of them right")


def method_rows(binary, corpus):
    """Info rows: `--method network` on the corpus, and both methods on the corpus as
    TiMidity++ and Freepats render it (timidity.py)."""
    rows = []
    net = detect_and_score(binary, corpus, os.path.join(b.OUT_DIR, "beats-corpus-detected-network"),
                           "net")
    groups = ("no-drums", "meter 3/4", "meter 6/8", "meter 9/8", "meter 12/8", "changing")
    rows.append(b.row(
        "`beats detect --method network`, test half: beat F / downbeat F (tuning half)",
        f"{scored(net, 'test')} ({scored(net, 'tune')}); "
        + "; ".join(f"{g} {scored(net, 'test', g)}" for g in groups)))
    rendered = os.path.join(b.OUT_DIR, "beats-corpus-timidity")
    try:
        subprocess.run(b.models_tool("timidity", "--corpus", corpus, "--out", rendered),
                       check=True)
    except subprocess.CalledProcessError:
        return rows
    for label, model in (("default (`--method onsets`)", "downbeats"), ("`--method network`", "net")):
        out = os.path.join(b.OUT_DIR, f"beats-timidity-detected-{model}")
        res = detect_and_score(binary, rendered, out, model)
        rows.append(b.row(
            f"the corpus rendered by TiMidity++ with Freepats, {label}: test half "
            "(tuning half) beat F / downbeat F",
            f"{scored(res, 'test')} ({scored(res, 'tune')}); no drums {scored(res, 'test', 'no-drums')}; "
            f"3/4 {scored(res, 'test', 'meter 3/4')}"))
        if model == "downbeats":
            try:
                with open(os.path.join(out, "runs.json")) as f:
                    runs = json.load(f)
            except OSError:
                continue
            test = {n: p for n, p in res["test"]["pieces"].items() if not p.get("missing")}
            rows.append(warning_row("the corpus rendered by TiMidity++, default: the warnings, "
                                    "test half", test, runs))
    return rows


def main():
    binary = b.practice_bin()
    args = b.beats_tool("corpus", binary, "--madmom-jobs", "2")
    # The baselines' outputs and the set-up are reused when these are set (madmom takes
    # about 10 s of CPU a piece): their earlier outputs are scored as they are.
    if os.environ.get("BENCH_CORPUS_NO_BASELINES"):
        args.append("--no-baselines")
    if os.environ.get("BENCH_CORPUS_NO_SETUP"):
        args.append("--no-setup")
    subprocess.run(args, check=True)
    with open(RESULTS) as f:
        res = json.load(f)
    test = res["test"]["practice"]
    pieces = test["means"]["all"]["pieces"]
    rows = []

    def pair(half, tracker, group):
        text = (f"{fmt(mean(res, half, tracker, group, 'beat_f'))} / "
                f"{fmt(mean(res, half, tracker, group, 'downbeat_f'))}")
        # A tracker that was not run on every piece scores those as nothing found: say so.
        missing = res.get(half, {}).get(tracker, {}).get("missing", 0)
        return text + (f" ({missing} without a detection)" if missing and group == "all" else "")

    beat = mean(res, "test", "practice", "all", "beat_f")
    down = mean(res, "test", "practice", "all", "downbeat_f")
    rows.append(b.row(f"test half ({pieces} pieces): beat F (±70 ms), mean", fmt(beat), "≥ 0.92",
                      beat >= 0.92))
    rows.append(b.row("test half: downbeat F, mean", fmt(down), "≥ 0.88", down >= 0.88))
    nodrums = mean(res, "test", "practice", "no-drums", "beat_f")
    rows.append(b.row("test half, pieces without drums: beat F", fmt(nodrums), "≥ 0.85",
                      nodrums is not None and nodrums >= 0.85))
    peers = ", ".join(f"{t} {pair('test', t, 'all')}" for t in TRACKERS if t in res["test"])
    summary = os.path.join(b.OUT_DIR, "beats-corpus-baselines", "summary.json")
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(os.path.getmtime(summary))) if os.path.exists(
        summary) else "?"
    reused = " (the peers' outputs as run at " + when + " UTC)" if os.environ.get(
        "BENCH_CORPUS_NO_BASELINES") else " (scored in the same run)"
    rows.append(b.row("test half: beat F / downbeat F, practice vs the peers on the same pieces"
                      + reused, f"practice {pair('test', 'practice', 'all')}; {peers}"))
    groups = [g for g in test["means"] if g != "all"]
    for group in groups:
        n = test["means"][group]["pieces"]
        others = "; ".join(f"{t} {pair('test', t, group)}" for t in ("madmom",) if t in res["test"])
        rows.append(b.row(f"test half, {group} ({n})",
                          f"{pair('test', 'practice', group)}" + (f" ({others})" if others else "")))
    for rate, offset in sorted(test.get("offset_by_rate", {}).items(), key=lambda kv: int(kv[0])):
        ms = offset["median_ms"] if isinstance(offset, dict) else offset
        peer = res["test"].get("madmom", {}).get("offset_by_rate", {}).get(rate)
        peer_ms = (peer["median_ms"] if isinstance(peer, dict) else peer) if peer is not None else None
        rows.append(b.row(
            f"test half: median signed beat offset (detected − MIDI grid), {int(rate) / 1000:g} kHz",
            f"{ms:+.1f} ms" + (f" (madmom {peer_ms:+.1f} ms)" if peer_ms is not None else ""),
            "within ±3 ms", abs(ms) <= 3))
    rows.append(b.row("tuning half (choices are made here; not the result): beat F / downbeat F",
                      f"practice {pair('tune', 'practice', 'all')}; "
                      + ", ".join(f"{t} {pair('tune', t, 'all')}" for t in TRACKERS
                                  if t in res.get("tune", {}))))
    rows += method_rows(binary, os.path.join(b.OUT_DIR, "beats-corpus"))
    try:
        with open(RUNS) as f:
            runs = json.load(f)
    except OSError:
        runs = {}
    names = list(test.get("pieces", {}))
    if runs and names:
        rows.append(warning_row("test half: the warnings (issue 21, item 4)", test["pieces"], runs))
        cpu = [runs[n]["cpu_s"] for n in names if n in runs]
        if cpu:
            rows.append(b.row("test half: `beats detect` CPU per piece (30-45 s each), median",
                              f"{statistics.median(cpu):.2f} s"))
    notes = [
        "The development corpus (bench/beats/README.md, \"The development corpus\"): 160 "
        "MIDI-rendered pieces of 30-45 s drawn wide (meters 2/4-12/8 and 5/4, three soundfonts, "
        "rubato, ritardando and a tempo, swing, reverb, compression, noise, MP3, 48 kHz), split by "
        "piece into a tuning half and a test half before any tuning (bench/beats/split.json). "
        "Figures are the test half's unless marked; beats are not trimmed.",
        "Cells read beat F / downbeat F; librosa and aubio give no downbeats.",
        "The default (`--method onsets`) reads the beat twice, the tracker's way and the bar "
        "pointer's over the beat network's activations, and keeps the reading the network hears "
        "more (bench/beats/README.md, session 7); `--method network` is the bar pointer alone, "
        "its bars its own, 40-220 BPM. TiMidity++ with "
        "Freepats (models/timidity.py): the corpus's MIDI rendered clean by a synthesizer "
        "and samples no part of practice was trained or tuned on; the network's validation set "
        "was the tuning half's FluidSynth renderings, so only the test half's MIDI is unseen.",
        "The offset is measured against the MIDI grid. FluidSynth sounds each note 3-5.6 ms after "
        "its MIDI time (median 4.2 ms: its 64-frame blocks and the samples' attacks; bench/beats/"
        "README.md, \"Click check\"), so a detector that places beats where the notes begin reads "
        "about +4 ms here; the tests (BeatDetectionTests.beatsAreWhereTheNotesBegin) check the "
        "time reference exactly on synthetic onsets at 22.05-96 kHz.",
    ]
    if not os.environ.get("BENCH_CORPUS_NO_BASELINES"):
        notes.append(
            "madmom, librosa and aubio: each piece's output is kept and run again only when the "
            "piece is newer (bench/beats/baselines.py; they do not depend on practice); all are "
            "scored in this run on the same pieces.")
    if os.environ.get("BENCH_CORPUS_NO_BASELINES"):
        notes.append(
            "madmom, librosa and aubio: their outputs stored by an earlier run "
            "(bench/out/beats-corpus-baselines/; they do not depend on practice), scored again "
            "in this run on the same pieces; practice's detections are this run's.")
    b.write_results("beat-corpus", "Beat and downbeat detection on the development corpus "
                    "(issue 21), test half, vs madmom, librosa and aubio", rows, notes)


if __name__ == "__main__":
    main()
