"""The generator's music: piece specs, the evaluation set's recipes, the MIDI each piece is
written as (chords, bass lines, melodies, drum patterns on channel 10) and the ground truth
read back from that MIDI.

A piece is a dict (`piece()`); `size_piece(spec)` draws its notes (seeded by spec["seed"])
into a `Builder`, whose `midi()` is a type-0 file at 480 ticks per quarter. The ground truth
(`beats_from_midi`) is read from the written .mid itself: its time signatures give the beat
grid (a 6/8 bar is two dotted-quarter beats) and its tempo map gives the times, integrated
exactly (fractions) through every tempo event (`tempo_map_seconds`). Beats before the first
note and after the last note onset are left out (the music is silent there).

PIECES is the evaluation set (models/run set); models/corpus.py draws the development
corpus's recipes with these same building blocks. render.py turns a spec into audio.
"""

import math
import random
from fractions import Fraction

import mido

RATE = 44100
PPQ = 480
EIGHTH = PPQ // 2
SIXTEENTH = PPQ // 4
GENERATOR_VERSION = 3  # bump to force re-rendering after a change to the generator

METERS = {
    # name: (numerator, denominator, ticks per beat, beats per bar)
    "4/4": (4, 4, PPQ, 4),
    "3/4": (3, 4, PPQ, 3),
    "2/4": (2, 4, PPQ, 2),
    "6/8": (6, 8, 3 * EIGHTH, 2),
    # the corpus's other meters (make-corpus.py); the set does not use them
    "5/4": (5, 4, PPQ, 5),
    "9/8": (9, 8, 3 * EIGHTH, 3),
    "12/8": (12, 8, 3 * EIGHTH, 4),
}
COMPOUND = ("6/8", "9/8", "12/8")  # beats of three eighths (a dotted quarter)

# General MIDI programs (0-based)
GM = {"piano": 0, "epiano": 4, "harpsichord": 6, "vibes": 11, "organ": 16, "church_organ": 19,
      "accordion": 21, "nylon": 24, "steel": 25, "clean_gtr": 27, "drive_gtr": 29,
      "acoustic_bass": 32, "finger_bass": 33, "pick_bass": 34, "violin": 40, "cello": 42,
      "pizz": 45, "harp": 46, "strings": 48, "strings2": 49, "choir": 52, "trumpet": 56,
      "tuba": 58, "brass": 61, "alto_sax": 65, "oboe": 68, "bassoon": 70, "clarinet": 71,
      "flute": 73}

# GM percussion keys (channel 10)
KICK, STICK, SNARE, CLAP, FLOOR_TOM, HAT, PEDAL_HAT, LOW_TOM, OPEN_HAT, MID_TOM, HIGH_TOM = (
    36, 37, 38, 39, 41, 42, 44, 45, 46, 47, 50)
CRASH, RIDE, RIDE_BELL, TAMBOURINE, COWBELL, HI_AGOGO, CABASA, SHAKER, CLAVES = (
    49, 51, 53, 54, 56, 67, 69, 70, 75)

MAJOR = [0, 2, 4, 5, 7, 9, 11]
MINOR = [0, 2, 3, 5, 7, 8, 10]
KEYS = {"C": 0, "Db": 1, "D": 2, "Eb": 3, "E": 4, "F": 5, "F#": 6, "G": 7, "Ab": 8, "A": 9,
        "Bb": 10, "B": 11}

# Chord progressions: one entry per bar, a degree (whole bar) or a list of (degree, beats).
PROGRESSIONS = {
    "pop": [1, 5, 6, 4],
    "doowop": [1, 6, 4, 5],
    "classic": [1, 4, 5, 1, 6, 2, 5, 1],
    "minor": [1, 6, 3, 7],
    "minor_classic": [1, 4, 5, 1, 6, 4, 5, 5],
    "blues": [1, 1, 1, 1, 4, 4, 1, 1, 5, 4, 1, 5],
    "jazz": [2, 5, 1, 1, 2, 5, 1, 6],
    "waltz_slow": [1, 1, 5, 5, 5, 5, 1, 1, 4, 4, 1, 1, 5, 5, 1, 1],
    "split44": [[(1, 2), (6, 2)], [(4, 2), (5, 2)], [(1, 2), (3, 2)], [(4, 2), (5, 2)]],
    "hymn44": [[(1, 1), (4, 1), (5, 1), (1, 1)], [(6, 1), (2, 1), (5, 2)],
               [(1, 1), (6, 1), (4, 1), (5, 1)], [(1, 2), (5, 1), (1, 1)]],
    "march": [1, 1, 5, 5, 5, 5, 1, 1, 4, 4, 1, 6, 2, 5, 1, 1],
    "polka": [1, 5, 5, 1, 1, 5, 5, 1],
    "samba": [2, 5, 1, 1, 6, 2, 5, 5],
    "ballad": [1, 3, 6, 4, 1, 4, 5, 5],
    "reggae": [1, 4, 1, 5],
    "jig": [1, 1, 7, 7, 1, 1, 5, 5],
    "mixo": [1, 7, 4, 1],
}

# Melody rhythms per meter: (offset, length) in sixteenths within the bar.
RHYTHMS = {
    "4/4": [[(0, 4), (4, 4), (8, 4), (12, 4)], [(0, 6), (6, 2), (8, 4), (12, 4)],
            [(0, 2), (2, 2), (4, 4), (8, 2), (10, 2), (12, 4)], [(0, 8), (8, 4), (12, 4)],
            [(2, 2), (4, 4), (8, 6), (14, 2)], [(0, 3), (3, 3), (6, 2), (8, 8)],
            [(0, 4), (6, 2), (8, 2), (10, 2), (12, 4)]],
    "3/4": [[(0, 8), (8, 4)], [(0, 4), (4, 4), (8, 4)], [(0, 6), (6, 2), (8, 4)],
            [(0, 4), (4, 2), (6, 2), (8, 4)], [(2, 2), (4, 4), (8, 4)]],
    "2/4": [[(0, 4), (4, 4)], [(0, 2), (2, 2), (4, 4)], [(0, 3), (3, 1), (4, 2), (6, 2)],
            [(0, 2), (2, 2), (4, 2), (6, 2)], [(2, 2), (4, 4)]],
    "6/8": [[(0, 4), (4, 2), (6, 4), (10, 2)], [(0, 6), (6, 6)],
            [(0, 2), (2, 2), (4, 2), (6, 4), (10, 2)], [(0, 6), (6, 2), (8, 2), (10, 2)],
            [(0, 4), (4, 2), (6, 6)]],
    "5/4": [[(0, 4), (4, 4), (8, 4), (12, 4), (16, 4)], [(0, 6), (6, 2), (8, 4), (12, 8)],
            [(0, 2), (2, 2), (4, 4), (8, 4), (12, 2), (14, 2), (16, 4)],
            [(0, 8), (8, 4), (12, 4), (16, 4)], [(0, 4), (6, 2), (8, 4), (12, 6), (18, 2)]],
    "9/8": [[(0, 4), (4, 2), (6, 4), (10, 2), (12, 6)], [(0, 6), (6, 6), (12, 6)],
            [(0, 2), (2, 2), (4, 2), (6, 4), (10, 2), (12, 6)],
            [(0, 6), (6, 2), (8, 2), (10, 2), (12, 4), (16, 2)]],
    "12/8": [[(0, 4), (4, 2), (6, 4), (10, 2), (12, 4), (16, 2), (18, 6)],
             [(0, 6), (6, 6), (12, 6), (18, 6)],
             [(0, 2), (2, 2), (4, 2), (6, 6), (12, 4), (16, 2), (18, 6)],
             [(0, 6), (6, 2), (8, 2), (10, 2), (12, 12)]],
}
LONG = {"4/4": [[(0, 12)], [(0, 8), (8, 8)]], "3/4": [[(0, 12)], [(0, 8), (8, 4)]],
        "2/4": [[(0, 8)], [(0, 6), (6, 2)]], "6/8": [[(0, 12)], [(0, 6), (6, 6)]],
        "5/4": [[(0, 12), (12, 8)], [(0, 20)]], "9/8": [[(0, 18)], [(0, 12), (12, 6)]],
        "12/8": [[(0, 24)], [(0, 12), (12, 12)]]}


def piece(name, meter, tempo, drums, texture, bass, melody, **kw):
    spec = dict(name=name, meter=meter, tempo=tempo, drums=drums, texture=texture, bass=bass,
                melody=melody)
    spec.update(kw)
    return spec


# The set. tempo: ("steady", bpm) | ("rit", bpm, end_bpm, from_frac) |
# ("accel", bpm, end_bpm, from_frac, to_frac) | ("step", bpm, new_bpm, at_frac) |
# ("arc", bpm, peak_bpm). BPM counts beats: quarters in x/4, dotted quarters in 6/8.
PIECES = [
    # ---- 4/4 ------------------------------------------------------------------------
    piece("44-pop-drums", "4/4", ("steady", 112), "pop", ("block", "piano"), ("root5", "finger_bass"),
          "vibes", key="G", prog="pop", crash_every=8, seed=101),
    piece("44-rock-fast", "4/4", ("steady", 152), "rock", ("power8", "drive_gtr"),
          ("eighths", "pick_bass"), None, key="E", prog="mixo", crash_every=4, human=0.004, seed=102),
    piece("44-ballad-piano", "4/4", ("steady", 66), None, ("arp8", "piano"), ("root", "piano"),
          "piano", key="Eb", prog="ballad", pickup=1, seed=103),
    piece("44-halftime", "4/4", ("steady", 84), "halftime", ("pad", "epiano"),
          ("synco", "finger_bass"), "alto_sax", key="F", prog="minor", seed=104),
    piece("44-disco", "4/4", ("steady", 124), "disco", ("stabs", "brass"),
          ("octaves", "finger_bass"), "strings", key="A", mode="minor", prog="minor",
          human=0.0, seed=105),
    piece("44-reggae-onedrop", "4/4", ("steady", 76), "onedrop", ("skank", "clean_gtr"),
          ("reggae", "finger_bass"), "organ", key="D", prog="reggae", seed=106),
    piece("44-swing-jazz", "4/4", ("steady", 132), "swing", ("comp", "piano"),
          ("walk", "acoustic_bass"), "alto_sax", key="Bb", prog="jazz", sevenths=True,
          swing=True, pickup=2, seed=107),
    piece("44-strings-rit", "4/4", ("rit", 92, 58, 0.55), None, ("pad", "strings"),
          ("root", "cello"), "violin", key="D", prog="classic", seed=108),
    piece("44-piano-accel", "4/4", ("accel", 80, 126, 0.2, 0.8), None, ("alberti", "piano"),
          ("none", None), "piano", key="C", prog="classic", seed=109),
    piece("44-step-drums", "4/4", ("step", 100, 132, 0.5), "pop", ("strum", "steel"),
          ("root5", "finger_bass"), "flute", key="G", prog="doowop", pickup=1, seed=110),
    piece("44-fingerpick-guitar", "4/4", ("steady", 104), None, ("travis", "nylon"),
          ("none", None), None, key="A", mode="minor", prog="minor_classic", seed=111),
    piece("44-hymn-organ", "4/4", ("steady", 72), None, ("chorale", "church_organ"),
          ("none", None), None, key="F", prog="hymn44", pickup=1, seed=112),
    piece("44-blues-shuffle", "4/4", ("steady", 96), "shuffle", ("comp", "piano"),
          ("boogie", "finger_bass"), "drive_gtr", key="A", prog="blues", sevenths=True,
          swing=True, seed=113),
    piece("44-arc-band", "4/4", ("arc", 96, 124), "rock", ("split", "epiano"),
          ("root5", "finger_bass"), "trumpet", key="Bb", prog="split44", crash_every=8,
          pickup=2, seed=114),
    # ---- 3/4 ------------------------------------------------------------------------
    piece("34-viennese-waltz", "3/4", ("steady", 168), None, ("oompah", "pizz"),
          ("root", "cello"), "flute", key="D", prog="waltz_slow", seed=201),
    piece("34-waltz-drums", "3/4", ("steady", 138), "waltz", ("oompah", "accordion"),
          ("root", "acoustic_bass"), "clarinet", key="F", prog="classic", pickup=1, seed=202),
    piece("34-minuet-harpsichord", "3/4", ("steady", 108), None, ("block", "harpsichord"),
          ("root5", "harpsichord"), "harpsichord", key="G", prog="classic", pickup=1, seed=203),
    piece("34-ballad-rit", "3/4", ("rit", 72, 52, 0.6), None, ("arp8", "piano"),
          ("root", "piano"), "piano", key="Ab", prog="ballad", pickup=2, seed=204),
    piece("34-jazz-waltz", "3/4", ("steady", 150), "jazzwaltz", ("comp", "epiano"),
          ("walk", "acoustic_bass"), "vibes", key="C", prog="jazz", sevenths=True, seed=205),
    piece("34-folk-step", "3/4", ("step", 120, 96, 0.45), None, ("strum", "steel"),
          ("root", "acoustic_bass"), None, key="E", prog="pop", seed=206),
    # ---- 6/8 ------------------------------------------------------------------------
    piece("68-jig-fiddle", "6/8", ("steady", 116), None, ("strum", "nylon"),
          ("root5", "acoustic_bass"), "violin", key="D", prog="jig", pickup=1, seed=301),
    piece("68-slow-rock-drums", "6/8", ("steady", 62), "rock68", ("triplets", "piano"),
          ("root5", "finger_bass"), "alto_sax", key="C", prog="doowop", crash_every=8, seed=302),
    piece("68-barcarolle-rit", "6/8", ("rit", 60, 44, 0.6), None, ("arp8", "piano"),
          ("none", None), "piano", key="A", mode="minor", prog="minor_classic", seed=303),
    piece("68-march-drums", "6/8", ("steady", 120), "march68", ("oompah", "brass"),
          ("root5", "tuba"), "trumpet", key="Bb", prog="march", pickup=1, seed=304),
    piece("68-lullaby-accel", "6/8", ("accel", 68, 96, 0.3, 0.75), None, ("pad", "strings"),
          ("none", None), "flute", key="F", prog="classic", harp=True, seed=305),
    piece("68-folk-step-drums", "6/8", ("step", 88, 112, 0.5), "folk68", ("arp8", "nylon"),
          ("root", "acoustic_bass"), "accordion", key="G", prog="pop", seed=306),
    # ---- 2/4 ------------------------------------------------------------------------
    piece("24-march-band", "2/4", ("steady", 116), "march24", ("oompah", "brass"),
          ("root5", "tuba"), "trumpet", key="Eb", prog="march", pickup=1, seed=401),
    piece("24-polka", "2/4", ("steady", 132), "polka", ("oompah", "accordion"),
          ("root5", "tuba"), "clarinet", key="C", prog="polka", seed=402),
    piece("24-galop-piano-accel", "2/4", ("accel", 118, 160, 0.15, 0.85), None,
          ("oompah", "piano"), ("root5", "piano"), "piano", key="F", prog="polka", seed=403),
    piece("24-samba", "2/4", ("steady", 100), "samba", ("samba", "nylon"),
          ("samba", "acoustic_bass"), "flute", key="D", mode="minor", prog="samba", seed=404),
    piece("24-etude-strings-rit", "2/4", ("rit", 88, 64, 0.6), None, ("block8", "strings"),
          ("root5", "cello"), "oboe", key="G", mode="minor", prog="minor_classic", seed=405),
    piece("24-pickup-trumpet-drums", "2/4", ("step", 92, 76, 0.55), "march24",
          ("block", "brass"), ("root5", "tuba"), "trumpet", key="F", prog="march",
          pickup=1, crash_every=8, seed=406),
]


# ---------------------------------------------------------------------------- harmony

def chord_pcs(key, mode, degree, sevenths=False):
    scale = MINOR if mode == "minor" else MAJOR
    idx = [(degree - 1 + k) % 7 for k in ((0, 2, 4, 6) if sevenths else (0, 2, 4))]
    pcs = [(key + scale[i]) % 12 for i in idx]
    if mode == "minor" and degree == 5:  # harmonic minor: major dominant
        pcs[1] = (pcs[1] + 1) % 12
    return pcs


def nearest(pc, target, lo, hi):
    """The pitch of class pc nearest to target within [lo, hi]."""
    best = None
    for p in range(lo, hi + 1):
        if p % 12 == pc and (best is None or abs(p - target) < abs(best - target)):
            best = p
    return best


def voice(pcs, prev, lo=52, hi=76):
    """A close voicing of the pitch classes, near the previous voicing."""
    cands = []
    for bottom in range(lo, lo + 12):
        if bottom % 12 not in pcs:
            continue
        notes, p = [], bottom
        order = pcs[pcs.index(bottom % 12):] + pcs[:pcs.index(bottom % 12)]
        for pc in order:
            while p % 12 != pc:
                p += 1
            notes.append(p)
        if notes[-1] <= hi:
            cands.append(notes)
        up = [n + 12 for n in notes]
        if up[-1] <= hi:
            cands.append(up)
    if prev is None:
        center = (lo + hi) // 2 - 4
        return min(cands, key=lambda c: abs(sum(c) / len(c) - center))
    return min(cands, key=lambda c: sum(abs(a - b) for a, b in zip(sorted(c), sorted(prev))))


# ---------------------------------------------------------------------------- the piece

class Builder:
    def __init__(self, spec):
        self.spec = spec
        self.rng = random.Random(spec["seed"])
        self.num, self.den, self.beat, self.bpb = METERS[spec["meter"]]
        self.bar = self.beat * self.bpb
        self.meter = spec["meter"]
        self.key = KEYS[spec["key"]]
        self.mode = spec.get("mode", "major")
        self.pickup = spec.get("pickup", 0)
        self.swing = spec.get("swing", False)
        self.human = spec.get("human", 0.005)
        self.notes = []  # (tick, dur, channel, pitch, velocity, humanize)
        self.programs = {}

    # --- timeline: a silent lead-in beat, the pickup, then bars 1..N, final chord on N+1
    def layout(self, bars):
        self.bars = bars
        self.pre = (1 + self.pickup) * self.beat      # ticks before the first downbeat
        self.down = self.pre                            # tick of bar 1
        self.end_tick = self.down + bars * self.bar     # downbeat of the final chord

    def bar_tick(self, b):
        """Tick of bar b (1-based); b = bars + 1 is the final chord."""
        return self.down + (b - 1) * self.bar

    def bpm_at(self, frac):
        t = self.spec["tempo"]
        kind = t[0]
        if kind == "steady":
            return t[1]
        if kind == "rit":
            start, end, f0 = t[1], t[2], t[3]
            return start if frac <= f0 else start + (end - start) * (frac - f0) / (1 - f0)
        if kind == "accel":
            start, end, f0, f1 = t[1:5]
            if frac <= f0:
                return start
            if frac >= f1:
                return end
            return start + (end - start) * (frac - f0) / (f1 - f0)
        if kind == "step":
            return t[1] if frac < self.step_frac() else t[2]
        if kind == "arc":
            start, peak = t[1], t[2]
            return start + (peak - start) * math.sin(math.pi * min(max(frac, 0), 1))
        if kind == "rubato":  # ("rubato", bpm, depth): a smooth waver, phases from the seed
            bpm, depth = t[1], t[2]
            r = random.Random(self.spec["seed"] * 13 + 5)
            n1, n2 = r.uniform(1.5, 3.0), r.uniform(5.0, 9.0)
            p1, p2 = r.uniform(0, 2 * math.pi), r.uniform(0, 2 * math.pi)
            w = 0.65 * math.sin(2 * math.pi * n1 * frac + p1) \
                + 0.35 * math.sin(2 * math.pi * n2 * frac + p2)
            return bpm * (1 + depth * w)
        if kind == "ritatempo":  # ("ritatempo", bpm, low, from, to): rit., then a tempo
            bpm, low, f0 = t[1], t[2], t[3]
            f1 = self.step_frac()
            if frac <= f0 or frac >= f1:
                return bpm
            return bpm + (low - bpm) * (frac - f0) / (f1 - f0)
        raise ValueError(kind)

    def step_frac(self):
        """The step change (or the a tempo) falls on the bar line nearest the requested
        fraction."""
        t = self.spec["tempo"]
        b = max(2, round((t[4] if t[0] == "ritatempo" else t[3]) * self.bars) + 1)
        return (b - 1) / self.bars

    def tempo_events(self):
        """[(tick, microseconds per quarter)]: changing stretches get an event every eighth."""
        quarters_per_beat = Fraction(self.beat, PPQ)
        total = self.end_tick - self.down

        def usec(bpm):
            return int(round(60_000_000 / (bpm * quarters_per_beat)))

        kind = self.spec["tempo"][0]
        events = [(0, usec(self.bpm_at(0.0)))]
        if kind == "steady":
            return events
        if kind == "step":
            tick = self.down + round(self.step_frac() * total)
            return events + [(tick, usec(self.spec["tempo"][2]))]
        for tick in range(self.down, self.end_tick + self.bar, EIGHTH):
            frac = (tick + EIGHTH / 2 - self.down) / total
            u = usec(self.bpm_at(min(frac, 1.0)))
            if u != events[-1][1]:
                events.append((tick, u))
        return events

    def seconds(self, tick, events=None):
        events = events or self.tempo_events()
        t, last_tick, last_u = Fraction(0), 0, events[0][1]
        for et, u in events[1:]:
            if et >= tick:
                break
            t += Fraction(et - last_tick) * last_u / PPQ / 1_000_000
            last_tick, last_u = et, u
        return t + Fraction(tick - last_tick) * last_u / PPQ / 1_000_000

    # --- notes
    def add(self, tick, dur, ch, pitch, vel, human=True):
        if self.swing:
            tick, dur = self.swung(tick), max(30, dur)
        vel = max(1, min(127, int(vel)))
        self.notes.append((int(tick), int(dur), ch, int(pitch), vel, human))

    def swung(self, tick):
        """Swing: an off-beat eighth moves to the last third of its beat."""
        rel = (tick - self.down) % self.beat
        if rel == EIGHTH:
            return tick + EIGHTH // 3
        return tick

    def vel(self, base, spread=6):
        return base + self.rng.randint(-spread, spread)

    def chords(self):
        """[(start tick, length, pitch classes, degree)] over bars 1..N (cycled progression;
        the last bar is the dominant)."""
        prog = PROGRESSIONS[self.spec["prog"]]
        sev = self.spec.get("sevenths", False)
        out = []
        for b in range(1, self.bars + 1):
            entry = prog[(b - 1) % len(prog)]
            if b == self.bars and not isinstance(entry, list):
                entry = 5
            spans = entry if isinstance(entry, list) else [(entry, self.bpb)]
            if self.meter in COMPOUND or sum(n for _, n in spans) != self.bpb:
                spans = [(spans[0][0], self.bpb)]
            t = self.bar_tick(b)
            for deg, n in spans:
                out.append((t, n * self.beat, chord_pcs(self.key, self.mode, deg, sev), deg))
                t += n * self.beat
        return out

    def build(self):
        s = self.spec
        ch_mel, ch_acc, ch_bass, ch_extra, ch_drums = 0, 1, 2, 3, 9
        if s["melody"]:
            self.programs[ch_mel] = GM[s["melody"]]
        tex, tex_inst = s["texture"]
        self.programs[ch_acc] = GM[tex_inst]
        bass_style, bass_inst = s["bass"]
        if bass_inst:
            self.programs[ch_bass] = GM[bass_inst]
        chords = self.chords()
        self.accompaniment(tex, chords, ch_acc)
        if bass_style != "none":
            self.bassline(bass_style, chords, ch_bass)
        if s.get("harp"):
            self.programs[ch_extra] = GM["harp"]
            self.accompaniment("arp8", chords, ch_extra, vel=62)
        if s["melody"]:
            self.melody(chords, ch_mel)
        elif self.pickup:  # no melody to lead in: the accompaniment plays the pickup chords
            pcs = chord_pcs(self.key, self.mode, 5)
            for k in range(self.pickup):
                t = self.down - (self.pickup - k) * self.beat
                for p in voice(pcs, None, 53, 76) + [nearest(pcs[0], 43, 36, 52)]:
                    self.add(t, self.beat - 30, ch_acc, p, self.vel(68, 3))
        if s["drums"]:
            self.drums(s["drums"], ch_drums)
        # the final chord, on the downbeat after the last bar
        final = chord_pcs(self.key, self.mode, 1)
        t = self.end_tick
        hold = int(1.5 * self.beat)
        for p in voice(final, None, 55, 74):
            self.add(t, hold, ch_acc, p, 80, human=False)
        if bass_style != "none":
            self.add(t, hold, ch_bass, nearest(final[0], 40, 33, 52), 90, human=False)
        elif tex in ("alberti", "travis", "arp8", "chorale", "pad"):
            self.add(t, hold, ch_acc, nearest(final[0], 43, 36, 50), 80, human=False)
        if s["melody"]:
            self.add(t, hold, ch_mel, nearest(final[0], self.last_mel, 62, 84), 85, human=False)
        if s["drums"]:
            self.add(t, 240, ch_drums, KICK, 100, human=False)
            self.add(t, 240, ch_drums, CRASH, 95, human=False)
        return self

    # --- accompaniment textures
    def accompaniment(self, tex, chords, ch, vel=70):
        prev = None
        for start, length, pcs, deg in chords:
            v = voice(pcs, prev, 53, 76)
            prev = v
            in_bar = (start - self.down) % self.bar
            first = in_bar == 0  # chord on a bar line
            acc = 12 if first else 4
            bass = nearest(pcs[0], 45, 36, 52)
            if tex == "block":
                for k in range(length // self.beat):
                    on_one = first and k == 0
                    for p in v:
                        self.add(start + k * self.beat, self.beat - 40, ch,
                                 p, self.vel(vel + (10 if on_one else 0)))
            elif tex == "block8":  # repeated eighth chords, bar line accent, 16th rest
                for k in range(length // EIGHTH):
                    for p in v:
                        self.add(start + k * EIGHTH, EIGHTH - 60, ch, p,
                                 self.vel(vel - 8 + (14 if k == 0 and first else 0)))
            elif tex == "power8":  # rock power chords (root, fifth, octave) in eighths
                root = nearest(pcs[0], 47, 40, 52)
                for k in range(length // EIGHTH):
                    for p in (root, root + 7, root + 12):
                        self.add(start + k * EIGHTH, EIGHTH - 30, ch, p,
                                 self.vel(vel + (8 if k % 2 == 0 else -4)))
            elif tex == "pad":
                for p in v:
                    self.add(start, length - 20, ch, p, self.vel(vel - 6, 3))
            elif tex == "stabs":  # short brass stabs: on 1, the and of 2, and 4 (disco)
                for off in (0, 3 * EIGHTH, 6 * EIGHTH):
                    if off < length:
                        for p in v:
                            self.add(start + off, EIGHTH, ch, p + 12, self.vel(vel - 5))
            elif tex == "split":  # e-piano quarter chords, accent where the chord changes
                for k in range(length // self.beat):
                    for p in v:
                        self.add(start + k * self.beat, self.beat - 60, ch, p,
                                 self.vel(vel + (acc if k == 0 else -6)))
            elif tex == "arp8":  # broken chord in eighths from the bass up
                seq = [bass] + v + [v[1] + 12, v[2] + 12 if len(v) > 2 else v[0] + 24]
                order = [0, 2, 3, 1, 4, 3, 2, 3] if self.meter not in COMPOUND else [0, 1, 2, 3, 2, 1]
                for k in range(length // EIGHTH):
                    i = order[k % len(order)]
                    dur = self.beat if k == 0 else EIGHTH * 2
                    self.add(start + k * EIGHTH, dur, ch, seq[i],
                             self.vel(vel - 10 + (acc if k == 0 else 0), 5))
            elif tex == "triplets":  # 6/8 slow rock: a chord on every eighth, bass on beats
                for k in range(length // EIGHTH):
                    for p in v:
                        self.add(start + k * EIGHTH, EIGHTH - 20, ch, p + 12,
                                 self.vel(vel - 14 + (10 if k % 3 == 0 else 0), 4))
            elif tex == "alberti":  # low-high-mid-high sixteenths
                lo_, mid, hi_ = v[0] - 12, v[1] - 12 if len(v) > 1 else v[0], v[-1] - 12
                pattern = [lo_, hi_, mid, hi_]
                for k in range(length // SIXTEENTH):
                    self.add(start + k * SIXTEENTH, SIXTEENTH, ch, pattern[k % 4],
                             self.vel(vel - 16 + (acc if k == 0 else 0), 4))
            elif tex == "travis":  # fingerpicking: alternating bass on beats, treble between
                alt = [bass, nearest(pcs[2], bass + 7, 40, 57)]
                treble = [v[-1], v[1], v[-1] + 12 if v[-1] + 12 < 80 else v[0], v[1]]
                for k in range(length // EIGHTH):
                    t = start + k * EIGHTH
                    if k % 2 == 0:
                        self.add(t, self.beat, ch, alt[(k // 2) % 2],
                                 self.vel(vel + (acc if k == 0 else 0) - 2))
                    else:
                        self.add(t, EIGHTH * 3, ch, treble[(k // 2) % 4], self.vel(vel - 14))
            elif tex == "oompah":  # bass note on the strong beat(s), chords on the others
                strong = {"3/4": [0], "2/4": [0], "6/8": [0, 3], "4/4": [0, 2], "5/4": [0, 3],
                          "9/8": [0, 3, 6], "12/8": [0, 3, 6, 9]}[self.meter]
                step = EIGHTH if self.meter in COMPOUND else self.beat
                n_steps = length // step
                fifth = nearest(pcs[2], bass - 5, 31, 52)
                for k in range(n_steps):
                    t = start + k * step
                    if k in strong:
                        p = bass if k == 0 else fifth
                        self.add(t, step - 20, ch, p, self.vel(vel + (8 if k == 0 else 0)))
                    else:
                        for p in v:
                            self.add(t, step - 60, ch, p, self.vel(vel - 12, 4))
            elif tex == "strum":  # guitar strums; down strokes low to high, up strokes back
                if self.meter in COMPOUND:  # 6/8: D . U D . U
                    pattern = [(k + j, d) for k in range(0, self.bar // EIGHTH, 3)
                               for j, d in ((0, "D"), (2, "U"))]
                elif self.meter == "3/4":
                    pattern = [(0, "D"), (2, "D"), (3, "U"), (4, "D"), (5, "U")]
                else:
                    pattern = [(0, "D"), (2, "D"), (3, "U"), (5, "U"), (6, "D"), (7, "U")]
                    if self.meter == "5/4":
                        pattern += [(8, "D"), (9, "U")]
                strings = sorted(set([nearest(pcs[0], 43, 40, 52)] + v + [v[0] + 12]))
                per_bar = self.bar // EIGHTH
                for bar_start in range(start, start + length, self.bar):
                    for k, d in pattern:
                        if k >= per_bar or bar_start + k * EIGHTH >= start + length:
                            continue
                        notes = strings if d == "D" else list(reversed(strings[-4:]))
                        base = vel + (12 if k == 0 and bar_start == start and first else 0)
                        base -= 0 if d == "D" else 14
                        for i, p in enumerate(notes):
                            self.add(bar_start + k * EIGHTH + i * 12, EIGHTH * 2, ch, p,
                                     self.vel(base - 2 * i, 4))
            elif tex == "skank":  # reggae: short chords on the off-beats only
                for k in range(length // self.beat):
                    for p in v:
                        self.add(start + k * self.beat + EIGHTH, EIGHTH - 60, ch, p + 12,
                                 self.vel(vel - 4))
            elif tex == "comp":  # jazz comping: Charleston (1, and of 2) or 2 and 4
                if self.meter == "3/4":
                    offs = [(0, self.beat), (self.beat + EIGHTH, EIGHTH * 2)]
                else:
                    offs = self.rng.choice([[(0, 3 * EIGHTH), (3 * EIGHTH, EIGHTH)],
                                            [(self.beat, EIGHTH * 2), (3 * self.beat, EIGHTH * 2)],
                                            [(0, EIGHTH * 2), (5 * EIGHTH, EIGHTH * 2)]])
                for off, d in offs:
                    if off < length:
                        for p in v:
                            self.add(start + off, d, ch, p, self.vel(vel - 8))
            elif tex == "chorale":  # four voices, one chord per harmony, bass voice included
                bassv = nearest(pcs[0], 43, 36, 52)
                for p in [bassv] + v:
                    self.add(start, length - 30, ch, p, self.vel(vel, 3))
            elif tex == "samba":  # partido-alto-ish syncopated guitar in 16ths
                hits = [0, 3, 6, 8, 10, 13] if self.meter == "2/4" else [0, 3, 6, 10]
                for h in hits:
                    if h * SIXTEENTH < length:
                        for p in v:
                            self.add(start + h * SIXTEENTH, SIXTEENTH * 2 - 20, ch, p,
                                     self.vel(vel - 6 + (6 if h in (3, 10) else 0)))
            else:
                raise ValueError(tex)

    # --- bass lines
    def bassline(self, style, chords, ch):
        prev = 40
        for idx, (start, length, pcs, deg) in enumerate(chords):
            root = nearest(pcs[0], prev, 31, 50)
            fifth = nearest(pcs[2], root + 7, 31, 55)
            nxt = chords[idx + 1][2][0] if idx + 1 < len(chords) else self.key
            prev = root
            beats = length // self.beat
            if style == "root":
                self.add(start, length - 30, ch, root, self.vel(92))
            elif style == "root5":
                self.add(start, (length // 2 if beats > 1 else length) - 30, ch, root, self.vel(94))
                if beats > 1 and self.meter != "3/4":
                    self.add(start + (beats // 2) * self.beat, length // 2 - 30, ch, fifth,
                             self.vel(80))
            elif style == "eighths":
                for k in range(length // EIGHTH):
                    self.add(start + k * EIGHTH, EIGHTH - 20, ch, root,
                             self.vel(88 if k % 2 == 0 else 76))
            elif style == "octaves":  # disco octave bass in eighths
                for k in range(length // EIGHTH):
                    self.add(start + k * EIGHTH, EIGHTH - 40, ch, root + (12 if k % 2 else 0),
                             self.vel(90 if k % 2 == 0 else 80))
            elif style == "synco":  # 1, and of 2, 3 ... (pop/RnB)
                for off, d, p in ((0, 3 * EIGHTH, root), (3 * EIGHTH, EIGHTH, root),
                                  (4 * EIGHTH, 2 * EIGHTH, fifth), (7 * EIGHTH, EIGHTH, root)):
                    if off < length:
                        self.add(start + off, d - 20, ch, p, self.vel(90 if off == 0 else 78))
            elif style == "reggae":  # drop the one sometimes: starts on the and of 1
                offs = [(EIGHTH, EIGHTH * 2), (4 * EIGHTH, EIGHTH * 2), (5 * EIGHTH, EIGHTH),
                        (6 * EIGHTH, EIGHTH * 2)]
                if self.rng.random() < 0.5:
                    offs = [(0, EIGHTH * 3)] + offs[1:]
                for off, d in offs:
                    if off < length:
                        p = root if off != 4 * EIGHTH else fifth
                        self.add(start + off, d - 20, ch, p, self.vel(88))
            elif style == "walk":  # quarter notes, root first, approach the next root
                target = nearest(nxt, root, 31, 52)
                for k in range(beats):
                    if k == 0:
                        p = root
                    elif k == beats - 1:
                        p = target + self.rng.choice([-1, 1, 2, -2])
                    else:
                        p = nearest(pcs[min(k, len(pcs) - 1)], root + 4, 31, 55)
                    self.add(start + k * self.beat, self.beat - 40, ch, p,
                             self.vel(86 if k == 0 else 80))
            elif style == "boogie":  # shuffle boogie: 1 3 5 6 b7 6 5 3 in swung eighths
                steps = [0, 4, 7, 9, 10, 9, 7, 4]
                for k in range(length // EIGHTH):
                    self.add(start + k * EIGHTH, EIGHTH - 10, ch, root + steps[k % 8],
                             self.vel(90 if k == 0 else 80))
            elif style == "samba":  # surdo-like: short on 1, long on 2 (the accent)
                self.add(start, EIGHTH, ch, root, self.vel(78))
                if beats > 1:
                    self.add(start + self.beat - SIXTEENTH, SIXTEENTH, ch, fifth, self.vel(74))
                    self.add(start + self.beat, self.beat - 30, ch, root, self.vel(100))
            else:
                raise ValueError(style)

    # --- melody: 4-bar phrases, chord tones on beats, steps between, long note at the end
    def melody(self, chords, ch):
        lo, hi = {"violin": (67, 88), "flute": (67, 91), "trumpet": (60, 82),
                  "alto_sax": (58, 80), "clarinet": (57, 84), "oboe": (62, 86),
                  "drive_gtr": (55, 79), "strings": (62, 86), "organ": (60, 84),
                  "accordion": (60, 84)}.get(self.spec["melody"], (64, 86))
        scale = [(self.key + d) % 12 for d in (MINOR if self.mode == "minor" else MAJOR)]
        if self.mode == "minor":
            scale[6] = (scale[6] + 1) % 12  # leading tone
        pitch = nearest(self.key, (lo + hi) // 2, lo, hi)

        def chord_at(tick):
            cur = chords[0]
            for c in chords:
                if c[0] <= tick:
                    cur = c
            return cur[2]

        def step(p, direction):
            q = p + direction
            while q % 12 not in scale:
                q += direction
            return q

        def pick(p, tick, on_beat):
            if on_beat:
                tones = [q for q in range(lo, hi + 1) if q % 12 in chord_at(tick)]
                near = sorted(tones, key=lambda q: abs(q - p) + self.rng.random() * 4)
                return near[self.rng.choice([0, 0, 1, 1, 2])]
            d = self.rng.choice([-1, 1]) if self.rng.random() < 0.8 else self.rng.choice([-2, 2])
            q = step(p, 1 if d > 0 else -1)
            if abs(d) == 2:
                q = step(q, 1 if d > 0 else -1)
            return q if lo <= q <= hi else step(p, -1 if d > 0 else 1)

        # pickup: notes on the pickup beats (eighths on the last one), rising to bar 1
        if self.pickup:
            t0 = self.down - self.pickup * self.beat
            seq = []
            for k in range(self.pickup):
                if k == self.pickup - 1 and self.meter not in COMPOUND:
                    seq += [(t0 + k * self.beat, EIGHTH), (t0 + k * self.beat + EIGHTH, EIGHTH)]
                elif self.meter in COMPOUND:
                    seq += [(t0 + k * self.beat, 2 * EIGHTH), (t0 + k * self.beat + 2 * EIGHTH,
                                                                 EIGHTH)]
                else:
                    seq.append((t0 + k * self.beat, self.beat))
            target = nearest(chord_at(self.down)[0], pitch, lo, hi)
            p = target - 5
            while p % 12 not in scale:
                p -= 1
            for t, d in seq:
                p = max(lo, min(hi, p))
                self.add(t, d - 20, ch, p, self.vel(78))
                p = step(p, 1)
            pitch = p
        rhythms = RHYTHMS[self.meter]
        motif_a = self.rng.choice(rhythms)
        motif_b = self.rng.choice(rhythms)
        for b in range(1, self.bars + 1):
            pos = (b - 1) % 4
            if pos == 3 or b == self.bars:
                rhythm = self.rng.choice(LONG[self.meter])
            else:
                rhythm = [motif_a, motif_b, motif_a][pos]
            if b % 8 == 5:  # a new motif for the second half of each 8-bar period
                motif_b = self.rng.choice(rhythms)
            start = self.bar_tick(b)
            for off, dur in rhythm:
                t = start + off * SIXTEENTH
                on_beat = (off * SIXTEENTH) % self.beat == 0
                pitch = pick(pitch, t, on_beat)
                accent = 10 if off == 0 else (4 if on_beat else 0)
                self.add(t, dur * SIXTEENTH - 30, ch, pitch, self.vel(84 + accent, 5))
        self.last_mel = pitch

    # --- drums
    def drums(self, style, ch):
        crash_every = self.spec.get("crash_every", 0)
        E, S = EIGHTH, SIXTEENTH
        for b in range(1, self.bars + 1):
            t0 = self.bar_tick(b)
            hits = []  # (offset ticks, key, velocity)
            fill = crash_every and b % crash_every == 0 and b != self.bars
            crash = (crash_every and (b - 1) % crash_every == 0) or (b == 1 and style != "swing")
            if style in ("rock", "pop"):
                for k in range(8):
                    if not (k == 0 and crash):
                        hits.append((k * E, HAT, 72 if k % 2 == 0 else 54))
                kicks = [0, 4 * E] + ([5 * E] if b % 2 == 0 else [])
                if style == "pop":
                    kicks = [0, 3 * E, 4 * E]
                hits += [(k, KICK, 100) for k in kicks]
                hits += [(2 * E, SNARE, 96), (6 * E, SNARE, 98)]
                if style == "pop" and b % 4 == 0:
                    hits.append((7 * E, OPEN_HAT, 70))
            elif style == "halftime":
                for k in range(8):
                    hits.append((k * E, HAT, 70 if k % 2 == 0 else 50))
                hits += [(0, KICK, 100), (3 * E, KICK, 80), (4 * E, SNARE, 104),
                         (7 * E, KICK, 74)]
            elif style == "disco":
                for k in range(4):
                    hits += [(k * 2 * E, KICK, 104), (k * 2 * E + E, OPEN_HAT, 70)]
                hits += [(2 * E, CLAP, 92), (6 * E, CLAP, 92)]
                hits += [(k * E, HAT, 50) for k in range(0, 8, 2)]
            elif style == "onedrop":  # kick and rim together on 3 only
                for k in range(8):
                    hits.append((k * E, HAT, 62 if k % 2 == 0 else 46))
                hits += [(4 * E, KICK, 100), (4 * E, STICK, 96)]
            elif style == "swing":  # ride ding, ding-a ding, ding-a; hat foot on 2 and 4
                for k in range(4):
                    hits.append((k * self.beat, RIDE, 80 if k % 2 else 72))
                    if k % 2:
                        hits.append((k * self.beat + E, RIDE, 58))  # swung by add()
                        hits.append((k * self.beat, PEDAL_HAT, 70))
                for k in range(4):
                    hits.append((k * self.beat, KICK, 30))  # feathered
                if self.rng.random() < 0.4:
                    hits.append((self.rng.choice([3, 5, 7]) * E, SNARE, 50))
            elif style == "shuffle":
                for k in range(8):
                    hits.append((k * E, HAT, 72 if k % 2 == 0 else 52))
                hits += [(0, KICK, 98), (4 * E, KICK, 94), (2 * E, SNARE, 96),
                         (6 * E, SNARE, 96)]
            elif style == "waltz":
                hits += [(0, KICK, 96), (self.beat, STICK, 66), (2 * self.beat, STICK, 66)]
                hits += [(k * self.beat, HAT, 60) for k in range(3)]
            elif style == "jazzwaltz":
                hits += [(0, RIDE, 76), (self.beat, RIDE, 70), (self.beat + E, RIDE, 52),
                         (2 * self.beat, RIDE, 70), (self.beat, PEDAL_HAT, 64)]
                if b % 2 == 1:
                    hits.append((0, KICK, 46))
            elif style == "rock68":
                for k in range(6):
                    if not (k == 0 and crash):
                        hits.append((k * E, HAT, 74 if k % 3 == 0 else 52))
                hits += [(0, KICK, 100), (3 * E, SNARE, 100)]
                if b % 2 == 0:
                    hits.append((2 * E, KICK, 80))
            elif style == "march68":
                hits += [(0, KICK, 100), (3 * E, KICK, 92)]
                hits += [(0, SNARE, 92), (2 * E, SNARE, 64), (3 * E, SNARE, 84),
                         (5 * E, SNARE, 64)]
                if b % 4 == 0:
                    hits += [(3 * E + S, SNARE, 60), (4 * E, SNARE, 70), (4 * E + S, SNARE, 60)]
            elif style == "folk68":
                hits += [(0, KICK, 90), (3 * E, TAMBOURINE, 84)]
                hits += [(k * E, SHAKER, 60 if k % 3 == 0 else 44) for k in range(6)]
            elif style == "march24":
                hits += [(0, KICK, 100), (self.beat, KICK, 88), (0, CRASH, 52) if b % 2 else
                         (self.beat, CRASH, 48)]
                hits += [(E, SNARE, 84), (E + S, SNARE, 60), (3 * E, SNARE, 84)]
                if b % 4 == 0:
                    hits += [(2 * E, SNARE, 70), (2 * E + S, SNARE, 70), (3 * E + S, SNARE, 76)]
            elif style == "polka":
                hits += [(0, KICK, 98), (self.beat, KICK, 90), (E, SNARE, 84),
                         (3 * E, SNARE, 84)]
            elif style == "rock54":  # 5/4 in 3 + 2: kick on 1 and 4, snare on 3 and 5
                for k in range(10):
                    if not (k == 0 and crash):
                        hits.append((k * E, HAT, 72 if k % 2 == 0 else 52))
                hits += [(0, KICK, 100), (6 * E, KICK, 92), (4 * E, SNARE, 96),
                         (8 * E, SNARE, 96)]
            elif style == "jazz54":  # ride on every beat, a swung skip, hat foot on 2, 5
                for k in range(5):
                    hits.append((k * self.beat, RIDE, 80 if k == 0 else 68))
                    if k in (1, 3, 4):
                        hits.append((k * self.beat + E, RIDE, 56))  # swung by add()
                hits += [(self.beat, PEDAL_HAT, 66), (4 * self.beat, PEDAL_HAT, 66),
                         (0, KICK, 50), (3 * self.beat, KICK, 40)]
            elif style == "folk98":  # 9/8: kick on 1, tambourine on 2 and 3, shaker eighths
                hits += [(0, KICK, 94), (3 * E, TAMBOURINE, 82), (6 * E, TAMBOURINE, 78)]
                hits += [(k * E, SHAKER, 60 if k % 3 == 0 else 44) for k in range(9)]
            elif style == "blues128":  # 12/8 slow blues: hats in eighths, snare on 2 and 4
                for k in range(12):
                    if not (k == 0 and crash):
                        hits.append((k * E, HAT, 72 if k % 3 == 0 else 50))
                hits += [(0, KICK, 100), (6 * E, KICK, 92), (3 * E, SNARE, 98),
                         (9 * E, SNARE, 98)]
                if b % 2 == 0:
                    hits.append((5 * E, KICK, 76))
            elif style == "samba":  # surdo (floor tom) accent on 2, shaker 16ths, tamborim
                hits += [(0, FLOOR_TOM, 66), (self.beat, FLOOR_TOM, 106), (self.beat, KICK, 70)]
                hits += [(k * S, SHAKER, 70 if k % 4 == 3 else 48) for k in range(8)]
                hits += [(k * S, HI_AGOGO, 62) for k in (0, 2, 3, 5, 7)] if b % 2 else \
                    [(k * S, HI_AGOGO, 62) for k in (1, 3, 4, 6)]
                hits += [(3 * S, STICK, 60), (6 * S, STICK, 56)]
            else:
                raise ValueError(style)
            if crash and style not in ("swing", "march24", "samba"):
                hits.append((0, CRASH, 96))
            if fill and style in ("rock", "pop", "halftime", "shuffle", "rock68", "rock54",
                                  "blues128"):
                last_beat = self.bar - self.beat
                hits = [h for h in hits if h[0] < last_beat]
                n16 = self.beat // S
                toms = [SNARE, SNARE, HIGH_TOM, MID_TOM, LOW_TOM, FLOOR_TOM]
                for k in range(n16):
                    hits.append((last_beat + k * S, toms[k * len(toms) // n16], 84 + 3 * k))
            for off, key, v in hits:
                self.add(t0 + off, 60, ch, key, self.vel(v, 4))

    # --- MIDI
    def midi(self):
        s = self.spec
        events = []  # (tick, order, message)
        events.append((0, 0, mido.MetaMessage("track_name", name=s["name"])))
        # a short first bar: the silent lead-in beat plus the pickup; then the meter
        pre_beats = 1 + self.pickup
        if self.meter in COMPOUND:
            events.append((0, 0, mido.MetaMessage("time_signature", numerator=3 * pre_beats,
                                                  denominator=8)))
        else:
            events.append((0, 0, mido.MetaMessage("time_signature", numerator=pre_beats,
                                                  denominator=4)))
        events.append((self.down, 0, mido.MetaMessage(
            "time_signature", numerator=self.num, denominator=self.den,
            clocks_per_click=36 if self.meter in COMPOUND else 24)))
        for tick, u in self.tempo_events():
            events.append((tick, 0, mido.MetaMessage("set_tempo", tempo=u)))
        for chn, prog in sorted(self.programs.items()):
            events.append((0, 1, mido.Message("program_change", channel=chn, program=prog)))
        mix = {0: (100, 72), 1: (92, 52), 2: (104, 64), 3: (80, 40), 9: (100, 64)}
        for chn in set(n[2] for n in self.notes):
            volume, pan = mix.get(chn, (90, 64))
            events.append((0, 1, mido.Message("control_change", channel=chn, control=7,
                                              value=volume)))
            events.append((0, 1, mido.Message("control_change", channel=chn, control=10,
                                              value=pan)))
        hum = random.Random(s["seed"] * 7 + 1)
        base_spt = 60.0 / self.bpm_at(0) / self.beat  # seconds per tick at the start tempo
        for tick, dur, chn, pitch, vel, human in sorted(self.notes):
            j = 0
            if human and self.human:
                j = int(round(max(-2.5, min(2.5, hum.gauss(0, 1))) * self.human / base_spt))
            on = max(0, tick + j)
            events.append((on, 3, mido.Message("note_on", channel=chn, note=pitch, velocity=vel)))
            events.append((on + dur, 2, mido.Message("note_off", channel=chn, note=pitch,
                                                     velocity=0)))
        last = max(t for t, _, _ in events)
        tail = int(2.5 / base_spt)  # FluidSynth renders to here; finish_audio trims
        events.sort(key=lambda e: (e[0], e[1]))
        mid = mido.MidiFile(type=0, ticks_per_beat=PPQ)
        track = mido.MidiTrack()
        mid.tracks.append(track)
        now = 0
        for tick, _, msg in events:
            track.append(msg.copy(time=tick - now))
            now = tick
        track.append(mido.MetaMessage("end_of_track", time=last + tail - now))
        return mid


def size_piece(spec):
    """The piece with the number of bars whose duration is nearest the seeded target."""
    rng = random.Random(spec["seed"] * 3 + 11)
    target = rng.uniform(*spec.get("length_s", (34, 54)))
    lo, hi = spec.get("window_s", (30, 60))
    best = None
    for bars in range(4, 200):
        bld = Builder(spec)
        bld.layout(bars)
        dur = float(bld.seconds(bld.end_tick)) + 3.0
        if best is None or abs(dur - target) < abs(best[1] - target):
            best = (bars, dur)
        if dur > target:
            break
    bars = best[0]
    # whole phrases where it costs little: round to a multiple of 4 bars within 30-60 s
    for cand in (bars - bars % 4 + 4, bars - bars % 4):
        bld = Builder(spec)
        bld.layout(cand)
        if cand >= 8 and lo <= float(bld.seconds(bld.end_tick)) + 3.0 <= hi:
            bars = cand
            break
    bld = Builder(spec)
    bld.layout(bars)
    return bld.build()


# ---------------------------------------------------------------------------- ground truth

def beats_from_midi(path):
    """[(seconds as Fraction, tick, beat-in-bar)] of every beat from the first note onset to
    the last, from the file's own time signatures and tempo map.

    Each time signature starts a bar; a beat is a quarter in x/4 (1/den in general), a
    dotted quarter in compound meters (6/8, 9/8, 12/8). The first bar, when it is shorter
    than the next meter's bar (lead-in + pickup), is numbered as that bar's tail."""
    mid = mido.MidiFile(path)
    tpq = mid.ticks_per_beat
    sigs, onsets = [], []
    for track in mid.tracks:
        tick = 0
        for msg in track:
            tick += msg.time
            if msg.type == "time_signature":
                sigs.append((tick, msg.numerator, msg.denominator))
            elif msg.type == "note_on" and msg.velocity > 0:
                onsets.append(tick)
            elif msg.type == "end_of_track":
                end = tick
    sigs.sort()
    first, last = min(onsets), max(onsets)
    seconds = tempo_map_seconds(mid)

    def beat_shape(num, den):
        whole = 4 * tpq
        if den == 8 and num % 3 == 0 and num > 3 or (num == 3 and den == 8):
            return 3 * whole // 8, max(1, num // 3)          # ticks per beat, beats per bar
        return whole // den, num

    out = []
    for i, (start, num, den) in enumerate(sigs):
        stop = sigs[i + 1][0] if i + 1 < len(sigs) else end
        tpb, bpb = beat_shape(num, den)
        numbering_offset = 0
        if i == 0 and len(sigs) > 1:
            _, next_bpb = beat_shape(sigs[1][1], sigs[1][2])
            span_beats = (stop - start) // tpb
            if span_beats < next_bpb and (stop - start) % tpb == 0:
                numbering_offset = next_bpb - span_beats
                bpb = next_bpb
        k = 0
        while start + k * tpb < stop:
            tick = start + k * tpb
            in_bar = (k + numbering_offset) % bpb + 1
            out.append((tick, in_bar))
            k += 1
    slack = tpq // 8  # humanized onsets may start a little early
    return [(seconds(t), t, n) for t, n in out if first - slack <= t <= last + slack]


def write_beats(path, beats):
    with open(path, "w") as f:
        for sec, _, n in beats:
            f.write(f"{float(sec):.6f}\t{n}\n")


# ---------------------------------------------------------------------------- audio

def tempo_map_seconds(mid):
    """A function tick -> seconds (exact Fraction) through every tempo event of mid."""
    tpq = mid.ticks_per_beat
    tempos = []
    for track in mid.tracks:
        tick = 0
        for msg in track:
            tick += msg.time
            if msg.type == "set_tempo":
                tempos.append((tick, msg.tempo))
    tempos.sort()
    if not tempos or tempos[0][0] != 0:
        tempos.insert(0, (0, 500000))
    starts, total = [], Fraction(0)  # (tick, seconds at tick, usec per quarter)
    for i, (t, u) in enumerate(tempos):
        if i:
            pt, ps, pu = starts[-1]
            total = ps + Fraction((t - pt) * pu, tpq * 1_000_000)
        starts.append((t, total, u))

    def seconds(tick):
        t0, s0, u = starts[0]
        for st in starts:
            if st[0] > tick:
                break
            t0, s0, u = st
        return s0 + Fraction((tick - t0) * u, tpq * 1_000_000)
    return seconds

