"""Rendering a piece: its MIDI through FluidSynth (one constant tempo, so nothing drifts),
FluidSynth's trailing silence trimmed, and the four files of a piece (`make_one`: .mid,
.wav, .beats, .json), kept when their recipe is unchanged.

A piece's recipe (`recipe_hash`) is its spec, GENERATOR_VERSION and the generator's source
(pieces.py, render.py, audio.py: fingerprint.py says how the source of generator version 3
is counted); a piece whose recipe changed is rendered again.
"""

import hashlib
import json
import os
import subprocess
import tempfile

import mido
import numpy as np

from models.lib import fingerprint
from models.lib.audio import read_wav, write_wav
from models.lib.paths import FLUIDR3 as SF2
from models.lib.pieces import (COMPOUND, GENERATOR_VERSION, PPQ, RATE, beats_from_midi,
                               size_piece, tempo_map_seconds, write_beats)

RENDER_PPQ = 2000  # at 120 BPM: 1 tick = 0.25 ms


def flatten(mid_path, out_path):
    """The MIDI file for FluidSynth: the same events at the same times (to 0.25 ms), under
    one constant tempo. FluidSynth's player restarts its tick clock at each tempo event on
    a whole millisecond (its sample-block clock), so a ritardando written as 100 tempo
    events drifts by several ms; with one tempo there is nothing to accumulate."""
    mid = mido.MidiFile(mid_path)
    seconds = tempo_map_seconds(mid)
    events = []
    for track in mid.tracks:
        tick = 0
        for i, msg in enumerate(track):
            tick += msg.time
            if msg.type in ("set_tempo", "end_of_track"):
                if msg.type == "end_of_track":
                    end = tick
                continue
            events.append((tick, len(events), msg))
    flat = mido.MidiFile(type=0, ticks_per_beat=RENDER_PPQ)
    tr = mido.MidiTrack()
    flat.tracks.append(tr)
    tr.append(mido.MetaMessage("set_tempo", tempo=500000, time=0))

    def render_tick(t):
        return int(round(seconds(t) * 2 * RENDER_PPQ))  # 120 BPM: 2 quarters a second
    now = 0
    for t, _, msg in sorted(events, key=lambda e: (e[0], e[1])):
        rt = render_tick(t)
        tr.append(msg.copy(time=rt - now))
        now = rt
    tr.append(mido.MetaMessage("end_of_track", time=max(0, render_tick(end) - now)))
    flat.save(out_path)


def fluidsynth(mid_path, wav_path, extra=(), sf2=SF2):
    with tempfile.TemporaryDirectory(prefix="beats-render-") as tmp:
        flat = os.path.join(tmp, "flat.mid")
        flatten(mid_path, flat)
        subprocess.run(["fluidsynth", "-ni", *extra, "-F", wav_path, "-r", str(RATE), sf2,
                        flat], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)



def finish_audio(raw, last_onset_s):
    """Trims FluidSynth's trailing silence (never the start: times must not move):
    the end is where the level falls 60 dB under the peak, at most 3 s after the last
    onset, with a 100 ms fade; normalised to -1 dBFS."""
    x = raw
    peak = np.abs(x).max()
    loud = np.nonzero(np.abs(x).max(axis=1) > peak * 1e-3)[0]
    end = min(len(x), loud[-1] + int(0.05 * RATE) if len(loud) else len(x),
              int((last_onset_s + 3.0) * RATE))
    x = x[:end].copy()
    fade = min(len(x), int(0.1 * RATE))
    x[len(x) - fade:] *= np.linspace(1.0, 0.0, fade)[:, None]
    return x * (10 ** (-1 / 20) / peak)



def recipe_hash(spec):
    text = json.dumps([GENERATOR_VERSION, spec], sort_keys=True)
    return hashlib.sha256(text.encode() + fingerprint.generator_source()).hexdigest()[:16]


def make_one(spec, out):
    name = spec["name"]
    paths = {ext: os.path.join(out, f"{name}.{ext}") for ext in ("mid", "wav", "beats", "json")}
    digest = recipe_hash(spec)
    if all(os.path.exists(p) for p in paths.values()):
        try:
            with open(paths["json"]) as f:
                if json.load(f).get("recipe") == digest:
                    return name, "kept"
        except (OSError, ValueError):
            pass
    bld = size_piece(spec)
    mid = bld.midi()
    mid.save(paths["mid"] + ".partial")
    os.replace(paths["mid"] + ".partial", paths["mid"])
    beats = beats_from_midi(paths["mid"])
    with tempfile.TemporaryDirectory(prefix="beats-set-") as tmp:
        raw_path = os.path.join(tmp, "raw.wav")
        sf2 = spec.get("soundfont", SF2)
        # an .sf3 (Vorbis-compressed) soundfont is decoded whole at load time (10 s for
        # MuseScore_General); loading only the samples the piece plays takes 2 s
        extra = ("-o", "synth.dynamic-sample-loading=1") if sf2.endswith(".sf3") else ()
        fluidsynth(paths["mid"], raw_path, extra, sf2=sf2)
        audio = finish_audio(read_wav(raw_path), float(beats[-1][0]))
    write_wav(paths["wav"] + ".partial", audio)
    os.replace(paths["wav"] + ".partial", paths["wav"])
    write_beats(paths["beats"], beats)
    tempos = [60_000_000 / u / (bld.beat / PPQ) for t, u in bld.tempo_events()
              if t <= bld.end_tick]
    kind = spec["tempo"][0]
    tags = ["drums" if spec["drums"] else "no-drums",
            "steady" if kind == "steady" else "changing"]
    if kind != "steady":
        tags.append({"rit": "ritardando", "accel": "accelerando", "step": "step-change",
                     "arc": "accel-rit", "rubato": "rubato", "ritatempo": "rit-a-tempo"}[kind])
    if spec.get("pickup"):
        tags.append("pickup")
    if spec.get("swing"):
        tags.append("swing")
    downs = sum(1 for b in beats if b[2] == 1)
    meta = {
        "name": name, "meter": spec["meter"], "beats_per_bar": bld.bpb,
        "beat_unit": "dotted quarter" if spec["meter"] in COMPOUND else "quarter",
        "tags": tags,
        "tempo_bpm": {"start": round(tempos[0], 2), "end": round(tempos[-1], 2),
                      "min": round(min(tempos), 2), "max": round(max(tempos), 2)},
        "tempo_events": len(bld.tempo_events()),
        "pickup_beats": spec.get("pickup", 0),
        "duration": round(len(audio) / RATE, 3),
        "first_beat": round(float(beats[0][0]), 6), "last_beat": round(float(beats[-1][0]), 6),
        "beats": len(beats), "downbeats": downs, "bars": bld.bars,
        "key": spec["key"] + (" minor" if spec.get("mode") == "minor" else " major"),
        "instruments": {"texture": list(spec["texture"]), "bass": list(spec["bass"]),
                        "melody": spec["melody"], "drums": spec["drums"]},
        "humanize_ms": 1000 * bld.human, "seed": spec["seed"], "recipe": digest,
    }
    if "soundfont" in spec:
        meta["soundfont"] = os.path.basename(spec["soundfont"])
    with open(paths["json"], "w") as f:
        json.dump(meta, f, indent=1)
    return name, "made"


def write_index(out, names):
    """out/index.json: the JSON of each piece of `names` (in that order) rendered in `out`;
    returns how many it holds."""
    index = []
    for name in names:
        p = os.path.join(out, name + ".json")
        if os.path.exists(p):
            with open(p) as f:
                index.append(json.load(f))
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    return len(index)
