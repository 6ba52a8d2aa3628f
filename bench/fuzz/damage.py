#!/usr/bin/env python3
"""Damaged inputs through the built `practice`: a reproducible corpus of bad files and words.

Makes well-formed inputs of every kind practice reads (audio in ten containers, beat files in
every format `beats import` reads, chord files, `.practice` files with a setlist, a repository
served over http, option values), damages them the ways real files are damaged (truncation,
byte flips, zeroed ranges, huge length fields, control bytes and invalid UTF-8 in tags, names
and text, empty files, folders and FIFOs where files are expected, other tools' files under
our extensions), runs each through the binary with a private library and a timeout, and flags:

  trap      exit by a signal or a status >= 128 (other than 130), or "Fatal error" on stderr
  hang      the timeout ran out
  code      a status not in DESIGN.md's table (0 1 64 65 66 69 73 74 75 130)
  lines     a refusal with more than one line on stderr (64 may add the parser's usage lines)
  control   a raw control byte (other than tab and newline) on stdout or stderr
  library   the library's `sqlite3 .dump` changed by a refusal
  untyped   a refusal that starts with an option the command line did not have
  json      a `--json` output that does not parse
After a damaged beat, chord, .practice file or repository is taken (exit 0), the library's
lists (`list`, `show`, `select list`, `beats show`, `chords show`, `setlist list`, and their
`--json`) are judged the same way.

Everything is made in bench/out/fuzz/ (git-ignored) from the repository's fixtures with
ffmpeg; `random.Random(SEED)` picks every offset, so a run is the same run again. Writes
bench/out/fuzz/findings.json and prints one line per finding (kind, case, command, what).

  bench/fuzz/damage.py [--seed N] [--only KIND[,KIND]] [--limit N] [--timeout S] [--jobs N]

KIND: audio, beats, chords, practice, pull, args. $PRACTICE_BIN is the binary under test
(default .build/debug/practice).
"""

import argparse
import concurrent.futures
import http.server
import json
import os
import random
import re
import shutil
import signal
import socketserver
import stat
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "bench", "out", "fuzz")
BIN = os.environ.get("PRACTICE_BIN") or os.path.join(REPO, ".build", "debug", "practice")
CODES = {0, 1, 64, 65, 66, 69, 73, 74, 75, 130}
TAG = b"TAGMARKTAGMARKTAGMARK"  # replaced in the files' bytes by control bytes and bad UTF-8
BAD_TEXTS = [
    b"\x00\x00\x00\x00", b"\x1b[31mred\x1b[0m", b"\x1b]0;title\x07", b"\xff\xfe\xc3\x28\xa0\xa1",
    b"\r\r\r\x08\x08\x7f", b"\xe2\x80\xae\xe2\x80\x8b", b"\xf0\x28\x8c\x28",
]

JSON_TEXTS = [rb"\u001b[2J\u001b[Hcleared", rb"a\u0000b", rb"\u001b]0;pwned\u0007", rb"\ud800x",
              rb"\r\rover", rb"../../etc/passwd", rb"\u009b31m", b"\xff\xfe"]
# After a command that took a damaged file succeeds, these read what it stored.
READERS = [["list"], ["show", "1"], ["select", "list", "1"], ["beats", "show", "1"],
           ["chords", "show", "1"], ["setlist", "list"], ["list", "--json"],
           ["show", "1", "--json"], ["select", "list", "1", "--json"]]


def sh(*args, **kw):
    return subprocess.run(list(args), check=True, capture_output=True, **kw)


# ---------------------------------------------------------------------------- well-formed inputs

AUDIO_SEEDS = {  # name: (extension, ffmpeg output options)
    "wav16": ("wav", ["-c:a", "pcm_s16le"]),
    "wavext": ("wav", ["-c:a", "pcm_s24le"]),  # 24-bit: ffmpeg writes WAVE_FORMAT_EXTENSIBLE
    "flac48": ("flac", ["-ar", "48000", "-c:a", "flac"]),
    "vorbis": ("ogg", ["-c:a", "libvorbis"]),
    "opus": ("opus", ["-c:a", "libopus"]),
    "mp3": ("mp3", ["-c:a", "libmp3lame"]),  # ID3v2 and a Xing frame, ffmpeg's defaults
    "m4a": ("m4a", []),  # plain `ffmpeg -i x.wav x.m4a`: moov at the end
    "m4afast": ("m4a", ["-movflags", "+faststart"]),
    "mkv": ("mkv", []),
    "webm": ("webm", []),
}


def make_seeds():
    seeds = os.path.join(OUT, "seeds")
    os.makedirs(seeds, exist_ok=True)
    source = os.path.join(REPO, "fixtures", "clicks-120.wav")
    made = {}
    for name, (ext, opts) in AUDIO_SEEDS.items():
        path = os.path.join(seeds, f"{name}.{ext}")
        if not os.path.exists(path):
            sh("ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-i", source, "-t", "4",
               "-metadata", "title=" + TAG.decode(), "-metadata", "artist=Fuzz", *opts, path)
        made[name] = path
    return made


def practice(db, *args, timeout=60, cwd=None):
    env = dict(os.environ, PRACTICE_DB=db, SWIFT_BACKTRACE="enable=no")
    env.pop("PRACTICE_DEVICE", None)
    return subprocess.run([BIN, *args], env=env, capture_output=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, cwd=cwd or OUT)


def make_libraries(seeds):
    """`publisher`: the clicks song with a beat map, selections, chords and a setlist;
    `receiver`: the same recording only. Returns their paths and the files exported."""
    libs = os.path.join(OUT, "libs")
    shutil.rmtree(libs, ignore_errors=True)
    os.makedirs(libs)
    song = os.path.join(libs, "clicks.wav")
    shutil.copy(os.path.join(REPO, "fixtures", "clicks-120.wav"), song)
    beats = os.path.join(REPO, "fixtures", "clicks-120.beats")
    pub, rec = os.path.join(libs, "publisher.sqlite"), os.path.join(libs, "receiver.sqlite")
    for step in [["add", song], ["beats", "import", "1", beats, "--meter", "4/4"],
                 ["select", "add", "1", "verse", "--bars", "2-3"],
                 ["select", "add", "1", "intro", "--bars", "1"],
                 ["chords", "detect", "1"], ["set", "1", "--key", "A", "--bpm", "120"],
                 ["setlist", "new", "gig"], ["setlist", "add", "gig", "1", "--select", "verse"]]:
        result = practice(pub, *step)
        if result.returncode != 0:
            sys.exit(f"setting up the publisher: {step}: {result.stderr.decode()}")
    practice(rec, "add", song)
    files = {}
    for fmt, ext in [("times", "txt"), ("mirex", "beats"), ("audacity", "txt"), ("csv", "csv"),
                     ("json", "json"), ("xml", "xml")]:
        path = os.path.join(libs, f"beats-{fmt}.{ext}")
        result = practice(pub, "beats", "export", "1", "--format", fmt, "-o", path)
        if result.returncode == 0:
            files[f"beats-{fmt}"] = path
    files["beats-xsc"] = os.path.join(REPO, "fixtures", "beats", "song.xsc")
    lab = os.path.join(libs, "chords.lab")
    if practice(pub, "chords", "export", "1", "-o", lab).returncode == 0:
        files["chords-lab"] = lab
    csv = os.path.join(libs, "chords.csv")
    with open(csv, "w") as f:
        f.write("0.000000000,\"N\"\n0.5,\"A\"\n2.5,\"E7\"\n4.0,\"Am/C\"\n")
    files["chords-csv"] = csv
    exported = os.path.join(libs, "all.practice")
    practice(pub, "export", "--all", "-o", exported)
    files["practice"] = exported
    repo = os.path.join(libs, "repo")
    practice(pub, "repo", "publish", repo, "--all")
    files["repo"] = repo
    for db in (pub, rec):  # one file, no -wal, so a copy is the whole library
        sh("sqlite3", db, "PRAGMA wal_checkpoint(TRUNCATE);")
    return pub, rec, song, files


# ------------------------------------------------------------------------------------ damage

def find_all(data, needle):
    return [m.start() for m in re.finditer(re.escape(needle), data)]


def size_fields(data):
    """Offsets of length fields a reader trusts: RIFF chunk sizes, MP4 atom sizes, the ID3v2
    size, Ogg page segment counts, FLAC metadata block lengths, EBML sizes' first bytes."""
    found = []
    for cc in [b"RIFF", b"fmt ", b"data", b"LIST", b"INFO"]:
        found += [i + 4 for i in find_all(data, cc) if i + 8 <= len(data)]
    for atom in [b"ftyp", b"moov", b"mdat", b"trak", b"mdia", b"minf", b"stbl", b"stsz",
                 b"stco", b"stts", b"stsc", b"mdhd", b"esds", b"udta", b"ilst"]:
        found += [i - 4 for i in find_all(data, atom) if i >= 4]
    if data.startswith(b"ID3"):
        found.append(6)
    found += [i + 26 for i in find_all(data, b"OggS") if i + 27 <= len(data)]
    if data.startswith(b"fLaC"):
        found.append(5)
    found += [i + 4 for i in find_all(data, b"\x1a\x45\xdf\xa3")]
    return sorted(set(found))


def damage_binary(data, rng):
    """(label, bytes) pairs: the damaged versions of one well-formed file."""
    n = len(data)
    out = []
    for at in sorted({1, 3, 4, 8, 11, 12, 16, 24, 36, 43, 44, 64, 128, 512, 4096, n // 4, n // 2,
                      n - 4096, n - 1, *(rng.randrange(1, n) for _ in range(4))}):
        if 0 < at < n:
            out.append((f"trunc{at}", data[:at]))
    for i in range(8):
        b = bytearray(data)
        span = 64 if i < 4 else 1024
        for _ in range(1 + i % 3):
            at = rng.randrange(min(span, n))
            b[at] ^= 1 << rng.randrange(8) if i % 2 else 0xFF
        out.append((f"flip{i}", bytes(b)))
    for i in range(4):
        b = bytearray(data)
        at = rng.randrange(n)
        length = rng.choice([16, 256, 4096, n // 3])
        b[at:at + length] = bytes(len(b[at:at + length]))
        out.append((f"zero{at}+{length}", bytes(b)))
    fields = size_fields(data)
    for i, at in enumerate(fields[:12]):
        for value in (b"\xff\xff\xff\xff", b"\x7f\xff\xff\xff", b"\x00\x00\x00\x00"):
            b = bytearray(data)
            b[at:at + 4] = value[:len(b[at:at + 4])]
            out.append((f"size{at}={value.hex()}", bytes(b)))
    if TAG in data:
        for i, text in enumerate(BAD_TEXTS):
            out.append((f"tag{i}", data.replace(TAG, (text * 8)[:len(TAG)])))
    return out


def damage_text(data, rng):
    """(label, bytes) pairs: damaged versions of a text file (beat, chord, JSON files)."""
    n = len(data)
    out = []
    lines = data.split(b"\n")
    for at in sorted({1, 2, n // 3, n // 2, n - 2, n - 1, *(rng.randrange(1, n) for _ in range(6))}):
        if 0 < at < n:
            out.append((f"trunc{at}", data[:at]))
    for i in range(8):
        b = bytearray(data)
        at = rng.randrange(n)
        b[at] = rng.choice([0, 0x1b, 0xff, 0x22, 0x2c, 0x7b, 0x5d, 0x0d, 0x09, 0x30, 0x2d])
        out.append((f"byte{at}={b[at]:02x}", bytes(b)))
    for i, text in enumerate(BAD_TEXTS):
        at = rng.randrange(n)
        out.append((f"insert{i}@{at}", data[:at] + text + data[at:]))
    numbers = [m for m in re.finditer(rb"-?\d+(\.\d+)?", data)]
    for i, value in enumerate([b"1e308", b"-1", b"nan", b"inf", b"99999999999999999999",
                               b"-0", b"1e-320", b"18446744073709551616", b"0", b"4294967296"]):
        if numbers:
            m = rng.choice(numbers)
            out.append((f"number{m.start()}={value.decode()}",
                        data[:m.start()] + value + data[m.end():]))
    if len(lines) > 2:
        k = rng.randrange(len(lines))
        out.append(("dupline", b"\n".join(lines[:k] + [lines[k]] * 3 + lines[k:])))
        out.append(("reversed", b"\n".join(reversed(lines))))
        out.append(("crlf", data.replace(b"\n", b"\r\n")))
        out.append(("manylines", b"\n".join(lines * 2000)))
    strings = list(re.finditer(rb'"(name|title|artist|note|selection|file|bars|labels|tags|'
                               rb'format|content_hash|version)"\s*:\s*\[?"([^"]*)"', data))
    for i, m in enumerate(rng.sample(strings, min(6, len(strings)))):
        value = JSON_TEXTS[i % len(JSON_TEXTS)]
        out.append((f"json-{m.group(1).decode()}{i}", data[:m.start(2)] + value + data[m.end(2):]))
    labels = list(re.finditer(rb"(?<=,)(A1|A2|A4|Verse|Solo|Bridge)(?=[,\\])|(?<=\t)[A-Za-z:#/0-9]+$",
                              data, re.M))
    for i, m in enumerate(rng.sample(labels, min(4, len(labels)))):
        text = BAD_TEXTS[1 + i % (len(BAD_TEXTS) - 1)]
        out.append((f"label{i}", data[:m.start()] + text + data[m.end():]))
    out.append(("utf16", b"\xff\xfe" + data.decode("utf-8", "replace").encode("utf-16-le")))
    out.append(("bom", b"\xef\xbb\xbf" + data))
    out.append(("nul", data.replace(b"\n", b"\x00")))
    return out


def foreign_files():
    """Files valid for another tool."""
    png = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00"
           b"\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05"
           b"\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")
    with open("/bin/true", "rb") as f:
        elf = f.read()
    return [("png", png), ("text", b"hello, this is a text file\n"), ("elf", elf),
            ("zip", b"PK\x03\x04" + bytes(26) + b"PK\x05\x06" + bytes(18)),
            ("html", b"<!doctype html><html><body>404 Not Found</body></html>\n"),
            ("json", b'{"a": [1, 2, 3]}\n'), ("empty", b""), ("one", b"\n"),
            ("escapes", b"\x1b[2J\x1b[H\x1b]0;pwned\x07\n")]


# ------------------------------------------------------------------------------------ running

class Case:
    def __init__(self, kind, label, args, db, before=None, setup=None):
        self.kind, self.label, self.args, self.db = kind, label, args, db
        self.before, self.setup = before, setup


def dump(db):
    if not os.path.exists(db):
        return ""
    return subprocess.run(["sqlite3", "-readonly", db, ".dump"], capture_output=True).stdout.decode(
        "utf-8", "replace")


CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")


def judge(case, timeout):
    env = dict(os.environ, PRACTICE_DB=case.db, SWIFT_BACKTRACE="enable=no")
    env.pop("PRACTICE_DEVICE", None)
    before = dump(case.db)
    started = time.monotonic()
    process = subprocess.Popen([BIN, *case.args], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=OUT,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        return [("hang", f"no exit in {timeout} s")], None, time.monotonic() - started, err
    status = process.returncode
    seconds = time.monotonic() - started
    flags = []
    if status < 0 or (status >= 128 and status != 130) or b"Fatal error" in err:
        flags.append(("trap", f"status {status}: {err[-300:].decode('utf-8', 'replace')}"))
    elif status not in CODES:
        flags.append(("code", f"status {status}"))
    # pull refuses a bad entry with one line, applies the rest and sums up (exit 65, by design)
    # render writes what decodes of a file cut short, says so and exits 65 (by design)
    partial = (case.kind == "pull" and b"\npulled '" in err) or b"what decodes was rendered" in err
    if status != 0 and not partial:
        lines = err.decode("utf-8", "replace").rstrip("\n").split("\n")
        extra = [l for l in lines[1:] if not (status == 64 and (
            l.startswith("Usage:") or l.startswith("  See ") or l.startswith("Help:")
            or not l.strip() or l.startswith("  ")))]
        if extra:
            flags.append(("lines", " | ".join(lines)[:300]))
    typed = re.match(rb"practice: (--[a-z-]+)", err)
    if status != 0 and typed and typed.group(1).decode() not in case.args:
        flags.append(("untyped", f"the refusal names {typed.group(1).decode()}, not typed: {err[:200]!r}"))
    for name, stream in (("stdout", out), ("stderr", err)):
        m = CONTROL.search(stream)
        if m:
            flags.append(("control", f"{name} byte {m.group()!r}: {stream[:200]!r}"))
    if status != 0 and not partial and dump(case.db) != before:
        flags.append(("library", f"status {status} changed the library: {err[:200]!r}"))
    if status == 0 and "--json" in case.args:
        try:
            json.loads(out)
        except ValueError as error:
            flags.append(("json", f"{error}: {out[:200]!r}"))
    return flags, status, seconds, err


# ------------------------------------------------------------------------------------- kinds

def write_case(folder, name, data):
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def audio_cases(rng, seeds, base_db, scratch):
    folder = os.path.join(scratch, "audio")
    os.makedirs(folder)
    inputs = []
    for name, path in seeds.items():
        ext = os.path.splitext(path)[1]
        with open(path, "rb") as f:
            data = f.read()
        for label, damaged in damage_binary(data, rng):
            inputs.append((f"{name}:{label}", write_case(folder, f"{name}-{label}{ext}", damaged)))
        # the right bytes under another container's name
        other = rng.choice([e for e, _ in AUDIO_SEEDS.values() if "." + e != ext])
        inputs.append((f"{name}:as.{other}", write_case(folder, f"{name}-as{ext}.{other}", data)))
    for label, data in foreign_files():
        for ext in ("mp3", "m4a", "wav", "flac", "ogg"):
            inputs.append((f"foreign-{label}.{ext}", write_case(folder, f"{label}-foreign.{ext}", data)))
    with open(seeds["wav16"], "rb") as f:
        wav = f.read()
    for i, text in enumerate(BAD_TEXTS):  # control bytes and bad UTF-8 in the file's name
        name = (b"name-" + text.replace(b"\x00", b"") + b".wav").replace(b"/", b"_")
        path = os.path.join(folder.encode(), name)
        with open(path, "wb") as f:
            f.write(wav)
        inputs.append((f"name{i}", os.fsdecode(path)))
    d = os.path.join(folder, "folder.wav")
    os.makedirs(d)
    inputs.append(("folder.wav", d))
    fifo = os.path.join(folder, "fifo.wav")
    os.mkfifo(fifo)
    inputs.append(("fifo.wav", fifo))
    unreadable = write_case(folder, "unreadable.wav", wav)
    os.chmod(unreadable, 0)
    inputs.append(("unreadable.wav", unreadable))
    cases = []
    for i, (label, path) in enumerate(inputs):
        if i % 6 == 0:
            cases.append(Case("audio", label, ["play", path, "--device", "null", "--to", "0.5"], base_db))
        for cmd in (["add", path], ["render", path, "-o", os.path.join(scratch, "out.wav")],
                    ["beats", "detect", path], ["chords", "detect", path],
                    ["view", path, "-o", os.path.join(scratch, "x.png")]):
            cases.append(Case("audio", label, cmd, base_db))
    return cases


def text_cases(kind, rng, files, names, command, db, scratch):
    folder = os.path.join(scratch, kind)
    os.makedirs(folder, exist_ok=True)
    cases = []
    for name in names:
        path = files[name]
        ext = os.path.splitext(path)[1]
        with open(path, "rb") as f:
            data = f.read()
        variants = damage_text(data, rng) + [(f"foreign-{l}", d) for l, d in foreign_files()]
        for label, damaged in variants:
            case = write_case(folder, f"{name}-{len(cases)}{ext}", damaged)
            cases.append(Case(kind, f"{name}:{label}", command(case), db))
    d = os.path.join(folder, "folder" + ext)
    os.makedirs(d, exist_ok=True)
    fifo = os.path.join(folder, "fifo" + ext)
    os.mkfifo(fifo)
    for label, path in (("folder", d), ("fifo", fifo), ("missing", os.path.join(folder, "nope"))):
        cases.append(Case(kind, label, command(path), db))
    return cases


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder):
    handler = lambda *a, **kw: Quiet(*a, directory=folder, **kw)
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def pull_cases(rng, files, receiver, scratch, base_url):
    """Each damaged repository in a folder of its own under the served root: index.json
    damaged, or the one song's .practice entry damaged, or an entry's name."""
    root = os.path.join(scratch, "served")
    repo = files["repo"]
    with open(os.path.join(repo, "index.json"), "rb") as f:
        index = f.read()
    entries = [n for n in os.listdir(repo) if n.endswith(".practice")]
    cases = []
    variants = [("index:" + l, "index.json", d) for l, d in damage_text(index, rng)]
    variants += [("index:foreign-" + l, "index.json", d) for l, d in foreign_files()]
    for entry in entries:
        with open(os.path.join(repo, entry), "rb") as f:
            data = f.read()
        variants += [(f"{entry}:" + l, entry, d) for l, d in damage_text(data, rng)[::2]]
    for i, (label, name, data) in enumerate(variants):
        folder = os.path.join(root, f"r{i}")
        shutil.copytree(repo, folder)
        write_case(folder, name, data)
        db = os.path.join(scratch, "dbs", f"pull-{i}.sqlite")
        shutil.copy(receiver, db)
        cases.append(Case("pull", label, ["pull"], db,
                          setup=[["repo", "add", "band", f"{base_url}/r{i}"]]))
    for label, url in (("missing", f"{base_url}/nope"), ("html", f"{base_url}/"),
                       ("refused", "http://127.0.0.1:9/x"), ("folder-missing", "/nonexistent/x")):
        db = os.path.join(scratch, "dbs", f"pull-{label}.sqlite")
        shutil.copy(receiver, db)
        cases.append(Case("pull", label, ["pull"], db, setup=[["repo", "add", "band", url]]))
    return cases


def arg_cases(rng, publisher, song, scratch):
    out = os.path.join(scratch, "args.wav")
    bars = ["", "0", "-1", "9-", "-16", "16-9", "1.0", "1.9", "1.5-1.2", "99999999999999999999",
            "1e9", "nan", "\x1b[31m", "9-16-20", "1..2", "\u0661-\u0662", " 9", "9 - 16", "0x10",
            "1.1.1", "3-3", "2.4-2.1", "0.1", "-0", "2:", "1-99999", "+1", "٣", "1,2", "½"]
    times = ["", "-1", "1:99", "1e400", "nan", "inf", "::", "1:2:3:4", "99999999999", "1e-10",
             "0:60", "-0:01", "1:-1", "\x1b", "1.5.5", "60:00", "1:1:1.5e3", "0x1", "5", "2.1"]
    speeds = ["0", "0%", "-50%", "1000%", "nan", "inf", "1e-300", "75%%", "%", "", "1e999%",
              "0.0001", "25%", "400%", "x2", "50 %", "\x01", "1/2"]
    transposes = ["+100", "-13", "nan", "1.5", "++1", "C", "\x1b", "", "-0", "+12", "99999999999999999999"]
    cases = []
    for value in bars:
        cases.append(Case("args", f"bars={value!r}", ["render", song, "-o", out, "--bars", value], publisher))
        cases.append(Case("args", f"bars={value!r}", ["play", song, "--device", "null", "--bars", value], publisher))
    for value in times:
        cases.append(Case("args", f"from={value!r}", ["render", song, "-o", out, "--from", value], publisher))
        cases.append(Case("args", f"to={value!r}", ["render", song, "-o", out, "--from", "1", "--to", value], publisher))
        cases.append(Case("args", f"at={value!r}", ["beats", "downbeat", "1", "--at", value], publisher))
    for value in speeds:
        cases.append(Case("args", f"speed={value!r}", ["render", song, "-o", out, "--speed", value, "--to", "1"], publisher))
    for value in transposes:
        cases.append(Case("args", f"transpose={value!r}", ["render", song, "-o", out, "--transpose", value, "--to", "1"], publisher))
        cases.append(Case("args", f"setlist-transpose={value!r}", ["setlist", "add", "gig", "1", "--transpose", value], publisher))
    for value in ["0", "-1", "99999999999999999999", "x", ""]:
        cases.append(Case("args", f"setlist-at={value!r}", ["setlist", "add", "gig", "1", "--at", value], publisher))
    # titles and names with control bytes: stored, then listed and shown escaped
    for i, text in enumerate(BAD_TEXTS[1:]):
        word = os.fsdecode(text.replace(b"\x00", b""))
        setup = [["set", "1", "--title", word], ["set", "1", "--artist", word],
                 ["set", "1", "--note", word], ["set", "1", "--tag", word],
                 ["select", "add", "1", word, "--bars", "1"], ["setlist", "new", word],
                 ["setlist", "add", "gig", "1", "--note", word]]
        for cmd in (["list"], ["show", "1"], ["select", "list", "1"], ["setlist", "list"],
                    ["setlist", "show", "gig"], ["log"], ["stats"], ["today"],
                    ["list", "--json"], ["show", "1", "--json"],
                    ["render", "1", "-o", out, "--bars", "1"], ["play", word, "--device", "null"],
                    ["setlist", "print", "gig", "-o", os.path.join(scratch, f"gig{i}.txt")]):
            cases.append(Case("args", f"text{i}", cmd, publisher, setup=setup))
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--only", default="audio,beats,chords,practice,pull,args")
    parser.add_argument("--limit", type=int, default=0, help="at most N cases of each kind (a sample)")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--jobs", type=int, default=2)
    options = parser.parse_args()
    kinds = options.only.split(",")
    if not os.path.exists(BIN):
        sys.exit(f"no binary at {BIN}: swift build first (or set PRACTICE_BIN)")
    os.makedirs(OUT, exist_ok=True)
    scratch = os.path.join(OUT, "run")
    if os.path.exists(scratch):
        subprocess.run(["chmod", "-R", "u+rwX", scratch])
        shutil.rmtree(scratch)
    os.makedirs(os.path.join(scratch, "dbs"))
    rng = random.Random(options.seed)
    seeds = make_seeds()
    publisher, receiver, song, files = make_libraries(seeds)
    server = serve(os.path.join(scratch, "served"))
    base_url = f"http://127.0.0.1:{server.server_address[1]}"

    def beats_command(path):
        return ["beats", "import", "1", path]

    cases = []
    if "audio" in kinds:
        cases += audio_cases(rng, seeds, receiver, scratch)
    if "beats" in kinds:
        cases += text_cases("beats", rng, files, [n for n in files if n.startswith("beats-")],
                            beats_command, receiver, scratch)
    if "chords" in kinds:
        cases += text_cases("chords", rng, files, ["chords-lab", "chords-csv"],
                            lambda p: ["chords", "import", "1", p], receiver, scratch)
    if "practice" in kinds:
        cases += text_cases("practice", rng, files, ["practice"], lambda p: ["import", p],
                            receiver, scratch)
    if "pull" in kinds:
        os.makedirs(os.path.join(scratch, "served"), exist_ok=True)
        cases += pull_cases(rng, files, receiver, scratch, base_url)
    if "args" in kinds:
        cases += arg_cases(rng, publisher, song, scratch)
    if options.limit:
        by_kind = {}
        for case in cases:
            by_kind.setdefault(case.kind, []).append(case)
        cases = [c for k in by_kind.values() for c in random.Random(options.seed).sample(
            k, min(options.limit, len(k)))]
    # Every case that shares a library gets a copy of its own, so the cases are independent.
    for i, case in enumerate(cases):
        if os.path.dirname(case.db) != os.path.join(scratch, "dbs"):
            db = os.path.join(scratch, "dbs", f"case-{i}.sqlite")
            shutil.copy(case.db, db)
            case.db = db

    def run(case):
        for step in case.setup or []:  # a refusal here is judged where the step is a case
            practice(case.db, *step)
        flags, status, seconds, err = judge(case, options.timeout)
        if status == 0 and case.kind in ("beats", "chords", "practice", "pull"):
            for reader in READERS:
                more, _, _, _ = judge(Case(case.kind, case.label, reader, case.db), options.timeout)
                flags += [(flag, f"then {' '.join(reader)}: {what}") for flag, what in more]
        return case, flags, status, seconds, err

    findings, counts, started, record = [], {}, time.monotonic(), []
    print(f"{len(cases)} cases, binary {BIN}", file=sys.stderr)
    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        for case, flags, status, seconds, err in pool.map(run, cases):
            record.append({"kind": case.kind, "case": case.label, "args": case.args,
                           "status": status, "seconds": round(seconds, 2),
                           "stderr": err.decode("utf-8", "replace")[:300]})
            counts.setdefault(case.kind, {}).setdefault(str(status), 0)
            counts[case.kind][str(status)] += 1
            for flag, what in flags:
                line = {"kind": case.kind, "case": case.label, "flag": flag,
                        "command": [os.path.relpath(a, OUT) if a.startswith(OUT) else a
                                    for a in case.args],
                        "what": what, "seconds": round(seconds, 2)}
                findings.append(line)
                print(json.dumps(line, ensure_ascii=True))
    server.shutdown()
    summary = {"seed": options.seed, "binary": BIN, "cases": len(cases),
               "seconds": round(time.monotonic() - started), "statuses": counts,
               "findings": findings}
    summary["slowest"] = sorted(record, key=lambda r: -r["seconds"])[:10]
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(record, f, indent=0, ensure_ascii=True)
    with open(os.path.join(OUT, "findings.json"), "w") as f:
        json.dump(summary, f, indent=1, ensure_ascii=True)
    print(f"{len(findings)} findings in {len(cases)} cases ({summary['seconds']} s); "
          f"statuses by kind: {json.dumps(counts)}", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
