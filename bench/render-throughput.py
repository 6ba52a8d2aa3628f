#!/usr/bin/env python3
"""Issue 2, target 4: `render` throughput for a WAV at speed 1.

hyperfine times `practice render SONG -o OUT.wav` (the whole process: start-up, library
lookup, decode, write, rename) for a 60 s stereo 44.1 kHz 16-bit WAV; throughput is
audio seconds / median wall seconds. A 10-minute WAV is timed too, where start-up
weighs less. The song is added to the library first.
"""

import os
import shlex
import subprocess
import sys
import wave

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

TARGET_X = 200.0
CASES = [  # (seconds, runs, warmup)
    (60, 10, 2),
    (600, 5, 1),
]


def same_samples(a, b_):
    with wave.open(a) as x, wave.open(b_) as y:
        if x.getparams()[:3] != y.getparams()[:3] or x.getnframes() != y.getnframes():
            return False
        while True:
            p, q = x.readframes(65536), y.readframes(65536)
            if p != q:
                return False
            if not p:
                return True


def main():
    binary = b.practice_bin()
    rows = []
    with b.TempDir() as tmp:
        db = os.path.join(tmp, "library.sqlite")
        for seconds, runs, warmup in CASES:
            song = b.input_file(f"render-{seconds}s.wav", seconds)
            b.practice(binary, "add", song, db=db, stdout=subprocess.DEVNULL)
            out = os.path.join(tmp, f"out-{seconds}s.wav")
            command = " ".join(shlex.quote(a) for a in
                               [binary, "render", "--db", db, song, "-o", out])
            result = b.hyperfine([command], runs=runs, warmup=warmup,
                                 names=[f"render {seconds} s WAV"])[0]
            med = result["median"]
            times = ", ".join(f"{t * 1000:.0f}" for t in sorted(result["times"]))
            label = f"{seconds} s" if seconds < 120 else f"{seconds // 60} min"
            rows.append(b.row(
                f"{label} WAV → WAV: × real time (median wall)",
                f"{seconds / med:.0f}× ({med * 1000:.0f} ms; user {result['user'] * 1000:.0f} ms, "
                f"sys {result['system'] * 1000:.0f} ms)",
                f"≥ {TARGET_X:.0f}×" if seconds == 60 else "",
                (seconds / med >= TARGET_X) if seconds == 60 else None))
            rows.append(b.row(f"{label}: all {runs} runs (ms, sorted)", times))
            if seconds == 60:
                rows.append(b.row("60 s output has exactly the input's samples",
                                  "yes" if same_samples(song, out) else "NO"))
    b.write_results(
        "render-throughput", "4. `render` throughput, WAV at speed 1", rows,
        notes=["Stereo 44.1 kHz 16-bit pink-noise WAVs made by sox; output WAV in /tmp "
               "(same disk); hyperfine without a shell (-N), warm page cache.",
               "Pass/fail is judged on the 60 s WAV (the whole process, start-up included)."])


if __name__ == "__main__":
    main()
