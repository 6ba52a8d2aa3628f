#!/usr/bin/env python3
"""Copies of the evaluation set played with a wavering tempo, as people play without a click.

  wobble.py DEPTH_PERCENT [--set DIR] [--out DIR]

The set's pieces are machine-steady (or change tempo along a smooth curve); players
without a click drift a few per cent either way. Writes DIR (default
bench/out/beats-wobble-DEPTH) with every piece resampled along a time map whose speed
wavers around 1 by up to DEPTH_PERCENT: 0.7 of it over an 11 s period and 0.3 over 4.3 s,
at phases seeded by the piece's name (so the copies are the same on every run). The pitch
wavers with it (as tape wow would, by at most a third of a semitone at 2 %). The ground
truth is mapped through the same time map; beats past the new end are dropped. Existing
copies newer than their source are kept. Needs numpy and soundfile (bench/out/venv).
"""

import argparse
import json
import os
import shutil
import zlib

import numpy as np
import soundfile as sf

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def time_map(name, depth, frames, rate):
    """(output seconds, input seconds) of each output frame, up to the input's end."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    slow, fast = rng.uniform(0, 2 * np.pi, 2)
    out = np.arange(int(frames * (1 + depth))) / rate
    speed = 1 + depth * (0.7 * np.sin(2 * np.pi * out / 11 + slow)
                         + 0.3 * np.sin(2 * np.pi * out / 4.3 + fast))
    source = np.concatenate([[0.0], np.cumsum(speed[:-1]) / rate])
    keep = source < frames / rate
    return out[keep], source[keep]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("depth", type=float, help="largest change of speed, per cent")
    ap.add_argument("--set", default=os.path.join(ROOT, "bench/out/beats-set"))
    ap.add_argument("--out")
    args = ap.parse_args()
    out = args.out or os.path.join(ROOT, "bench/out", f"beats-wobble-{args.depth:g}")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(args.set, "index.json")) as f:
        pieces = json.load(f)
    for p in pieces:
        name = p["name"]
        source = os.path.join(args.set, name + ".wav")
        dest = os.path.join(out, name + ".wav")
        if os.path.exists(dest) and os.path.getmtime(dest) >= os.path.getmtime(source):
            continue
        x, rate = sf.read(source, always_2d=True)
        heard, played = time_map(name, args.depth / 100, len(x), rate)
        frames = np.arange(len(x))
        y = np.stack([np.interp(played * rate, frames, x[:, c]) for c in range(x.shape[1])], 1)
        lines = []
        with open(os.path.join(args.set, name + ".beats")) as f:
            for line in f:
                t, number = line.split()
                if float(t) < played[-1]:
                    lines.append(f"{np.interp(float(t), played, heard):.6f}\t{number}\n")
        with open(os.path.join(out, name + ".beats"), "w") as f:
            f.writelines(lines)
        shutil.copy(os.path.join(args.set, name + ".json"), os.path.join(out, name + ".json"))
        sf.write(dest + ".partial.wav", y, rate, subtype="PCM_16")
        os.replace(dest + ".partial.wav", dest)
    shutil.copy(os.path.join(args.set, "index.json"), os.path.join(out, "index.json"))
    print(out)


if __name__ == "__main__":
    main()
