#!/usr/bin/env python3
"""How often `beats detect`'s "bar 1 is a guess" line (MapDoubt.barsAreAGuess) fires, and how
often it is right, on the maps session 17's doubt dumps describe (bench/out/l17/doubt: one JSON
line of MapDoubt's measures per map, and the scores of the same maps).

The line is shown where the map has no warning and the network's downbeat contrast is below
the threshold. A map's downbeats are wrong at downbeat F < 0.5; its beats right at beat F >= 0.8.
Tuning data: the corpus's tuning halves and the released tracks' tuning half; the rest is
reported, not looked at for the choice.

    bench/beats/session18/bars_guess.py [THRESHOLD ...]
"""
import json
import math
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "out"
DOUBT = OUT / "l17" / "doubt"
# The shipped warning's model (MapDoubtModel.swift, written from this file by
# bench/beats/warning_fit.py): the dumps' own "probability" is the model of the binary that
# made them, before the refit.
MODEL = json.load(open(DOUBT / "model.json"))


def dumped(name):
    rows = {}
    for line in open(DOUBT / f"{name}.jsonl"):
        r = json.loads(line)
        rows[r["name"].rsplit(".", 1)[0]] = r
    return rows


def scored_set(name):
    rows = dumped(name)
    pieces = json.load(open(DOUBT / f"{name}.json"))["pieces"]
    return [(p["beat_f"], p["downbeat_f"], rows[n]) for n, p in pieces.items() if n in rows]


def real_half(half):
    rows = dumped("real")
    tracks = json.load(open(OUT / f"real-set-bench-{half}.json"))["tracks"]
    return [(t["beat_f"], t["downbeat_f"], rows[t["name"]]) for t in tracks if t["name"] in rows]


def warned(r):
    z = MODEL["intercept"] + sum(
        w * (r[f] - m) / sc
        for f, m, sc, w in zip(MODEL["features"], MODEL["mean"], MODEL["scale"], MODEL["weights"]))
    probability = 1 / (1 + math.exp(-z))
    return probability >= MODEL["threshold"] or (
        r["network_listens"] > 0 and r["heard_at_beats"] < MODEL["faint_hearing"])


SETS = {
    "tuning: corpus tune halves (clean + delivered)":
        lambda: scored_set("corpus-tune-clean") + scored_set("corpus-tune-delivered"),
    "tuning: released tracks, tune half": lambda: real_half("tune"),
    "test: corpus test halves (clean + delivered)":
        lambda: scored_set("corpus-test-clean") + scored_set("corpus-test-delivered"),
    "test: second generator's held-out (dry + delivered)":
        lambda: scored_set("heldout-dry") + scored_set("heldout-delivered"),
    "test: released tracks, test half": lambda: real_half("test"),
}


def main():
    thresholds = [float(a) for a in sys.argv[1:]] or [0.05, 0.1, 0.15, 0.2]
    print("| set | threshold | unwarned maps | line shown | of them downbeats wrong (beats right) | beats wrong | right | downbeat-wrong maps caught |")
    print("|---|---|---|---|---|---|---|---|")
    for label, load in SETS.items():
        maps = [m for m in load() if not warned(m[2])]
        for th in thresholds:
            shown = [m for m in maps if m[2]["network_listens"] > 0 and m[2]["downbeat_contrast"] < th]
            db_wrong = [m for m in shown if m[0] >= 0.8 and m[1] < 0.5]
            beats_wrong = [m for m in shown if m[0] < 0.8]
            right = len(shown) - len(db_wrong) - len(beats_wrong)
            all_db_wrong = [m for m in maps if m[0] >= 0.8 and m[1] < 0.5]
            print(f"| {label} | {th} | {len(maps)} | {len(shown)} | {len(db_wrong)} | "
                  f"{len(beats_wrong)} | {right} | {len(db_wrong)}/{len(all_db_wrong)} |")


if __name__ == "__main__":
    main()
