#!/usr/bin/env python3
"""Issue 45, a band's repository: 1,000 songs published to a folder, served over http by
scripts/repo-server.py on 127.0.0.1, and pulled into a member's library.

Targets: `repo publish --all` <= 5 s (and again with one song changed: one entry file and
the index written); the first pull of all 1,000 <= 10 s; a pull with nothing changed is one
request (answered 304) in <= 100 ms; one entry changed is two requests. Then a pull killed
with SIGKILL at random moments leaves every song either as it was or as the repository has
it (a beat map is compared whole).

The leader's library is made by `practice add` of one short WAV (so the schema is the
binary's own), then 999 more songs with 500 beats and two selections each go straight into
the tables with Python's sqlite3 (publish and pull never read audio). The member's library
is a copy with the beat maps and selections deleted.
"""

import os
import random
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

SONGS = 1_000
BEATS = 500
RUNS = 3
QUIET_RUNS = 15
KILLS = 12
SERVER = os.path.join(b.REPO_DIR, "scripts", "repo-server.py")


def fill(db):
    rng = random.Random(45)
    con = sqlite3.connect(db)
    con.execute("PRAGMA synchronous = OFF")
    frames = 44100 * 300
    stamp = "2026-11-28T00:00:00Z"
    con.executemany(
        "INSERT INTO song (path, content_hash, file_size, modified_at, frames, sample_rate,"
        " channels, format, duration, title, artist, album, added_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, 44100, 2, 'FLAC', ?, ?, ?, NULL, ?, ?)",
        ((f"/home/band/Music/{i:04d}.flac", f"fnv1a64s:{rng.getrandbits(64):016x}",
          30_000_000, 1_700_000_000.0 + i, frames, frames / 44100, f"Tune {i}",
          "The Band", stamp, stamp) for i in range(SONGS - 1)))
    ids = [row[0] for row in con.execute("SELECT id FROM song WHERE frames = ? ORDER BY id",
                                         (frames,))]
    for song in ids:
        start = rng.randrange(1000, 44100)
        step = rng.randrange(18_000, 26_000)
        con.executemany(
            "INSERT INTO beat (song_id, frame, bar, beat, source) VALUES (?, ?, ?, ?, 'grid')",
            ((song, start + k * step, 1 + k // 4, 1 + k % 4) for k in range(BEATS)))
        con.executemany(
            "INSERT INTO selection (song_id, name, bars, start_frame, end_frame, note,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)",
            [(song, "verse", "9-16", None, None, stamp, stamp),
             (song, "solo", "33-40", None, None, stamp, stamp)])
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return ids


def stripped_copy(source, target):
    shutil.copyfile(source, target)
    con = sqlite3.connect(target)
    for table in ("beat", "selection"):
        con.execute(f"DELETE FROM {table}")
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()


def practice(binary, *args, db, **kwargs):
    """`practice --db DB ARGS...` (the global option first: `repo publish` is two words)."""
    return subprocess.run([binary, "--db", db] + list(args), **kwargs)


def run(binary, *args, db, allowed=(0,)):
    start = time.perf_counter()
    result = practice(binary, *args, db=db, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if result.returncode not in allowed:
        sys.exit(f"repo: practice {' '.join(args)} failed ({result.returncode}): "
                 f"{result.stderr.decode()}")
    return elapsed


class Server:
    def __init__(self, directory, log):
        open(log, "w").close()
        self.log = log
        self.process = subprocess.Popen([sys.executable, SERVER, directory, log],
                                        stdout=subprocess.PIPE)
        self.url = f"http://127.0.0.1:{int(self.process.stdout.readline())}/"

    def requests(self):
        with open(self.log) as f:
            return f.read().splitlines()

    def stop(self):
        self.process.kill()
        self.process.wait()


def maps(db):
    """Each song's beat map as one tuple, by song id (an empty tuple for none)."""
    con = sqlite3.connect(db)
    out = {}
    for song, frame in con.execute("SELECT song_id, frame FROM beat ORDER BY song_id, frame"):
        out.setdefault(song, []).append(frame)
    con.close()
    return {k: tuple(v) for k, v in out.items()}


def change_one(db, song):
    con = sqlite3.connect(db)
    con.execute("UPDATE beat SET frame = frame + 7 WHERE song_id = ?", (song,))
    con.commit()
    con.close()


def main():
    binary = b.practice_bin()
    loads = [os.getloadavg()[0]]
    seed = b.input_file("list-seed.wav", 1)
    rows = []
    with b.TempDir() as tmp:
        leader = os.path.join(tmp, "leader.sqlite")
        b.practice(binary, "add", seed, db=leader, stdout=subprocess.DEVNULL)
        b.log("repo: filling the leader's library...")
        ids = fill(leader)

        # Publish: into a fresh folder each run.
        publishes = []
        for i in range(RUNS):
            folder = os.path.join(tmp, f"publish-{i}")
            publishes.append(run(binary, "repo", "publish", folder, "--all", db=leader))
        folder = os.path.join(tmp, "publish-0")
        files = len([n for n in os.listdir(folder) if n.endswith(".practice")])
        size = sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder))
        again = run(binary, "repo", "publish", folder, "--all", db=leader)
        before = {n: os.stat(os.path.join(folder, n)).st_mtime_ns for n in os.listdir(folder)}
        change_one(leader, ids[10])
        one = run(binary, "repo", "publish", folder, "--all", db=leader)
        rewritten = sorted(n for n in os.listdir(folder)
                           if os.stat(os.path.join(folder, n)).st_mtime_ns != before.get(n))
        med = statistics.median(publishes)
        rows.append(b.row(f"`repo publish --all`, {SONGS:,} songs of {BEATS} beats: median of {RUNS}",
                          f"{med:.2f} s ({min(publishes):.2f}–{max(publishes):.2f} s)", "≤ 5 s",
                          med <= 5))
        rows.append(b.row("publishing again, nothing changed / one song changed",
                          f"{again:.2f} s / {one:.2f} s; files rewritten with one changed: "
                          f"{len(rewritten)} ({', '.join(rewritten)})",
                          "one entry file and the index",
                          len(rewritten) == 2 and "index.json" in rewritten))

        server = Server(folder, os.path.join(tmp, "requests.log"))
        try:
            firsts, quiet, quiet_requests = [], [], []
            for i in range(RUNS):
                member = os.path.join(tmp, f"member-{i}.sqlite")
                stripped_copy(leader, member)
                practice(binary, "repo", "add", "band", server.url, db=member,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                count = len(server.requests())
                firsts.append(run(binary, "pull", db=member))
                first_requests = len(server.requests()) - count
            member = os.path.join(tmp, "member-0.sqlite")
            if maps(member) != maps(leader):
                sys.exit("repo: the member's beat maps differ from the leader's after the pull")
            loads.append(os.getloadavg()[0])
            for _ in range(QUIET_RUNS):
                count = len(server.requests())
                quiet.append(run(binary, "pull", db=member))
                quiet_requests.append(server.requests()[count:])
            med = statistics.median(firsts)
            rows.append(b.row(f"first `pull` of all {SONGS:,}: median of {RUNS}",
                              f"{med:.2f} s ({min(firsts):.2f}–{max(firsts):.2f} s; "
                              f"{first_requests} requests)", "≤ 10 s", med <= 10))
            one_304 = all(r == ["GET /index.json 304"] for r in quiet_requests)
            med = statistics.median(quiet) * 1000
            rows.append(b.row(f"`pull` with nothing changed: median of {QUIET_RUNS} (p90)",
                              f"{med:.0f} ms (p90 {b.p90(quiet) * 1000:.0f} ms); requests each: "
                              + ("one, answered 304" if one_304 else str(quiet_requests[0])),
                              "≤ 100 ms, one request", med <= 100 and one_304))
            change_one(leader, ids[20])
            run(binary, "repo", "publish", folder, "--all", db=leader)
            count = len(server.requests())
            changed = run(binary, "pull", db=member)
            requests = server.requests()[count:]
            rows.append(b.row("`pull` with one entry changed",
                              f"{len(requests)} requests ({'; '.join(requests)}), "
                              f"{changed * 1000:.0f} ms", "two requests", len(requests) == 2))

            # Killed at random moments of a first pull: each song as it was or as published.
            rng = random.Random(7)
            published = maps(leader)
            survived, checked = 0, 0
            for k in range(KILLS):
                victim = os.path.join(tmp, f"killed-{k}.sqlite")
                stripped_copy(leader, victim)
                practice(binary, "repo", "add", "band", server.url, db=victim,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                process = subprocess.Popen([binary, "pull", "--db", victim],
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(rng.uniform(0.05, statistics.median(firsts)))
                process.send_signal(signal.SIGKILL)
                process.wait()
                after = maps(victim)
                checked += 1
                whole = all(after.get(song, ()) in ((), published.get(song, ())) for song in ids)
                # Finished afterwards, the pull brings every song.
                run(binary, "pull", db=victim)
                if whole and maps(victim) == published:
                    survived += 1
            rows.append(b.row(f"`pull` killed (SIGKILL) at a random moment, {KILLS} times",
                              f"{survived} of {checked}: every song as it was or as published, "
                              "and the next pull completed it", "all", survived == checked))
        finally:
            server.stop()
    loads.append(os.getloadavg()[0])
    b.write_results(
        "repo", "Band repository: publish and pull 1,000 songs (issue 45)", rows,
        notes=[f"{SONGS:,} songs with {BEATS} beats and two selections each; the repository is "
               f"{files:,} .practice files and index.json, {size / 1e6:.1f} MB, served by "
               "scripts/repo-server.py (Python's http.server with ETag and Last-Modified) on "
               "127.0.0.1; every song's file fetched on its own request over one kept-alive "
               "connection.",
               "The member's library is the leader's with beat maps and selections deleted; songs "
               "are found by content hash. Wall time of one `practice` process per run.",
               "1-minute load average (2 cores shared with other work) at the start, before the "
               "quiet pulls and at the end: " + ", ".join(f"{x:.1f}" for x in loads) + "."])


if __name__ == "__main__":
    main()
