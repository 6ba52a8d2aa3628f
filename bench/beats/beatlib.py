"""What the beat measurements in bench/beats share, over bench/benchlib.py: where things are
(bench/out, the set, the corpus and its fixed halves, the venvs), how one script runs
another (`tool`: through bench/beats/run; `model`: through models/run, for the generators;
never a script by its path) and a child's exit code and times (benchlib.child, wait4()).
Run through bench/beats/run, which puts the repository on PYTHONPATH."""

import os

from bench import benchlib
from models.lib import paths
from models.lib.paths import SPLIT_FILE, half_names, read_split  # noqa: F401 (shared)

REPO = benchlib.REPO_DIR
OUT = benchlib.OUT_DIR
VENV_PY = paths.VENV_PY
MADMOM_PY = os.path.join(OUT, "madmom-venv", "bin", "python")
SET = paths.SET
CORPUS = paths.CORPUS
PRACTICE = os.path.join(REPO, ".build", "release", "practice")
tool = benchlib.beats_tool    # bench/beats/run NAME ARGS...
model = benchlib.models_tool  # models/run NAME ARGS...


def run_timed(cmd, env):
    """(exit code, wall s, CPU s, peak RSS KiB, stdout, stderr) of cmd, whatever its exit
    code: benchlib.child, measured with wait4()."""
    c = benchlib.child(cmd, "", env=env, capture=True, allowed=None)
    return c.code, c.wall, c.cpu, c.maxrss_kib, c.stdout, c.stderr
