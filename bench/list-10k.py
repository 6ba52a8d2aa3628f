#!/usr/bin/env python3
"""Issue 2, target 5: `practice list` with 10,000 songs in the library.

The binary creates the library (`practice add` of one short WAV, so the schema is its
own); then 9,999 more rows go straight into table `song` with Python's sqlite3.
hyperfine times `practice list` and `practice list --json`, output to /dev/null.
"""

import os
import random
import sqlite3
import subprocess
import sys

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

SONGS = 10_000
RUNS = 30
WARMUP = 3
TARGET_MS = 100.0


def fill(db, count):
    """Adds `count` plausible songs (about half with artist and album)."""
    rng = random.Random(2)
    con = sqlite3.connect(db)
    rows = []
    for i in range(count):
        artist = f"Artist {i % 400:03d}" if i % 2 else None
        album = f"Album {i % 900:03d}" if i % 2 else None
        frames = rng.randrange(44100 * 60, 44100 * 600)
        stamp = f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T12:{i % 60:02d}:00Z"
        rows.append((
            f"/home/musician/Music/{artist or 'Unknown'}/{album or 'Singles'}/"
            f"{i:05d} Practice piece number {i}.flac",
            f"fnv1a64s:{rng.getrandbits(64):016x}", rng.randrange(5_000_000, 90_000_000),
            1_700_000_000.0 + i, frames, 44100, 2,
            "FLAC (Free Lossless Audio Codec), Signed 16 bit PCM", frames / 44100,
            f"Practice piece number {i} – étude", artist, album, stamp, stamp))
    con.executemany(
        "INSERT INTO song (path, content_hash, file_size, modified_at, frames, sample_rate,"
        " channels, format, duration, title, artist, album, added_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    total = con.execute("SELECT count(*) FROM song").fetchone()[0]
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return total


def main():
    binary = b.practice_bin()
    seed = b.input_file("list-seed.wav", 1)
    with b.TempDir() as tmp:
        empty = os.path.join(tmp, "empty.sqlite")
        b.practice(binary, "list", db=empty, stdout=subprocess.DEVNULL)
        db = os.path.join(tmp, "library.sqlite")
        b.practice(binary, "add", seed, db=db, stdout=subprocess.DEVNULL)
        total = fill(db, SONGS - 1)
        lines = b.practice(binary, "list", db=db, stdout=subprocess.PIPE).stdout.count(b"\n")
        if total != SONGS or lines != SONGS:
            sys.exit(f"list-10k: expected {SONGS} songs, library has {total}, list printed {lines}")
        names = ["list", "list --json", "list (empty library)"]
        results = b.hyperfine(
            [f"{binary} list --db {db}", f"{binary} list --json --db {db}",
             f"{binary} list --db {empty}"],
            runs=RUNS, warmup=WARMUP, names=names)
        size = os.path.getsize(db)

    rows = []
    for name, result in zip(names, results):
        med, mean, sd = (result[k] * 1000 for k in ("median", "mean", "stddev"))
        measured = "empty" not in name
        command = name.replace(" (empty library)", "")
        rows.append(b.row(
            f"`practice {command}`" + (f", {SONGS:,} songs" if measured else ", empty library")
            + ": median (mean ± σ)",
            f"{med:.1f} ms ({mean:.1f} ± {sd:.1f} ms)",
            f"≤ {TARGET_MS:.0f} ms" if measured else "", (med <= TARGET_MS) if measured else None))
    b.write_results(
        "list-10k", "5. `practice list` with 10,000 songs", rows,
        notes=[f"Library of {SONGS:,} songs ({size / 1e6:.1f} MB), made by `practice add` of one "
               "file plus rows inserted with Python's sqlite3; output to /dev/null.",
               f"hyperfine -N, {WARMUP} warm-ups, {RUNS} runs; pass/fail on the median."])


if __name__ == "__main__":
    main()
