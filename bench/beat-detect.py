#!/usr/bin/env python3
"""Automatic beat and downbeat detection (`practice beats detect`), scored against a set.

The evaluation set is bench/out/beats-set/ (made by models/set.py: 32 pieces of
30-60 s written as MIDI and rendered by FluidSynth, ground truth from the MIDI's tempo map;
see bench/beats/README.md), reusing it when present; bench/beats/setup.sh installs
FluidSynth, aubio-tools and the Python venv (mir_eval, ...) first.

For each piece, with a temporary PRACTICE_DB: `practice add FILE`, `practice beats detect
FILE` (timed: wall, CPU from wait4() rusage, peak RSS), `practice beats export FILE --format
mirex` into bench/out/beats-detected/NAME.beats. bench/beats/score.py scores them with
mir_eval (±70 ms, beats NOT trimmed: the first 5 s count); bench/beats/baselines.py runs and
scores aubio, librosa and madmom (each when it installed) on the same set.

The check set, three held-out sets (other seeds), the set under pink noise at 20 and
10 dB below the music (models/lib/noisy.py), in a reverberant hall (RT60 2 s,
models/lib/reverb.py) and played with a wavering tempo (±2 %, models/lib/wobble.py)
are scored as means.

Speed is CPU time (user + sys) against the audio's duration, on a 4-minute song (pieces of
the set end to end) pinned to one core with taskset; peak RSS on a 10-minute song made the
same way.

  python3 bench/beat-detect.py                 the benchmark
  python3 bench/beat-detect.py --fake truth    self-test of the scoring path: the ground
                                               truth as the "detection" (must score 1.0)
  python3 bench/beat-detect.py --fake aubio    aubio's beats as the "detection"
Fake runs write bench/out/results/beat-detect-fake-MODE.json, which report.py ignores.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import wave

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

SET_DIR = os.path.join(b.OUT_DIR, "beats-set")
DETECTED_DIR = os.path.join(b.OUT_DIR, "beats-detected")
# The check set: the same recipes with other seeds (other notes, lengths, timing). The
# detector's settings were chosen on the set; the check set shows how far that carries.
CHECK_SEED_OFFSET = 1000
CHECK_DIR = os.path.join(b.OUT_DIR, "beats-check")
CHECK_DETECTED_DIR = os.path.join(b.OUT_DIR, "beats-check-detected")
# Held-out sets: more seeds, scored only as means. One check set was not enough: a rule
# fitted to the set and the check set (bench/beats/README.md, "Two beats a bar or four")
# gained 0.08 downbeat F on both and nothing on these. Not blind: their failures were
# listed once to judge two changes (same README).
HELD_OUT_OFFSETS = (2000, 3000, 4000)
# The set under steady pink noise this many dB below the music, over the whole file (the
# silence around the music too): hiss, room tone (models/lib/noisy.py).
NOISE_SNRS_DB = (20, 10)
# The set in a reverberant hall (models/lib/reverb.py): reverberation time, seconds.
REVERB_RT60_S = 2
REVERB_DIR = os.path.join(b.OUT_DIR, f"beats-reverb-{REVERB_RT60_S}")
# The set played with a wavering tempo (models/lib/wobble.py): largest change, per cent.
WOBBLE_PERCENT = 2
WOBBLE_DIR = os.path.join(b.OUT_DIR, f"beats-wobble-{WOBBLE_PERCENT}")
# The set's 4/4 and 3/4 pieces with one bar of two beats, cut or added near the middle
# (bench/beats/oddbars.py): a song that drops or adds two beats once.
ODD_DIR = os.path.join(b.OUT_DIR, "beats-oddbars")
BASELINES_DIR = os.path.join(b.OUT_DIR, "beats-baselines")

TARGET_BEAT_F = 0.90
TARGET_DOWNBEAT_F = 0.85
TARGET_SPEED = 100.0      # × real time, CPU time on one core (issue 21)
TARGET_RSS_MB = 100.0     # 10-minute song
LONG_RUNS = 3


def setup():
    subprocess.run(b.beats_tool("setup"), check=True)
    args = b.models_tool("set")
    if os.path.exists(os.path.join(SET_DIR, "check.json")):
        args.append("--no-check")  # checked when it was made; unchanged pieces are kept
    subprocess.run(args, check=True)
    for out, offset in [(CHECK_DIR, CHECK_SEED_OFFSET)] + [(held_out_dir(o), o)
                                                            for o in HELD_OUT_OFFSETS]:
        subprocess.run(b.models_tool("set", "--out", out, "--seed-offset", offset, "--no-check"),
                       check=True)
    for snr in NOISE_SNRS_DB:
        subprocess.run(b.models_tool("copies", "noisy", snr, "--out", noisy_dir(snr)),
                       check=True, stdout=subprocess.DEVNULL)
    subprocess.run(b.models_tool("copies", "reverb", REVERB_RT60_S, "--out", REVERB_DIR),
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(b.models_tool("copies", "wobble", WOBBLE_PERCENT, "--out", WOBBLE_DIR),
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(b.beats_tool("oddbars", "--out", ODD_DIR), check=True,
                   stdout=subprocess.DEVNULL)


def held_out_dir(offset):
    return os.path.join(b.OUT_DIR, f"beats-heldout-{offset}")


def noisy_dir(snr):
    return os.path.join(b.OUT_DIR, f"beats-noisy-{snr}")


def pieces(set_dir=SET_DIR):
    with open(os.path.join(set_dir, "index.json")) as f:
        return json.load(f)


# Pieces `beats detect` refused (exit 65: silence, noise, a held sound, too short): scored
# as a detector that found nothing, and listed.
REFUSED = []


def detect(binary, wav, pin=False, meter=None, method=None):
    """add + detect (timed) with a fresh library, `--meter METER` and `--method METHOD` when
    given; (wall, cpu, maxrss KiB, mirex text)."""
    given = (["--meter", meter] if meter else []) + (["--method", method] if method else [])
    c, mirex = b.beats_detect(binary, wav, "beat-detect", given, pin=pin)
    if mirex is None:
        b.log(f"beat-detect: {wav} refused: {c.stderr.strip()}")
        REFUSED.append(os.path.relpath(wav, b.OUT_DIR))
        return c.wall, c.cpu, c.maxrss_kib, ""
    return c.wall, c.cpu, c.maxrss_kib, mirex


def wav_seconds(path):
    with wave.open(path) as w:
        return w.getnframes() / w.getframerate()


def long_song(name, seconds, sources):
    """bench/out/NAME: the set's pieces end to end, cut at `seconds` (reused if present)."""
    path = os.path.join(b.OUT_DIR, name)
    if os.path.exists(path) and abs(wav_seconds(path) - seconds) < 0.01:
        return path
    frames_left = int(seconds * 44100)
    partial = path + ".partial"
    with wave.open(partial, "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(44100)
        i = 0
        while frames_left > 0:
            with wave.open(sources[i % len(sources)]) as w:
                n = min(frames_left, w.getnframes())
                out.writeframes(w.readframes(n))
                frames_left -= n
            i += 1
    os.rename(partial, path)
    return path


def score(detdir, name, set_dir=SET_DIR):
    out = os.path.join(detdir, "score.json")
    subprocess.run(b.beats_tool("score", set_dir, detdir, "--json", out, "--name", name),
                   check=True, stdout=sys.stderr)
    with open(out) as f:
        return json.load(f)


def detect_all(binary, set_dir, detdir, meter_given=False):
    """Detects every piece of `set_dir` into `detdir` (emptied first), with each piece's own
    meter given when `meter_given`; returns the score.json contents."""
    shutil.rmtree(detdir, ignore_errors=True)
    os.makedirs(detdir)
    for p in pieces(set_dir):
        _, _, _, mirex = detect(binary, os.path.join(set_dir, p["name"] + ".wav"),
                                meter=p["meter"] if meter_given else None)
        with open(os.path.join(detdir, p["name"] + ".beats"), "w") as f:
            f.write(mirex)
    return score(detdir, os.path.basename(detdir), set_dir)


def f3(v):
    return "n/a" if v is None else f"{v:.3f}"


def peer_text(peers):
    """"; madmom: beat F / downbeat F" (the mean over sets), or "" without madmom."""
    if not peers or any(p is None for p in peers):
        return ""
    beat = sum(p["beat_f"] for p in peers) / len(peers)
    down = sum(p["downbeat_f"] for p in peers) / len(peers)
    return f"; madmom: beat F {f3(beat)}, downbeat F {f3(down)}"


def peer_means(set_dir):
    """madmom's mean scores on another set (baselines.py run on it, detections reused), or
    None when madmom did not build."""
    out = os.path.join(b.OUT_DIR, "beats-baselines-" + os.path.basename(set_dir)[len("beats-"):])
    subprocess.run(b.beats_tool("baselines", "--set", set_dir, "--out", out), check=True,
                   stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f).get("madmom", {}).get("means", {}).get("all")


def main():
    ap = argparse.ArgumentParser(description="Beat and downbeat detection, scored.")
    ap.add_argument("--fake", choices=["truth", "aubio"],
                    help="self-test: score the ground truth or aubio instead of practice")
    args = ap.parse_args()
    binary = None if args.fake else b.practice_bin()
    setup()
    set_ = pieces()
    names = [p["name"] for p in set_]
    audio_total = sum(p["duration"] for p in set_)

    subprocess.run(b.beats_tool("baselines"), check=True, stdout=sys.stderr)
    with open(os.path.join(BASELINES_DIR, "summary.json")) as f:
        base = json.load(f)

    detdir = DETECTED_DIR if not args.fake else os.path.join(b.OUT_DIR, f"beats-fake-{args.fake}")
    shutil.rmtree(detdir, ignore_errors=True)
    os.makedirs(detdir)
    timing = {}
    for p in set_:
        name = p["name"]
        wav = os.path.join(SET_DIR, name + ".wav")
        dest = os.path.join(detdir, name + ".beats")
        if args.fake == "truth":
            shutil.copy(os.path.join(SET_DIR, name + ".beats"), dest)
            continue
        if args.fake == "aubio":
            shutil.copy(os.path.join(BASELINES_DIR, "aubio", name + ".beats"), dest)
            continue
        wall, cpu, rss, mirex = detect(binary, wav)
        with open(dest, "w") as f:
            f.write(mirex)
        timing[name] = {"wall_s": wall, "cpu_s": cpu, "maxrss_kib": rss, "audio_s": p["duration"]}
        b.log(f"beat-detect: {name}: {cpu:.2f} s CPU, {p['duration'] / max(cpu, 1e-9):.0f}× "
              f"real time, {rss / 1024:.1f} MiB")
    with open(os.path.join(detdir, "timing.json"), "w") as f:
        json.dump(timing, f, indent=1)
    res = score(detdir, "practice" if not args.fake else f"fake-{args.fake}")
    means = res["means"]
    aubio = base["aubio"]["means"]
    librosa = base.get("librosa", {}).get("means")
    madmom = base.get("madmom", {}).get("means")

    rows = []
    m = means["all"]
    rows.append(b.row(f"beat F-measure (±70 ms), mean of {m['pieces']} pieces",
                      f3(m["beat_f"]), f"≥ {TARGET_BEAT_F:.2f}",
                      m["beat_f"] is not None and m["beat_f"] >= TARGET_BEAT_F))
    rows.append(b.row("downbeat F-measure (±70 ms), mean",
                      f3(m["downbeat_f"]) + ("" if res["downbeats"] else " (no downbeats)"),
                      f"≥ {TARGET_DOWNBEAT_F:.2f}",
                      m["downbeat_f"] is not None and m["downbeat_f"] >= TARGET_DOWNBEAT_F))
    if madmom:
        rows.append(b.row("beat F / downbeat F vs madmom's neural downbeat tracker (same set, "
                          "same scoring)",
                          f"{f3(m['beat_f'])} / {f3(m['downbeat_f'])} vs madmom "
                          f"{f3(madmom['all']['beat_f'])} / {f3(madmom['all']['downbeat_f'])}"))
    rows.append(b.row("CMLt / AMLt (continuity, correct / allowed metrical levels), mean",
                      f"{f3(m['cmlt'])} / {f3(m['amlt'])}"))
    versus = f"{f3(m['beat_f'])} vs aubio {f3(aubio['all']['beat_f'])}"
    if librosa:
        versus += f", librosa {f3(librosa['all']['beat_f'])}"
    rows.append(b.row("beat F vs aubio's beat tracker (same set, same scoring)", versus,
                      "higher than aubio",
                      m["beat_f"] is not None and m["beat_f"] > aubio["all"]["beat_f"]))
    for group, label in (("meter 6/8", "6/8 pieces (two dotted-quarter beats a bar)"),
                         ("meter 2/4", "2/4 pieces"), ("meter 3/4", "3/4 pieces"),
                         ("meter 4/4", "4/4 pieces"), ("no-drums", "pieces without drums"),
                         ("drums", "pieces with drums"), ("changing", "tempo changes")):
        if group in means:
            g = means[group]
            text = (f"beat F {f3(g['beat_f'])}, downbeat F {f3(g['downbeat_f'])}, "
                    f"AMLt {f3(g['amlt'])} ({g['pieces']} pieces; aubio beat F "
                    f"{f3(aubio[group]['beat_f'])}")
            if madmom:
                text += (f"; madmom beat F {f3(madmom[group]['beat_f'])}, downbeat F "
                         f"{f3(madmom[group]['downbeat_f'])}")
            text += ")"
            rows.append(b.row(label, text))

    notes = []
    given = None
    if not args.fake:
        c = detect_all(binary, CHECK_DIR, CHECK_DETECTED_DIR)["means"]["all"]
        rows.append(b.row(f"check set: the same {c['pieces']} recipes with seeds + "
                          f"{CHECK_SEED_OFFSET} (settings chosen on the set, with this one's "
                          "failures in view: bench/beats/README.md)",
                          f"beat F {f3(c['beat_f'])}, downbeat F {f3(c['downbeat_f'])}, "
                          f"AMLt {f3(c['amlt'])}" + peer_text([peer_means(CHECK_DIR)])))
        held = [detect_all(binary, held_out_dir(o), held_out_dir(o) + "-detected")["means"]["all"]
                for o in HELD_OUT_OFFSETS]
        rows.append(b.row(
            "held-out sets: the same recipes with seeds + "
            + ", ".join(str(o) for o in HELD_OUT_OFFSETS) + " (mean; each)",
            f"beat F {f3(sum(h['beat_f'] for h in held) / len(held))}, downbeat F "
            f"{f3(sum(h['downbeat_f'] for h in held) / len(held))} ("
            + "; ".join(f"{f3(h['beat_f'])} / {f3(h['downbeat_f'])}" for h in held) + ")"
            + peer_text([peer_means(held_out_dir(o)) for o in HELD_OUT_OFFSETS])))
        noisy = [detect_all(binary, noisy_dir(snr), noisy_dir(snr) + "-detected")["means"]["all"]
                 for snr in NOISE_SNRS_DB]
        rows.append(b.row(
            "the set under pink noise over the whole file, "
            + " / ".join(f"{snr} dB" for snr in NOISE_SNRS_DB) + " below the music",
            "; ".join(f"{snr} dB: beat F {f3(m['beat_f'])}, downbeat F {f3(m['downbeat_f'])}"
                      for snr, m in zip(NOISE_SNRS_DB, noisy))))
        hall = detect_all(binary, REVERB_DIR, REVERB_DIR + "-detected")["means"]["all"]
        rows.append(b.row(
            f"the set in a reverberant hall (RT60 {REVERB_RT60_S} s, as much reverberant "
            "energy as direct)",
            f"beat F {f3(hall['beat_f'])}, downbeat F {f3(hall['downbeat_f'])}"))
        wavering = detect_all(binary, WOBBLE_DIR, WOBBLE_DIR + "-detected")["means"]["all"]
        rows.append(b.row(
            f"the set played with a wavering tempo (speed within ±{WOBBLE_PERCENT} %, periods "
            "of 11 s and 4.3 s)",
            f"beat F {f3(wavering['beat_f'])}, downbeat F {f3(wavering['downbeat_f'])}"))
        odd = detect_all(binary, ODD_DIR, ODD_DIR + "-detected")["means"]["all"]
        rows.append(b.row(
            f"songs with one odd bar: the set's 4/4 and 3/4 pieces with a bar of two beats "
            f"cut or added ({odd['pieces']} pieces)",
            f"beat F {f3(odd['beat_f'])}, downbeat F {f3(odd['downbeat_f'])}"))
        # What the phase placement alone is worth: each piece detected with its own meter
        # given, as a musician who knows it would (`--meter 2/4`).
        given = detect_all(binary, SET_DIR, os.path.join(b.OUT_DIR, "beats-detected-meter"),
                           meter_given=True)
        gc = detect_all(binary, CHECK_DIR, os.path.join(b.OUT_DIR, "beats-check-meter"),
                        meter_given=True)["means"]["all"]
        g = given["means"]["all"]
        rows.append(b.row("with each piece's own meter given (`--meter 2/4`, `6/8`, ...)",
                          f"set: beat F {f3(g['beat_f'])}, downbeat F {f3(g['downbeat_f'])}; "
                          f"check set: beat F {f3(gc['beat_f'])}, downbeat F "
                          f"{f3(gc['downbeat_f'])}"))
        notes.append(f"Check set: models/run set --seed-offset {CHECK_SEED_OFFSET} "
                     "(bench/out/beats-check): each piece's recipe (meter, tempo curve, "
                     "instruments, style) with other notes, lengths and timing. The "
                     "detector's settings were chosen on the set, with this one's "
                     "failures in view (a tie broken, the 4/4 swing read as 9/8 found "
                     "here; bench/beats/README.md). Held-out sets: "
                     "the same with seed offsets "
                     + ", ".join(str(o) for o in HELD_OUT_OFFSETS)
                     + " (bench/out/beats-heldout-*): scored as means; their failures "
                     "were listed once to judge two changes, so they are not blind either "
                     "(bench/beats/README.md).")
        notes.append("Odd bars: bench/beats/oddbars.py (bench/out/beats-oddbars): each 4/4 "
                     "and 3/4 piece of the set twice, once with the second half of the bar "
                     "nearest the middle cut out (a bar of two beats), once with that bar's "
                     "first two beats played twice (a bar of two added), 10 ms crossfades, "
                     "the ground truth cut or repeated with the audio.")
        notes.append("Under noise: models/run copies noisy SNR (bench/out/beats-noisy-*): each "
                     "piece mixed with pink noise SNR dB below its own RMS level, seeded by "
                     "its name, the ground truth unchanged.")
        notes.append(f"In a hall: models/run copies reverb {REVERB_RT60_S} "
                     f"(bench/out/beats-reverb-{REVERB_RT60_S}): each piece convolved with "
                     "velvet noise decaying by 60 dB over the RT60, of the dry sound's energy, "
                     "added to the dry sound; the ground truth unchanged.")
        notes.append(f"Wavering tempo: models/run copies wobble {WOBBLE_PERCENT} "
                     f"(bench/out/beats-wobble-{WOBBLE_PERCENT}): each piece resampled along "
                     "a time map whose speed wavers around 1 (0.7 of the depth over 11 s, 0.3 "
                     "over 4.3 s, phases seeded by its name), the ground truth mapped with it.")
        cpu_total = sum(t["cpu_s"] for t in timing.values())
        rows.append(b.row(f"speed over the set ({audio_total / 60:.1f} min of audio), CPU time",
                          f"{audio_total / cpu_total:.0f}× real time ({cpu_total:.1f} s CPU, "
                          f"{sum(t['wall_s'] for t in timing.values()):.1f} s wall)"))
        wavs = [os.path.join(SET_DIR, n + ".wav") for n in names]
        four = long_song("beats-song-4min.wav", 240, wavs)
        ten = long_song("beats-song-10min.wav", 600, wavs)
        # The default, then `--method network`.
        for method in (None, "network"):
            runs = []
            for _ in range(LONG_RUNS):
                runs.append(detect(binary, four, pin=True, method=method))
            cpu = b.median([r[1] for r in runs])
            wall = b.median([r[0] for r in runs])
            label = "" if method is None else f" with `--method {method}`"
            rows.append(b.row(f"speed{label}, 4-minute song, one core (taskset), CPU time, "
                              f"median of {LONG_RUNS}", f"{240 / cpu:.0f}× real time "
                              f"({cpu:.2f} s CPU, {wall:.2f} s wall)", f"≥ {TARGET_SPEED:.0f}×",
                              240 / cpu >= TARGET_SPEED))
            runs = [detect(binary, ten, method=method) for _ in range(2)]
            peak_kib = max(r[2] for r in runs)
            peak_mb = peak_kib * 1024 / 1e6
            rows.append(b.row(f"peak RSS, `beats detect`{label} on a 10-minute song (max of 2)",
                              f"{peak_mb:.1f} MB ({peak_kib / 1024:.1f} MiB)",
                              f"≤ {TARGET_RSS_MB:.0f} MB", peak_mb <= TARGET_RSS_MB))
        notes.append("Speed and memory: CPU = user + sys of the `beats detect` process "
                     "(wait4 rusage), peak RSS = ru_maxrss; the long songs are the set's "
                     "pieces end to end (bench/out/beats-song-{4,10}min.wav).")
    for tracker in ("aubio", "librosa", "madmom"):
        if tracker in base:
            t = base[tracker]
            down = t["means"]["all"]["downbeat_f"]
            rows.append(b.row(f"baseline: {base['trackers'][tracker]}",
                              f"beat F {f3(t['means']['all']['beat_f'])}, CMLt "
                              f"{f3(t['means']['all']['cmlt'])}, AMLt "
                              f"{f3(t['means']['all']['amlt'])}"
                              + (f", downbeat F {f3(down)}" if down is not None else "")
                              + f"; {t['x_realtime_cpu']:.0f}× real time (CPU)"))
    rows.append(b.row("pieces refused (exit 65), scored as finding nothing",
                      ", ".join(REFUSED) if REFUSED else "none"))
    for tracker in base.get("missing", []):
        notes.append(f"{tracker} is not installed (bench/beats/setup.sh could not install "
                     "it), so it has no baseline row.")

    meters = {}
    for p in set_:
        meters[p["meter"]] = meters.get(p["meter"], 0) + 1
    drums = sum("drums" in p["tags"] for p in set_)
    changing = sum("changing" in p["tags"] for p in set_)
    pickup = sum("pickup" in p["tags"] for p in set_)
    notes[:0] = [
        f"Set: {len(set_)} pieces, {audio_total / 60:.1f} min "
        f"({', '.join(f'{n} in {k}' for k, n in meters.items())}; {drums} with drums, "
        f"{len(set_) - drums} without; {changing} with tempo changes; {pickup} with a pickup), "
        "written as MIDI by models/set.py and rendered with FluidSynth "
        "(FluidR3_GM); the ground truth is the MIDI's own tempo map, checked against a "
        "click rendering (bench/out/beats-set/check.json).",
        "Scoring: mir_eval 0.8.2 through bench/beats/score.py, ±70 ms; the beats are NOT "
        "trimmed (mir_eval's usual trim_beats drops the first 5 s; here they count). "
        "Downbeat F is the F-measure on the beats numbered 1. Means are over pieces.",
        "Baselines: bench/beats/baselines.py (`aubio beat` of aubio-tools; librosa "
        "beat.beat_track with default settings; neither reports downbeats); madmom 0.16.1's "
        "RNNDownBeatProcessor and DBNDownBeatTrackingProcessor as its DBNDownBeatTracker "
        "program runs them (bars of 3 or 4 beats, 100 frames a second; networks trained on "
        "real recordings, Böck, Krebs and Widmer 2016), one thread, through "
        "bench/beats/madmom_track.py; its CPU time excludes loading the networks once.",
    ]
    # per-piece table
    lib_f = base.get("librosa", {}).get("per_piece_beat_f", {})
    aub_f = base["aubio"]["per_piece_beat_f"]
    mm_f = base.get("madmom", {}).get("per_piece_beat_f", {})
    mm_d = base.get("madmom", {}).get("per_piece_downbeat_f", {})
    table = ["Per piece (beat F / downbeat F, ±70 ms, untrimmed):", "",
             "| piece | meter | tags | ours beat F | ours down F | down F, meter given | "
             "aubio beat F | librosa beat F | madmom beat F | madmom down F |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for p in set_:
        r = res["pieces"][p["name"]]
        known = given["pieces"][p["name"]]["downbeat_f"] if given else None
        table.append(f"| {p['name']} | {p['meter']} | {', '.join(p['tags'])} | "
                     f"{f3(r['beat_f'])} | {f3(r['downbeat_f'])} | {f3(known)} | "
                     f"{f3(aub_f.get(p['name']))} | "
                     f"{f3(lib_f.get(p['name'])) if lib_f else 'n/a'} | "
                     f"{f3(mm_f.get(p['name'])) if mm_f else 'n/a'} | "
                     f"{f3(mm_d.get(p['name'])) if mm_d else 'n/a'} |")
    notes.append("\n".join(table))
    with open(os.path.join(detdir, "report.md"), "w") as f:
        f.write("\n".join(table) + "\n")
    name = "beat-detect" if not args.fake else f"beat-detect-fake-{args.fake}"
    title = "Beat and downbeat detection (`practice beats detect`), scored on a MIDI-rendered set"
    if args.fake:
        title += f" — SELF-TEST with {args.fake} as the detection"
    b.write_results(name, title, rows, notes)


if __name__ == "__main__":
    main()
