"""A held-out set made by a second, independent generator (issue 41, item 2): other
arrangements, other seeds, other synthesizers and samples than the development corpus and
the training corpora ever used, scored beside the corpus's test half.

  models/run heldout [--out DIR] [--pieces 40] [--only NAME...] [--delivery 41]
  models/run heldout --check [--out DIR]      # clicks on the true beats, the onset envelope
  models/run heldout --list                   # the pieces it would make; makes nothing

Nothing here comes from lib/pieces.py (its Builder, harmony or recipes): the music, the
timing and the ground truth are this file's own.

- **Timing model.** Each piece has a beat-period curve drawn per beat (steady with a slow
  drift and a random walk of ±0.5 %, rubato from two sines of ±4-12 %, a ritardando into
  the last chord, or a step on a bar line). The beat times are its running sum; a note at
  beat position b (a float) sounds at the time interpolated between its two beats, after
  swing moves the off-beat, plus its instrument's own bias (about ±8 ms) and a jitter per
  note (4-12 ms). The ground truth is the beat times themselves (`.beats`: seconds and
  beat-in-bar, pickup beats numbered as the end of a bar), from the first sounding beat to
  the final chord.
- **Arrangements** (ARRANGEMENTS): reggae one-drop, bossa nova, swing jazz waltz, 12/8
  shuffle blues, 16th funk, a 6/8 jig, a 2/4 march and a 2/4 polka, a 5/4 groove (3+2), a
  7/8 groove (2+2+3, eighth-note beats), a rubato piano ballad, a string pad over a slow
  pulse, solo acoustic strumming (strums spread over the strings). Progressions, voicings,
  bass lines and melodies are drawn here per piece.
- **Sounds.** The MIDI (one constant tempo: the notes are placed in seconds, 0.5 ms a tick)
  is rendered by TiMidity++ with Freepats (`/etc/timidity/freepats.cfg`) or by FluidSynth
  with the csound soundfont (`sf_GMbank.sf2`); the kept beat network was trained on
  FluidR3, MuseScore and TimGM6mb renders only. Part of the pieces carry a sung-like lead
  of this file's own: a glottal pulse (Rosenberg) through four vowel formants, vibrato,
  portamento, a consonant-like onset, mixed over the band.
- **Delivery.** Every dry piece also goes through lib/delivery.py's random chain with seed
  41 (no piece was delivered with it before); both are kept.

Output: DIR/dry/ and DIR/delivered/ (default bench/out/g-heldout), each with NAME.wav,
NAME.beats, NAME.json (meter, tags, groups, tempo, synth, chain) and index.json; DIR/mid/
holds the MIDI and the voice stems, DIR/check.json the check. Groups for score.py: meter,
drums / no-drums, steady / changing, swing, pickup, `style NAME`, `synth NAME`, `voice` /
`no-voice`, and the delivery groups.
"""

import argparse
import concurrent.futures
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import mido
import numpy as np
import soundfile as sf
from scipy.signal import lfilter, stft

from models.lib import delivery
from models.lib.paths import OUT

RATE = 44100
SEED = 41000        # piece seeds SEED + index: no other generator used them
DELIVERY_SEED = 41
TPQ, TEMPO_US = 1000, 500_000   # 0.5 ms a tick: the MIDI only carries times in seconds
CSOUND = "/usr/share/sounds/sf2/sf_GMbank.sf2"
FREEPATS = "/etc/timidity/freepats.cfg"
DRUM = 9

# GM drum keys (all in Freepats' drum set and the csound bank)
KICK, RIM, SNARE, CLAP, HAT, PEDAL, OPEN, RIDE, CRASH, TAMB = 36, 37, 38, 39, 42, 44, 46, 51, 49, 54
SHAKER, CLAVES, LOTOM, HIBONGO, LOCONGA, BELL = 82, 75, 45, 60, 64, 53

MAJOR = (0, 2, 4, 5, 7, 9, 11)
MINOR = (0, 2, 3, 5, 7, 8, 10)

# name: meter, beats a bar, steps a beat (2 simple, 3 compound), tempo range of the beat,
# drums, swing range (off-beat at this fraction of the beat), mode, progressions (scale
# degrees, 0-based; "7" marks a seventh chord)
ARRANGEMENTS = {
    "onedrop": dict(meter="4/4", bpb=4, sub=2, bpm=(64, 84), drums=True, swing=(0.5, 0.58),
                    mode=MINOR, prog=[[0, 3], [0, 6, 5, 4], [0, 0, 3, 4]]),
    "bossa": dict(meter="4/4", bpb=4, sub=2, bpm=(112, 148), drums=True, swing=(0.5, 0.5),
                  mode=MAJOR, prog=[["1 7", "4 7", "0 7", "0 7"], ["0 7", "3 7", "2 7", "5 7"]]),
    "jazzwaltz": dict(meter="3/4", bpb=3, sub=2, bpm=(120, 190), drums=True, swing=(0.6, 0.68),
                      mode=MAJOR, prog=[["1 7", "4 7", "0 7", "5 7"], ["2 7", "5 7", "1 7", "4 7"]]),
    "shuffle": dict(meter="12/8", bpb=4, sub=3, bpm=(58, 92), drums=True, swing=(0.5, 0.5),
                    mode=MAJOR, prog=[["0 7"] * 4 + ["3 7"] * 2 + ["0 7"] * 2
                                      + ["4 7", "3 7", "0 7", "4 7"]]),
    "funk": dict(meter="4/4", bpb=4, sub=2, bpm=(90, 116), drums=True, swing=(0.5, 0.54),
                 mode=MINOR, prog=[["0 7", "0 7", "3 7", "3 7"], ["0 7", "3 7"]]),
    "jig": dict(meter="6/8", bpb=2, sub=3, bpm=(96, 128), drums=False, swing=(0.5, 0.5),
                mode=MAJOR, prog=[[0, 0, 4, 4, 0, 0, 4, 0], [0, 3, 4, 0]]),
    "march": dict(meter="2/4", bpb=2, sub=2, bpm=(104, 124), drums=True, swing=(0.5, 0.5),
                  mode=MAJOR, prog=[[0, 0, 4, 4, 4, 4, 0, 0], [0, 3, 4, 0]]),
    "polka": dict(meter="2/4", bpb=2, sub=2, bpm=(112, 140), drums=False, swing=(0.5, 0.5),
                  mode=MAJOR, prog=[[0, 0, 4, 4, 4, 4, 0, 0], [0, 4, 0, 4]]),
    "five": dict(meter="5/4", bpb=5, sub=2, bpm=(120, 172), drums=True, swing=(0.5, 0.56),
                 mode=MINOR, prog=[["0 7", "5 7", "3 7", "4 7"], ["0 7", "0 7", "6 7", "6 7"]]),
    "seven": dict(meter="7/8", bpb=7, sub=1, bpm=(150, 200), drums=True, swing=(0.5, 0.5),
                  mode=MINOR, prog=[[0, 0, 6, 6], [0, 5, 3, 4]]),
    "ballad": dict(meter="4/4", bpb=4, sub=2, bpm=(52, 80), drums=False, swing=(0.5, 0.5),
                   mode=MAJOR, prog=[[0, 4, 5, 3], [0, 5, 1, 4], [5, 3, 0, 4]]),
    "pad": dict(meter="4/4", bpb=4, sub=2, bpm=(50, 72), drums=False, swing=(0.5, 0.5),
                mode=MINOR, prog=[[0, 5, 2, 6], [0, 3, 4, 0]]),
    "strum": dict(meter="4/4", bpb=4, sub=2, bpm=(72, 132), drums=False, swing=(0.5, 0.6),
                  mode=MAJOR, prog=[[0, 4, 5, 3], [0, 3, 0, 4], [0, 5, 3, 4]]),
}
# the 40 pieces' arrangements, in order (each drawn again with its own seed)
PLAN = (list(ARRANGEMENTS) * 3 + ["funk", "strum", "jazzwaltz", "ballad", "onedrop",
                                  "seven", "shuffle", "jig"])[:40]
# vowels: (F1, F2, F3, F4) in Hz and their bandwidths
VOWELS = {"a": ((800, 1150, 2900, 3900), (80, 90, 120, 130)),
          "e": ((400, 1700, 2600, 3800), (70, 80, 100, 120)),
          "i": ((300, 2200, 2950, 3700), (60, 90, 100, 120)),
          "o": ((450, 800, 2830, 3800), (70, 80, 100, 130)),
          "u": ((325, 700, 2530, 3500), (50, 60, 170, 180))}


# ---------------------------------------------------------------------------- the recipe

def recipe(index, seed=SEED):
    """Piece `index`'s draw: a plain dict (its name says arrangement, meter, tempo, synth)."""
    style = PLAN[index % len(PLAN)]
    a = ARRANGEMENTS[style]
    rng = np.random.default_rng(seed + index)
    bpm = float(rng.uniform(*a["bpm"]))
    if style == "ballad":
        curve = "rubato"
    elif style == "pad":
        curve = str(rng.choice(["rubato", "drift", "ritardando"]))
    else:
        curve = str(rng.choice(["drift", "drift", "drift", "ritardando", "step", "rubato"],
                               p=[0.3, 0.2, 0.15, 0.15, 0.1, 0.1]))
    synth = "freepats" if index % 2 == 0 else "csound"
    voice = bool(rng.uniform() < 0.45) and style not in ("seven",)
    pickup = int(rng.choice([0, 0, 1, 2])) if a["bpb"] >= 2 else 0
    pickup = min(pickup, a["bpb"] - 1)
    seconds = float(rng.uniform(30, 60))
    swing = round(float(rng.uniform(*a["swing"])), 3)
    name = (f"{index + 1:02d}-{style}-{a['meter'].replace('/', '')}-{round(bpm)}-{curve}-"
            f"{synth}" + ("-voice" if voice else ""))
    return {"index": index, "name": name, "style": style, "bpm": round(bpm, 2),
            "curve": curve, "synth": synth, "voice": voice, "pickup": pickup,
            "seconds": round(seconds, 1), "swing": swing, "seed": seed + index,
            "key": int(rng.integers(0, 12)), "lead_in_s": round(float(rng.uniform(0.3, 1.2)), 3)}


# ---------------------------------------------------------------------------- timing

def beat_periods(n, bpm, curve, bpb, rng):
    """Seconds of each of n beats under the piece's tempo curve."""
    i = np.arange(n, dtype=float)
    base = 60.0 / bpm
    walk = np.cumsum(rng.normal(0, 0.002, n))
    walk = np.clip(walk - np.linspace(0, walk[-1], n), -0.005, 0.005)   # ±0.5 %, no net drift
    drift = float(rng.uniform(-0.04, 0.04)) * i / max(n - 1, 1)         # slow drift, ±4 %
    factor = 1 + walk + drift
    if curve == "rubato":
        a1, a2 = rng.uniform(0.04, 0.12), rng.uniform(0.02, 0.05)
        l1, l2 = rng.uniform(6, 16) * 1.0, rng.uniform(2, 5)
        p1, p2 = rng.uniform(0, 2 * np.pi, 2)
        factor = 1 + walk + a1 * np.sin(2 * np.pi * i / l1 + p1) + a2 * np.sin(
            2 * np.pi * i / l2 + p2)
    if curve in ("ritardando", "rubato"):
        span = min(n, 2 * bpb + 2)
        factor[-span:] *= 1 + np.linspace(0, 1, span) ** 2 * rng.uniform(0.25, 0.5)
    if curve == "step":
        at = (n // 2) // bpb * bpb + 1
        factor[at:] *= float(rng.choice([0.86, 0.9, 1.12, 1.18]))
    return base * factor


class Timing:
    """Beat times and where a note at beat position b sounds, with swing."""

    def __init__(self, start_s, periods, sub, swing):
        self.beats = start_s + np.concatenate([[0.0], np.cumsum(periods)])
        self.sub, self.swing = sub, swing

    def at(self, b):
        k = int(math.floor(b))
        k = min(max(k, 0), len(self.beats) - 2)
        f = b - k
        if self.sub == 2 and self.swing != 0.5:   # the off-beat eighth moves to `swing`
            f = f / 0.5 * self.swing if f <= 0.5 else self.swing + (f - 0.5) / 0.5 * (1 - self.swing)
        return float(self.beats[k] + f * (self.beats[k + 1] - self.beats[k]))


# ---------------------------------------------------------------------------- the music

class Score:
    """Notes in seconds, by instrument: each has a channel, a program, a timing bias and
    a jitter (the players' own timing)."""

    def __init__(self, timing, rng):
        self.t, self.rng = timing, rng
        self.notes = []          # (onset s, channel, key, velocity, offset s)
        self.players = {}        # name -> (channel, program, bias s, jitter s)
        self.lead = []           # (onset s, offset s, key) of the lead line (for the voice)

    def player(self, name, program, drums=False, jitter_ms=(4, 10)):
        ch = DRUM if drums else len([p for p in self.players.values() if p[0] != DRUM])
        bias = float(np.clip(self.rng.normal(0, 0.006), -0.012, 0.012))
        self.players[name] = (ch, program, bias, float(self.rng.uniform(*jitter_ms)) / 1000)

    def add(self, who, pos, key, vel, dur=0.5, spread_s=0.0):
        ch, _, bias, jitter = self.players[who]
        on = self.t.at(pos) + bias + float(self.rng.normal(0, jitter)) + spread_s
        off = self.t.at(pos + dur) + bias
        if off < on + 0.03:
            off = on + 0.03
        vel = int(np.clip(vel + self.rng.normal(0, 6), 1, 127))
        self.notes.append((max(on, 0.0), ch, int(key), vel, off))


def chord_of(spec, key, mode):
    """(root MIDI key in octave 3, [pitch offsets]) of a degree ("4 7" = V7)."""
    parts = str(spec).split()
    deg, seventh = int(parts[0]), len(parts) > 1
    scale = [key + m for m in mode] + [key + 12 + m for m in mode]
    tones = [scale[deg], scale[deg + 2], scale[deg + 4]] + ([scale[deg + 6]] if seventh else [])
    root = 48 + (tones[0] - 48) % 12
    return root, [t - tones[0] for t in tones]


def voicing(root, offsets, low=55):
    notes = [root + o for o in offsets]
    return sorted(n + 12 * math.ceil((low - n) / 12) if n < low else n for n in notes)


def melody(sc, who, bars, bpb, sub, chords, key, mode, rng, first_bar, lo=62, hi=79,
           lead=False, vel=80):
    """A line over the chords: chord tones on strong beats, scale steps between."""
    scale = sorted({key + m + 12 * o for m in mode for o in range(2, 9)})
    scale = [s for s in scale if lo <= s <= hi]
    cur = scale[len(scale) // 2]
    rhythms = [[1.0], [0.5, 0.5], [1.5, 0.5], [2.0], [0.5, 1.0, 0.5], [1.0 / sub] * sub]
    for bar in range(bars):
        root, offs = chords[bar]
        pos, end = 0.0, float(bpb)
        while pos < end - 1e-6:
            r = rhythms[int(rng.integers(len(rhythms)))]
            for d in r:
                if pos >= end - 1e-6:
                    break
                d = min(d, end - pos)
                strong = abs(pos - round(pos)) < 1e-6
                if strong:
                    targets = [s for s in scale if (s - root) % 12 in [o % 12 for o in offs]]
                    cur = min(targets, key=lambda s: abs(s - cur) + rng.uniform(0, 3))
                else:
                    i = scale.index(cur) if cur in scale else len(scale) // 2
                    cur = scale[int(np.clip(i + rng.choice([-2, -1, 1, 1, 2]), 0, len(scale) - 1))]
                if rng.uniform() > 0.12 or strong:
                    p = first_bar + bar * bpb + pos
                    sc.add(who, p, cur, vel + (10 if strong else 0), d * 0.9)
                    if lead:
                        sc.lead.append((sc.t.at(p), sc.t.at(p + d * 0.9), cur))
                pos += d
        if bar % 4 == 3 and rng.uniform() < 0.5:   # a breath at phrase ends
            continue


def arrange(r, timing, n_bars, rng):
    """The piece's notes (a Score) for recipe r; beat position 0 is the first pickup beat."""
    a = ARRANGEMENTS[r["style"]]
    bpb, sub, style, key, mode = a["bpb"], a["sub"], r["style"], r["key"], a["mode"]
    sc = Score(timing, rng)
    prog = a["prog"][int(rng.integers(len(a["prog"])))]
    chords = [chord_of(prog[i % len(prog)], key, mode) for i in range(n_bars + 1)]
    b0 = r["pickup"]                                   # beat position of bar 1's downbeat
    bar = lambda k: b0 + k * bpb                       # noqa: E731
    lead_prog = {"onedrop": 66, "bossa": 73, "jazzwaltz": 65, "shuffle": 56, "funk": 61,
                 "jig": 40, "march": 56, "polka": 71, "five": 27, "seven": 71, "ballad": 0,
                 "pad": 68, "strum": 25}[style]
    voice = r["voice"]

    def bass(prog_, pattern, vel=92, octave=-12):
        sc.player("bass", prog_, jitter_ms=(3, 8))
        for k in range(n_bars):
            root, offs = chords[k]
            for pos, deg, dur in pattern:
                off = {0: 0, 5: offs[2], 3: offs[1], 8: 12, 7: offs[-1]}[deg]
                sc.add("bass", bar(k) + pos, root + octave + off, vel - (0 if pos == 0 else 10),
                       dur)

    def comp(name, prog_, positions, vel=70, dur=0.25, low=55, spread=0.0):
        sc.player(name, prog_)
        for k in range(n_bars):
            root, offs = chords[k]
            for pos in positions:
                for j, n in enumerate(voicing(root, offs, low)):
                    sc.add(name, bar(k) + pos, n, vel, dur, spread_s=j * spread)

    def drums(pattern, fill_every=8):
        sc.player("drums", 0, drums=True, jitter_ms=(2, 7))
        for k in range(n_bars):
            for pos, note, vel in pattern:
                sc.add("drums", bar(k) + pos, note, vel, 0.25)
            if k % fill_every == fill_every - 1 and k + 1 < n_bars:
                sc.add("drums", bar(k + 1), CRASH, 85, 1.0)

    if style == "onedrop":
        hat = [(i * 0.5, HAT, 60 if i % 2 else 45) for i in range(8)]
        drums(hat + [(2, KICK, 100), (2, RIM, 95)])
        bass(33, [(1, 0, 1.0), (2, 0, 0.5), (2.5, 5, 0.5), (3.5, 3, 0.5)])
        comp("skank", 28, [0.5, 1.5, 2.5, 3.5], vel=80, dur=0.2)
        comp("organ", 16, [0.5, 1.5, 2.5, 3.5], vel=50, dur=0.3, low=60)
    elif style == "bossa":
        drums([(p, RIM, 80) for p in (0, 0.75, 1.5, 2.5, 3.25)]
              + [(i * 0.5, SHAKER, 50 + 15 * (i % 2 == 0)) for i in range(8)]
              + [(0, KICK, 70), (1.5, KICK, 60), (2, KICK, 70), (3.5, KICK, 60)])
        bass(32, [(0, 0, 1.4), (1.5, 5, 0.5), (2, 0, 1.4), (3.5, 5, 0.5)])
        comp("guitar", 24, [0, 1.0, 1.75, 2.5, 3.25], vel=62, dur=0.4)
    elif style == "jazzwaltz":
        drums([(0, RIDE, 85), (1, RIDE, 70), (1.5, RIDE, 60), (2, RIDE, 72), (1, PEDAL, 55),
               (0, KICK, 55)])
        sc.player("bass", 32, jitter_ms=(3, 8))
        for k in range(n_bars):
            root, offs = chords[k]
            nxt = chords[k + 1][0]
            for j, n in enumerate((root, root + offs[int(rng.integers(1, 3))], nxt - 1)):
                sc.add("bass", bar(k) + j, n - 12, 90 - 8 * j, 0.9)
        comp("piano", 0, [0, 1.5] if rng.uniform() < 0.5 else [0.5, 2], vel=58, dur=0.4)
    elif style == "shuffle":
        third = 2 / 3
        pat = []
        for bt in range(4):
            pat += [(bt, HAT, 70), (bt + third, HAT, 50)]
        pat += [(0, KICK, 95), (2, KICK, 90), (2 + third, KICK, 60), (1, SNARE, 95),
                (3, SNARE, 95)]
        drums(pat, fill_every=12)
        bass(34, [(bt + f, d, 0.3) for bt, d in zip(range(4), (0, 5, 8, 5))
                  for f in (0, third)])
        comp("organ", 16, [1, 3, 3 + third], vel=60, dur=0.3)
    elif style == "funk":
        pat = [(i * 0.25, HAT, 70 if i % 2 == 0 else 40) for i in range(16)]
        pat += [(0, KICK, 105), (0.75, KICK, 80), (2.5, KICK, 95), (1, SNARE, 105),
                (3, SNARE, 105), (1.75, SNARE, 30), (2.25, SNARE, 28), (3.75, SNARE, 32)]
        drums(pat)
        bass(36, [(0, 0, 0.25), (0.75, 8, 0.2), (1.5, 7, 0.2), (2.5, 0, 0.25), (2.75, 3, 0.2),
                  (3.5, 5, 0.2)], vel=100)
        comp("clav", 7, [0.25, 1.25, 1.5, 2.75, 3.25], vel=72, dur=0.12, low=60)
    elif style == "jig":
        sc.player("guitar", 25)
        for k in range(n_bars):
            root, offs = chords[k]
            for bt in range(2):
                sc.add("guitar", bar(k) + bt, root - 12 + (offs[2] if bt else 0), 88, 0.6)
                for j, n in enumerate(voicing(root, offs)):
                    sc.add("guitar", bar(k) + bt + 1 / 3, n, 58, 0.5, spread_s=j * 0.006)
                    sc.add("guitar", bar(k) + bt + 2 / 3, n, 50, 0.3, spread_s=j * 0.006)
        if rng.uniform() < 0.5:
            drums([(0, LOTOM, 85), (1, LOTOM, 75), (1 + 2 / 3, LOTOM, 45)], fill_every=1000)
    elif style == "march":
        drums([(0, KICK, 100), (1, KICK, 90), (0, SNARE, 82), (0.5, SNARE, 58), (1, SNARE, 78),
               (1.5, SNARE, 58), (1.75, SNARE, 50), (0, CRASH, 40)], fill_every=1000)
        bass(58, [(0, 0, 0.45), (1, 5, 0.45)], vel=105, octave=-12)
        comp("horns", 61, [0.5, 1.5], vel=48, dur=0.3)
    elif style == "polka":
        bass(58, [(0, 0, 0.45), (1, 5, 0.45)], vel=98, octave=-12)
        comp("accordion", 21, [0.5, 1.5], vel=70, dur=0.3)
    elif style == "five":
        drums([(i * 0.5, HAT, 60) for i in range(10)] + [(0, KICK, 100), (1.5, KICK, 80),
                                                          (3, KICK, 95), (2, SNARE, 95),
                                                          (4, SNARE, 95)])
        bass(33, [(0, 0, 1.0), (1.5, 5, 0.5), (3, 8, 0.9), (4, 7, 0.9)])
        comp("ep", 4, [0, 3], vel=60, dur=1.2)
    elif style == "seven":
        drums([(i, HAT, 65) for i in range(7)] + [(0, KICK, 100), (2, SNARE, 95), (4, KICK, 95),
                                                  (5, SNARE, 85), (6, SNARE, 40)])
        bass(34, [(0, 0, 1.5), (2, 0, 0.8), (4, 5, 1.0), (5, 5, 0.8), (6, 3, 0.8)])
        comp("guitar", 27, [0, 2, 4], vel=62, dur=0.9)
    elif style == "ballad":
        sc.player("piano", 0, jitter_ms=(6, 14))
        arp = [0, 1, 2, 3, 2, 1, 3, 2]
        for k in range(n_bars):
            root, offs = chords[k]
            sc.add("piano", bar(k), root - 12, 88, bpb * 0.95)
            tones = voicing(root, offs, 52)
            for i in range(bpb * 2):
                if i == 0:
                    continue
                sc.add("piano", bar(k) + i * 0.5, tones[arp[i % len(arp)] % len(tones)],
                       62 if i % 2 else 72, 1.0)
    elif style == "pad":
        sc.player("strings", 48, jitter_ms=(10, 20))
        pulse = int(rng.integers(3))
        sc.player("pulse", (45, 46, 42)[pulse], jitter_ms=(4, 9))
        for k in range(n_bars):
            root, offs = chords[k]
            for n in voicing(root, offs, 52):
                sc.add("strings", bar(k), n, 60, bpb)
            for bt in range(bpb):
                sc.add("pulse", bar(k) + bt, root - 12 + (0 if bt % 2 == 0 else offs[2]),
                       80 if bt == 0 else 62, 0.8)
    elif style == "strum":
        sc.player("guitar", 25, jitter_ms=(5, 10))
        downs = {0: 95, 1: 75, 2: 85, 3: 75}
        ups = [1.5, 2.5, 3.5] if rng.uniform() < 0.6 else [0.5, 1.5, 2.5, 3.5]
        for k in range(n_bars):
            root, offs = chords[k]
            tones = [root - 12] + voicing(root, offs, 52) + [voicing(root, offs, 64)[0]]
            width = rng.uniform(0.008, 0.025)
            for bt in range(bpb):
                for j, n in enumerate(tones):
                    sc.add("guitar", bar(k) + bt, n, downs[bt] - 3 * j, 0.9,
                           spread_s=j * width / len(tones))
            for u in ups:
                for j, n in enumerate(reversed(tones[2:])):
                    sc.add("guitar", bar(k) + u, n, 55, 0.4, spread_s=j * width / len(tones))

    # the lead: the voice (synthesised later from sc.lead) or an instrument; a pickup leads in
    lead = "lead"
    sc.player(lead, lead_prog, jitter_ms=(6, 14))
    lo, hi = (57, 74) if voice else (62, 81)
    if r["pickup"]:
        for i in range(r["pickup"]):
            p = i
            n = key + 60 + mode[(i * 2 + 4) % 7]
            sc.add(lead, p, n, 75, 0.9)
            if voice:
                sc.lead.append((timing.at(p), timing.at(p + 0.9), n))
            low = [w for w in sc.players if w not in ("drums", lead)][0]
            sc.add(low, p, key + 43 + (5 if i % 2 else 0), 80, 0.9)
    melody(sc, lead, n_bars - 1, bpb, sub, chords, key, mode, rng, b0, lo, hi, lead=voice,
           vel=72 if style in ("pad", "ballad") else 84)
    if voice:   # the instrument doubles nothing: the voice takes the line
        ch = sc.players[lead][0]
        sc.notes = [n for n in sc.notes if n[1] != ch]
    # the last chord, on bar n_bars's downbeat
    end = bar(n_bars - 1)
    root, offs = chords[0]
    who = [w for w in sc.players if w not in ("drums", lead)][0]
    for n in voicing(root, offs, 52):
        sc.add(who, end, n, 80, 2.0)
    sc.add(who, end, root - 12, 90, 2.0)
    if "drums" in sc.players:
        sc.add("drums", end, CRASH, 90, 2.0)
        sc.add("drums", end, KICK, 100, 1.0)
    return sc, end


# ---------------------------------------------------------------------------- the voice

def sing(lead, seconds, rng):
    """A sung-like line: a Rosenberg glottal pulse train at the note's pitch (vibrato 5-6.5
    Hz, ±0.3-0.6 semitone, fading in; 40 ms portamento), a breath-noise onset, through four
    vowel formants (two-pole resonators); one vowel a note."""
    out = np.zeros(int(seconds * RATE) + RATE)
    vib_hz, vib_st = rng.uniform(5, 6.5), rng.uniform(0.3, 0.6)
    prev = None
    for on, off, key in lead:
        n = int((off - on + 0.08) * RATE)
        if n < 200:
            continue
        t = np.arange(n) / RATE
        f = 440.0 * 2 ** ((key - 69) / 12)
        if prev is not None:
            f0 = 440.0 * 2 ** ((prev - 69) / 12)
            glide = np.clip(t / 0.04, 0, 1)
            fcurve = f0 + (f - f0) * glide
        else:
            fcurve = np.full(n, f)
        depth = vib_st * np.clip((t - 0.15) / 0.3, 0, 1)
        fcurve = fcurve * 2 ** (depth * np.sin(2 * np.pi * vib_hz * t) / 12)
        phase = np.cumsum(fcurve) / RATE % 1.0
        op, cl = 0.4, 0.16            # Rosenberg: opening, closing fractions of the period
        g = np.where(phase < op, 0.5 * (1 - np.cos(np.pi * phase / op)),
                     np.where(phase < op + cl, np.cos(np.pi / 2 * (phase - op) / cl), 0.0))
        src = np.diff(g, prepend=g[0])                     # the flow's derivative
        src += rng.normal(0, 0.002, n) * (t < 0.03)        # breath at the onset
        formants, bands = VOWELS[str(rng.choice(list(VOWELS)))]
        y = np.zeros(n)
        for fc, bw, gain in zip(formants, bands, (1.0, 0.7, 0.35, 0.2)):
            rr = math.exp(-math.pi * bw / RATE)
            th = 2 * math.pi * fc / RATE
            y += gain * lfilter([1 - rr], [1, -2 * rr * math.cos(th), rr * rr], src)
        env = np.minimum(1, t / 0.025) * np.minimum(1, (n / RATE - t) / 0.06)
        i0 = int(on * RATE)
        seg = y * env
        out[i0:i0 + n] += seg[:len(out) - i0]
        prev = key
    return out


# ---------------------------------------------------------------------------- rendering

def write_midi(path, score):
    mid = mido.MidiFile(type=0, ticks_per_beat=TPQ)
    tr = mido.MidiTrack()
    mid.tracks.append(tr)
    tr.append(mido.MetaMessage("set_tempo", tempo=TEMPO_US, time=0))
    for name, (ch, program, _, _) in score.players.items():
        if ch != DRUM:
            tr.append(mido.Message("program_change", channel=ch, program=program, time=0))
            tr.append(mido.Message("control_change", channel=ch, control=91, value=30, time=0))
    events = []
    tick = TPQ * 1_000_000 / TEMPO_US
    for on, ch, key, vel, off in score.notes:
        events.append((round(on * tick), 1, mido.Message("note_on", channel=ch, note=key,
                                                           velocity=vel)))
        events.append((round(off * tick), 0, mido.Message("note_off", channel=ch, note=key,
                                                            velocity=0)))
    events.sort(key=lambda e: (e[0], e[1]))
    now = 0
    for t, _, msg in events:
        tr.append(msg.copy(time=t - now))
        now = t
    tr.append(mido.MetaMessage("end_of_track", time=TPQ))
    mid.save(path)


def synthesize(mid, wav, synth):
    """Renders the MIDI to a 44.1 kHz WAV; the start is never trimmed."""
    if synth == "freepats":
        cmd = ["timidity", "-c", FREEPATS, "-Ow", "--preserve-silence", "-s", str(RATE),
               "-o", wav, mid]
    else:
        cmd = ["fluidsynth", "-ni", "-F", wav, "-r", str(RATE), CSOUND, mid]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def finish(x, last_s):
    """Cut at most 3 s after the last onset with a 100 ms fade; -1 dBFS peak."""
    end = min(len(x), int((last_s + 3.0) * RATE))
    x = x[:end].copy()
    fade = min(int(0.1 * RATE), len(x))
    x[-fade:] *= np.linspace(1, 0, fade)[:, None]
    return x * (10 ** (-1 / 20) / max(np.abs(x).max(), 1e-9))


def ground_truth(timing, r, end):
    """[(seconds, beat-in-bar)] from the first pickup beat to the final chord's downbeat."""
    bpb = ARRANGEMENTS[r["style"]]["bpb"]
    out = []
    for b in range(int(end) + 1):
        k = b - r["pickup"]
        out.append((float(timing.beats[b]), k % bpb + 1))
    return out


with open(os.path.abspath(__file__), "rb") as _f:
    SOURCE = hashlib.sha256(_f.read()).hexdigest()[:16]


def made(r, out, seed):
    """Whether the piece's files exist with this recipe, source and delivery seed."""
    for kind in ("dry", "delivered"):
        try:
            with open(os.path.join(out, kind, r["name"] + ".json")) as f:
                m = json.load(f)
        except (OSError, ValueError):
            return False
        if (m.get("recipe") != r or m.get("source") != [SOURCE, delivery.source_digest()]
                or (kind == "delivered" and m["processing_info"]["seed"] != seed)
                or not os.path.exists(os.path.join(out, kind, r["name"] + ".wav"))):
            return False
    return True


def make(r, out, seed=DELIVERY_SEED):
    """Renders one piece into out/dry and out/delivered (kept when made already with the
    same recipe, source and seed); returns its name."""
    if made(r, out, seed):
        return r["name"]
    a = ARRANGEMENTS[r["style"]]
    rng = np.random.default_rng(r["seed"])
    bpb = a["bpb"]
    per_bar = bpb * 60 / r["bpm"]
    n_bars = max(6, int(round(r["seconds"] / per_bar)))
    n_beats = r["pickup"] + n_bars * bpb + 2
    timing = Timing(r["lead_in_s"], beat_periods(n_beats, r["bpm"], r["curve"], bpb, rng),
                    a["sub"], r["swing"])
    score, end = arrange(r, timing, n_bars, rng)
    beats = ground_truth(timing, r, end)
    name = r["name"]
    mids = os.path.join(out, "mid")
    with tempfile.TemporaryDirectory(prefix="g-heldout-") as tmp:
        mid = os.path.join(mids, name + ".mid")
        write_midi(mid, score)
        raw = os.path.join(tmp, "raw.wav")
        synthesize(mid, raw, r["synth"])
        x, rate = sf.read(raw, always_2d=True)
    assert rate == RATE
    if r["voice"]:
        v = sing(score.lead, len(x) / RATE + 1, np.random.default_rng(r["seed"] + 7))
        v = v[:len(x)]
        band = np.sqrt(np.mean(x ** 2)) or 1e-9
        v *= band / max(np.sqrt(np.mean(v[v != 0] ** 2)) if np.any(v) else 1, 1e-9) * 0.9
        sf.write(os.path.join(mids, name + ".voice.wav"), v, RATE, subtype="FLOAT")
        x = x + v[:, None] * np.array([[0.95, 1.05]])[:, :x.shape[1]]
    x = finish(x, beats[-1][0])
    beats = [(t, n) for t, n in beats if t < len(x) / RATE - 0.5]
    tempi = 60 / np.diff([t for t, _ in beats])
    tags = ["drums" if "drums" in score.players else "no-drums",
            "steady" if r["curve"] == "drift" else "changing"]
    if r["curve"] != "drift":
        tags.append({"rubato": "rubato", "ritardando": "ritardando", "step": "step-change"}[
            r["curve"]])
    if r["swing"] > 0.55:
        tags.append("swing")
    if r["pickup"]:
        tags.append("pickup")
    meta = {"name": name, "generator": "models/heldout.py", "recipe": r,
            "source": [SOURCE, delivery.source_digest()], "meter": a["meter"],
            "tags": tags, "groups": [f"style {r['style']}", f"synth {r['synth']}",
                                     "voice" if r["voice"] else "no-voice"],
            "tempo_bpm": [round(float(tempi.min()), 1), round(float(tempi.max()), 1)],
            "first_beat_s": round(beats[0][0], 6), "last_beat_s": round(beats[-1][0], 6),
            "instruments": {k: v[1] for k, v in score.players.items()},
            "soundfont": r["synth"], "sample_rate": RATE}
    for kind in ("dry", "delivered"):
        d = os.path.join(out, kind)
        m = dict(meta)
        if kind == "dry":
            y, rate_, m["processing"] = x, RATE, "clean"
        else:
            y, rate_, info = delivery.deliver(name, x, RATE, seed)
            m.update(processing="delivery", processing_info=info,
                     delivery_groups=info["groups"], sample_rate=rate_)
        m["duration"] = round(len(y) / rate_, 3)
        sf.write(os.path.join(d, name + ".wav"), y, rate_, subtype="PCM_16")
        with open(os.path.join(d, name + ".beats"), "w") as f:
            f.writelines(f"{t:.6f}\t{n}\n" for t, n in beats)
        with open(os.path.join(d, name + ".json"), "w") as f:
            json.dump(m, f, indent=1)
    return name


# ---------------------------------------------------------------------------- the check

def first_onset(x, t, rate, before=0.02, after=0.06):
    """Time of the first sample in [t-before, t+after] over a fifth of the window's peak
    (None when the window is silent)."""
    i0, i1 = max(0, int((t - before) * rate)), min(len(x), int((t + after) * rate))
    w = np.abs(x[i0:i1])
    if len(w) == 0 or w.max() < 1e-3:
        return None
    return (i0 + int(np.argmax(w > 0.2 * w.max()))) / rate


def flux(x, rate):
    """Spectral flux (log magnitude rise summed over bins), 5 ms hop: the onset envelope."""
    _, _, z = stft(x, rate, nperseg=1024, noverlap=1024 - 220)
    m = np.log1p(100 * np.abs(z))
    d = np.maximum(np.diff(m, axis=1), 0).sum(axis=0)
    return np.concatenate([[0], d]), 220 / rate


def check(out, names, jobs):
    """Clicks at every true beat through the piece's own render path (claves alone, same
    MIDI timing and synthesizer): how far each sounds from its beat; and the dry piece's
    onset envelope: its lag against the beats (cross-correlation, ±60 ms) and how much
    stronger it is on the beats than half-way between them."""
    def one(name):
        d = os.path.join(out, "dry")
        with open(os.path.join(d, name + ".json")) as f:
            meta = json.load(f)
        beats = [float(line.split()[0]) for line in open(os.path.join(d, name + ".beats"))]
        with tempfile.TemporaryDirectory(prefix="g-check-") as tmp:
            sc = Score(None, np.random.default_rng(0))
            sc.notes = [(t, DRUM, CLAVES, 110, t + 0.1) for t in beats]
            mid, wav = os.path.join(tmp, "c.mid"), os.path.join(tmp, "c.wav")
            write_midi(mid, sc)
            synthesize(mid, wav, meta["soundfont"])
            c, _ = sf.read(wav, always_2d=True)
        c = c.mean(axis=1)
        lags = [first_onset(c, t, RATE) for t in beats]
        found = [1000 * (o - t) for o, t in zip(lags, beats) if o is not None]
        x, _ = sf.read(os.path.join(d, name + ".wav"), always_2d=True)
        env, hop = flux(x.mean(axis=1), RATE)
        env = env / (env.max() or 1)
        idx = lambda t: int(round(t / hop))   # noqa: E731
        best, best_lag = -1.0, 0
        for lag in range(-12, 13):           # ±60 ms in 5 ms steps
            s = np.mean([env[idx(t) + lag] for t in beats if 0 <= idx(t) + lag < len(env)])
            if s > best:
                best, best_lag = s, lag
        on = np.mean([env[max(0, idx(t) - 4):idx(t) + 8].max() for t in beats])
        mids = [(a + b) / 2 for a, b in zip(beats, beats[1:])]
        off = np.mean([env[max(0, idx(t) - 4):idx(t) + 8].max() for t in mids])
        return name, {"beats": len(beats), "clicks_found": len(found),
                      "click_lag_ms": {"median": round(float(np.median(found)), 2),
                                       "min": round(float(np.min(found)), 2),
                                       "max": round(float(np.max(found)), 2)},
                      "envelope_lag_ms": best_lag * hop * 1000,
                      "envelope_on_beat_over_between": round(float(on / max(off, 1e-9)), 2)}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        res = dict(pool.map(one, names))
    lags = [v["click_lag_ms"] for v in res.values()]
    summary = {"pieces": len(res), "beats": sum(v["beats"] for v in res.values()),
               "clicks_missing": sum(v["beats"] - v["clicks_found"] for v in res.values()),
               "click_lag_ms_median_of_medians": float(np.median([l["median"] for l in lags])),
               "click_lag_ms_range": [min(l["min"] for l in lags), max(l["max"] for l in lags)],
               "envelope_lag_ms_range": [min(v["envelope_lag_ms"] for v in res.values()),
                                         max(v["envelope_lag_ms"] for v in res.values())],
               "envelope_on_over_between_median": float(np.median(
                   [v["envelope_on_beat_over_between"] for v in res.values()]))}
    by_synth = {}
    for n, v in res.items():
        s = "freepats" if "-freepats" in n else "csound"
        by_synth.setdefault(s, []).append(v["click_lag_ms"]["median"])
    summary["click_lag_ms_median_by_synth"] = {s: float(np.median(v)) for s, v in by_synth.items()}
    with open(os.path.join(out, "check.json"), "w") as f:
        json.dump({"summary": summary, "pieces": res}, f, indent=1)
    print(json.dumps(summary, indent=1))
    for n, v in res.items():
        print(f"{n:55} clicks {v['clicks_found']}/{v['beats']} lag {v['click_lag_ms']['median']:+.1f} "
              f"({v['click_lag_ms']['min']:+.1f}..{v['click_lag_ms']['max']:+.1f}) ms; envelope "
              f"lag {v['envelope_lag_ms']:+.0f} ms, on/between {v['envelope_on_beat_over_between']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(OUT, "g-heldout"))
    ap.add_argument("--pieces", type=int, default=40)
    ap.add_argument("--only", nargs="*", help="only these pieces (names or numbers)")
    ap.add_argument("--delivery", type=int, default=DELIVERY_SEED, metavar="SEED")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--list", action="store_true", help="print the recipes; make nothing")
    ap.add_argument("--check", action="store_true", help="the click and envelope check")
    args = ap.parse_args()
    recipes = [recipe(i) for i in range(args.pieces)]
    if args.only:
        recipes = [r for r in recipes if r["name"] in args.only
                   or str(r["index"] + 1) in args.only or f"{r['index'] + 1:02d}" in args.only]
    if args.list:
        for r in recipes:
            print(r["name"], f"pickup {r['pickup']}, {r['seconds']} s, swing {r['swing']}")
        return
    if args.check:
        check(args.out, [r["name"] for r in recipes
                         if os.path.exists(os.path.join(args.out, "dry", r["name"] + ".wav"))],
              args.jobs)
        return
    if not shutil.which("timidity") or not os.path.exists(FREEPATS) or not os.path.exists(CSOUND):
        sys.exit("heldout: needs timidity, freepats and csound-soundfont (apt)")
    for d in ("dry", "delivered", "mid"):
        os.makedirs(os.path.join(args.out, d), exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name in pool.map(lambda r: make(r, args.out, args.delivery), recipes):
            print(f"heldout: {name}", file=sys.stderr, flush=True)
    for d in ("dry", "delivered"):
        index = {}
        for f in sorted(os.listdir(os.path.join(args.out, d))):
            if f.endswith(".json") and f != "index.json":
                with open(os.path.join(args.out, d, f)) as fh:
                    index[f[:-5]] = json.load(fh)
        with open(os.path.join(args.out, d, "index.json"), "w") as f:
            json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
