"""Makes the beat-tracking evaluation set in bench/out/beats-set/ (deterministic).

Each piece of lib/pieces.py's PIECES is MIDI written note by note (chords, bass lines,
melodies, drum patterns on channel 10), rendered by FluidSynth with the FluidR3 General MIDI
soundfont to a 44.1 kHz 16-bit stereo WAV (lib/render.py). The ground truth is read back
from the written .mid file itself: its time signatures give the beat grid (a 6/8 bar is two
dotted-quarter beats) and its tempo map gives the times, integrated exactly (fractions)
through every tempo event. Beats before the first note and after the last note onset are
left out (the music is silent there).

Output, for each piece NAME:
  NAME.mid    the MIDI file (type 0, 480 ticks per quarter)
  NAME.wav    44.1 kHz 16-bit stereo, FluidSynth's trailing silence trimmed, peak -1 dBFS
  NAME.beats  one line per beat: seconds<TAB>beat-in-bar (1 = downbeat), six decimals;
              the beats of a pickup are numbered as the tail of a bar (4/4, one beat: 4)
  NAME.json   meter, tags, tempo range, duration, ...
plus index.json (all pieces) and, with --check (run by default), check.json: the ground
truth checked against a click-only rendering and against the notes' own onsets.

  models/run set [--out DIR] [--only NAME...] [--no-check] [--force] [--seed-offset N]

Pieces whose four files exist and whose recipe is unchanged are not rendered again.
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import sys
import tempfile

import mido
import numpy as np

from models.lib import paths
from models.lib.audio import read_wav
from models.lib.pieces import CLAVES, PIECES, PPQ, RATE, beats_from_midi
from models.lib.render import fluidsynth, make_one, write_index

DEFAULT_OUT = paths.SET
SF2 = paths.FLUIDR3


def onsets_in(x, min_gap=0.08):
    """Sample-accurate onsets of isolated clicks: the first sample above 5% of the peak
    after at least min_gap of quiet (used on the click renderings, reverb off)."""
    a = np.abs(x).max(axis=1)
    thr = a.max() * 0.05
    above = np.nonzero(a > thr)[0]
    out, last = [], -10**9
    for i in above:
        if i - last > min_gap * RATE:
            # walk back to where the click rises out of what came before (the previous
            # click's tail, or silence): 2x the level 15-30 ms earlier, 2 LSB at least
            j = i
            before = a[max(0, i - int(0.03 * RATE)):max(1, i - int(0.015 * RATE))]
            floor = max(2 * before.max(initial=0), 2 / 32768)
            while j > 0 and a[j - 1] > floor and i - j < int(0.01 * RATE):
                j -= 1
            out.append(j / RATE)
        last = i
    return out


def click_check(name, out):
    """Renders only clicks (claves, reverb and chorus off) on the .mid's own beat ticks
    with the .mid's own tempo map, and compares the audio onsets with NAME.beats."""
    mid = mido.MidiFile(os.path.join(out, name + ".mid"))
    ref = [tuple(map(float, line.split())) for line in open(os.path.join(out, name + ".beats"))]
    beats = beats_from_midi(os.path.join(out, name + ".mid"))
    events = []
    tick = 0
    for msg in mid.tracks[0]:
        tick += msg.time
        if msg.is_meta and msg.type in ("set_tempo", "time_signature"):
            events.append((tick, 0, msg))
    events.append((0, 1, mido.Message("program_change", channel=9, program=0)))
    for _, t, n in beats:
        events.append((t, 3, mido.Message("note_on", channel=9, note=CLAVES,
                                          velocity=120 if n == 1 else 90)))
        events.append((t + 30, 2, mido.Message("note_off", channel=9, note=CLAVES, velocity=0)))
    events.sort(key=lambda e: (e[0], e[1]))
    click = mido.MidiFile(type=0, ticks_per_beat=mid.ticks_per_beat)
    tr = mido.MidiTrack()
    click.tracks.append(tr)
    now = 0
    for t, _, msg in events:
        tr.append(msg.copy(time=t - now))
        now = t
    tr.append(mido.MetaMessage("end_of_track", time=PPQ))
    with tempfile.TemporaryDirectory(prefix="beats-check-") as tmp:
        click.save(os.path.join(tmp, "click.mid"))
        fluidsynth(os.path.join(tmp, "click.mid"), os.path.join(tmp, "click.wav"),
                   ("-R", "0", "-C", "0"))
        found = onsets_in(read_wav(os.path.join(tmp, "click.wav")))
    ref_t = np.array([r[0] for r in ref])
    found = np.array(found)
    diffs = []
    for t in ref_t:
        j = np.argmin(np.abs(found - t))
        diffs.append(found[j] - t)
    diffs = np.array(diffs) * 1000
    # independent of our tick -> seconds code: mido's own timing of the MIDI note-ons
    t_sec, note_times = 0.0, []
    for msg in mido.MidiFile(os.path.join(out, name + ".mid")):
        t_sec += msg.time
        if msg.type == "note_on" and msg.velocity > 0:
            note_times.append(t_sec)
    note_times = np.array(sorted(note_times))
    near = [np.min(np.abs(note_times - t)) * 1000 for t in ref_t]
    downs = [d for d, r in zip(near, ref) if r[1] == 1]
    return {
        "beats": len(ref_t), "clicks_found": int(len(found)),
        "offset_ms_median": round(float(np.median(diffs)), 3),
        "offset_ms_min": round(float(diffs.min()), 3),
        "offset_ms_max": round(float(diffs.max()), 3),
        "worst_beat_s": round(float(ref_t[int(np.argmax(np.abs(diffs)))]), 3),
        "beats_with_note_within_15ms": round(float(np.mean(np.array(near) <= 15)), 3),
        "downbeats_with_note_within_15ms": round(float(np.mean(np.array(downs) <= 15)), 3)
        if downs else None,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--only", nargs="*", help="only these pieces")
    ap.add_argument("--no-check", action="store_true", help="skip the click-track check")
    ap.add_argument("--force", action="store_true", help="render every piece again")
    ap.add_argument("--jobs", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    ap.add_argument("--seed-offset", type=int, default=0,
                    help="add this to every piece's seed: the same recipes with other notes, "
                         "lengths and timing (a check set for what was tuned on the set)")
    args = ap.parse_args()
    if not os.path.exists(SF2) or not shutil.which("fluidsynth"):
        sys.exit("set: fluidsynth or the FluidR3 soundfont is missing; run bench/beats/setup.sh")
    os.makedirs(args.out, exist_ok=True)
    specs = [dict(p, seed=p["seed"] + args.seed_offset) for p in PIECES
             if not args.only or p["name"] in args.only]
    if args.force:
        for s in specs:
            p = os.path.join(args.out, s["name"] + ".json")
            if os.path.exists(p):
                os.remove(p)
    names = [p["name"] for p in PIECES]
    assert len(set(names)) == len(names)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, what in pool.map(lambda s: make_one(s, args.out), specs):
            print(f"set: {name}: {what}", file=sys.stderr, flush=True)
    count = write_index(args.out, [s["name"] for s in PIECES])
    print(f"set: {count} pieces in {args.out}", file=sys.stderr)
    if args.no_check:
        return
    check = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for s, r in zip(specs, pool.map(lambda s: click_check(s["name"], args.out), specs)):
            check[s["name"]] = r
            print(f"set: check {s['name']}: {r}", file=sys.stderr, flush=True)
    path = os.path.join(args.out, "check.json")
    old = {}
    if os.path.exists(path):
        with open(path) as f:
            old = json.load(f).get("pieces", {})
    old.update(check)
    offsets = [r["offset_ms_median"] for r in old.values()]
    worst = max(max(abs(r["offset_ms_min"]), abs(r["offset_ms_max"])) for r in old.values())
    summary = {"pieces": old,
               "summary": {"median_offset_ms": round(float(np.median(offsets)), 3),
                           "worst_abs_offset_ms": round(worst, 3),
                           "missed_clicks": sum(r["beats"] != r["clicks_found"]
                                                for r in old.values())}}
    with open(path, "w") as f:
        json.dump(summary, f, indent=1)
    print(f"set: click check: {summary['summary']}", file=sys.stderr)


if __name__ == "__main__":
    main()

