#!/usr/bin/env python3
"""Files as musicians bring them, and bad inputs: practice against ffmpeg/ffprobe.

Sources (made once in bench/out/f17-sweep/, copied to bench/out/f18-sweep/ where everything
is made now): a MIDI file (written here, no library) rendered by fluidsynth with the GM
soundfont `make deps` installs, and a `sox` synth chord with a tremolo, each 30 s, stereo
44.1 kHz 16-bit; and (session 18) the first 30 s of three real records, excerpts of the
soundtracks in bench/out/real-set. Each is converted the ways users do (plain
`ffmpeg -i x.wav x.EXT` first, then lame/oggenc/opusenc, sox, bit depths, channel counts,
rates, tags, cover art, video files, two audio streams, lying extensions, concatenations;
lossy-to-lossy chains, chapters, start offsets, gapless tags, Opus output gain, chained
Ogg, channel masks; session 19: pipes' WAV/FLAC/MP3, float WAV, fragmented and DASH MP4,
M4B, WavPack, TTA, 192 kHz, chains of three and of mixed channels, UTF-8 and escape
characters in names, a symlink, a read-only folder). A chained Ogg's reference is ffmpeg's
decode of the files joined, one after another (`CHAINED`); `ffmpeg -i` of the chain is
measured beside it.

1. Sweep. For every file: `practice add` + `practice show` (frames, rate, channels) against
   `ffprobe` (the audio stream ffmpeg picks: its rate, channels, duration), and `practice
   render FILE --output OUT.wav` (whole song, speed 100 %) against `ffmpeg -i FILE -f wav`
   (the same stream ffmpeg picks; mixed to practice's channel count when they differ). Both
   are read back as float by ffmpeg; reported: the frame counts and their difference against
   the codec's packet (the priming/padding rule: a lossy codec may differ by one packet at
   the end, PCM and FLAC by none), the lag that best aligns the two (FFT cross-correlation of
   the channel means, within +-8192 frames), the correlation at that lag, and the RMS of the
   difference against the reference's RMS (dB; below -40 dB is the same audio decoded twice,
   random-state codecs like AAC's noise substitution aside).
2. Bad inputs. Each of `add`, `render`, `play --device null` on each: exit code, the lines on
   stderr, wall time (each run limited to 60 s), a trap (signal exit), and whether the
   library's `sqlite3 .dump` changed.

Writes bench/out/f18-sweep/NAME.json and NAME-table.md (the tables of bench/FILES.md; NAME
is `sweep` unless `--name NAME`). $PRACTICE_BIN is the binary under test (default
.build/release/practice). Arguments: `sweep`, `bad` or both (default); `--only SUBSTRING`
limits the cases; with it, the rows run replace theirs in the last run of NAME (the
others are kept as they were: say so where the tables are used).
"""

import json
import os
import re
import shlex
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

import numpy as np  # noqa: E402

WORK = os.path.join(b.OUT_DIR, "f18-sweep")
# Session 17's sources (the fluidsynth render, the sox chord, the cover) are taken as they
# are, so both sessions' tables are of the same audio.
EARLIER = os.path.join(b.OUT_DIR, "f17-sweep")
# Real records: 60 s excerpts of Debian's game soundtracks (bench/beats/real-set.py cuts
# them from the Ogg files hedgewars-data installs); the first 30 s of each is used here.
REAL_SET = os.path.join(b.OUT_DIR, "real-set")
REAL = ("Art", "City", "Freeway")
SOUNDFONT = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
SECONDS = 30
LIMIT = 60  # seconds a run may take before it counts as a hang

# Frames in one packet of each codec (ffprobe's codec_name): how far a lossy decode's
# length may be from ffmpeg's (priming and end padding are the container's to declare).
PACKET = {"aac": 1024, "mp3": 1152, "mp2": 1152, "vorbis": 2048, "opus": 960, "ac3": 1536,
          "eac3": 1536, "wmav2": 2048, "wmav1": 2048, "alac": 4096}


def run(cmd, cwd=None, timeout=LIMIT, env=None, stdin=subprocess.DEVNULL):
    """(exit code or 'timeout', stdout, stderr, seconds); a signal is -N."""
    started = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, timeout=timeout, env=env, stdin=stdin,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - started
    except subprocess.TimeoutExpired as e:
        return "timeout", e.stdout or b"", e.stderr or b"", time.monotonic() - started


def sh(command):
    """Runs one shell command line in WORK (the commands in the table are these lines)."""
    code, _, err, _ = run(["bash", "-c", command], cwd=WORK, timeout=600)
    if code != 0:
        sys.exit(f"sweep: `{command}` failed: {err.decode(errors='replace')[-400:]}")


# --- sources ----------------------------------------------------------------------------

def write_midi(path):
    """A 30 s GM piece: piano chords, a bass line and drums at 112 BPM (format 0)."""
    def vlq(n):
        out = [n & 0x7F]
        n >>= 7
        while n:
            out.insert(0, (n & 0x7F) | 0x80)
            n >>= 7
        return bytes(out)

    ppq, bpm = 480, 112
    events = []  # (tick, bytes)
    events.append((0, b"\xff\x51\x03" + (60_000_000 // bpm).to_bytes(3, "big")))
    events.append((0, bytes([0xC0, 0])))   # piano
    events.append((0, bytes([0xC1, 33])))  # finger bass
    chords = [(60, 64, 67), (57, 60, 64), (53, 57, 60), (55, 59, 62)]
    beats = int(SECONDS * bpm / 60)
    for beat in range(beats):
        t = beat * ppq
        chord = chords[(beat // 4) % 4]
        if beat % 2 == 0:
            for n in chord:
                events.append((t, bytes([0x90, n, 80 + (beat % 4) * 8])))
                events.append((t + ppq * 2 - 20, bytes([0x80, n, 0])))
        bass = chord[0] - 24 + (7 if beat % 4 == 2 else 0)
        events.append((t, bytes([0x91, bass, 100])))
        events.append((t + ppq - 30, bytes([0x81, bass, 0])))
        drum = 36 if beat % 2 == 0 else 38
        events.append((t, bytes([0x99, drum, 110])))
        events.append((t + 60, bytes([0x89, drum, 0])))
        for half in (0, ppq // 2):
            events.append((t + half, bytes([0x99, 42, 70])))
            events.append((t + half + 30, bytes([0x89, 42, 0])))
    events.sort(key=lambda e: e[0])
    track, now = b"", 0
    for tick, data in events:
        track += vlq(tick - now) + data
        now = tick
    track += vlq(ppq * 2) + b"\xff\x2f\x00"
    with open(path, "wb") as f:
        f.write(b"MThd" + struct.pack(">IHHH", 6, 0, 1, ppq))
        f.write(b"MTrk" + struct.pack(">I", len(track)) + track)


def make_sources():
    os.makedirs(WORK, exist_ok=True)
    b.ensure_tools("sox", "ffmpeg", "fluidsynth", "lame", "oggenc", "opusenc", "sqlite3",
                   "wavpack")
    for name in ("midi.wav", "chord.wav", "cover.png", "piece.mid"):
        if not os.path.exists(os.path.join(WORK, name)) and os.path.exists(
                os.path.join(EARLIER, name)):
            shutil.copy(os.path.join(EARLIER, name), os.path.join(WORK, name))
    for name in REAL:
        if not os.path.exists(os.path.join(WORK, f"real-{name.lower()}.wav")):
            sh(f"sox {os.path.join(REAL_SET, name + '.wav')} real-{name.lower()}.wav"
               f" trim 0 {SECONDS}")
    midi = os.path.join(WORK, "midi.wav")
    if not os.path.exists(midi):
        write_midi(os.path.join(WORK, "piece.mid"))
        sh(f"fluidsynth -ni -F raw.wav -r 44100 {SOUNDFONT} piece.mid >/dev/null"
           f" && sox raw.wav -b 16 midi.wav trim 0 {SECONDS} && rm raw.wav")
    if not os.path.exists(os.path.join(WORK, "chord.wav")):
        sh(f"sox -n -r 44100 -c 2 -b 16 chord.wav synth {SECONDS} pl G2 pl B2 pl D3 pl G3"
           " pl D4 pl G4 delay 0 .05 .1 .15 .2 .25 remix - - tremolo 3 60 fade 0.02"
           f" {SECONDS} 0.5 norm -3")
    if not os.path.exists(os.path.join(WORK, "cover.png")):
        sh("ffmpeg -v error -y -f lavfi -i testsrc=s=300x300:d=1 -frames:v 1 cover.png")


# --- the converted files -----------------------------------------------------------------

F = "ffmpeg -v error -nostdin -y"


def id3_padded(src, dst, padding):
    """SRC with an ID3v2.3 tag of PADDING zero bytes (one TIT2 frame) put before it."""
    frame = b"TIT2" + struct.pack(">I", 8) + b"\x00\x00" + b"\x00padded"
    body = frame + bytes(padding)
    size = len(body)
    syncsafe = bytes([(size >> 21) & 0x7F, (size >> 14) & 0x7F, (size >> 7) & 0x7F, size & 0x7F])
    with open(os.path.join(WORK, src), "rb") as f:
        audio = f.read()
    with open(os.path.join(WORK, dst), "wb") as f:
        f.write(b"ID3\x03\x00\x00" + syncsafe + body + audio)


def ogg_crc(data):
    """Ogg's page checksum: CRC-32, polynomial 0x04C11DB7, not reflected, initial 0."""
    crc = 0
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else crc << 1
            crc &= 0xFFFFFFFF
    return crc


def opus_head_patched(src, dst, output_gain_db):
    """SRC (Ogg Opus) with its OpusHead's output gain set to OUTPUT_GAIN_DB (Q7.8), the first
    page's checksum made again: the gain a decoder must apply (RFC 7845 5.1)."""
    with open(os.path.join(WORK, src), "rb") as f:
        data = bytearray(f.read())
    at = data.find(b"OpusHead")
    data[at + 16: at + 18] = struct.pack("<h", int(round(output_gain_db * 256)))
    segments = data[26]
    end = 27 + segments + sum(data[27: 27 + segments])
    data[22:26] = b"\0\0\0\0"
    data[22:26] = struct.pack("<I", ogg_crc(bytes(data[:end])))
    with open(os.path.join(WORK, dst), "wb") as f:
        f.write(bytes(data))


def cases():
    """(file, [shell commands run in WORK that make it]) in the order of the table."""
    c = []
    for s in ("midi", "chord"):
        for ext in ("m4a", "mp3", "ogg", "opus", "flac", "aac", "wma", "webm", "mka", "aiff",
                    "caf", "ac3"):
            c.append((f"{s}.{ext}", [f"{F} -i {s}.wav {s}.{ext}"]))
        c.append((f"{s}-from-ogg.m4a", [f"{F} -i {s}.ogg {s}-from-ogg.m4a"]))
        c.append((f"{s}-from-mp3.opus", [f"{F} -i {s}.mp3 {s}-from-mp3.opus"]))
    m = "midi"
    c += [
        (f"{m}-from-m4a.mp3", [f"{F} -i {m}.m4a {m}-from-m4a.mp3"]),
        (f"{m}-from-opus.m4a", [f"{F} -i {m}.opus {m}-from-opus.m4a"]),
        (f"{m}-lame.mp3", [f"lame --quiet {m}.wav {m}-lame.mp3"]),
        (f"{m}-lame-vbr.mp3", [f"lame --quiet -V 2 {m}.wav {m}-lame-vbr.mp3"]),
        (f"{m}-oggenc.ogg", [f"oggenc -Q {m}.wav -o {m}-oggenc.ogg"]),
        (f"{m}-opusenc.opus", [f"opusenc --quiet {m}.wav {m}-opusenc.opus"]),
        (f"{m}-22k.wav", [f"sox {m}.wav -r 22050 {m}-22k.wav"]),
        (f"{m}-u8.wav", [f"{F} -i {m}.wav -c:a pcm_u8 {m}-u8.wav"]),
        (f"{m}-s24.wav", [f"{F} -i {m}.wav -c:a pcm_s24le {m}-s24.wav"]),
        (f"{m}-s32.wav", [f"{F} -i {m}.wav -c:a pcm_s32le {m}-s32.wav"]),
        (f"{m}-f32.wav", [f"{F} -i {m}.wav -c:a pcm_f32le {m}-f32.wav"]),
        (f"{m}-f64.wav", [f"{F} -i {m}.wav -c:a pcm_f64le {m}-f64.wav"]),
        (f"{m}-s24.flac", [f"sox {m}.wav -b 24 {m}-s24.flac"]),
        (f"{m}-mono.wav", [f"{F} -i {m}.wav -ac 1 {m}-mono.wav"]),
        (f"{m}-mono.mp3", [f"{F} -i {m}.wav -ac 1 {m}-mono.mp3"]),
        (f"{m}-mono.m4a", [f"{F} -i {m}.wav -ac 1 {m}-mono.m4a"]),
        (f"{m}-8k.wav", [f"{F} -i {m}.wav -ar 8000 {m}-8k.wav"]),
        (f"{m}-8k.mp3", [f"{F} -i {m}.wav -ar 8000 {m}-8k.mp3"]),
        (f"{m}-96k.wav", [f"{F} -i {m}.wav -ar 96000 {m}-96k.wav"]),
        (f"{m}-96k.flac", [f"{F} -i {m}.wav -ar 96000 {m}-96k.flac"]),
        (f"{m}-96k.m4a", [f"{F} -i {m}.wav -ar 96000 {m}-96k.m4a"]),
    ]
    six = f"{F} -i {m}.wav -i chord.wav -filter_complex \"[0:a][1:a]amerge=inputs=2,pan=5.1|c0=c0|c1=c1|c2=c2|c3=c3|c4=c0|c5=c3[a]\" -map \"[a]\""
    c += [
        (f"{m}-6ch.wav", [f"{six} {m}-6ch.wav"]),
        (f"{m}-6ch.flac", [f"{six} {m}-6ch.flac"]),
        (f"{m}-6ch.m4a", [f"{six} {m}-6ch.m4a"]),
        (f"{m}-6ch.ac3", [f"{six} {m}-6ch.ac3"]),
        (f"{m}-6ch.ogg", [f"{six} {m}-6ch.ogg"]),
        (f"{m}-6ch.opus", [f"{six} {m}-6ch.opus"]),
        (f"{m}-id3.wav", [f"{F} -i {m}.wav -metadata title=Tagged -metadata artist=Band"
                          f" -write_id3v2 1 {m}-id3.wav"]),
        (f"{m}-list.wav", [f"{F} -i {m}.wav -metadata title=Tagged -metadata artist=Band"
                           f" {m}-list.wav"]),
        (f"{m}-cover.mp3", [f"{F} -i {m}.wav -i cover.png -map 0:a -map 1:v -c:v png"
                            f" -id3v2_version 3 -metadata:s:v comment=\"Cover (front)\""
                            f" {m}-cover.mp3"]),
        (f"{m}-cover-first.mp3", [f"{F} -i cover.png -i {m}.wav -map 0:v -map 1:a -c:v mjpeg"
                                  f" -id3v2_version 3 {m}-cover-first.mp3"]),
        (f"{m}-noxing.mp3", [f"{F} -i {m}.wav -write_xing 0 {m}-noxing.mp3"]),
        (f"{m}-vbr.mp3", [f"{F} -i {m}.wav -q:a 2 {m}-vbr.mp3"]),
        (f"{m}-vbr-noxing.mp3", [f"{F} -i {m}.wav -q:a 2 -write_xing 0 {m}-vbr-noxing.mp3"]),
        (f"{m}-cover.m4a", [f"{F} -i {m}.wav -i cover.png -map 0 -map 1 -c:a aac -c:v png"
                            f" -disposition:v attached_pic {m}-cover.m4a"]),
        (f"{m}-cover-first.m4a", [f"{F} -i cover.png -i {m}.wav -map 0 -map 1 -c:a aac"
                                  f" -c:v png -disposition:v:0 attached_pic"
                                  f" {m}-cover-first.m4a"]),
        (f"{m}-cover.flac", [f"{F} -i {m}.wav -i cover.png -map 0 -map 1 -c:v png"
                             f" -disposition:v attached_pic {m}-cover.flac"]),
        (f"{m}-video.mp4", [f"{F} -f lavfi -i testsrc=s=160x120:r=25:d={SECONDS + 2} -i {m}.wav"
                            f" -c:v libx264 -c:a aac -shortest {m}-video.mp4"]),
        (f"{m}-video.mkv", [f"{F} -f lavfi -i testsrc=s=160x120:r=25:d={SECONDS + 2} -i {m}.wav"
                            f" -c:v libx264 -c:a libvorbis -shortest {m}-video.mkv"]),
        (f"{m}-video-long.mkv", [f"{F} -f lavfi -i testsrc=s=160x120:r=25:d={SECONDS + 10}"
                                 f" -i {m}.wav -c:v libx264 -c:a aac {m}-video-long.mkv"]),
        (f"{m}-video-late.mp4", [f"{F} -f lavfi -i testsrc=s=160x120:r=25:d={SECONDS + 2}"
                                 f" -itsoffset 1.5 -i {m}.wav -c:v libx264 -c:a aac"
                                 f" {m}-video-late.mp4"]),
        (f"{m}-two-audio.mkv", [f"{F} -i chord.wav -i {m}.wav -map 0:a -map 1:a -c:a aac"
                                f" {m}-two-audio.mkv"]),
        (f"{m}-two-audio-mono-first.m4a", [f"{F} -i chord.wav -i {m}.wav -map 0:a -map 1:a"
                                           f" -c:a aac -ac:0 1 {m}-two-audio-mono-first.m4a"]),
        (f"{m}-two-audio-default2.mkv", [f"{F} -i chord.wav -i {m}.wav -map 0:a -map 1:a"
                                         f" -c:a libopus -disposition:a:0 0 -disposition:a:1"
                                         f" default {m}-two-audio-default2.mkv"]),
        (f"{m}-mp3-named.wav", [f"cp {m}.mp3 {m}-mp3-named.wav"]),
        (f"{m}-m4a-named.mp3", [f"cp {m}.m4a {m}-m4a-named.mp3"]),
        (f"{m}-ogg-named.flac", [f"cp {m}.ogg {m}-ogg-named.flac"]),
        (f"{m}-wav-named.m4a", [f"cp {m}.wav {m}-wav-named.m4a"]),
        (f"{m}-silence.m4a", [f"{F} -i {m}.wav -af adelay=2000:all=1 {m}-silence.m4a"]),
        (f"{m}-silence.mp3", [f"{F} -i {m}.wav -af adelay=2000:all=1 {m}-silence.mp3"]),
        (f"{m}-cat.mp3", [f"cat {m}.mp3 chord.mp3 > {m}-cat.mp3"]),
        (f"{m}-cat-lame.mp3", [f"lame --quiet chord.wav chord-lame.mp3",
                               f"cat {m}-lame.mp3 chord-lame.mp3 > {m}-cat-lame.mp3"]),
        (f"{m}-cat.aac", [f"cat {m}.aac chord.aac > {m}-cat.aac"]),
        (f"{m}-id3pad.mp3", [f"# python: ID3v2.3 tag with 100 kB of padding + {m}-noxing.mp3"]),
        (f"{m}-id3twice.mp3", [f"# python: ID3v2.3 tag (1 kB padding) + {m}-cover.mp3 (its own"
                               " ID3 tag)"]),
        (f"{m}-id3.flac", [f"# python: ID3v2.3 tag (4 kB padding) + {m}.flac"]),
        # More that people bring: downloads (Opus in MP4, Vorbis in WebM), broadcast and
        # studio WAV variants (RF64, Wave64), DVD/streaming codecs, old MPEG layer 2.
        (f"x-{m}-alac24.m4a", [f"{F} -i {m}-s24.wav -c:a alac x-{m}-alac24.m4a"]),
        (f"x-{m}-mono8k.m4a", [f"{F} -i {m}.wav -ac 1 -ar 8000 x-{m}-mono8k.m4a"]),
        (f"x-{m}-id3v1.mp3", [f"{F} -i {m}.wav -write_id3v1 1 -metadata title=T"
                              f" x-{m}-id3v1.mp3"]),
        (f"x-{m}-6ch-opusenc.opus", [f"opusenc --quiet {m}-6ch.wav x-{m}-6ch-opusenc.opus"]),
        (f"x-{m}-from-mp3.flac", [f"{F} -i {m}.mp3 x-{m}-from-mp3.flac"]),
        (f"x-{m}.mp2", [f"{F} -i {m}.wav x-{m}.mp2"]),
        (f"x-{m}.eac3", [f"{F} -i {m}.wav -c:a eac3 x-{m}.eac3"]),
        (f"x-{m}-opus.mp4", [f"{F} -i {m}.wav -c:a libopus x-{m}-opus.mp4"]),
        (f"x-{m}-vorbis.webm", [f"{F} -i {m}.wav -c:a libvorbis x-{m}-vorbis.webm"]),
        (f"x-{m}-rf64.wav", [f"{F} -i {m}.wav -rf64 always x-{m}-rf64.wav"]),
        (f"x-{m}.w64", [f"{F} -i {m}.wav x-{m}.w64"]),
        (f"x-{m}-sowt.aifc", [f"{F} -i {m}.wav -c:a pcm_s16le -f aiff x-{m}-sowt.aifc"]),
        (f"x-{m}-6ch.mkv", [f"{F} -i {m}-6ch.wav -c:a libopus x-{m}-6ch.mkv"]),
        (f"x-{m}-u8-mono-8k.wav", [f"{F} -i {m}.wav -ac 1 -ar 8000 -c:a pcm_u8"
                                   f" x-{m}-u8-mono-8k.wav"]),
    ]
    # Session 18: real records, converted as people do and through lossy chains, and the
    # container features the next review brings (chapters, a start offset, gapless tags,
    # Opus's output gain, chained Ogg, channel masks, AAC in CAF, Matroska's default flag).
    for r in (f"real-{name.lower()}" for name in REAL):
        for ext in ("m4a", "mp3", "opus", "ogg"):
            c.append((f"{r}.{ext}", [f"{F} -i {r}.wav {r}.{ext}"]))
    r = f"real-{REAL[0].lower()}"
    c += [
        (f"{r}-mp3-to.m4a", [f"{F} -i {r}.mp3 {r}-mp3-to.m4a"]),
        (f"{r}-m4a-to.opus", [f"{F} -i {r}.m4a {r}-m4a-to.opus"]),
        (f"{r}-opus-to.mp3", [f"{F} -i {r}.opus {r}-opus-to.mp3"]),
        (f"{r}-ogg-to.m4a-to.mp3", [f"{F} -i {r}.ogg {r}-ogg-to.m4a",
                                    f"{F} -i {r}-ogg-to.m4a {r}-ogg-to.m4a-to.mp3"]),
        (f"{r}-48k.m4a", [f"{F} -i {r}.wav -ar 48000 {r}-48k.m4a"]),
        (f"{r}-48k.mp3", [f"{F} -i {r}.wav -ar 48000 {r}-48k.mp3"]),
        (f"{r}-mono.m4a", [f"{F} -i {r}.wav -ac 1 {r}-mono.m4a"]),
        (f"{r}-mono.ogg", [f"{F} -i {r}.wav -ac 1 {r}-mono.ogg"]),
        (f"{r}-game.ogg", [f"cp /usr/share/games/hedgewars/Data/Music/{REAL[0]}.ogg"
                           f" {r}-game.ogg"]),
    ]
    chapters = (f"printf ';FFMETADATA1\\n[CHAPTER]\\nTIMEBASE=1/1000\\nSTART=0\\nEND=10000"
                f"\\ntitle=Verse\\n[CHAPTER]\\nTIMEBASE=1/1000\\nSTART=10000\\nEND=30000"
                f"\\ntitle=Chorus\\n' > chapters.txt")
    c += [
        (f"y-{m}-chapters.m4a", [chapters, f"{F} -i {m}.wav -i chapters.txt -map 0 -map_metadata 1"
                                 f" -map_chapters 1 y-{m}-chapters.m4a"]),
        (f"y-{m}-chapters.mka", [chapters, f"{F} -i {m}.wav -i chapters.txt -map 0"
                                 f" -map_chapters 1 y-{m}-chapters.mka"]),
        (f"y-{m}-chapters.mp3", [chapters, f"{F} -i {m}.wav -i chapters.txt -map 0"
                                 f" -map_chapters 1 y-{m}-chapters.mp3"]),
        (f"y-{m}-offset.m4a", [f"{F} -i {m}.wav -output_ts_offset 1 y-{m}-offset.m4a"]),
        (f"y-{m}-offset.mka", [f"{F} -i {m}.wav -output_ts_offset 1 y-{m}-offset.mka"]),
        (f"y-{m}-offset.ogg", [f"{F} -i {m}.wav -output_ts_offset 1 y-{m}-offset.ogg"]),
        (f"y-{m}-offset.opus", [f"{F} -i {m}.wav -output_ts_offset 1 y-{m}-offset.opus"]),
        (f"y-{m}-offset.mp4", [f"{F} -f lavfi -i testsrc=s=160x120:r=25:d={SECONDS + 2} -i {m}.wav"
                               f" -c:v libx264 -c:a aac -shortest -output_ts_offset 1"
                               f" y-{m}-offset.mp4"]),
        (f"y-{m}-alac.m4a", [f"{F} -i {m}.wav -c:a alac y-{m}-alac.m4a"]),
        (f"y-{m}-lame-notag.mp3", [f"lame --quiet -t {m}.wav y-{m}-lame-notag.mp3"]),
        (f"y-{m}-lame-vbr-notag.mp3", [f"lame --quiet -t -V 2 {m}.wav"
                                       f" y-{m}-lame-vbr-notag.mp3"]),
        (f"y-{m}-gain.opus", [f"# python: {m}-opusenc.opus with OpusHead output gain -6 dB"]),
        (f"y-{m}-sox.flac", [f"sox {m}.wav y-{m}-sox.flac"]),
        (f"y-{m}-quad.wav", [f"{F} -i {m}-6ch.wav -af \"pan=quad|FL=FL|FR=FR|BL=BL|BR=BR\""
                             f" y-{m}-quad.wav"]),
        (f"y-{m}-s24-ext.wav", [f"sox {m}.wav -b 24 -t wav y-{m}-s24-ext.wav"]),
        # (AAC in CAF: FFmpeg 5.1's CAF muxer refuses AAC, and no tool here writes it.)
        (f"y-{m}-alac.caf", [f"{F} -i {m}.wav -c:a alac y-{m}-alac.caf"]),
        (f"y-{m}-two-default2.mka", [f"{F} -i chord.wav -i {m}.wav -map 0:a -map 1:a"
                                     f" -c:a libvorbis -disposition:a:0 0"
                                     f" -disposition:a:1 default y-{m}-two-default2.mka"]),
        (f"y-{m}-chained.ogg", [f"cat {m}.ogg chord.ogg > y-{m}-chained.ogg"]),
        (f"y-{m}-chained.opus", [f"cat {m}.opus chord.opus > y-{m}-chained.opus"]),
    ]
    # Session 19: what pipes, downloaders, lossless tools and file managers make: WAV and
    # FLAC and MP3 written to a pipe (no length in the header), sox's float WAV (extensible),
    # fragmented and DASH MP4 (yt-dlp), faststart, audiobooks with chapters, WebM as DASH
    # serves it, WavPack and TTA, 192 kHz, chains of different encodes, and names and
    # places a file manager makes (UTF-8, an escape character, a symlink, a read-only folder).
    c += [
        (f"z-{m}-pipe.wav", [f"{F} -i {m}.wav -f wav - > z-{m}-pipe.wav"]),
        (f"z-{m}-sox-pipe.wav", [f"sox {m}.wav -t wav - > z-{m}-sox-pipe.wav"]),
        (f"z-{m}-pipe.flac", [f"{F} -i {m}.wav -f flac - > z-{m}-pipe.flac"]),
        (f"z-{m}-pipe.mp3", [f"{F} -i {m}.wav -f mp3 - > z-{m}-pipe.mp3"]),
        (f"z-{m}-sox-f32.wav", [f"sox {m}.wav -e floating-point -b 32 z-{m}-sox-f32.wav"]),
        (f"z-{m}-frag.m4a", [f"{F} -i {m}.wav -movflags frag_keyframe+empty_moov"
                             f" z-{m}-frag.m4a"]),
        (f"z-{m}-dash.m4a", [f"{F} -i {m}.wav -f mp4 -movflags +dash z-{m}-dash.m4a"]),
        (f"z-{m}-faststart.m4a", [f"{F} -i {m}.wav -movflags +faststart z-{m}-faststart.m4a"]),
        (f"z-{m}-chapters.m4b", [chapters, f"{F} -i {m}.wav -i chapters.txt -map 0"
                                 f" -map_chapters 1 z-{m}-chapters.m4b"]),
        (f"z-{m}-dash.webm", [f"{F} -i {m}.wav -c:a libopus -b:a 128k -f webm -dash 1"
                              f" z-{m}-dash.webm"]),
        (f"z-{m}.wv", [f"wavpack -q -y {m}.wav -o z-{m}.wv"]),
        (f"z-{m}-ffmpeg.wv", [f"{F} -i {m}.wav z-{m}-ffmpeg.wv"]),
        (f"z-{m}.tta", [f"{F} -i {m}.wav z-{m}.tta"]),
        (f"z-{m}-192k.wav", [f"{F} -i {m}.wav -ar 192000 z-{m}-192k.wav"]),
        (f"z-{m}-192k.flac", [f"{F} -i {m}.wav -ar 192000 -c:a flac z-{m}-192k.flac"]),
        (f"z-{m}-chained-mixed.ogg", [f"{F} -i chord.wav -ac 1 -q:a 8 chord-mono.ogg",
                                      f"cat {m}-oggenc.ogg chord-mono.ogg"
                                      f" > z-{m}-chained-mixed.ogg"]),
        (f"z-{m}-chained3.opus", [f"cat {m}.opus chord.opus {m}-opusenc.opus"
                                  f" > z-{m}-chained3.opus"]),
        (f"z-caf\u00e9 \u00f1 \u65e5\u672c.mp3", [f"cp {m}.mp3 'z-caf\u00e9 \u00f1 \u65e5\u672c.mp3'"]),
        (f"z-esc\x1b[31mred.m4a", [f"cp {m}.m4a $'z-esc\\x1b[31mred.m4a'"]),
        (f"z-link.flac", [f"ln -sf {m}.flac z-link.flac"]),
        (f"z-readonly/{m}.ogg", [f"mkdir -p z-readonly && cp {m}.ogg z-readonly/ && chmod 555"
                                 f" z-readonly"]),
    ]
    return c


# Chained Ogg: the files joined, in order. The reference is ffmpeg's decode of each of them,
# one after another (each link decoded as the file it was, as the codecs' own players play
# a chain: oggdec and opusdec give the same frames), since `ffmpeg -i` decodes across a join
# with the link before's decoder state (128 frames more between Vorbis songs, 100 ms of a
# mistuned Opus decoder) and ffprobe gives the last link's length; ffmpeg's straight decode
# of the chain is measured beside it.
CHAINED = {
    "y-midi-chained.ogg": ["midi.ogg", "chord.ogg"],
    "y-midi-chained.opus": ["midi.opus", "chord.opus"],
    "z-midi-chained-mixed.ogg": ["midi-oggenc.ogg", "chord-mono.ogg"],
    "z-midi-chained3.opus": ["midi.opus", "chord.opus", "midi-opusenc.opus"],
}


def reference_links(name, channels):
    """A chained Ogg's links (the files joined) decoded by ffmpeg one after another. A mono
    link in a stereo chain is heard on both sides at its level, as practice plays a mono
    file (`ffmpeg -ac 2` would mix it to both sides 3 dB down); a stereo link in a mono
    chain is the mean of its sides."""
    parts = []
    for part in CHAINED[name]:
        path = os.path.join(WORK, part)
        own = (probe(path) or {}).get("channels", channels)
        decoded = pcm(path, min(own, 2))
        if decoded is None:
            return None
        if decoded.shape[1] < channels:
            decoded = np.repeat(decoded, channels, axis=1)
        elif decoded.shape[1] > channels:
            decoded = decoded.mean(axis=1, keepdims=True)
        parts.append(decoded)
    return np.concatenate(parts)


def make(name, commands):
    if os.path.exists(os.path.join(WORK, name)):
        return
    if name.endswith("-id3pad.mp3"):
        make("midi-noxing.mp3", dict(cases())["midi-noxing.mp3"])
        id3_padded("midi-noxing.mp3", name, 100_000)
        return
    if name.endswith("-id3twice.mp3"):
        make("midi-cover.mp3", dict(cases())["midi-cover.mp3"])
        id3_padded("midi-cover.mp3", name, 1000)
        return
    if name.endswith("-id3.flac"):
        id3_padded("midi.flac", name, 4000)
        return
    if name.endswith("-gain.opus"):
        make("midi-opusenc.opus", dict(cases())["midi-opusenc.opus"])
        opus_head_patched("midi-opusenc.opus", name, -6.0)
        return
    for command in commands:
        sh(command)


# --- measuring --------------------------------------------------------------------------

def probe(path):
    """ffprobe's view: the audio stream plain `ffmpeg -i` picks (the one marked default,
    then the one with the most channels, the first of a tie), its codec, rate, channels
    and duration."""
    code, out, _, _ = run(["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of",
                           "json", path])
    if code != 0:
        return None
    data = json.loads(out)
    audio = [s for s in data.get("streams", []) if s.get("codec_type") == "audio"]
    if not audio:
        return None
    best = max(audio, key=lambda s: (s.get("disposition", {}).get("default", 0),
                                     int(s.get("channels", 0))))  # first of a tie
    duration = best.get("duration") or data.get("format", {}).get("duration")
    return {"codec": best.get("codec_name"), "rate": int(best.get("sample_rate", 0)),
            "channels": int(best.get("channels", 0)), "index": best["index"],
            "duration": float(duration) if duration else None,
            "audio_streams": len(audio)}


def pcm(path, channels=None, extra=()):
    """The file decoded by ffmpeg to float32, shape (frames, channels)."""
    cmd = ["ffmpeg", "-v", "error", "-nostdin", "-i", path, *extra, "-vn"]
    if channels:
        cmd += ["-ac", str(channels)]
    cmd += ["-f", "f32le", "-"]
    code, out, err, _ = run(cmd, timeout=300)
    if code != 0:
        return None
    ch = channels or 1
    data = np.frombuffer(out, dtype="<f4")
    return data[: len(data) // ch * ch].reshape(-1, ch)


def compare(ours, ref, max_lag=8192):
    """(lag, correlation, rms_diff_db): `ours` is ahead of `ref` by lag frames."""
    a = ours.mean(axis=1).astype(np.float64)
    r = ref.mean(axis=1).astype(np.float64)
    n = min(len(a), len(r))
    if n < 1000:
        return None, None, None
    size = 1 << (2 * n - 1).bit_length()
    xc = np.fft.irfft(np.fft.rfft(a[:n], size) * np.conj(np.fft.rfft(r[:n], size)), size)
    lags = np.concatenate([np.arange(0, max_lag + 1), np.arange(-max_lag, 0)])
    values = np.concatenate([xc[: max_lag + 1], xc[-max_lag:]])
    lag = int(lags[int(np.argmax(values))])
    if lag >= 0:
        x, y = ours[lag:], ref
    else:
        x, y = ours, ref[-lag:]
    m = min(len(x), len(y))
    x, y = x[:m].astype(np.float64), y[:m].astype(np.float64)
    corr = float(np.corrcoef(x.ravel(), y.ravel())[0, 1]) if m > 1 else None
    rms_ref = float(np.sqrt(np.mean(y ** 2))) or 1e-12
    rms_diff = float(np.sqrt(np.mean((x - y) ** 2)))
    return lag, corr, 20 * np.log10(max(rms_diff, 1e-12) / rms_ref)


def show(binary, db, song):
    code, out, err, _ = run([binary, "show", "--db", db, song])
    fields = {}
    for line in out.decode(errors="replace").splitlines():
        key, _, value = line.partition(" ")
        fields[key] = value
    return code, fields


def first_line(err):
    lines = [l for l in err.decode(errors="replace").splitlines() if l.strip()]
    return lines


def sweep_one(binary, name, commands, tmp):
    make(name, commands)
    path = os.path.join(WORK, name)
    safe = name.replace("/", "_")
    db = os.path.join(tmp, safe + ".sqlite")
    row = {"file": name, "commands": commands, "size": os.path.getsize(path)}
    row["probe"] = p = probe(path)
    code, _, err, _ = run([binary, "add", "--db", db, path])
    row["add"] = {"code": code, "stderr": first_line(err)}
    if code != 0:
        return row
    _, fields = show(binary, db, path)
    row["show"] = {k: fields.get(k) for k in ("frames", "sample_rate", "channels", "duration",
                                             "format")}
    out = os.path.join(tmp, safe + ".render.wav")
    code, _, err, secs = run([binary, "render", "--db", db, path, "--output", out], timeout=300)
    row["render"] = {"code": code, "stderr": first_line(err), "seconds": round(secs, 1)}
    if code not in (0, 65) or not os.path.exists(out):
        return row
    ch = int(fields.get("channels") or 2)
    ours = pcm(out, ch)
    ref = pcm(path, ch)
    if name in CHAINED:
        straight = ref
        ref = reference_links(name, ch)
        if straight is not None:
            lag, corr, rms = compare(ours, straight)
            row["ffmpeg_straight"] = {"frames": len(straight), "lag": lag, "corr": corr,
                                      "rms_db": rms}
    row["frames"] = {"practice": len(ours), "ffmpeg": len(ref) if ref is not None else None,
                     "shown": int(fields.get("frames") or 0)}
    if ref is not None:
        lag, corr, rms = compare(ours, ref)
        row["aligned"] = {"lag": lag, "corr": corr, "rms_db": rms}
    os.remove(out)
    return row


def verdict(row):
    """'ok' or what disagrees with ffmpeg."""
    p = row.get("probe")
    if row["add"]["code"] != 0:
        return f"add exit {row['add']['code']}"
    problems = []
    s = row["show"]
    if p:
        if int(s["sample_rate"]) != p["rate"]:
            problems.append(f"rate {s['sample_rate']} vs {p['rate']}")
        if int(s["channels"]) != min(p["channels"], 2) and int(s["channels"]) != p["channels"]:
            problems.append(f"channels {s['channels']} vs {p['channels']}")
    r = row["render"]
    if r["code"] != 0:
        problems.append(f"render exit {r['code']}")
    f = row.get("frames")
    if f and f["ffmpeg"] is not None:
        slack = PACKET.get(p["codec"], 0) if p else 0
        if abs(f["practice"] - f["ffmpeg"]) > slack:
            problems.append(f"frames {f['practice']} vs {f['ffmpeg']} (packet {slack})")
        if f["shown"] != f["practice"]:
            problems.append(f"show says {f['shown']} frames, render gave {f['practice']}")
        if (p and p["duration"] and abs(f["shown"] / p["rate"] - p["duration"]) > 0.1
                and abs(f["shown"] - f["ffmpeg"]) > slack):
            # ffprobe's duration of a raw stream (ADTS, AC-3) is a guess from the bit rate:
            # it counts only where the decode disagrees with ffmpeg's too.
            problems.append(f"show {f['shown'] / p['rate']:.2f} s vs ffprobe"
                            f" {p['duration']:.2f} s")
    a = row.get("aligned")
    if a and a["lag"] is not None:
        if abs(a["lag"]) > 1:
            problems.append(f"lag {a['lag']}")
        if a["corr"] is None or a["corr"] < 0.99:
            problems.append(f"corr {a['corr']:.3f}" if a["corr"] is not None else "corr n/a")
    elif r["code"] == 0:
        problems.append("no comparison")
    return "; ".join(problems) or "ok"


# --- bad inputs --------------------------------------------------------------------------

def bad_cases():
    """(label, path maker) pairs: each maker returns the path to try (made in WORK/bad)."""
    bad = os.path.join(WORK, "bad")
    os.makedirs(bad, exist_ok=True)
    out = []

    def keep(label, name, data=None, copy_of=None, cut=None, mode=None):
        def maker():
            path = os.path.join(bad, name)
            if not os.path.lexists(path):
                if copy_of:
                    with open(os.path.join(WORK, copy_of), "rb") as f:
                        data_ = f.read()
                    if cut is not None:
                        data_ = data_[: int(len(data_) * cut)]
                else:
                    data_ = data
                with open(path, "wb") as f:
                    f.write(data_)
            if mode is not None:
                os.chmod(path, mode)
            return path
        out.append((label, maker))

    keep("zero-length .mp3", "empty.mp3", b"")
    keep("zero-length .wav", "empty.wav", b"")
    for ext in ("wav", "flac", "mp3", "ogg", "opus", "m4a", "webm", "mka", "aac", "ac3", "wma",
                "aiff", "caf"):
        for cut in (0.01, 0.5):
            keep(f"{ext} cut at {int(cut * 100)} %", f"cut{int(cut * 100)}.{ext}",
                 copy_of=f"midi.{ext}", cut=cut)
    keep("text named .mp3", "text.mp3", b"This is not audio.\n" * 200)
    keep("random bytes named .flac", "random.flac",
         np.random.default_rng(17).integers(0, 256, 200_000, dtype=np.uint8).tobytes())
    keep("ID3 tag and nothing else, .mp3", "id3only.mp3",
         b"ID3\x03\x00\x00\x00\x00\x00\x10" + bytes(16))

    def wav_patched(data_size, riff_size=None):
        with open(os.path.join(WORK, "midi.wav"), "rb") as f:
            data = bytearray(f.read())
        at = data.find(b"data")
        data[at + 4: at + 8] = struct.pack("<I", data_size)
        if riff_size is not None:
            data[4:8] = struct.pack("<I", riff_size)
        return bytes(data)

    with open(os.path.join(WORK, "midi.wav"), "rb") as f:
        real = len(f.read())
    keep("WAV header claims 2x the data", "claims-more.wav", wav_patched(real * 2))
    keep("WAV data size 0xFFFFFFFF (streaming)", "streaming.wav",
         wav_patched(0xFFFFFFFF, 0xFFFFFFFF))
    keep("WAV data size 0 (streaming, ffmpeg pipe)", "zero-size.wav", wav_patched(0, 0))
    keep("m4a moov at end, cut at 99 %", "moov-end-cut.m4a", copy_of="midi.m4a", cut=0.99)
    keep("m4a faststart, cut at 50 %", "faststart-cut50.m4a", copy_of="midi-faststart.m4a",
         cut=0.5)
    keep("chmod 000 (run as nobody)", "noperm.mp3", copy_of="midi.mp3", mode=0o000)

    # Session 19: not audio at all, and headers whose lengths are absurd.
    def patched(source, edit):
        with open(os.path.join(WORK, source), "rb") as f:
            data = bytearray(f.read())
        edit(data)
        return bytes(data)

    def moov_huge(data):
        at = data.find(b"moov")
        data[at - 4: at] = struct.pack(">I", 0xFFFFFFF0)

    def flac_block_huge(data):
        # The block after STREAMINFO (its header at 4 + 4 + 34): length 16 MB - 1.
        data[43:46] = b"\xff\xff\xff"

    def wav_fmt_huge(data):
        at = data.find(b"fmt ")
        data[at + 4: at + 8] = struct.pack("<I", 0x7FFFFFF0)

    keep("MIDI file (.mid)", "piece.mid", copy_of="piece.mid")
    keep("MIDI file named .mp3", "midi-named.mp3", copy_of="piece.mid")
    keep("PNG named .mp3", "picture.mp3", copy_of="cover.png")
    keep("PDF named .mp3", "document.mp3",
         b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
         b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n"
         b"trailer << /Root 1 0 R >>\n%%EOF\n")
    keep("m4a whose moov box claims 4 GB", "huge-moov.m4a",
         patched("midi-faststart.m4a", moov_huge))
    keep("FLAC metadata block of 16 MB (file 4x smaller)", "huge-block.flac",
         patched("midi.flac", flac_block_huge))
    keep("WAV fmt chunk of 2 GB", "huge-fmt.wav", patched("midi.wav", wav_fmt_huge))
    keep("ID3v2 tag claiming 256 MB before MP3", "huge-id3.mp3",
         b"ID3\x03\x00\x00\x7f\x7f\x7f\x7f" + patched("midi.mp3", lambda d: None)[10:])

    def special(label, name, how):
        def maker():
            path = os.path.join(bad, name)
            if not os.path.lexists(path):
                how(path)
            return path
        out.append((label, maker))

    special("path with spaces and quotes", "it's a \"song\" name.mp3",
            lambda p: shutil.copy(os.path.join(WORK, "midi.mp3"), p))
    special("path with a newline", "new\nline.m4a",
            lambda p: shutil.copy(os.path.join(WORK, "midi.m4a"), p))
    special("path with non-UTF-8 bytes", "caf\xe9.ogg",
            lambda p: shutil.copy(os.path.join(WORK, "midi.ogg"), os.fsencode(bad) + b"/caf\xe9.ogg"))
    special("FIFO named .wav", "fifo.wav", lambda p: os.mkfifo(p))
    out.append(("/dev/zero", lambda: "/dev/zero"))
    out.append(("/dev/urandom", lambda: "/dev/urandom"))
    special("symlink to /dev/zero named .wav", "zero-link.wav",
            lambda p: os.symlink("/dev/zero", p))
    special("directory named .mp3", "dir.mp3", lambda p: os.mkdir(p))
    return out


def dump(db):
    if not os.path.exists(db):
        return ""
    return subprocess.run(["sqlite3", db, ".dump"], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL).stdout.decode(errors="replace")


def bad_one(binary, label, maker, tmp):
    path = maker()
    if label == "path with non-UTF-8 bytes":
        path = os.fsencode(os.path.join(WORK, "bad")) + b"/caf\xe9.ogg"
    db = os.path.join(tmp, "bad.sqlite")
    as_nobody = label.startswith("chmod 000")
    prefix = ["runuser", "-u", "nobody", "--"] if as_nobody else []
    if as_nobody:
        os.chmod(tmp, 0o777)
    # The library has one song already, so "unchanged" means something.
    if not os.path.exists(db):
        subprocess.run(prefix + [binary, "add", "--db", db, os.path.join(WORK, "midi.flac")],
                       stdout=subprocess.DEVNULL, check=True)
        if as_nobody:
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.chmod(db + suffix, 0o666)
    results = {}
    for verb, extra in (("add", []),
                        ("render", ["--output", os.path.join(tmp, "o.wav"), "--json"]),
                        ("play", ["--device", "null"])):
        before = dump(db)
        code, out, err, secs = run(prefix + [binary, verb, "--db", db, path, *extra])
        after = dump(db)
        lines = first_line(err)
        results[verb] = {"code": code, "lines": len(lines),
                         "stderr": lines[:3], "seconds": round(secs, 1),
                         "db_changed": verb != "add" and before != after,
                         "db_changed_add": before != after}
        if verb == "render":
            # `render --json`: the frames written, on stdout.
            try:
                results[verb]["frames"] = json.loads(out)["frames"]
            except (ValueError, KeyError, TypeError):
                results[verb]["frames"] = None
        if verb == "add" and code == 0:
            # Added (a file that plays what it has): later verbs find the song by path.
            pass
        if os.path.exists(os.path.join(tmp, "o.wav")):
            os.remove(os.path.join(tmp, "o.wav"))
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    # What ffmpeg makes of it (seconds it decodes), for a refusal of a file it plays.
    seconds = None
    if not label.startswith(("FIFO", "/dev/", "symlink to /dev", "directory", "chmod")):
        decoded = pcm(os.fsdecode(path) if isinstance(path, bytes) else path, 1)
        seconds = round(len(decoded) / 44100, 2) if decoded is not None else 0.0
    return {"case": label, "path": os.fsdecode(path), "results": results,
            "ffmpeg_seconds": seconds}


def bad_verdict(entry):
    problems = []
    for verb, r in entry["results"].items():
        if r["code"] == "timeout":
            problems.append(f"{verb}: hung (60 s)")
            continue
        if isinstance(r["code"], int) and r["code"] < 0:
            problems.append(f"{verb}: killed by signal {-r['code']}")
            continue
        if r["code"] not in (0, 65, 66, 74, 1):
            problems.append(f"{verb}: exit {r['code']}")
        text = " ".join(r["stderr"])
        # A play or render that delivered what decodes and said the rest is missing (exit
        # 65, the warning as its last line) has status lines before it and logged its pass.
        warned = r["code"] == 65 and r["stderr"] and "it is cut short or damaged" in r["stderr"][-1]
        if r["code"] not in (0,) and r["lines"] != 1 and not warned:
            problems.append(f"{verb}: {r['lines']} lines on stderr")
        if r["code"] != 0 and r["db_changed_add"] and not (warned and verb == "play"):
            problems.append(f"{verb}: failed but changed the library")
        if "Fatal error" in text or "Illegal instruction" in text:
            problems.append(f"{verb}: trap")
    heard = entry.get("ffmpeg_seconds")
    if heard and heard >= 0.5:
        render = entry["results"]["render"]
        frames = render.get("frames")
        warned = render["stderr"] and "it is cut short or damaged" in render["stderr"][-1]
        if render["code"] != 0 and not warned:
            problems.append(f"refused; ffmpeg decodes {heard} s")
        elif frames is not None and frames / 44100 < heard - 0.5 and render["code"] == 0:
            problems.append(f"rendered {frames / 44100:.1f} s without a word;"
                            f" ffmpeg decodes {heard} s")
    return "; ".join(problems) or "ok"


# --- main -------------------------------------------------------------------------------

def md_cell(text):
    """TEXT for a table cell: pipes escaped, control characters (a newline, an escape) as
    \\xNN, so a file's name cannot break the table or reach a terminal raw."""
    text = str(text).replace("|", "\\|")
    return "".join(f"\\x{ord(ch):02x}" if ord(ch) < 32 or ord(ch) == 127 else ch
                   for ch in text)


def main():
    args = sys.argv[1:]
    only = None
    if "--only" in args:
        i = args.index("--only")
        only = args[i + 1]
        del args[i:i + 2]
    run_name = "sweep"
    if "--name" in args:
        i = args.index("--name")
        run_name = args[i + 1]
        del args[i:i + 2]
    parts = args or ["sweep", "bad"]
    binary = b.practice_bin()
    make_sources()
    report = {"binary": binary, "built_from": b.provenance(binary)}
    results_path = os.path.join(WORK, run_name + ".json")
    if os.path.exists(results_path):
        with open(results_path) as f:
            previous = json.load(f)
    else:
        previous = {}
    def each(kind, listed, one, judge):
        """Runs `one` on every case of `listed` (those naming `only`), each with its verdict."""
        done = []
        for name, how in listed:
            if only and only not in name:
                continue
            entry = one(binary, name, how, tmp)
            entry["verdict"] = judge(entry)
            b.log(f"{kind}: {name}: {entry['verdict']}")
            done.append(entry)
        return done

    with b.TempDir() as tmp:
        if "sweep" in parts:
            report["sweep"] = each("sweep", cases(), sweep_one, verdict)
        if "bad" in parts:
            # faststart copy for the moov test
            if not os.path.exists(os.path.join(WORK, "midi-faststart.m4a")):
                sh(f"{F} -i midi.wav -movflags +faststart midi-faststart.m4a")
            report["bad"] = each("bad", bad_cases(), bad_one, bad_verdict)
    for key in ("sweep", "bad"):
        if key not in report and key in previous:
            report[key] = previous[key]
        elif only and key in report and key in previous:
            # A partial run (--only) replaces its rows in the last full one, in place.
            label = "file" if key == "sweep" else "case"
            fresh = {e[label]: e for e in report[key]}
            merged = [fresh.pop(e[label], e) for e in previous[key]]
            report[key] = merged + list(fresh.values())
    with open(results_path, "w") as f:
        json.dump(report, f, indent=1)
    write_tables(report, os.path.join(WORK, run_name + "-table.md"))


def write_tables(report, path):
    lines = []
    for r in report.get("sweep", []):
        r["verdict"] = verdict(r)
    for e in report.get("bad", []):
        e["verdict"] = bad_verdict(e)
    if report.get("sweep"):
        rows = report["sweep"]
        agree = sum(1 for r in rows if r["verdict"] == "ok")
        lines.append(f"{agree} of {len(rows)} files agree with ffmpeg.\n")
        lines.append("| file | made by | ffprobe (codec, rate, ch, s) | practice show (rate, ch,"
                     " s) | frames practice / ffmpeg | lag | corr | diff dB | verdict |")
        lines.append("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            p = r.get("probe") or {}
            s = r.get("show") or {}
            f = r.get("frames") or {}
            a = r.get("aligned") or {}
            made = "; ".join(f"`{c.replace(F, 'ffmpeg')}`" for c in r["commands"])
            probe_text = (f"{p.get('codec')} {p.get('rate')} {p.get('channels')}"
                          f" {p.get('duration') or 0:.3f}") if p else "-"
            show_text = (f"{s.get('sample_rate')} {s.get('channels')} {s.get('duration')}"
                         if s else f"add exit {r['add']['code']}")
            frames = f"{f.get('practice')} / {f.get('ffmpeg')}" if f else "-"
            if r.get("ffmpeg_straight"):
                st = r["ffmpeg_straight"]
                corr_st = f"{st['corr']:.3f}" if st.get("corr") is not None else "-"
                frames += f" (the files joined; `ffmpeg -i`: {st['frames']}, corr {corr_st})"
            corr = f"{a['corr']:.4f}" if a.get("corr") is not None else "-"
            diff = f"{a['rms_db']:.1f}" if a.get("rms_db") is not None else "-"
            lines.append(f"| {md_cell(r['file'])} | {md_cell(made)} | {probe_text} |"
                         f" {show_text} | {frames} | {a.get('lag', '-')} | {corr} | {diff} |"
                         f" {md_cell(r['verdict'])} |")
        lines.append("")
    if report.get("bad"):
        entries = report["bad"]
        fine = sum(1 for e in entries if e["verdict"] == "ok")
        lines.append(f"{fine} of {len(entries)} bad inputs handled as DESIGN.md says.\n")
        lines.append("| input | add | render | play | first line (add, else render) | verdict |")
        lines.append("|---|---|---|---|---|---|")
        for e in entries:
            res = e["results"]
            def cell(v):
                r = res[v]
                return f"{r['code']} ({r['lines']} l, {r['seconds']} s)"
            first = (res["add"]["stderr"] or res["render"]["stderr"] or [""])[0]
            lines.append(f"| {md_cell(e['case'])} | {cell('add')} | {cell('render')} |"
                         f" {cell('play')} | {md_cell(first[:160])} | {md_cell(e['verdict'])} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
