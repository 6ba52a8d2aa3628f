#!/usr/bin/env python3
"""Issue 2, target 1: time from process start to the first frame handed to ALSA.

`practice play` of a 1 s range near the start (--from 10 --to 11) and near the end
(--from 3580 --to 3581) of a 60-minute stereo 44.1 kHz FLAC, on the ALSA `null` PCM.
With PRACTICE_TRACE=1 the player prints the CLOCK_MONOTONIC time at which it handed the
first frame to the sink; Python's time.monotonic_ns() is the same clock, read just
before spawning the process. The song is added to the library first; a first-use figure
(song not yet in the library, so `play` scans it) is reported separately.
"""

import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

RUNS = int(os.environ.get("BENCH_LATENCY_RUNS", "15"))
WARMUP = 2
FIRST_USE_RUNS = 3
RANGES = {"near start": ("10", "11"), "near end": ("3580", "3581")}
TARGET_MS = 50.0
MAX_SPREAD = 0.20

TRACE = re.compile(r"trace first-frame-ns (\d+) last-frame-ns (\d+) end-ns (\d+)")


def timed_play(binary, db, song, start, end):
    """(ms from spawn to first frame, ms from spawn to exit) of one `play` on null."""
    env = dict(os.environ, PRACTICE_TRACE="1")
    cmd = [binary, "play", "--db", db, song, "--from", start, "--to", end, "--device", "null"]
    t0 = time.monotonic_ns()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    t1 = time.monotonic_ns()
    match = TRACE.search(proc.stderr)
    if proc.returncode != 0 or not match:
        sys.exit(f"start-latency: {' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return (int(match.group(1)) - t0) / 1e6, (t1 - t0) / 1e6


def timed_run(cmd):
    t0 = time.monotonic_ns()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.monotonic_ns() - t0) / 1e6


def main():
    binary = b.practice_bin()
    song = b.long_flac()
    with b.TempDir() as tmp:
        db = os.path.join(tmp, "library.sqlite")
        b.practice(binary, "add", song, db=db, stdout=subprocess.DEVNULL)

        # Warm up (page cache, dynamic loader), then alternate the two ranges so that
        # noise from the shared machine hits both alike.
        for _ in range(WARMUP):
            for start, end in RANGES.values():
                timed_play(binary, db, song, start, end)
        first = {name: [] for name in RANGES}
        total = {name: [] for name in RANGES}
        for _ in range(RUNS):
            for name, (start, end) in RANGES.items():
                f, t = timed_play(binary, db, song, start, end)
                first[name].append(f)
                total[name].append(t)

        # Floor: a command that does no audio work (open the library, list one song).
        floor = [timed_run([binary, "list", "--db", db]) for _ in range(RUNS)]

        # First use: the library exists, the song is not in it, so `play` scans it
        # (libsndfile open, content fingerprint, insert) before playing.
        first_use = []
        for i in range(FIRST_USE_RUNS):
            fresh = os.path.join(tmp, f"first-use-{i}.sqlite")
            b.practice(binary, "list", db=fresh, stdout=subprocess.DEVNULL)
            start, end = RANGES["near start"]
            first_use.append(timed_play(binary, fresh, song, start, end)[0])

    for name in RANGES:
        print(f"start-latency {name}: " + " ".join(f"{v:.1f}" for v in first[name]) + " ms",
              file=sys.stderr)
    med = {name: b.median(v) for name, v in first.items()}
    spread = abs(med["near end"] - med["near start"]) / min(med.values())
    rows = []
    for name, (start, end) in RANGES.items():
        rows.append(b.row(
            f"first frame, `--from {start} --to {end}` ({name}): median (p90)",
            f"{med[name]:.1f} ms ({b.p90(first[name]):.1f} ms)", f"≤ {TARGET_MS:.0f} ms",
            med[name] <= TARGET_MS))
    rows.append(b.row(
        "difference between the two medians", f"{spread * 100:.1f} %",
        f"≤ {MAX_SPREAD * 100:.0f} %", spread <= MAX_SPREAD))
    rows.append(b.row(
        "first use (song not yet in library), near start: median of "
        f"{FIRST_USE_RUNS} (all)",
        f"{b.median(first_use):.1f} ms ({', '.join(f'{v:.1f}' for v in first_use)})"))
    rows.append(b.row(
        "process start to exit, near start / near end: median",
        f"{b.median(total['near start']):.1f} ms / {b.median(total['near end']):.1f} ms"))
    rows.append(b.row(
        "floor: `practice list` (1 song) start to exit: median", f"{b.median(floor):.1f} ms"))
    b.write_results(
        "start-latency", "1. Start latency (process start → first frame to ALSA)", rows,
        notes=[
            f"60-minute stereo 44.1 kHz 16-bit FLAC ({os.path.getsize(song) / 1e6:.0f} MB, "
            "pink noise, made by sox, which writes a seek table), warm page cache, "
            "`--device null`, song already in the library.",
            f"{RUNS} runs per range after {WARMUP} warm-ups, the two ranges alternated; "
            "pass/fail is judged on the median.",
            "Difference = |median near end − median near start| / the smaller median.",
        ])


if __name__ == "__main__":
    main()
