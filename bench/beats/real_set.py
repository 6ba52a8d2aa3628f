"""Beat maps on released, produced music: practice against madmom and the onsets.

  bench/beats/run real-set [--bin PRACTICE_BIN] [--label NAME] [--env K=V ...] [--length 60]
      (in bench/out/venv; bench/beats/setup.sh makes it)

The music: every soundtrack Debian ships in three game-data packages (hedgewars-data,
warzone2100-music, frozen-bubble-data; 59 tracks: electronic, rock, orchestral, folk,
ambient, all mixed and mastered as records are, Ogg Vorbis and Opus as shipped). apt
installs them when missing (about 270 MB). Each track gives one excerpt of `--length`
seconds, from 30 s in (10 s in for tracks under 100 s), decoded by ffmpeg to 44.1 kHz WAV:
bench/out/real-set/NAME.wav.

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
             madmom agrees).
madmom's outputs are kept (bench/out/real-set-madmom/) and run again only for a new
excerpt; practice's are made again for a binary newer than them (detect_dir.py).
Writes bench/out/real-set-LABEL.md and .json.
"""

import argparse
import glob
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


def excerpt(path, length):
    """bench/out/real-set/NAME.wav: `length` s from 30 s in (10 s for short tracks)."""
    name = os.path.splitext(os.path.basename(path))[0]
    out = os.path.join(SET, name + ".wav")
    if os.path.exists(out):
        return out
    probe = subprocess.run(
        ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path],
        capture_output=True, text=True, check=True)
    start = 30 if float(probe.stdout.strip() or 0) >= 100 else 10
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-ss", str(start), "-t",
                    str(length), "-i", path, "-ac", "2", "-ar", "44100", out + ".wav"],
                   check=True)
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=PRACTICE)
    ap.add_argument("--label", default="practice")
    ap.add_argument("--env", nargs="*", default=[], help="K=V for practice (a model, say)")
    ap.add_argument("--length", type=float, default=60)
    args = ap.parse_args()
    import librosa  # noqa: E402 (optional in setup.sh: needed here)
    import mir_eval  # noqa: E402

    os.makedirs(SET, exist_ok=True)
    wavs = [excerpt(t, args.length) for t in tracks()]
    todo = [w for w in wavs if not os.path.exists(
        os.path.join(MADMOM_DIR, os.path.basename(w)[:-4] + ".beats"))]
    if todo:
        print(f"real-set: madmom on {len(todo)} excerpts (about 15 s each)", file=sys.stderr)
        subprocess.run(["nice", "-n", "10", *tool("madmom", MADMOM_DIR, *todo)],
                       stdout=subprocess.DEVNULL, check=True)
    det = os.path.join(OUT, f"real-set-{args.label}")
    cmd = tool("detect-dir", args.bin, SET, det, "--half", "all")
    if args.env:
        cmd += ["--env", *args.env]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)

    rows = []
    for wav in wavs:
        name = os.path.basename(wav)[:-4]
        rt, rn = load(os.path.join(MADMOM_DIR, name + ".beats"))
        dt, dn = load(os.path.join(det, name + ".beats"))
        if len(rt) < 4:
            continue  # madmom found no beat: nothing to compare with
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
        })
    for r in rows:
        r["level"] = r["madmom_bpm"] / r["practice_bpm"] if r["practice_bpm"] else 0.0
    half = [r for r in rows if 0 < r["level"] and 1 / r["level"] < 0.6]
    summary = {
        "tracks": len(rows),
        "beat_f": float(np.mean([r["beat_f"] for r in rows])),
        "downbeat_f": float(np.mean([r["downbeat_f"] for r in rows])),
        "same_level": sum(abs(r["level"] - 1) < 0.1 for r in rows),
        "half": len(half),
        "half_skipping_strong_beats": sum(r["skipped"] >= 0.8 for r in half),
        "double": sum(r["level"] and 1 / r["level"] > 1.8 for r in rows),
    }
    lines = [f"# Real music: {args.label} against madmom ({summary['tracks']} excerpts)", "",
             "| track | beat F | downbeat F | madmom BPM | practice BPM | skipped/kept |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['beat_f']:.2f} | {r['downbeat_f']:.2f} | "
                     f"{r['madmom_bpm']:.1f} | {r['practice_bpm']:.1f} | {r['skipped']:.2f} |")
    lines += ["", f"mean beat F {summary['beat_f']:.3f}, downbeat F {summary['downbeat_f']:.3f}"
              f" (against madmom); madmom's level in {summary['same_level']}, half of it in "
              f"{summary['half']} (skipped beats ≥ 0.8 as strong as kept in "
              f"{summary['half_skipping_strong_beats']}), twice it in {summary['double']}"]
    with open(os.path.join(OUT, f"real-set-{args.label}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(OUT, f"real-set-{args.label}.json"), "w") as f:
        json.dump({"summary": summary, "tracks": rows}, f, indent=1)
    print(lines[-1])


if __name__ == "__main__":
    main()
