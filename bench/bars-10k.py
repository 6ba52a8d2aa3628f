#!/usr/bin/env python3
"""Issue 3, target 2: `play --bars` start-up in a library of 10,000 songs and 5 M beats.

Two libraries hold the same real song (the 35-minute mono 8 kHz WAV, `practice add`)
with the same 500-beat map (`practice beats import` of a times file: 125 bars of 4/4 at
120 BPM). The small one holds nothing else; the large one also holds 9,999 songs whose
rows point at files that do not exist (never opened), each with a 500-beat map, all
inserted with Python's sqlite3: 10,000 songs, 5,000,000 beats. `play SONG --bars 10-12
--device null` is timed on both, alternated: process start → first frame handed to ALSA
(PRACTICE_TRACE).
"""

import os
import re
import sqlite3
import subprocess
import sys

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

SONGS = 10_000
BEATS = 500  # per song
METER = 4
BARS_ARG = "10-12"
RUNS = 31
WARMUP = 3
MAX_SPREAD = 0.10
SPAN = re.compile(r"^playing .*?(\d+:\d\d\.\d–\d+:\d\d\.\d)", re.M)


def library(binary, db, song, times):
    """A library made by the binary: the real song and its beat map."""
    b.practice(binary, "add", song, db=db, stdout=subprocess.DEVNULL)
    subprocess.run([binary, "beats", "import", "--db", db, song, times, "--format", "times"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def fill(db, count):
    """Adds `count` songs at fake paths, each with a BEATS-beat map, straight into SQLite."""
    con = sqlite3.connect(db)
    b.fill_library(con, count, seed=4, beats=BEATS, meter=METER)
    con.commit()
    songs = con.execute("SELECT count(*) FROM song").fetchone()[0]
    beats = con.execute("SELECT count(*) FROM beat").fetchone()[0]
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return songs, beats


def main():
    binary = b.practice_bin()
    song = b.beats_wav()
    load = os.getloadavg()[0]
    with b.TempDir() as tmp:
        times = os.path.join(tmp, "beats.txt")
        with open(times, "w") as f:
            f.writelines(f"{1.0 + 0.5 * i:.3f}\n" for i in range(BEATS))
        dbs = {"small": os.path.join(tmp, "one-song.sqlite"),
               "large": os.path.join(tmp, "library.sqlite")}
        for db in dbs.values():
            library(binary, db, song, times)
        songs, beats = fill(dbs["large"], SONGS - 1)
        if (songs, beats) != (SONGS, SONGS * BEATS):
            sys.exit(f"bars-10k: expected {SONGS} songs and {SONGS * BEATS} beats, the library "
                     f"has {songs} and {beats}")
        sizes = {name: os.path.getsize(db) for name, db in dbs.items()}

        args = ["--bars", BARS_ARG]
        for _ in range(WARMUP):
            for db in dbs.values():
                b.traced_play(binary, db, song, *args)
        first = {name: [] for name in dbs}
        total = {name: [] for name in dbs}
        cpu = {name: [] for name in dbs}
        spans = set()
        for _ in range(RUNS):
            for name, db in dbs.items():
                f, t, c, err = b.traced_play(binary, db, song, *args)
                first[name].append(f)
                total[name].append(t)
                cpu[name].append(c)
                spans.update(SPAN.findall(err))
        if len(spans) != 1:
            sys.exit(f"bars-10k: the two libraries played different spans: {sorted(spans)}")

    for name in dbs:
        print(f"bars-10k {name}: " + " ".join(f"{v:.1f}" for v in first[name]) + " ms",
              file=sys.stderr)
    med = {name: b.median(v) for name, v in first.items()}
    spread = (med["large"] - med["small"]) / med["small"]
    paired = [(x - y) / y for x, y in zip(first["large"], first["small"])]
    cpu_med = {name: b.median(v) for name, v in cpu.items()}
    rows = [
        b.row(f"first frame, `play --bars {BARS_ARG}`, 1-song library: median (p90)",
              f"{med['small']:.1f} ms ({b.p90(first['small']):.1f} ms)"),
        b.row(f"first frame, `play --bars {BARS_ARG}`, {SONGS:,} songs / {beats / 1e6:.0f} M "
              "beats: median (p90)",
              f"{med['large']:.1f} ms ({b.p90(first['large']):.1f} ms)"),
        b.row(f"{SONGS:,}-song library against the 1-song one, difference of medians",
              f"{spread * 100:+.1f} % ({med['large'] - med['small']:+.1f} ms)",
              f"within {MAX_SPREAD * 100:.0f} %", abs(spread) <= MAX_SPREAD),
        b.row("same, median of the per-round differences", f"{b.median(paired) * 100:+.1f} %"),
        b.row("process start to exit, 1-song / 10,000-song library: median",
              f"{b.median(total['small']):.1f} ms / {b.median(total['large']):.1f} ms"),
        b.row("CPU (user + sys) of `play`, 1-song / 10,000-song library: median (difference)",
              f"{cpu_med['small']:.1f} ms / {cpu_med['large']:.1f} ms "
              f"({(cpu_med['large'] - cpu_med['small']) / cpu_med['small'] * 100:+.1f} %)"),
        b.row("span played (both libraries)", spans.pop()),
    ]
    b.write_results(
        "bars-10k", f"7. `play --bars` start-up, {SONGS:,} songs with {beats / 1e6:.0f} M beats",
        rows,
        notes=[
            f"Real song: 35-minute mono 8 kHz 16-bit WAV (pink noise, made by sox), added by "
            f"`practice add`, beat map of {BEATS} beats ({BEATS // METER} bars of {METER}/4, "
            "120 BPM) by `practice beats import`, in both libraries, where it is song 1.",
            f"Large library: plus {SONGS - 1:,} songs at paths that do not exist, each with "
            f"{BEATS} beats, inserted with Python's sqlite3 ({sizes['large'] / 1e6:.0f} MB, "
            f"against {sizes['small'] / 1e3:.0f} kB); both in /tmp, WAL checkpointed, warm "
            "page cache.",
            f"{RUNS} runs per library after {WARMUP} warm-ups, the two alternated, on `null`; "
            "first frame = PRACTICE_TRACE first-frame-ns minus time.monotonic_ns() before "
            "spawning. Difference = (large − small) / small; pass/fail on its size. CPU from "
            "wait4 rusage, less sensitive than wall time to other load on the machine. "
            f"Load average at the start / end: {load:.2f} / {os.getloadavg()[0]:.2f}.",
        ])


if __name__ == "__main__":
    main()
