#!/usr/bin/env python3
"""Runs Chordino (the `chord-extractor` package: NNLS Chroma and Chordino as a Vamp plugin,
GPL, for evaluation only) on WAV files and writes its chords as .lab files (Harte labels).

Run with the python of a venv where `pip install chord-extractor` worked (bench/chords.py
--peers makes bench/out/peers-venv):
  bench/out/peers-venv/bin/python bench/chordino_peer.py OUTDIR FILE.wav...
Each FILE.wav gives OUTDIR/FILE.lab; the last chord ends at the end of the audio."""

import os
import re
import sys
import wave

from chord_extractor.extractors import Chordino

NAMES = {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}
SPELL = ["C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"]
SUFFIX = {"": "maj", "m": "min", "7": "7", "maj7": "maj7", "m7": "min7", "dim": "dim",
          "aug": "aug", "6": "maj6", "m6": "min6", "dim7": "dim7", "m7b5": "hdim7",
          "sus4": "sus4", "sus2": "sus2"}
DEGREE = {0: "1", 1: "b2", 2: "2", 3: "b3", 4: "3", 5: "4", 6: "b5", 7: "5", 8: "#5", 9: "6",
          10: "b7", 11: "7"}


def note(text):
    pc = NAMES[text[0]] + text[1:].count("#") - text[1:].count("b")
    return pc % 12


def harte(symbol):
    if symbol == "N":
        return "N"
    m = re.fullmatch(r"([A-G][#b]*)([^/]*)(?:/([A-G][#b]*))?", symbol)
    if not m or m.group(2) not in SUFFIX:
        return "X"
    root = note(m.group(1))
    label = SPELL[root] + ":" + SUFFIX[m.group(2)]
    if m.group(3):
        label += "/" + DEGREE[(note(m.group(3)) - root) % 12]
    return label


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    chordino = Chordino()
    for path in sys.argv[2:]:
        with wave.open(path) as w:
            end = w.getnframes() / w.getframerate()
        changes = chordino.extract(path)
        lines = []
        for i, change in enumerate(changes):
            stop = changes[i + 1].timestamp if i + 1 < len(changes) else end
            if stop > change.timestamp:
                lines.append(f"{change.timestamp:.6f}\t{stop:.6f}\t{harte(change.chord)}\n")
        if changes and changes[0].timestamp > 0:
            lines.insert(0, f"0.000000\t{changes[0].timestamp:.6f}\tN\n")
        name = os.path.splitext(os.path.basename(path))[0]
        with open(os.path.join(out, name + ".lab"), "w") as f:
            f.writelines(lines)


if __name__ == "__main__":
    main()
