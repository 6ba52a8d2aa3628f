#!/usr/bin/env python3
"""Issue 2, target 3: CPU used while playing in real time, against aplay as a peer.

A private PulseAudio null-sink server (scripts/sound-server.sh) paces playback in real
time. `practice play WAV --device pulse` and `aplay -D pulse WAV` play the same 25 s
WAV through ALSA's pulse PCM, alternately in the same run; each child's user+sys CPU
comes from wait4()'s rusage. Short (1 s) runs of both give the fixed cost (start-up,
connecting, draining), so the steady-state cost per second of audio is also reported:
(CPU of the 25 s run − CPU of the 1 s run) / 24 s.

Issue 24: the player screen against the status line alone. The same 25 s play runs in a
pseudo-terminal of 100×24 (stdin and stderr on it, keys read, the master drained as a
terminal would), once with `--no-screen` (the status line) and once with the player
screen, alternately in the same run; the difference in CPU per second of audio is the
screen's cost (target ≤ 1 % of a core).
"""

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

SECONDS = 25
ROUNDS = int(os.environ.get("BENCH_CPU_ROUNDS", "5"))
TARGET_PERCENT = 1.0
SCREEN_TARGET_PERCENT = 1.0


def child_at_terminal(cmd, label, env, rows=24, columns=100):
    """Runs `cmd` with stdin and stderr on a new pseudo-terminal of `rows`×`columns`, whose
    master a thread reads (and drops) as a terminal would; CPU and wall from wait4()."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    received = [0]
    done = threading.Event()

    def drain():
        while not done.is_set():
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    received[0] += len(os.read(master, 65536))
                except OSError:
                    return

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    started = time.monotonic_ns()
    proc = subprocess.Popen(cmd, env=env, stdin=slave, stdout=subprocess.DEVNULL, stderr=slave,
                            start_new_session=True)
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        os.close(slave)
    wall = (time.monotonic_ns() - started) / 1e9
    time.sleep(0.2)
    done.set()
    reader.join()
    os.close(master)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{label}: {' '.join(cmd)} exited {code}")
    return usage.ru_utime + usage.ru_stime, wall, received[0]


def main():
    b.ensure_tools("pulseaudio", "pactl", "pacat", "aplay", "sox", alsa_pulse_plugin=True)
    binary = b.practice_bin()
    wav = b.input_file(f"play-{SECONDS}s.wav", SECONDS)
    wav1 = b.input_file("play-1s.wav", 1)
    # SIGTERM (e.g. from a time limit) unwinds through `finally`, which stops the server.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    server_dir = tempfile.mkdtemp(prefix="practice-bench-sound-")
    try:
        env = b.start_sound_server(server_dir)
        with b.TempDir() as tmp:
            db = os.path.join(tmp, "library.sqlite")
            b.practice(binary, "add", wav, db=db, stdout=subprocess.DEVNULL)
            practice_cmd = [binary, "play", "--db", db, wav, "--device", "pulse"]
            aplay_cmd = ["aplay", "-q", "-D", "pulse", wav]
            results = {"practice": [], "aplay": [], "practice 1 s": [], "aplay 1 s": []}
            warnings = []
            # The player screen against the status line, at a terminal; one play first so
            # that the waveform summary is in the library (as after any first play).
            child_at_terminal(practice_cmd + ["--from", "0", "--to", "1"], "cpu-play", env)
            terminal = {"status line": [], "screen": []}
            for i in range(ROUNDS):
                for name, extra in (("status line", ["--no-screen"]), ("screen", [])):
                    cpu_s, wall_s, written = child_at_terminal(practice_cmd + extra, "cpu-play", env)
                    terminal[name].append((cpu_s, wall_s, written))
                    b.log(f"cpu-play: at a terminal, {name} round {i + 1}: CPU {cpu_s:.3f} s, "
                          f"wall {wall_s:.2f} s, {written} bytes to the terminal")
            for i in range(ROUNDS):
                for name, cmd in (("aplay", aplay_cmd), ("practice", practice_cmd),
                                  ("aplay 1 s", ["aplay", "-q", "-D", "pulse", wav1]),
                                  ("practice 1 s", practice_cmd + ["--from", "0", "--to", "1"])):
                    c = b.child(cmd, "cpu-play", env)
                    cpu, wall, stderr, switches = c.cpu, c.wall, c.stderr, c.switches
                    results[name].append((cpu, wall, switches))
                    b.log(f"cpu-play: {name} round {i + 1}: CPU {cpu:.3f} s, wall {wall:.2f} s")
                    warnings += [line for line in stderr.splitlines() if "warning" in line]
    finally:
        b.stop_sound_server(server_dir)
        subprocess.run(["rm", "-rf", server_dir], check=False)

    cpu = {name: b.median([r[0] for r in runs]) for name, runs in results.items()}
    wall = {name: b.median([r[1] for r in runs]) for name, runs in results.items()}
    percent = {name: cpu[name] / SECONDS * 100 for name in ("practice", "aplay")}
    steady = {name: max(0.0, cpu[name] - cpu[name + " 1 s"]) / (SECONDS - 1) * 100
              for name in ("practice", "aplay")}
    switches = {name: b.median([r[2] for r in runs]) / SECONDS
                for name, runs in results.items() if "1 s" not in name}
    ratio = cpu["practice"] / cpu["aplay"] if cpu["aplay"] > 0 else float("inf")
    at_terminal = {name: b.median([r[0] for r in runs]) for name, runs in terminal.items()}
    written = {name: b.median([r[2] for r in runs]) for name, runs in terminal.items()}
    screen_cost = (at_terminal["screen"] - at_terminal["status line"]) / SECONDS * 100
    rows = [
        b.row(f"practice: CPU per second of audio ({SECONDS} s WAV), % of a core",
              f"{cpu['practice'] / SECONDS * 1000:.2f} ms/s = {percent['practice']:.2f} %",
              f"≤ {TARGET_PERCENT:g} %", percent["practice"] <= TARGET_PERCENT),
        b.row(f"aplay: CPU per second of audio ({SECONDS} s WAV), % of a core",
              f"{cpu['aplay'] / SECONDS * 1000:.2f} ms/s = {percent['aplay']:.2f} %"),
        b.row("ratio practice / aplay", f"{ratio:.1f}×"),
        b.row(f"CPU of the whole {SECONDS} s run: practice / aplay",
              f"{cpu['practice'] * 1000:.0f} ms / {cpu['aplay'] * 1000:.0f} ms"),
        b.row("CPU of a 1 s run (fixed cost): practice / aplay",
              f"{cpu['practice 1 s'] * 1000:.0f} ms / {cpu['aplay 1 s'] * 1000:.0f} ms"),
        b.row("steady state, fixed cost removed: practice / aplay, % of a core",
              f"{steady['practice']:.2f} % / {steady['aplay']:.2f} %"),
        b.row("voluntary context switches per second of audio: practice / aplay",
              f"{switches['practice']:.0f} / {switches['aplay']:.0f}"),
        b.row(f"wall time of the {SECONDS} s run: practice / aplay",
              f"{wall['practice']:.2f} s / {wall['aplay']:.2f} s"),
        b.row("player screen above the status line alone, at a 100×24 terminal, % of a core",
              f"{screen_cost:+.2f} %", f"≤ {SCREEN_TARGET_PERCENT:g} %",
              screen_cost <= SCREEN_TARGET_PERCENT),
        b.row(f"CPU of the {SECONDS} s play at a terminal: status line / player screen",
              f"{at_terminal['status line'] * 1000:.0f} ms / {at_terminal['screen'] * 1000:.0f} ms"),
        b.row("bytes written to the terminal per second: status line / player screen",
              f"{written['status line'] / SECONDS:.0f} / {written['screen'] / SECONDS:.0f}"),
        b.row("warnings printed by practice (underruns etc.)",
              "none" if not warnings else f"{len(warnings)}: {warnings[0]}"),
    ]
    b.write_results(
        "cpu-play", "3. CPU while playing in real time (vs aplay)", rows,
        notes=[f"Medians of {ROUNDS} rounds; each round plays aplay then practice, {SECONDS} s "
               "then 1 s, through ALSA's `pulse` PCM into a private PulseAudio null sink "
               "(scripts/sound-server.sh), which paces playback in real time.",
               "CPU = user + sys of the player process (wait4 rusage), start-up included; "
               "the sound server's own CPU is counted for neither.",
               "Pass/fail is judged on the first row (whole run, start-up included).",
               f"The player screen (issue 24): the same {SECONDS} s play with stdin and stderr "
               "on a pseudo-terminal of 100×24 whose master is drained, with `--no-screen` and "
               f"without, alternately, {ROUNDS} rounds; the figure is the difference of the "
               "medians per second of audio. Its row passes at ≤ 1 % of a core."])


if __name__ == "__main__":
    main()
