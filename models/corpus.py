"""Makes the development corpus in bench/out/beats-corpus/ (deterministic): 160 pieces drawn
wide, split by piece into a tuning half and a test half (bench/beats/split.json).

The pieces are written and rendered by the generator's own code (lib/pieces.py's Builder,
lib/render.py's FluidSynth path, the ground truth read back from the written .mid), from
recipes drawn here with fixed seeds: seven meters (2/4, 3/4, 4/4, 5/4, 6/8, 9/8, 12/8), tempi 40-220 BPM,
about 55 % without drums, three soundfonts (FluidR3_GM, MuseScore_General, TimGM6mb), many
arrangements, steady tempo or rubato, ritardando and a tempo, ritardando, accelerando,
a step or an arc, swing, and each piece either clean or passed through one real-world
processing: a room (lib/reverb.py's velvet-noise hall), compression with a radio-style EQ,
pink noise (lib/noisy.py), an MP3 round trip (ffmpeg's LAME at 128 kbit/s, the decoder's delay
measured against the clean audio and taken out) or resampling to 48 kHz. None of them
moves the music in time, so the ground truth is the clean piece's.

  models/run corpus [--out DIR] [--only NAME...] [--jobs 2] [--list] [--counts]
      [--write-split] [--train SEED [--fonts NAME...]]

--list prints the recipes and their halves and makes nothing. --write-split writes
bench/beats/split.json from the recipes (done once, before any tuning; the file is
committed). Every other run checks the recipes against split.json and stops when a piece
is not in it: the halves are never drawn again silently.

Output, per piece NAME (as make-set.py's, plus): NAME.json gains "processing",
"processing_info", "sample_rate", "soundfont", "half" and "corpus_recipe", and its tags
the groups score.py reports. DIR/.clean/ keeps the clean renders (make-set.py's cache);
DIR/index.json lists every piece. A piece whose files exist and whose recipe (and this
script) is unchanged is kept.

--delivery SEED (with --train, or an --out other than the corpus's) passes every piece
through a random delivery chain (delivery.py, seeded by SEED and the piece's name) in place
of its recipe's one processing: "processing" is "delivery", and "processing_info" (with
"delivery_groups") holds the chain. The ground truth is the clean piece's (delivery.py
--check: no beat moves by more than 1 ms).
"""

import argparse
import concurrent.futures
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import soundfile as sf
from scipy.signal import butter, resample_poly, sosfiltfilt

from models.lib import delivery, noisy, paths, pieces, reverb
from models.lib.paths import SOUNDFONTS, SPLIT_FILE, TRAIN_SOUNDFONTS, read_split
from models.lib.render import make_one, write_index

DEFAULT_OUT = paths.CORPUS
CORPUS_VERSION = 1
SEED = 21  # the recipes' draw (issue 21)

# pieces per meter; about 45 % of each with drums
METER_COUNTS = {"4/4": 40, "3/4": 24, "2/4": 16, "6/8": 20, "5/4": 18, "9/8": 18, "12/8": 24}
DRUM_SHARE = 0.45
# processing kinds and how many pieces of the 160 get each (the rest are clean)
PROCESSING = {"reverb": 19, "compression": 19, "noise": 19, "mp3": 19, "48k": 19}

# drum grooves per meter: style -> (tempo range of the beat, swing)
DRUMS = {
    "4/4": {"rock": (96, 220), "pop": (80, 140), "halftime": (60, 92), "disco": (110, 130),
            "onedrop": (62, 90), "shuffle": (80, 140), "swing": (100, 220)},
    "3/4": {"waltz": (96, 200), "jazzwaltz": (110, 200)},
    "2/4": {"march24": (90, 132), "polka": (110, 176), "samba": (80, 112)},
    "6/8": {"rock68": (44, 80), "march68": (90, 132), "folk68": (68, 132)},
    "5/4": {"rock54": (90, 172), "jazz54": (100, 190)},
    "9/8": {"folk98": (56, 140)},
    "12/8": {"blues128": (40, 84)},
}
SWING_STYLES = ("shuffle", "swing", "jazzwaltz", "jazz54")

# with drums: style -> (textures, basses, melodies, progressions)
DRUM_ARR = {
    "rock": ([("power8", "drive_gtr"), ("strum", "steel"), ("block", "piano")],
             [("eighths", "pick_bass"), ("root5", "finger_bass")],
             [None, "drive_gtr", "organ", "trumpet"], ["mixo", "pop", "doowop", "minor"]),
    "pop": ([("block", "piano"), ("strum", "steel"), ("split", "epiano")],
            [("root5", "finger_bass"), ("synco", "finger_bass")],
            ["vibes", "flute", "strings", "alto_sax"], ["pop", "doowop", "ballad"]),
    "halftime": ([("pad", "epiano"), ("pad", "strings2")], [("synco", "finger_bass")],
                 ["alto_sax", "trumpet", "vibes"], ["minor", "ballad"]),
    "disco": ([("stabs", "brass")], [("octaves", "finger_bass")], ["strings", "flute"],
              ["minor", "pop"]),
    "onedrop": ([("skank", "clean_gtr"), ("skank", "organ")], [("reggae", "finger_bass")],
                ["organ", "trumpet", None], ["reggae"]),
    "shuffle": ([("comp", "piano"), ("comp", "organ")], [("boogie", "finger_bass")],
                ["drive_gtr", "alto_sax", None], ["blues"]),
    "swing": ([("comp", "piano"), ("comp", "epiano")], [("walk", "acoustic_bass")],
              ["alto_sax", "trumpet", "vibes", "clarinet"], ["jazz"]),
    "waltz": ([("oompah", "accordion"), ("oompah", "piano")], [("root", "acoustic_bass")],
              ["clarinet", "violin", "flute"], ["classic", "waltz_slow"]),
    "jazzwaltz": ([("comp", "epiano"), ("comp", "piano")], [("walk", "acoustic_bass")],
                  ["vibes", "alto_sax", "flute"], ["jazz"]),
    "march24": ([("oompah", "brass")], [("root5", "tuba")], ["trumpet", "clarinet"], ["march"]),
    "polka": ([("oompah", "accordion"), ("oompah", "piano")], [("root5", "tuba")],
              ["clarinet", "trumpet"], ["polka"]),
    "samba": ([("samba", "nylon")], [("samba", "acoustic_bass")], ["flute", "alto_sax"],
              ["samba"]),
    "rock68": ([("triplets", "piano"), ("triplets", "epiano")], [("root5", "finger_bass")],
               ["alto_sax", "drive_gtr", None], ["doowop", "ballad"]),
    "march68": ([("oompah", "brass")], [("root5", "tuba")], ["trumpet", "flute"], ["march"]),
    "folk68": ([("arp8", "nylon"), ("strum", "steel")], [("root", "acoustic_bass")],
               ["accordion", "violin", "flute"], ["pop", "jig"]),
    "rock54": ([("power8", "drive_gtr"), ("block", "piano")], [("root5", "finger_bass")],
               ["organ", None, "trumpet"], ["minor", "mixo"]),
    "jazz54": ([("comp", "piano")], [("walk", "acoustic_bass")], ["alto_sax", "vibes"],
               ["jazz"]),
    "folk98": ([("strum", "nylon"), ("arp8", "piano")], [("root5", "acoustic_bass")],
               ["violin", "flute", "accordion"], ["jig", "classic"]),
    "blues128": ([("triplets", "piano"), ("strum", "steel")], [("root5", "finger_bass")],
                 ["drive_gtr", "alto_sax", "organ"], ["blues"]),
}

# without drums: name -> (textures, basses, melodies, progressions, tempo range, meters or
# None for any, swing)
SIMPLE = ("2/4", "3/4", "4/4", "5/4")
PLAIN_ARR = {
    "piano-arp": ([("arp8", "piano"), ("arp8", "epiano"), ("arp8", "harp")],
                  [("none", None), ("root", "piano")], ["piano", "vibes", "flute", None],
                  ["ballad", "classic", "minor_classic"], (40, 112), None, False),
    "piano-alberti": ([("alberti", "piano"), ("alberti", "harpsichord")], [("none", None)],
                      ["piano", "harpsichord", "flute", "oboe"], ["classic", "minor_classic"],
                      (56, 140), None, False),
    "strings-pad": ([("pad", "strings"), ("pad", "strings2"), ("pad", "choir")],
                    [("root", "cello"), ("root", "acoustic_bass")],
                    ["violin", "oboe", "flute", "clarinet"],
                    ["classic", "minor_classic", "ballad"], (40, 104), None, False),
    "organ-chorale": ([("chorale", "church_organ"), ("chorale", "organ"),
                       ("chorale", "choir"), ("chorale", "strings")], [("none", None)],
                      [None, None, "trumpet", "oboe"], ["classic", "minor_classic"],
                      (40, 96), None, False),
    "guitar-travis": ([("travis", "nylon"), ("travis", "steel")], [("none", None)],
                      [None, "flute", "violin"], ["pop", "minor", "doowop"], (64, 140),
                      SIMPLE, False),
    "guitar-strum": ([("strum", "steel"), ("strum", "nylon")], [("root", "acoustic_bass")],
                     [None, "accordion", "violin", "flute"], ["pop", "doowop", "jig", "mixo"],
                     (64, 176), None, False),
    "oompah": ([("oompah", "pizz"), ("oompah", "piano"), ("oompah", "accordion"),
                ("oompah", "harp")], [("none", None), ("root", "cello")],
               ["flute", "clarinet", "violin", "piano"],
               ["waltz_slow", "polka", "classic", "march"], (80, 220), None, False),
    "keys-block": ([("block", "harpsichord"), ("block", "piano"), ("block", "organ")],
                   [("root5", "harpsichord"), ("root5", "piano"), ("root", "cello")],
                   ["harpsichord", "piano", "oboe", "trumpet"], ["classic", "minor_classic"],
                   (56, 150), None, False),
    "strings-block8": ([("block8", "strings"), ("block8", "pizz")], [("root5", "cello")],
                       ["oboe", "violin", "flute"], ["minor_classic", "classic"], (56, 140),
                       SIMPLE, False),
    "triplet-keys": ([("triplets", "piano"), ("triplets", "epiano"), ("triplets", "vibes")],
                     [("root5", "acoustic_bass"), ("none", None)],
                     ["alto_sax", "clarinet", "trumpet", "flute"], ["doowop", "ballad"],
                     (40, 90), ("6/8", "9/8", "12/8"), False),
    "jazz-trio": ([("comp", "piano"), ("comp", "epiano")], [("walk", "acoustic_bass")],
                  ["alto_sax", "vibes", "trumpet", None], ["jazz"], (90, 200),
                  ("3/4", "4/4", "5/4"), True),
    "harp-pad": ([("pad", "strings")], [("none", None)], ["flute", "clarinet", "oboe"],
                 ["classic", "ballad"], (40, 100), None, False),
}

# tempo curves: kind -> share among pieces without drums, with drums
TEMPO_KINDS = {"steady": (0.38, 0.70), "rubato": (0.22, 0.0), "ritatempo": (0.14, 0.10),
               "rit": (0.10, 0.04), "accel": (0.06, 0.05), "step": (0.05, 0.06),
               "arc": (0.05, 0.05)}


def allot(rng, shares, n):
    """n labels in the proportions `shares` (largest remainders), shuffled by rng."""
    total = sum(shares.values())
    raw = {k: n * v / total for k, v in shares.items()}
    counts = {k: int(v) for k, v in raw.items()}
    for k in sorted(raw, key=lambda k: -(raw[k] - counts[k]))[:n - sum(counts.values())]:
        counts[k] += 1
    out = [k for k in shares for _ in range(counts[k])]
    rng.shuffle(out)
    return out


def tempo_curve(rng, kind, bpm):
    lo = 40.0
    if kind == "steady":
        return ("steady", bpm)
    if kind == "rubato":
        depth = rng.uniform(0.06, 0.14)
        bpm = max(bpm, lo / (1 - depth))
        return ("rubato", round(bpm, 1), round(depth, 3))
    if kind == "ritatempo":
        f0 = rng.uniform(0.3, 0.5)
        return ("ritatempo", bpm, round(max(lo, bpm * rng.uniform(0.6, 0.8)), 1),
                round(f0, 3), round(f0 + rng.uniform(0.15, 0.25), 3))
    if kind == "rit":
        return ("rit", bpm, round(max(lo, bpm * rng.uniform(0.6, 0.8)), 1),
                round(rng.uniform(0.45, 0.7), 3))
    if kind == "accel":
        f0 = rng.uniform(0.1, 0.35)
        return ("accel", bpm, round(min(220, bpm * rng.uniform(1.2, 1.4)), 1), round(f0, 3),
                round(f0 + rng.uniform(0.35, 0.55), 3))
    if kind == "step":
        return ("step", bpm, round(min(220, max(lo, bpm * rng.choice([0.8, 1.25]))), 1),
                round(rng.uniform(0.4, 0.6), 3))
    if kind == "arc":
        return ("arc", bpm, round(min(220, bpm * rng.uniform(1.15, 1.3)), 1))
    raise ValueError(kind)


def log_uniform(rng, lo, hi):
    return round(math.exp(rng.uniform(math.log(lo), math.log(hi))), 1)


def recipes(seed=SEED, prefix="", soundfonts=SOUNDFONTS):
    """The corpus's recipes, in a fixed order: lib/pieces.py piece specs plus "processing",
    "processing_param", "sf" (soundfont short name) and "arrangement". Another seed and a
    name prefix draw a training corpus (--train) whose pieces are in neither half, from
    other soundfonts (short name: path) if given."""
    rng = random.Random(seed)
    n_all = sum(METER_COUNTS.values())
    processing = allot(rng, dict(PROCESSING, clean=n_all - sum(PROCESSING.values())), n_all)
    fonts = allot(rng, {k: 1 for k in soundfonts}, n_all)
    out = []
    i = 0
    for meter, n in METER_COUNTS.items():
        n_drums = round(n * DRUM_SHARE)
        kinds_d = allot(rng, {k: v[1] for k, v in TEMPO_KINDS.items()}, n_drums)
        kinds_p = allot(rng, {k: v[0] for k, v in TEMPO_KINDS.items()}, n - n_drums)
        compound = meter in pieces.COMPOUND
        styles = list(DRUMS[meter])
        plain = [a for a, v in PLAIN_ARR.items() if v[5] is None or meter in v[5]]
        for j in range(n):
            drums = j < n_drums
            spec_rng = random.Random(f"{seed}-{meter}-{j}")
            if drums:
                style = styles[j % len(styles)]
                lo, hi = DRUMS[meter][style]
                textures, basses, melodies, progs = DRUM_ARR[style]
                swing, arr, kind = style in SWING_STYLES, style, kinds_d[j]
            else:
                arr = plain[(j - n_drums) % len(plain)]
                textures, basses, melodies, progs, (lo, hi), _, swing = PLAIN_ARR[arr]
                style, kind = None, kinds_p[j - n_drums]
                if compound:  # the beat is a dotted quarter: slower
                    lo, hi = max(40, lo * 0.6), max(60, hi * 0.6)
            bpm = log_uniform(spec_rng, lo, hi)
            texture = spec_rng.choice(textures)
            bass = spec_rng.choice(basses)
            melody = spec_rng.choice(melodies)
            prog = spec_rng.choice(progs)
            mode = "minor" if prog.startswith("minor") else (
                spec_rng.choice(["major", "minor"]) if prog in ("classic", "ballad") else "major")
            kw = dict(key=spec_rng.choice(sorted(pieces.KEYS)), mode=mode, prog=prog,
                      seed=10000 + 7 * i + (0 if seed == SEED else 1000003 * seed), length_s=(32, 44), window_s=(30, 45))
            if swing:
                kw["swing"] = True
            if prog == "jazz" or style in ("shuffle",):
                kw["sevenths"] = True
            if spec_rng.random() < 0.3:
                kw["pickup"] = spec_rng.choice([1, 2]) if meter in ("4/4", "5/4", "12/8") else 1
            if style in ("rock", "pop", "rock68", "rock54", "blues128"):
                kw["crash_every"] = spec_rng.choice([0, 4, 8])
            if arr == "harp-pad":
                kw["harp"] = True
            if style == "disco":
                kw["human"] = 0.0
            elif kind == "rubato":
                kw["human"] = 0.008
            if melody is None and texture[0] in ("comp", "skank", "stabs", "samba"):
                melody = "vibes"  # a texture without a downbeat needs a tune over it
            tempo = tempo_curve(spec_rng, kind, bpm)
            font = fonts[i]
            proc = processing[i]
            param = {"reverb": spec_rng.choice([0.8, 1.2, 1.6, 2.2]),
                     "noise": spec_rng.choice([12, 16, 20, 24]),
                     "compression": spec_rng.choice([4, 8]),
                     "mp3": 128, "48k": 48000, "clean": None}[proc]
            name = (f"{prefix}{meter.replace('/', '')}-{i:03d}-{arr}-{kind}-{font}"
                    + ("" if proc == "clean" else f"-{proc}"))
            spec = pieces.piece(name, meter, tempo, style, texture, bass, melody, **kw)
            spec.update(soundfont=soundfonts[font], sf=font, processing=proc,
                        processing_param=param, arrangement=arr)
            out.append(spec)
            i += 1
    names = [s["name"] for s in out]
    assert len(set(names)) == len(names)
    return out


def draw_split(specs):
    """{name: "tune" | "test"}: the pieces in the order of the SHA-256 of their names, each
    to the half that has fewer pieces of its groups (meter, drums / no-drums, tempo curve,
    swing, pickup, processing, soundfont: the sum over its groups of the difference
    between the halves' counts), a tie to the half the first bit of the hash names. Every
    group is split about evenly, and no piece's half depends on how any detector scores
    it."""
    order = sorted(specs, key=lambda s: hashlib.sha256(s["name"].encode()).hexdigest())
    counts = {}
    halves = {}
    for s in order:
        gs = ["all"] + groups(s)
        lean = sum(counts.get((g, "tune"), 0) - counts.get((g, "test"), 0) for g in gs)
        if lean == 0:
            half = ("tune", "test")[hashlib.sha256(s["name"].encode()).digest()[0] % 2]
        else:
            half = "test" if lean > 0 else "tune"
        halves[s["name"]] = half
        for g in gs:
            counts[(g, half)] = counts.get((g, half), 0) + 1
    return halves


# ---------------------------------------------------------------------------- processing

def compression(name, x, rate, ratio):
    """A broadcast chain: a radio-style band (2nd-order 150 Hz high-pass, 5 kHz low-pass,
    zero-phase so nothing moves in time), then a feed-forward compressor on the 2 ms RMS
    level of both channels (threshold at the piece's RMS level, `ratio`:1, attack 5 ms,
    release 120 ms), make-up to -1 dBFS peak."""
    sos = np.concatenate([butter(2, 150, "highpass", fs=rate, output="sos"),
                          butter(2, 5000, "lowpass", fs=rate, output="sos")])
    y = sosfiltfilt(sos, x, axis=0)
    y = y * delivery.compressor_gain(y, rate, ratio, 0.0, 0.005, 0.120)[:, None]
    return y * (10 ** (-1 / 20) / max(np.abs(y).max(), 1e-9)), {"ratio": ratio,
                                                               "band_hz": [150, 5000]}


def mp3_round_trip(name, x, rate, kbps):
    """Encoded by ffmpeg's libmp3lame at `kbps` kbit/s and decoded by ffmpeg; the decoder's
    delay (what is left of the encoder delay and padding after ffmpeg's own gapless
    trimming) is measured against the clean audio and taken out, and the length kept."""
    with tempfile.TemporaryDirectory(prefix="corpus-mp3-") as tmp:
        src, mp3, dec = (os.path.join(tmp, f) for f in ("in.wav", "x.mp3", "out.wav"))
        sf.write(src, x, rate, subtype="PCM_16")
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", src, "-c:a", "libmp3lame",
                        "-b:a", f"{kbps}k", "-fflags", "+bitexact", mp3], check=True)
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", mp3, "-fflags", "+bitexact",
                        dec], check=True)
        y, r = sf.read(dec, always_2d=True)
    assert r == rate
    lag = delivery.lag_of(x, y, 4096)
    y = y[lag:] if lag >= 0 else np.concatenate([np.zeros((-lag, y.shape[1])), y])
    y = y[:len(x)] if len(y) >= len(x) else np.concatenate(
        [y, np.zeros((len(x) - len(y), y.shape[1]))])
    peak = np.abs(y).max()
    if peak > 0.999:
        y *= 0.999 / peak
    return y, {"kbps": kbps, "encoder": "ffmpeg libmp3lame", "delay_taken_out_samples": lag}


def process(spec, x, rate, beats):
    """(audio, rate, info) of the piece passed through its processing."""
    kind, p, name = spec["processing"], spec["processing_param"], spec["name"]
    if kind == "clean":
        return x, rate, {}
    if kind == "reverb":
        return reverb.in_hall(name, x, rate, beats, p)[0], rate, {"rt60_s": p}
    if kind == "noise":
        return noisy.add_noise(name, x, rate, beats, p)[0], rate, {"snr_db": p,
                                                                   "noise": "pink"}
    if kind == "compression":
        y, info = compression(name, x, rate, p)
        return y, rate, info
    if kind == "mp3":
        y, info = mp3_round_trip(name, x, rate, p)
        return y, rate, info
    if kind == "48k":
        g = math.gcd(int(p), rate)
        y = resample_poly(x, int(p) // g, rate // g, axis=0)
        peak = np.abs(y).max()
        if peak > 0.999:
            y *= 0.999 / peak
        return y, int(p), {"resampler": "scipy.signal.resample_poly"}
    raise ValueError(kind)


# ---------------------------------------------------------------------------- main

def groups(spec):
    """The groups score.py reports a piece in (from its recipe)."""
    kind = spec["tempo"][0]
    out = [f"meter {spec['meter']}", "drums" if spec["drums"] else "no-drums",
           "steady" if kind == "steady" else "changing"]
    if kind != "steady":
        out.append({"rit": "ritardando", "accel": "accelerando", "step": "step-change",
                    "arc": "accel-rit", "rubato": "rubato", "ritatempo": "rit-a-tempo"}[kind])
    if spec.get("swing"):
        out.append("swing")
    if spec.get("pickup"):
        out.append("pickup")
    out += [f"processing {spec['processing']}", f"soundfont {spec['sf']}"]
    return out


def print_counts(specs, halves):
    counts = {}
    for s in specs:
        for g in ["all"] + groups(s):
            c = counts.setdefault(g, {"tune": 0, "test": 0})
            c[halves[s["name"]]] += 1
    print(f"{'group':24}{'all':>5}{'tune':>6}{'test':>6}")
    for g, c in sorted(counts.items(), key=lambda kv: (kv[0] != "all", kv[0])):
        print(f"{g:24}{c['tune'] + c['test']:>5}{c['tune']:>6}{c['test']:>6}")
    bpm = []
    for s in specs:
        t = s["tempo"]
        if t[0] == "rubato":
            bpm += [t[1] * (1 - t[2]), t[1] * (1 + t[2])]
        else:
            bpm += [t[1]] + ([t[2]] if t[0] != "steady" else [])
    print(f"tempo of the beat, BPM (ends of each curve, rubato's extremes): "
          f"{min(bpm):.0f}-{max(bpm):.0f}; "
          f"arrangements: {len({s['arrangement'] for s in specs})}")


def corpus_hash(spec, clean_recipe, delivery_seed=None):
    """The processed piece's recipe: its spec, the clean render's recipe (make-set.py's,
    which covers make-set.py's source) and CORPUS_VERSION: bump it after changing how a
    piece is processed. A delivered piece's adds the seed and delivery.py's source."""
    what = [CORPUS_VERSION, spec, clean_recipe]
    if delivery_seed is not None:  # --delivery
        what += [delivery_seed, delivery.source_digest()]
    text = json.dumps(what, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def make_piece(spec, out, half, delivery_seed=None):
    name = spec["name"]
    clean = os.path.join(out, ".clean")
    base = {k: v for k, v in spec.items()
            if k not in ("sf", "processing", "processing_param", "arrangement")}
    _, what = make_one(base, clean)
    with open(os.path.join(clean, name + ".json")) as f:
        meta = json.load(f)
    digest = corpus_hash(spec, meta["recipe"], delivery_seed)
    paths = {ext: os.path.join(out, f"{name}.{ext}") for ext in ("mid", "wav", "beats", "json")}
    if all(os.path.exists(p) for p in paths.values()):
        try:
            with open(paths["json"]) as f:
                old = json.load(f)
            if old.get("corpus_recipe") == digest:
                if old.get("half") != half:
                    old["half"] = half
                    with open(paths["json"], "w") as f:
                        json.dump(old, f, indent=1)
                return name, "kept"
        except (OSError, ValueError):
            pass
    for ext in ("mid", "beats"):
        shutil.copyfile(os.path.join(clean, f"{name}.{ext}"), paths[ext])
    x, rate = sf.read(os.path.join(clean, name + ".wav"), always_2d=True)
    with open(paths["beats"]) as f:
        beats = f.readlines()
    # --delivery: a random chain (delivery.py) in place of the recipe's one processing
    if delivery_seed is not None:
        y, rate, info = delivery.deliver(name, x, rate, delivery_seed)
        spec = dict(spec, processing="delivery")
        meta["delivery_groups"] = info["groups"]
    else:
        y, rate, info = process(spec, x, rate, beats)
    sf.write(paths["wav"] + ".partial.wav", y, rate, subtype="PCM_16")
    os.replace(paths["wav"] + ".partial.wav", paths["wav"])
    tags = list(meta["tags"])
    if spec.get("swing") and "swing" not in tags:
        tags.append("swing")
    meta.update(tags=tags, processing=spec["processing"], processing_info=info,
                sample_rate=rate, soundfont=spec["sf"], arrangement=spec["arrangement"],
                half=half, duration=round(len(y) / rate, 3), corpus_recipe=digest)
    with open(paths["json"] + ".partial", "w") as f:
        json.dump(meta, f, indent=1)
    os.replace(paths["json"] + ".partial", paths["json"])
    return name, what if what == "made" else "processed"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--only", nargs="*", help="only these pieces")
    ap.add_argument("--jobs", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    ap.add_argument("--list", action="store_true", help="print the recipes and halves")
    ap.add_argument("--counts", action="store_true",
                    help="print how many pieces each group has, in each half")
    ap.add_argument("--train", type=int, metavar="SEED",
                    help="draw a TRAINING corpus with this seed (names start with "
                         "'train<SEED>-'; in neither half of split.json; give --out)")
    ap.add_argument("--fonts", nargs="+", metavar="NAME",
                    choices=sorted({**SOUNDFONTS, **TRAIN_SOUNDFONTS}),
                    help="with --train: draw the soundfonts from these (default the corpus's "
                         "three; csound and opl3 are other samples, for training only)")
    ap.add_argument("--write-split", action="store_true",
                    help="write bench/beats/split.json from the recipes (once, before tuning)")
    ap.add_argument("--delivery", type=int, metavar="SEED",
                    help="every piece through a random delivery chain (delivery.py) drawn "
                         "with this seed, in place of its processing; give --out")
    args = ap.parse_args()
    if args.delivery is not None and (
            args.write_split or os.path.abspath(args.out) == os.path.abspath(DEFAULT_OUT)):
        sys.exit("make-corpus: --delivery writes a copy elsewhere: give --out, and no "
                 "--write-split")
    if args.train is not None:
        if args.train == SEED or args.write_split:
            sys.exit("make-corpus: --train needs a seed other than the corpus's, and no "
                     "--write-split")
        if os.path.abspath(args.out) == os.path.abspath(DEFAULT_OUT):
            sys.exit("make-corpus: --train writes elsewhere: give --out")
        all_fonts = {**SOUNDFONTS, **TRAIN_SOUNDFONTS}
        fonts = {k: all_fonts[k] for k in args.fonts} if args.fonts else SOUNDFONTS
        specs = recipes(args.train, f"train{args.train}-", fonts)
        split = read_split()
        clash = [s["name"] for s in specs if s["name"] in split]
        assert not clash, clash
        halves = {s["name"]: "train" for s in specs}
    else:
        if args.fonts:
            sys.exit("make-corpus: --fonts is for training corpora (--train) only")
        fonts = SOUNDFONTS
        specs = recipes()
    if args.write_split:
        halves = draw_split(specs)
        data = {"rule": draw_split.__doc__.strip(), "seed": SEED,
                "tune": sorted(n for n, h in halves.items() if h == "tune"),
                "test": sorted(n for n, h in halves.items() if h == "test")}
        with open(SPLIT_FILE, "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        print(f"make-corpus: {len(data['tune'])} tune, {len(data['test'])} test -> {SPLIT_FILE}")
        return
    if args.train is None:
        halves = read_split()
    unknown = [s["name"] for s in specs if s["name"] not in halves]
    if unknown:
        sys.exit(f"make-corpus: {len(unknown)} recipes are not in {SPLIT_FILE} (e.g. "
                 f"{unknown[0]}); the halves are fixed: add new pieces to split.json by hand, "
                 "or --write-split only before any tuning")
    if args.counts:
        print_counts(specs, halves)
        return
    if args.list:
        for s in specs:
            print(f"{halves[s['name']]:5} {s['name']:50} {s['meter']:5} {str(s['tempo']):42} "
                  f"{s['texture']} {s['melody']}")
        return
    missing = [p for p in fonts.values() if not os.path.exists(p)]
    if missing or not shutil.which("fluidsynth") or not shutil.which("ffmpeg"):
        sys.exit(f"make-corpus: fluidsynth, ffmpeg or a soundfont is missing ({missing}); "
                 "run bench/beats/setup.sh")
    os.makedirs(os.path.join(args.out, ".clean"), exist_ok=True)
    todo = [s for s in specs if not args.only or s["name"] in args.only]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, what in pool.map(lambda s: make_piece(s, args.out, halves[s["name"]],
                                                        args.delivery), todo):
            print(f"make-corpus: {name}: {what}", file=sys.stderr, flush=True)
    count = write_index(args.out, [s["name"] for s in specs])
    print(f"make-corpus: {count} pieces in {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
