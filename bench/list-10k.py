#!/usr/bin/env python3
"""Issue 2, target 5: `practice list` with 10,000 songs in the library, each with a beat map.

The binary creates the library (`practice add` of one short WAV, so the schema is its
own); then 9,999 more rows go straight into table `song` with Python's sqlite3, each with
a 500-beat map made by SQLite itself (as bench/bars-10k.py makes them), and the library is
made one that practice before schema v17 left (its column `song.beat_interval` and that
migration's record taken out), so that the first `practice list` fills each map's median
beat interval from its beats, as an upgrade does (timed once). `list` shows each map's
tempo. hyperfine times `practice list` and `practice list --json`, output to /dev/null,
and a peer in the same run: the sqlite3 shell printing every row of table `song`.
With $PRACTICE_BIN_BEFORE (a practice of schema v16, which read every beat of every map
for `list`), the same library before the upgrade is listed by it in the same run too.
"""

import os
import shutil
import sqlite3
import subprocess
import sys

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

SONGS = 10_000
BEATS = 500  # per song but the seed (1 s long)
METER = 4
RUNS = 30
WARMUP = 3
TARGET_MS = 100.0


def fill(db, count):
    """Adds `count` plausible songs (about half with artist and album)."""
    con = sqlite3.connect(db)
    b.fill_library(con, count, seed=2, beats=BEATS, meter=METER)
    # The library as a practice before schema v17 left it: the first command upgrades it.
    columns = [r[1] for r in con.execute("PRAGMA table_info(song)")]
    if "beat_interval" in columns:
        con.execute("ALTER TABLE song DROP COLUMN beat_interval")
        con.execute("DELETE FROM grdb_migrations WHERE identifier = 'v17-beat-interval'")
    con.commit()
    total = con.execute("SELECT count(*) FROM song").fetchone()[0]
    beats = con.execute("SELECT count(*) FROM beat").fetchone()[0]
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return total, beats


def tempi(listed):
    """The BPM column of `list`'s tab-separated records (the seventh field), how many set."""
    return sum(1 for line in listed.splitlines() if line.split(b"\t")[6])


def main():
    binary = b.practice_bin()
    before = os.environ.get("PRACTICE_BIN_BEFORE")
    seed = b.input_file("list-seed.wav", 1)
    with b.TempDir() as tmp:
        empty = os.path.join(tmp, "empty.sqlite")
        b.practice(binary, "list", db=empty, stdout=subprocess.DEVNULL)
        db = os.path.join(tmp, "library.sqlite")
        b.practice(binary, "add", seed, db=db, stdout=subprocess.DEVNULL)
        total, beats = fill(db, SONGS - 1)
        old = os.path.join(tmp, "library-v16.sqlite")
        shutil.copyfile(db, old)
        # The upgrade: the first command fills every map's median beat interval.
        upgrade = b.child([binary, "list", "--db", db], "list (upgrade)", capture=True)
        listed = b.practice(binary, "list", db=db, stdout=subprocess.PIPE).stdout
        lines = listed.count(b"\n")
        if total != SONGS or beats != (SONGS - 1) * BEATS or lines != SONGS:
            sys.exit(f"list-10k: expected {SONGS} songs and {(SONGS - 1) * BEATS} beats, the "
                     f"library has {total} and {beats}, list printed {lines} lines")
        if tempi(listed) != SONGS - 1 or upgrade.stdout != listed.decode():
            sys.exit(f"list-10k: {tempi(listed)} songs listed with a tempo (expected "
                     f"{SONGS - 1}), the upgrading list printed the same: {upgrade.stdout == listed.decode()}")
        commands = [f"{binary} list --db {db}", f"{binary} list --json --db {db}",
                    f"{binary} list --db {empty}", f"sqlite3 -readonly {db} 'SELECT * FROM song'"]
        names = ["list", "list --json", "list (empty library)", "peer"]
        if before:
            was = b.practice(before, "list", db=old, stdout=subprocess.PIPE).stdout
            if was != listed:
                sys.exit("list-10k: the binary before and this one list the library differently")
            commands.append(f"{before} list --db {old}")
            names.append("before")
        results = b.hyperfine(commands, runs=RUNS, warmup=WARMUP, names=names)
        size = os.path.getsize(db)

    med = {name: result["median"] * 1000 for name, result in zip(names, results)}
    rows = []
    for name, result in list(zip(names, results))[:3]:
        median, mean, sd = (result[k] * 1000 for k in ("median", "mean", "stddev"))
        measured = "empty" not in name
        command = name.replace(" (empty library)", "")
        rows.append(b.row(
            f"`practice {command}`" + (f", {SONGS:,} songs with beat maps" if measured
                                       else ", empty library") + ": median (mean ± σ)",
            f"{median:.1f} ms ({mean:.1f} ± {sd:.1f} ms)",
            f"≤ {TARGET_MS:.0f} ms" if measured else "", (median <= TARGET_MS) if measured else None))
    rows.append(b.row("peer: `sqlite3 -readonly LIBRARY 'SELECT * FROM song'`: median; "
                      "`list` / peer", f"{med['peer']:.1f} ms; {med['list'] / med['peer']:.2f}"))
    if before:
        rows.append(b.row(
            "`practice list` before schema v17 (every beat read), same library: median; "
            "`list` / peer; before / now",
            f"{med['before']:.1f} ms; {med['before'] / med['peer']:.2f}; "
            f"{med['before'] / med['list']:.1f}×"))
    rows.append(b.row(f"upgrade to schema v17 ({SONGS - 1:,} maps' beat intervals filled): "
                      "first `list`, wall (CPU)",
                      f"{upgrade.wall * 1000:.0f} ms ({upgrade.cpu * 1000:.0f} ms)"))
    b.write_results(
        "list-10k", "5. `practice list` with 10,000 songs", rows,
        notes=[f"Library of {SONGS:,} songs ({size / 1e6:.1f} MB), made by `practice add` of one "
               f"file plus rows inserted with Python's sqlite3, {SONGS - 1:,} of them with a "
               f"{BEATS}-beat map ({beats / 1e6:.1f} M beats) made by SQLite; left as schema v16 "
               "left it and upgraded by the first `list`; output to /dev/null.",
               f"hyperfine -N, {WARMUP} warm-ups, {RUNS} runs, the peer (and the binary before, "
               "when given as $PRACTICE_BIN_BEFORE) in the same run; pass/fail on the median."])

if __name__ == "__main__":
    main()
