"""Steady pink noise, as in a rehearsal or live recording (`add_noise`): the corpus's noise
processing, and the set's copies `models/run copies noisy SNR_DB [--set DIR] [--out DIR]`
makes (default bench/out/beats-noisy-SNR).

Every piece is mixed with pink
noise (power falling 3 dB an octave) SNR_DB below the piece's own RMS level, over the whole
file: the silence before the music and the ring-out after it are hiss too. The ground
truth (.beats, .json, index.json) is copied unchanged. The noise is seeded by the piece's
name, so the copies are the same on every run. Needs numpy and soundfile (bench/out/venv).
"""

import zlib

import numpy as np



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


def add_noise(name, x, rate, beats, snr):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    level = np.sqrt((x ** 2).mean())
    y = x + pink(x.shape, rng) * level * 10 ** (-snr / 20)
    peak = np.abs(y).max()
    if peak > 0.999:  # keep it unclipped: the same mix, a little quieter
        y *= 0.999 / peak
    return y, beats

