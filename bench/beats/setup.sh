#!/usr/bin/env bash
# Installs what the beat-tracking evaluation needs, only what is missing (idempotent):
#   apt:  fluidsynth, fluid-soundfont-gm (FluidR3_GM.sf2), aubio-tools (`aubio beat`),
#         gcc and python3-dev when missing (to build madmom); for the corpus
#         (models/run corpus): musescore-general-soundfont (MuseScore_General.sf2/.sf3),
#         timgm6mb-soundfont (TimGM6mb.sf2) and ffmpeg (the MP3 round trip, 48 kHz);
#         timidity and freepats (models/run timidity: the corpus by another synthesizer)
#   venv: bench/out/venv (git-ignored) with pinned mir_eval, mido, numpy, scipy,
#         soundfile (models/run copies, edges, clicks read and write WAVs with it), and
#         librosa if it installs (optional: the harness reports it as missing otherwise).
#   venv: bench/out/madmom-venv with madmom 0.16.1, built from its source package
#         (optional, as librosa).
# Later scripts run with bench/out/venv/bin/python. Safe to rerun; prints nothing when
# everything is already there (except a one-line summary).
set -euo pipefail
cd "$(dirname "$0")/../.."

VENV=bench/out/venv
PY="$VENV/bin/python"
SF2=/usr/share/sounds/sf2/FluidR3_GM.sf2
sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive

# --- apt packages ------------------------------------------------------------------
missing=()
command -v fluidsynth >/dev/null 2>&1 || missing+=(fluidsynth)
{ [ -f "$SF2" ] || dpkg -s fluid-soundfont-gm >/dev/null 2>&1; } || missing+=(fluid-soundfont-gm)
command -v aubio >/dev/null 2>&1 || missing+=(aubio-tools)
# the corpus's other soundfonts, and ffmpeg for its MP3 round trip and 48 kHz copies
dpkg -s musescore-general-soundfont >/dev/null 2>&1 || missing+=(musescore-general-soundfont)
dpkg -s timgm6mb-soundfont >/dev/null 2>&1 || missing+=(timgm6mb-soundfont)
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
# another synthesizer and other samples for the corpus's MIDI (models/run timidity)
command -v timidity >/dev/null 2>&1 || missing+=(timidity)
[ -d /usr/share/midi/freepats ] || missing+=(freepats)
# other samples for the network's training corpora only (models/run corpus --fonts)
dpkg -s csound-soundfont >/dev/null 2>&1 || missing+=(csound-soundfont)
dpkg -s opl3-soundfont >/dev/null 2>&1 || missing+=(opl3-soundfont)
# python3 -m venv needs python3-venv on Debian (ensurepip)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  missing+=(python3-venv)
fi
# building madmom (below) needs a C compiler and Python's headers
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import os, sysconfig; assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' >/dev/null 2>&1; then
  missing+=(python3-dev)
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "beats/setup: apt-get install ${missing[*]}" >&2
  if ! $sudo apt-get install -y -q "${missing[@]}" >/dev/null; then
    # package lists missing or stale on a fresh machine: update once, retry
    $sudo apt-get update -q >/dev/null
    $sudo apt-get install -y -q "${missing[@]}" >/dev/null
  fi
fi
[ -f "$SF2" ] || { echo "beats/setup: no soundfont at $SF2 after installing fluid-soundfont-gm" >&2; exit 1; }

# --- Python venv ---------------------------------------------------------------------
# Pinned: the scores must not move because a dependency did.
REQUIRED=(mir_eval==0.8.2 mido==1.3.3 numpy==2.2.6 scipy==1.15.3 soundfile==0.14.0)
# librosa 1.0.0 does not exist on PyPI (newest: 0.11.0), so 0.11.0 is the pin.
OPTIONAL=(librosa==0.11.0)
if [ ! -x "$PY" ]; then
  echo "beats/setup: creating $VENV" >&2
  python3 -m venv "$VENV"
  "$PY" -m pip install -q --upgrade pip >/dev/null 2>&1 || true
fi
need=()
for spec in "${REQUIRED[@]}"; do
  name=${spec%%==*}; want=${spec##*==}
  have=$("$PY" -c "import importlib.metadata as m; print(m.version('$name'))" 2>/dev/null || true)
  [ "$have" = "$want" ] || need+=("$spec")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "beats/setup: pip install ${need[*]}" >&2
  "$PY" -m pip install -q "${need[@]}"
fi
# librosa's beat tracker runs through numba: numba 0.68.1 with llvmlite 0.50.0 (what pip
# picks on its own in 2026-11) crashes the process (SIGSEGV in a gufunc) on every piece;
# 0.61.2 with 0.44.0 runs it. Installed with librosa, checked with it.
OPTIONAL_PINS=(numba==0.61.2 llvmlite==0.44.0)
for spec in "${OPTIONAL[@]}"; do
  name=${spec%%==*}
  stale=""
  for pin in "$spec" "${OPTIONAL_PINS[@]}"; do
    pin_name=${pin%%==*}; want=${pin##*==}
    have=$("$PY" -c "import importlib.metadata as m; print(m.version('$pin_name'))" 2>/dev/null || true)
    [ "$have" = "$want" ] || stale=1
  done
  if [ -n "$stale" ] && [ ! -f "$VENV/.no-$name" ]; then
    echo "beats/setup: pip install $spec ${OPTIONAL_PINS[*]} (optional)" >&2
    if ! "$PY" -m pip install -q "$spec" "${OPTIONAL_PINS[@]}" "${REQUIRED[@]}"; then
      echo "beats/setup: $spec did not install; the harness carries on without it" >&2
      touch "$VENV/.no-$name"   # do not retry on every run; delete the file to retry
    fi
  fi
done
# --- madmom (optional): the neural downbeat tracker, the peer for downbeats -------------
# In a venv of its own: madmom 0.16.1 (the newest on PyPI, 2018) needs numpy < 1.24 and
# Cython < 3, and its source package must be mended to build on Python 3.11: the C files
# it ships were generated by an old Cython (they include longintrepr.h, gone in 3.11), so
# they are deleted and generated again, and one import moved to collections.abc.
MM_VENV=bench/out/madmom-venv
MM_PY="$MM_VENV/bin/python"
MM_REQUIRED=(numpy==1.23.5 scipy==1.15.3 Cython==0.29.37 mido==1.3.3 wheel==0.45.1 setuptools==80.9.0)
build_madmom() {
  local src=bench/out/madmom-src/madmom-0.16.1 f
  rm -rf "$MM_VENV" bench/out/madmom-src &&
    python3 -m venv "$MM_VENV" &&
    "$MM_PY" -m pip install -q "${MM_REQUIRED[@]}" &&
    "$MM_PY" -m pip download -q --no-deps --no-binary :all: --no-build-isolation \
      -d bench/out/madmom-src madmom==0.16.1 &&
    tar -xzf bench/out/madmom-src/madmom-0.16.1.tar.gz -C bench/out/madmom-src || return 1
  for f in $(find "$src/madmom" -name '*.c'); do
    if [ -e "${f%.c}.pyx" ] || [ -e "${f%.c}.py" ]; then rm "$f"; fi
  done
  sed -i 's/^from collections import MutableSequence/from collections.abc import MutableSequence/' \
    "$src/madmom/processors.py" &&
    "$MM_PY" -m pip install -q --no-build-isolation "$src" &&
    "$MM_PY" -W ignore -c 'import madmom' &&
    rm -rf bench/out/madmom-src
}
if ! "$MM_PY" -W ignore -c 'import madmom' >/dev/null 2>&1 && [ ! -f bench/out/.no-madmom ]; then
  echo "beats/setup: building madmom 0.16.1 in $MM_VENV (optional, a few minutes)" >&2
  if ! build_madmom >&2; then
    echo "beats/setup: madmom did not build; the harness carries on without it" >&2
    touch bench/out/.no-madmom   # do not retry on every run; delete the file to retry
  fi
fi

echo "beats/setup: ok ($("$PY" -c 'import mir_eval, mido, numpy, scipy, soundfile; print("mir_eval", mir_eval.__version__, "numpy", numpy.__version__, "scipy", scipy.__version__)')" \
     "$("$PY" -c 'import librosa; print("librosa", librosa.__version__)' 2>/dev/null || echo 'no librosa')," \
     "$("$MM_PY" -W ignore -c 'import madmom; print("madmom", madmom.__version__)' 2>/dev/null || echo 'no madmom')," \
     "fluidsynth $(fluidsynth --version 2>/dev/null | head -1 | awk '{print $NF}'), aubio $(aubio --version 2>&1 | head -1 | awk '{print $NF}'))" >&2
