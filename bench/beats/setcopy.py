"""Copies of the evaluation set, each piece's audio changed one way (noise, a hall, a
wavering tempo): the command line and the loop that noisy.py, reverb.py and wobble.py
share.

`make_copies` parses `VALUE [--set DIR] [--out DIR]` and writes DIR (default
bench/out/beats-KIND-VALUE) with every piece of the set passed through
`change(name, samples, rate, beats, value) -> (samples, beats)`: `samples` frames ×
channels, as soundfile reads them; `beats` the ground truth's lines (`seconds<TAB>beat`),
returned as they are or moved with the audio. The audio is written as 16-bit WAV, the
.json files and index.json copied. A copy newer than its source is kept.
"""

import argparse
import json
import os
import shutil

import soundfile as sf

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def make_copies(description, kind, value_help, change):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("value", type=float, help=value_help)
    ap.add_argument("--set", default=os.path.join(ROOT, "bench/out/beats-set"))
    ap.add_argument("--out")
    args = ap.parse_args()
    out = args.out or os.path.join(ROOT, "bench/out", f"beats-{kind}-{args.value:g}")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(args.set, "index.json")) as f:
        pieces = json.load(f)
    for p in pieces:
        name = p["name"]
        source = os.path.join(args.set, name + ".wav")
        dest = os.path.join(out, name + ".wav")
        truth = os.path.join(out, name + ".beats")
        if (not os.path.exists(dest) or os.path.getmtime(dest) < os.path.getmtime(source)
                or not os.path.exists(truth)):
            x, rate = sf.read(source, always_2d=True)
            with open(os.path.join(args.set, name + ".beats")) as f:
                beats = f.readlines()
            y, beats = change(name, x, rate, beats, args.value)
            with open(truth, "w") as f:
                f.writelines(beats)
            sf.write(dest + ".partial.wav", y, rate, subtype="PCM_16")
            os.replace(dest + ".partial.wav", dest)
        shutil.copy(os.path.join(args.set, name + ".json"), os.path.join(out, name + ".json"))
    shutil.copy(os.path.join(args.set, "index.json"), os.path.join(out, "index.json"))
    print(out)
