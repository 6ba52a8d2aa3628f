#!/usr/bin/env python3
"""Issue 28: CPU while playing at speed 0.75 with `--focus bass --centre-cut`, against the
same play without them.

A private PulseAudio null-sink server (scripts/sound-server.sh) paces playback in real
time. The first 20 s of the 60 s test song (bench/out/stretch-music-60s.wav, made by
stretch-throughput.py's music_wav; stereo, so the centre cut has work to do) are played at
0.75, i.e. 26.7 s of audio, by
  practice play SONG --speed 0.75 --to 20 --device pulse
  practice play SONG --speed 0.75 --to 20 --device pulse --focus bass --centre-cut
alternately, round after round, in one run; each child's user+sys CPU comes from wait4()'s
rusage. The peer is the plain play: the figure is the difference, in % of a core.
A `render` of the same range with and without the filters (speed 1, as fast as possible)
gives the filter stage's own cost per second of audio, where nothing else hides it.
"""

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

SOURCE_SECONDS = 20
SPEED = 0.75
ROUNDS = int(os.environ.get("BENCH_CPU_FILTERS_ROUNDS", "5"))
TARGET_PERCENT = 5.0
FILTERS = ["--focus", "bass", "--centre-cut"]


def _stretch_throughput():
    spec = importlib.util.spec_from_file_location(
        "stretch_throughput", os.path.join(b.BENCH_DIR, "stretch-throughput.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    b.ensure_tools("pulseaudio", "pactl", "pacat", "sox", alsa_pulse_plugin=True)
    with b.TempDir() as frozen:
        measure(_stretch_throughput().frozen_practice_bin(frozen))


def measure(binary):
    song = _stretch_throughput().music_wav()
    out_seconds = SOURCE_SECONDS / SPEED
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    load_before = os.getloadavg()
    server_dir = tempfile.mkdtemp(prefix="practice-bench-sound-")
    try:
        env = b.start_sound_server(server_dir)
        with b.TempDir() as tmp:
            db = os.path.join(tmp, "library.sqlite")
            b.practice(binary, "add", song, db=db, stdout=subprocess.DEVNULL)
            play = [binary, "play", "--db", db, song, "--speed", str(SPEED), "--to",
                    str(SOURCE_SECONDS), "--device", "pulse"]
            render = [binary, "render", "--db", db, song, "-o", os.path.join(tmp, "out.wav")]
            commands = {"plain": play, "filters": play + FILTERS,
                        "render plain": render, "render filters": render + FILTERS}
            results = {name: [] for name in commands}
            blocks = {name: [] for name in commands}
            env = dict(env, PRACTICE_TRACE="1")
            warnings = {name: [] for name in commands}
            for i in range(ROUNDS):
                for name, cmd in commands.items():
                    c = b.child(cmd, "cpu-filters", env)
                    results[name].append((c.cpu, c.wall))
                    m = re.search(r"trace blocks \d+ block-us p50 (\d+) p99\.9 (\d+) max (\d+)", c.stderr)
                    if m:
                        blocks[name].append(tuple(int(v) for v in m.groups()))
                    b.log(f"cpu-filters: round {i + 1}/{ROUNDS} {name}: CPU {c.cpu:.3f} s, "
                          f"wall {c.wall:.2f} s")
                    warnings[name] += [line for line in c.stderr.splitlines() if "warning" in line]
    finally:
        b.stop_sound_server(server_dir)
        shutil.rmtree(server_dir, ignore_errors=True)
    load_after = os.getloadavg()

    cpu = {name: b.median([r[0] for r in runs]) for name, runs in results.items()}
    percent = {name: cpu[name] / out_seconds * 100 for name in ("plain", "filters")}
    extra = percent["filters"] - percent["plain"]
    song_seconds = 60
    render_extra = (cpu["render filters"] - cpu["render plain"]) / song_seconds * 100

    def block_us(name, i):
        values = [r[i] for r in blocks[name]]
        return f"{b.median(values):.0f}" if values else "n/a"

    def all_cpu(name):
        return ", ".join(f"{c * 1000:.0f}" for c in sorted(r[0] for r in results[name]))

    rows = [
        b.row(f"CPU added by --focus bass --centre-cut while playing at {SPEED} "
              f"({out_seconds:.1f} s of audio), % of a core",
              f"{extra:+.2f} points ({percent['filters']:.2f} % vs {percent['plain']:.2f} %)",
              f"≤ {TARGET_PERCENT:g} points", extra <= TARGET_PERCENT),
        b.row(f"CPU of the whole play: with / without filters (ms, all {ROUNDS} rounds sorted)",
              f"{cpu['filters'] * 1000:.0f} / {cpu['plain'] * 1000:.0f} "
              f"({all_cpu('filters')} | {all_cpu('plain')})"),
        b.row("render of the 60 s song at speed 1: CPU with / without filters",
              f"{cpu['render filters'] * 1000:.0f} ms / {cpu['render plain'] * 1000:.0f} ms "
              f"(the filters: {render_extra:.2f} % of a core per second of audio)"),
        b.row("render-thread work per block (µs, 10 µs buckets), play at 0.75: p50 / p99.9 / max, "
              "with / without filters",
              f"{block_us('filters', 0)} / {block_us('filters', 1)} / {block_us('filters', 2)} vs "
              f"{block_us('plain', 0)} / {block_us('plain', 1)} / {block_us('plain', 2)} "
              "(a block is 23.2 ms of audio)"),
        b.row("render-thread work per block, render at speed 1: p50 with / without filters",
              f"{block_us('render filters', 0)} µs / {block_us('render plain', 0)} µs"),
        b.row("plays that warned of underruns: with / without filters (the machine's load)",
              f"{len(warnings['filters'])} / {len(warnings['plain'])} of {ROUNDS}"
              + "".join(f"; {w}" for w in (warnings["filters"] + warnings["plain"])[:1])),
    ]
    b.write_results(
        "cpu-filters", f"Issue 28: CPU of the filters while playing at speed {SPEED}", rows,
        notes=[f"Medians of {ROUNDS} rounds; each round plays the first {SOURCE_SECONDS} s of the "
               f"test song at {SPEED} ({out_seconds:.1f} s of audio) without and then with "
               "`--focus bass --centre-cut`, through ALSA's `pulse` PCM into a private "
               "PulseAudio null sink, then renders the whole song to WAV both ways.",
               "Song: bench/out/stretch-music-60s.wav (see stretch-throughput), 44.1 kHz stereo "
               "16-bit. CPU = user + sys of the process (wait4 rusage), start-up included. "
               "Block work from PRACTICE_TRACE (medians over the rounds of each quantile).",
               f"Load average (1 min) before / after: {load_before[0]:.2f} / {load_after[0]:.2f}.",
               "Pass/fail is judged on the first row."])


if __name__ == "__main__":
    main()
