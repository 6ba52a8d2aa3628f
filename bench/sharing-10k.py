#!/usr/bin/env python3
"""Issue 26, "Tests and scale": export and import of a 10,000-song library with 5 M beats
(<= 10 s each), and `setlist show` of a 200-entry setlist (<= 50 ms).

The binary creates the library (`practice add` of one short WAV, so the schema is its own);
then 9,999 more songs, 500 beats each (5 M), two selections each, details for half of them
and a 200-entry setlist go straight into the tables with Python's sqlite3 (import and
export never read audio, so the songs need no files). The receiving library is a copy of
that one with the beat maps, selections, details and setlists deleted: every song is then
found by content hash and gets everything back.
"""

import os
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

SONGS = 10_000
BEATS = 500
ENTRIES = 200
RUNS = 3
TARGET_S = 10.0
SHOW_TARGET_MS = 50.0


def fill(db):
    """Adds SONGS-1 songs with their beats, selections and details, and a setlist."""
    rng = random.Random(26)
    con = sqlite3.connect(db)
    con.execute("PRAGMA synchronous = OFF")
    frames = 44100 * 600
    stamp = "2026-11-26T00:00:00Z"
    con.executemany(
        "INSERT INTO song (path, content_hash, file_size, modified_at, frames, sample_rate,"
        " channels, format, duration, title, artist, album, added_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, 44100, 2, 'FLAC', ?, ?, ?, NULL, ?, ?)",
        ((f"/home/musician/Music/{i:05d}.flac", f"fnv1a64s:{rng.getrandbits(64):016x}",
          30_000_000, 1_700_000_000.0 + i, frames, frames / 44100, f"Piece {i}",
          f"Artist {i % 300}", stamp, stamp) for i in range(SONGS - 1)))
    # The seed song (1 s, from `practice add`) is too short for 500 beats: it has none.
    ids = [row[0] for row in con.execute("SELECT id FROM song WHERE frames = ? ORDER BY id",
                                         (frames,))]
    for song in ids:
        start = rng.randrange(1000, 44100)
        step = rng.randrange(18_000, 26_000)
        con.executemany(
            "INSERT INTO beat (song_id, frame, bar, beat, source, confidence)"
            " VALUES (?, ?, ?, ?, 'detected', ?)",
            ((song, start + k * step, 1 + k // 4, 1 + k % 4, round(rng.random(), 3))
             for k in range(BEATS)))
        con.executemany(
            "INSERT INTO selection (song_id, name, bars, start_frame, end_frame, note,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)",
            [(song, "verse", "9-16", None, None, stamp, stamp),
             (song, "intro", None, 0, 441_000, stamp, stamp)])
        if song % 2:
            con.execute("INSERT INTO song_detail (song_id, key, bpm, note) VALUES (?, 'Am', 96, 'capo 2')",
                        (song,))
            con.execute("INSERT INTO song_tag (song_id, tag) VALUES (?, 'gig')", (song,))
    con.execute("INSERT INTO setlist (name, created_at, updated_at) VALUES ('gig', ?, ?)",
                (stamp, stamp))
    con.executemany(
        "INSERT INTO setlist_entry (setlist_id, position, song_id, selection_name, speed, repeats)"
        " VALUES (1, ?, ?, ?, ?, ?)",
        ((p + 1, ids[p * 37 % len(ids)], "verse" if p % 3 == 0 else None,
          0.75 if p % 2 else None, 2 if p % 5 == 0 else None) for p in range(ENTRIES)))
    con.commit()
    counts = [con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("song", "beat")]
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return counts


def stripped_copy(source, target):
    """The receiving library: the same songs, nothing else."""
    shutil.copyfile(source, target)
    con = sqlite3.connect(target)
    # Python's sqlite3 leaves foreign keys off: setlist_entry goes by name, not by cascade.
    for table in ("beat", "selection", "song_detail", "song_tag", "setlist_entry", "setlist"):
        con.execute(f"DELETE FROM {table}")
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()


CPU = {}  # seconds of CPU (user + sys) of each timed run, by its first argument and db


def timed(binary, *args, db):
    """Wall seconds of one run; its CPU seconds go to CPU (on a loaded machine the wall time
    says more about the other processes than about practice)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = b.practice(binary, *args, db=db, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"sharing-10k: practice {' '.join(args)} failed: {result.stderr.decode()}")
    CPU.setdefault(args[0], []).append(after.ru_utime + after.ru_stime - before.ru_utime
                                       - before.ru_stime)
    return elapsed


def peer(file):
    """Wall seconds of Python's json.load of the same file (C-accelerated parser, one
    process, like practice), the peer measured in the same rounds as `import`."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import json, sys; json.load(open(sys.argv[1], 'rb'))",
                    file], check=True)
    return time.perf_counter() - start


def main():
    binary = b.practice_bin()
    loads = [os.getloadavg()[0]]
    seed = b.input_file("list-seed.wav", 1)
    with b.TempDir() as tmp:
        db = os.path.join(tmp, "library.sqlite")
        b.practice(binary, "add", seed, db=db, stdout=subprocess.DEVNULL)
        b.log("sharing-10k: filling the library (5 M beats)...")
        songs, beats = fill(db)
        if songs != SONGS:
            sys.exit(f"sharing-10k: expected {SONGS} songs, have {songs}")
        file = os.path.join(tmp, "all.practice")
        loads.append(os.getloadavg()[0])
        exports = [timed(binary, "export", "--all", "-o", file, db=db) for _ in range(RUNS)]
        size = os.path.getsize(file)
        imports, again, peers = [], [], []
        for run in range(RUNS):
            receiver = os.path.join(tmp, f"receiver-{run}.sqlite")
            stripped_copy(db, receiver)
            peers.append(peer(file))
            imports.append(timed(binary, "import", file, db=receiver))
            again.append(timed(binary, "import", file, db=receiver))
        check = sqlite3.connect(os.path.join(tmp, "receiver-0.sqlite"))
        received = check.execute("SELECT count(*) FROM beat").fetchone()[0]
        check.close()
        if received != beats:
            sys.exit(f"sharing-10k: imported {received} beats of {beats}")
        loads.append(os.getloadavg()[0])
        show = b.hyperfine([f"{binary} setlist show gig --db {db}"], runs=30, warmup=3,
                           names=["setlist show"])[0]

    loads.append(os.getloadavg()[0])
    rows = []
    cpu_imports = CPU["import"][0::2]
    cpu_again = CPU["import"][1::2]
    for name, values, cpu in (("`export --all`", exports, CPU["export"]),
                              ("`import` into a library without them", imports, cpu_imports),
                              ("`import` of the same file again (changes nothing)", again, cpu_again)):
        med = statistics.median(values)
        rows.append(b.row(f"{name}, {SONGS:,} songs, {beats / 1e6:.1f} M beats: median of {RUNS}",
                          f"{med:.2f} s ({min(values):.2f}–{max(values):.2f} s; "
                          f"CPU {statistics.median(cpu):.2f} s)",
                          f"≤ {TARGET_S:.0f} s", med <= TARGET_S))
    rows.append(b.row(f"`import` against Python's `json.load` of the same file (only parsing it), "
                      f"same rounds: median wall ratio",
                      f"{statistics.median(imports) / statistics.median(peers):.2f}× "
                      f"({statistics.median(imports):.2f} s against {statistics.median(peers):.2f} s)",
                      "", None))
    med, mean, sd = (show[k] * 1000 for k in ("median", "mean", "stddev"))
    rows.append(b.row(f"`setlist show`, {ENTRIES} entries: median (mean ± σ)",
                      f"{med:.1f} ms ({mean:.1f} ± {sd:.1f} ms)", f"≤ {SHOW_TARGET_MS:.0f} ms",
                      med <= SHOW_TARGET_MS))
    b.write_results(
        "sharing-10k", "Sharing: export / import of 10,000 songs, a 200-entry setlist", rows,
        notes=[f"Library of {SONGS:,} songs with {BEATS} detected beats each, two selections each, "
               "details and a tag on half, a 200-entry setlist; rows inserted with Python's "
               f"sqlite3 after `practice add` made the schema. The file is {size / 1e6:.0f} MB.",
               "The receiver is a copy with beats, selections, details and setlists deleted; "
               "every song is found by content hash. Wall time of one process per run; CPU is "
               "its user + sys time (median).",
               "The ratio against `json.load` (Python's C parser building the document, nothing "
               "stored) is taken in the same rounds, so a busy machine slows both alike.",
               "1-minute load average (2 cores) at the start, before the exports, before "
               "`setlist show` and at the end: " + ", ".join(f"{x:.1f}" for x in loads)
               + (" (a loaded machine: the wall times are not those of a quiet one)"
                  if max(loads) > 2 else "") + "."])


if __name__ == "__main__":
    main()
