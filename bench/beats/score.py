"""Scores detected beats against the reference set with mir_eval, on UNTRIMMED beats.

  bench/beats/run score REFDIR DETDIR [--json OUT.json] [--markdown] [--name LABEL]
           [--split tune|test|both [--split-file FILE]]
  bench/beats/run score REFDIR [LABEL=]DETDIR [LABEL=]DETDIR ... [--split ...] [--json OUT.json]
           [--markdown]      several detectors side by side (group means only)

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
REFDIR/NAME.json), drums / no-drums, steady / changing tempo (and its kind: rubato,
rit-a-tempo, ritardando, ...), swing, pickup, and for the corpus (make-corpus.py) the
processing kind, the soundfont and the sample rate; for a delivered copy (make-corpus.py
--delivery) each delivery group its chain falls in (codec, reverb/noise, compression/EQ);
and any group a piece's JSON lists under "groups" (models/heldout.py: style, synth, voice).

  offset    the median signed offset, detected minus reference, of the beats matched
            within ±70 ms (mir_eval's matching), pooled over the pieces of each sample
            rate (REFDIR/NAME.json's "sample_rate", else the WAV's header, else 44100):
            a timing bias that no F-measure shows

--split tune|test scores only that half of the corpus (bench/beats/split.json, fixed
before any tuning); --split both scores each half, and with several detectors prints the
test half's table side by side and the tuning half's means under it.
"""

import argparse
import json
import os
import sys
import warnings
import wave

import numpy as np
import mir_eval

from bench.beats.beatlib import SPLIT_FILE

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
        pairs = mir_eval.util.match_events(ref_times, est_times, WINDOW) \
            if len(est_times) and len(ref_times) else []
        matched = len(pairs)
        offsets = [float(est_times[j] - ref_times[i]) for i, j in pairs]
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
            "ref_beats": int(len(ref_times)), "est_beats": int(len(est_times)),
            "offsets_s": offsets,
            "median_offset_ms": 1000 * float(np.median(offsets)) if offsets else None}


TAG_GROUPS = ("drums", "no-drums", "steady", "changing", "rubato", "rit-a-tempo", "ritardando",
              "accelerando", "step-change", "accel-rit", "swing", "pickup")


def groups_of(meta):
    meter = meta.get("meter")
    tags = meta.get("tags", [])
    out = [f"meter {meter}"] if meter else []
    for tag in TAG_GROUPS:
        if tag in tags:
            out.append(tag)
    if "processing" in meta:
        out.append(f"processing {meta['processing']}")
    if "soundfont" in meta:
        out.append(f"soundfont {meta['soundfont']}")
    out += [f"delivery {g}" for g in meta.get("delivery_groups", [])]  # delivery.py's
    out += [g for g in meta.get("groups", []) if g not in out]  # models/heldout.py's (style ...)
    return out


def sample_rate(refdir, name, meta):
    if meta.get("sample_rate"):
        return int(meta["sample_rate"])
    try:
        with wave.open(os.path.join(refdir, name + ".wav")) as w:
            return w.getframerate()
    except (OSError, wave.Error, EOFError):
        return 44100


def read_split(half, split_file=SPLIT_FILE):
    """The names of one half (tune or test) of the corpus, from split.json."""
    with open(split_file) as f:
        return set(json.load(f)[half])


def group_order(g):
    order = ["meter 2/4", "meter 3/4", "meter 4/4", "meter 5/4", "meter 6/8", "meter 9/8",
             "meter 12/8", "drums", "no-drums", "steady", "changing", "rubato", "rit-a-tempo",
             "ritardando", "accelerando", "step-change", "accel-rit", "swing", "pickup",
             "processing clean", "processing reverb", "processing compression",
             "processing noise", "processing mp3", "processing 48k", "processing delivery",
             "delivery codec", "delivery reverb/noise", "delivery compression/EQ"]
    return (order.index(g) if g in order else len(order), g)


def score(refdir, detdir, only=None):
    """Scores DETDIR against REFDIR; `only`: a set of names (a half of the corpus)."""
    names = sorted(f[:-6] for f in os.listdir(refdir) if f.endswith(".beats"))
    if only is not None:
        unknown = only - set(names)
        names = [n for n in names if n in only]
        if unknown and len(unknown) == len(only):
            sys.exit(f"score: none of the pieces asked for is in {refdir}")
        if unknown:
            print(f"score: {len(unknown)} of the pieces asked for are not in {refdir} "
                  "(not scored)", file=sys.stderr)
    if not names:
        sys.exit(f"score: no .beats files in {refdir}" + (" of that half" if only else ""))
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
                 tags=meta.get("tags", []), groups=groups_of(meta),
                 sample_rate=sample_rate(refdir, name, meta))
        pieces[name] = r

    def mean(names_):
        out = {"pieces": len(names_)}
        for m in METRICS:
            vals = [pieces[n][m] for n in names_ if pieces[n][m] is not None]
            out[m] = float(np.mean(vals)) if vals else None
        return out

    means = {"all": mean(names)}
    found = sorted({g for r in pieces.values() for g in r["groups"]}, key=group_order)
    for g in found:
        means[g] = mean([n for n in names if g in pieces[n]["groups"]])
    offsets = {}
    for rate in sorted({r["sample_rate"] for r in pieces.values()}):
        pooled = [o for r in pieces.values() if r["sample_rate"] == rate for o in r["offsets_s"]]
        offsets[str(rate)] = {
            "pieces": sum(r["sample_rate"] == rate for r in pieces.values()),
            "matched_beats": len(pooled),
            "median_ms": 1000 * float(np.median(pooled)) if pooled else None}
    for r in pieces.values():
        del r["offsets_s"]
    return {"refdir": os.path.abspath(refdir), "detdir": os.path.abspath(detdir),
            "window_s": WINDOW, "trimmed": False, "downbeats": want_downbeats,
            "missing": sum(r["missing"] for r in pieces.values()),
            "pieces": pieces, "means": means, "offset_by_rate": offsets}


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
    for rate, o in res.get("offset_by_rate", {}).items():
        lines.append(f"median signed offset at {rate} Hz (detected - reference, matched beats "
                     f"within ±70 ms): {fmt_ms(o['median_ms'])} over {o['matched_beats']} beats "
                     f"of {o['pieces']} pieces")
    return "\n".join(lines)


def fmt_ms(v):
    return "n/a" if v is None else f"{v:+.1f} ms"


def compare_report(results, tune=None, markdown=False):
    """Several detectors side by side: beat F / downbeat F per group (rows) and detector
    (columns), the pieces in each group, then the median signed offset per sample rate;
    `tune`: the same detectors on the tuning half, whose overall means are added below."""
    labels = list(results)
    groups = []
    for res in results.values():
        groups += [g for g in res["means"] if g not in groups]
    groups.sort(key=lambda g: (-1, g) if g == "all" else group_order(g))
    first = next(iter(results.values()))
    cols = [f"{lab} beat F / down F" for lab in labels]
    rows = []
    for g in groups:
        n = first["means"].get(g, {}).get("pieces", 0)
        cells = []
        for lab in labels:
            m = results[lab]["means"].get(g)
            cells.append("-" if m is None else f"{fmt(m['beat_f'])} / {fmt(m['downbeat_f'])}")
        rows.append((g, str(n), cells))
    rates = sorted({r for res in results.values() for r in res.get("offset_by_rate", {})},
                   key=int)
    for rate in rates:
        cells = [fmt_ms(results[lab].get("offset_by_rate", {}).get(rate, {}).get("median_ms"))
                 for lab in labels]
        n = first.get("offset_by_rate", {}).get(rate, {}).get("pieces", 0)
        rows.append((f"median signed beat offset, {int(rate) / 1000:g} kHz", str(n), cells))
    if tune:
        t = next(iter(tune.values()))
        cells = []
        for lab in labels:
            m = tune.get(lab, {}).get("means", {}).get("all") if lab in tune else None
            cells.append("-" if m is None else f"{fmt(m['beat_f'])} / {fmt(m['downbeat_f'])}")
        rows.append(("TUNING HALF, all", str(t["means"]["all"]["pieces"]), cells))
        for g in ("drums", "no-drums"):
            if g in t["means"]:
                cells = [fmt(tune[lab]["means"][g]["beat_f"]) + " / "
                         + fmt(tune[lab]["means"][g]["downbeat_f"]) for lab in labels]
                rows.append((f"TUNING HALF, {g}", str(t["means"][g]["pieces"]), cells))
    rows.append(("no detection (refused, failed or not run)", "",
                 [str(results[lab]["missing"]) for lab in labels]))
    if tune:
        rows.append(("TUNING HALF, no detection", "",
                     [str(tune[lab]["missing"]) if lab in tune else "-" for lab in labels]))
    if markdown:
        lines = ["| group | pieces | " + " | ".join(cols) + " |",
                 "| --- | ---: |" + " ---: |" * len(cols)]
        lines += [f"| {g} | {n} | " + " | ".join(c) + " |" for g, n, c in rows]
        return "\n".join(lines)
    w = max(len(g) for g, _, _ in rows) + 2
    cw = max(max(len(c) for c in cols), 17) + 2
    lines = [f"{'group':<{w}}{'n':>4}" + "".join(f"{c:>{cw}}" for c in cols)]
    lines.append("-" * len(lines[0]))
    lines += [f"{g:<{w}}{n:>4}" + "".join(f"{c:>{cw}}" for c in cs) for g, n, cs in rows]
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
    ap.add_argument("detdir", nargs="+", help="DETDIR, or LABEL=DETDIR; several: side by side")
    ap.add_argument("--json", help="write every figure to this file")
    ap.add_argument("--markdown", action="store_true", help="print markdown tables")
    ap.add_argument("--name", help="label for the detector (default: DETDIR's name)")
    ap.add_argument("--split", choices=("tune", "test", "both"),
                    help="score only this half of the corpus (both: each half)")
    ap.add_argument("--split-file", default=SPLIT_FILE)
    ap.add_argument("--only", nargs="*", help="only these pieces")
    args = ap.parse_args()
    dets = []
    for d in args.detdir:
        label, _, path = d.rpartition("=") if "=" in d else ("", "", d)
        dets.append((label or (args.name if len(args.detdir) == 1 and args.name else
                               os.path.basename(os.path.normpath(path))), path))
    halves = ["tune", "test"] if args.split == "both" else [args.split]
    out = {}
    for half in halves:
        only = read_split(half, args.split_file) if half else None
        if args.only:
            only = set(args.only) if only is None else only & set(args.only)
        out[half or "all"] = {}
        for label, path in dets:
            res = score(args.refdir, path, only)
            res["name"] = label
            res["half"] = half
            out[half or "all"][label] = res
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out if len(dets) > 1 or len(halves) > 1 else
                      next(iter(next(iter(out.values())).values())), f, indent=1)
    if len(dets) == 1:
        for key, by_label in out.items():
            label, res = next(iter(by_label.items()))
            title = label + ("" if key == "all" else f", {key} half")
            print(markdown_report(res, title) if args.markdown else text_report(res, title))
        return
    main_half = "test" if "test" in out else next(iter(out))
    tune = out.get("tune") if main_half == "test" else None
    what = {"test": "TEST HALF", "tune": "TUNING HALF", "all": "ALL PIECES"}[main_half]
    print(f"{what} (beat F / downbeat F, ±70 ms, beats not trimmed; {len(next(iter(out[main_half].values()))['pieces'])} pieces)")
    print(compare_report(out[main_half], tune, args.markdown))


if __name__ == "__main__":
    main()
