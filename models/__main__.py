"""models/run COMMAND [ARGS...] (or `python3 -m models` from the repository root): the
generators and trainers of models/, each with the Python it needs."""

import sys

from models.lib.paths import TRAIN_PY, VENV_PY
from models.lib.runner import Command, run

COMMANDS = {
    "set": Command("models.set", VENV_PY,
                   "the evaluation set, bench/out/beats-set (FluidSynth, FluidR3)"),
    "corpus": Command("models.corpus", VENV_PY,
                      "the development corpus, bench/out/beats-corpus; --train SEED: a "
                      "training corpus"),
    "copies": Command("models.copies", VENV_PY,
                      "the set under noise, in a hall or at a wavering tempo "
                      "(noisy|reverb|wobble VALUE)"),
    "delivery": Command("models.lib.delivery", VENV_PY,
                        "the randomised delivery chain: --check (no beat moves > 1 ms), "
                        "--show SEED NAME (a piece's chain)"),
    "plain-synth": Command("models.plain_synth", VENV_PY,
                           "the training pieces by a plain synthesizer of our own"),
    "timidity": Command("models.timidity", sys.executable,
                        "the corpus's MIDI by TiMidity++ and Freepats"),
    "heldout": Command("models.heldout", VENV_PY,
                       "the held-out set of a second generator (TiMidity++/Freepats, csound "
                       "bank, a sung lead), dry and delivered: bench/out/g-heldout; --check"),
    "chords-heldout": Command("models.chords_heldout", VENV_PY,
                              "the held-out chord set (FluidSynth, three GM soundfonts): "
                              "bench/out/chords-heldout; --delivered"),
    "onsetsynth": Command("models.onsetsynth", VENV_PY,
                          "synthetic music with onsets on known samples (beat-offset)"),
    "train-network": Command("models.train_network", TRAIN_PY,
                             "trains the beat network: Sources/CBeatNetwork/"
                             "beat_network_weights.c", setup="models/run setup-train"),
    "train-patterns": Command("models.train_patterns", VENV_PY,
                              "learns the bar pointer's patterns: BarPointerPatterns.swift"),
    "setup-train": Command("models/setup-train.sh", "",
                           "makes bench/out/train-venv (PyTorch CPU) for train-network"),
    "fingerprint": Command("models.lib.fingerprint", sys.executable,
                           "the digests of the generators' source (what recipes hash)"),
}


def main(argv):
    return run("models/run", COMMANDS, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
