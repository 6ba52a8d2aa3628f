#!/usr/bin/env python3
"""Scores detected beats against the reference set with mir_eval, on UNTRIMMED beats.

  score.py REFDIR DETDIR [--json OUT.json] [--markdown] [--name LABEL]

For every REFDIR/NAME.beats (reference: seconds<TAB>beat-in-bar, 1 = downbeat), reads
DETDIR/NAME.beats (same format; one column = beats without downbeats, as does a beat-in-bar
of 0 everywhere; a missing file counts as a detector that found nothing) and computes:

  beat F    mir_eval.beat.f_measure, +-70 ms window (mir_eval's default 0.07 s)
  P, R      precision and recall of the same matching (mir_eval.util.match_events)
  CMLt      mir_eval.beat.continuity: correct metrical level, total
  AMLt      mir_eval.beat.continuity: allowed metrical levels (double/half tempo,
            off-beat), total
  down F    mir_eval.beat.f_measure (+-70 ms) on the beats numbered 1 only; n/a when the
            detector reports no downbeats anywhere (a detector that reports them for some
            pieces scores 0 on the others)

mir_eval's beat metrics are normally run after mir_eval.beat.trim_beats, which drops every
beat in the first 5 s. This harness does NOT trim: the beats from the very start of the
music count, because `practice` uses them from the very start (a count-in, --bars 1-4).

Means are over pieces (each piece weighs the same), overall and per group: meter (from
REFDIR/NAME.json), drums / no-drums, steady / changing tempo, pickup.
"""

import argparse
import json
import os
import sys
import warnings

import numpy as np
import mir_eval

WINDOW = 0.07
METRICS = ("beat_f", "precision", "recall", "cmlt", "amlt", "downbeat_f")
LABELS = {"beat_f": "beat F", "precision": "P", "recall": "R", "cmlt": "CMLt", "amlt": "AMLt",
          "downbeat_f": "down F"}


def read_beats(path):
    """(times, beat-in-bar or None): sorted; a second column of all zeros means none."""
    times, numbers = [], []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.replace(",", " ").split()
            times.append(float(fields[0]))
            numbers.append(int(float(fields[1])) if len(fields) > 1 else 0)
    order = np.argsort(times, kind="stable")
    times = np.asarray(times, dtype=float)[order]
    numbers = np.asarray(numbers, dtype=int)[order]
    return times, (numbers if numbers.size and numbers.any() else None)


def score_piece(ref_times, ref_numbers, est_times, est_numbers, want_downbeats):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # mir_eval warns about empty estimates
        f = mir_eval.beat.f_measure(ref_times, est_times, f_measure_threshold=WINDOW)
        if len(est_times) >= 2 and len(ref_times) >= 2:
            _, cmlt, _, amlt = mir_eval.beat.continuity(ref_times, est_times)
        else:
            cmlt = amlt = 0.0
        matched = len(mir_eval.util.match_events(ref_times, est_times, WINDOW)) \
            if len(est_times) and len(ref_times) else 0
        down = None
        if want_downbeats:
            ref_down = ref_times[ref_numbers == 1]
            est_down = est_times[est_numbers == 1] if est_numbers is not None else np.array([])
            down = mir_eval.beat.f_measure(ref_down, est_down, f_measure_threshold=WINDOW)
    return {"beat_f": float(f),
            "precision": matched / len(est_times) if len(est_times) else 0.0,
            "recall": matched / len(ref_times) if len(ref_times) else 0.0,
            "cmlt": float(cmlt), "amlt": float(amlt),
            "downbeat_f": None if down is None else float(down),
            "ref_beats": int(len(ref_times)), "est_beats": int(len(est_times))}


def groups_of(meta):
    meter = meta.get("meter")
    tags = meta.get("tags", [])
    out = [f"meter {meter}"] if meter else []
    for tag in ("drums", "no-drums", "steady", "changing", "pickup"):
        if tag in tags:
            out.append(tag)
    return out


def score(refdir, detdir):
    names = sorted(f[:-6] for f in os.listdir(refdir) if f.endswith(".beats"))
    if not names:
        sys.exit(f"score: no .beats files in {refdir}")
    detected = {}
    for name in names:
        path = os.path.join(detdir, name + ".beats")
        detected[name] = read_beats(path) if os.path.exists(path) else None
    want_downbeats = any(d is not None and d[1] is not None for d in detected.values())
    pieces = {}
    for name in names:
        ref_times, ref_numbers = read_beats(os.path.join(refdir, name + ".beats"))
        if ref_numbers is None:
            sys.exit(f"score: reference {name}.beats has no beat-in-bar column")
        est_times, est_numbers = detected[name] if detected[name] else (np.array([]), None)
        r = score_piece(ref_times, ref_numbers, est_times, est_numbers, want_downbeats)
        meta = {}
        meta_path = os.path.join(refdir, name + ".json")
        if os.path.exists(meta_path):
            with open(meta_path) as f:
                meta = json.load(f)
        r.update(missing=detected[name] is None, meter=meta.get("meter", "?"),
                 tags=meta.get("tags", []), groups=groups_of(meta))
        pieces[name] = r

    def mean(names_):
        out = {"pieces": len(names_)}
        for m in METRICS:
            vals = [pieces[n][m] for n in names_ if pieces[n][m] is not None]
            out[m] = float(np.mean(vals)) if vals else None
        return out

    means = {"all": mean(names)}
    order = ["meter 4/4", "meter 3/4", "meter 6/8", "meter 2/4", "drums", "no-drums",
             "steady", "changing", "pickup"]
    found = sorted({g for r in pieces.values() for g in r["groups"]},
                   key=lambda g: (order.index(g) if g in order else len(order), g))
    for g in found:
        means[g] = mean([n for n in names if g in pieces[n]["groups"]])
    return {"refdir": os.path.abspath(refdir), "detdir": os.path.abspath(detdir),
            "window_s": WINDOW, "trimmed": False, "downbeats": want_downbeats,
            "missing": sum(r["missing"] for r in pieces.values()),
            "pieces": pieces, "means": means}


def fmt(v):
    return "n/a" if v is None else f"{v:.3f}"


def text_report(res, label):
    lines = [f"{label}: {len(res['pieces'])} pieces, {res['missing']} without a detection; "
             f"window ±{res['window_s'] * 1000:.0f} ms; beats NOT trimmed (the first 5 s "
             f"count); downbeats {'reported' if res['downbeats'] else 'not reported (n/a)'}"]
    w = max(len(n) for n in res["pieces"]) + 2
    head = f"{'piece':<{w}}{'meter':<6}" + "".join(f"{LABELS[m]:>8}" for m in METRICS) + \
        f"{'ref':>6}{'est':>6}"
    lines += [head, "-" * len(head)]
    for name, r in res["pieces"].items():
        lines.append(f"{name:<{w}}{r['meter']:<6}" + "".join(f"{fmt(r[m]):>8}" for m in METRICS)
                     + f"{r['ref_beats']:>6}{r['est_beats']:>6}" + ("  (missing)" if r["missing"]
                                                                   else ""))
    lines.append("-" * len(head))
    for g, r in res["means"].items():
        lines.append(f"{'mean ' + g + ' (' + str(r['pieces']) + ')':<{w + 6}}"
                     + "".join(f"{fmt(r[m]):>8}" for m in METRICS))
    return "\n".join(lines)


def markdown_report(res, label):
    lines = [f"**{label}**: {len(res['pieces'])} pieces; ±{res['window_s'] * 1000:.0f} ms; "
             "beats not trimmed (mir_eval's usual 5 s trim is off: the first 5 s count).", "",
             "| piece | meter | tags | " + " | ".join(LABELS[m] for m in METRICS) + " |",
             "| --- | --- | --- |" + " ---: |" * len(METRICS)]
    for name, r in res["pieces"].items():
        lines.append(f"| {name} | {r['meter']} | {', '.join(r['tags'])} | "
                     + " | ".join(fmt(r[m]) for m in METRICS) + " |")
    lines += ["", "| group | pieces | " + " | ".join(LABELS[m] for m in METRICS) + " |",
              "| --- | ---: |" + " ---: |" * len(METRICS)]
    for g, r in res["means"].items():
        lines.append(f"| {g} | {r['pieces']} | " + " | ".join(fmt(r[m]) for m in METRICS) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("refdir")
    ap.add_argument("detdir")
    ap.add_argument("--json", help="write every figure to this file")
    ap.add_argument("--markdown", action="store_true", help="print markdown tables")
    ap.add_argument("--name", help="label for the detector (default: DETDIR's name)")
    args = ap.parse_args()
    res = score(args.refdir, args.detdir)
    label = args.name or os.path.basename(os.path.normpath(args.detdir))
    res["name"] = label
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    print(markdown_report(res, label) if args.markdown else text_report(res, label))


if __name__ == "__main__":
    main()
