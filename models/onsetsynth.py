"""Synthetic music with known note onsets, for the time reference (issue 21, item 1).

Written apart from the tests' Swift BeatSynth on purpose: the benchmark should not hear
the same generator the tests were written against. Every note of a beat starts on one
sample, so the truth is exact: beat k begins at sample round(t_k * rate), and that sample
divided by the rate is its time.

Three kinds, each at two tempi and every sample rate given:
  sharp   mono: a kick (a falling sine, 150 -> 50 Hz), a snare (noise and a 190 Hz tone),
          closed hi-hats on the eighths, plucked chords on every beat (2 ms attack).
  soft    mono, no drums, 3/4: bowed-string-like chords (sawtooth harmonics, slightly
          detuned pairs) that swell in over 40 ms (a raised cosine) on every beat, a bass
          note on each downbeat swelling the same way.
  stereo  the sharp kind's drums on the left, its chords on the right.

  models/run onsetsynth --out DIR [--rates 22050 44100 ...]

Writes DIR/KIND-BPM-RATE.wav (24-bit) and DIR/KIND-BPM-RATE.json ({"beats": [seconds],
"downbeats": [...], "rate", "kind", "bpm"}), and DIR/index.json listing them. Deterministic.
"""

import argparse
import json
import os

import numpy as np
import soundfile as sf

RATES = (22050, 44100, 48000, 88200, 96000)
TEMPI = {"sharp": (118, 143), "soft": (84, 66), "stereo": (118, 97)}
SECONDS = 30.0
LEAD_IN_S = 0.4137  # not a whole number of any window or hop
# a progression in C: I vi IV V, each chord's three notes as MIDI numbers
CHORDS = ((60, 64, 67), (57, 60, 64), (53, 57, 60), (55, 59, 62))


def hz(midi):
    return 440.0 * 2 ** ((midi - 69) / 12)


def beat_samples(bpm, rate):
    period = 60.0 / bpm
    n = int((SECONDS - LEAD_IN_S - 1.0) / period)
    return [round((LEAD_IN_S + k * period) * rate) for k in range(n)]


def add(out, start, sound):
    end = min(len(out), start + len(sound))
    out[start:end] += sound[:end - start]


def kick(rate):
    t = np.arange(int(0.35 * rate)) / rate
    f = 50 + 100 * np.exp(-t / 0.04)
    phase = 2 * np.pi * np.cumsum(f) / rate - 2 * np.pi * f[0] / rate  # sin(0) at the onset
    return 0.8 * np.sin(phase) * np.exp(-t / 0.12)


def snare(rate, rng):
    t = np.arange(int(0.25 * rate)) / rate
    noise = rng.standard_normal(len(t))
    return 0.35 * noise * np.exp(-t / 0.07) + 0.3 * np.sin(2 * np.pi * 190 * t) * np.exp(-t / 0.05)


def hat(rate, rng):
    t = np.arange(int(0.06 * rate)) / rate
    noise = np.diff(rng.standard_normal(len(t) + 1))  # a first difference: mostly highs
    return 0.08 * noise * np.exp(-t / 0.015)


def pluck(notes, rate, length_s=0.45):
    t = np.arange(int(length_s * rate)) / rate
    env = np.minimum(t / 0.002, 1.0) * np.exp(-t / 0.25)
    tone = sum(np.sin(2 * np.pi * hz(m) * h * t) / h for m in notes for h in range(1, 7))
    return 0.06 * tone * env


def swell(notes, rate, length_s, attack_s=0.04, release_s=0.03, gain=0.05):
    t = np.arange(int(length_s * rate)) / rate
    rise = np.where(t < attack_s, 0.5 - 0.5 * np.cos(np.pi * t / attack_s), 1.0)
    fall = np.clip((length_s - t) / release_s, 0.0, 1.0)
    tone = np.zeros(len(t))
    for m in notes:
        for detune in (-0.15, 0.15):  # ±15 cents: a slow beating, as a section's
            f = hz(m + detune)
            tone += sum(np.sin(2 * np.pi * f * h * t + h) / h for h in range(1, 9))
    return gain * tone * rise * fall


def render(kind, bpm, rate):
    rng = np.random.default_rng(rate * 1000 + bpm)
    frames = int(SECONDS * rate)
    left = np.zeros(frames)
    right = np.zeros(frames)
    beats = beat_samples(bpm, rate)
    per_bar = 3 if kind == "soft" else 4
    period = 60.0 / bpm
    for k, start in enumerate(beats):
        chord = CHORDS[(k // per_bar) % len(CHORDS)]
        if kind == "soft":
            add(left, start, swell(chord, rate, 0.92 * period))
            if k % per_bar == 0:
                add(left, start, swell((chord[0] - 24,), rate, 0.92 * period * per_bar, gain=0.12))
            continue
        drums = left
        chords = right if kind == "stereo" else left
        add(drums, start, kick(rate) if k % 2 == 0 else snare(rate, rng))
        add(drums, start, hat(rate, rng))
        add(drums, start + round(period / 2 * rate), hat(rate, rng))
        add(chords, start, pluck(chord, rate))
    audio = np.stack([left, right], axis=1) if kind == "stereo" else left
    peak = np.max(np.abs(audio))
    audio = audio * (0.7 / peak)
    truth = [s / rate for s in beats]
    return audio, truth, truth[::per_bar]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--rates", nargs="+", type=int, default=list(RATES))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    index = []
    for rate in args.rates:
        for kind, tempi in TEMPI.items():
            for bpm in tempi:
                name = f"{kind}-{bpm}-{rate}"
                wav = os.path.join(args.out, name + ".wav")
                meta = os.path.join(args.out, name + ".json")
                if not (os.path.exists(wav) and os.path.exists(meta)):
                    audio, beats, downbeats = render(kind, bpm, rate)
                    sf.write(wav + ".partial.wav", audio, rate, subtype="PCM_24")
                    os.replace(wav + ".partial.wav", wav)
                    with open(meta, "w") as f:
                        json.dump({"name": name, "kind": kind, "bpm": bpm, "rate": rate,
                                   "beats": beats, "downbeats": downbeats}, f)
                index.append({"name": name, "kind": kind, "bpm": bpm, "rate": rate})
    with open(os.path.join(args.out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(f"onsetsynth: {len(index)} pieces in {args.out}")


if __name__ == "__main__":
    main()
