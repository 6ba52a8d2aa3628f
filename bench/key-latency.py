#!/usr/bin/env python3
"""Issue 5: key-to-audible latency (pause, speed change) and CPU while paused.

`practice play` runs in a tmux pane (a real pseudo-terminal, so it reads keys) against
the private PulseAudio null-sink server, whose monitor parecord records. The engine is
deterministic, so a run without keys is a reference: the first recorded sample where a
run with a key differs from the reference is the moment the key became audible. Both
recordings are aligned on their first sound; the key's time comes from the player's own
trace (PRACTICE_TRACE: when the key arrived, and when the first frame went to the
device), so

    latency = (first differing sample - first sound) / rate - (key time - first frame)

This leaves out PulseAudio's own start-up latency, which the first sound carries too
(a few milliseconds with this server's settings). Scenarios:
  pause              space at 100 % (the fade-out starts the difference)
  speed, from 100 %  `]` while the stretcher is bypassed: it comes into the path
  speed, stretched   `]` at 90 %: Rubber Band's own latency is in the path
  focus key          `F` (issue 28): the bass focus fades in
  channel key        `R` (issue 28): the right channel on both sides (the recording's left
                     channel changes; the test noise differs between channels)
CPU while paused: user+system time of the paused player over 10 s, from /proc.
"""

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

ROUNDS = int(os.environ.get("BENCH_KEY_ROUNDS", "3"))
RATE = 44100
KEY_AT = 2.5  # seconds after the first sound
TARGET_MS = 100
PAUSED_TARGET = 0.2  # percent of a core




class Pane:
    """practice in a tmux pane of its own server; stderr and the recording go to files."""

    def __init__(self, tmp, env, args, record):
        self.socket = f"practice-bench-{os.getpid()}-{time.monotonic_ns()}"
        self.err = os.path.join(tmp, f"{self.socket}.err")
        self.raw = os.path.join(tmp, f"{self.socket}.raw")
        self.status = os.path.join(tmp, f"{self.socket}.status")
        quoted = " ".join("'" + a.replace("'", "'\\''") + "'" for a in args)
        rec = (f"parecord --device=practice_null.monitor --raw --format=s16le --rate={RATE} "
               f"--channels=2 --latency-msec=20 '{self.raw}' & rec=$!; sleep 0.3; ") if record else ""
        script = (f"{rec}PRACTICE_TRACE=1 {quoted} 2>'{self.err}'; echo $? >'{self.status}'; "
                  + ("sleep 0.3; kill -KILL $rec; " if record else "") + "sleep 600")
        envs = [f"{k}={v}" for k, v in env.items() if "\n" not in v and not k.startswith("TMUX")]
        self.tmux("new-session", "-d", "-x", "120", "-y", "10", "env", *envs, "bash", "-c", script)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "0", *keys)

    def wait_exit(self, timeout=30):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if os.path.exists(self.status) and open(self.status).read().strip():
                time.sleep(0.5)
                return int(open(self.status).read())
            time.sleep(0.05)
        raise RuntimeError(f"practice did not exit; stderr: {open(self.err).read()}")

    def kill(self):
        self.tmux("kill-server")


def trace(path):
    text = open(path).read()
    first = int(re.search(r"trace first-frame-ns (\d+)", text).group(1))
    keys = [(name, int(ns)) for name, ns in re.findall(r"trace key (\S+) ns (\d+)", text)]
    return first, keys


def samples(path):
    data = open(path, "rb").read()
    return memoryview(data).cast("h")[::2]  # left channel


def first_sound(x):
    for i, v in enumerate(x):
        if abs(v) > 30:
            return i
    raise RuntimeError("the recording is silent")


def run(tmp, env, binary, db, song, extra, key):
    """One play with `key` sent KEY_AT s after the first sound (None: the reference)."""
    pane = Pane(tmp, env, [binary, "play", "--db", db, song, "--device", "pulse", *extra], True)
    try:
        time.sleep(1.0 + KEY_AT)  # the recorder's lead, start-up, then the key
        if key:
            pane.keys(key)
        time.sleep(1.5)
        pane.keys("q")
        code = pane.wait_exit()
    finally:
        pane.kill()
    if code != 0:
        sys.exit(f"key-latency: practice exited {code}: {open(pane.err).read()}")
    return samples(pane.raw), trace(pane.err)


def latency(reference, keyed, key_name):
    ref, _ = reference
    x, (first_ns, keys) = keyed
    r0, k0 = first_sound(ref), first_sound(x)
    n = min(len(ref) - r0, len(x) - k0)
    diff = next((i for i in range(n) if ref[r0 + i] != x[k0 + i]), None)
    if diff is None:
        raise RuntimeError("the key made no difference to what was heard")
    key_ns = next(ns for name, ns in keys if name == key_name)
    return (diff / RATE - (key_ns - first_ns) / 1e9) * 1000


def paused_cpu(tmp, env, binary, db, song):
    pane = Pane(tmp, env, [binary, "play", "--db", db, song, "--device", "pulse", "--loop"], False)
    try:
        time.sleep(2.5)
        pane.keys("Space")
        time.sleep(1.0)
        pid = int(subprocess.run(["pgrep", "-f", "--", f"--db {db}"], stdout=subprocess.PIPE,
                                 text=True).stdout.split()[0])

        def cpu():
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

        c0, t0 = cpu(), time.monotonic()
        time.sleep(10)
        c1, t1 = cpu(), time.monotonic()
        pane.keys("q")
        pane.wait_exit()
    finally:
        pane.kill()
    return (c1 - c0) / (t1 - t0) * 100


def main():
    b.ensure_tools("pulseaudio", "pactl", "parecord", "tmux", "sox", alsa_pulse_plugin=True)
    binary = b.practice_bin()
    song = b.input_file("keys-12s.wav", 12)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    server_dir = tempfile.mkdtemp(prefix="practice-bench-sound-")
    rows, notes = [], []
    try:
        env = b.start_sound_server(server_dir)
        with b.TempDir() as tmp:
            db = os.path.join(tmp, "library.sqlite")
            b.practice(binary, "add", song, db=db, stdout=subprocess.DEVNULL)
            for label, extra, key, name in (("pause", [], "Space", "space"),
                                            ("speed change from 100 %", [], "]", "]"),
                                            ("speed change at 90 % (stretched)", ["--speed", "90%"], "]", "]"),
                                            ("focus key `F` (issue 28)", [], "F", "F"),
                                            ("right channel key `R` (issue 28)", [], "R", "R")):
                reference = run(tmp, env, binary, db, song, extra, None)
                values = []
                for _ in range(ROUNDS):
                    values.append(latency(reference, run(tmp, env, binary, db, song, extra, key), name))
                b.log(f"key-latency: {label}: {', '.join(f'{v:.1f}' for v in values)} ms")
                worst = max(values)
                rows.append(b.row(f"{label}: key to audible, median / worst",
                                  f"{b.median(values):.1f} / {worst:.1f} ms", f"≤ {TARGET_MS} ms",
                                  worst <= TARGET_MS))
            percent = paused_cpu(tmp, env, binary, db, song)
            rows.append(b.row("CPU while paused", f"{percent:.3f} % of a core",
                              f"≤ {PAUSED_TARGET} %", percent <= PAUSED_TARGET))
    finally:
        b.stop_sound_server(server_dir)
        shutil.rmtree(server_dir, ignore_errors=True)
    notes.append(f"{ROUNDS} keyed runs per scenario against one reference run; latency is measured "
                 "on the sink's monitor recording (see the script's docstring for the method).")
    b.write_results("key-latency", "Keys: key-to-audible latency and CPU while paused (issue 5)",
                    rows, notes)


if __name__ == "__main__":
    main()
