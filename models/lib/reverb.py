"""A reverberant hall, as in a church or concert recording (`in_hall`): the corpus's reverb
processing, and the set's copies `models/run copies reverb RT60_S [--set DIR] [--out DIR]`
makes (default bench/out/beats-reverb-RT60).

Every piece of the set is convolved with
a synthetic room response and added to its dry sound: velvet noise (Järveläinen and
Karjalainen 2007: one tap of random sign in every millisecond, at a random place in it),
decaying by 60 dB over RT60_S seconds, its energy equal to the dry sound's (direct to
reverberant ratio 0 dB, as a few metres from the players in a large hall), the same
response for every piece and an independent one for each channel. The dry sound's timing
is untouched, so the ground truth (.beats, .json, index.json) is copied unchanged; the
file keeps its length (the reverberant tail after the end is cut, with the rest of the
set's ring-out). Peaks are scaled to -1 dBFS. Needs numpy, scipy and soundfile (bench/out/venv).
"""

import numpy as np
from scipy.signal import fftconvolve


DENSITY = 1000.0  # taps a second


def response(rt60, rate, channel):
    """Velvet noise decaying by 60 dB over `rt60` s, unit energy; seeded by the channel."""
    rng = np.random.default_rng(1 + channel)
    length = int(rt60 * rate)
    step = rate / DENSITY
    count = int(length / step)
    where = (np.arange(count) * step + rng.uniform(0, step, count)).astype(int)
    where = where[where < length]
    ir = np.zeros(length)
    ir[where] = rng.choice([-1.0, 1.0], len(where)) * 10 ** (-3 * where / length)
    return ir / np.sqrt((ir ** 2).sum())


def in_hall(name, x, rate, beats, rt60):
    y = x.copy()
    for c in range(x.shape[1]):
        y[:, c] += fftconvolve(x[:, c], response(rt60, rate, c))[: len(x)]
    y *= 10 ** (-1 / 20) / max(np.abs(y).max(), 1e-9)
    return y, beats

