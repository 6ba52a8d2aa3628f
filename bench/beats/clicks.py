"""How quiet clicks just before the beats move the detected beats.

  bench/beats/run clicks [--set DIR] [--practice BIN] [--db DB] [--level DB ...] [--ahead S]
      PIECE...

For each piece of the evaluation set, and for the piece with a 2 ms white-noise burst at
each --level (dB below the piece's peak; default -40 and -30) --ahead seconds (default
0.035) before every true beat: detects the beats with `practice beats detect` (a
temporary library unless --db), matches each detected beat to the nearest true one
within 70 ms and prints the median and mean offset and the share more than 20 ms early.
A click that the onset strength takes for the note pulls the beat toward it.
Needs numpy and soundfile (bench/out/venv). bench/beats/README.md has the figures.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import soundfile as sf

from bench.beats.beatlib import PRACTICE, SET


def detected_beats(practice, db, wav):
    env = dict(os.environ, PRACTICE_DB=db)
    subprocess.run([practice, "add", wav], env=env, check=True, capture_output=True)
    subprocess.run([practice, "beats", "detect", wav, "--replace"], env=env, check=True,
                   capture_output=True)
    out = subprocess.run([practice, "beats", "export", wav, "--format", "mirex"], env=env,
                         check=True, capture_output=True, text=True).stdout
    return np.array([float(line.split()[0]) for line in out.splitlines() if line.strip()])


def offsets(truth, found):
    """Detected minus true time, in ms, for detected beats within 70 ms of a true one."""
    out = []
    for t in found:
        j = np.argmin(abs(truth - t))
        if abs(truth[j] - t) < 0.07:
            out.append((t - truth[j]) * 1000)
    return np.array(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pieces", nargs="+")
    ap.add_argument("--set", default=SET)
    ap.add_argument("--practice", default=PRACTICE)
    ap.add_argument("--db")
    ap.add_argument("--level", type=float, action="append")
    ap.add_argument("--ahead", type=float, default=0.035)
    args = ap.parse_args()
    levels = args.level or [-40.0, -30.0]
    with tempfile.TemporaryDirectory(prefix="clicks-") as tmp:
        db = args.db or os.path.join(tmp, "library.sqlite")
        for name in args.pieces:
            wav = os.path.join(args.set, name + ".wav")
            with open(os.path.join(args.set, name + ".beats")) as f:
                truth = np.array([float(line.split()[0]) for line in f])
            audio, rate = sf.read(wav)
            peak = np.abs(audio).max()
            rng = np.random.default_rng(1)
            for level in [None] + levels:
                path = wav
                if level is not None:
                    clicked = audio.copy()
                    for t in truth:
                        start = int((t - args.ahead) * rate)
                        burst = rng.standard_normal(int(0.002 * rate)) * peak * 10 ** (level / 20)
                        if clicked.ndim > 1:
                            burst = burst[:, None]
                        if start >= 0:
                            clicked[start:start + len(burst)] += burst
                    path = os.path.join(tmp, f"{name}{int(level)}dB.wav")
                    sf.write(path, clicked, rate)
                d = offsets(truth, detected_beats(args.practice, db, path))
                label = "no clicks" if level is None else f"clicks at {level:g} dB"
                print(f"{name:26s} {label:16s} matched {len(d):3d}/{len(truth)}  median "
                      f"{np.median(d):6.1f} ms  mean {d.mean():6.1f} ms  "
                      f"more than 20 ms early {np.mean(d < -20):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
