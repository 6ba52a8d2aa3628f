#!/usr/bin/env python3
"""Writes the seed corpora of the harnesses into fuzz/corpus/<harness>/ from the repo's
fixtures and from small texts like the tests' (see README.md). Extra seeds (an exported
.practice file, a published index.json) are copied from the folders given as arguments."""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
EXTS = ["txt", "beats", "lab", "csv", "xml", "json", "xsc", "dat"]  # as fuzzBeats picks them


def put(harness, name, data):
    folder = os.path.join(here, "corpus", harness)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def beat(name, ext, text):
    data = text if isinstance(text, bytes) else text.encode()
    put("beats", name, bytes([EXTS.index(ext)]) + data)


for fixture in ["demo.beats", "clicks-120.beats"]:
    beat(fixture, "beats", open(os.path.join(root, "fixtures", fixture), "rb").read())
beat("song.xsc", "xsc", open(os.path.join(root, "fixtures/beats/song.xsc"), "rb").read())
beat("times", "txt", "# beats\n0.5\n1.0\n1.5\n2.0\n")
beat("mirex", "txt", "0.50\t1\n1.00\t2\n1.50\t3\n2.00\t4\n2.50\t1\n")
beat("labels", "txt", "0.5\t1.1\n1.0\t1.2\n1.5\t2.1\n")
beat("audacity", "lab", "0.500000\t0.500000\t1\n1.000000\t1.000000\t2\n1.5\t1.5\t\n")
beat("csv", "csv", "time,beat\n0.5,1\n1.0,2\n\"1.5\",3\n")
beat("xml", "xml", "<?xml version='1.0'?>\n<!-- c -->\n<metadata><title>Blue &amp; Green"
     "</title><beats count='3'><beat>1.40</beat><beat> 1.90 </beat><beat><![CDATA[2.40]]>"
     "</beat><beat>&#49;.5e1</beat></beats></metadata>\n")
beat("json", "json", '{"sample_rate":44100,"beats":[\n{"time":0.5,"frame":22050,"bar":1,'
     '"beat":1},\n{"time":1.0,"frame":44100,"bar":1,"beat":2}\n]}\n')
beat("json-loose", "json",
     '{ "beats" : [ { "time" : 0.25, "bar" : null }, {"time":5e-1, "note":"\\u00e9\\"x"} ] }')

put("chords", "lab", "0.000\t1.500\tC:maj\n1.500\t3.000\tA:min7\n3.0\t4.0\tN\n4.0 5.5 Bb:7/b7\n")
put("chords", "csv", '"0.000000000","N"\n"1.500000000","Cmaj7"\n"3.0","F#m7"\n"4.5","G/B"\n')

put("words", "words", "\n".join([
    "83.5", "1:23.5", "1:02:03.5", "-0", "9-16", "9.3-12.2", "9", "12-", "75%", "0.75", "1.5x",
    "-6dB", "80%", "3/4", "6/8", "Bb", "F#m", "Ebm", "A4", "440", "C#5", "C:maj/3", "Bb:7/b7",
    "F#m7", "G/B", "Cmaj7", "-3,0,2", "200-2000", "0.5", "7d", "2w", "2026-11-01", "3h",
    "caf\u00e9 \U0001F3B8", "\x1b[31mred",
]))

for folder in sys.argv[1:]:
    for name in os.listdir(folder):
        data = open(os.path.join(folder, name), "rb").read()
        if name.endswith(".practice"):
            put("practice", name, data)
        elif name.endswith(".json"):
            put("index", name, data)
