"""Copies of evaluation pieces with one odd bar, as in a song that drops or adds two beats.

  bench/beats/run oddbars [--set DIR] [--out DIR] [PIECE ...]

Pop songs and hymns often have a bar of 2/4 in 4/4 (a chorus that comes in early), or a
bar of 2/4 added; a waltz may have a bar of two. A beat map with one meter and one phase
numbers every bar after it wrongly. For every 4/4 and 3/4 piece of the set (or the pieces
named), writes two copies to DIR (default bench/out/beats-oddbars):

  NAME-cut   the second half of a bar near the middle cut out (4/4: beats 3-4, 3/4:
             beat 3), so that bar has two beats;
  NAME-add   the first two beats of that bar played twice, the first time as a bar of two.

The cuts are on beats of the ground truth, with a 10 ms crossfade; the ground truth is cut
or repeated with the audio, and keeps its beat numbers (the odd bar is numbered 1, 2). The
.json metadata is copied with "odd bar" added to its tags, and DIR/index.json lists the
copies. Needs numpy and soundfile (bench/out/venv).
"""

import argparse
import glob
import json
import os

import numpy as np
import soundfile as sf

from bench.beats.beatlib import OUT, SET
from bench.beats.score import read_beats

FADE = 0.010


def splice(parts, rate):
    """Concatenates audio parts with a FADE crossfade at each join."""
    n = int(FADE * rate)
    out = parts[0]
    ramp = np.linspace(0, 1, n)[:, None] if out.ndim == 2 else np.linspace(0, 1, n)
    for part in parts[1:]:
        head, tail = out[:-n], out[-n:]
        out = np.concatenate([head, tail * (1 - ramp) + part[:n] * ramp, part[n:]])
    return out


def middle_bar(numbers):
    """Index of the downbeat nearest the middle with a whole bar after it."""
    downs = [i for i, n in enumerate(numbers) if n == 1]
    full = [i for i in downs if i + numbers.max() < len(numbers)]
    return min(full, key=lambda i: abs(i - len(numbers) / 2))


def write(out, name, audio, rate, times, numbers, meta):
    """Writes NAME.wav, .beats and .json; returns the metadata."""
    sf.write(os.path.join(out, name + ".wav"), audio, rate, subtype="PCM_16")
    with open(os.path.join(out, name + ".beats"), "w") as f:
        for t, n in zip(times, numbers):
            f.write(f"{t:.6f}\t{n}\n")
    meta = dict(meta, name=name, tags=list(meta.get("tags", [])) + ["odd bar"],
                duration=round(len(audio) / rate, 3), beats=len(times),
                downbeats=sum(1 for n in numbers if n == 1), first_beat=float(times[0]),
                last_beat=float(times[-1]))
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(meta, f, indent=1)
    return meta


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pieces", nargs="*")
    ap.add_argument("--set", default=SET)
    ap.add_argument("--out", default=os.path.join(OUT, "beats-oddbars"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    names = args.pieces or sorted(
        os.path.basename(p)[:-6] for p in glob.glob(os.path.join(args.set, "*.beats"))
        if os.path.basename(p)[:2] in ("44", "34"))
    index = []
    for name in names:
        audio, rate = sf.read(os.path.join(args.set, name + ".wav"))
        times, numbers = read_beats(os.path.join(args.set, name + ".beats"))
        with open(os.path.join(args.set, name + ".json")) as f:
            meta = json.load(f)
        per_bar = int(numbers.max())
        d = middle_bar(numbers)
        keep = 2  # beats the odd bar keeps
        cut_from, cut_to = times[d + keep], times[d + per_bar]
        at = lambda t: int(round(t * rate))  # noqa: E731

        # Cut: beats d+keep .. d+per_bar-1 go, and everything after moves earlier.
        removed = cut_to - cut_from
        a = splice([audio[:at(cut_from)], audio[at(cut_to):]], rate)
        idx = [i for i in range(len(times)) if not (d + keep <= i < d + per_bar)]
        t = [times[i] if i < d + keep else times[i] - removed for i in idx]
        index.append(write(args.out, name + "-cut", a, rate, t, [numbers[i] for i in idx], meta))

        # Add: beats d .. d+keep-1 play twice, the first time as a bar of `keep`.
        start, end = times[d], times[d + keep]
        added = end - start
        a = splice([audio[:at(end)], audio[at(start):]], rate)
        t = list(times[:d + keep]) + [x + added for x in times[d:]]
        n = list(numbers[:d]) + list(range(1, keep + 1)) + list(numbers[d:])
        index.append(write(args.out, name + "-add", a, rate, t, n, meta))
        print(f"{name}: odd bar at {times[d]:.2f} s (cut {removed:.2f} s, added {added:.2f} s)")
    with open(os.path.join(args.out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
