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
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
OUT_DIR = os.path.join(BENCH_DIR, "out")
RESULTS_DIR = os.path.join(OUT_DIR, "results")

# command -> Debian package that provides it
PACKAGES = {
    "sox": "sox",
    "hyperfine": "hyperfine",
    "/usr/bin/time": "time",
    "aplay": "alsa-utils",
    "pulseaudio": "pulseaudio",
    "pactl": "pulseaudio-utils",
    "pacat": "pulseaudio-utils",
}


def log(message):
    print(message, file=sys.stderr, flush=True)


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
            "written": time.strftime("%Y-%m-%d %H:%M:%S")}
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
