#!/usr/bin/env bash
# A private PulseAudio server with a null sink, for machines without a sound card and
# for the real-time tests. It lives in its own runtime directory and socket, so it never
# touches a user's own server.
#
#   scripts/sound-server.sh start DIR   start it; prints `export PULSE_SERVER=...` lines
#   scripts/sound-server.sh stop DIR    stop it
#
# The sink is `practice_null` (44.1 kHz stereo); record what was played from its monitor:
#   PULSE_SERVER=unix:DIR/native parecord -d practice_null.monitor --raw out.raw
# ALSA clients reach it through the `pulse` PCM (libasound2-plugins).
set -euo pipefail
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 64; }

case "$cmd" in
start)
  # The daemons must not inherit descriptors of whoever started us (a test runner's
  # pipes would then never see end-of-file), so close everything above stderr.
  for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  rm -f "$dir/native"
  env -u PULSE_SERVER HOME="$dir" XDG_RUNTIME_DIR="$dir" XDG_CONFIG_HOME="$dir" \
    PULSE_RUNTIME_PATH="$dir" PULSE_STATE_PATH="$dir" \
    pulseaudio -n --daemonize=no --exit-idle-time=-1 --use-pid-file=no --system=no \
      --disable-shm=yes --log-target=file:"$dir/server.log" \
      --load="module-native-protocol-unix socket=$dir/native auth-anonymous=1" \
      --load="module-null-sink sink_name=practice_null rate=44100 channels=2 norewinds=1" \
      </dev/null >/dev/null 2>&1 &
  echo $! >"$dir/server.pid"
  for _ in $(seq 1 100); do
    if [ -S "$dir/native" ] && PULSE_SERVER="unix:$dir/native" pactl info >/dev/null 2>&1; then
      # With no stream asking for low latency, the null sink renders up to 2 s ahead, so
      # a new stream would be heard that late. A permanent silent stream with 20 ms
      # latency keeps it rendering just in time; adding zeros leaves the mix unchanged.
      PULSE_SERVER="unix:$dir/native" pacat --playback --raw --format=s16le --rate=44100 \
        --channels=2 --latency-msec=20 --device=practice_null --client-name=practice-keeper \
        </dev/zero >/dev/null 2>&1 &
      echo $! >"$dir/keeper.pid"
      for _ in $(seq 1 100); do
        PULSE_SERVER="unix:$dir/native" pactl list short sink-inputs 2>/dev/null | grep -q . && break
        sleep 0.05
      done
      # What the sink rendered ahead before the keeper joined must play out first.
      sleep 2.1
      echo "export PULSE_SERVER=unix:$dir/native"
      echo "export PULSE_SINK=practice_null"
      exit 0
    fi
    if ! kill -0 "$(cat "$dir/server.pid")" 2>/dev/null; then break; fi
    sleep 0.05
  done
  echo "sound-server: pulseaudio did not start; see $dir/server.log" >&2
  tail -n 5 "$dir/server.log" >&2 || true
  exit 69
  ;;
stop)
  if [ -f "$dir/keeper.pid" ]; then kill "$(cat "$dir/keeper.pid")" 2>/dev/null || true; rm -f "$dir/keeper.pid"; fi
  if [ -f "$dir/server.pid" ]; then
    pid=$(cat "$dir/server.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/server.pid" "$dir/native"
  fi
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2; exit 64 ;;
esac
