"""The unclear-beat warning's model (issue 41, item 4): dumps what the detector measures of
each map, fits a small logistic regression of "this map is poor" on the tuning data, and
reports the warning on the held data beside the old one.

  bench/beats/run warning-fit dump --bin BIN [--out DIR]   every set: `beats detect` with
        PRACTICE_BEAT_DOUBT (one JSON line of MapDoubt's measures a map), then scored
  bench/beats/run warning-fit fit [--out DIR] [--write]    fits on the tuning sets only,
        chooses the features and the threshold, prints the tuning figures; --write puts
        the model into Sources/PracticeCore/Analysis/MapDoubtModel.swift
  bench/beats/run warning-fit report [--out DIR]           the held sets, once: recall and
        precision of the new warning and of the old (the dump's `old_warning`)

A map is poor when its beat F against the ground truth is under 0.8 (the corpus, the
held-out set) or when bench/beats/real_set.py calls it `wrong` (released music, against
madmom and the onsets; its labels are read from that script's JSON for the binary named by
--real-labels, whose maps must be the same as the dumped binary's: `dump` checks).

Tuning sets (the model, its features and its threshold are chosen on these only): the
corpus's tuning half, clean (beats-corpus) and delivered (t-corpus-tune-d13), and the real
set's tuning half. Held sets (reported once): the corpus's test half, clean and delivered
(t-corpus-test-d13), the held-out set dry and delivered (g-heldout), the real set's test
half.

A map is warned when the model's probability reaches the threshold, or when the detector
warns for another reason (beats from the harmony; the level held on weak evidence); the
old warning is the dump's `old_warning` (BeatDetector.unclearBeat) with the same others.
Maps the detector refused (no map) are left out of both.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
OUT = os.path.join(REPO, "bench", "out")
RUN = os.path.join(REPO, "bench", "beats", "run")
MODEL_SWIFT = os.path.join(REPO, "Sources", "PracticeCore", "Analysis", "MapDoubtModel.swift")

# name: (reference dir, half for detect-dir and score, kind); kind "truth" scores against
# the reference's ground truth, "real" takes real_set.py's labels
SETS = {
    "corpus-tune-clean": ("beats-corpus", "tune", "truth"),
    "corpus-tune-delivered": ("t-corpus-tune-d13", "tune", "truth"),
    "real-tune": ("real-set", "tune", "real"),
    "corpus-test-clean": ("beats-corpus", "test", "truth"),
    "corpus-test-delivered": ("t-corpus-test-d13", "test", "truth"),
    "heldout-dry": ("g-heldout/dry", "all", "truth"),
    "heldout-delivered": ("g-heldout/delivered", "all", "truth"),
    "real-test": ("real-set", "test", "real"),
}
TUNE = ["corpus-tune-clean", "corpus-tune-delivered", "real-tune"]
HELD = ["corpus-test-clean", "corpus-test-delivered", "heldout-dry", "heldout-delivered",
        "real-test"]
FEATURES = ["network_listens", "heard_at_beats", "heard_between", "downbeat_contrast",
            "tempo_wobble", "doubtful_share", "mean_confidence", "halfway_onsets",
            "pulse_clarity", "held_share", "tempo_octave"]
MAX_FEATURES = 4
L2 = 1.0


def real_labels(label, half):
    with open(os.path.join(OUT, f"real-set-{label}-{half}.json")) as f:
        return {t["name"]: t["wrong"] for t in json.load(f)["tracks"]}


def dump(args):
    binary = os.path.realpath(args.bin)
    os.makedirs(args.out, exist_ok=True)
    real_done = False
    for name, (ref, half, kind) in SETS.items():
        if args.sets and name not in args.sets:
            continue
        refdir = os.path.join(OUT, ref)
        if kind == "real":
            if real_done:
                continue
            real_done = True  # one run over every excerpt; the halves are read from labels
            name, half = "real", "all"
        det = os.path.join(args.out, name)
        # appended to: a piece detect-dir keeps (its map newer than the binary) keeps its line,
        # and a piece detected again adds one that `load` takes instead
        doubts = os.path.join(args.out, name + ".jsonl")
        cmd = [RUN, "detect-dir", binary, refdir, det, "--half", half, "--jobs", str(args.jobs),
               "--env", f"PRACTICE_BEAT_DOUBT={doubts}"]
        print(" ".join(cmd), file=sys.stderr)
        subprocess.run(["nice", "-n", "10", *cmd], check=True, stdout=subprocess.DEVNULL)
        if kind == "truth":
            score = [RUN, "score", refdir, det, "--json", det + ".json"]
            if half in ("tune", "test"):
                score += ["--split", half]
            subprocess.run(["nice", "-n", "10", *score], check=True, stdout=subprocess.DEVNULL)
        else:
            # the labels are real_set.py's for --real-labels: only valid for the same maps
            ref_det = os.path.join(OUT, f"real-set-{args.real_labels}")
            differ = [n for n in sorted(os.listdir(det)) if n.endswith(".beats")
                      and read(os.path.join(det, n)) != read(os.path.join(ref_det, n))]
            print(f"real set: {len(differ)} maps differ from {ref_det}: {differ}",
                  file=sys.stderr)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def load(args, name):
    """[(features dict, poor, other warning, old warning)] of one set's mapped pieces."""
    ref, half, kind = SETS[name]
    dumpname = "real" if kind == "real" else name
    rows = {}
    with open(os.path.join(args.out, dumpname + ".jsonl")) as f:
        for line in f:
            d = json.loads(line)
            rows[os.path.splitext(d["name"])[0]] = d  # a rerun's line replaces the first
    if kind == "real":
        labels = real_labels(args.real_labels, half)
        # the labels hold for the maps they were made on: pieces whose map differs are out
        ref_det = os.path.join(OUT, f"real-set-{args.real_labels}")
        mine = os.path.join(args.out, "real")
        labels = {n: v for n, v in labels.items()
                  if read(os.path.join(mine, n + ".beats")) is not None
                  and read(os.path.join(mine, n + ".beats"))
                  == read(os.path.join(ref_det, n + ".beats"))}
    else:
        det = os.path.join(args.out, name)
        scores = det + ".json"
        newest = max((os.path.getmtime(os.path.join(det, f)) for f in os.listdir(det)),
                     default=0)
        if not os.path.exists(scores) or os.path.getmtime(scores) < newest:
            cmd = [RUN, "score", os.path.join(OUT, ref), det, "--json", scores]
            if half in ("tune", "test"):
                cmd += ["--split", half]
            subprocess.run(["nice", "-n", "10", *cmd], check=True, stdout=subprocess.DEVNULL)
        with open(scores) as f:
            labels = {n: p["beat_f"] < 0.8 for n, p in json.load(f)["pieces"].items()}
    out = []
    for piece, poor in sorted(labels.items()):
        d = rows.get(piece)
        if d is None:
            continue  # refused (no map, no warning either way), or not detected yet
        if kind == "truth" and not os.path.exists(
                os.path.join(args.out, name, piece + ".beats")):
            continue  # detected but not yet exported: no label yet
        other = d["from_harmony"] or d["held_warning"]
        out.append((d, bool(poor), other, d["old_warning"] or other))
    return out


def faint_input(d):
    """What the network hears of the map's beats, 1 where it does not hear the music."""
    return d["heard_at_beats"] if d["network_listens"] else 1.0


def matrix(rows, names):
    return np.array([[r[0][k] for k in names] for r in rows], dtype=float)


def fit_logistic(x, y, l2=L2, steps=50):
    """Standardised L2 logistic regression by Newton's method: (mean, scale, weights,
    intercept); the intercept is not penalised."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    w = np.zeros(z.shape[1])
    penalty = np.eye(z.shape[1]) * l2
    penalty[0, 0] = 0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-z @ w))
        grad = z.T @ (p - y) + penalty @ w
        hess = (z.T * (p * (1 - p))) @ z + penalty
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return mean, scale, w[1:], w[0]


def predict(model, x):
    mean, scale, w, b = model
    return 1 / (1 + np.exp(-(((x - mean) / scale) @ w + b)))


def folds(n, k=5, seed=41):
    order = np.random.default_rng(seed).permutation(n)
    return [order[i::k] for i in range(k)]


def cv_loss(x, y, groups):
    """Mean log loss over 5 folds of pieces (a piece's clean and delivered copies in one
    fold)."""
    keys = sorted(set(groups))
    parts = folds(len(keys))
    loss = 0.0
    for part in parts:
        held = {keys[i] for i in part}
        test = np.array([g in held for g in groups])
        model = fit_logistic(x[~test], y[~test])
        p = np.clip(predict(model, x[test]), 1e-6, 1 - 1e-6)
        loss -= np.sum(y[test] * np.log(p) + (1 - y[test]) * np.log(1 - p))
    return loss / len(y)


def counts(poor, warned):
    poor = np.asarray(poor, bool)
    warned = np.asarray(warned, bool)
    return int(poor.sum()), int((poor & warned).sum()), int(warned.sum())


def f1(c):
    p, pw, w = c
    return 2 * pw / (p + w) if p + w else 0.0


def words(c):
    p, pw, w = c
    return f"{pw} of {p} poor warned, {pw} of {w} warnings right"


def tuning(args):
    rows, groups = [], []
    for name in TUNE:
        for r in load(args, name):
            rows.append(r)
            groups.append(r[0]["name"])  # the clean and delivered copies share a name
    return rows, groups


def fit(args):
    rows, groups = tuning(args)
    y = np.array([r[1] for r in rows], float)
    print(f"tuning maps: {len(rows)}, poor: {int(y.sum())}")
    # forward selection by cross-validated log loss, at most MAX_FEATURES
    chosen, best = [], cv_loss(np.zeros((len(y), 0)), y, groups)
    print(f"  no feature: CV log loss {best:.4f}")
    while len(chosen) < MAX_FEATURES:
        trials = [(cv_loss(matrix(rows, chosen + [f]), y, groups), f)
                  for f in FEATURES if f not in chosen]
        loss, f = min(trials)
        if loss > best - 0.002:
            break
        chosen.append(f)
        best = loss
        print(f"  + {f}: CV log loss {loss:.4f}")
    x = matrix(rows, chosen)
    model = fit_logistic(x, y)
    p = predict(model, x)
    other = np.array([r[2] for r in rows])
    old = np.array([r[3] for r in rows])
    # the threshold: the best F1 of the whole warning (the model's or another) on tuning data
    grid = np.round(np.arange(0.05, 0.951, 0.01), 2)
    scored = [(f1(counts(y, (p >= t) | other)), -t, t) for t in grid]
    _, _, threshold = max(scored)
    # and a floor on what the network hears of the map's beats (where it hears the music):
    # below it the musician is warned whatever the model says; the highest of 0-0.4 that
    # costs no F1 on the tuning data (the model's features leave out how faintly the network
    # hears a reading that it decoded on its own few peaks)
    heard = np.array([faint_input(r[0]) for r in rows])
    base = f1(counts(y, (p >= threshold) | other))
    floor = max(f for f in np.round(np.arange(0, 0.401, 0.05), 2)
                if f1(counts(y, (p >= threshold) | other | (heard < f))) >= base)
    other = other | (heard < floor)
    c = counts(y, (p >= threshold) | other)
    print(f"features {chosen}, threshold {threshold:.2f}, faint hearing below {floor:.2f}")
    print(f"tuning, new: {words(c)} (F1 {f1(c):.2f}); old: {words(counts(y, old))} "
          f"(F1 {f1(counts(y, old)):.2f})")
    for name in TUNE:
        sub = load(args, name)
        sx = matrix(sub, chosen)
        sy = [r[1] for r in sub]
        sw = ((predict(model, sx) >= threshold) | np.array([r[2] for r in sub])
              | (np.array([faint_input(r[0]) for r in sub]) < floor))
        print(f"  {name}: new {words(counts(sy, sw))}; old "
              f"{words(counts(sy, [r[3] for r in sub]))}")
    result = {"features": chosen, "mean": model[0].tolist(), "scale": model[1].tolist(),
              "weights": model[2].tolist(), "intercept": float(model[3]),
              "threshold": float(threshold), "faint_hearing": float(floor),
              "tuning_maps": len(rows),
              "tuning_poor": int(y.sum()), "cv_log_loss": best, "l2": L2}
    with open(os.path.join(args.out, "model.json"), "w") as f:
        json.dump(result, f, indent=1)
    if args.write:
        write_swift(result, args)


def write_swift(m, args):
    terms = "\n".join(
        f"    Term(name: \"{n}\", mean: {mu:.6g}, scale: {s:.6g}, weight: {w:.6g}),"
        for n, mu, s, w in zip(m["features"], m["mean"], m["scale"], m["weights"]))
    text = f"""// Written by bench/beats/warning_fit.py; do not edit by hand. Provenance: fitted on
// {datetime.date.today().isoformat()} by `bench/beats/run warning-fit fit --write` on the dumps
// of `bench/beats/run warning-fit dump` (PRACTICE_BEAT_DOUBT) in
// bench/out/{os.path.relpath(args.out, OUT)}: the corpus's tuning half, clean (beats-corpus)
// and delivered (t-corpus-tune-d13), poor = beat F < 0.8, and the real set's tuning half,
// poor = real_set.py's `wrong` ({m["tuning_maps"]} maps, {m["tuning_poor"]} poor). Features
// chosen forward by 5-fold cross-validated log loss (at most {MAX_FEATURES}), L2 {m["l2"]} on
// standardised features; the threshold is the best F1 of the whole warning on the same data,
// the faint-hearing floor the highest of 0-0.4 that costs none of it.

/// The fitted model `MapDoubt.probability` evaluates: the logit is `intercept` plus each
/// term's `weight` times its feature standardised by `mean` and `scale`.
enum MapDoubtModel {{
  struct Term {{
    let name: String
    let mean: Double
    let scale: Double
    let weight: Double
  }}
  static let intercept = {m["intercept"]:.6g}
  static let terms: [Term] = [
{terms}
  ]
  /// The probability of a poor map from which the musician is warned.
  static let threshold = {m["threshold"]:.2f}
  /// Below this mean beat probability at the map's beats, where the network hears the
  /// music, the musician is warned whatever the model says.
  static let faintHearing = {m["faint_hearing"]:.2f}
}}
"""
    with open(MODEL_SWIFT, "w") as f:
        f.write(text)
    print(f"wrote {MODEL_SWIFT}")


def report(args):
    with open(os.path.join(args.out, "model.json")) as f:
        m = json.load(f)
    model = (np.array(m["mean"]), np.array(m["scale"]), np.array(m["weights"]),
             m["intercept"])
    lines = ["| set | maps | poor | new: poor warned | new: warnings right | "
             "old: poor warned | old: warnings right |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name in HELD:
        rows = load(args, name)
        y = [r[1] for r in rows]
        new = ((predict(model, matrix(rows, m["features"])) >= m["threshold"])
               | np.array([r[2] for r in rows], bool)
               | (np.array([faint_input(r[0]) for r in rows]) < m["faint_hearing"]))
        cn = counts(y, new)
        co = counts(y, [r[3] for r in rows])
        lines.append(f"| {name} | {len(rows)} | {cn[0]} | {cn[1]} of {cn[0]} | "
                     f"{cn[1]} of {cn[2]} | {co[1]} of {co[0]} | {co[1]} of {co[2]} |")
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=("dump", "fit", "report"))
    ap.add_argument("--bin", help="the practice binary (dump)")
    ap.add_argument("--out", default=os.path.join(OUT, "w-doubt"))
    ap.add_argument("--real-labels", default="b6278b3",
                    help="real_set.py's label whose tune/test JSON gives `wrong`")
    ap.add_argument("--jobs", type=int, default=1, help="dump: detections at once")
    ap.add_argument("--sets", nargs="*", help="dump: only these sets (default: all)")
    ap.add_argument("--write", action="store_true", help="fit: write MapDoubtModel.swift")
    args = ap.parse_args()
    args.out = os.path.abspath(args.out)
    {"dump": dump, "fit": fit, "report": report}[args.command](args)


if __name__ == "__main__":
    main()
