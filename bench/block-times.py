#!/usr/bin/env python3
"""Issue 4, target 3: render-thread block times at speed 0.75 (finer), and underruns.

`practice play SONG --speed 0.75 --quality finer --device pulse` with PRACTICE_TRACE=1
plays into a private PulseAudio null sink (scripts/sound-server.sh), which paces it in
real time, and prints `trace blocks N block-us p50 X p99.9 Y max Z`: the render thread's
work per 1024-frame block (everything but the blocking device write), in microseconds.
Each block must be done within the audio it carries (1024 frames at 44.1 kHz = 23.2 ms)
on average, and no single block may take longer than the ALSA buffer practice asks for
(~100 ms) can cover. Underruns are what practice reports on stderr
(`practice: warning: N underrun(s)`).

Runs, on the 60 s test song (bench/out/stretch-music-60s.wav, see stretch-throughput):
  1. the whole song (80 s of audio), practice pinned to CPU 0, the other CPU(s) idle;
  2. the same with every other CPU kept busy by a pinned Python busy loop;
  3. a soak: the first 45 s looped (`--to 45 --repeat N`, 60 s of audio a pass) for
     $BENCH_SOAK_MINUTES minutes (default 10), unpinned.
"""

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

SPEED = 0.75
SONG_SECONDS = 60
RATE = 44100
BLOCK_FRAMES = 1024
BLOCK_MS = BLOCK_FRAMES / RATE * 1000  # 23.2 ms of audio per block
BUFFER_MS = 100  # what PCMDevice asks ALSA for (snd_pcm_hw_params_set_buffer_time_near)
SOAK_MINUTES = int(os.environ.get("BENCH_SOAK_MINUTES", "10"))
SOAK_PASS_SOURCE = 45  # seconds of source a soak pass: 60 s of audio at 0.75
ISSUE_SOAK_MINUTES = 10
BLOCKS = re.compile(r"trace blocks (\d+) block-us p50 (\d+) p99\.9 (\d+) max (\d+)")
UNDERRUNS = re.compile(r"practice: warning: (\d+) underrun")


def _stretch_throughput():
    """stretch-throughput.py as a module: the issue 4 test song and the frozen binary."""
    spec = importlib.util.spec_from_file_location(
        "stretch_throughput", os.path.join(b.BENCH_DIR, "stretch-throughput.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def music_wav():
    """The issue 4 test song, made (or reused) by stretch-throughput.py."""
    return _stretch_throughput().music_wav()


def traced_play(cmd, env):
    """Runs one traced play; a dict of its block figures (µs), underruns, wall, CPU, stderr."""
    c = b.child(cmd, "block-times", dict(env, PRACTICE_TRACE="1"))
    match = BLOCKS.search(c.stderr)
    if not match:
        sys.exit(f"block-times: {' '.join(cmd)} printed no block times: {c.stderr.strip()}")
    underruns = sum(int(n) for n in UNDERRUNS.findall(c.stderr))
    blocks, p50, p999, worst = (int(g) for g in match.groups())
    return {"blocks": blocks, "p50": p50, "p999": p999, "max": worst, "underruns": underruns,
            "wall": c.wall, "cpu": c.cpu,
            "warnings": [line for line in c.stderr.splitlines() if "warning" in line]}


def busy_loops(cpus):
    """One pinned Python busy loop per CPU in cpus."""
    return [subprocess.Popen(["taskset", "-c", str(cpu), sys.executable, "-c", "while True: pass"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
            for cpu in cpus]


def main():
    b.ensure_tools("pulseaudio", "pactl", "pacat", "sox", alsa_pulse_plugin=True)
    if not shutil.which("taskset"):
        sys.exit("block-times: taskset (util-linux) is missing")
    with b.TempDir() as frozen:
        measure(_stretch_throughput().frozen_practice_bin(frozen))


def measure(binary):
    song = music_wav()
    cpus = sorted(os.sched_getaffinity(0))
    home, others = cpus[0], cpus[1:]
    audio_seconds = SONG_SECONDS / SPEED
    soak_passes = SOAK_MINUTES  # one pass = 45 s of source = 60 s of audio
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    load_before = os.getloadavg()
    runs = {}
    loops = []
    server_dir = tempfile.mkdtemp(prefix="practice-bench-sound-")
    try:
        env = b.start_sound_server(server_dir)
        with b.TempDir() as tmp:
            db = os.path.join(tmp, "library.sqlite")
            b.practice(binary, "add", song, db=db, stdout=subprocess.DEVNULL)
            play = [binary, "play", "--db", db, song, "--speed", str(SPEED), "--quality", "finer",
                    "--device", "pulse"]
            pinned = ["taskset", "-c", str(home)] + play

            b.log(f"block-times: whole song ({audio_seconds:.0f} s of audio), CPU {home} only")
            runs["idle"] = traced_play(pinned, env)
            if others:
                b.log(f"block-times: again with CPU(s) {','.join(map(str, others))} kept busy")
                loops = busy_loops(others)
                try:
                    time.sleep(1)
                    runs["busy"] = traced_play(pinned, env)
                finally:
                    for loop in loops:
                        loop.kill()
                        loop.wait()
                    loops = []
            if SOAK_MINUTES > 0:
                b.log(f"block-times: soak, {SOAK_MINUTES} min ({soak_passes} passes of 0-"
                      f"{SOAK_PASS_SOURCE} s at {SPEED}), unpinned")
                runs["soak"] = traced_play(play + ["--to", str(SOAK_PASS_SOURCE),
                                                   "--repeat", str(soak_passes)], env)
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
        b.stop_sound_server(server_dir)
        shutil.rmtree(server_dir, ignore_errors=True)
    load_after = os.getloadavg()
    for name, r in runs.items():
        b.log(f"block-times: {name}: {r}")

    def ms(us):
        return f"{us / 1000:.2f} ms"

    labels = {"idle": f"whole song, other CPU idle ({audio_seconds:.0f} s of audio)",
              "busy": f"whole song, other CPU busy ({audio_seconds:.0f} s of audio)",
              "soak": f"{SOAK_MINUTES}-minute soak, looped 0-{SOAK_PASS_SOURCE} s"}
    rows = []
    for name, r in runs.items():
        label = labels[name]
        rows += [
            b.row(f"{label}: block time p50 / p99.9 / max",
                  f"{ms(r['p50'])} / {ms(r['p999'])} / {ms(r['max'])} ({r['blocks']} blocks)"),
            b.row(f"{label}: p99.9 within one block of audio",
                  f"{r['p999'] / 1000 / BLOCK_MS * 100:.0f} % of {BLOCK_MS:.1f} ms",
                  f"< {BLOCK_MS:.1f} ms", r["p999"] / 1000 < BLOCK_MS),
            b.row(f"{label}: max within the ALSA buffer",
                  f"{r['max'] / 1000 / BUFFER_MS * 100:.0f} % of ~{BUFFER_MS} ms "
                  f"({r['max'] / 1000 / BLOCK_MS * 100:.0f} % of one block's {BLOCK_MS:.1f} ms)",
                  f"< {BUFFER_MS} ms", r["max"] / 1000 < BUFFER_MS),
            b.row(f"{label}: underruns", str(r["underruns"]), "0", r["underruns"] == 0),
            b.row(f"{label}: wall / CPU (user+sys)",
                  f"{r['wall']:.1f} s / {r['cpu']:.1f} s "
                  f"({r['cpu'] / r['wall'] * 100:.1f} % of a core)"),
        ]
        if r["warnings"] and not r["underruns"]:
            rows.append(b.row(f"{label}: other warnings", r["warnings"][0]))
    soak_note = (f"The soak ran {SOAK_MINUTES} minutes, as the issue asks."
                 if SOAK_MINUTES >= ISSUE_SOAK_MINUTES else
                 f"The full {ISSUE_SOAK_MINUTES}-minute soak the issue asks for was NOT run: "
                 f"{SOAK_MINUTES} minute(s) only (BENCH_SOAK_MINUTES={SOAK_MINUTES})."
                 if SOAK_MINUTES > 0 else
                 f"The {ISSUE_SOAK_MINUTES}-minute soak the issue asks for was NOT run "
                 "(BENCH_SOAK_MINUTES=0).")
    b.write_results(
        "block-times", f"Issue 4.3: render-thread block times at speed {SPEED} (finer), underruns",
        rows,
        notes=["Song: bench/out/stretch-music-60s.wav (see stretch-throughput), 44.1 kHz stereo "
               "16-bit; played with `practice play --speed 0.75 --quality finer --device pulse` "
               "and PRACTICE_TRACE=1 into a private PulseAudio null sink (scripts/sound-server.sh), "
               "through ALSA's `pulse` PCM, in real time.",
               "Block time = the render thread's work for one 1024-frame block (waiting for the "
               "feeder, Rubber Band process/retrieve, gain, clicks), without the blocking device "
               f"write; budgets: {BLOCK_MS:.1f} ms of audio per block (the sustained limit) and "
               f"the ~{BUFFER_MS} ms ALSA buffer practice requests (what a single slow block may "
               "use; the buffer the pulse plugin actually grants is not reported by practice).",
               "p50 and p99.9 come from practice's histogram (10 µs buckets, a bucket's upper "
               "edge reported; builds before fef44c0 do not cap it at max, so there p99.9 can "
               "exceed max by up to 10 µs); max is exact.",
               f"Runs 1 and 2 pin practice to CPU {home} with taskset; in run 2 every other CPU "
               f"({','.join(map(str, others)) or 'none'}) runs a pinned `python3 -c 'while True: "
               "pass'`. The sound server is not pinned. Run 3 is not pinned and has no extra load.",
               soak_note,
               f"Load average (1 min) before / after: {load_before[0]:.2f} / {load_after[0]:.2f} "
               "(other work on the machine, if any, ran alongside)."])


if __name__ == "__main__":
    main()
