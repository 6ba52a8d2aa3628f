"""Runs `PRACTICE_BIN beats detect` on the pieces of a corpus directory, as corpus.py does
for the development corpus, but into any output directory and with extra environment:
for trying a knob (PRACTICE_BEAT_MODEL=net) without touching beats-corpus-detected/, and
for dumping what the beat network hears (--features DIR: PRACTICE_BEAT_FEATURES, one
NAME.f32 and NAME.f32.json a piece; `models/run train-network` reads them).

  bench/beats/run detect-dir BIN CORPUSDIR OUTDIR [--half tune|test|both|all]
      [--env K=V ...] [--features DIR] [--jobs 2]

OUTDIR/NAME.beats is the map (`beats export --format mirex`), OUTDIR/runs.json the exit
codes and CPU times. A piece whose outputs are newer than the binary and its WAV is kept.
--half picks pieces by bench/beats/split.json (all: every WAV of CORPUSDIR).
"""

import argparse
import concurrent.futures
import json
import os
import sys
import tempfile

from bench.beats.beatlib import half_names, run_timed


def one(args, extra, name):
    wav = os.path.join(args.corpus, name + ".wav")
    out = os.path.join(args.out, name + ".beats")
    feat = os.path.join(args.features, name + ".f32") if args.features else None
    newest = max(os.path.getmtime(args.binary), os.path.getmtime(wav))
    wanted = [out] + ([feat] if feat else [])
    if all(os.path.exists(p) and os.path.getmtime(p) > newest for p in wanted):
        return name, None
    with tempfile.TemporaryDirectory(prefix="detect-dir-") as tmp:
        env = dict(os.environ, PRACTICE_DB=os.path.join(tmp, "library.sqlite"), **extra)
        if feat:
            env["PRACTICE_BEAT_FEATURES"] = feat
        code, _, _, _, _, err = run_timed([args.binary, "add", wav], env)
        if code != 0:
            return name, {"exit": code, "stderr": err.strip()}
        code, wall, cpu, rss, _, err = run_timed([args.binary, "beats", "detect", wav], env)
        r = {"exit": code, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "maxrss_kb": rss,
             "stderr": " | ".join(line.strip() for line in err.strip().splitlines())}
        if code == 0:
            code, _, _, _, mirex, err = run_timed(
                [args.binary, "beats", "export", wav, "--format", "mirex"], env)
            with open(out + ".partial", "w") as f:
                f.write(mirex)
            os.replace(out + ".partial", out)
        elif os.path.exists(out):
            os.remove(out)
        return name, r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--half", default="all", choices=("tune", "test", "both", "all"))
    ap.add_argument("--env", nargs="*", default=[], help="K=V pairs for `beats detect`")
    ap.add_argument("--features", help="dump the network's bands into this directory")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    args.binary = os.path.abspath(args.binary)
    extra = dict(kv.split("=", 1) for kv in args.env)
    os.makedirs(args.out, exist_ok=True)
    if args.features:
        os.makedirs(args.features, exist_ok=True)
    if args.half == "all":
        names = sorted(f[:-4] for f in os.listdir(args.corpus) if f.endswith(".wav"))
    else:
        names = sorted(half_names("tune") * (args.half != "test")
                       + half_names("test") * (args.half != "tune"))
    runs_path = os.path.join(args.out, "runs.json")
    runs = {}
    if os.path.exists(runs_path):
        with open(runs_path) as f:
            runs = json.load(f)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, r in pool.map(lambda n: one(args, extra, n), names):
            if r is not None:
                runs[name] = r
                print(f"detect-dir: {name}: exit {r['exit']}, {r.get('cpu_s', 0):.2f} s CPU",
                      file=sys.stderr, flush=True)
    with open(runs_path, "w") as f:
        json.dump(runs, f, indent=1)
    failed = [n for n in names if runs.get(n, {}).get("exit", 0) != 0]
    print(f"detect-dir: {len(names)} pieces, {len(failed)} refused or failed", file=sys.stderr)


if __name__ == "__main__":
    main()
