#!/usr/bin/env bash
# Installs the system packages `practice` needs, only those that are missing.
# Libraries are checked with pkg-config, programs with `command -v`; apt runs only
# when something is missing, so running this again is cheap and changes nothing.
set -euo pipefail

need_pkgs=()

# Build dependencies: pkg-config module -> Debian package.
declare -A libs=(
  [sndfile]=libsndfile1-dev
  [libmpg123]=libmpg123-dev
  [alsa]=libasound2-dev
  [rubberband]=librubberband-dev
  [aubio]=libaubio-dev
  [libavformat]=libavformat-dev
  [libavcodec]=libavcodec-dev
  [libavutil]=libavutil-dev
  [libswresample]=libswresample-dev
  [cairo]=libcairo2-dev
  [libcurl]=libcurl4-openssl-dev
)
command -v pkg-config >/dev/null 2>&1 || need_pkgs+=(pkg-config)
for mod in "${!libs[@]}"; do
  if ! pkg-config --exists "$mod" 2>/dev/null; then need_pkgs+=("${libs[$mod]}"); fi
done

# Run-time and test dependencies: the private test sound server and ALSA's pulse PCM.
command -v pulseaudio >/dev/null 2>&1 || need_pkgs+=(pulseaudio)
command -v parecord >/dev/null 2>&1 || need_pkgs+=(pulseaudio-utils)
command -v tmux >/dev/null 2>&1 || need_pkgs+=(tmux)
command -v aplay >/dev/null 2>&1 || need_pkgs+=(alsa-utils)
if ! ls /usr/lib/*/alsa-lib/libasound_module_pcm_pulse.so >/dev/null 2>&1; then
  need_pkgs+=(libasound2-plugins)
fi
# python3 also serves the repository tests' web server (scripts/repo-server.py).
command -v python3 >/dev/null 2>&1 || need_pkgs+=(python3)
# The tests make their M4A, WebM and video files with the ffmpeg command.
command -v ffmpeg >/dev/null 2>&1 || need_pkgs+=(ffmpeg)
# The tests read the PDFs `view -o` and `stats -o` write back with pdftotext.
command -v pdftotext >/dev/null 2>&1 || need_pkgs+=(poppler-utils)
# the repository tests make a self-signed certificate with it (TLS must be verified)
command -v openssl >/dev/null 2>&1 || need_pkgs+=(openssl)
# The install test reads the man page back with man (and groff, which man-db brings).
command -v man >/dev/null 2>&1 || need_pkgs+=(man-db)

if [ "${#need_pkgs[@]}" -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${need_pkgs[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "install-deps: need root (or sudo) to install: ${need_pkgs[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists once if they are missing or older than a day.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages' -mmin -1440 2>/dev/null | head -n 1)" ]; then
  $sudo apt-get update -qq
fi
$sudo apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >&2
