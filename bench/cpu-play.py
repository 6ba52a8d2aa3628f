#!/usr/bin/env python3
"""Issue 2, target 3: CPU used while playing in real time, against aplay as a peer.

A private PulseAudio null-sink server (scripts/sound-server.sh) paces playback in real
time. `practice play WAV --device pulse` and `aplay -D pulse WAV` play the same 25 s
WAV through ALSA's pulse PCM, alternately in the same run; each child's user+sys CPU
comes from wait4()'s rusage. Short (1 s) runs of both give the fixed cost (start-up,
connecting, draining), so the steady-state cost per second of audio is also reported:
(CPU of the 25 s run − CPU of the 1 s run) / 24 s.
"""

import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

SECONDS = 25
ROUNDS = int(os.environ.get("BENCH_CPU_ROUNDS", "5"))
TARGET_PERCENT = 1.0


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
               "Pass/fail is judged on the first row (whole run, start-up included)."])


if __name__ == "__main__":
    main()
