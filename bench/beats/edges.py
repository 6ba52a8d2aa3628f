"""Where detected beat maps begin and end: excerpts, and beats outside the music.

  bench/beats/run edges excerpts [--set DIR] [--practice BIN] [--cuts N] [PIECE...]
  bench/beats/run edges outside REFDIR DETDIR

excerpts: cuts N passages (default 3) out of each piece (default: the twelve in PIECES),
as a musician exports one: from a seeded random point between its third and its
twelfth-from-last beat to another at least eight beats later and before its
fourth-from-last, so that both ends fall in the middle of the music. Detects each
excerpt's beats with `practice beats detect` (a temporary library) and compares the
first detected beat with the excerpt's first true beat: more than 70 ms early (a beat
invented before the music's first) or late (the first beat lost) shifts every bar
number. Likewise the last beat: late (beats invented after the cut) or early (the last
beats lost). A true beat up to 70 ms outside the cut counts as well: a detected beat on
the first or last sample may be that one, whose attack the cut took.

outside: for detections already made (DETDIR/NAME.beats against REFDIR/NAME.beats), how
many pieces have beats more than 70 ms before the first true beat or after the last (in
the silence or noise around the music), and how many true beats at either end were
missed.

Needs numpy and soundfile (bench/out/venv). bench/beats/README.md has the figures.
"""

import argparse
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
import soundfile as sf

from bench.beats.beatlib import PRACTICE, SET
from bench.beats.score import read_beats

WINDOW = 0.07
# The excerpts' default pieces: every meter, with drums and without, steady tempo.
PIECES = ["44-pop-drums", "44-ballad-piano", "34-viennese-waltz", "68-jig-fiddle", "24-polka",
          "44-hymn-organ", "44-fingerpick-guitar", "34-minuet-harpsichord", "44-swing-jazz",
          "68-slow-rock-drums", "24-samba", "44-disco"]


def detected(practice, db, wav):
    env = dict(os.environ, PRACTICE_DB=db)
    subprocess.run([practice, "add", wav], env=env, check=True, capture_output=True)
    subprocess.run([practice, "beats", "detect", wav], env=env, check=True, capture_output=True)
    out = subprocess.run([practice, "beats", "export", wav, "--format", "mirex"], env=env,
                         check=True, capture_output=True, text=True).stdout
    times = [float(line.split()[0]) for line in out.splitlines() if line.strip()]
    return times[0], times[-1]


def verdict(error):
    return "early" if error < -WINDOW else "late" if error > WINDOW else ""


def excerpts(args):
    rng = np.random.default_rng(11)
    counts = {"first early": 0, "first late": 0, "last early": 0, "last late": 0}
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "library.sqlite")
        for name in args.pieces or PIECES:
            audio, rate = sf.read(os.path.join(args.set, name + ".wav"))
            truth = read_beats(os.path.join(args.set, name + ".beats"))[0]
            for k in range(args.cuts):
                cut = rng.uniform(truth[2], truth[-12])
                end = rng.uniform(truth[np.searchsorted(truth, cut) + 8], truth[-4])
                start, stop = int(cut * rate), int(end * rate)
                wav = os.path.join(tmp, f"{name}-{k}.wav")
                sf.write(wav, audio[start:stop], rate, subtype="PCM_16")
                inside = truth[(truth >= start / rate) & (truth < stop / rate)] - start / rate
                near = truth[(truth >= start / rate - WINDOW) & (truth < stop / rate + WINDOW)]
                near = near - start / rate
                first, last = inside[0], inside[-1]
                found_first, found_last = detected(args.practice, db, wav)

                def error(found, expected, candidates):
                    return 0.0 if np.any(np.abs(candidates - found) <= WINDOW) else found - expected

                a = verdict(error(found_first, first, near[near <= first]))
                b = verdict(error(found_last, last, near[near >= last]))
                if a:
                    counts["first " + a] += 1
                if b:
                    counts["last " + b] += 1
                total += 1
                print(f"{name:26s} {cut:7.3f}-{end:7.3f} s  first beat {first:6.3f} s, "
                      f"detected {found_first:6.3f} s {a:5s}  last {last:6.3f} s, detected "
                      f"{found_last:6.3f} s {b}")
    print(f"{total} excerpts, first or last beat more than {WINDOW * 1000:.0f} ms off: "
          + ", ".join(f"{key} {n}" for key, n in counts.items()))


def outside(args):
    pieces = before = after = 0
    n_before = n_after = lost_start = lost_end = 0
    for ref in sorted(glob.glob(os.path.join(args.refdir, "*.beats"))):
        det = os.path.join(args.detdir, os.path.basename(ref))
        if not os.path.exists(det) or os.path.getsize(det) == 0:
            continue
        truth, found = read_beats(ref)[0], read_beats(det)[0]
        pieces += 1
        b = int((found < truth[0] - WINDOW).sum())
        a = int((found > truth[-1] + WINDOW).sum())
        before += b > 0
        after += a > 0
        n_before += b
        n_after += a
        lost_start += int((truth < found[0] - WINDOW).sum())
        lost_end += int((truth > found[-1] + WINDOW).sum())
    print(f"{pieces} pieces: beats before the music in {before} ({n_before} beats), after "
          f"its last beat in {after} ({n_after} beats); true beats missed at the start "
          f"{lost_start}, at the end {lost_end}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    ex = sub.add_parser("excerpts")
    ex.add_argument("pieces", nargs="*")
    ex.add_argument("--set", default=SET)
    ex.add_argument("--practice", default=PRACTICE)
    ex.add_argument("--cuts", type=int, default=3)
    out = sub.add_parser("outside")
    out.add_argument("refdir")
    out.add_argument("detdir")
    args = ap.parse_args()
    (excerpts if args.mode == "excerpts" else outside)(args)


if __name__ == "__main__":
    sys.exit(main())
