"""Learns the bar pointer's rhythmic patterns (Sources/PracticeCore/Analysis/BarPointer.swift)
from beat-annotated pieces, and writes them as Swift (BarPointerPatterns.swift).

For each piece DIR/NAME.wav with DIR/NAME.beats (seconds, beat-in-bar) and DIR/NAME.json
(its meter), `practice beats detect` writes the observations it decodes (with
PRACTICE_BEAT_OBSERVATIONS, 50 frames a second, four features a frame). Every frame between
the first and the last true beat gets its place in the bar, in twelfths of a beat; each
meter's pattern is, per twelfth, the mean and variance of each feature over all frames
there, in every piece of that meter. Meters the model does not decode (5/4, 7/8) are left
out.

  models/run train-patterns BINARY DIR[@tune | :LIST] ... [--out FILE] [--jobs 2]

DIR@tune takes only the pieces of the corpus's tuning half (bench/beats/split.json); DIR:LIST
only those named in LIST (a file, one name a line). The patterns must be learned on tuning
pieces only, never on the test half (bench/beats/README.md). The committed patterns:

  models/run train-patterns .build/release/practice bench/out/beats-corpus@tune bench/out/beats-set
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from models.lib import paths

FRAME_RATE = 50.0
DIMENSIONS = 4
CELLS_PER_BEAT = 12
VARIANCE_FLOOR = 1e-3
DEFAULT_OUT = paths.PATTERNS


def meter_class(meter):
    """(beats counted a bar, divided in three) for a meter string, None if not decoded."""
    beats, unit = (int(x) for x in meter.split("/"))
    if unit == 8 and beats % 3 == 0 and beats > 3:
        beats, triple = beats // 3, True
    else:
        triple = False
    return (beats, triple) if beats in (2, 3, 4) else None


def observe(binary, wav):
    """The observations of one piece: frames x DIMENSIONS."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PRACTICE_DB=os.path.join(tmp, "db.sqlite"),
                   PRACTICE_BEAT_OBSERVATIONS=os.path.join(tmp, "obs.tsv"))
        subprocess.run([binary, "add", wav], env=env, check=True, capture_output=True)
        subprocess.run([binary, "beats", "detect", wav], env=env, capture_output=True)
        return np.loadtxt(os.path.join(tmp, "obs.tsv"), ndmin=2)


def frame_cells(times, numbers, beats_per_bar, frames):
    """Each frame's cell in the bar (-1 outside the annotated beats)."""
    cells = np.full(frames, -1, dtype=int)
    t = np.arange(frames) / FRAME_RATE
    k = np.searchsorted(times, t, side="right") - 1
    inside = (k >= 0) & (k < len(times) - 1)
    kk = k[inside]
    frac = (t[inside] - times[kk]) / (times[kk + 1] - times[kk])
    position = (numbers[kk] - 1) % beats_per_bar
    cells[inside] = np.minimum(position * CELLS_PER_BEAT + (frac * CELLS_PER_BEAT).astype(int),
                               beats_per_bar * CELLS_PER_BEAT - 1)
    return cells


def pieces(spec):
    directory, _, half = spec.partition("@")
    directory, _, listing = directory.partition(":")
    if half:
        names = paths.half_names(half)
    elif listing:
        with open(listing) as f:
            names = [line.strip() for line in f if line.strip()]
    else:
        names = sorted(n[:-len(".beats")] for n in os.listdir(directory) if n.endswith(".beats"))
    return [(directory, n) for n in names if os.path.exists(os.path.join(directory, n + ".wav"))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary")
    parser.add_argument("sets", nargs="+")
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    todo = [p for s in args.sets for p in pieces(s)]
    sums, squares, counts = {}, {}, {}
    used = {}

    def work(item):
        directory, name = item
        with open(os.path.join(directory, name + ".json")) as f:
            meta = json.load(f)
        cls = meter_class(meta["meter"])
        if cls is None:
            return None
        obs = observe(args.binary, os.path.join(directory, name + ".wav"))
        times, numbers = [], []
        with open(os.path.join(directory, name + ".beats")) as f:
            for line in f:
                fields = line.split()
                if fields:
                    times.append(float(fields[0]))
                    numbers.append(int(float(fields[1])))
        return cls, obs, np.array(times), np.array(numbers)

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for result in pool.map(work, todo):
            if result is None:
                continue
            cls, obs, times, numbers = result
            cells = frame_cells(times, numbers, cls[0], len(obs))
            size = cls[0] * CELLS_PER_BEAT
            if cls not in sums:
                sums[cls] = np.zeros((size, DIMENSIONS))
                squares[cls] = np.zeros((size, DIMENSIONS))
                counts[cls] = np.zeros(size)
            keep = cells >= 0
            np.add.at(sums[cls], cells[keep], obs[keep])
            np.add.at(squares[cls], cells[keep], obs[keep] ** 2)
            np.add.at(counts[cls], cells[keep], 1)
            used[cls] = used.get(cls, 0) + 1

    lines = ["// Generated by models/train_patterns.py; do not edit by hand.",
             "// Learned from: " + ", ".join(
                 f"{'%d/8' % (3 * b) if t else '%d/4' % b} {used[(b, t)]} pieces"
                 for (b, t) in sorted(used)) + ".",
             "enum BarPointerPatterns {",
             "  static let all: [BarPointer.Pattern] = ["]
    for cls in sorted(sums):
        n = np.maximum(counts[cls], 1)[:, None]
        mean = sums[cls] / n
        variance = np.maximum(squares[cls] / n - mean ** 2, VARIANCE_FLOOR)
        fmt = lambda a: ", ".join("%.4f" % v for v in a.ravel())
        lines += [
            "    BarPointer.Pattern(",
            f"      meter: .init(beats: {cls[0]}, triple: {'true' if cls[1] else 'false'}),",
            f"      mean: [{fmt(mean)}],",
            f"      variance: [{fmt(variance)}]),",
        ]
    lines += ["  ]", "}", ""]
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    print(f"train-patterns: {sum(used.values())} pieces -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
