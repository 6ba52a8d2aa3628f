#!/usr/bin/env python3
"""Issue 22: `practice add FOLDER` of 1,000 small songs, and a second `add` of the same folder.

Input (bench/out/add-1000/, made once and reused): 1,000 synthetic songs of 1-6 s in a
musician's folder layout, ARTIST/ALBUM/NN TITLE.EXT, with a cover.jpg and a notes.txt per
album (files that are not audio, as real folders hold).
  * 400 WAV (16-bit, mono or stereo, 22.05-48 kHz), tags in a LIST/INFO chunk;
  * 300 FLAC, re-tagged copies of 12 base files the `ffmpeg` command encodes (a new
    VORBIS_COMMENT block each);
  * 200 MP3, re-tagged copies of 12 base files (a new ID3v2.4 tag each);
  * 100 Ogg Vorbis, each encoded by `ffmpeg` with its own tags.
Tags vary: titles with accents, CJK and punctuation, about one song in six without artist
or album, one in ten with no title tag at all (the file name is the title). Every file's
bytes differ, so every content hash does.

Measured, after reading every file once (a warm page cache):
  1. `practice add FOLDER` into a new library: wall time, songs per second;
  2. `practice add FOLDER` again into the same library, which must change nothing (the
     `song` table is compared row for row before and after).
Each BENCH_ADD_RUNS times (default 5), the median reported; stdout and stderr to files.

With BENCH_BEFORE_BIN set to a binary built before (the same way), its first `add` runs in
the same rounds, alternated: the difference is what measuring lengths costs (issue 42:
`add` decodes the last half second before each FLAC, MP3 and Ogg file's declared end, and
the whole file when that does not reach it).
"""

import array
import math
import os
import random
import shutil
import sqlite3
import struct
import subprocess
import sys
import wave

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

SONGS = 1000
COUNTS = {"wav": 400, "flac": 300, "mp3": 200, "ogg": 100}
RUNS = int(os.environ.get("BENCH_ADD_RUNS", "5"))
TARGET_PER_SECOND = 200.0
BEFORE_BIN = os.path.abspath(os.environ["BENCH_BEFORE_BIN"]) if os.environ.get(
    "BENCH_BEFORE_BIN") else None
FOLDER = os.path.join(b.OUT_DIR, "add-1000")
VERSION = "2"  # bump when the folder's recipe changes

WORDS = ["Étude", "Blue", "Night", "River", "Señora", "Waltz", "Groove", "夜曲", "Kõne",
         "Morning", "Reel", "Jig", "Ballad", "Shuffle", "Sonata", "Ça va", "Lament", "Hora",
         "Rag", "Bossa", "Tango", "Fugue", "Song", "Dance", "Прелюдия"]


def title(rng, i):
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
    extra = rng.choice(["", "", " (live)", " - take 2", ", Op. 10 No. 3", " [demo]", "!"])
    return f"{words}{extra} {i}"


def tags(rng, i):
    """(title or None, artist or None, album or None) for song i."""
    artist = None if i % 6 == 5 else f"{rng.choice(WORDS)} {rng.choice(['Trio', 'Band', 'Quartet', 'Ensemble', ''])}".strip()
    album = None if i % 6 == 4 else f"{rng.choice(WORDS)} {rng.randint(1, 30)}"
    name = None if i % 10 == 9 else title(rng, i)
    return name, artist, album


def tone(rng, rate, channels, seconds):
    """16-bit PCM bytes: a tone with a little noise (a tenth of a second of it, repeated),
    different for every call."""
    frequency = rng.uniform(110, 880)
    block = rate // 10
    step = 2 * math.pi * frequency / rate
    samples = array.array("h", (int(9000 * math.sin(step * n) + rng.randint(-300, 300))
                                for n in range(block) for _ in range(channels)))
    return samples.tobytes() * max(1, int(seconds * 10))


def riff_info(name, artist, album):
    """A LIST/INFO chunk: INAM, IART, IPRD (UTF-8, NUL-terminated, padded to even)."""
    body = b"INFO"
    for key, value in (("INAM", name), ("IART", artist), ("IPRD", album)):
        if value is None:
            continue
        data = value.encode() + b"\0"
        body += key.encode() + struct.pack("<I", len(data)) + data + (b"\0" if len(data) % 2 else b"")
    return b"LIST" + struct.pack("<I", len(body)) + body


def write_wav(path, rng, tagged):
    rate = rng.choice([22050, 44100, 44100, 48000])
    channels = rng.choice([1, 2, 2])
    with wave.open(path, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(tone(rng, rate, channels, rng.uniform(1, 3)))
    chunk = riff_info(*tagged)
    with open(path, "r+b") as f:
        f.seek(0, os.SEEK_END)
        f.write(chunk)
        size = f.tell()
        f.seek(4)
        f.write(struct.pack("<I", size - 8))


def ffmpeg_base(path, rng, codec_args):
    """A base file the ffmpeg command encodes from a synthetic tone, without tags."""
    seconds = rng.uniform(2, 6)
    frequency = rng.uniform(110, 880)
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
         f"sine=frequency={frequency:.1f}:duration={seconds:.2f}:sample_rate=44100",
         "-ac", "2", "-map_metadata", "-1"] + codec_args + [path], check=True)


def vorbis_comment(tagged, vendor=b"practice bench"):
    fields = [f"{k}={v}".encode() for k, v in zip(("TITLE", "ARTIST", "ALBUM"), tagged) if v]
    data = struct.pack("<I", len(vendor)) + vendor + struct.pack("<I", len(fields))
    for field in fields:
        data += struct.pack("<I", len(field)) + field
    return data


def retag_flac(base, path, tagged):
    """The base FLAC with its VORBIS_COMMENT and PADDING blocks replaced by new tags."""
    with open(base, "rb") as f:
        data = f.read()
    assert data[:4] == b"fLaC"
    offset, blocks = 4, []
    while True:
        header = data[offset]
        length = int.from_bytes(data[offset + 1:offset + 4], "big")
        kind = header & 0x7F
        if kind not in (1, 4):
            blocks.append((kind, data[offset + 4:offset + 4 + length]))
        offset += 4 + length
        if header & 0x80:
            break
    blocks.append((4, vorbis_comment(tagged)))
    out = bytearray(b"fLaC")
    for index, (kind, body) in enumerate(blocks):
        last = 0x80 if index == len(blocks) - 1 else 0
        out += bytes([last | kind]) + len(body).to_bytes(3, "big") + body
    out += data[offset:]
    with open(path, "wb") as f:
        f.write(out)


def syncsafe(n):
    return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])


def retag_mp3(base, path, tagged):
    """The base MP3 (written without ID3) behind a new ID3v2.4 tag (UTF-8 text frames)."""
    frames = b""
    for key, value in zip(("TIT2", "TPE1", "TALB"), tagged):
        if value is None:
            continue
        body = b"\x03" + value.encode()
        frames += key.encode() + syncsafe(len(body)) + b"\0\0" + body
    with open(base, "rb") as f:
        audio = f.read()
    with open(path, "wb") as f:
        f.write(b"ID3\x04\x00\x00" + syncsafe(len(frames)) + frames + audio)


def make_folder():
    marker = os.path.join(FOLDER, ".made-" + VERSION)
    if os.path.exists(marker):
        return
    b.ensure_tools("ffmpeg")
    shutil.rmtree(FOLDER, ignore_errors=True)
    os.makedirs(FOLDER)
    b.log(f"bench: generating {SONGS} songs in {FOLDER} (about a minute)")
    rng = random.Random(22)
    bases = os.path.join(FOLDER, ".bases")
    os.makedirs(bases)
    flac_bases, mp3_bases = [], []
    for k in range(12):
        flac_bases.append(os.path.join(bases, f"{k}.flac"))
        ffmpeg_base(flac_bases[-1], rng, ["-c:a", "flac"])
        mp3_bases.append(os.path.join(bases, f"{k}.mp3"))
        ffmpeg_base(mp3_bases[-1], rng, ["-c:a", "libmp3lame", "-b:a", "128k",
                                         "-id3v2_version", "0", "-write_id3v1", "0"])
    kinds = [kind for kind, count in COUNTS.items() for _ in range(count)]
    rng.shuffle(kinds)
    for i, kind in enumerate(kinds):
        tagged = tags(rng, i)
        album_dir = os.path.join(FOLDER, f"Artist {i % 37:02d}", f"Album {i % 101:03d}")
        if not os.path.isdir(album_dir):
            os.makedirs(album_dir)
            with open(os.path.join(album_dir, "cover.jpg"), "wb") as f:
                f.write(b"\xff\xd8\xff\xe0" + bytes(rng.getrandbits(8) for _ in range(2000)))
            with open(os.path.join(album_dir, "notes.txt"), "w") as f:
                f.write("practise the bridge slowly\n")
        stem = (tagged[0] or f"Track {i}").replace("/", "-")
        path = os.path.join(album_dir, f"{i:04d} {stem}.{kind}")
        if kind == "wav":
            write_wav(path, rng, tagged)
        elif kind == "flac":
            retag_flac(flac_bases[i % 12], path, tagged)
        elif kind == "mp3":
            retag_mp3(mp3_bases[i % 12], path, tagged)
        else:
            metadata = []
            for key, value in zip(("title", "artist", "album"), tagged):
                if value:
                    metadata += ["-metadata", f"{key}={value}"]
            ffmpeg_base(path, rng, ["-c:a", "libvorbis", "-q:a", "2"] + metadata)
    with open(marker, "w") as f:
        f.write("made\n")


def audio_files():
    found = []
    for directory, dirs, files in os.walk(FOLDER):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found += [os.path.join(directory, f) for f in files
                  if not f.startswith(".") and f.rsplit(".", 1)[-1] in COUNTS]
    return found


def songs(db):
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT * FROM song ORDER BY id").fetchall()
    finally:
        con.close()


def main():
    binary = b.practice_bin()
    make_folder()
    files = audio_files()
    if len(files) != SONGS:
        sys.exit(f"add-1000: expected {SONGS} songs in {FOLDER}, found {len(files)}")
    for path in files:  # a warm page cache
        with open(path, "rb") as f:
            while f.read(1 << 20):
                pass
    first, second, before_runs = [], [], []
    load_before = os.getloadavg()[0]
    with b.TempDir() as tmp:
        for run in range(RUNS):
            db = os.path.join(tmp, f"library-{run}.sqlite")
            cmd = [binary, "add", "--db", db, FOLDER]
            added = b.child(cmd, "add-1000", capture=True)
            lines = added.stdout.count("\n")
            if lines != SONGS or added.stderr:
                sys.exit(f"add-1000: the first add printed {lines} lines (not {SONGS}) "
                         f"and stderr {added.stderr.strip()[:300]!r}")
            before = songs(db)
            if len(before) != SONGS:
                sys.exit(f"add-1000: the library holds {len(before)} songs, not {SONGS}")
            again = b.child(cmd, "add-1000", capture=True)
            after = songs(db)
            if after != before:
                changed = sum(1 for x, y in zip(before, after) if x != y)
                sys.exit(f"add-1000: the second add changed {changed} rows of {len(before)}")
            if again.stdout.count("\n") != SONGS:
                sys.exit(f"add-1000: the second add printed {again.stdout.count(chr(10))} lines")
            first.append(added.wall)
            second.append(again.wall)
            if BEFORE_BIN:
                old = b.child([BEFORE_BIN, "add", "--db", os.path.join(tmp, f"before-{run}.sqlite"),
                               FOLDER], "add-1000", capture=True)
                before_runs.append(old.wall)
                b.log(f"add-1000: run {run + 1}: binary before {old.wall:.2f} s")
            b.log(f"add-1000: run {run + 1}: {added.wall:.2f} s, again {again.wall:.2f} s")
    first_rate = SONGS / b.median(first)
    second_rate = SONGS / b.median(second)
    rows = [
        b.row(f"`practice add FOLDER`, {SONGS:,} songs, new library: songs per second "
              f"(median wall time)", f"{first_rate:.0f} songs/s ({b.median(first):.2f} s)",
              f"≥ {TARGET_PER_SECOND:.0f} songs/s", first_rate >= TARGET_PER_SECOND),
        b.row("the same `add` again (changes nothing): songs per second",
              f"{second_rate:.0f} songs/s ({b.median(second):.2f} s)",
              "at least as fast as the first", second_rate >= first_rate),
    ]
    if BEFORE_BIN:
        was = b.median(before_runs)
        rows.append(b.row(
            "the first `add` by the binary before, same rounds: songs per second; the cost of "
            "measuring lengths",
            f"{SONGS / was:.0f} songs/s ({was:.2f} s); {b.median(first) - was:+.2f} s "
            f"({(b.median(first) / was - 1) * 100:+.0f} %, "
            f"{(b.median(first) - was) / 600 * 1000:+.2f} ms per FLAC/MP3/Ogg file)"))
    b.write_results(
        "add-1000", "Issue 22: adding a folder of 1,000 songs", rows,
        notes=[f"{SONGS:,} synthetic songs of 1-6 s (" + ", ".join(
            f"{count} {kind.upper()}" for kind, count in COUNTS.items())
            + ") in ARTIST/ALBUM folders with a cover.jpg and notes.txt each, varied tags "
            "(accents, CJK, missing artist, album or title); every file read once before "
            "(warm page cache).",
            f"{RUNS} runs, each into a new library and then again into the same one; "
            "the second add's `song` table is checked equal, row for row, to the first's.",
            "Wall time of the whole process (wait4), stdout and stderr to files.",
            f"Load average (1 min) {load_before:.1f} before the runs and "
            f"{os.getloadavg()[0]:.1f} after, on {os.cpu_count()} CPUs"
            + (": a busy machine, so the figures are lower than it can do."
               if max(load_before, os.getloadavg()[0]) > 1 else ".")])


if __name__ == "__main__":
    main()
