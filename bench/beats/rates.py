"""One recording at three sample rates: do the maps agree? (issue 41: files converted the
ordinary way.)

  bench/beats/run rates [--bin PRACTICE_BIN] [--label NAME]
      (in bench/out/venv; needs the real set's excerpts: `bench/beats/run real-set` first)

Each excerpt of the real set (bench/out/real-set/NAME.wav, 44.1 kHz) is converted by
`ffmpeg -ar 22050` and `-ar 48000` (bench/out/real-set-rates/RATE/), and `practice beats
detect` maps all three (`detect-dir`, bench/out/real-set-rates/LABEL-RATE/). Against the
44.1 kHz map, per rate: how many excerpts change metrical level (the median beat interval
off by more than a sixth), the mean agreement (beat F of one map against the other, ±70 ms)
and how many agree below 0.8; and the mean beat F against madmom at each rate, where
madmom has the excerpt (bench/out/real-set-madmom/). Writes
bench/out/real-set-rates/LABEL.json.
"""

import argparse
import glob
import json
import os
import subprocess
import sys

import mir_eval
import numpy as np

from bench.beats.beatlib import OUT, PRACTICE, tool
from bench.beats.real_set import MADMOM_DIR, SET, load

RATES = (22050, 48000)
HERE = os.path.join(OUT, "real-set-rates")


def median_interval(times):
    return float(np.median(np.diff(times))) if len(times) > 2 else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=PRACTICE)
    ap.add_argument("--label", default="bench")
    args = ap.parse_args()
    names = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(SET, "*.wav")))
    if not names:
        sys.exit("rates: no excerpts in bench/out/real-set; run `bench/beats/run real-set` first")
    folders = {44100: SET}
    for rate in RATES:
        folders[rate] = os.path.join(HERE, str(rate))
        os.makedirs(folders[rate], exist_ok=True)
        for name in names:
            out = os.path.join(folders[rate], name + ".wav")
            if not os.path.exists(out):
                subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i",
                                os.path.join(SET, name + ".wav"), "-ar", str(rate), out],
                               check=True)
    maps = {}
    for rate, folder in folders.items():
        out = os.path.join(HERE, f"{args.label}-{rate}")
        subprocess.run(["nice", "-n", "10"] + tool("detect-dir", args.bin, folder, out)
                       + ["--half", "all"], check=True, stdout=subprocess.DEVNULL)
        maps[rate] = {n: load(os.path.join(out, n + ".beats"))[0] for n in names}

    report = {"label": args.label, "binary": args.bin, "excerpts": len(names), "rates": {}}
    madmom = {n: load(os.path.join(MADMOM_DIR, n + ".beats"))[0] for n in names}
    scored = [n for n in names if len(madmom[n])]
    for rate in (44100,) + RATES:
        row = {"f_madmom": float(np.mean([mir_eval.beat.f_measure(madmom[n], maps[rate][n])
                                          for n in scored])) if scored else None}
        if rate != 44100:
            level, agree = [], []
            for n in names:
                base, other = maps[44100][n], maps[rate][n]
                a, b = median_interval(base), median_interval(other)
                if not (a and b and 1 / 1.17 < b / a < 1.17):
                    level.append(n)
                agree.append(mir_eval.beat.f_measure(base, other))
            row.update(level_changed=level, agreement=float(np.mean(agree)),
                       below_08=int(sum(f < 0.8 for f in agree)))
        report["rates"][str(rate)] = row
        print(f"rates: {rate} Hz: "
              + (f"level changed in {len(row['level_changed'])} of {len(names)} "
                 f"({', '.join(row['level_changed'])}), agreement with 44.1 kHz "
                 f"{row['agreement']:.3f} (below 0.8 in {row['below_08']}); "
                 if rate != 44100 else "")
              + (f"beat F against madmom {row['f_madmom']:.3f} ({len(scored)} excerpts)"
                 if row["f_madmom"] is not None else "no madmom maps"))
    with open(os.path.join(HERE, f"{args.label}.json"), "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
