#!/usr/bin/env python3
"""Issue 4, target 1: `render --speed 0.75` throughput against the rubberband CLI.

The same 60 s stereo 44.1 kHz 16-bit WAV (a synthetic 120 BPM "song": plucked melody,
bass, chord pad, kick, snare and hats, made by sox; see music_wav) is slowed to 0.75 by
  * `practice render SONG --speed 0.75 --quality finer -o OUT.wav`  against
    `rubberband -3 -T 0.75 IN.wav OUT.wav` (R3, "finer"), and
  * `practice render ... --quality faster`  against  `rubberband -2 -T 0.75 ...` (R2).
All commands run alternately, round after round, in one run; each process's wall time
(spawn to exit) and user+sys CPU (wait4 rusage) are recorded and their medians compared.
Throughput ratio practice / rubberband = rubberband's median wall / practice's.

Informational extra commands: the CLI in real-time mode (-R, practice's mode), and the
CLI set up as practice sets up the library (real-time mode, high-consistency pitch
shifting via a flat --pitchmap, channels together via --centre-focus).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import wave

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

SECONDS = 60
SPEED = 0.75
ROUNDS = int(os.environ.get("BENCH_STRETCH_ROUNDS", "5"))
TARGET_RATIO = 0.95
MUSIC_NAME = f"stretch-music-{SECONDS}s.wav"


def music_wav(seconds=SECONDS, rate=44100):
    """bench/out/stretch-music-60s.wav: a stereo 16-bit 120 BPM "song" made by sox, reused
    if present. Plucked melody (eighths), sawtooth bass and a sine chord pad (A F C G, one
    chord a bar), kick on 1 and 3, noise snare on 2 and 4, high-passed noise hats on
    eighths, panned apart, light reverb, peak normalised to -3 dBFS. Shared by the issue 4
    benchmarks (stretch-throughput, cpu-stretch, block-times)."""
    os.makedirs(b.OUT_DIR, exist_ok=True)
    name = f"stretch-music-{seconds}s.wav"
    path = os.path.join(b.OUT_DIR, name)
    if os.path.exists(path):
        return path
    b.ensure_tools("sox")
    b.log(f"bench: generating {path} ({seconds} s)")
    tmp = tempfile.mkdtemp(prefix="practice-bench-music-")

    def sox(*args):
        subprocess.run(["sox", "-q"] + [str(a) for a in args], check=True)

    def f(part):
        return os.path.join(tmp, part)

    try:
        base = ["-r", rate, "-b", 16]
        chords = [("A3", "C4", "E4"), ("F3", "A3", "C4"), ("C3", "E3", "G3"), ("G3", "B3", "D4")]
        roots = ["A1", "F1", "C2", "G1"]
        melody = ["A4", "C5", "E5", "A5", "E5", "C5", "B4", "C5",
                  "F4", "A4", "C5", "F5", "E5", "C5", "A4", "G4",
                  "E4", "G4", "C5", "E5", "G5", "E5", "C5", "G4",
                  "G4", "B4", "D5", "G5", "F5", "D5", "B4", "D5"]
        # One 8 s phrase (4 bars of 4/4 at 120 BPM) of each part, repeated below.
        notes = []
        for i, note in enumerate(melody):
            notes.append(f(f"m{i}.wav"))
            sox("-n", *base, "-c", 1, notes[-1], "synth", 0.25, "pluck", note,
                "fade", 0, 0.25, 0.2, "vol", 0.6)
        sox(*notes, f("melody.wav"))
        for i, (chord, root) in enumerate(zip(chords, roots)):
            sines = [a for note in chord for a in ("sine", note)]
            sox("-n", *base, "-c", 3, f(f"c{i}3.wav"), "synth", 2, *sines,
                "fade", "h", 0.05, 2, 0.3, "vol", 0.25)
            sox(f(f"c{i}3.wav"), f(f"c{i}.wav"), "remix", "1-3")
            sox("-n", *base, "-c", 1, f(f"b{i}.wav"), "synth", 2, "sawtooth", root,
                "lowpass", 400, "fade", 0, 2, 0.5, "vol", 0.5)
        sox(*[f(f"c{i}.wav") for i in range(4)], f("pad.wav"))
        sox(*[f(f"b{i}.wav") for i in range(4)], f("bass.wav"))
        # Drums, one beat (0.5 s) a file: kick on 1 and 3, snare on 2 and 4, hats on eighths.
        sox("-n", *base, "-c", 1, f("kick.wav"), "synth", 0.5, "sine", "120-40",
            "fade", "q", 0.001, 0.5, 0.45, "vol", 0.9)
        sox("-n", *base, "-c", 1, f("snare1.wav"), "synth", 0.15, "whitenoise",
            "fade", "q", 0.001, 0.15, 0.14, "vol", 0.5)
        sox(f("snare1.wav"), f("snare.wav"), "pad", 0, 0.35)
        sox("-n", *base, "-c", 1, f("hat1.wav"), "synth", 0.03, "whitenoise", "vol", 0.4,
            "highpass", 7000, "fade", "q", 0.001, 0.03, 0.025)
        sox(f("hat1.wav"), f("hat.wav"), "pad", 0, 0.22)
        sox(f("kick.wav"), f("snare.wav"), f("kick.wav"), f("snare.wav"), f("drumbar.wav"))
        for part in ("melody", "pad", "bass"):
            sox(f(part + ".wav"), f(part + "-long.wav"), "repeat", int(seconds // 8), "trim", 0, seconds)
        sox(f("drumbar.wav"), f("drums-long.wav"), "repeat", int(seconds // 2), "trim", 0, seconds)
        sox(f("hat.wav"), f("hats-long.wav"), "repeat", int(seconds * 4), "trim", 0, seconds)
        partial = os.path.join(b.OUT_DIR, ".partial." + name)
        sox("-M", f("melody-long.wav"), f("pad-long.wav"), f("bass-long.wav"),
            f("drums-long.wav"), f("hats-long.wav"), *base, "-c", 2, partial,
            "remix", "1v0.3,2v0.15,3v0.2,4v0.2,5v0.1", "1v0.15,2v0.3,3v0.2,4v0.2,5v0.2",
            "reverb", 20, "gain", "-n", -3, "trim", 0, seconds)
        os.rename(partial, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return path


def frozen_practice_bin(directory):
    """Copies the binary under test into directory (modification time kept) and makes the
    copy $PRACTICE_BIN, so that a rebuild during the run (others may build in the same
    tree) changes neither what is measured nor the provenance write_results records for
    it. Call write_results before directory is removed."""
    copy = os.path.join(directory, "practice")
    shutil.copy2(b.practice_bin(), copy)
    os.environ["PRACTICE_BIN"] = copy
    return copy


def run(cmd):
    """(wall seconds, CPU seconds user+sys) of one child; exits on failure."""
    c = b.child(cmd, "stretch-throughput")
    return c.wall, c.cpu


def frames(path):
    with wave.open(path) as w:
        return w.getnframes()


def main():
    b.PACKAGES.setdefault("rubberband", "rubberband-cli")
    b.ensure_tools("sox", "rubberband")
    with b.TempDir() as frozen:
        measure(frozen_practice_bin(frozen))


def measure(binary):
    song = music_wav()
    version = subprocess.run(["rubberband", "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True).stdout.strip().splitlines()[-1]
    load_before = os.getloadavg()
    with b.TempDir() as tmp:
        db = os.path.join(tmp, "library.sqlite")
        b.practice(binary, "add", song, db=db, stdout=subprocess.DEVNULL)
        flat_map = os.path.join(tmp, "flat.pitchmap")
        with open(flat_map, "w") as f:
            f.write("0 0\n")

        def out(name):
            return os.path.join(tmp, name + ".wav")

        def practice_cmd(quality):
            return [binary, "render", "--db", db, song, "--speed", str(SPEED),
                    "--quality", quality, "-o", out("practice-" + quality)]

        def rb_cmd(name, *options):
            # --ignore-clipping: the CLI would otherwise start again at a lower gain if its
            # output clipped; practice never processes twice.
            return ["rubberband", "-q", *options, "--ignore-clipping", "-T", str(SPEED), song, out(name)]

        commands = {
            "practice finer": practice_cmd("finer"),
            "rubberband -3": rb_cmd("rb-3", "-3"),
            "practice faster": practice_cmd("faster"),
            "rubberband -2": rb_cmd("rb-2", "-2"),
            "rubberband -R -3": rb_cmd("rb-R3", "-R", "-3"),
            "rubberband -R -2": rb_cmd("rb-R2", "-R", "-2"),
            "rubberband -3 as practice": rb_cmd("rb-like3", "-3", "--pitchmap", flat_map, "--centre-focus"),
            "rubberband -2 as practice": rb_cmd("rb-like2", "-2", "--pitchmap", flat_map, "--centre-focus"),
        }
        results = {name: [] for name in commands}
        for name, cmd in commands.items():  # warm-up: page cache, library, first-run costs
            run(cmd)
        for i in range(ROUNDS):
            for name, cmd in commands.items():
                wall, cpu = run(cmd)
                results[name].append((wall, cpu))
                b.log(f"stretch-throughput: round {i + 1}/{ROUNDS} {name}: "
                      f"wall {wall:.2f} s, CPU {cpu:.2f} s")
        expected = round(SECONDS * 44100 / SPEED)
        lengths = {name: frames(out(n)) for name, n in
                   (("practice finer", "practice-finer"), ("practice faster", "practice-faster"),
                    ("rubberband -3", "rb-3"), ("rubberband -2", "rb-2"))}
    load_after = os.getloadavg()

    wall = {name: b.median([r[0] for r in runs]) for name, runs in results.items()}
    cpu = {name: b.median([r[1] for r in runs]) for name, runs in results.items()}

    def times(name):
        return ", ".join(f"{w:.2f}" for w in sorted(r[0] for r in results[name]))

    rows = []
    for quality, rb, engine in (("finer", "rubberband -3", "R3"), ("faster", "rubberband -2", "R2")):
        p = f"practice {quality}"
        ratio = wall[rb] / wall[p]
        rows += [
            b.row(f"{engine} ({quality}): throughput ratio practice / `{rb}` (median wall)",
                  f"{ratio:.2f} ({SECONDS / wall[p]:.1f}× vs {SECONDS / wall[rb]:.1f}× real time)",
                  f"≥ {TARGET_RATIO:g}", ratio >= TARGET_RATIO),
            b.row(f"{engine}: median wall, practice / rubberband",
                  f"{wall[p]:.2f} s / {wall[rb]:.2f} s"),
            b.row(f"{engine}: median CPU (user+sys), practice / rubberband",
                  f"{cpu[p]:.2f} s / {cpu[rb]:.2f} s (rubberband / practice {cpu[rb] / cpu[p]:.2f})"),
            b.row(f"{engine}: all wall times (s, sorted), practice | rubberband",
                  f"{times(p)} | {times(rb)}"),
            b.row(f"{engine}: CLI in real-time mode (`-R`, practice's mode): median wall; "
                  "ratio practice / it",
                  f"{wall['rubberband -R ' + rb[-2:]]:.2f} s; "
                  f"{wall['rubberband -R ' + rb[-2:]] / wall[p]:.2f}"),
            b.row(f"{engine}: CLI set up like practice (real time, high-consistency pitch, "
                  "channels together): median wall; ratio practice / it",
                  f"{wall[rb + ' as practice']:.2f} s; {wall[rb + ' as practice'] / wall[p]:.2f}"),
        ]
    rows.append(b.row("output length, frames: practice finer / faster, rubberband -3 / -2",
                      " / ".join(str(lengths[n]) for n in ("practice finer", "practice faster",
                                                            "rubberband -3", "rubberband -2"))
                      + f" (exact: {expected})"))
    b.write_results(
        "stretch-throughput", f"Issue 4.1: `render --speed {SPEED}` throughput vs the rubberband CLI",
        rows,
        notes=[f"Input: a {SECONDS} s stereo 44.1 kHz 16-bit WAV made by sox (bench/out/{MUSIC_NAME}: "
               "plucked melody, bass, chord pad, kick/snare/hat noise bursts at 120 BPM, -3 dBFS peak). "
               f"Speed {SPEED} (time ratio {1 / SPEED:.4g}): 80 s of output. Output WAVs in /tmp.",
               f"All {len(commands)} commands alternate in each of {ROUNDS} rounds (after one warm-up "
               "run each); medians. Wall = spawn to exit of the whole process (practice: start-up, "
               "library lookup, its stretcher alignment probe, decode, stretch, WAV write).",
               f"rubberband CLI {version} from Debian's rubberband-cli, the same library practice links; "
               "run as `rubberband -q -3|-2 --ignore-clipping -T 0.75 IN OUT`.",
               "Not like for like: practice runs Rubber Band in real-time mode, single-threaded "
               "(RubberBandOptionProcessRealTime | ThreadingNever), with high-consistency pitch "
               "shifting and channels together; the CLI by default runs in offline mode (a study "
               "pass, then processing), and with -2 may use a thread per channel on this 2-core "
               "machine (so its wall time can be below its CPU time). The -R and \"set up like "
               "practice\" rows separate the modes: the latter enables high consistency with a flat "
               "--pitchmap (which implies -R) and channels together with --centre-focus.",
               f"Load average (1 min) before / after: {load_before[0]:.2f} / {load_after[0]:.2f} "
               "(other work on the machine slows both sides alike, since they alternate)."])


if __name__ == "__main__":
    main()
