#!/usr/bin/env bash
# `make demo`: imports the beat map of fixtures/demo.wav, draws the song with bars 1-4 as a
# selection, and plays bars 1-4 twice after a one-bar count-in. With a sound card it plays through
# ALSA's default device; without one it starts the private test sound server, plays
# into it, records what arrived, and says so.
set -euo pipefail
bin=${1:?usage: demo.sh PATH-TO-PRACTICE}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'scripts/sound-server.sh stop "$work/sound" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
export PRACTICE_DB="$work/library.sqlite"

has_card() { [ -e /proc/asound/cards ] && ! grep -q 'no soundcards' /proc/asound/cards; }

"$bin" beats import fixtures/demo.wav fixtures/demo.beats
"$bin" beats show fixtures/demo.wav
"$bin" select add fixtures/demo.wav intro --bars 1-4
"$bin" view fixtures/demo.wav --width 72

if has_card && [ -z "${PRACTICE_DEMO_PRIVATE:-}" ]; then
  echo "demo: playing through the sound card (ALSA 'default')" >&2
  "$bin" play fixtures/demo.wav --bars 1-4 --count-in 1 --repeat 2
  exit 0
fi

echo "demo: no sound card here; starting a private PulseAudio null sink to play into" >&2
eval "$(scripts/sound-server.sh start "$work/sound")"
parecord -d practice_null.monitor --raw --format=s16le --rate=44100 --channels=2 \
  "$work/heard.raw" &
recorder=$!
sleep 0.2
start=$(date +%s.%N)
"$bin" play fixtures/demo.wav --bars 1-4 --count-in 1 --repeat 2 --device pulse
end=$(date +%s.%N)
sleep 0.3
kill "$recorder" 2>/dev/null || true
wait "$recorder" 2>/dev/null || true
python3 - "$work/heard.raw" "$start" "$end" <<'PY'
import math, struct, sys
data = open(sys.argv[1], 'rb').read()
samples = struct.unpack('<%dh' % (len(data) // 2), data[: len(data) // 2 * 2])
loud = [i for i, s in enumerate(samples) if abs(s) > 64]
heard = (loud[-1] - loud[0]) / 2 / 44100 if loud else 0.0
peak = max((abs(s) for s in samples), default=0)
db = 20 * math.log10(peak / 32768) if peak else float('-inf')
wall = float(sys.argv[3]) - float(sys.argv[2])
print(f"demo: the null sink heard {heard:.1f} s of audio (peak {db:.1f} dBFS); "
      f"play took {wall:.1f} s of wall time for a 2 s count-in and 2 x 8 s", file=sys.stderr)
PY
