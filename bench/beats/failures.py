"""Where a detector's beat F is lost: each piece below beat F 0.9 by kind, from the JSON
that `score.py --json` writes and the corpus's reference beats.

    bench/beats/run failures CORPUS SCORE.json [CORPUS SCORE.json ...]

Kinds: `double` and `half` (AMLt above 0.7, about twice or half the reference's beats),
`compound` (3/2 or 3 times the beats: a compound meter counted in quarters or eighths),
`other` (rubato, off-beat, lost). Per kind: the pieces, the beat F they lose per piece of
the set, and the reference tempi (the median beat interval, BPM)."""
import json
import os
import statistics
import sys


def kind(p):
    ratio = p["est_beats"] / max(1, p["ref_beats"])
    if p["amlt"] > 0.7 and 1.7 < ratio < 2.3:
        return "double"
    if p["amlt"] > 0.7 and 0.4 < ratio < 0.65:
        return "half"
    if 1.35 < ratio < 1.65 or 2.7 < ratio < 3.3:
        return "compound"
    return "other"


def main(args):
    if not args or len(args) % 2:
        sys.exit(__doc__)
    for corpus, path in zip(args[::2], args[1::2]):
        with open(path) as f:
            pieces = json.load(f)["pieces"]
        kinds = {}
        for name, p in pieces.items():
            if p.get("missing") or p["beat_f"] >= 0.9:
                continue
            with open(os.path.join(corpus, name + ".beats")) as f:
                beats = [float(line.split()[0]) for line in f if line.strip()]
            bpm = 60 / statistics.median(b - a for a, b in zip(beats, beats[1:]))
            kinds.setdefault(kind(p), []).append((p["beat_f"], bpm, name))
        print(f"{path}: {len(pieces)} pieces")
        for k in ("double", "half", "compound", "other"):
            rows = kinds.get(k, [])
            lost = sum(1 - f for f, _, _ in rows) / len(pieces)
            tempi = ", ".join(f"{b:.0f}" for _, b, _ in sorted(rows, key=lambda r: r[1]))
            print(f"  {k:9s} {len(rows):3d} pieces, {lost:.3f} beat F lost; BPM {tempi}")


if __name__ == "__main__":
    main(sys.argv[1:])
