"""Copies of the evaluation set, each piece's audio changed one way: under pink noise
(lib/noisy.py), in a hall (lib/reverb.py) or at a wavering tempo (lib/wobble.py).

  models/run copies noisy SNR_DB | reverb RT60_S | wobble DEPTH_PERCENT [--set DIR] [--out DIR]

Writes DIR (default bench/out/beats-KIND-VALUE) with every piece of the set passed through
`change(name, samples, rate, beats, value) -> (samples, beats)`: `samples` frames ×
channels, as soundfile reads them; `beats` the ground truth's lines (`seconds<TAB>beat`),
returned as they are or moved with the audio. The audio is written as 16-bit WAV, the
.json files and index.json copied. A copy newer than its source is kept. Prints DIR.
"""

import argparse
import json
import os
import shutil

import soundfile as sf

from models.lib import noisy, paths, reverb, wobble

KINDS = {  # kind: (change, what VALUE is)
    "noisy": (noisy.add_noise, "noise level below the music's RMS, dB"),
    "reverb": (reverb.in_hall, "reverberation time, seconds"),
    "wobble": (wobble.wavering, "largest change of speed, per cent"),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=sorted(KINDS))
    ap.add_argument("value", type=float, help="; ".join(f"{k}: {v[1]}" for k, v in KINDS.items()))
    ap.add_argument("--set", default=paths.SET)
    ap.add_argument("--out")
    args = ap.parse_args()
    kind = args.kind
    change = KINDS[kind][0]
    out = args.out or os.path.join(paths.OUT, f"beats-{kind}-{args.value:g}")
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


if __name__ == "__main__":
    main()
