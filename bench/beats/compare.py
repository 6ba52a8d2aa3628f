"""A detector against a base, on the sets every beat change is judged by: detects each set
with BIN (and extra environment), scores it against the set's ground truth beside the base's
maps of the same pieces, and prints the means and every piece that moved.

  bench/beats/run compare BIN LABEL --half tune|test [--base LABEL] [--env K=V ...]
      [--sets NAME ...] [--jobs 2]

Sets (bench/out; the corpus's halves come from split.json):
  clean      the development corpus's clean renders (beats-corpus/.clean), that half
  delivered  the same pieces through session 13's delivery chain (t-corpus-HALF-d13)
  held-dry, held-delivered
             the second generator's set (g-heldout/dry, /delivered); with --half test only:
             it is never used for choosing
Default: clean and delivered, and with --half test the two held sets too.

Maps go to bench/out/compare/LABEL/HALF-SET/ (kept while newer than BIN and the WAV, as
detect-dir keeps them), scores to bench/out/compare/LABEL-HALF-SET.json. --base LABEL scores
bench/out/compare/LABEL/'s maps beside them (run the base once with its own binary first);
without it the new maps are scored alone.
"""

import argparse
import json
import os
import subprocess
import sys

from bench.beats.beatlib import OUT, CORPUS, tool

SETS = {  # name: (reference directory, whether the corpus's split picks the pieces)
    "clean": (os.path.join(CORPUS, ".clean"), True),
    "delivered": (os.path.join(OUT, "t-corpus-{half}-d13"), True),
    "held-dry": (os.path.join(OUT, "g-heldout", "dry"), False),
    "held-delivered": (os.path.join(OUT, "g-heldout", "delivered"), False),
}
HELD = ("held-dry", "held-delivered")
ROOT = os.path.join(OUT, "compare")


def maps(label, half, name):
    return os.path.join(ROOT, label, f"{half}-{name}")


def compare(args, name):
    refdir, split = SETS[name]
    refdir = refdir.format(half=args.half)
    if not os.path.isdir(refdir):
        sys.exit(f"compare: {os.path.relpath(refdir)} is missing (make it first: "
                 "models/run corpus / heldout)")
    new = maps(args.label, args.half, name)
    detect = [args.binary, refdir, new, "--half", args.half if split else "all",
              "--jobs", str(args.jobs)]
    if args.env:
        detect += ["--env", *args.env]
    # detect-dir's per-piece lines are progress, not results
    subprocess.run(tool("detect-dir", *detect), check=True, stderr=subprocess.DEVNULL)
    dirs = [f"{args.label}={new}"]
    if args.base:
        base = maps(args.base, args.half, name)
        if not os.path.isdir(base):
            sys.exit(f"compare: no maps of {args.base} for {args.half}-{name} "
                     f"(run compare with the base's binary and label {args.base} first)")
        dirs.insert(0, f"{args.base}={base}")
    scores = os.path.join(ROOT, f"{args.label}-{args.half}-{name}.json")
    score = ["score", refdir, *dirs, "--json", scores]
    if split:
        score += ["--split", args.half]
    subprocess.run(tool(*score), check=True, stdout=subprocess.DEVNULL)
    with open(scores) as f:
        results = json.load(f)
    if not args.base:  # score.py writes one detector's figures unnested
        report(f"{args.half}-{name}", None, results)
        return
    results = results[args.half if split else "all"]
    report(f"{args.half}-{name}", results[args.base], results[args.label])


def fs(r):
    return f"{r['beat_f']:.3f}/{r['downbeat_f']:.3f}"


def report(title, base, new):
    if base is None:
        print(f"{title}: {fs(new['means']['all'])}")
        return
    print(f"{title}: {fs(base['means']['all'])} -> {fs(new['means']['all'])}")
    for piece, n in sorted(new["pieces"].items()):
        b = base["pieces"].get(piece)
        if b and any(abs(b[k] - n[k]) > 0.005 for k in ("beat_f", "downbeat_f")):
            print(f"   {piece}: {fs(b)} -> {fs(n)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("label")
    ap.add_argument("--half", required=True, choices=("tune", "test"))
    ap.add_argument("--base", help="an earlier compare's LABEL")
    ap.add_argument("--env", nargs="*", default=[], help="K=V pairs for `beats detect`")
    ap.add_argument("--sets", nargs="*", choices=tuple(SETS))
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    args.binary = os.path.abspath(args.binary)
    sets = args.sets or ["clean", "delivered", *(HELD if args.half == "test" else ())]
    if args.half == "tune" and any(s in HELD for s in sets):
        sys.exit("compare: the held sets are for --half test only (they are never tuned on)")
    for name in sets:
        compare(args, name)


if __name__ == "__main__":
    main()
