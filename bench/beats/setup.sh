#!/usr/bin/env bash
# Installs what the beat-tracking evaluation needs, only what is missing (idempotent):
#   apt:  fluidsynth, fluid-soundfont-gm (FluidR3_GM.sf2), aubio-tools (`aubio beat`)
#   venv: bench/out/venv (git-ignored) with pinned mir_eval, mido, numpy, scipy,
#         soundfile (noisy.py, edges.py, clicks.py read and write WAVs with it), and
#         librosa if it installs (optional: the harness reports it as missing otherwise).
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
# python3 -m venv needs python3-venv on Debian (ensurepip)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  missing+=(python3-venv)
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
for spec in "${OPTIONAL[@]}"; do
  name=${spec%%==*}; want=${spec##*==}
  have=$("$PY" -c "import importlib.metadata as m; print(m.version('$name'))" 2>/dev/null || true)
  if [ "$have" != "$want" ] && [ ! -f "$VENV/.no-$name" ]; then
    echo "beats/setup: pip install $spec (optional)" >&2
    if ! "$PY" -m pip install -q "$spec" "${REQUIRED[@]}"; then
      echo "beats/setup: $spec did not install; the harness carries on without it" >&2
      touch "$VENV/.no-$name"   # do not retry on every run; delete the file to retry
    fi
  fi
done
echo "beats/setup: ok ($("$PY" -c 'import mir_eval, mido, numpy, scipy, soundfile; print("mir_eval", mir_eval.__version__, "numpy", numpy.__version__, "scipy", scipy.__version__)')" \
     "$("$PY" -c 'import librosa; print("librosa", librosa.__version__)' 2>/dev/null || echo 'no librosa')," \
     "fluidsynth $(fluidsynth --version 2>/dev/null | head -1 | awk '{print $NF}'), aubio $(aubio --version 2>&1 | head -1 | awk '{print $NF}'))" >&2
