#!/usr/bin/env python3
"""Issue 4, target 2: CPU while playing at speed 0.75 in real time, against mpv.

A private PulseAudio null-sink server (scripts/sound-server.sh) paces playback in real
time. The first 30 s of the 60 s test song (bench/out/stretch-music-60s.wav, made by
stretch-throughput.py's music_wav) are played at 0.75, i.e. 40 s of audio, by
  practice play SONG --speed 0.75 --quality finer --to 30 --device pulse
  mpv --no-config --no-video --ao=alsa --audio-device=alsa/pulse
      --af=rubberband=engine=finer --speed=0.75 --length=30 SONG
both through ALSA's `pulse` PCM, alternately, round after round, in one run; each child's
user+sys CPU comes from wait4()'s rusage. Both run Rubber Band's R3 engine in real-time
mode with the same options (mpv's defaults: pitch=consistency, channels=together). Short
(1 s of source) runs of both give the fixed cost, so a steady-state figure is reported too.
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

SOURCE_SECONDS = 30
SHORT_SECONDS = 1
SPEED = 0.75
ROUNDS = int(os.environ.get("BENCH_CPU_STRETCH_ROUNDS", "5"))
TARGET_RATIO = 1.0


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


def mpv_uses_rubberband(cmd, env, tmp):
    """Whether mpv's filter chain has rubberband doing the speed change (mpv's own speed
    filter, scaletempo2 by default, disabled): a 1 s run with a verbose log."""
    log = os.path.join(tmp, "mpv.log")
    short = [a if not a.startswith("--length=") else "--length=1" for a in cmd]
    b.child(short[:-1] + ["-v", f"--log-file={log}", short[-1]], "cpu-stretch", env)
    with open(log, errors="replace") as f:
        text = f.read()
    return ("[rubberband]" in text and re.search(r"\[userspeed\] \(disabled\)", text) is not None
            and "scaletempo" not in text)


def main():
    b.PACKAGES.setdefault("mpv", "mpv")
    b.ensure_tools("pulseaudio", "pactl", "pacat", "sox", "mpv", alsa_pulse_plugin=True)
    with b.TempDir() as frozen:
        measure(_stretch_throughput().frozen_practice_bin(frozen))


def measure(binary):
    song = music_wav()
    mpv_version = subprocess.run(["mpv", "--version"], stdout=subprocess.PIPE,
                                 text=True).stdout.splitlines()[0].split(" Copyright")[0]
    out_seconds = SOURCE_SECONDS / SPEED
    short_out_seconds = SHORT_SECONDS / SPEED
    # SIGTERM (e.g. from a time limit) unwinds through `finally`, which stops the server.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    load_before = os.getloadavg()
    server_dir = tempfile.mkdtemp(prefix="practice-bench-sound-")
    try:
        env = b.start_sound_server(server_dir)
        with b.TempDir() as tmp:
            db = os.path.join(tmp, "library.sqlite")
            b.practice(binary, "add", song, db=db, stdout=subprocess.DEVNULL)

            def practice_cmd(seconds):
                return [binary, "play", "--db", db, song, "--speed", str(SPEED), "--quality", "finer",
                        "--to", str(seconds), "--device", "pulse"]

            def mpv_cmd(seconds):
                return ["mpv", "--no-config", "--no-video", "--no-terminal", "--ao=alsa",
                        "--audio-device=alsa/pulse", "--af=rubberband=engine=finer",
                        f"--speed={SPEED}", f"--length={seconds}", song]

            mpv_ok = mpv_uses_rubberband(mpv_cmd(SOURCE_SECONDS), env, tmp)
            commands = {"mpv": mpv_cmd(SOURCE_SECONDS), "practice": practice_cmd(SOURCE_SECONDS),
                        "mpv short": mpv_cmd(SHORT_SECONDS),
                        "practice short": practice_cmd(SHORT_SECONDS)}
            results = {name: [] for name in commands}
            warnings = []
            for i in range(ROUNDS):
                for name, cmd in commands.items():
                    c = b.child(cmd, "cpu-stretch", env)
                    cpu, wall, stderr, rss = c.cpu, c.wall, c.stderr, c.maxrss_kib
                    results[name].append((cpu, wall, rss))
                    b.log(f"cpu-stretch: round {i + 1}/{ROUNDS} {name}: CPU {cpu:.3f} s, "
                          f"wall {wall:.2f} s")
                    if name.startswith("practice"):
                        warnings += [line for line in stderr.splitlines() if "warning" in line]
    finally:
        b.stop_sound_server(server_dir)
        shutil.rmtree(server_dir, ignore_errors=True)
    load_after = os.getloadavg()

    cpu = {name: b.median([r[0] for r in runs]) for name, runs in results.items()}
    wall = {name: b.median([r[1] for r in runs]) for name, runs in results.items()}
    rss = {name: b.median([r[2] for r in runs]) for name, runs in results.items()}
    per_second = {name: cpu[name] / out_seconds * 1000 for name in ("practice", "mpv")}
    steady = {name: max(0.0, cpu[name] - cpu[name + " short"]) / (out_seconds - short_out_seconds) * 1000
              for name in ("practice", "mpv")}
    ratio = cpu["practice"] / cpu["mpv"] if cpu["mpv"] > 0 else float("inf")

    def all_cpu(name):
        return ", ".join(f"{c * 1000:.0f}" for c in sorted(r[0] for r in results[name]))

    rows = [
        b.row(f"CPU ratio practice / mpv ({out_seconds:.0f} s of audio at {SPEED}, whole process)",
              f"{ratio:.2f}", f"≤ {TARGET_RATIO:g}", ratio <= TARGET_RATIO),
        b.row("CPU per second of audio played: practice / mpv",
              f"{per_second['practice']:.1f} ms/s / {per_second['mpv']:.1f} ms/s "
              f"({per_second['practice'] / 10:.1f} % / {per_second['mpv'] / 10:.1f} % of a core)"),
        b.row(f"CPU of the whole run: practice / mpv (ms, all {ROUNDS} rounds sorted)",
              f"{cpu['practice'] * 1000:.0f} / {cpu['mpv'] * 1000:.0f} "
              f"({all_cpu('practice')} | {all_cpu('mpv')})"),
        b.row(f"fixed cost, CPU of a {SHORT_SECONDS} s-of-source run: practice / mpv",
              f"{cpu['practice short'] * 1000:.0f} ms / {cpu['mpv short'] * 1000:.0f} ms"),
        b.row("steady state, fixed cost removed: practice / mpv",
              f"{steady['practice']:.1f} ms/s / {steady['mpv']:.1f} ms/s (ratio "
              f"{steady['practice'] / steady['mpv']:.2f})" if steady["mpv"] > 0 else "n/a"),
        b.row(f"wall time of the run ({out_seconds:.0f} s of audio): practice / mpv",
              f"{wall['practice']:.2f} s / {wall['mpv']:.2f} s"),
        b.row("max RSS: practice / mpv",
              f"{rss['practice'] / 1024:.0f} MiB / {rss['mpv'] / 1024:.0f} MiB"),
        b.row("mpv's filter chain: rubberband does the speed change",
              "yes" if mpv_ok else "NO (check mpv's log: the comparison is void)"),
        b.row("warnings printed by practice (underruns etc.)",
              "none" if not warnings else f"{len(warnings)}: {warnings[0]}"),
    ]
    b.write_results(
        "cpu-stretch", f"Issue 4.2: CPU while playing at speed {SPEED} (vs mpv + Rubber Band)", rows,
        notes=[f"Medians of {ROUNDS} rounds; each round plays mpv then practice, the first "
               f"{SOURCE_SECONDS} s of the test song ({out_seconds:.0f} s of audio), then "
               f"{SHORT_SECONDS} s of it, through ALSA's `pulse` PCM into a private PulseAudio "
               "null sink (scripts/sound-server.sh), which paces playback in real time.",
               "Song: bench/out/stretch-music-60s.wav (see stretch-throughput), 44.1 kHz stereo "
               "16-bit WAV. Both players: Rubber Band R3 (finer), real-time mode, "
               "high-consistency pitch, channels together; mpv as `mpv --no-config --no-video "
               "--ao=alsa --audio-device=alsa/pulse --af=rubberband=engine=finer --speed=0.75 "
               f"--length={SOURCE_SECONDS}` ({mpv_version}; mpv decodes with FFmpeg and hands "
               "ALSA float samples, with its default 200 ms audio buffer; practice asks for ~100 ms).",
               "CPU = user + sys of the player process (wait4 rusage), start-up included (for "
               "practice that includes its stretcher alignment probe); the sound server's CPU "
               "is counted for neither. ms/s = ms of CPU per second of audio played (output time).",
               f"Load average (1 min) before / after: {load_before[0]:.2f} / {load_after[0]:.2f}.",
               "Pass/fail is judged on the first row (whole run, start-up included)."])


if __name__ == "__main__":
    main()
