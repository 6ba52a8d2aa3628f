"""Re-renders the beat network's training pieces with a plain synthesizer of our own, the
training set's second synthesizer (deterministic): writes bench/out/beats-train-plain/.

The training pieces (models/run corpus --train: bench/out/beats-train, beats-train3) are all
rendered by FluidSynth from General MIDI soundfonts: sampled instruments, nearly all with
sharp attacks. A network trained on them alone hears almost nothing in plain synthesised
tones, and fires on every eighth note of a texture it does not know. Here the same MIDI
files are played by plain oscillators, so that the network also hears plain tones, soft
attacks, tremolo and vibrato, legato lines and a synthetic drum kit, on the same music with
the same ground truth. Nothing of the tests' generator, nor any piece of the development
corpus (bench/out/beats-corpus), is used: the script reads only pieces named train*, and
will not write into the corpus.

Per piece and per MIDI channel a timbre is drawn at random, seeded by the piece's name and
the channel: a waveform (sine, triangle, a few decaying harmonics, optionally darkening as
the note sounds, a band-limited saw or square: all additive, every harmonic below
Nyquist, read from a wavetable), sometimes through a low-pass, sometimes as a detuned pair;
an envelope (attack log-uniform over 2-60 ms, or over 60-300 ms for 40 % of the channels;
decay; sustain 0.2-1.0; release 20-400 ms), legato for a quarter of the channels (each note
held until the channel's next onset); vibrato (4.5-7 Hz, up to ±40 cents) and tremolo
(3-9 Hz, depth up to 0.6) for some; a velocity curve; a gain of ±9 dB and a place in the
stereo field. The whole piece is tuned up to ±30 cents off A4 = 440 Hz. Channel 10 is a
drum kit drawn per piece: kick (a sine falling in pitch), snare (band-passed noise and a
tone), hats and cymbals (high-passed noise, short or long), toms (decaying sines falling a
little in pitch), everything else a short band-passed noise click; its level is drawn per
piece, sometimes well under the pitched parts. The mix is normalised to -1 dBFS; about a
third of the pieces are then put in a hall (lib/reverb.py's, RT60 0.8-2.2 s) and about a sixth
under pink noise (lib/noisy.py's, 20-35 dB below the music's RMS), independently.

Times: every note starts on the sample of its note-on, converted from ticks through the
MIDI file's tempo map (lib/pieces.py's tempo_map_seconds, exact); the leading silence is
kept, so the piece's .beats hold as they are. The file ends 50 ms after its last sound,
at most 3 s after its last onset (a 100 ms fade).

  models/run plain-synth [--sources DIR ...] [--out DIR] [--only NAME ...] [--jobs 1]
      [--force]

Output, per source piece NAME: plain-NAME.wav (44.1 kHz 16-bit stereo), plain-NAME.beats
(the source's, byte for byte), plain-NAME.mid (a copy) and plain-NAME.json (the source's,
with "name", "source", "soundfont": "plain-synth", "processing" (clean, reverb, noise or
reverb+noise), "processing_info", "duration", "sample_rate" and "plain_synth": the timbres
drawn); DIR/index.json lists the pieces. A piece whose files exist and whose recipe (this
script's source and the piece's MIDI) is unchanged is kept. Needs numpy, scipy, soundfile
and mido (bench/out/venv). Then dump the network's bands with `bench/beats/run detect-dir
--features` and add DIR:FEATURES to `models/run train-network`'s --train.
"""

import argparse
import bisect
import concurrent.futures
import hashlib
import json
import math
import os
import shutil
import sys
import time

import mido
import numpy as np
import soundfile as sf
from scipy.signal import butter, sosfilt, sosfiltfilt

from models.lib import fingerprint, noisy, paths, reverb
from models.lib.pieces import tempo_map_seconds

RATE = 44100
NYQUIST = RATE / 2
DEFAULT_SOURCES = paths.TRAIN_SETS
DEFAULT_OUT = paths.PLAIN
CORPUS = paths.CORPUS
PREFIX = "plain-"
TABLE = 4096          # wavetable length (one period)
MAX_HARMONICS = 48
PEAK = 10 ** (-1 / 20)
SOFT_SHARE = 0.4      # channels whose attack is 60-300 ms
REVERB_SHARE, NOISE_SHARE = 1 / 3, 1 / 6
DRUM_CHANNEL = 9


def seed_of(*parts):
    text = "plain-synth|" + "|".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def log_uniform(rng, lo, hi):
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


# ---------------------------------------------------------------------------- MIDI

def read_midi(path):
    """(notes per channel {channel: [(on_s, off_s, key, velocity)]}, channel volume (cc7)
    and pan (cc10) at their first setting, last onset in seconds)."""
    mid = mido.MidiFile(path)
    seconds = tempo_map_seconds(mid)
    events = []
    for n, track in enumerate(mid.tracks):
        tick = 0
        for k, msg in enumerate(track):
            tick += msg.time
            events.append((tick, (n, k), msg))
    events.sort(key=lambda e: (e[0], e[1]))
    sounding, notes, volume, pan = {}, {}, {}, {}
    for tick, _, msg in events:
        if msg.type == "note_on" and msg.velocity > 0:
            sounding.setdefault((msg.channel, msg.note), []).append((tick, msg.velocity))
        elif msg.type in ("note_on", "note_off"):
            stack = sounding.get((msg.channel, msg.note))
            if stack:
                on, vel = stack.pop(0)
                notes.setdefault(msg.channel, []).append(
                    (float(seconds(on)), float(seconds(tick)), msg.note, vel))
        elif msg.type == "control_change" and msg.control == 7:
            volume.setdefault(msg.channel, msg.value)
        elif msg.type == "control_change" and msg.control == 10:
            pan.setdefault(msg.channel, msg.value)
    end = max(tick for tick, _, _ in events) if events else 0
    for (channel, key), stack in sounding.items():  # never released: held to the end
        for on, vel in stack:
            notes.setdefault(channel, []).append((float(seconds(on)), float(seconds(end)), key,
                                                  vel))
    for ch in notes:
        notes[ch].sort()
    last = max((n[0] for ns in notes.values() for n in ns), default=0.0)
    return notes, volume, pan, last


# ---------------------------------------------------------------------------- pitched voices

def harmonic_amps(kind, rng):
    """Amplitudes (and signs) of harmonics 1..MAX_HARMONICS of the waveform kind."""
    k = np.arange(1, MAX_HARMONICS + 1, dtype=float)
    if kind == "sine":
        a = (k == 1).astype(float)
    elif kind == "triangle":
        a = np.where(k % 2 == 1, np.where((k - 1) % 4 == 0, 1.0, -1.0) / k ** 2, 0.0)
    elif kind == "saw":
        a = 1 / k
    elif kind == "square":
        a = np.where(k % 2 == 1, 1 / k, 0.0)
    else:  # "harmonics": a few, decaying, each level jittered
        count = int(rng.integers(2, 9))
        ratio = rng.uniform(0.25, 0.8)
        a = np.where(k <= count, ratio ** (k - 1) * rng.uniform(0.5, 1.5, len(k)), 0.0)
        a[0] = 1.0
    return a


def wavetable(amps, top):
    """One period of the harmonics of `amps` up to `top` (at least the fundamental)."""
    phase = np.arange(TABLE) / TABLE
    table = np.zeros(TABLE)
    for h in range(max(1, top)):
        if amps[h] != 0:
            table += amps[h] * np.sin(2 * np.pi * (h + 1) * phase)
    table /= max(np.abs(table).max(), 1e-9)
    return np.append(table, table[0])  # for the interpolation's last step


def lookup(table, cycles):
    pos = (cycles - np.floor(cycles)) * TABLE
    i = pos.astype(np.int64)
    frac = pos - i
    return table[i] * (1 - frac) + table[i + 1] * frac


def draw_voice(rng, notes):
    kind = str(rng.choice(["sine", "triangle", "harmonics", "saw", "square"],
                          p=[0.2, 0.18, 0.26, 0.2, 0.16]))
    v = {"wave": kind}
    v["attack_s"] = (log_uniform(rng, 0.06, 0.3) if rng.random() < SOFT_SHARE
                     else log_uniform(rng, 0.002, 0.06))
    v["attack_curve"] = float(rng.uniform(0.6, 2.0))  # level = (t / attack) ** curve
    v["decay_s"] = log_uniform(rng, 0.05, 1.5)
    v["sustain"] = float(rng.uniform(0.2, 1.0))
    v["release_s"] = log_uniform(rng, 0.02, 0.4)
    v["legato"] = bool(rng.random() < 0.25)
    v["darkening_s"] = (log_uniform(rng, 0.08, 1.5)
                        if kind in ("harmonics", "saw", "square") and rng.random() < 0.4
                        else None)
    keys = np.array([n[2] for n in notes], dtype=float)
    centre = 440 * 2 ** ((np.median(keys) - 69) / 12) if len(keys) else 440.0
    v["lowpass_hz"] = (float(min(12000, max(250, centre * log_uniform(rng, 1.5, 12))))
                       if kind != "sine" and rng.random() < 0.4 else None)
    v["detune_cents"] = float(rng.uniform(4, 18)) if rng.random() < 0.3 else None
    v["vibrato"] = ({"hz": float(rng.uniform(4.5, 7)), "cents": float(rng.uniform(5, 40)),
                     "delay_s": float(rng.uniform(0, 0.4))} if rng.random() < 0.3 else None)
    v["tremolo"] = ({"hz": float(rng.uniform(3, 9)), "depth": float(rng.uniform(0.15, 0.6))}
                    if rng.random() < 0.3 else None)
    v["velocity_gamma"] = float(rng.uniform(1.0, 2.5))
    v["gain_db"] = float(rng.uniform(-9, 9))
    v["pan"] = float(rng.uniform(-0.8, 0.8))
    return v


def envelope(v, held, length):
    """The voice's envelope over `length` samples, the key released after `held`."""
    t = np.arange(length) / RATE
    a, d, s = v["attack_s"], v["decay_s"], v["sustain"]

    def hold(t):
        rise = np.clip(t / a, 0, 1) ** v["attack_curve"]
        fall = s + (1 - s) * np.exp(-np.maximum(t - a, 0) / d)
        return np.where(t < a, rise, fall)

    env = hold(t)
    if held < length:
        level = float(hold(np.array([held / RATE]))[0])
        u = (t[held:] - held / RATE) / v["release_s"]
        env[held:] = level * np.clip(1 - u, 0, 1) ** 2
    return env


def render_voice(v, notes, tuning_cents, total, rng):
    """The channel's mono signal, `total` samples."""
    out = np.zeros(total)
    amps = harmonic_amps(v["wave"], rng)
    dull = amps.copy()
    dull[2:] = 0  # the darkened sound: two harmonics
    vib = v["vibrato"]
    headroom = 2 ** ((vib["cents"] if vib else 0) / 1200) * 2 ** ((v["detune_cents"] or 0) / 1200)
    tables = {}
    onsets = [n[0] for n in notes]
    for i, (on, off, key, vel) in enumerate(notes):
        start = int(round(on * RATE))
        if start >= total:
            continue
        end_s = off
        if v["legato"]:  # held until the channel's next onset (chords: the next chord)
            j = bisect.bisect_right(onsets, on + 0.005)
            end_s = max(off, onsets[j]) if j < len(onsets) else off
        held = max(1, int(round((end_s - on) * RATE)))
        length = min(held + int(v["release_s"] * RATE) + 1, total - start)
        f0 = 440 * 2 ** ((key - 69 + tuning_cents / 100) / 12)
        top = int(min(MAX_HARMONICS, NYQUIST * 0.92 / (f0 * headroom)))
        if top not in tables:
            tables[top] = (wavetable(amps, top), wavetable(dull, min(top, 2)))
        bright, dark = tables[top]
        t = np.arange(length) / RATE
        if vib:
            ramp = np.clip((t - vib["delay_s"]) / 0.2, 0, 1)
            cents = vib["cents"] * ramp * np.sin(2 * np.pi * vib["hz"] * t + rng.uniform(0, 6.3))
            cycles = np.cumsum(f0 * 2 ** (cents / 1200)) / RATE
        else:
            cycles = f0 * t
        cycles = cycles + rng.random()
        x = lookup(bright, cycles)
        if v["darkening_s"]:
            w = np.exp(-t / v["darkening_s"])
            x = x * w + lookup(dark, cycles) * (1 - w)
        if v["detune_cents"]:
            x = 0.5 * (x + lookup(bright, cycles * 2 ** (v["detune_cents"] / 1200)
                                  + rng.random()))
        amp = (vel / 127) ** v["velocity_gamma"]
        out[start:start + length] += amp * x * envelope(v, held, length)
    if v["lowpass_hz"]:
        out = sosfiltfilt(butter(2, v["lowpass_hz"], fs=RATE, output="sos"), out)
    if v["tremolo"]:
        tr = v["tremolo"]
        t = np.arange(total) / RATE
        out *= 1 - tr["depth"] * (0.5 + 0.5 * np.sin(2 * np.pi * tr["hz"] * t
                                                     + rng.uniform(0, 6.3)))
    return out


# ---------------------------------------------------------------------------- drums

KICKS, SNARES = (35, 36), (38, 40)
CLOSED_HATS, OPEN_HATS = (42, 44), (46,)
CYMBALS, RIDES = (49, 52, 55, 57), (51, 53, 59)
TOMS = (41, 43, 45, 47, 48, 50)


def decay(n, tau):
    return np.exp(-np.arange(n) / (tau * RATE))


def band_noise(rng, n, lo=None, hi=None, order=2):
    x = rng.standard_normal(n)
    if lo and hi:
        x = sosfilt(butter(order, [lo, min(hi, NYQUIST * 0.95)], "bandpass", fs=RATE,
                           output="sos"), x)
    elif lo:
        x = sosfilt(butter(order, lo, "highpass", fs=RATE, output="sos"), x)
    elif hi:
        x = sosfilt(butter(order, hi, "lowpass", fs=RATE, output="sos"), x)
    return x / max(np.abs(x).max(), 1e-9)


def ramp_in(x, width_s=0.0005):
    n = min(len(x), max(1, int(width_s * RATE)))
    x[:n] *= np.linspace(0, 1, n, endpoint=False)
    return x


def draw_kit(rng):
    """Per drum kind: parameters, drawn once per piece."""
    return {
        "kick": {"hi_hz": rng.uniform(90, 220), "lo_hz": rng.uniform(38, 65),
                 "sweep_s": log_uniform(rng, 0.008, 0.05), "decay_s": log_uniform(rng, 0.06, 0.3),
                 "click": rng.uniform(0, 0.3)},
        "snare": {"tone_hz": rng.uniform(140, 260), "tone_s": rng.uniform(0.03, 0.15),
                  "lo_hz": rng.uniform(600, 2500), "hi_hz": rng.uniform(4000, 10000),
                  "noise_s": log_uniform(rng, 0.05, 0.25), "noise": rng.uniform(0.4, 0.9)},
        "hat": {"hp_hz": rng.uniform(5000, 10000), "closed_s": log_uniform(rng, 0.012, 0.06),
                "open_s": log_uniform(rng, 0.12, 0.5)},
        "cymbal": {"hp_hz": rng.uniform(2500, 7000), "decay_s": log_uniform(rng, 0.4, 1.5),
                   "ride_s": log_uniform(rng, 0.25, 1.0), "bell": rng.uniform(0, 0.4),
                   "bell_hz": rng.uniform(2500, 5000)},
        "tom": {"low_hz": rng.uniform(70, 120), "spread": rng.uniform(0.7, 1.6),
                "decay_s": log_uniform(rng, 0.08, 0.4), "drop": rng.uniform(0.0, 0.25)},
        "click": {"centre_hz": log_uniform(rng, 800, 8000), "decay_s": log_uniform(rng, 0.008, 0.06)},
        "levels_db": {k: float(rng.uniform(-6, 3))
                      for k in ("kick", "snare", "hat", "cymbal", "tom", "click")},
        "velocity_gamma": float(rng.uniform(0.8, 2.0)),
    }


def drum_sound(key, kit, rng):
    """(kind, one hit of drum `key` at full velocity)."""
    if key in KICKS:
        p = kit["kick"]
        n = int(5 * p["decay_s"] * RATE)
        t = np.arange(n) / RATE
        f = p["lo_hz"] + (p["hi_hz"] - p["lo_hz"]) * np.exp(-t / p["sweep_s"])
        x = np.sin(2 * np.pi * np.cumsum(f) / RATE) * decay(n, p["decay_s"])
        m = int(0.004 * RATE)
        x[:m] += p["click"] * band_noise(rng, m, hi=4000) * decay(m, 0.001)
        return "kick", ramp_in(x)
    if key in SNARES:
        p = kit["snare"]
        n = int(5 * max(p["noise_s"], p["tone_s"]) * RATE)
        t = np.arange(n) / RATE
        tone = np.sin(2 * np.pi * p["tone_hz"] * t) * decay(n, p["tone_s"])
        noise = band_noise(rng, n, p["lo_hz"], p["hi_hz"]) * decay(n, p["noise_s"])
        return "snare", ramp_in(p["noise"] * noise + (1 - p["noise"]) * tone)
    if key in CLOSED_HATS or key in OPEN_HATS:
        p = kit["hat"]
        tau = p["open_s"] if key in OPEN_HATS else p["closed_s"] * (0.6 if key == 44 else 1)
        n = int(5 * tau * RATE)
        return "hat", ramp_in(band_noise(rng, n, lo=p["hp_hz"]) * decay(n, tau))
    if key in CYMBALS or key in RIDES:
        p = kit["cymbal"]
        tau = p["ride_s"] if key in RIDES else p["decay_s"]
        n = int(4 * tau * RATE)
        x = band_noise(rng, n, lo=p["hp_hz"]) * decay(n, tau)
        if key in RIDES and p["bell"]:
            t = np.arange(n) / RATE
            bell = sum(np.sin(2 * np.pi * p["bell_hz"] * r * t) for r in (1.0, 1.48, 2.11))
            x += p["bell"] * bell / 3 * decay(n, tau / 2)
        return "cymbal", ramp_in(x)
    if key in TOMS:
        p = kit["tom"]
        f0 = p["low_hz"] * 2 ** (TOMS.index(key) * p["spread"] * 3 / 12)
        n = int(5 * p["decay_s"] * RATE)
        t = np.arange(n) / RATE
        f = f0 * (1 + p["drop"] * np.exp(-t / 0.05))
        x = np.sin(2 * np.pi * np.cumsum(f) / RATE) * decay(n, p["decay_s"])
        m = int(0.003 * RATE)
        x[:m] += 0.2 * band_noise(rng, m, hi=5000)
        return "tom", ramp_in(x)
    p = kit["click"]
    c = p["centre_hz"] * 2 ** (((key * 7) % 12 - 6) / 12)  # other keys, other colours
    n = int(5 * p["decay_s"] * RATE)
    return "click", ramp_in(band_noise(rng, n, c / 1.6, c * 1.6) * decay(n, p["decay_s"]))


def render_drums(notes, kit, total, rng):
    out = np.zeros(total)
    sounds = {}
    for on, _, key, vel in notes:
        start = int(round(on * RATE))
        if start >= total:
            continue
        if key not in sounds:  # three takes of each, chosen at random per hit
            takes = [drum_sound(key, kit, rng) for _ in range(3)]
            sounds[key] = (takes[0][0], [t[1] for t in takes])
        kind, takes = sounds[key]
        x = takes[int(rng.integers(len(takes)))]
        amp = (vel / 127) ** kit["velocity_gamma"] * 10 ** (kit["levels_db"][kind] / 20)
        n = min(len(x), total - start)
        out[start:start + n] += amp * x[:n]
    return out


# ---------------------------------------------------------------------------- a piece

def sound_end(notes, voices, kit):
    """The last sample any note can sound to (before the length cap)."""
    end = 0.0
    for ch, ns in notes.items():
        tail = 4 * kit["cymbal"]["decay_s"] if ch == DRUM_CHANNEL else voices[ch]["release_s"]
        end = max(end, max(n[1] for n in ns) + tail)
    return end


def render(name, mid_path):
    """(stereo samples, info for the .json) of the piece's MIDI file."""
    if not name.startswith("train"):
        raise SystemExit(f"plain-synth: {name}: not a training piece (train*); refused")
    notes, volume, pan, last = read_midi(mid_path)
    rng = np.random.default_rng(seed_of(name))
    tuning = float(rng.uniform(-30, 30))
    drum_db = float(rng.uniform(-20, -8) if rng.random() < 0.3 else rng.uniform(-6, 3))
    processing = []
    if rng.random() < REVERB_SHARE:
        processing.append(("reverb", float(rng.choice([0.8, 1.2, 1.6, 2.2]))))
    if rng.random() < NOISE_SHARE:
        processing.append(("noise", float(rng.uniform(20, 35))))
    voices = {ch: draw_voice(np.random.default_rng(seed_of(name, ch, "voice")), ns)
              for ch, ns in notes.items() if ch != DRUM_CHANNEL}
    kit = draw_kit(np.random.default_rng(seed_of(name, "kit")))
    end = min(sound_end(notes, voices, kit) + 0.05, last + 3.0)
    total = int(math.ceil(end * RATE))
    mix = np.zeros((total, 2))
    for ch in sorted(notes):
        crng = np.random.default_rng(seed_of(name, ch, "notes"))
        if ch == DRUM_CHANNEL:
            x = render_drums(notes[ch], kit, total, crng)
            gain_db, where = drum_db, (pan.get(ch, 64) - 64) / 64 * 0.5
        else:
            v = voices[ch]
            x = render_voice(v, notes[ch], tuning, total, crng)
            gain_db, where = v["gain_db"], 0.5 * v["pan"] + 0.5 * (pan.get(ch, 64) - 64) / 64
        peak = np.abs(x).max()
        if peak == 0:
            continue
        # each part at its own level: the channel's peak, its gain, its MIDI volume
        g = 10 ** (gain_db / 20) * (volume.get(ch, 100) / 127) ** 2 / peak
        angle = (np.clip(where, -1, 1) + 1) * np.pi / 4
        mix[:, 0] += g * math.cos(angle) * x
        mix[:, 1] += g * math.sin(angle) * x
    fade = min(total, int(0.1 * RATE))
    mix[total - fade:] *= np.linspace(1, 0, fade)[:, None]
    mix *= PEAK / max(np.abs(mix).max(), 1e-9)
    info = {}
    for kind, p in processing:  # as corpus.py's process()
        if kind == "reverb":
            mix = reverb.in_hall(name, mix, RATE, [], p)[0]
            info["rt60_s"] = p
        else:
            mix = noisy.add_noise(name, mix, RATE, [], p)[0]
            info.update(snr_db=round(p, 1), noise="pink")
    kinds = "+".join(k for k, _ in processing) or "clean"
    synth = {"tuning_cents": tuning, "drums_gain_db": drum_db,
             "voices": {str(ch): v for ch, v in voices.items()}}
    if DRUM_CHANNEL in notes:
        synth["kit"] = kit
    return mix, kinds, info, rounded(synth)


def rounded(x):
    """x (dicts, lists, floats) with its floats to four decimals, for the .json."""
    if isinstance(x, dict):
        return {k: rounded(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [rounded(v) for v in x]
    if isinstance(x, (float, np.floating)):
        return round(float(x), 4)
    return x


SOURCE_HASH = fingerprint.plain_synth_hash()


def make_piece(src_dir, name, out, force=False):
    dest = PREFIX + name
    paths = {ext: os.path.join(out, f"{dest}.{ext}") for ext in ("wav", "beats", "json", "mid")}
    mid = os.path.join(src_dir, name + ".mid")
    digest = hashlib.sha256(SOURCE_HASH.encode() + open(mid, "rb").read()).hexdigest()[:16]
    if not force and all(os.path.exists(p) for p in paths.values()):
        try:
            with open(paths["json"]) as f:
                if json.load(f).get("plain_recipe") == digest:
                    return dest, "kept", 0.0
        except (OSError, ValueError):
            pass
    t0 = time.monotonic()
    mix, kinds, info, synth = render(name, mid)
    shutil.copyfile(os.path.join(src_dir, name + ".beats"), paths["beats"])
    shutil.copyfile(mid, paths["mid"])
    sf.write(paths["wav"] + ".partial.wav", mix, RATE, subtype="PCM_16")
    os.replace(paths["wav"] + ".partial.wav", paths["wav"])
    with open(os.path.join(src_dir, name + ".json")) as f:
        meta = json.load(f)
    meta.update(name=dest, source=name, soundfont="plain-synth", processing=kinds,
                processing_info=info, sample_rate=RATE, duration=round(len(mix) / RATE, 3),
                plain_synth=synth, plain_recipe=digest)
    with open(paths["json"] + ".partial", "w") as f:
        json.dump(meta, f, indent=1)
    os.replace(paths["json"] + ".partial", paths["json"])
    return dest, kinds, time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sources", nargs="+", default=DEFAULT_SOURCES,
                    help="training directories (pieces train*: NAME.mid, .beats, .json)")
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--only", nargs="+", help="these source pieces only")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--force", action="store_true", help="render kept pieces again")
    args = ap.parse_args()
    out = os.path.realpath(args.out)
    corpus = os.path.realpath(CORPUS)
    if out == corpus or out.startswith(corpus + os.sep):
        raise SystemExit("plain-synth: will not write into the development corpus")
    work = []
    for src in args.sources:
        if os.path.realpath(src) == corpus:
            raise SystemExit("plain-synth: the development corpus is never trained on")
        for f in sorted(os.listdir(src)):
            if not f.endswith(".mid"):
                continue
            name = f[:-4]
            if not name.startswith("train"):
                raise SystemExit(f"plain-synth: {src}/{f}: not a training piece (train*); "
                                 "refused")
            if args.only and name not in args.only:
                continue
            if not all(os.path.exists(os.path.join(src, name + e)) for e in (".beats", ".json")):
                print(f"plain-synth: {name}: no .beats or .json; skipped", file=sys.stderr)
                continue
            work.append((src, name))
    os.makedirs(out, exist_ok=True)
    t0 = time.monotonic()
    counts = {}
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        for dest, what, secs in pool.map(make_piece, *zip(*work), [out] * len(work),
                                         [args.force] * len(work)):
            counts[what] = counts.get(what, 0) + 1
            print(f"plain-synth: {dest}: {what} ({secs:.1f} s)", file=sys.stderr, flush=True)
    index = []
    for f in sorted(os.listdir(out)):
        if f.startswith(PREFIX) and f.endswith(".json"):
            with open(os.path.join(out, f)) as g:
                meta = json.load(g)
            meta.pop("plain_synth", None)
            index.append(meta)
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(f"plain-synth: {len(work)} pieces ({counts}) in {time.monotonic() - t0:.0f} s "
          f"-> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
