"""The held-out chord set (session 20): General MIDI arrangements of progressions real
songs use, rendered by FluidSynth with three soundfonts Debian ships, with Harte .lab truth
and the key. A second generator, written apart from bench/chordsynth.py (numpy additive
synthesis) and sharing nothing with it, so that chord and key figures are not measured on
the sound our recogniser was tuned on.

Each piece (seeded by its index; the same on every run):
  progression  one of PROGRESSIONS: minor-key ones (i-VI-III-VII, i-iv-v, i-VII-VI-VII,
               Andalusian, minor blues, ii-V-i in minor, a line cliché with slash chords),
               modal vamps (Dorian i-IV, Mixolydian I-bVII-IV), major ones (I-V-vi-IV with
               V/3, doo-wop, ii-V-I, 12-bar blues, Pachelbel, IV-I-V-vi); triads, sevenths
               and inversions; the key's tonic drawn so that all twelve appear
  meter/tempo  4/4 or 3/4 (about a third), 70-160 BPM; one chord a bar, two bars a chord
               above 135 BPM
  parts        drums (GM kit, most pieces; one bar of hi-hat count-in, labelled N), a bass
               (roots, root-fifth, walking with chromatic approaches, pumping eighths; the
               slash note under an inversion), a comping part (piano, e-piano, organ,
               guitar strums, string pads, harp or piano arpeggios, offbeat stabs) voice-led
               around E4, and in most pieces a melody (flute, sax, trumpet, violin, clarinet,
               lead) of chord tones on strong beats and scale tones between
  font         FluidR3_GM, MuseScore_General_Full or TimGM6mb (models/lib/paths.py)
  ending       the progression repeated to about SECONDS, then the tonic chord held a bar;
               the release is labelled N
Truth: NAME.lab (start end Harte label), NAME.json ({"key": "A minor", "recipe": ...}).
The key of a Dorian vamp is its tonic's minor key and of a Mixolydian one its major key (the
MIREX key vocabulary has only the two modes).

`--delivered` also writes a delivered copy of each piece (bench/out/chords-heldout-delivered):
EQ, bus compression and MP3 through models/lib/delivery.py's stages, each drawn per piece.

  models/run chords-heldout [--pieces 40] [--seconds 45] [--delivered] [--only NAME...]
Output: bench/out/chords-heldout/NAME.{mid,wav,lab,json}; a piece is rendered again only
when its recipe (spec and this file's digest) changed.
"""

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile

import mido
import numpy as np
import soundfile as sf

from models.lib import delivery
from models.lib.paths import OUT, SOUNDFONTS

SET = os.path.join(OUT, "chords-heldout")
DELIVERED = os.path.join(OUT, "chords-heldout-delivered")
RATE = 44100
PPQ = 480
VERSION = 1

with open(os.path.abspath(__file__), "rb") as _f:
    SOURCE = hashlib.sha256(_f.read()).hexdigest()[:16]

NAMES = ["C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"]
QUALITY = {"maj": [0, 4, 7], "min": [0, 3, 7], "7": [0, 4, 7, 10], "maj7": [0, 4, 7, 11],
           "min7": [0, 3, 7, 10], "hdim7": [0, 3, 6, 10], "dim": [0, 3, 6],
           "sus4": [0, 5, 7]}
DEGREE_NAME = {3: "b3", 4: "3", 7: "5", 10: "b7", 11: "7", 9: "6", 8: "b6"}
SCALES = {"major": [0, 2, 4, 5, 7, 9, 11], "minor": [0, 2, 3, 5, 7, 8, 10],
          "dorian": [0, 2, 3, 5, 7, 9, 10], "mixolydian": [0, 2, 4, 5, 7, 9, 10]}

# name -> (mode, chords): each chord (semitones above the tonic, quality, bass interval
# above the chord's root or 0). Written as the songs that use them play them.
PROGRESSIONS = {
    # minor keys
    "aeolian-pop": ("minor", [(0, "min", 0), (8, "maj", 0), (3, "maj", 0), (10, "maj", 0)]),
    "minor-i-iv-v": ("minor", [(0, "min", 0), (5, "min", 0), (7, "min", 0), (0, "min", 0)]),
    "minor-i-iv-V7": ("minor", [(0, "min", 0), (5, "min", 0), (7, "7", 0), (0, "min", 0)]),
    "minor-i-VII-VI-VII": ("minor", [(0, "min", 0), (10, "maj", 0), (8, "maj", 0),
                                     (10, "maj", 0)]),
    "andalusian": ("minor", [(0, "min", 0), (10, "maj", 0), (8, "maj", 0), (7, "maj", 0)]),
    "minor-blues": ("minor", [(0, "min7", 0)] * 4 + [(5, "min7", 0)] * 2 + [(0, "min7", 0)] * 2
                    + [(8, "7", 0), (7, "7", 0), (0, "min7", 0), (7, "7", 0)]),
    "minor-ii-V-i": ("minor", [(2, "hdim7", 0), (7, "7", 0), (0, "min7", 0), (0, "min7", 0)]),
    "minor-cliche": ("minor", [(0, "min", 0), (0, "min", 11), (0, "min7", 10), (5, "maj", 4),
                               (5, "min", 0), (0, "min", 7), (7, "7", 0), (0, "min", 0)]),
    "minor-i-VI-iv-V": ("minor", [(0, "min", 0), (8, "maj", 0), (5, "min", 0), (7, "maj", 0)]),
    "dorian-vamp": ("dorian", [(0, "min7", 0), (5, "7", 0)]),
    # major keys
    "pop-axis": ("major", [(0, "maj", 0), (7, "maj", 4), (9, "min", 0), (5, "maj", 0)]),
    "doowop": ("major", [(0, "maj", 0), (9, "min", 0), (5, "maj", 0), (7, "maj", 0)]),
    "major-ii-V-I": ("major", [(2, "min7", 0), (7, "7", 0), (0, "maj7", 0), (0, "maj7", 0)]),
    "blues": ("major", [(0, "7", 0)] * 4 + [(5, "7", 0)] * 2 + [(0, "7", 0)] * 2
              + [(7, "7", 0), (5, "7", 0), (0, "7", 0), (7, "7", 0)]),
    "canon": ("major", [(0, "maj", 0), (7, "maj", 0), (9, "min", 0), (4, "min", 0),
                        (5, "maj", 0), (0, "maj", 0), (5, "maj", 0), (7, "maj", 0)]),
    "IV-I-V-vi": ("major", [(5, "maj", 0), (0, "maj", 0), (7, "maj", 0), (9, "min", 0)]),
    "I-IV-I6-V": ("major", [(0, "maj", 0), (5, "maj", 0), (0, "maj", 4), (7, "maj", 0)]),
    "mixolydian-vamp": ("mixolydian", [(0, "maj", 0), (10, "maj", 0), (5, "maj", 0),
                                       (0, "maj", 0)]),
    "jazz-turnaround": ("major", [(0, "maj7", 0), (9, "min7", 0), (2, "min7", 0),
                                  (7, "7", 0)]),
    "I-vi-ii-V": ("major", [(0, "maj", 0), (9, "min7", 0), (2, "min7", 0), (7, "7", 0)]),
}
MINOR_KEYS = [n for n, (m, _) in PROGRESSIONS.items() if m in ("minor", "dorian")]
MAJOR_KEYS = [n for n, (m, _) in PROGRESSIONS.items() if m in ("major", "mixolydian")]

COMPING = {  # style -> GM programs (0-based)
    "piano": [0, 1], "epiano": [4, 5], "organ": [16, 17, 19], "guitar": [24, 25, 27],
    "pad": [48, 49, 89], "arpeggio": [46, 0, 4], "stabs": [0, 4, 17],
}
BASS = {"roots": [32, 33], "root-fifth": [33, 34], "walking": [32], "eighths": [34, 38]}
MELODY = [73, 65, 56, 40, 71, 80]


def spec_of(i, seconds):
    """Piece i's recipe: drawn from a generator seeded by its index."""
    rng = random.Random(f"chords-heldout-{i}")
    names = MINOR_KEYS if i % 2 == 0 else MAJOR_KEYS
    progression = names[(i // 2) % len(names)]
    # the tonics: a fixed shuffle of the twelve, walked by the index
    order = list(range(12))
    random.Random("chords-heldout-tonics").shuffle(order)
    tonic = order[((i // 2) * 5 + (i % 2) * 3) % 12]  # each mode: all twelve in 12 pieces
    meter = 3 if rng.random() < 0.33 and progression not in ("blues", "minor-blues") else 4
    bpm = rng.randint(70, 160)
    comping = rng.choice(sorted(COMPING))
    bass = rng.choice(sorted(BASS))
    font = sorted(SOUNDFONTS)[i % len(SOUNDFONTS)]
    return {
        "index": i, "progression": progression, "tonic": tonic, "meter": meter, "bpm": bpm,
        "bars_per_chord": 2 if bpm > 135 else 1,
        "comping": comping, "comping_program": rng.choice(COMPING[comping]),
        "bass": bass, "bass_program": rng.choice(BASS[bass]),
        "melody": rng.random() < 0.7, "melody_program": rng.choice(MELODY),
        "drums": rng.random() < 0.8, "font": font, "seconds": seconds,
        "seed": rng.randrange(1 << 30),
    }


def name_of(spec):
    return (f"h{spec['index']:03d}-{spec['progression']}-{NAMES[spec['tonic']]}-"
            f"{spec['comping']}-{spec['font']}")


def label(root, quality, bass):
    text = f"{NAMES[root % 12]}:{quality}"
    return text + (f"/{DEGREE_NAME[bass]}" if bass else "")


class Song:
    """Notes on channels, in ticks; written as one MIDI file at one tempo."""

    def __init__(self, bpm):
        self.events = []  # (tick, order, message)
        self.bpm = bpm

    def note(self, channel, tick, length, pitch, velocity):
        pitch = int(min(108, max(24, pitch)))
        velocity = int(min(127, max(1, velocity)))
        tick = max(0, int(tick))
        self.events.append((tick, 1, mido.Message("note_on", channel=channel, note=pitch,
                                                  velocity=velocity)))
        self.events.append((tick + max(1, int(length)), 0,
                            mido.Message("note_off", channel=channel, note=pitch)))

    def program(self, channel, program):
        self.events.append((0, -1, mido.Message("program_change", channel=channel,
                                                program=program)))

    def save(self, path):
        mid = mido.MidiFile(type=0, ticks_per_beat=PPQ)
        track = mido.MidiTrack()
        mid.tracks.append(track)
        track.append(mido.MetaMessage("set_tempo", tempo=mido.bpm2tempo(self.bpm), time=0))
        now = 0
        for tick, _, msg in sorted(self.events, key=lambda e: (e[0], e[1])):
            track.append(msg.copy(time=tick - now))
            now = tick
        track.append(mido.MetaMessage("end_of_track", time=PPQ * 8))
        mid.save(path)


def voicing(pcs, previous, rng):
    """The chord's pitch classes as notes between C4-ish and A5, nearest the previous
    voicing (common tones kept, others moved least): a pianist's voice leading."""
    centre = 64 if previous is None else sum(previous) / len(previous)
    best = None
    for bottom in range(52, 68):
        notes = []
        for pc in pcs:
            n = bottom + (pc - bottom) % 12
            notes.append(n)
        notes.sort()
        cost = abs(sum(notes) / len(notes) - centre) + (max(notes) - min(notes)) * 0.1
        if best is None or cost < best[0]:
            best = (cost, notes)
    notes = best[1]
    if len(pcs) == 3 and rng.random() < 0.5:
        notes = notes + [notes[0] + 12]  # doubled
    return notes


def build(spec):
    """(Song, lab rows, key) of a spec."""
    rng = random.Random(spec["seed"])
    mode, chords = PROGRESSIONS[spec["progression"]]
    tonic = spec["tonic"]
    meter = spec["meter"]
    bar = meter * PPQ
    span = bar * spec["bars_per_chord"]
    seconds_per_tick = 60 / spec["bpm"] / PPQ
    song = Song(spec["bpm"])
    ch_comp, ch_bass, ch_mel, ch_drums = 0, 1, 2, 9
    song.program(ch_comp, spec["comping_program"])
    song.program(ch_bass, spec["bass_program"])
    song.program(ch_mel, spec["melody_program"])
    start = bar if spec["drums"] else 0  # a bar of hi-hat before the music
    want = spec["seconds"] / seconds_per_tick
    sequence = []
    while start + (len(sequence) + len(chords)) * span <= want - span or not sequence:
        sequence += chords
    final = (0, "min" if mode in ("minor", "dorian") else "maj", 0)
    if mode == "dorian":
        final = (0, "min7", 0)
    sequence.append(final)
    scale = SCALES[mode]
    lab = []
    if start:
        lab.append((0, start, "N"))
    previous = None
    melody_last = 72 + tonic % 12 - (12 if tonic % 12 > 6 else 0)
    for k, (offset, quality, bass_iv) in enumerate(sequence):
        t0 = start + k * span
        last = k == len(sequence) - 1
        length = bar if last else span
        root = (tonic + offset) % 12
        intervals = QUALITY[quality]
        pcs = [(root + iv) % 12 for iv in intervals]
        lab.append((t0, t0 + length, label(root, quality, bass_iv)))
        voiced = voicing(pcs, previous, rng)
        previous = voiced
        comp(song, ch_comp, spec["comping"], voiced, t0, length, meter, rng, last)
        nxt = sequence[k + 1] if not last else None
        next_root = (tonic + nxt[0] + nxt[2]) % 12 if nxt else None
        bass_line(song, ch_bass, spec["bass"], root, intervals, bass_iv, t0, length, meter,
                  next_root, rng, last)
        if spec["melody"]:
            melody_last = melody(song, ch_mel, pcs, root, tonic, scale, t0, length, meter,
                                 melody_last, rng, last)
    end = start + (len(sequence) - 1) * span + bar
    if spec["drums"]:
        drums(song, ch_drums, 0, end, meter, bar, start, rng)
    key = f"{NAMES[tonic]} {'minor' if mode in ('minor', 'dorian') else 'major'}"
    return song, [(a * seconds_per_tick, b * seconds_per_tick, l) for a, b, l in lab], key


def comp(song, ch, style, notes, t0, length, meter, rng, last):
    beat = PPQ
    v = lambda base: base + rng.randint(-8, 8)  # noqa: E731
    if last or style == "pad":
        for n in notes:
            song.note(ch, t0, length - 10, n, v(70))
        return
    if style in ("piano", "epiano", "organ"):
        hits = [0, 2] if meter == 4 else [0]
        if style == "piano" and rng.random() < 0.5:
            hits = list(range(meter))
        for h in hits:
            dur = (beat * (2 if meter == 4 and len(hits) == 2 else 1)) - 20
            if style == "organ":
                dur = length // len(hits) - 10
            for b in range(0, length, meter * beat):
                for n in notes:
                    song.note(ch, t0 + b + h * beat, dur, n, v(72 if h == 0 else 62))
        return
    if style == "guitar":  # strums on eighths, down on the beat, up between
        pattern = [0, 1, 3, 5, 6, 7] if meter == 4 else [0, 2, 3, 4, 5]
        for b in range(0, length, meter * beat):
            for e in pattern:
                up = e % 2 == 1
                order = list(reversed(notes)) if up else notes
                for s, n in enumerate(order):
                    song.note(ch, t0 + b + e * beat // 2 + s * 12, beat // 2 - 10, n,
                              v(58 if up else 72))
        return
    if style == "arpeggio":
        tones = notes[:4] if len(notes) >= 4 else notes + [notes[0] + 12]
        figure = tones + tones[-2:0:-1]
        for b in range(0, length, meter * beat):
            for e in range(meter * 2):
                song.note(ch, t0 + b + e * beat // 2, beat - 10, figure[e % len(figure)],
                          v(66 if e % 2 == 0 else 56))
        return
    if style == "stabs":  # offbeat chords, the first beat held
        for b in range(0, length, meter * beat):
            for n in notes:
                song.note(ch, t0 + b, beat - 30, n, v(70))
            for e in range(1, meter * 2, 2):
                for n in notes:
                    song.note(ch, t0 + b + e * beat // 2, beat // 3, n, v(64))
        return
    raise ValueError(style)


def bass_line(song, ch, style, root, intervals, bass_iv, t0, length, meter, next_root,
              rng, last):
    beat = PPQ
    low = 36 + (root + bass_iv - 36) % 12  # C2..B2
    if low > 43:
        low -= 12
    v = lambda base: base + rng.randint(-6, 6)  # noqa: E731
    if last:
        song.note(ch, t0, length - 10, low, v(90))
        return
    fifth = low + 7 if 7 in intervals and not bass_iv else low
    if bass_iv:
        style = "roots"  # an inversion: the slash note held
    for b in range(0, length, meter * beat):
        last_bar = b + meter * beat >= length
        if style == "roots":
            song.note(ch, t0 + b, meter * beat // (2 if meter == 4 else 1) - 20, low, v(92))
            if meter == 4:
                song.note(ch, t0 + b + 2 * beat, 2 * beat - 20, low, v(84))
        elif style == "root-fifth":
            song.note(ch, t0 + b, beat * 2 - 20 if meter == 4 else beat - 20, low, v(92))
            song.note(ch, t0 + b + 2 * beat, beat - 20, fifth, v(84))
            if meter == 3:
                song.note(ch, t0 + b + beat, beat - 20, fifth - 12 if fifth > low else low,
                          v(80))
        elif style == "eighths":
            for e in range(meter * 2):
                song.note(ch, t0 + b + e * beat // 2, beat // 2 - 30, low, v(88 if e % 2 == 0
                                                                            else 74))
        elif style == "walking":
            tones = [low] + [low + iv for iv in intervals[1:]]
            line = [low] + [rng.choice(tones[1:]) for _ in range(meter - 2)]
            if last_bar and next_root is not None:
                target = 36 + (next_root - 36) % 12
                line.append(target + rng.choice([-1, 1]))  # chromatic approach
            else:
                line.append(rng.choice(tones))
            for e, n in enumerate(line):
                song.note(ch, t0 + b + e * beat, beat - 20, n, v(90 if e == 0 else 80))
        else:
            raise ValueError(style)


def melody(song, ch, pcs, root, tonic, scale, t0, length, meter, prev, rng, last):
    """Chord tones on the strong beats, scale steps between (passing and neighbour
    tones), some rests; returns the last note."""
    beat = PPQ
    scale_pcs = {(tonic + s) % 12 for s in scale}
    # a chord note the scale lacks (the raised leading tone of V) replaces its neighbour
    for pc in pcs:
        if pc not in scale_pcs:
            scale_pcs.discard((pc - 1) % 12)
            scale_pcs.add(pc)
    pool = sorted(n for n in range(67, 89) if n % 12 in scale_pcs)
    chord_pool = [n for n in pool if n % 12 in pcs]

    def near(cands, x):
        return min(cands, key=lambda n: (abs(n - x), n))
    if last:
        song.note(ch, t0, length - 20, near([n for n in chord_pool if n % 12 == tonic % 12]
                                            or chord_pool, prev), 80)
        return prev
    t = 0
    note = prev
    while t < length:
        strong = (t % (meter * beat)) == 0 or (meter == 4 and t % (meter * beat) == 2 * beat)
        dur = rng.choice([beat // 2, beat, beat, 2 * beat] if strong else [beat // 2, beat])
        dur = min(dur, length - t)
        if rng.random() < 0.15 and not strong:
            t += dur
            continue
        if strong:
            note = near(chord_pool, note + rng.choice([-3, -1, 0, 1, 3]))
        else:
            i = pool.index(near(pool, note))
            note = pool[max(0, min(len(pool) - 1, i + rng.choice([-1, 1])))]
        song.note(ch, t0 + t, dur - 15, note, 78 + rng.randint(-8, 8))
        t += dur
    return note


def drums(song, ch, t_from, t_to, meter, bar, music, rng):
    beat = PPQ
    hat = rng.choice([42, 42, 51])
    for b in range(t_from, t_to, bar):
        count_in = b < music
        for e in range(meter * 2):
            t = b + e * beat // 2
            song.note(ch, t, 60, hat, 70 if e % 2 == 0 else 50)
            if count_in:
                continue
            if meter == 4:
                if e in (0, 4) or (e == 5 and rng.random() < 0.3):
                    song.note(ch, t, 60, 36, 100)
                if e in (2, 6):
                    song.note(ch, t, 60, 38, 95)
            else:
                if e == 0:
                    song.note(ch, t, 60, 36, 100)
                if e in (2, 4):
                    song.note(ch, t, 60, 38 if rng.random() < 0.5 else 37, 80)
        if not count_in and ((b - music) // bar) % 8 == 0:
            song.note(ch, b, 200, 49, 90)


def render(spec, base):
    """NAME.{mid,wav,lab,json}."""
    song, lab, key = build(spec)
    song.save(base + ".mid")
    font = SOUNDFONTS[spec["font"]]
    with tempfile.TemporaryDirectory(prefix="chords-heldout-") as tmp:
        raw = os.path.join(tmp, "raw.wav")
        subprocess.run(["fluidsynth", "-ni", "-g", "0.6", "-F", raw, "-r", str(RATE), font,
                        base + ".mid"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
        x, rate = sf.read(raw, always_2d=True)
    assert rate == RATE
    end_music = lab[-1][1]
    n = min(len(x), int((end_music + 2.0) * RATE))
    x = x[:n]
    fade = int(0.2 * RATE)
    x[-fade:] *= np.linspace(1, 0, fade)[:, None]
    peak = np.abs(x).max()
    x = x * (10 ** (-1 / 20) / peak)
    sf.write(base + ".wav", x, RATE, subtype="PCM_16")
    total = n / RATE
    rows = [(a, min(b, total), l) for a, b, l in lab if a < total]
    if rows[-1][1] < total:
        rows.append((rows[-1][1], total, "N"))
    with open(base + ".lab", "w") as f:
        f.writelines(f"{a:.6f}\t{b:.6f}\t{l}\n" for a, b, l in rows)
    return key


def deliver(name):
    """The delivered copy: EQ, bus compression, MP3 (parameters drawn per piece)."""
    x, rate = sf.read(os.path.join(SET, name + ".wav"), always_2d=True)
    rng = np.random.default_rng([20, int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)])
    chain = [delivery.draw_stage("eq", rng), delivery.draw_stage("compress", rng),
             {"stage": "codec", "codec": "mp3", "kbps": int(rng.choice([96, 128, 160]))}]
    for p in chain:
        x, rate = delivery.apply_stage(x, rate, p)
    sf.write(os.path.join(DELIVERED, name + ".wav"), x, rate, subtype="PCM_16")
    return chain


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pieces", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=45.0)
    parser.add_argument("--delivered", action="store_true")
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args(argv)
    os.makedirs(SET, exist_ok=True)
    names = []
    for i in range(args.pieces):
        spec = spec_of(i, args.seconds)
        name = name_of(spec)
        names.append(name)
        if args.only and name not in args.only:
            continue
        base = os.path.join(SET, name)
        recipe = dict(spec, version=VERSION, source=SOURCE)
        meta = None
        if os.path.exists(base + ".json") and os.path.exists(base + ".wav"):
            with open(base + ".json") as f:
                meta = json.load(f)
            if meta.get("recipe") != recipe:
                meta = None
        if meta is None:
            key = render(spec, base)
            meta = {"recipe": recipe, "key": key}
        if args.delivered:
            os.makedirs(DELIVERED, exist_ok=True)
            out = os.path.join(DELIVERED, name + ".wav")
            if meta.get("delivered_for") != recipe or not os.path.exists(out):
                meta["delivery"] = deliver(name)
                meta["delivered_for"] = recipe
        with open(base + ".json", "w") as f:
            json.dump(meta, f, indent=1)
        print(f"{name}\t{meta['key']}", file=sys.stderr)
    with open(os.path.join(SET, "index.json"), "w") as f:
        json.dump(names, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
