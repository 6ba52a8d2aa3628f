"""Chord progressions with known labels, rendered by additive synthesis (numpy only).

Used by bench/chords.py. Each piece: a key (major or minor), a progression cycled to fill
the piece and ended on the tonic, a tempo, a texture (block piano chords, an organ pad, a
strummed guitar, a broken chord in eighths), a bass line in E1-E3 (the chord's bass note on
the downbeat, its fifth or octave later in the bar; the written bass of an inversion), and
optionally a melody of chord tones and passing notes and a drum kit; tuned a random few
cents off A = 440. The ground truth is the written chords as Harte labels on the beat grid.
Deterministic (seeded by the piece's number).
"""

import math
import wave

import numpy as np

RATE = 44100
NAMES = ["C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"]
INTERVALS = {
    "maj": [0, 4, 7], "min": [0, 3, 7], "7": [0, 4, 7, 10], "maj7": [0, 4, 7, 11],
    "min7": [0, 3, 7, 10], "dim": [0, 3, 6], "aug": [0, 4, 8], "sus2": [0, 2, 7],
    "sus4": [0, 5, 7],
}
DEGREE = {0: "1", 1: "b2", 2: "2", 3: "b3", 4: "3", 5: "4", 6: "b5", 7: "5", 8: "#5", 9: "6",
          10: "b7", 11: "7"}

# Progressions as (semitones above the tonic, quality, bass interval above the chord root or
# 0, beats). A bar is 4 beats (3 in the 3/4 pieces: 4-beat chords become 3).
MAJOR = {
    "pop": [(0, "maj", 0, 4), (7, "maj", 0, 4), (9, "min", 0, 4), (5, "maj", 0, 4)],
    "fifties": [(0, "maj", 0, 4), (9, "min", 0, 4), (5, "maj", 0, 4), (7, "7", 0, 4)],
    "jazz": [(2, "min7", 0, 4), (7, "7", 0, 4), (0, "maj7", 0, 4), (9, "min7", 0, 4)],
    "blues": [(0, "7", 0, 4), (5, "7", 0, 4), (0, "7", 0, 4), (0, "7", 0, 4), (5, "7", 0, 4),
              (5, "7", 0, 4), (0, "7", 0, 4), (0, "7", 0, 4), (7, "7", 0, 4), (5, "7", 0, 4),
              (0, "7", 0, 4), (7, "7", 0, 4)],
    "walkdown": [(0, "maj", 0, 4), (7, "maj", 4, 4), (9, "min", 0, 4), (0, "maj", 7, 4),
                 (5, "maj", 0, 4), (0, "maj", 4, 4), (2, "min", 0, 2), (7, "7", 0, 2)],
    "halfbar": [(0, "maj", 0, 2), (5, "maj", 0, 2), (7, "maj", 0, 2), (5, "maj", 0, 2),
                (9, "min", 0, 2), (4, "min", 0, 2), (5, "maj", 0, 2), (7, "7", 0, 2)],
    "ballad": [(0, "maj7", 0, 4), (5, "maj7", 0, 4), (4, "min7", 0, 4), (9, "min7", 0, 4),
               (2, "min7", 0, 4), (7, "sus4", 0, 2), (7, "7", 0, 2)],
    "rock": [(0, "maj", 0, 4), (10, "maj", 0, 4), (5, "maj", 0, 4), (0, "maj", 0, 4)],
    "gospel": [(0, "maj", 0, 4), (0, "7", 10, 4), (5, "maj", 4, 4), (5, "min", 0, 4),
               (0, "maj", 7, 4), (9, "7", 0, 4), (2, "min7", 0, 4), (7, "7", 0, 4)],
    "classic": [(0, "maj", 0, 4), (2, "min", 0, 4), (11, "dim", 0, 4), (0, "maj", 0, 4),
                (5, "maj", 0, 4), (7, "7", 0, 4), (8, "aug", 0, 2), (9, "min", 0, 2),
                (7, "maj", 0, 4)],
    "sus": [(0, "sus2", 0, 2), (0, "maj", 0, 2), (5, "maj", 0, 4), (7, "sus4", 0, 2),
            (7, "maj", 0, 2), (0, "maj", 0, 4)],
}
MINOR = {
    "andalusian": [(0, "min", 0, 4), (10, "maj", 0, 4), (8, "maj", 0, 4), (7, "maj", 0, 4)],
    "epic": [(0, "min", 0, 4), (8, "maj", 0, 4), (3, "maj", 0, 4), (10, "maj", 0, 4)],
    "cadence": [(0, "min", 0, 4), (5, "min", 0, 4), (7, "7", 0, 4), (0, "min", 0, 4)],
    "minorjazz": [(0, "min7", 0, 4), (5, "min7", 0, 4), (10, "7", 0, 4), (3, "maj7", 0, 4),
                  (8, "maj7", 0, 4), (2, "dim", 0, 4), (7, "7", 0, 4), (0, "min", 0, 4)],
    "lament": [(0, "min", 0, 4), (0, "min", 10, 4), (5, "min", 3, 4), (7, "maj", 0, 4)],
    "minorpop": [(0, "min", 0, 2), (3, "maj", 0, 2), (10, "maj", 0, 2), (5, "min", 0, 2),
                 (8, "maj", 0, 2), (10, "maj", 0, 2), (7, "sus4", 0, 2), (7, "maj", 0, 2)],
    "dorian": [(0, "min7", 0, 4), (5, "7", 0, 4), (0, "min7", 0, 4), (10, "maj", 0, 4)],
}
TEXTURES = ["piano", "organ", "guitar", "arpeggio", "epiano"]


def piece_spec(index):
    """The recipe of piece `index` (deterministic)."""
    rng = np.random.default_rng(1000 + index)
    minor = rng.random() < 0.4
    table = MINOR if minor else MAJOR
    name = sorted(table)[int(rng.integers(len(table)))]
    return {
        "index": index,
        "tonic": int(rng.integers(12)),
        "minor": bool(minor),
        "progression": name,
        "meter": 3 if rng.random() < 0.15 else 4,
        "bpm": float(rng.uniform(72, 150)),
        "texture": TEXTURES[int(rng.integers(len(TEXTURES)))],
        "melody": bool(rng.random() < 0.6),
        "drums": bool(rng.random() < 0.6),
        "cents": float(rng.uniform(-40, 40)),
        "seed": 1000 + index,
    }


def label(root, quality, bass):
    text = NAMES[root % 12] + ":" + quality
    return text + ("/" + DEGREE[bass % 12] if bass % 12 else "")


def key_name(tonic, minor):
    names = ["C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"]
    minor_names = ["C", "C#", "D", "Eb", "E", "F", "F#", "G", "G#", "A", "Bb", "B"]
    return (minor_names if minor else names)[tonic] + (" minor" if minor else " major")


def chords_of(spec, seconds):
    """[(start beat, beats, root, quality, bass interval)] filling about `seconds`, ending
    on a two-bar tonic chord; and the beat period."""
    table = MINOR if spec["minor"] else MAJOR
    prog = table[spec["progression"]]
    meter = spec["meter"]
    period = 60.0 / spec["bpm"]
    total_beats = int(seconds / period)
    out = []
    beat = 0
    i = 0
    while beat < total_beats - 2 * meter:
        off, q, b, n = prog[i % len(prog)]
        if n == 4:
            n = meter
        elif meter == 3 and n == 2:
            n = 3 if (beat % 3 == 0) else 3  # 3/4: half-bar chords take a bar
        out.append((beat, n, (spec["tonic"] + off) % 12, q, b))
        beat += n
        i += 1
    tonic_q = "min" if spec["minor"] else "maj"
    out.append((beat, 2 * meter, spec["tonic"], tonic_q, 0))
    beat += 2 * meter
    return out, period, beat


def hz(midi, cents):
    return 440.0 * 2 ** ((midi - 69 + cents / 100) / 12)


def tone(freq, dur, rate, kind, rng, amp=1.0):
    n = int(dur * rate)
    if n <= 0:
        return np.zeros(0)
    t = np.arange(n) / rate
    out = np.zeros(n)
    if kind == "piano":
        partials = [(h, 1.0 / h ** 1.1) for h in range(1, 11)]
        decay = 1.6
    elif kind == "epiano":
        partials = [(1, 1.0), (2, 0.35), (3, 0.12), (4, 0.05), (7, 0.04)]
        decay = 1.2
    elif kind == "organ":
        partials = [(1, 1.0), (2, 0.7), (3, 0.4), (4, 0.35), (6, 0.2), (8, 0.15)]
        decay = None
    elif kind == "guitar":
        partials = [(h, (1.0 / h) * (1.2 if h in (2, 3) else 1.0)) for h in range(1, 13)]
        decay = 0.9
    elif kind == "bass":
        partials = [(1, 1.0), (2, 0.5), (3, 0.25), (4, 0.12)]
        decay = 1.4
    else:  # melody: a soft lead
        partials = [(1, 1.0), (2, 0.3), (3, 0.2), (5, 0.05)]
        decay = None
    inharm = 0.0003 if kind in ("piano", "guitar") else 0.0
    for h, a in partials:
        f = freq * h * math.sqrt(1 + inharm * h * h)
        if f >= rate / 2 - 500:
            continue
        env = np.exp(-t * (1 + 0.5 * (h - 1)) / decay) if decay else np.ones(n)
        out += a * env * np.sin(2 * math.pi * f * t + rng.uniform(0, 2 * math.pi))
    attack = min(n, int(rate * (0.004 if decay else 0.04)))
    out[:attack] *= np.linspace(0, 1, attack)
    release = min(n, int(rate * 0.03))
    out[n - release:] *= np.linspace(1, 0, release)
    return amp * out / sum(a for _, a in partials)


def voicing(pcs, prev, lo=52, hi=76):
    """Close voicing of the pitch classes within [lo, hi], near the previous one."""
    best = None
    for base in range(lo, lo + 12):
        notes = sorted((base + (pc - base) % 12) for pc in pcs)
        notes = [n for n in notes if n <= hi] or notes
        cost = sum(min(abs(n - p) for p in prev) for n in notes) if prev else abs(notes[0] - 60)
        if best is None or cost < best[0]:
            best = (cost, notes)
    return best[1]


def add(out, x, start):
    if start >= len(out) or len(x) == 0:
        return
    end = min(len(out), start + len(x))
    out[start:end] += x[: end - start]


def render(spec, seconds=60.0, rate=RATE):
    """(stereo float samples, [(start s, end s, Harte label)], [(time s, beat in bar)], key)."""
    rng = np.random.default_rng(spec["seed"])
    chords, period, beats_total = chords_of(spec, seconds)
    lead = 0.5
    cents = spec["cents"]
    total = int((lead + beats_total * period + 1.5) * rate)
    acc = np.zeros(total)
    bass = np.zeros(total)
    mel = np.zeros(total)
    drums = np.zeros(total)
    meter = spec["meter"]
    tex = spec["texture"]
    prev = None
    labels = []
    for start_beat, n, root, q, b in chords:
        t0 = lead + start_beat * period
        dur = n * period
        labels.append((t0, t0 + dur, label(root, q, b)))
        pcs = [(root + i) % 12 for i in INTERVALS[q]]
        notes = voicing(pcs, prev)
        prev = notes
        s0 = int(t0 * rate)
        if tex == "organ":
            for m in notes:
                add(acc, tone(hz(m, cents), dur, rate, "organ", rng, 0.5), s0)
        elif tex in ("piano", "epiano"):
            step = 1 if rng.random() < 0.5 else 2
            for k in range(0, n, step):
                for m in notes:
                    add(acc, tone(hz(m, cents), step * period, rate, tex, rng,
                                  0.6 if k == 0 else 0.45), s0 + int(k * period * rate))
        elif tex == "guitar":
            gnotes = sorted(set(notes + [notes[0] - 12 if notes[0] - 12 >= 40 else notes[0] + 12]))
            for k in range(0, n):
                down = k % 2 == 0
                order = gnotes if down else gnotes[::-1]
                for j, m in enumerate(order):
                    add(acc, tone(hz(m, cents), period, rate, "guitar", rng,
                                  0.5 if down else 0.35),
                        s0 + int((k * period + j * 0.012) * rate))
        else:  # arpeggio in eighths, from the bottom up and back
            seq = notes + [notes[0] + 12] + notes[1:][::-1]
            for k in range(2 * n):
                m = seq[k % len(seq)]
                add(acc, tone(hz(m, cents), 2 * period, rate, "piano", rng, 0.55),
                    s0 + int(k * period / 2 * rate))
        # bass: the written bass note on the chord's first beat, the fifth or the octave
        # later (root-position chords only), in E1 .. D#3
        bass_pc = (root + b) % 12
        low = 28 + (bass_pc - 4) % 12
        for k in range(n):
            if k == 0:
                m = low
            elif b == 0 and k == 2 and rng.random() < 0.6:
                m = low + 7 if low + 7 <= 50 else low - 5
            elif k % 2 == 0:
                m = low + 12 if rng.random() < 0.3 else low
            else:
                continue
            add(bass, tone(hz(m, cents), period * 1.9, rate, "bass", rng, 0.8),
                s0 + int(k * period * rate))
        # melody: chord tones on the beats, a passing note between some of them
        if spec["melody"]:
            scale = [0, 2, 3, 5, 7, 8, 10] if spec["minor"] else [0, 2, 4, 5, 7, 9, 11]
            for k in range(n):
                pc = pcs[int(rng.integers(len(pcs)))]
                m = 72 + (pc - 72) % 12
                add(mel, tone(hz(m, cents), period * 0.9, rate, "lead", rng, 0.45),
                    s0 + int(k * period * rate))
                if rng.random() < 0.35:
                    spc = (spec["tonic"] + scale[int(rng.integers(7))]) % 12
                    m2 = 72 + (spc - 72) % 12
                    add(mel, tone(hz(m2, cents), period * 0.45, rate, "lead", rng, 0.35),
                        s0 + int((k + 0.5) * period * rate))
    beats = [(lead + k * period, k % meter + 1) for k in range(beats_total)]
    if spec["drums"]:
        for k, (t, pos) in enumerate(beats):
            s = int(t * rate)
            if pos == 1 or (meter == 4 and pos == 3):
                n = int(0.25 * rate)
                tt = np.arange(n) / rate
                f = 45 + 60 * np.exp(-tt * 30)
                add(drums, 0.9 * np.sin(2 * math.pi * np.cumsum(f) / rate) * np.exp(-tt * 12), s)
            if meter == 4 and pos in (2, 4):
                n = int(0.18 * rate)
                tt = np.arange(n) / rate
                noise = rng.standard_normal(n) * np.exp(-tt * 20)
                add(drums, 0.35 * noise + 0.3 * np.sin(2 * math.pi * 185 * tt) * np.exp(-tt * 25), s)
            for half in (0, 0.5):
                n = int(0.05 * rate)
                noise = rng.standard_normal(n)
                noise = np.diff(np.concatenate([[0], noise]))  # brighter
                add(drums, 0.12 * noise * np.exp(-np.arange(n) / rate * 60),
                    s + int(half * period * rate))
    mix = acc * 0.8 + bass * 0.7 + mel * 0.6 + drums * 0.7
    mix += rng.standard_normal(total) * 1e-4
    left = mix + 0.05 * np.roll(mix, int(0.011 * rate))
    right = mix + 0.05 * np.roll(mix, int(0.017 * rate))
    stereo = np.stack([left, right], axis=1)
    stereo *= 0.89 / max(1e-9, np.abs(stereo).max())
    # The labels cover the music; before and after it: N.
    end = lead + beats_total * period
    lab = [(0.0, lead, "N")] + labels + [(end, total / rate, "N")]
    return stereo, lab, beats, key_name(spec["tonic"], spec["minor"])


def write_wav(path, stereo, rate=RATE):
    data = (np.clip(stereo, -1, 1) * 32767).astype("<i2")
    with wave.open(path, "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(data.tobytes())
