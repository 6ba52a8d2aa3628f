#!/usr/bin/env python3
"""Copies of the evaluation set under steady pink noise, as in a rehearsal or live recording.

  noisy.py SNR_DB [--set DIR] [--out DIR]

Writes DIR (default bench/out/beats-noisy-SNR) with every piece of the set mixed with pink
noise (power falling 3 dB an octave) SNR_DB below the piece's own RMS level, over the whole
file: the silence before the music and the ring-out after it are hiss too. The ground
truth (.beats, .json, index.json) is copied unchanged. The noise is seeded by the piece's
name, so the copies are the same on every run; existing copies newer than their source
are kept. Needs numpy and soundfile (bench/out/venv).
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


def pink(shape, rng):
    """Pink noise of unit RMS per channel: white noise shaped by 1/sqrt(f) in frequency."""
    white = rng.standard_normal(shape)
    spectrum = np.fft.rfft(white, axis=0)
    f = np.arange(spectrum.shape[0], dtype=float)
    f[0] = 1.0
    spectrum /= np.sqrt(f)[:, None]
    spectrum[0] = 0.0
    noise = np.fft.irfft(spectrum, n=shape[0], axis=0)
    return noise / np.sqrt((noise ** 2).mean(axis=0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("snr", type=float, help="noise level below the music's RMS, dB")
    ap.add_argument("--set", default=os.path.join(ROOT, "bench/out/beats-set"))
    ap.add_argument("--out")
    args = ap.parse_args()
    out = args.out or os.path.join(ROOT, "bench/out", f"beats-noisy-{args.snr:g}")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(args.set, "index.json")) as f:
        pieces = json.load(f)
    for p in pieces:
        name = p["name"]
        source = os.path.join(args.set, name + ".wav")
        dest = os.path.join(out, name + ".wav")
        if not os.path.exists(dest) or os.path.getmtime(dest) < os.path.getmtime(source):
            x, rate = sf.read(source, always_2d=True)
            rng = np.random.default_rng(zlib.crc32(name.encode()))
            level = np.sqrt((x ** 2).mean())
            y = x + pink(x.shape, rng) * level * 10 ** (-args.snr / 20)
            peak = np.abs(y).max()
            if peak > 0.999:  # keep it unclipped: the same mix, a little quieter
                y *= 0.999 / peak
            sf.write(dest + ".partial.wav", y, rate, subtype="PCM_16")
            os.replace(dest + ".partial.wav", dest)
        for ext in (".beats", ".json"):
            shutil.copy(os.path.join(args.set, name + ext), os.path.join(out, name + ext))
    shutil.copy(os.path.join(args.set, "index.json"), os.path.join(out, "index.json"))
    print(out)


if __name__ == "__main__":
    main()
