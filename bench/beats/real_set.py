"""Beat maps on released, produced music: practice against madmom and the onsets.

  bench/beats/run real-set [--bin PRACTICE_BIN] [--label NAME] [--env K=V ...] [--length 60]
                           [--half tune|test|all]
                           [--no-madmom]
      (in bench/out/venv; bench/beats/setup.sh makes it)

The music: every soundtrack Debian ships in three game-data packages (hedgewars-data,
warzone2100-music, frozen-bubble-data; 59 tracks: electronic, rock, orchestral, folk,
ambient, all mixed and mastered as records are, Ogg Vorbis and Opus as shipped). apt
installs them when missing (about 270 MB). Each track gives one excerpt of `--length`
seconds, from 30 s in (10 s in for tracks under 100 s), decoded by ffmpeg to 44.1 kHz WAV:
bench/out/real-set/NAME.wav. Another length keeps its excerpts apart (`--length 180`:
bench/out/real-set/180s/, madmom's in bench/out/real-set-madmom/180s/, the reports
real-set-LABEL-180s.*; `--length 0`: whole tracks, `whole/`): 60 s cannot show a level
switch two minutes in.

Nothing here is annotated by hand, so there is no ground truth. What is measured, per
track and as counts:
  F, downF   beat F and downbeat F (mir_eval, ±70 ms) against madmom's DBNDownBeatTracker
             (`bench/beats/run madmom`), the strongest peer on this machine;
  level      madmom's tempo over practice's (median beat intervals): 0.5 means practice
             counts half madmom's beats, 2 twice;
  skipped    the onsets' own word on the level: librosa's onset strength half-way between
             practice's beats over that at its beats (each the largest within 20 ms). At
             0.8 or more the beats skipped are nearly as strong as the beats kept: a
             half-tempo reading by the issue's definition (issue 41's target: none where
             madmom agrees);
  switches   level switches inside the excerpt, practice's and madmom's (`level_switches`:
             the median beat interval of the 10 s after a beat against that of the 10 s
             before it, 1.7 to 2.4 times or its inverse, and stretches of 10 s or more at
             3/2 or 2/3 of the excerpt's median tempo; issue 41's target: none in a steady
             song);
  warned     practice's unclear-beat warning (`practice: warning:` on detect's stderr),
             against the maps that are wrong by madmom and the onsets (`wrong`): how many
             wrong maps were warned, and how many warned maps were right (beat F ≥ 0.8).
madmom's outputs are kept (bench/out/real-set-madmom/) and run again only for a new
excerpt (`--no-madmom`: score only the excerpts madmom has done, for a quick look while it
runs); practice's are made again for a binary newer than them (detect_dir.py).
Writes bench/out/real-set-LABEL.md and .json.
"""

import argparse
import glob
import hashlib
import json
import os
import subprocess
import sys

import numpy as np

from bench.beats.beatlib import OUT, PRACTICE, tool

SET = os.path.join(OUT, "real-set")
MADMOM_DIR = os.path.join(OUT, "real-set-madmom")
PACKAGES = {
    "hedgewars-data": "/usr/share/games/hedgewars/Data/Music",
    "warzone2100-music": "/usr/share/games/warzone2100/music",
    "frozen-bubble-data": "/usr/share/games/frozen-bubble/snd",
}


def tracks():
    """The soundtracks' files: every .ogg/.opus of the music folders (frozen-bubble's
    sound folder: only its three pieces of music, `*zik*`)."""
    missing = [p for p, d in PACKAGES.items() if not os.path.isdir(d)]
    if missing:
        print(f"real-set: apt-get install {' '.join(missing)}", file=sys.stderr)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        cmd = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing]
        if subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL).returncode != 0:
            subprocess.run(["apt-get", "update", "-q"], stdout=subprocess.DEVNULL, check=True)
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True)
    found = []
    for package, folder in PACKAGES.items():
        for path in sorted(glob.glob(os.path.join(folder, "**", "*"), recursive=True)):
            if not path.endswith((".ogg", ".opus")):
                continue
            if package == "frozen-bubble-data" and "zik" not in os.path.basename(path):
                continue
            found.append(path)
    return found


def halves(paths):
    """{name: "tune" | "test"}: within each package, the tracks in the order of the SHA-256
    of their names, alternately to the tuning half (first) and the test half, so each
    package is split evenly. Choices (thresholds, weights) are made on "tune" only."""
    split = {}
    for folder in PACKAGES.values():
        names = [os.path.splitext(os.path.basename(p))[0] for p in paths
                 if p.startswith(folder + "/")]
        names.sort(key=lambda n: hashlib.sha256(n.encode()).hexdigest())
        for i, name in enumerate(names):
            split[name] = "tune" if i % 2 == 0 else "test"
    return split


def variant(length):
    """The folder name of an excerpt length: '' for the 60 s set, '180s', 'whole' (0)."""
    if length == 60:
        return ""
    return "whole" if length <= 0 else f"{length:g}s"


def excerpt(path, length, folder):
    """FOLDER/NAME.wav: `length` s from 30 s in (10 s for short tracks); the whole track
    when `length` is 0."""
    name = os.path.splitext(os.path.basename(path))[0]
    out = os.path.join(folder, name + ".wav")
    if os.path.exists(out):
        return out
    if length > 0:
        probe = subprocess.run(
            ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
             path], capture_output=True, text=True, check=True)
        start = 30 if float(probe.stdout.strip() or 0) >= 100 else 10
        cut = ["-ss", str(start), "-t", str(length)]
    else:
        cut = []
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *cut, "-i", path, "-ac", "2",
                    "-ar", "44100", out + ".wav"], check=True)
    os.replace(out + ".wav", out)
    return out


def load(path):
    if not os.path.exists(path):
        return np.array([]), np.array([])
    rows = [line.split() for line in open(path) if line.strip()]
    times = np.array([float(r[0]) for r in rows])
    numbers = np.array([float(r[1]) if len(r) > 1 else 0 for r in rows])
    return times, numbers


def skipped_ratio(envelope, beats):
    """Onset strength half-way between the beats over that at them (largest within 20 ms
    of each; the envelope has 100 frames a second)."""
    if len(beats) < 4:
        return float("nan")

    def at(times):
        frames = np.clip(np.round(np.asarray(times) * 100).astype(int), 0, len(envelope) - 1)
        return np.array([envelope[max(0, f - 2):f + 3].max() for f in frames])

    return float(at((beats[1:] + beats[:-1]) / 2).mean() / max(1e-9, at(beats).mean()))


# A stretch whose tempo is within this ratio of 3/2 or 2/3 of the song's tempo (its median
# beat interval) for at least `hold` seconds is at another level (MetricalLevel.threeAgainstTwo).
THREE_AGAINST_TWO = 1.06


def three_against_two(beats, hold=10.0):
    """The (first, last) beat indices of each run of beats whose tempo (the median interval
    of the `hold` seconds around each) is within THREE_AGAINST_TWO of 3/2 or 2/3 of the
    song's, lasting at least `hold` seconds (MetricalLevel.threeAgainstTwoStretches)."""
    beats = np.asarray(beats)
    if len(beats) < 8:
        return []
    song = float(np.median(np.diff(beats)))
    labels = []
    for t in beats:
        near = beats[(beats >= t - hold / 2) & (beats <= t + hold / 2)]
        if len(near) < 5:
            labels.append(0)
            continue
        r = song / float(np.median(np.diff(near)))
        lim = np.log(THREE_AGAINST_TWO)
        labels.append(1 if abs(np.log(r / 1.5)) < lim else -1 if abs(np.log(r * 1.5)) < lim else 0)
    found, i = [], 0
    while i < len(beats):
        if labels[i] == 0:
            i += 1
            continue
        j = i
        while j + 1 < len(beats) and labels[j + 1] == labels[i]:
            j += 1
        if beats[j] - beats[i] >= hold:
            found.append((i, j))
        i = j + 1
    return found


def level_switches(beats, hold=10.0):
    """Where the metrical level changes and stays (MetricalLevel.switches): the duple
    switches (`duple_switches`) and the edges of the three-against-two stretches
    (`three_against_two`) more than `hold` seconds from any of those. Returns (time, ratio
    of the tempo after over before) pairs, in order."""
    beats = np.asarray(beats)
    duple = duple_switches(beats, hold)
    found = list(duple)
    if len(beats) < 8:
        return found
    song = float(np.median(np.diff(beats)))
    for i, j in three_against_two(beats, hold):
        if any(beats[i] - hold <= t <= beats[j] + hold for t, _ in duple):
            continue
        r = song / float(np.median(np.diff(beats[i:j + 1])))
        found.append((float(beats[i]), r))
        if j + 1 < len(beats):
            found.append((float(beats[j + 1]), 1 / r))
    return sorted(found)


def duple_switches(beats, hold=10.0, low=1.7, high=2.4):
    """Where the metrical level jumps by twice or half and stays: the times at which the
    median beat interval of the `hold` seconds after a beat is `low` to `high` times that of
    the `hold` seconds before it, or its inverse (twice or half the tempo, as against a
    ritardando to 0.6 of the tempo, 1.67). Each is placed, among the beats of its run, where
    the ratio of the mean intervals is furthest from 1 (the medians' ratio is flat around a
    sharp switch); after one, the next is looked for `hold` seconds on. Returns (time, ratio
    of the tempo after over before) pairs."""

    def is_switch(r):
        return low <= max(r, 1 / r) <= high

    beats = np.asarray(beats)
    if len(beats) < 8:
        return []
    found = []
    i = 1
    while i < len(beats) - 1:
        t = beats[i]
        if t - beats[0] < hold or beats[-1] - t < hold:
            i += 1
            continue

        def ratio(k):
            """The tempo after beat k over the tempo before: by the medians, the means."""
            tk = beats[k]
            before = np.diff(beats[(beats >= tk - hold) & (beats <= tk)])
            after = np.diff(beats[(beats >= tk) & (beats <= tk + hold)])
            if len(before) < 3 or len(after) < 3:
                return 1.0, 1.0
            return (float(np.median(before) / np.median(after)),
                    float(np.mean(before) / np.mean(after)))

        r, m = ratio(i)
        if is_switch(r):
            best, k = (i, r, m), i + 1
            while k < len(beats) - 1 and beats[-1] - beats[k] >= hold:
                rk, mk = ratio(k)
                if not is_switch(rk):
                    break
                if abs(np.log2(mk)) > abs(np.log2(best[2])):
                    best = (k, rk, mk)
                k += 1
            found.append((float(beats[best[0]]), best[1]))
            i = int(np.searchsorted(beats, beats[best[0]] + hold))
        else:
            i += 1
    return found


def wrong(r):
    """A map wrong by madmom and the onsets together: at another metrical level than
    madmom's (tempo ratio outside 0.9-1.1) where the onsets side with madmom (practice at
    half its tempo or slower, skipping beats at least 0.8 as strong as those kept; at
    twice or faster, its extra beats, madmom's half-way points, under 0.8 as strong as
    madmom's; at any other ratio, 3/2 say, the onsets cannot say and madmom is taken), or
    at madmom's level with beat F under 0.5 (the off-beats)."""
    level = r["level"]
    if not level:
        return True
    if 0.9 <= level <= 1.1:
        return r["beat_f"] < 0.5
    if level >= 1.8:
        return r["skipped"] >= 0.8
    if level <= 1 / 1.8:
        return r["madmom_skipped"] < 0.8
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=PRACTICE)
    ap.add_argument("--label", default="practice")
    ap.add_argument("--env", nargs="*", default=[], help="K=V for practice (a model, say)")
    ap.add_argument("--length", type=float, default=60,
                    help="seconds an excerpt (0: whole tracks); 60 is the set")
    ap.add_argument("--half", choices=("tune", "test", "all"), default="all",
                    help="the tuning half, the test half (`halves`), or every excerpt")
    ap.add_argument("--no-madmom", action="store_true",
                    help="score only excerpts madmom has done; do not run it")
    args = ap.parse_args()
    import librosa  # noqa: E402 (optional in setup.sh: needed here)
    import mir_eval  # noqa: E402

    kind = variant(args.length)
    folder = os.path.join(SET, kind)
    madmom_dir = os.path.join(MADMOM_DIR, kind)
    label = args.label + (f"-{kind}" if kind else "")
    os.makedirs(folder, exist_ok=True)
    paths = tracks()
    split = halves(paths)
    if args.half != "all":
        paths = [p for p in paths
                 if split[os.path.splitext(os.path.basename(p))[0]] == args.half]
        label += f"-{args.half}"
    wavs = [excerpt(t, args.length, folder) for t in paths]
    todo = [w for w in wavs if not os.path.exists(
        os.path.join(madmom_dir, os.path.basename(w)[:-4] + ".beats"))]
    if todo and not args.no_madmom:
        print(f"real-set: madmom on {len(todo)} excerpts (about a quarter of their length "
              "each)", file=sys.stderr)
        subprocess.run(["nice", "-n", "10", *tool("madmom", madmom_dir, *todo)],
                       stdout=subprocess.DEVNULL, check=True)
    det = os.path.join(OUT, f"real-set-{label}")
    cmd = tool("detect-dir", args.bin, folder, det, "--half", "all")
    if args.env:
        cmd += ["--env", *args.env]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)

    with open(os.path.join(det, "runs.json")) as f:
        runs = json.load(f)
    rows = []
    # practice's own level switches, on every excerpt it mapped (madmom's or not).
    own = {}
    for wav in wavs:
        name = os.path.basename(wav)[:-4]
        rt, rn = load(os.path.join(madmom_dir, name + ".beats"))
        dt, dn = load(os.path.join(det, name + ".beats"))
        if len(dt):
            own[name] = level_switches(dt)
        if len(rt) < 4:
            continue  # madmom found no beat (or has not run): nothing to compare with
        y, sr = librosa.load(wav, sr=22050, mono=True)
        envelope = librosa.onset.onset_strength(y=y, sr=sr, hop_length=220)
        rows.append({
            "name": name,
            "beat_f": float(mir_eval.beat.f_measure(rt, dt)) if len(dt) else 0.0,
            "downbeat_f": float(mir_eval.beat.f_measure(rt[rn == 1], dt[dn == 1]))
            if len(dt) and (dn == 1).any() else 0.0,
            "madmom_bpm": float(60 / np.median(np.diff(rt))),
            "practice_bpm": float(60 / np.median(np.diff(dt))) if len(dt) > 3 else 0.0,
            "skipped": skipped_ratio(envelope, dt),
            "madmom_skipped": skipped_ratio(envelope, rt),
            "switches": level_switches(dt),
            "madmom_switches": level_switches(rt),
            "warned": "warning:" in runs.get(name, {}).get("stderr", ""),
        })
    for r in rows:
        r["level"] = r["madmom_bpm"] / r["practice_bpm"] if r["practice_bpm"] else 0.0
        r["wrong"] = wrong(r)
    half = [r for r in rows if 0 < r["level"] and 1 / r["level"] < 0.6]
    wrong_maps = [r for r in rows if r["wrong"]]
    warned = [r for r in rows if r["warned"]]
    summary = {
        "tracks": len(rows),
        "beat_f": float(np.mean([r["beat_f"] for r in rows])) if rows else float("nan"),
        "downbeat_f": float(np.mean([r["downbeat_f"] for r in rows])) if rows else float("nan"),
        "same_level": sum(abs(r["level"] - 1) < 0.1 for r in rows),
        "half": len(half),
        "half_skipping_strong_beats": sum(r["skipped"] >= 0.8 for r in half),
        "double": sum(r["level"] and 1 / r["level"] > 1.8 for r in rows),
        "switches": sum(len(r["switches"]) for r in rows),
        "tracks_switching": sum(bool(r["switches"]) for r in rows),
        "madmom_switches": sum(len(r["madmom_switches"]) for r in rows),
        "madmom_tracks_switching": sum(bool(r["madmom_switches"]) for r in rows),
        "switching_where_madmom_holds": sum(
            bool(r["switches"]) and not r["madmom_switches"] for r in rows),
        "mapped": len(own),
        "own_switches": sum(len(v) for v in own.values()),
        "own_tracks_switching": sum(bool(v) for v in own.values()),
        "wrong": len(wrong_maps),
        "wrong_warned": sum(r["warned"] for r in wrong_maps),
        "warned": len(warned),
        "warned_right": sum(r["beat_f"] >= 0.8 for r in warned),
    }
    def switches(found):
        return " ".join(f"{t:.0f}s×{x:.2f}" for t, x in found) or "-"

    lines = [f"# Real music: {label} against madmom ({summary['tracks']} excerpts)", "",
             "| track | beat F | downbeat F | madmom BPM | practice BPM | skipped/kept | "
             "switches (practice / madmom) | warned | wrong |",
             "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['beat_f']:.2f} | {r['downbeat_f']:.2f} | "
                     f"{r['madmom_bpm']:.1f} | {r['practice_bpm']:.1f} | {r['skipped']:.2f} | "
                     f"{switches(r['switches'])} / {switches(r['madmom_switches'])} | "
                     f"{'yes' if r['warned'] else ''} | {'yes' if r['wrong'] else ''} |")
    switching = {k: v for k, v in own.items() if v}
    if switching:
        lines += ["", f"practice's level switches, all {len(own)} excerpts it mapped:", "",
                  "| track | switches (time × tempo after/before) |", "| --- | --- |"]
        lines += [f"| {k} | {switches(v)} |" for k, v in sorted(switching.items())]
    s = summary
    lines += ["", f"mean beat F {s['beat_f']:.3f}, downbeat F {s['downbeat_f']:.3f}"
              f" (against madmom); madmom's level in {s['same_level']}, half of it in "
              f"{s['half']} (skipped beats ≥ 0.8 as strong as kept in "
              f"{s['half_skipping_strong_beats']}), twice it in {s['double']}",
              f"level switches: practice {s['switches']} in {s['tracks_switching']} tracks "
              f"({s['switching_where_madmom_holds']} where madmom holds its level), madmom "
              f"{s['madmom_switches']} in {s['madmom_tracks_switching']}; practice on all "
              f"{s['mapped']} excerpts: {s['own_switches']} in {s['own_tracks_switching']}",
              f"warnings: {s['wrong_warned']} of {s['wrong']} wrong maps warned; "
              f"{s['warned_right']} of {s['warned']} warned maps right (beat F ≥ 0.8)"]
    with open(os.path.join(OUT, f"real-set-{label}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(OUT, f"real-set-{label}.json"), "w") as f:
        json.dump({"summary": summary, "tracks": rows}, f, indent=1)
    print("\n".join(lines[-3:]))


if __name__ == "__main__":
    main()
