"""A wavering tempo, as people play without a click (`wavering`): the set's copies
`models/run copies wobble DEPTH_PERCENT [--set DIR] [--out DIR]` makes.

The set's pieces are machine-steady (or change tempo along a smooth curve); players
without a click drift a few per cent either way. Writes DIR (default
bench/out/beats-wobble-DEPTH) with every piece resampled along a time map whose speed
wavers around 1 by up to DEPTH_PERCENT: 0.7 of it over an 11 s period and 0.3 over 4.3 s,
at phases seeded by the piece's name (so the copies are the same on every run). The pitch
wavers with it (as tape wow would, by at most a third of a semitone at 2 %). The ground
truth is mapped through the same time map; beats past the new end are dropped. Needs numpy
and soundfile (bench/out/venv).
"""

import zlib

import numpy as np



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


def wavering(name, x, rate, beats, depth):
    heard, played = time_map(name, depth / 100, len(x), rate)
    frames = np.arange(len(x))
    y = np.stack([np.interp(played * rate, frames, x[:, c]) for c in range(x.shape[1])], 1)
    moved = []
    for line in beats:
        t, number = line.split()
        if float(t) < played[-1]:
            moved.append(f"{np.interp(float(t), played, heard):.6f}\t{number}\n")
    return y, moved

