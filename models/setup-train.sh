#!/usr/bin/env bash
# The venv models/train_network.py runs in (`models/run setup-train` makes it,
# `models/run train-network` uses it): bench/out/train-venv (git-ignored) with PyTorch's
# CPU-only wheel and numpy. Idempotent; prints nothing when it is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=bench/out/train-venv
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c 'import torch, numpy' 2>/dev/null \
  || "$VENV/bin/pip" install -q "torch==2.13.0+cpu" numpy
