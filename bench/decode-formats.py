#!/usr/bin/env python3
"""Issues 22 and 42: the formats FFmpeg decodes, M4A (AAC) and WebM (Opus), against the
FLAC path; since issue 42 both are demuxed by libavformat and decoded by libavcodec.

Inputs: the 60-minute pink-noise FLAC of the other benchmarks (benchlib.long_flac())
encoded once by the `ffmpeg` command into bench/out/: an .m4a with AAC (ffmpeg's own
encoder, 44.1 kHz) and a .webm with Opus (libopus, resampled to 48 kHz, the only rate
Opus has); with BENCH_BEFORE_BIN, an MP3 (libmp3lame) and a 16-bit WAV of it too, for the
libsndfile formats that must not change. All are added to one temporary library first.

1. First frame, as start-latency.py measures it: `play --from 10 --to 11` (near start) and
   `--from 3580 --to 3581` (near end) on the ALSA `null` PCM with PRACTICE_TRACE=1, ms from
   spawn to the first frame handed to ALSA; the formats and ranges are alternated, and the
   FLAC is played in the same rounds.
2. Decode throughput: whole-file `play` on `null` (not paced, so it runs as fast as the
   file decodes, as in rss.py) against `ffmpeg -v error -i FILE -f null -` of the same
   file, alternated in the same run; ratio = ffmpeg's median wall time / practice's.
3. Peak RSS (wait4 ru_maxrss) of those whole-file plays; the M4A's is the target.
4. That FFmpeg weighs nothing on WAV, FLAC and MP3: their first frames (and the FLAC's
   peak RSS) in this run against the figures of bench/RESULTS.md before FFmpeg was merged (b2cb210), or, with
   BENCH_BEFORE_BIN set to a binary built before (without FFmpeg, or before issue 42) (and built the same way: `make
   release` links the Swift runtime in, which alone is worth ~10 ms and ~6 MiB), against
   that binary played in the same rounds (the fairer test on a busy machine; WAV and MP3
   only then). Held to at most 5 % above it. And whether any FFmpeg library is mapped into a `play` of the FLAC.

BENCH_DECODE_RUNS (first-frame rounds, default 15) and BENCH_DECODE_THROUGHPUT_RUNS
(whole-file rounds, default 5) shorten it.
"""

import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

RUNS = int(os.environ.get("BENCH_DECODE_RUNS", "15"))
THROUGHPUT_RUNS = int(os.environ.get("BENCH_DECODE_THROUGHPUT_RUNS", "5"))
WARMUP = 2
RANGES = {"near start": ("10", "11"), "near end": ("3580", "3581")}
# Issue 42: a musician cannot tell 50 ms from 150 ms at the start of a play.
FIRST_FRAME_TARGET_MS = 150.0
SPEED_TARGET = 0.9
RSS_TARGET_MIB = 64.0
SAME_AS_BEFORE = 0.05

# (label, file in bench/out/, ffmpeg encoding options)
FORMATS = [
    ("M4A (AAC)", "long-60min.m4a", ["-c:a", "aac", "-b:a", "192k"]),
    ("WebM (Opus)", "long-60min.webm", ["-ar", "48000", "-c:a", "libopus", "-b:a", "128k"]),
]
FLAC = "FLAC"
# libsndfile's other formats, compared with the binary before (BENCH_BEFORE_BIN) only.
UNCHANGED = [("WAV", "long-60min.wav", ["-c:a", "pcm_s16le"]),
             ("MP3", "long-60min.mp3", ["-c:a", "libmp3lame", "-b:a", "192k"])]

# The FLAC's figures in bench/RESULTS.md as it stood before FFmpeg was merged (b2cb210^1;
# measured 2026-11-23 by a binary built from 7ae511a): start-latency and rss.
BEFORE = {"near start": 12.7, "near end": 12.9, "rss": 26.2}
BEFORE_SOURCE = "bench/RESULTS.md before FFmpeg (b2cb210^1; binary from 7ae511a)"
BEFORE_BIN = os.path.abspath(os.environ["BENCH_BEFORE_BIN"]) if os.environ.get(
    "BENCH_BEFORE_BIN") else None
BEFORE_FLAC = "FLAC, binary before"
FFMPEG_LIBRARIES = ("libavcodec", "libavformat", "libavutil", "libswresample")


def encoded(name, source, options):
    """bench/out/NAME: SOURCE encoded by the ffmpeg command, reused if present."""
    path = os.path.join(b.OUT_DIR, name)
    if os.path.exists(path):
        return path
    b.ensure_tools("ffmpeg")
    b.log(f"bench: encoding {path} from {os.path.basename(source)} (this may take a while)")
    partial = os.path.join(b.OUT_DIR, ".partial." + name)
    subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y", "-i", source, "-vn"] + options
                   + [partial], check=True)
    os.rename(partial, path)
    return path


def whole_play(binary, db, song):
    """Child of one whole-file `play` on null; exits if it warned."""
    c = b.child([binary, "play", "--db", db, song, "--device", "null"], "decode-formats")
    if "warning" in c.stderr:
        sys.exit(f"decode-formats: play of {song} warned: {c.stderr.strip()}")
    return c


def ffmpeg_null(song):
    return b.child(["ffmpeg", "-v", "error", "-nostdin", "-i", song, "-f", "null", "-"],
                   "decode-formats")


def mapped_ffmpeg(binary, db, song):
    """The FFmpeg libraries found in /proc/PID/maps of a whole-file `play` on null, read
    every 20 ms while it runs (after it has started playing, so after any decoder opened)."""
    found = set()
    proc = subprocess.Popen([binary, "play", "--db", db, song, "--device", "null"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        while proc.poll() is None:
            try:
                with open(f"/proc/{proc.pid}/maps") as f:
                    maps = f.read()
            except OSError:
                break
            found |= {lib for lib in FFMPEG_LIBRARIES if lib in maps}
            time.sleep(0.02)
    finally:
        proc.kill()
        proc.wait()
    return sorted(found)


def within(value, before):
    """No more than SAME_AS_BEFORE above the figure before FFmpeg (less is no harm)."""
    return value <= before * (1 + SAME_AS_BEFORE)


def static_swift(path):
    """Whether the binary has the Swift runtime linked in (`make release`), not shared."""
    out = subprocess.run(["ldd", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True).stdout
    return "libswiftCore" not in out


def main():
    binary = b.practice_bin()
    flac = b.long_flac()
    songs = {FLAC: flac}
    for label, name, options in FORMATS:
        songs[label] = encoded(name, flac, options)
    b.ensure_tools("ffmpeg")
    load_before = os.getloadavg()[0]
    players = {fmt: binary for fmt in songs}
    befores = {}  # format -> its label when played by the binary before
    if BEFORE_BIN:
        for label, name, options in UNCHANGED:
            songs[label] = encoded(name, flac, options)
            players[label] = binary
        if static_swift(BEFORE_BIN) != static_swift(binary):
            # A shared Swift runtime alone costs ~10 ms of start-up and ~6 MiB: such a
            # comparison measures the build, not FFmpeg.
            sys.exit(f"decode-formats: {BEFORE_BIN} and {binary} link the Swift runtime "
                     "differently (one statically, one shared); build both the same way "
                     "(`make release`)")
        for fmt in [FLAC] + [label for label, _, _ in UNCHANGED]:
            befores[fmt] = BEFORE_FLAC if fmt == FLAC else f"{fmt}, binary before"
            players[befores[fmt]] = BEFORE_BIN
    song_of = dict(songs)
    for fmt, label in befores.items():
        song_of[label] = songs[fmt]

    first = {(f, r): [] for f in players for r in RANGES}
    # CPU (user + sys) of each of those plays: what load on a shared machine does not inflate.
    first_cpu = {(f, r): [] for f in players for r in RANGES}
    practice_runs = {label: [] for label, _, _ in FORMATS}
    ffmpeg_runs = {label: [] for label, _, _ in FORMATS}
    with b.TempDir() as tmp:
        db = os.path.join(tmp, "library.sqlite")
        b.practice(binary, "add", *songs.values(), db=db, stdout=subprocess.DEVNULL)
        # The binary before gets its own library (it may not read a newer schema).
        dbs = {fmt: db for fmt in songs}
        if BEFORE_BIN:
            before_db = os.path.join(tmp, "before.sqlite")
            b.practice(BEFORE_BIN, "add", *[songs[f] for f in befores], db=before_db,
                       stdout=subprocess.DEVNULL)
            for label in befores.values():
                dbs[label] = before_db

        # 1. First frame: warm up, then alternate formats and ranges so that noise from the
        # shared machine hits them all alike.
        for i in range(WARMUP + RUNS):
            for fmt, player in players.items():
                for r, (start, end) in RANGES.items():
                    traced = b.traced_play(player, dbs[fmt], song_of[fmt], "--from", start,
                                           "--to", end)
                    if i >= WARMUP:
                        first[(fmt, r)].append(traced[0])
                        first_cpu[(fmt, r)].append(traced[2])

        # 2, 3. Whole file: practice and ffmpeg alternated, one warm-up round each.
        for i in range(1 + THROUGHPUT_RUNS):
            for label, _, _ in FORMATS:
                p = whole_play(binary, db, songs[label])
                f = ffmpeg_null(songs[label])
                if i:
                    practice_runs[label].append(p)
                    ffmpeg_runs[label].append(f)
        flac_full, before_full = [], []
        for _ in range(3):
            flac_full.append(whole_play(binary, db, flac))
            if BEFORE_BIN:
                before_full.append(whole_play(BEFORE_BIN, dbs[BEFORE_FLAC], flac))

        # 4. FFmpeg is loaded on first use: never for a FLAC; for an M4A (check of the check).
        mapped = {FLAC: mapped_ffmpeg(binary, db, flac),
                  FORMATS[0][0]: mapped_ffmpeg(binary, db, songs[FORMATS[0][0]])}

    for (fmt, r), values in first.items():
        b.log(f"decode-formats {fmt} {r}: " + " ".join(f"{v:.1f}" for v in values) + " ms")
    for label in practice_runs:
        b.log(f"decode-formats {label} whole file, practice / ffmpeg (s): " + ", ".join(
            f"{p.wall:.2f}/{f.wall:.2f}"
            for p, f in zip(practice_runs[label], ffmpeg_runs[label])))

    rows = []
    for label, _, _ in FORMATS:
        for r, (start, end) in RANGES.items():
            values = first[(label, r)]
            med = b.median(values)
            rows.append(b.row(
                f"{label}: first frame, `--from {start} --to {end}` ({r}): median (p90; "
                "fastest; CPU of the whole play, median)",
                f"{med:.1f} ms ({b.p90(values):.1f} ms; {min(values):.1f} ms; CPU "
                f"{b.median(first_cpu[(label, r)]):.1f} ms, FLAC's "
                f"{b.median(first_cpu[(FLAC, r)]):.1f} ms)",
                f"≤ {FIRST_FRAME_TARGET_MS:.0f} ms", med <= FIRST_FRAME_TARGET_MS))
    for label, _, _ in FORMATS:
        p = b.median([c.wall for c in practice_runs[label]])
        f = b.median([c.wall for c in ffmpeg_runs[label]])
        ratio = f / p
        rows.append(b.row(
            f"{label}: decode speed, whole-file `play` on `null` / `ffmpeg -f null` "
            "(median wall)",
            f"{ratio:.2f}× ({p:.2f} s = {3600 / p:.0f}× real time, CPU "
            f"{b.median([c.cpu for c in practice_runs[label]]):.2f} s; ffmpeg {f:.2f} s, CPU "
            f"{b.median([c.cpu for c in ffmpeg_runs[label]]):.2f} s)",
            f"≥ {SPEED_TARGET}×", ratio >= SPEED_TARGET))
    for label, _, _ in FORMATS:
        peak = max(c.maxrss_kib for c in practice_runs[label]) / 1024
        is_target = label == FORMATS[0][0]
        rows.append(b.row(
            f"{label}: peak RSS, whole 60-minute file on `null` (max of {THROUGHPUT_RUNS} runs)",
            f"{peak:.1f} MiB", f"≤ {RSS_TARGET_MIB:.0f} MiB" if is_target else "",
            peak <= RSS_TARGET_MIB if is_target else None))
    against = "the binary before (BENCH_BEFORE_BIN), same rounds" if BEFORE_BIN else \
        "bench/RESULTS.md before FFmpeg"
    before = dict(BEFORE)
    if BEFORE_BIN:
        before = {r: b.median(first[(BEFORE_FLAC, r)]) for r in RANGES}
        before["rss"] = max(c.maxrss_kib for c in before_full) / 1024
    for r, (start, end) in RANGES.items():
        med = b.median(first[(FLAC, r)])
        rows.append(b.row(
            f"FLAC: first frame, `--from {start} --to {end}` ({r}): median against {against}",
            f"{med:.1f} ms against {before[r]:.1f} ms ({(med / before[r] - 1) * 100:+.1f} %)",
            f"≤ +{SAME_AS_BEFORE * 100:.0f} %", within(med, before[r])))
    for fmt, _, _ in UNCHANGED if BEFORE_BIN else []:
        for r, (start, end) in RANGES.items():
            med = b.median(first[(fmt, r)])
            was = b.median(first[(befores[fmt], r)])
            rows.append(b.row(
                f"{fmt}: first frame, `--from {start} --to {end}` ({r}): median against {against}",
                f"{med:.1f} ms against {was:.1f} ms ({(med / was - 1) * 100:+.1f} %)",
                f"≤ +{SAME_AS_BEFORE * 100:.0f} %", within(med, was)))
    flac_peak = max(c.maxrss_kib for c in flac_full) / 1024
    rows.append(b.row(
        f"FLAC: peak RSS, whole 60-minute file on `null` (max of {len(flac_full)}) against "
        f"{against}",
        f"{flac_peak:.1f} MiB against {before['rss']:.1f} MiB "
        f"({(flac_peak / before['rss'] - 1) * 100:+.1f} %)",
        f"≤ +{SAME_AS_BEFORE * 100:.0f} %", within(flac_peak, before["rss"])))
    flac_wall = b.median([c.wall for c in flac_full])
    rows.append(b.row("FLAC: whole-file `play` on `null`: wall time, median",
                      f"{flac_wall:.2f} s ({3600 / flac_wall:.0f}× real time)"
                      + (f"; binary before {b.median([c.wall for c in before_full]):.2f} s"
                         if BEFORE_BIN else "")))
    for fmt, libs in mapped.items():
        rows.append(b.row(f"FFmpeg libraries mapped while playing the {fmt}",
                          ", ".join(libs) if libs else "none"))

    sizes = ", ".join(f"{fmt} {os.path.getsize(song) / 1e6:.0f} MB" for fmt, song in songs.items())
    b.write_results(
        "decode-formats", "Issues 22, 42: M4A (AAC) and WebM (Opus) through FFmpeg", rows,
        notes=[
            "The 60-minute stereo 44.1 kHz pink-noise FLAC of sections 1 and 2, encoded by "
            "the `ffmpeg` command: M4A with ffmpeg's AAC encoder at 192 kb/s (44.1 kHz), "
            "WebM with libopus at 128 kb/s (resampled to 48 kHz); sizes: "
            f"{sizes}. Warm page cache, `--device null`, songs already in the library.",
            f"First frame as in section 1: {RUNS} rounds after {WARMUP} warm-ups, each round "
            "plays both ranges of every format (the FLAC too); judged on the median.",
            "Decode speed: whole-file `play` on the unpaced `null` PCM (start-up, decode and "
            "hand-over to ALSA) against `ffmpeg -v error -i FILE "
            f"-f null -` of the same file, alternated, {THROUGHPUT_RUNS} rounds after one "
            "warm-up; ratio = ffmpeg's median wall time / practice's (≥ 1 is faster than "
            "ffmpeg).",
            "Both are demuxed by libavformat and decoded by libavcodec (issue 42: the "
            "hand-written MP4 and Matroska demuxers, libfaad2 and libopus are gone), so "
            "FFmpeg is mapped for them; WAV, FLAC and MP3 stay with libsndfile.",
            "Peak RSS from wait4() rusage (ru_maxrss) of those whole-file plays, in MiB.",
            "Before: " + (f"`{BEFORE_BIN}` (BENCH_BEFORE_BIN, built "
                                 f"{b.provenance(BEFORE_BIN)['built']}), played in the same "
                                 "rounds as the FLAC, with its own library" if BEFORE_BIN
                                 else BEFORE_SOURCE) + ". FFmpeg libraries mapped: /proc/PID/maps of a "
            "whole-file `play`, read every 20 ms while it runs.",
            f"Load average (1 min) {load_before:.1f} before the runs and "
            f"{os.getloadavg()[0]:.1f} after, on {os.cpu_count()} CPUs.",
        ])


if __name__ == "__main__":
    main()
