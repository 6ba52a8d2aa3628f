"""The development corpus end to end: build it, detect, run the baselines, score both halves.

  bench/beats/run corpus PRACTICE_BIN [--pieces N] [--force] [--no-baselines] [--no-setup]
                         [--jobs 2]   (bench/beats/corpus.sh: the same)

1. bench/beats/setup.sh (installs only what is missing), then `models/run corpus`: the corpus
   in bench/out/beats-corpus/ is built when missing and kept otherwise.
2. `PRACTICE_BIN beats detect` on every piece, each with a fresh temporary PRACTICE_DB
   (`add`, `detect`, `export --format mirex`, as bench/beat-detect.py does), into
   bench/out/beats-corpus-detected/NAME.beats; runs.json there holds each run's exit
   code, wall and CPU seconds. A refusal (exit 65) leaves no .beats file: score.py counts
   it as a detector that found nothing. Detections newer than the piece and the binary
   are kept (--force: all again).
3. baselines.py (aubio, librosa, madmom) on the same pieces, into
   bench/out/beats-corpus-baselines/, at the same time as step 2 (two processes: the
   machine's two cores; --jobs 1 runs them one after the other).
4. score.py with --split both: the test half's table, practice and the three baselines side
   by side, per group, with the median signed beat offset per sample rate, and the tuning
   half's means under it. Printed, and written to bench/out/beats-corpus-results.json and
   .md.

--pieces N runs steps 2-4 on N pieces only (the first N/2 of each half, in split.json's
order): a quick check of the chain; its figures are not the corpus's.
Rule (issue 21): a change is kept when it raises the tuning half's mean and lowers no group
mean of the test half (drums / no-drums, each meter, tempo changes) by more than 0.02.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from bench.beats.beatlib import CORPUS, OUT, half_names, model, run_timed, tool

DETECTED = os.path.join(OUT, "beats-corpus-detected")
BASELINES = os.path.join(OUT, "beats-corpus-baselines")
RESULTS = os.path.join(OUT, "beats-corpus-results")


def log(msg):
    print(f"corpus: {msg}", file=sys.stderr, flush=True)


def detect_all(binary, names, force):
    os.makedirs(DETECTED, exist_ok=True)
    runs_path = os.path.join(DETECTED, "runs.json")
    runs = {}
    if os.path.exists(runs_path) and not force:
        with open(runs_path) as f:
            runs = json.load(f)
    bin_mtime = os.path.getmtime(binary)
    done = 0
    for name in names:
        wav = os.path.join(CORPUS, name + ".wav")
        out = os.path.join(DETECTED, name + ".beats")
        r = runs.get(name)
        if (not force and r and r.get("binary") == binary and r.get("binary_mtime") == bin_mtime
                and r.get("wav_mtime") == os.path.getmtime(wav)
                and (os.path.exists(out) or r["exit"] != 0)):
            continue
        if os.path.exists(out):
            os.remove(out)
        with tempfile.TemporaryDirectory(prefix="corpus-db-") as tmp:
            env = dict(os.environ, PRACTICE_DB=os.path.join(tmp, "library.sqlite"))
            code, _, _, _, _, err = run_timed([binary, "add", wav], env)
            if code != 0:
                sys.exit(f"corpus: {binary} add {wav} exited {code}: {err.strip()}")
            code, wall, cpu, _, _, err = run_timed([binary, "beats", "detect", wav], env)
            summary = " | ".join(line.strip() for line in err.strip().splitlines())
            if code == 0:
                ecode, _, _, _, mirex, eerr = run_timed(
                    [binary, "beats", "export", wav, "--format", "mirex"], env)
                if ecode != 0:
                    sys.exit(f"corpus: beats export {wav} exited {ecode}: {eerr.strip()}")
                with open(out + ".partial", "w") as f:
                    f.write(mirex)
                os.replace(out + ".partial", out)
        runs[name] = {"exit": code, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
                      "stderr": summary, "warned": "warning" in summary, "binary": binary, "binary_mtime": bin_mtime,
                      "wav_mtime": os.path.getmtime(wav)}
        done += 1
        log(f"practice {name}: exit {code}, {cpu:.2f} s CPU{'' if code == 0 else ' (' + summary + ')'}")
        if done % 10 == 0:
            with open(runs_path, "w") as f:
                json.dump(runs, f, indent=1)
    with open(runs_path, "w") as f:
        json.dump(runs, f, indent=1)
    refused = [n for n in names if runs[n]["exit"] != 0]
    log(f"practice: {len(names)} pieces, {len(refused)} refused or failed")
    return runs


def warnings_report(runs):
    """Issue 21, item 4: do the warnings mean something? On the test half: how many pieces
    with beat F < 0.8 were warned about (or refused), and how many warned pieces were right."""
    with open(RESULTS + ".json") as f:
        res = json.load(f)
    lines = []
    for half in ("test", "tune"):
        pieces = res.get(half, {}).get("practice", {}).get("pieces", {})
        if not pieces:
            continue
        warned = {n for n in pieces if runs.get(n, {}).get("warned",
                                                             "warning" in runs.get(n, {}).get("stderr", ""))}
        refused = {n for n in pieces if runs.get(n, {}).get("exit", 0) != 0}
        poor = {n for n, r in pieces.items() if r["beat_f"] < 0.8}
        lines.append(
            f"{half} half: {len(poor)} of {len(pieces)} pieces have beat F < 0.8; "
            f"{len(poor & warned)} of them were warned about, {len(poor & refused)} refused. "
            f"{len(warned)} pieces were warned about; {len(warned - poor)} of them were right "
            f"(beat F >= 0.8).")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", help="the practice binary, e.g. .build/release/practice")
    ap.add_argument("--pieces", type=int, help="only N pieces (half from each half)")
    ap.add_argument("--force", action="store_true", help="detect every piece again")
    ap.add_argument("--no-baselines", action="store_true")
    ap.add_argument("--no-setup", action="store_true", help="skip setup.sh")
    ap.add_argument("--jobs", type=int, default=2, choices=(1, 2))
    ap.add_argument("--madmom-jobs", type=int, default=1, choices=(1, 2),
                    help="madmom processes (2: faster, three processes while practice runs)")
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        sys.exit(f"corpus: {binary} is not an executable")
    if not args.no_setup:
        subprocess.run(tool("setup"), check=True)
    tune, test = half_names("tune"), half_names("test")
    if args.pieces:
        k = (args.pieces + 1) // 2
        names = sorted(tune[:k] + test[:args.pieces - k])
    else:
        names = sorted(tune + test)
    subprocess.run(["nice", "-n", "10", *model("corpus", "--jobs", args.jobs)]
                   + (["--only"] + names if args.pieces else []), check=True)
    missing = [n for n in names if not os.path.exists(os.path.join(CORPUS, n + ".wav"))]
    if missing:
        sys.exit(f"corpus: {len(missing)} pieces are missing from {CORPUS}, e.g. {missing[0]}")

    base_cmd = ["nice", "-n", "10", *tool("baselines", "--set", CORPUS, "--out", BASELINES,
                                          "--jobs", args.madmom_jobs)] + (
                    ["--only"] + names if args.pieces else [])
    base_proc = None
    base_log = os.path.join(OUT, "beats-corpus-baselines.log")
    if not args.no_baselines:
        os.makedirs(BASELINES, exist_ok=True)
        log(f"baselines on {len(names)} pieces (log: {base_log})")
        if args.jobs == 2:
            base_proc = subprocess.Popen(base_cmd, stdout=open(base_log, "w"),
                                         stderr=subprocess.STDOUT)
        else:
            subprocess.run(base_cmd, stdout=open(base_log, "w"), stderr=subprocess.STDOUT,
                           check=True)
    runs = detect_all(binary, names, args.force)
    if base_proc is not None and base_proc.wait() != 0:
        sys.exit(f"corpus: baselines.py failed; see {base_log}")

    dets = [f"practice={DETECTED}"]
    # With --no-baselines, the baselines' outputs from an earlier run are scored if there are any.
    if os.path.exists(os.path.join(BASELINES, "summary.json")):
        with open(os.path.join(BASELINES, "summary.json")) as f:
            trackers = json.load(f)["trackers"]
        dets += [f"{t}={os.path.join(BASELINES, t)}" for t in ("madmom", "librosa", "aubio")
                 if t in trackers]
    only = ["--only"] + names if args.pieces else []
    score = tool("score", CORPUS, *dets, "--split", "both", *only)
    subprocess.run(score + ["--json", RESULTS + ".json"], check=True)
    md = subprocess.run(score + ["--markdown"], check=True, capture_output=True, text=True).stdout
    cpu = sum(r["cpu_s"] for n, r in runs.items() if n in names)
    warn = warnings_report(runs)
    print(warn)
    with open(RESULTS + ".md", "w") as f:
        f.write(f"practice: {binary}; {len(names)} pieces; `beats detect` {cpu:.0f} s CPU in "
                f"all; refused: {sum(runs[n]['exit'] != 0 for n in names)}\n\n{md}\n{warn}\n")
    log(f"written {RESULTS}.json and .md")


if __name__ == "__main__":
    main()
