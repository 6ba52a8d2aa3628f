"""Shared helpers for the benchmark scripts in bench/ (Python 3 stdlib only).

Every benchmark script:
  * takes the binary from $PRACTICE_BIN (default .build/release/practice),
  * installs the tools it is missing with apt-get (see ensure_tools),
  * generates its inputs in bench/out/ (git-ignored), reusing them when present,
  * uses a temporary library database, never the user's,
  * writes its figures to bench/out/results/NAME.json for report.py.
"""

import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
OUT_DIR = os.path.join(BENCH_DIR, "out")
# $BENCH_RESULTS_DIR: another folder (a run that must not touch the shared bench/out/results)
RESULTS_DIR = os.environ.get("BENCH_RESULTS_DIR") or os.path.join(OUT_DIR, "results")
BEATS_RUN = os.path.join(BENCH_DIR, "beats", "run")       # the beat measurements' runner
MODELS_RUN = os.path.join(REPO_DIR, "models", "run")      # the generators' and trainers'

# command -> Debian package that provides it
PACKAGES = {
    "sox": "sox",
    "ffmpeg": "ffmpeg",
    "hyperfine": "hyperfine",
    "/usr/bin/time": "time",
    "aplay": "alsa-utils",
    "pulseaudio": "pulseaudio",
    "pactl": "pulseaudio-utils",
    "pacat": "pulseaudio-utils",
    "paplay": "pulseaudio-utils",
    "aubiopitch": "aubio-tools",
    "faad": "faad",
    "fluidsynth": "fluidsynth",
    "lame": "lame",
    "oggenc": "vorbis-tools",
    "opusenc": "opus-tools",
    "wavpack": "wavpack",
    "sqlite3": "sqlite3",
}


def beats_tool(name, *args):
    """The command line of `bench/beats/run NAME ARGS...` (score, baselines, detect-dir ...)."""
    return [BEATS_RUN, name, *map(str, args)]


def models_tool(name, *args):
    """The command line of `models/run NAME ARGS...` (set, corpus, copies, onsetsynth ...)."""
    return [MODELS_RUN, name, *map(str, args)]


def log(message):
    print(message, file=sys.stderr, flush=True)


def _git(*args):
    try:
        return subprocess.run(["git", "-C", REPO_DIR] + list(args), check=True,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return ""


def provenance(binary=None):
    """What the binary under test was built from, as far as the work tree can tell.

    commit: HEAD now; built: the binary's modification time; newer_sources: files under
    Sources/ and Package.swift modified after it (the tree moved on: someone is working while
    the benchmarks run, or the binary is stale); built_at: then the newest commit committed
    before the build; uncommitted_in_build: uncommitted changes to Sources/ or Package.*
    older than the binary (it may contain them)."""
    if binary is None:
        binary = os.environ.get("PRACTICE_BIN") or ".build/release/practice"
    if not os.path.isabs(binary):
        binary = os.path.join(REPO_DIR, binary)
    built = os.path.getmtime(binary) if os.path.exists(binary) else None
    head = _git("rev-parse", "--short", "HEAD").strip() or "unknown"
    result = {"commit": head, "built": "", "built_at": head, "newer_sources": 0,
              "uncommitted_in_build": 0}
    if built is None:
        return result
    result["built"] = time.strftime("%Y-%m-%d %H:%M", time.localtime(built))
    sources = [os.path.join(REPO_DIR, "Package.swift")] + [
        os.path.join(d, f) for d, _, fs in os.walk(os.path.join(REPO_DIR, "Sources")) for f in fs]
    result["newer_sources"] = sum(
        1 for f in sources if os.path.exists(f) and os.path.getmtime(f) > built)
    if result["newer_sources"]:
        result["built_at"] = _git("log", "-1", "--format=%h",
                                  f"--before={int(built)}").strip() or "unknown"
    status = _git("status", "--porcelain", "--", "Sources", "Package.swift", "Package.resolved")
    for line in status.splitlines():
        path = os.path.join(REPO_DIR, line[3:].split(" -> ")[-1].strip('"'))
        if not os.path.isfile(path) or os.path.getmtime(path) <= built:
            result["uncommitted_in_build"] += 1
    return result


def describe_build(built_from):
    """'abc1234', 'abc1234 plus uncommitted changes' or 'abc1234 (by commit date)': the commit
    the binary was built from, as provenance() guesses it."""
    text = built_from["built_at"]
    if built_from["newer_sources"]:
        text += " (by commit date)"
    if built_from["uncommitted_in_build"]:
        text += " plus uncommitted changes"
    return text


def practice_bin():
    """The binary under test: $PRACTICE_BIN, else .build/release/practice (absolute)."""
    path = os.environ.get("PRACTICE_BIN") or os.path.join(REPO_DIR, ".build/release/practice")
    if not os.path.isabs(path):
        path = os.path.join(REPO_DIR, path)
    if not os.access(path, os.X_OK):
        sys.exit(f"bench: no practice binary at {path}; run `make release` or set PRACTICE_BIN")
    return path


def _have(command):
    if command.startswith("/"):
        return os.access(command, os.X_OK)
    return shutil.which(command) is not None


def _apt_install(packages):
    prefix = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = prefix + ["apt-get", "install", "-y", "-q"] + packages
    if subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL).returncode == 0:
        return
    # The package lists may be missing or stale on a fresh machine: update once, retry.
    subprocess.run(prefix + ["apt-get", "update", "-q"], env=env, stdout=subprocess.DEVNULL, check=True)
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True)


def ensure_tools(*commands, alsa_pulse_plugin=False):
    """Installs the Debian packages for the commands that `command -v` cannot find."""
    missing = sorted({PACKAGES[c] for c in commands if not _have(c)})
    if alsa_pulse_plugin and not any(
        os.path.exists(os.path.join(d, "alsa-lib/libasound_module_pcm_pulse.so"))
        for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib")
    ):
        missing.append("libasound2-plugins")
    if missing:
        log(f"bench: installing {' '.join(missing)}")
        _apt_install(missing)


def input_file(name, seconds, channels=2, rate=44100, bits=16, kind="pinknoise"):
    """bench/out/NAME: synthetic audio made with sox, reused if present."""
    os.makedirs(OUT_DIR, exist_ok=True)
    path = os.path.join(OUT_DIR, name)
    if os.path.exists(path):
        return path
    ensure_tools("sox")
    log(f"bench: generating {path} ({seconds} s, this may take a while)")
    partial = os.path.join(OUT_DIR, ".partial." + name)
    # Pink noise compresses about as badly as dense music does, so a FLAC of it is a
    # realistic size (~280 MB an hour) and a realistic decoding cost.
    subprocess.run(
        ["sox", "-n", "-r", str(rate), "-c", str(channels), "-b", str(bits), partial,
         "synth", str(seconds), kind, "vol", "0.3"],
        check=True)
    os.rename(partial, path)
    return path


def long_flac():
    """The 60-minute stereo 44.1 kHz 16-bit FLAC of issue 2."""
    return input_file("long-60min.flac", 3600)


def beats_wav():
    """The 35-minute mono 8 kHz 16-bit WAV of issue 3 (34 MB): room for 1,000 bars at 120 BPM."""
    return input_file("beats-35min-8k.wav", 2100, channels=1, rate=8000)


class TempDir:
    """A temporary directory under /tmp, removed on exit."""

    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="practice-bench-")
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


def practice(binary, *args, db, check=True, env=None, **kwargs):
    """Runs `practice SUBCOMMAND --db DB ARGS...`."""
    subcommand, rest = args[0], list(args[1:])
    cmd = [binary, subcommand, "--db", db] + rest
    return subprocess.run(cmd, check=check, env=env, **kwargs)


TRACE = re.compile(r"trace first-frame-ns (\d+) last-frame-ns (\d+) end-ns (\d+)")


def traced_play(binary, db, song, *args):
    """One `practice play --db DB SONG ARGS... --device null` with PRACTICE_TRACE=1:
    (ms from spawn to the first frame handed to ALSA, ms from spawn to exit, CPU ms (user +
    sys, wait4 rusage), stderr). The trace is CLOCK_MONOTONIC, the clock of
    time.monotonic_ns(), read just before spawning."""
    env = dict(os.environ, PRACTICE_TRACE="1")
    cmd = [binary, "play", "--db", db, song] + list(args) + ["--device", "null"]
    c = child(cmd, "bench", env)
    match = TRACE.search(c.stderr)
    if not match:
        sys.exit(f"bench: {' '.join(cmd)} printed no trace: {c.stderr.strip()}")
    return (int(match.group(1)) - c.started_ns) / 1e6, c.wall * 1000, c.cpu * 1000, c.stderr


class Child:
    """What one finished child process used: CPU (user + sys) and wall seconds, peak RSS
    (KiB), voluntary context switches, its stdout (when captured) and stderr, and
    time.monotonic_ns() just before it was spawned (CLOCK_MONOTONIC, as its traces)."""

    def __init__(self, cpu, wall, maxrss_kib, switches, stdout, stderr, started_ns):
        self.cpu, self.wall, self.maxrss_kib, self.switches = cpu, wall, maxrss_kib, switches
        self.stdout, self.stderr, self.started_ns = stdout, stderr, started_ns


def child(cmd, label, env=None, capture=False, allowed=(0,)):
    """Runs `cmd` to the end and measures it with wait4(); exits with `label` and its stderr
    if it fails (an exit code outside `allowed`, None: any; the code is Child.code). Output goes to temporary files, not pipes, so nothing can block; stdin is
    empty. An interrupt kills the child rather than leaving it playing."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started_ns = time.monotonic_ns()
        proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                                stdout=out if capture else subprocess.DEVNULL, stderr=err)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        wall = (time.monotonic_ns() - started_ns) / 1e9
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace") if capture else None
        stderr = err.read().decode(errors="replace")
    if allowed is not None and code not in allowed:
        sys.exit(f"{label}: {' '.join(cmd)} exited {code}: {stderr.strip()}")
    result = Child(usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss, usage.ru_nvcsw,
                   stdout, stderr, started_ns)
    result.code = code
    return result


def beats_detect(binary, wav, label, args=(), pin=False):
    """`practice add WAV` and `practice beats detect WAV ARGS` (timed, on core 0 when `pin`
    and taskset is there) with a fresh library, then the map as `beats export --format
    mirex`. Returns (the detect's Child, the mirex text, or None when it refused: exit 65)."""
    with TempDir() as tmp:
        env = dict(os.environ, PRACTICE_DB=os.path.join(tmp, "library.sqlite"))
        child([binary, "add", wav], label, env)
        prefix = ["taskset", "-c", "0"] if pin and shutil.which("taskset") else []
        c = child(prefix + [binary, "beats", "detect", wav, *args], label, env, allowed=(0, 65))
        if c.code == 65:
            return c, None
        mirex = child([binary, "beats", "export", wav, "--format", "mirex"], label, env,
                      capture=True).stdout
    return c, mirex


def fill_library(con, count, seed, beats, meter):
    """Adds `count` plausible songs at fake paths (about half with artist and album), each
    long enough for a map of `beats` beats, to the library `con` has open, and gives every
    song a map but the ones it already held: beats 0.5 s apart (22,050 frames) from an
    offset under 1 s, each moved by up to 200 frames, bars of `meter`, the source varying
    with the song. SQLite makes the beats itself (a Python loop over 5 M rows takes ~20 s)."""
    import random
    rng = random.Random(seed)
    held = [r[0] for r in con.execute("SELECT id FROM song")]
    rows = []
    for i in range(count):
        artist = f"Artist {i % 400:03d}" if i % 2 else None
        album = f"Album {i % 900:03d}" if i % 2 else None
        # Long enough for the beats at 120 BPM, which start within the first second.
        frames = rng.randrange(44100 * (beats // 2 + 10), 44100 * 600)
        stamp = f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T12:{i % 60:02d}:00Z"
        rows.append((
            f"/home/musician/Music/{artist or 'Unknown'}/{album or 'Singles'}/"
            f"{i:05d} Practice piece number {i}.flac",
            f"fnv1a64s:{rng.getrandbits(64):016x}", rng.randrange(5_000_000, 90_000_000),
            1_700_000_000.0 + i, frames, 44100, 2,
            "FLAC (Free Lossless Audio Codec), Signed 16 bit PCM", frames / 44100,
            f"Practice piece number {i} – étude", artist, album, stamp, stamp))
    con.executemany(
        "INSERT INTO song (path, content_hash, file_size, modified_at, frames, sample_rate,"
        " channels, format, duration, title, artist, album, added_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    con.execute(
        f"""WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n < {beats - 1})
        INSERT INTO beat (song_id, frame, bar, beat, source)
        SELECT s.id, (s.id * 7919) % 44100 + k.n * 22050 + (k.n * 7919 + s.id) % 200,
               k.n / {meter} + 1, k.n % {meter} + 1,
               CASE s.id % 3 WHEN 0 THEN 'imported' WHEN 1 THEN 'grid' ELSE 'detected' END
        FROM song AS s, k
        WHERE s.id NOT IN ({",".join(str(i) for i in held) or "NULL"})
        ORDER BY s.id, k.n""")


def median(values):
    return statistics.median(values)


def p90(values):
    """Nearest-rank 90th percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]


def row(metric, value, target="", passed=None):
    """One line of a result table; passed is True, False or None (informational)."""
    return {"metric": metric, "value": value, "target": target, "pass": passed}


def write_results(name, title, rows, notes=()):
    os.makedirs(RESULTS_DIR, exist_ok=True)
    data = {"name": name, "title": title, "rows": rows, "notes": list(notes),
            "written": time.strftime("%Y-%m-%d %H:%M:%S"), "binary": provenance()}
    with open(os.path.join(RESULTS_DIR, name + ".json"), "w") as f:
        json.dump(data, f, indent=2)
    for r in rows:
        verdict = {True: "PASS", False: "FAIL", None: ""}[r["pass"]]
        target = f" (target {r['target']})" if r["target"] else ""
        print(f"{name}: {r['metric']}: {r['value']}{target} {verdict}".rstrip(), flush=True)


def hyperfine(commands, runs, warmup, names=None, env=None):
    """Runs hyperfine without a shell (-N); returns its JSON results, one per command."""
    ensure_tools("hyperfine")
    fd, json_path = tempfile.mkstemp(suffix=".json", prefix="practice-bench-hf-")
    os.close(fd)
    cmd = ["hyperfine", "-N", "--style", "basic", "--runs", str(runs), "--warmup", str(warmup),
           "--export-json", json_path]
    for i, command in enumerate(commands):
        if names:
            cmd += ["--command-name", names[i]]
        cmd.append(command)
    try:
        subprocess.run(cmd, check=True, env=env, stdout=sys.stderr)
        with open(json_path) as f:
            return json.load(f)["results"]
    finally:
        os.unlink(json_path)


SOUND_SERVER = os.path.join(REPO_DIR, "scripts", "sound-server.sh")


def start_sound_server(directory):
    """Starts the private PulseAudio server in `directory`; the environment to reach it."""
    out = subprocess.run([SOUND_SERVER, "start", directory], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    env = dict(os.environ)
    for name, value in re.findall(r"^export (\w+)=(.*)$", out, re.M):
        env[name] = value
    if "PULSE_SERVER" not in env:
        sys.exit(f"bench: sound-server.sh printed no PULSE_SERVER: {out!r}")
    return env


def stop_sound_server(directory):
    subprocess.run([SOUND_SERVER, "stop", directory], check=False, stdout=subprocess.DEVNULL)
