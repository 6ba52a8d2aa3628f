"""Runs the baseline beat trackers on the set, writes their beats and scores them.

  bench/beats/run baselines [--set DIR] [--out DIR] [--force] [--only NAME...] [--jobs N]

  aubio    the `aubio beat FILE` command of Debian's aubio-tools 0.4.9 (the Python CLI
           over libaubio: its default tempo tracker, 1024/512 at the file's rate)
  librosa  librosa.beat.beat_track (default settings: 22,050 Hz mono, hop 512), only if
           librosa is installed in the venv (bench/beats/setup.sh installs it when PyPI has
           it); otherwise reported as missing

  madmom   madmom 0.16.1's neural beat and downbeat tracker (madmom_track.py, in
           bench/out/madmom-venv), only if setup.sh could build it

aubio and librosa report no downbeats: their NAME.beats files hold one time per line
(score.py reads that as beats without downbeats); madmom's hold time and beat-in-bar.
Output: bench/out/beats-baselines/TRACKER/NAME.beats, timing.json (CPU and wall seconds
per piece, whole process for aubio, the load + track call for librosa and madmom),
score-TRACKER.json and .md, and summary.json.
Detections are reused unless --force or the audio is newer.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

from bench.beats import score as score_mod
from bench.beats.beatlib import MADMOM_PY, OUT, SET, tool


def wav_seconds(path):
    import wave
    with wave.open(path) as w:
        return w.getnframes() / w.getframerate()


def fresh(out_path, wav):
    return os.path.exists(out_path) and os.path.getmtime(out_path) >= os.path.getmtime(wav)


def write_times(path, times):
    with open(path + ".partial", "w") as f:
        for t in times:
            f.write(f"{t:.6f}\n")
    os.replace(path + ".partial", path)


def run_aubio(wav, out_path):
    """Wall seconds of `aubio beat WAV` (one time in seconds per line on stdout); its CPU
    time is read by the caller from RUSAGE_CHILDREN."""
    t0 = time.monotonic()
    proc = subprocess.Popen(["aubio", "beat", wav], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    stdout, stderr = proc.communicate()
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        sys.exit(f"baselines: aubio beat {wav} failed: {stderr.strip()}")
    times = [float(x) for x in stdout.split()]
    write_times(out_path, times)
    return wall


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_librosa(librosa, wav, out_path):
    """(cpu s, wall s) of librosa.load + librosa.beat.beat_track, in this process."""
    c0, t0 = time.process_time(), time.monotonic()
    y, sr = librosa.load(wav, sr=22050, mono=True)
    _, times = librosa.beat.beat_track(y=y, sr=sr, units="time")
    cpu, wall = time.process_time() - c0, time.monotonic() - t0
    write_times(out_path, [float(t) for t in times])
    return cpu, wall




def madmom_version():
    """madmom's version in its venv, or None when setup.sh could not build it."""
    if not os.path.exists(MADMOM_PY):
        return None
    proc = subprocess.run([MADMOM_PY, "-W", "ignore", "-c",
                           "import madmom; print(madmom.__version__)"],
                          capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def run_madmom(wavs, outdir, jobs=1):
    """{name: (cpu s, wall s)} of madmom_track.py on `wavs`: `jobs` processes (each taking
    every jobs-th file), one thread each."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    procs = [subprocess.Popen(tool("madmom", outdir, *wavs[k::jobs]), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env)
             for k in range(jobs) if wavs[k::jobs]]
    times = {}
    for proc in procs:
        stdout, stderr = proc.communicate()
        if proc.returncode != 0:
            sys.exit(f"baselines: madmom_track.py failed: {stderr.strip()[-2000:]}")
        for line in stdout.splitlines():
            r = json.loads(line)
            times[r["name"]] = (r["cpu_s"], r["wall_s"])
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", default=SET)
    ap.add_argument("--out", default=os.path.join(OUT, "beats-baselines"))
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--only", nargs="*", help="only these pieces of the set")
    ap.add_argument("--jobs", type=int, default=1, help="madmom processes at once")
    args = ap.parse_args()
    names = sorted(f[:-6] for f in os.listdir(args.set) if f.endswith(".beats")
                   and (not args.only or f[:-6] in args.only))
    if not names:
        sys.exit(f"baselines: no set in {args.set}; run `models/run set`")
    timing_path = os.path.join(args.out, "timing.json")
    timing = {}
    if os.path.exists(timing_path) and not args.force:
        with open(timing_path) as f:
            timing = json.load(f)

    trackers = {"aubio": "aubio beat (aubio-tools 0.4.9 CLI)"}
    try:
        import librosa  # noqa: F401
        trackers["librosa"] = f"librosa {librosa.__version__} beat.beat_track"
    except ImportError:
        librosa = None
        print("baselines: librosa is not installed (setup.sh could not install it from PyPI); "
              "carrying on with aubio only", file=sys.stderr)

    missing = [] if librosa else ["librosa"]
    madmom = madmom_version()
    if madmom:
        trackers["madmom"] = (f"madmom {madmom} DBNDownBeatTracker (neural network and "
                              "dynamic Bayesian network, bars of 3 or 4 beats)")
    else:
        missing.append("madmom")
        print("baselines: madmom is not built (setup.sh could not build it); carrying on "
              "without it", file=sys.stderr)

    for tracker in trackers:
        os.makedirs(os.path.join(args.out, tracker), exist_ok=True)
        timing.setdefault(tracker, {})
        if tracker == "madmom":
            todo = [name for name in names if args.force or name not in timing[tracker]
                    or not fresh(os.path.join(args.out, tracker, name + ".beats"),
                                 os.path.join(args.set, name + ".wav"))]
            if todo:
                print(f"baselines: madmom on {len(todo)} pieces (about 6 s each)",
                      file=sys.stderr, flush=True)
                wavs = [os.path.join(args.set, name + ".wav") for name in todo]
                for name, (cpu, wall) in run_madmom(wavs, os.path.join(args.out, tracker),
                                                    args.jobs).items():
                    timing[tracker][name] = {"cpu_s": cpu, "wall_s": wall,
                                             "audio_s": wav_seconds(os.path.join(args.set, name + ".wav"))}
            with open(timing_path, "w") as f:
                json.dump(timing, f, indent=1)
            continue
        for name in names:
            wav = os.path.join(args.set, name + ".wav")
            out_path = os.path.join(args.out, tracker, name + ".beats")
            if not args.force and fresh(out_path, wav) and name in timing[tracker]:
                continue
            if tracker == "aubio":
                c0 = children_cpu()
                wall = run_aubio(wav, out_path)
                cpu = children_cpu() - c0
            else:
                cpu, wall = run_librosa(librosa, wav, out_path)
            timing[tracker][name] = {"cpu_s": cpu, "wall_s": wall, "audio_s": wav_seconds(wav)}
            print(f"baselines: {tracker} {name}: {cpu:.2f} s CPU", file=sys.stderr, flush=True)
        with open(timing_path, "w") as f:  # after each tracker: an interrupted run keeps it
            json.dump(timing, f, indent=1)
    with open(timing_path, "w") as f:
        json.dump(timing, f, indent=1)

    summary = {"trackers": trackers, "missing": missing}
    for tracker in trackers:
        res = score_mod.score(args.set, os.path.join(args.out, tracker),
                              set(names) if args.only else None)
        res["name"] = tracker
        with open(os.path.join(args.out, f"score-{tracker}.json"), "w") as f:
            json.dump(res, f, indent=1)
        with open(os.path.join(args.out, f"score-{tracker}.md"), "w") as f:
            f.write(score_mod.markdown_report(res, trackers[tracker]) + "\n")
        t = [timing[tracker][n] for n in names]
        audio = sum(x["audio_s"] for x in t)
        summary[tracker] = {
            "means": res["means"],
            "per_piece_beat_f": {n: r["beat_f"] for n, r in res["pieces"].items()},
            "per_piece_downbeat_f": {n: r["downbeat_f"] for n, r in res["pieces"].items()},
            "cpu_s": sum(x["cpu_s"] for x in t), "wall_s": sum(x["wall_s"] for x in t),
            "audio_s": audio,
            "x_realtime_cpu": audio / max(1e-9, sum(x["cpu_s"] for x in t)),
            "x_realtime_wall": audio / max(1e-9, sum(x["wall_s"] for x in t)),
        }
        print(score_mod.text_report(res, trackers[tracker]))
        print(f"{tracker}: {audio:.0f} s of audio in {summary[tracker]['cpu_s']:.1f} s CPU "
              f"({summary[tracker]['x_realtime_cpu']:.0f}x real time), "
              f"{summary[tracker]['wall_s']:.1f} s wall\n")
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
