#!/usr/bin/env bash
# The development corpus end to end (bench/beats/corpus.py): builds bench/out/beats-corpus/
# when missing, runs `PRACTICE_BIN beats detect` on every piece and the baselines (madmom,
# librosa, aubio) on the same pieces, and prints the test half's table with all four side
# by side and the tuning half's means.
#   bench/beats/corpus.sh PRACTICE_BIN [--pieces N] [--force] [--no-baselines] [--no-setup]
set -euo pipefail
cd "$(dirname "$0")/../.."
exec bench/beats/run corpus "$@"
