"""Renders the development corpus's MIDI again with another synthesizer and other samples:
TiMidity++ with the Freepats patches (apt: timidity, freepats), into
bench/out/beats-corpus-timidity/. No part of practice was trained or tuned on these sounds
(the beat network learned from FluidSynth renderings with three GM soundfonts), so the
difference between a detector's figures here and on the corpus is how much of them belongs
to FluidSynth's sound.

  models/run timidity [--corpus DIR] [--out DIR] [--jobs 2]

Each piece is the clean rendering of the corpus piece's .mid (no reverb, compression, noise,
MP3 or 48 kHz: those stay the corpus's), 44.1 kHz, with its leading silence kept
(`--preserve-silence`: TiMidity drops it by default, which would move every beat); its
.beats (the ground truth read from the MIDI) is copied, and its .json says
processing "clean", soundfont "freepats". Existing WAVs newer than their MIDI are kept.
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys

from models.lib import paths

OUT = paths.OUT


def render(corpus, out, name):
    mid = os.path.join(corpus, name + ".mid")
    wav = os.path.join(out, name + ".wav")
    if not (os.path.exists(wav) and os.path.getmtime(wav) > os.path.getmtime(mid)):
        subprocess.run(["timidity", "-Ow", "--preserve-silence", "-s", "44100", "-o",
                        wav + ".partial.wav", mid],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        os.replace(wav + ".partial.wav", wav)
    with open(os.path.join(corpus, name + ".json")) as f:
        meta = json.load(f)
    meta.update(processing="clean", sample_rate=44100, soundfont="freepats")
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(meta, f)
    shutil.copyfile(os.path.join(corpus, name + ".beats"), os.path.join(out, name + ".beats"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=os.path.join(OUT, "beats-corpus"))
    ap.add_argument("--out", default=os.path.join(OUT, "beats-corpus-timidity"))
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    if not shutil.which("timidity") or not os.path.isdir("/usr/share/midi/freepats"):
        sys.exit("timidity.py: needs TiMidity++ and Freepats (bench/beats/setup.sh installs them)")
    names = sorted(f[:-4] for f in os.listdir(args.corpus) if f.endswith(".mid"))
    if not names:
        sys.exit(f"timidity.py: no MIDI in {args.corpus} (models/run corpus makes the corpus)")
    os.makedirs(args.out, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(lambda n: render(args.corpus, args.out, n), names))
    print(f"timidity.py: {len(names)} pieces in {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
