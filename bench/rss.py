#!/usr/bin/env python3
"""Issue 2, target 2: peak resident memory while playing the 60-minute FLAC.

Plays the whole 60-minute FLAC on the ALSA `null` PCM (not paced, so it takes as long
as decoding takes) and reads the child's peak RSS from wait4()'s rusage (ru_maxrss,
the same figure as `/usr/bin/time -v`'s "Maximum resident set size").
"""

import os
import subprocess
import sys

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

RUNS = 3
TARGET_MIB = 40.0


def run(cmd):
    """(peak RSS in MiB, wall seconds, CPU seconds) of one child process."""
    c = b.child(cmd, "rss")
    if "warning" in c.stderr:
        sys.exit(f"rss: {' '.join(cmd)} warned: {c.stderr.strip()}")
    return c.maxrss_kib / 1024, c.wall, c.cpu


def main():
    binary = b.practice_bin()
    song = b.long_flac()
    with b.TempDir() as tmp:
        db = os.path.join(tmp, "library.sqlite")
        b.practice(binary, "add", song, db=db, stdout=subprocess.DEVNULL)
        full = [run([binary, "play", "--db", db, song, "--device", "null"]) for _ in range(RUNS)]
        short = [run([binary, "play", "--db", db, song, "--from", "3580", "--to", "3581",
                      "--device", "null"]) for _ in range(RUNS)]
        floor = [run([binary, "list", "--db", db]) for _ in range(RUNS)]

    peak = max(r[0] for r in full)
    wall = b.median([r[1] for r in full])
    rows = [
        b.row(f"peak RSS, whole 60-minute FLAC on `null` (max of {RUNS} runs)",
              f"{peak:.1f} MiB", f"≤ {TARGET_MIB:.0f} MiB", peak <= TARGET_MIB),
        b.row("peak RSS, 1 s range near the end on `null` (max)",
              f"{max(r[0] for r in short):.1f} MiB"),
        b.row("peak RSS, `practice list` (1 song) (max)", f"{max(r[0] for r in floor):.1f} MiB"),
        b.row("whole-file play on `null`: wall time, median (= decode speed)",
              f"{wall:.2f} s ({3600 / wall:.0f}× real time, "
              f"CPU {b.median([r[2] for r in full]):.2f} s)"),
    ]
    b.write_results(
        "rss", "2. Peak memory while playing the 60-minute FLAC", rows,
        notes=["Peak RSS from wait4() rusage (ru_maxrss), in MiB (1 MiB = 1024 KiB).",
               "`null` is not paced, so the whole hour is decoded and handed to ALSA as fast "
               "as the engine runs: every buffer is exercised, the run takes seconds."])


if __name__ == "__main__":
    main()
