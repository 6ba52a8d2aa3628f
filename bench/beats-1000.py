#!/usr/bin/env python3
"""Issue 3, target 1: importing a 1,000-bar beat map, and resolving `--bars` on it.

The song is a 35-minute mono 8 kHz WAV (made by sox); the beat map is 4,000 beats
(1,000 bars of 4/4) at 120 BPM from 1 s, each moved by a deterministic jitter of up to
±10 ms. `practice beats import` of it is timed (whole process) as a times file (one time
per line) and as the json file `practice beats export --format json` writes after the
first import; each run replaces the map the previous one wrote. The floor is `practice
list` on the same 1-song library.

The cost of `--bars` (read the song's 4,000 beats, build the bar table, look the bars
up) is the difference between `play --bars 900-916` and `play --from T1 --to T2` over
exactly the same frames, both on the ALSA `null` PCM, process start → first frame handed
to ALSA (PRACTICE_TRACE); the same difference on `render ... -o x.wav` (whole process)
is reported too.

Every comparison runs its commands in alternation, round after round, so that a burst of
load on the shared machine hits them alike; figures are medians.

With BENCH_BEFORE_BIN set to another build, its imports (the same files, into a library
of its own) and its floor run in the same rounds, so that a change can be told from a
slower or busier machine.
"""

import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

BARS = 1000
METER = 4
BPM = 120.0
FIRST = 1.0  # seconds, first downbeat
JITTER = 0.010  # seconds, at most, each way
RANGE = (900, 916)
IMPORT_RUNS, IMPORT_WARMUP = 30, 3
PLAY_RUNS, PLAY_WARMUP = 21, 3
RENDER_RUNS, RENDER_WARMUP = 21, 3
TARGET_IMPORT_MS = 20.0
TARGET_BARS_MS = 20.0
SPAN = re.compile(r"^playing .*?(\d+:\d\d\.\d–\d+:\d\d\.\d)", re.M)


def beat_times():
    rng = random.Random(3)
    period = 60.0 / BPM
    return [FIRST + i * period + rng.uniform(-JITTER, JITTER) for i in range(BARS * METER)]


def beats(binary, db, subcommand, *args, **kwargs):
    """Runs `practice beats SUBCOMMAND --db DB ARGS...` (--db goes after the subcommand)."""
    return subprocess.run([binary, "beats", subcommand, "--db", db] + list(args), check=True,
                          **kwargs)


def timed(cmd):
    """(wall ms, CPU ms = user + sys) of one run, output discarded; exits if it fails."""
    c = b.child(cmd, "beats-1000")
    return c.wall * 1000, c.cpu * 1000


def rounds(commands, runs, warmup):
    """Runs the commands (name → argv) in alternation; name → ([wall ms], [CPU ms])."""
    for _ in range(warmup):
        for cmd in commands.values():
            timed(cmd)
    out = {name: ([], []) for name in commands}
    for _ in range(runs):
        for name, cmd in commands.items():
            wall, cpu = timed(cmd)
            out[name][0].append(wall)
            out[name][1].append(cpu)
    return out


BEFORE_BIN = os.path.abspath(os.environ["BENCH_BEFORE_BIN"]) if os.environ.get(
    "BENCH_BEFORE_BIN") else None


def main():
    binary = b.practice_bin()
    song = b.beats_wav()
    load = os.getloadavg()[0]
    with b.TempDir() as tmp:
        db = os.path.join(tmp, "library.sqlite")
        b.practice(binary, "add", song, db=db, stdout=subprocess.DEVNULL)
        times = os.path.join(tmp, "beats.txt")
        with open(times, "w") as f:
            f.writelines(f"{t:.6f}\n" for t in beat_times())
        beats(binary, db, "import", song, times, "--format", "times",
              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        exported = beats(binary, db, "export", song, "--format", "json",
                         stdout=subprocess.PIPE).stdout
        js = os.path.join(tmp, "beats.json")
        with open(js, "wb") as f:
            f.write(exported)

        # The map is what it should be: 4,000 beats in bars 1-1,000, and json round-trips.
        con = sqlite3.connect(db)
        count, first_bar, last_bar = con.execute(
            "SELECT count(*), min(bar), max(bar) FROM beat").fetchone()
        con.close()
        if (count, first_bar, last_bar) != (BARS * METER, 1, BARS):
            sys.exit(f"beats-1000: library holds {count} beats in bars {first_bar}-{last_bar}, "
                     f"expected {BARS * METER} in 1-{BARS}")
        beats(binary, db, "import", song, js, "--format", "json",
              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        again = beats(binary, db, "export", song, "--format", "json",
                      stdout=subprocess.PIPE).stdout
        round_trip = again == exported

        # The same span in seconds: from bar 900's downbeat to bar 917's (the end of 916).
        data = json.loads(exported)
        rate = data["sample_rate"]
        downbeat = {x["bar"]: x["frame"] for x in data["beats"] if x["beat"] == 1}
        start_frame, end_frame = downbeat[RANGE[0]], downbeat[RANGE[1] + 1]
        t1, t2 = f"{start_frame / rate:.9f}", f"{end_frame / rate:.9f}"
        bars_args = ["--bars", f"{RANGE[0]}-{RANGE[1]}"]
        time_args = ["--from", t1, "--to", t2]

        # Import, both formats, and the floor (and the same for the binary before).
        commands = {
            "times": [binary, "beats", "import", "--db", db, song, times, "--format", "times"],
            "json": [binary, "beats", "import", "--db", db, song, js, "--format", "json"],
            "list": [binary, "list", "--db", db],
        }
        if BEFORE_BIN:
            before_db = os.path.join(tmp, "before.sqlite")
            b.practice(BEFORE_BIN, "add", song, db=before_db, stdout=subprocess.DEVNULL)
            commands.update({
                "times before": [BEFORE_BIN, "beats", "import", "--db", before_db, song, times,
                                 "--format", "times"],
                "json before": [BEFORE_BIN, "beats", "import", "--db", before_db, song, js,
                                "--format", "json"],
                "list before": [BEFORE_BIN, "list", "--db", before_db],
            })
        imp = rounds(commands, IMPORT_RUNS, IMPORT_WARMUP)

        # --bars against --from/--to on play (first frame).
        for _ in range(PLAY_WARMUP):
            b.traced_play(binary, db, song, *bars_args)
            b.traced_play(binary, db, song, *time_args)
        first = {"bars": [], "time": []}
        total = {"bars": [], "time": []}
        play_cpu = {"bars": [], "time": []}
        spans = set()
        for _ in range(PLAY_RUNS):
            for key, args in (("bars", bars_args), ("time", time_args)):
                f, t, c, err = b.traced_play(binary, db, song, *args)
                first[key].append(f)
                total[key].append(t)
                play_cpu[key].append(c)
                spans.update(SPAN.findall(err))

        # --bars against --from/--to on render (whole process), and the same output.
        outs = {key: os.path.join(tmp, f"render-{key}.wav") for key in ("bars", "time")}
        ren = rounds({
            "bars": [binary, "render", "--db", db, song, *bars_args, "-o", outs["bars"]],
            "time": [binary, "render", "--db", db, song, *time_args, "-o", outs["time"]],
        }, RENDER_RUNS, RENDER_WARMUP)
        with open(outs["bars"], "rb") as x, open(outs["time"], "rb") as y:
            same_render = x.read() == y.read()
        db_size, times_size = os.path.getsize(db), os.path.getsize(times)

    if not same_render or len(spans) != 1:
        sys.exit(f"beats-1000: `--bars` and `--from/--to` did not cover the same frames (renders "
                 f"{'identical' if same_render else 'differ'}; play printed {sorted(spans)})")
    for name, (walls, _) in imp.items():
        print(f"beats-1000 {name}: " + " ".join(f"{v:.1f}" for v in walls) + " ms",
              file=sys.stderr)
    for key in first:
        print(f"beats-1000 play {key}: " + " ".join(f"{v:.1f}" for v in first[key]) + " ms",
              file=sys.stderr)

    wall = {name: b.median(w) for name, (w, _) in imp.items()}
    cpu = {name: b.median(c) for name, (_, c) in imp.items()}
    rows = []
    for name, label in (("times", "times file"), ("json", "json file")):
        rows.append(b.row(
            f"`beats import`, 4,000 beats / 1,000 bars, {label}: median wall (p90; CPU)",
            f"{wall[name]:.1f} ms ({b.p90(imp[name][0]):.1f} ms; CPU {cpu[name]:.1f} ms)",
            f"< {TARGET_IMPORT_MS:.0f} ms", wall[name] < TARGET_IMPORT_MS))
    med_bars, med_time = b.median(first["bars"]), b.median(first["time"])
    diff = med_bars - med_time
    rows.append(b.row(
        f"`--bars {RANGE[0]}-{RANGE[1]}` resolution: first frame, `play --bars` − "
        "`play --from/--to` (same frames), difference of medians",
        f"{diff:+.1f} ms ({med_bars:.1f} ms − {med_time:.1f} ms)",
        f"< {TARGET_BARS_MS:.0f} ms", diff < TARGET_BARS_MS))
    paired = [x - y for x, y in zip(first["bars"], first["time"])]
    rows.append(b.row(
        "same, median of the per-round differences (p90 of `--bars`, of `--from/--to`)",
        f"{b.median(paired):+.1f} ms ({b.p90(first['bars']):.1f} ms, "
        f"{b.p90(first['time']):.1f} ms)"))
    rb, rt = b.median(ren["bars"][0]), b.median(ren["time"][0])
    cb, ct = b.median(ren["bars"][1]), b.median(ren["time"][1])
    rows.append(b.row(
        f"same on `render --bars {RANGE[0]}-{RANGE[1]} -o x.wav` − `render --from/--to`, "
        "whole process: difference of median wall (of median CPU)",
        f"{rb - rt:+.1f} ms ({rb:.1f} ms − {rt:.1f} ms) (CPU {cb - ct:+.1f} ms)"))
    rows.append(b.row(
        "process start to exit, `play --bars` / `play --from/--to`: median (CPU: median, "
        "difference)",
        f"{b.median(total['bars']):.1f} ms / {b.median(total['time']):.1f} ms (CPU "
        f"{b.median(play_cpu['bars']):.1f} ms / {b.median(play_cpu['time']):.1f} ms, "
        f"{b.median(play_cpu['bars']) - b.median(play_cpu['time']):+.1f} ms)"))
    rows.append(b.row(
        "import above the floor, times / json: median wall − floor (CPU − floor's CPU)",
        f"{wall['times'] - wall['list']:.1f} ms / {wall['json'] - wall['list']:.1f} ms "
        f"(CPU {cpu['times'] - cpu['list']:.1f} ms / {cpu['json'] - cpu['list']:.1f} ms)"))
    rows.append(b.row(
        "floor: `practice list` (1 song) start to exit: median wall (p90; CPU)",
        f"{wall['list']:.1f} ms ({b.p90(imp['list'][0]):.1f} ms; CPU {cpu['list']:.1f} ms)"))
    if BEFORE_BIN:
        rows.append(b.row(
            "the binary before (BENCH_BEFORE_BIN), same rounds: import times / json / floor, "
            "median wall (CPU)",
            " / ".join(f"{wall[n + ' before']:.1f} ms (CPU {cpu[n + ' before']:.1f} ms)"
                       for n in ("times", "json", "list"))))
        rows.append(b.row(
            "this binary against the one before, same rounds: import times / json / floor, "
            "difference of median CPU",
            " / ".join(f"{cpu[n] - cpu[n + ' before']:+.1f} ms" for n in ("times", "json", "list"))))
    rows.append(b.row(
        "checks: json export → import → export identical; both renders identical; "
        "span `play` printed, both ways",
        f"{'yes' if round_trip else 'NO'}; yes; {spans.pop()}"))
    b.write_results(
        "beats-1000", "6. Beat map import and `--bars` resolution, 1,000 bars", rows,
        notes=[
            f"35-minute mono 8 kHz 16-bit WAV ({os.path.getsize(song) / 1e6:.0f} MB, pink "
            f"noise, made by sox); {BARS * METER:,} beats, {BARS:,} bars of {METER}/4 at "
            f"{BPM:.0f} BPM from {FIRST:.0f} s, each moved by a fixed pseudo-random jitter of up "
            f"to ±{JITTER * 1000:.0f} ms; times file {times_size / 1e3:.0f} kB, json "
            f"file {len(exported) / 1e3:.0f} kB; library {db_size / 1e6:.1f} MB, in /tmp.",
            f"Import: {IMPORT_RUNS} rounds after {IMPORT_WARMUP} warm-ups, each round runs "
            "import (times), import (json) and the floor; whole process, wall time from "
            "spawn to exit, CPU = user + sys (wait4 rusage). Each import replaces the 4,000 "
            "beats in one transaction. Pass/fail on the median wall time."
            + (f" The binary before: `{BEFORE_BIN}` (BENCH_BEFORE_BIN), built "
               + time.strftime("%Y-%m-%d %H:%M", time.localtime(os.path.getmtime(BEFORE_BIN)))
               + ", in a library of its own, importing the same files." if BEFORE_BIN else ""),
            f"`--bars`: bars {RANGE[0]}-{RANGE[1]} are frames {start_frame}-{end_frame} "
            f"(`--from {t1} --to {t2}`); {PLAY_RUNS} rounds of the two `play`s on `null` after "
            f"{PLAY_WARMUP} warm-ups; first frame = PRACTICE_TRACE first-frame-ns minus "
            f"time.monotonic_ns() before spawning. Render: {RENDER_RUNS} rounds after "
            f"{RENDER_WARMUP} warm-ups, output WAV in /tmp. CPU = user + sys of the process "
            "(wait4 rusage), less sensitive than wall time to other load on the machine. "
            f"Load average at the start / end: {load:.2f} / {os.getloadavg()[0]:.2f}.",
        ])


if __name__ == "__main__":
    main()
