#!/usr/bin/env python3
"""A randomised delivery chain: what happens to a piece between the band and the listener
(issue 41, item 1), so the network is trained and scored on pieces that sound like records.

Each piece gets a chain of several stages drawn at random, seeded by (SEED, the piece's
name), applied in the order a record is made and delivered:

  reverb    a room (velvet noise, RT60 0.3-0.9 s), a plate (dense decaying noise, darker
            tail, 1.2-2.5 s) or a hall (velvet noise, 1.2-2.4 s), wet 0 to -12 dB under dry
  eq        a tilt (-6..+6 dB from 50 Hz to 16 kHz around 1 kHz), radio (150 Hz-5 kHz),
            phone (300-3400 Hz) or dark (low-pass 1.5-3 kHz); all zero-phase
  compress  bus compression on the 2 ms RMS level: threshold 0-12 dB under the piece's RMS,
            2:1, 4:1 or 8:1, attack 1-10 ms, release 50-300 ms, make-up to -1 dBFS
  limit     a brick-wall limiter driven 3-12 dB into a -0.3 dBFS ceiling (symmetric
            look-ahead: the gain falls 5 ms before a peak and holds 40 ms, no delay)
  gain      -12..+12 dB; what passes full scale is clipped
  width     stereo width 0 (mono) to 1.8 (mid/side)
  tape      wow (0.3-2 Hz, 0.05-0.2 % of speed) and flutter (6-12 Hz), the time moved by
            at most 0.6 ms, and hiss (white, 30-50 dB under the music)
  noise     pink noise 12-30 dB under the music's RMS (noisy.py's)
  rate      resampled to 22.05, 32, 48, 88.2 or 96 kHz (scipy's resample_poly: no delay)
  codec     MP3 (LAME), AAC (ffmpeg's) or Opus at 64-192 kbit/s and back through ffmpeg;
            the delay left after decoding is measured against the input (cross-correlation
            of the first 20 s, ±4096 samples at 44.1 kHz) and taken out, as models/corpus.py's
            mp3_round_trip does, so beat times stay true

None of them moves a beat by more than 1 ms (`--check` renders a click track through every
kind of stage and every full chain it draws, and measures each click by cross-correlation
with the dry track), so the ground truth is the dry piece's. Each chain has 2-6 stages and
at least one of reverb/noise/tape, eq/compress/limit or codec. The chain and its groups
(`codec`, `reverb/noise`, `compression/EQ`: the issue's delivery groups) go into the
piece's JSON ("delivery", "delivery_groups"; score.py reports `delivery GROUP`).

  models/run delivery --check [--chains 40]
  models/run delivery --show SEED NAME...   # print chains

models/corpus.py --delivery SEED passes every piece through its chain (in place of its
recipe's one processing). Needs numpy, scipy, soundfile (bench/out/venv) and ffmpeg.
"""

import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import zlib

import numpy as np
import soundfile as sf
from scipy.ndimage import minimum_filter1d, uniform_filter1d
from scipy.signal import butter, fftconvolve, resample_poly, sosfiltfilt

from models.lib import noisy

ORDER = ("reverb", "eq", "compress", "limit", "gain", "width", "tape", "noise", "rate",
         "codec")
CHANCE = {"reverb": 0.40, "eq": 0.45, "compress": 0.50, "limit": 0.40, "gain": 0.45,
          "width": 0.30, "tape": 0.25, "noise": 0.25, "rate": 0.40, "codec": 0.55}
GROUP = {"reverb": "reverb/noise", "tape": "reverb/noise", "noise": "reverb/noise",
         "eq": "compression/EQ", "compress": "compression/EQ", "limit": "compression/EQ",
         "codec": "codec"}
RATES = (22050, 32000, 48000, 88200, 96000)
KBPS = (64, 96, 128, 160, 192)
MOST_MS = 1.0  # what --check allows a click to move


with open(os.path.abspath(__file__), "rb") as _f:
    _SOURCE = hashlib.sha256(_f.read()).hexdigest()[:16]


def source_digest():
    """Of this file as imported: models/corpus.py puts it in a delivered piece's recipe."""
    return _SOURCE


# ---------------------------------------------------------------------------- drawing

def draw_stage(kind, rng):
    """One stage's parameters (a dict with "stage")."""
    u = rng.uniform
    if kind == "reverb":
        room = str(rng.choice(["room", "plate", "hall"]))
        rt = {"room": (0.3, 0.9), "plate": (1.2, 2.5), "hall": (1.2, 2.4)}[room]
        return {"stage": kind, "type": room, "rt60_s": round(u(*rt), 2),
                "wet_db": round(u(-12, 0), 1), "seed": int(rng.integers(1 << 30))}
    if kind == "eq":
        t = str(rng.choice(["tilt", "radio", "phone", "dark"]))
        if t == "tilt":
            return {"stage": kind, "type": t, "tilt_db": round(u(-6, 6), 1)}
        if t == "radio":
            return {"stage": kind, "type": t, "band_hz": [150, 5000]}
        if t == "phone":
            return {"stage": kind, "type": t, "band_hz": [300, 3400]}
        return {"stage": kind, "type": t, "lowpass_hz": int(u(1500, 3000))}
    if kind == "compress":
        return {"stage": kind, "ratio": int(rng.choice([2, 4, 8])),
                "threshold_db": round(u(-12, 0), 1), "attack_ms": round(u(1, 10), 1),
                "release_ms": int(u(50, 300))}
    if kind == "limit":
        return {"stage": kind, "drive_db": round(u(3, 12), 1), "ceiling_db": -0.3}
    if kind == "gain":
        return {"stage": kind, "gain_db": round(u(-12, 12), 1)}
    if kind == "width":
        return {"stage": kind, "width": round(u(0, 1.8), 2)}
    if kind == "tape":
        wow_hz, wow = u(0.3, 2), u(0.0005, 0.002)
        fl_hz, fl = u(6, 12), u(0.0001, 0.0005)
        return {"stage": kind, "wow_hz": round(wow_hz, 2), "wow_speed": round(wow, 5),
                "flutter_hz": round(fl_hz, 2), "flutter_speed": round(fl, 5),
                "hiss_db": round(u(30, 50), 1), "seed": int(rng.integers(1 << 30))}
    if kind == "noise":
        return {"stage": kind, "snr_db": round(u(12, 30), 1),
                "seed": int(rng.integers(1 << 30))}
    if kind == "rate":
        return {"stage": kind, "rate": int(rng.choice(RATES))}
    if kind == "codec":
        return {"stage": kind, "codec": str(rng.choice(["mp3", "aac", "opus"])),
                "kbps": int(rng.choice(KBPS))}
    raise ValueError(kind)


def draw_chain(seed, name):
    """The piece's chain: 2-6 stages in ORDER, at least one in a delivery group."""
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    while True:
        kinds = [k for k in ORDER if rng.uniform() < CHANCE[k]]
        if 2 <= len(kinds) <= 6 and any(k in GROUP for k in kinds):
            return [draw_stage(k, rng) for k in kinds]


def groups_of(chain):
    return sorted({GROUP[s["stage"]] for s in chain if s["stage"] in GROUP})


# ---------------------------------------------------------------------------- stages

def decaying_noise(rt60, rate, rng, velvet, dark):
    """A unit-energy impulse response decaying by 60 dB over rt60: velvet noise (one tap
    of random sign per millisecond) or dense Gaussian noise; `dark` rolls the tail's highs
    off as it decays (a plate's / a damped room's)."""
    n = int(rt60 * rate)
    t = np.arange(n) / rate
    if velvet:
        step = rate / 1000.0
        where = (np.arange(int(n / step)) * step + rng.uniform(0, step, int(n / step)))
        where = where.astype(int)
        where = where[where < n]
        ir = np.zeros(n)
        ir[where] = rng.choice([-1.0, 1.0], len(where))
    else:
        ir = rng.standard_normal(n)
    ir *= 10 ** (-3 * t / rt60)
    if dark:  # two halves: the later one through a 3 kHz low-pass
        lp = sosfiltfilt(butter(2, min(3000, rate / 2 - 1), "lowpass", fs=rate,
                                output="sos"), ir)
        mix = np.clip(t / rt60 * 2, 0, 1)
        ir = (1 - mix) * ir + mix * lp
    ir[0] = 0.0  # the direct sound is the dry signal's own
    return ir / np.sqrt((ir ** 2).sum() + 1e-20)


def reverb(x, rate, p):
    rng = np.random.default_rng(p["seed"])
    kind = p["type"]
    wet_gain = 10 ** (p["wet_db"] / 20) * math.sqrt((x ** 2).sum() / max(1, x.shape[1]))
    y = x.copy()
    for c in range(x.shape[1]):
        ir = decaying_noise(p["rt60_s"], rate, rng, velvet=kind != "plate",
                            dark=kind != "hall")
        wet = fftconvolve(x[:, c], ir)[: len(x)]
        y[:, c] += wet / (np.sqrt((wet ** 2).sum()) + 1e-12) * wet_gain
    return normalise(y)


def zero_phase(x, rate, gain_of_hz):
    """x filtered by a real gain curve in frequency (no phase: nothing moves in time);
    padded so the circular wrap falls in silence."""
    n = len(x)
    size = 1 << int(np.ceil(np.log2(n + rate)))
    spec = np.fft.rfft(x, size, axis=0)
    f = np.fft.rfftfreq(size, 1 / rate)
    spec *= gain_of_hz(f)[:, None]
    return np.fft.irfft(spec, size, axis=0)[:n]


def eq(x, rate, p):
    t = p["type"]
    nyq = rate / 2 - 1
    if t == "tilt":  # linear in log frequency, pivot 1 kHz, flat below 50 Hz / above 16 kHz
        slope = p["tilt_db"] / math.log2(16000 / 50)

        def gain(f):
            lf = np.log2(np.clip(f, 50, 16000) / 1000)
            return 10 ** (slope * lf / 20)
        y = zero_phase(x, rate, gain)
    elif t in ("radio", "phone"):
        lo, hi = p["band_hz"]
        order = 2 if t == "radio" else 4
        sos = np.concatenate([butter(order, lo, "highpass", fs=rate, output="sos"),
                              butter(order, min(hi, nyq), "lowpass", fs=rate, output="sos")])
        y = sosfiltfilt(sos, x, axis=0)
    else:
        y = sosfiltfilt(butter(4, min(p["lowpass_hz"], nyq), "lowpass", fs=rate,
                               output="sos"), x, axis=0)
    return normalise(y)


def compressor_gain(x, rate, ratio, threshold_db, attack_s, release_s):
    """A feed-forward compressor's gain for each frame of x (models/corpus.py's compression
    uses it too): on the 2 ms RMS level of all channels, above a threshold `threshold_db`
    from the whole signal's RMS level, `ratio`:1, one-pole attack and release."""
    block = int(0.002 * rate)
    n = len(x) // block
    level = np.sqrt((x[:n * block] ** 2).mean(axis=1).reshape(n, block).mean(axis=1) + 1e-12)
    level_db = 20 * np.log10(level)
    thr = 20 * np.log10(np.sqrt((x ** 2).mean()) + 1e-12) + threshold_db
    want = -np.maximum(0.0, level_db - thr) * (1 - 1 / ratio)
    a_att = math.exp(-0.002 / attack_s)
    a_rel = math.exp(-0.002 / release_s)
    g = np.empty(n)
    cur = 0.0
    for k in range(n):
        a = a_att if want[k] < cur else a_rel
        cur = a * cur + (1 - a) * want[k]
        g[k] = cur
    return np.interp(np.arange(len(x)), np.arange(n) * block + block / 2, 10 ** (g / 20))


def compress(x, rate, p):
    """Bus compression; make-up to -1 dBFS peak."""
    gain = compressor_gain(x, rate, p["ratio"], p["threshold_db"], p["attack_ms"] / 1000,
                           p["release_ms"] / 1000)
    return normalise(x * gain[:, None])


def limit(x, rate, p):
    """Driven into a brick wall: the gain each sample needs (ceiling / peak over the
    channels), its minimum over ±hold, then a moving mean over 5 ms: the mean of minima
    taken over a wider window never lets a peak through, and being symmetric it moves
    nothing in time (the look-ahead is compensated)."""
    ceiling = 10 ** (p["ceiling_db"] / 20)
    y = x * 10 ** (p["drive_db"] / 20)
    peak = np.abs(y).max(axis=1)
    need = np.minimum(1.0, ceiling / np.maximum(peak, 1e-12))
    ramp = max(1, int(0.005 * rate))
    hold = max(ramp, int(0.040 * rate))
    g = uniform_filter1d(minimum_filter1d(need, 2 * hold + 1, mode="nearest"), ramp,
                         mode="nearest")
    return np.clip(y * g[:, None], -ceiling, ceiling)


def gain(x, rate, p):
    return np.clip(x * 10 ** (p["gain_db"] / 20), -1.0, 1.0)


def width(x, rate, p):
    if x.shape[1] != 2:
        return x
    mid = (x[:, 0] + x[:, 1]) / 2
    side = (x[:, 0] - x[:, 1]) / 2 * p["width"]
    return np.clip(np.stack([mid + side, mid - side], 1), -1.0, 1.0)


def tape(x, rate, p):
    """Read at t + d(t): d a wow and a flutter sine (amplitude speed / 2πf, together at
    most 0.6 ms), linearly interpolated; then hiss."""
    rng = np.random.default_rng(p["seed"])
    t = np.arange(len(x)) / rate
    a_wow = p["wow_speed"] / (2 * math.pi * p["wow_hz"])
    a_fl = p["flutter_speed"] / (2 * math.pi * p["flutter_hz"])
    scale = min(1.0, 0.0006 / (a_wow + a_fl))
    ph = rng.uniform(0, 2 * math.pi, 2)
    d = scale * (a_wow * np.sin(2 * math.pi * p["wow_hz"] * t + ph[0])
                 + a_fl * np.sin(2 * math.pi * p["flutter_hz"] * t + ph[1]))
    where = np.clip((t + d) * rate, 0, len(x) - 1)
    frames = np.arange(len(x))
    y = np.stack([np.interp(where, frames, x[:, c]) for c in range(x.shape[1])], 1)
    level = np.sqrt((y ** 2).mean())
    y = y + rng.standard_normal(y.shape) * level * 10 ** (-p["hiss_db"] / 20)
    return normalise(y, only_down=True)


def noise(x, rate, p):
    rng = np.random.default_rng(p["seed"])
    level = np.sqrt((x ** 2).mean())
    return normalise(x + noisy.pink(x.shape, rng) * level * 10 ** (-p["snr_db"] / 20),
                     only_down=True)


def resample(x, rate, p):
    g = math.gcd(int(p["rate"]), rate)
    return normalise(resample_poly(x, p["rate"] // g, rate // g, axis=0), only_down=True)


def lag_of(a, b, most):
    """The lag (samples) by which b is later than a, within ±most: cross-correlation of the
    mono mixes' first 20 s."""
    n = min(len(a), len(b), 20 * 44100)
    a = a[:n].mean(axis=1)
    b = b[:n].mean(axis=1)
    size = 1 << int(np.ceil(np.log2(2 * n)))
    c = np.fft.irfft(np.fft.rfft(b, size) * np.conj(np.fft.rfft(a, size)), size)
    lags = np.concatenate([np.arange(0, most + 1), np.arange(-most, 0)])
    vals = np.concatenate([c[:most + 1], c[size - most:]])
    return int(lags[int(np.argmax(vals))])


def codec(x, rate, p):
    """Encoded and decoded by ffmpeg (MP3 at most 48 kHz, Opus always 48 kHz: ffmpeg
    resamples there and back), the decoder's remaining delay taken out, the length kept."""
    kind, kbps = p["codec"], p["kbps"]
    enc = {"mp3": ("libmp3lame", "mp3", min(rate, 48000)), "aac": ("aac", "m4a", rate),
           "opus": ("libopus", "opus", 48000)}[kind]
    with tempfile.TemporaryDirectory(prefix="delivery-") as tmp:
        src, coded, dec = (os.path.join(tmp, f) for f in ("in.wav", "x." + enc[1], "out.wav"))
        sf.write(src, x, rate, subtype="PCM_16")
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", src, "-c:a", enc[0],
                        "-b:a", f"{kbps}k", "-ar", str(enc[2]), "-fflags", "+bitexact",
                        coded], check=True)
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", coded, "-ar", str(rate),
                        "-fflags", "+bitexact", dec], check=True)
        y, r = sf.read(dec, always_2d=True)
    assert r == rate, (r, rate)
    if y.shape[1] != x.shape[1]:
        y = np.repeat(y[:, :1], x.shape[1], axis=1)
    lag = lag_of(x, y, int(4096 * rate / 44100))
    y = y[lag:] if lag >= 0 else np.concatenate([np.zeros((-lag, y.shape[1])), y])
    y = y[:len(x)] if len(y) >= len(x) else np.concatenate(
        [y, np.zeros((len(x) - len(y), y.shape[1]))])
    p["delay_taken_out_samples"] = lag
    return normalise(y, only_down=True)


def normalise(y, only_down=False):
    """Peak to -1 dBFS (only_down: only when over 0.999)."""
    peak = np.abs(y).max()
    if peak <= 0:
        return y
    if only_down:
        return y * (0.999 / peak) if peak > 0.999 else y
    return y * (10 ** (-1 / 20) / peak)


APPLY = {"reverb": reverb, "eq": eq, "compress": compress, "limit": limit, "gain": gain,
         "width": width, "tape": tape, "noise": noise, "codec": codec}


def apply_stage(x, rate, p):
    """(audio, rate) after one stage; codec stages record the delay they took out in p."""
    if p["stage"] == "rate":
        return resample(x, rate, p), int(p["rate"])
    return APPLY[p["stage"]](x, rate, p), rate


def deliver(name, x, rate, seed):
    """(audio, rate, info) of a piece through its chain; info goes into its JSON."""
    chain = draw_chain(seed, name)
    for p in chain:
        x, rate = apply_stage(x, rate, p)
    return x, rate, {"seed": seed, "chain": chain, "groups": groups_of(chain)}


# ---------------------------------------------------------------------------- check

def click_track(rate=44100, seconds=24.0, seed=7):
    """Stereo noise-burst clicks (2 ms rise, 30 ms decay) at 0.5-0.9 s intervals, with a
    soft pad under them; (audio, click times in s)."""
    rng = np.random.default_rng(seed)
    times = []
    t = 0.5
    while t < seconds - 1:
        times.append(t)
        t += rng.uniform(0.5, 0.9)
    n = int(seconds * rate)
    x = np.zeros((n, 2))
    k = np.arange(int(0.06 * rate))
    env = np.minimum(1, k / (0.002 * rate)) * np.exp(-k / (0.030 * rate))
    for t in times:
        i = int(round(t * rate))
        burst = rng.standard_normal((len(k), 2)) * env[:, None]
        x[i:i + len(k)] += burst[: n - i]
    tt = np.arange(n) / rate
    x += 0.02 * np.sin(2 * np.pi * 220 * tt)[:, None]
    return normalise(x), np.array(times)


def click_errors(dry, rate, wet, wet_rate, times):
    """Each click's move (ms): the lag of the best cross-correlation of the delivered
    audio (back at the dry rate) with the dry, in a 60 ms window at the click, ±5 ms."""
    if wet_rate != rate:
        g = math.gcd(rate, wet_rate)
        wet = resample_poly(wet, rate // g, wet_rate // g, axis=0)
    a = dry.mean(axis=1)
    b = wet.mean(axis=1)
    most = int(0.005 * rate)
    errs = []
    for t in times:
        i = int(round(t * rate))
        w = a[i - int(0.01 * rate): i + int(0.05 * rate)]
        seg = b[i - int(0.01 * rate) - most: i + int(0.05 * rate) + most]
        c = np.correlate(seg, w, mode="valid")  # index j: seg shifted by j - most
        j = int(np.argmax(c))
        frac = 0.0
        if 0 < j < len(c) - 1:
            den = c[j - 1] - 2 * c[j] + c[j + 1]
            frac = 0.5 * (c[j - 1] - c[j + 1]) / den if den else 0.0
        errs.append(1000 * (j - most + frac) / rate)
    return np.array(errs)


def check_stages():
    """Each kind of stage at its extremes, every rate and codec: [(label, click moves ms)]."""
    cases = [
        {"stage": "reverb", "type": "room", "rt60_s": 0.9, "wet_db": 0.0, "seed": 1},
        {"stage": "reverb", "type": "plate", "rt60_s": 2.5, "wet_db": 0.0, "seed": 2},
        {"stage": "reverb", "type": "hall", "rt60_s": 2.4, "wet_db": 0.0, "seed": 3},
        {"stage": "eq", "type": "tilt", "tilt_db": -6.0},
        {"stage": "eq", "type": "tilt", "tilt_db": 6.0},
        {"stage": "eq", "type": "radio", "band_hz": [150, 5000]},
        {"stage": "eq", "type": "phone", "band_hz": [300, 3400]},
        {"stage": "eq", "type": "dark", "lowpass_hz": 1500},
        {"stage": "compress", "ratio": 8, "threshold_db": -12.0, "attack_ms": 1.0,
         "release_ms": 50},
        {"stage": "compress", "ratio": 2, "threshold_db": 0.0, "attack_ms": 10.0,
         "release_ms": 300},
        {"stage": "limit", "drive_db": 12.0, "ceiling_db": -0.3},
        {"stage": "gain", "gain_db": 12.0},
        {"stage": "gain", "gain_db": -12.0},
        {"stage": "width", "width": 0.0},
        {"stage": "width", "width": 1.8},
        {"stage": "tape", "wow_hz": 0.3, "wow_speed": 0.002, "flutter_hz": 6.0,
         "flutter_speed": 0.0005, "hiss_db": 30.0, "seed": 4},
        {"stage": "noise", "snr_db": 12.0, "seed": 5},
    ] + [{"stage": "rate", "rate": r} for r in RATES] + [
        {"stage": "codec", "codec": c, "kbps": k} for c in ("mp3", "aac", "opus")
        for k in (64, 192)]
    dry, times = click_track()
    out = []
    for p in cases:
        p = dict(p)
        y, r = apply_stage(dry, 44100, p)
        label = " ".join(f"{k}={v}" for k, v in p.items() if k != "seed")
        out.append((label, click_errors(dry, 44100, y, r, times)))
    # the codecs at every rate a chain can hand them
    for r in RATES:
        x, _ = apply_stage(dry, 44100, {"stage": "rate", "rate": r})
        for c in ("mp3", "aac", "opus"):
            p = {"stage": "codec", "codec": c, "kbps": 128}
            y, _ = apply_stage(x, r, p)
            out.append((f"rate={r} then codec={c} kbps=128 (delay "
                        f"{p['delay_taken_out_samples']})", click_errors(dry, 44100, y, r,
                                                                         times)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="render a click track through every kind of stage and --chains "
                         "drawn chains; exit 1 if a click moves by more than 1 ms")
    ap.add_argument("--chains", type=int, default=40)
    ap.add_argument("--show", nargs="+", metavar=("SEED", "NAME"),
                    help="print the chains SEED draws for these piece names")
    args = ap.parse_args()
    if args.show:
        seed = int(args.show[0])
        for name in args.show[1:]:
            print(name, json.dumps(draw_chain(seed, name)))
        return
    if not args.check:
        ap.error("give --check or --show")
    results = check_stages()
    dry, times = click_track()
    for k in range(args.chains):
        name = f"check-{k}"
        y, r, info = deliver(name, dry, 44100, 12345)
        label = "chain " + " > ".join(
            s["stage"] + (f":{s.get('type') or s.get('codec') or s.get('rate') or ''}"
                          if s["stage"] in ("reverb", "eq", "codec", "rate") else "")
            for s in info["chain"])
        results.append((label, click_errors(dry, 44100, y, r, times)))
    worst = 0.0
    for label, errs in results:
        m = float(np.abs(errs).max())
        worst = max(worst, m)
        print(f"{'ok ' if m <= MOST_MS else 'BAD'} {m:6.3f} ms max, {np.median(errs):+6.3f} "
              f"median  {label}")
    print(f"delivery: {len(results)} runs, {len(times)} clicks each, the largest move "
          f"{worst:.3f} ms (allowed {MOST_MS} ms)")
    sys.exit(0 if worst <= MOST_MS else 1)


if __name__ == "__main__":
    main()
