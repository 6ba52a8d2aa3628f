"""madmom's neural beat and downbeat tracker on WAV files: the peer for downbeats.

  bench/beats/run madmom OUTDIR WAV...     (in bench/out/madmom-venv)

madmom 0.16.1 as its own `DBNDownBeatTracker` program runs it: RNNDownBeatProcessor
(Böck, Krebs and Widmer 2016: bidirectional LSTMs on three spectrograms, trained on real
recordings) and DBNDownBeatTrackingProcessor with the program's defaults, bars of 3 or 4
beats, 100 frames a second. Writes OUTDIR/NAME.beats (`time<TAB>beat-in-bar`, as the
program writes them; score.py reads that as beats with downbeats) and prints one JSON
line per file: {"name", "cpu_s", "wall_s"} (CPU time of this process for that file:
loading the audio, the networks and the DBN; the networks are loaded once, before).
"""

import json
import os
import sys
import time
import warnings

import numpy as np

# madmom 0.16.1 imports pkg_resources (deprecated) and, picking the best bar length, builds
# a ragged array (deprecated in numpy); both harmless here.
warnings.filterwarnings("ignore", category=UserWarning, message="pkg_resources")
warnings.filterwarnings("ignore", category=np.VisibleDeprecationWarning)
from madmom.features.downbeats import (  # noqa: E402
    DBNDownBeatTrackingProcessor, RNNDownBeatProcessor)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    rnn = RNNDownBeatProcessor()
    dbn = DBNDownBeatTrackingProcessor(beats_per_bar=[3, 4], fps=100)
    for wav in sys.argv[2:]:
        name = os.path.splitext(os.path.basename(wav))[0]
        c0, t0 = time.process_time(), time.monotonic()
        beats = dbn(rnn(wav))
        cpu, wall = time.process_time() - c0, time.monotonic() - t0
        path = os.path.join(outdir, name + ".beats")
        with open(path + ".partial", "w") as f:
            for t, number in beats:
                f.write(f"{t:.6f}\t{int(number)}\n")
        os.replace(path + ".partial", path)
        print(json.dumps({"name": name, "cpu_s": cpu, "wall_s": wall}), flush=True)


if __name__ == "__main__":
    main()
