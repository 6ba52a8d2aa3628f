#!/usr/bin/env python3
"""Issue 24: `practice view` of a 60-minute song once its waveform summary is stored.

The 60-minute stereo 44.1 kHz FLAC of issue 2, a 120 BPM grid (1,800 bars, 7,200 beats)
and three selections. The first `view` reads the whole file for the summary (timed once,
for information); then hyperfine times `view` of the whole song and of 16 bars in its
middle at 120 columns, and `view -o` of a PNG, output to /dev/null. Target: <= 50 ms.
"""

import os
import sqlite3
import subprocess
import sys

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

RUNS = 30
WARMUP = 3
TARGET_MS = 50.0
CPU_RUNS = 15


def main():
    binary = b.practice_bin()
    song = b.long_flac()
    load = os.getloadavg()[0]
    with b.TempDir() as tmp:
        db = os.path.join(tmp, "library.sqlite")
        b.practice(binary, "add", song, db=db, stdout=subprocess.DEVNULL)
        subprocess.run([binary, "beats", "grid", "1", "--bpm", "120", "--db", db], check=True,
                       stderr=subprocess.DEVNULL)
        for name, bars in [("intro", "1-8"), ("solo", "897-912"), ("coda", "1790-1800")]:
            subprocess.run([binary, "select", "add", "1", name, "--bars", bars, "--db", db],
                           check=True, stderr=subprocess.DEVNULL)
        first = b.child([binary, "view", "1", "--db", db, "--width", "120"], "view-60min")
        con = sqlite3.connect(db)
        size = con.execute("SELECT length(envelope) FROM waveform_summary").fetchone()[0]
        con.close()
        png = os.path.join(tmp, "overview.png")
        names = ["view, whole song", "view --bars 897-912", "view -o overview.png"]
        results = b.hyperfine(
            [f"{binary} view 1 --db {db} --width 120",
             f"{binary} view 1 --db {db} --width 120 --bars 897-912",
             f"{binary} view 1 --db {db} -o {png}"],
            runs=RUNS, warmup=WARMUP, names=names)
        lines = b.practice(binary, "view", "1", "--width", "120", db=db,
                           stdout=subprocess.PIPE).stdout.count(b"\n")
        # CPU (user + sys) per run, which a busy machine inflates far less than wall time;
        # `list` of the same library is the cost of starting and opening the library.
        cpu = {}
        for name, args in [("view", ["view", "1", "--width", "120"]), ("list", ["list"]),
                           ("beats show", ["beats", "show", "1"])]:
            cpu[name] = b.median([b.child([binary] + args + ["--db", db], "view-60min").cpu
                                  for _ in range(CPU_RUNS)]) * 1000

    rows = []
    for name, result in zip(names, results):
        med, mean, sd = (result[k] * 1000 for k in ("median", "mean", "stddev"))
        text = "-o" not in name
        rows.append(b.row(
            f"`practice {name}`, 60 min, summary stored: median (mean ± σ)",
            f"{med:.1f} ms ({mean:.1f} ± {sd:.1f} ms)",
            f"≤ {TARGET_MS:.0f} ms" if text else "", (med <= TARGET_MS) if text else None))
    rows.append(b.row(
        "CPU per run (user + sys, median of 15): `view` whole song; `list`; `beats show`",
        f"{cpu['view']:.1f} ms; {cpu['list']:.1f} ms; {cpu['beats show']:.1f} ms"))
    rows.append(b.row("first `view` (reads the file for the summary): wall, CPU",
                      f"{first.wall:.2f} s, {first.cpu:.2f} s CPU"))
    rows.append(b.row("summary stored for 60 min", f"{size:,} bytes"))
    b.write_results(
        "view-60min", "24. `practice view` of a 60-minute song", rows,
        notes=["60-minute stereo 44.1 kHz FLAC of pink noise (bench/out/long-60min.flac), a "
               "120 BPM grid of 1,800 bars, 3 selections; the text view is 120 columns, "
               f"{lines} lines; output to /dev/null. Load average when it started: {load:.1f} on "
               f"{len(os.sched_getaffinity(0))} cores (a busy machine makes wall times "
               "several times the CPU times).",
               f"hyperfine -N, {WARMUP} warm-ups, {RUNS} runs; pass/fail on the median of the "
               "text views (the PNG is for information). `list` and `beats show` show what starting, "
               "opening the library and loading the 1,800-bar beat map cost on the same machine "
               "at the same time."])


if __name__ == "__main__":
    main()
