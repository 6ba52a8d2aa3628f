"""Where models/ reads and writes: the repository, bench/out (git-ignored: venvs, corpora,
renders), the soundfonts, the corpus's fixed split and the files the trainers write."""

import json
import os

MODELS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(MODELS)
OUT = os.path.join(REPO, "bench", "out")

# the Python environments (made by bench/beats/setup.sh and models/setup-train.sh)
VENV_PY = os.path.join(OUT, "venv", "bin", "python")
TRAIN_PY = os.path.join(OUT, "train-venv", "bin", "python")

# generated material (bench/out)
SET = os.path.join(OUT, "beats-set")            # models/run set
CORPUS = os.path.join(OUT, "beats-corpus")      # models/run corpus
TRAIN_SETS = [os.path.join(OUT, "beats-train"), os.path.join(OUT, "beats-train3")]
PLAIN = os.path.join(OUT, "beats-train-plain")  # models/run plain-synth

# the corpus's halves, drawn once by `models/run corpus --write-split`; the measurements
# in bench/beats read them too
SPLIT_FILE = os.path.join(REPO, "bench", "beats", "split.json")

# what the trainers write
NETWORK_WEIGHTS = os.path.join(REPO, "Sources", "CBeatNetwork", "beat_network_weights.c")
NETWORK_CHECK = os.path.join(REPO, "bench", "beats", "network-check.json")
PATTERNS = os.path.join(REPO, "Sources", "PracticeCore", "Analysis", "BarPointerPatterns.swift")

# General MIDI soundfonts (apt packages in bench/beats/setup.sh)
FLUIDR3 = "/usr/share/sounds/sf2/FluidR3_GM.sf2"                  # fluid-soundfont-gm
SOUNDFONTS = {  # the corpus's: short name -> path
    "fluidr3": FLUIDR3,
    "musescore": "/usr/share/sounds/sf3/MuseScore_General_Full.sf3",  # musescore-general-soundfont
    "timgm": "/usr/share/sounds/sf2/TimGM6mb.sf2",                 # timgm6mb-soundfont
}
TRAIN_SOUNDFONTS = {  # other samples, for training corpora only (corpus --fonts)
    "csound": "/usr/share/sounds/sf2/sf_GMbank.sf2",               # csound-soundfont
    "opl3": "/usr/share/sounds/sf2/OPL-3_FM_128M.sf2",             # opl3-soundfont
}


def read_split(split_file=SPLIT_FILE):
    """{name: "tune" | "test"} of the development corpus."""
    with open(split_file) as f:
        data = json.load(f)
    return {n: h for h in ("tune", "test") for n in data[h]}


def half_names(half, split_file=SPLIT_FILE):
    """The names of one half ("tune" or "test") of the corpus, in split.json's order."""
    with open(split_file) as f:
        return list(json.load(f)[half])
