#!/usr/bin/env bash
# Runs the benchmarks of issues 2 to 6 and rewrites bench/RESULTS.md.
#
#   bench/run-all.sh              every benchmark (`make bench` builds the binary first)
#   bench/run-all.sh rss list-10k only those; RESULTS.md keeps the others' last figures
#
# The binary is $PRACTICE_BIN (default .build/release/practice). Generated inputs go in
# bench/out/ (git-ignored) and are reused; logs in bench/out/logs/. Missing tools (sox,
# hyperfine, pulseaudio, alsa-utils, ...) are installed with apt-get. Takes ~35 minutes (the stretch benchmarks and the 10-minute soak;
# BENCH_STRETCH_ROUNDS, BENCH_CPU_STRETCH_ROUNDS and BENCH_SOAK_MINUTES shorten them),
# plus ~1 minute the first time to generate the 60-minute FLAC.
# Exit status: 0 when every benchmark ran (missed targets are reported, not failed),
# 1 when one could not run.
set -uo pipefail
cd "$(dirname "$0")/.."

PRACTICE_BIN=${PRACTICE_BIN:-.build/release/practice}
case "$PRACTICE_BIN" in /*) ;; *) PRACTICE_BIN="$PWD/$PRACTICE_BIN" ;; esac
export PRACTICE_BIN PYTHONDONTWRITEBYTECODE=1
unset PRACTICE_DB PRACTICE_DEVICE PRACTICE_TRACE
if [ ! -x "$PRACTICE_BIN" ]; then
  echo "bench: no practice binary at $PRACTICE_BIN; run \`make release\` or set PRACTICE_BIN" >&2
  exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get install -y python3 || { $sudo apt-get update && $sudo apt-get install -y python3; }
fi

all=(start-latency rss cpu-play render-throughput list-10k beats-1000 bars-10k stretch-throughput cpu-stretch block-times key-latency beat-detect beat-offset beat-corpus beat-heldout beat-real tuner cpu-filters decode-formats add-1000 view-60min sharing-10k repo chords chords-heldout chords-rates)
if [ $# -gt 0 ]; then names=("$@"); else names=("${all[@]}"); fi
# BENCH_RESULTS_DIR: results and logs elsewhere (report.py reads it too), not the shared bench/out/results
results=${BENCH_RESULTS_DIR:-bench/out/results}
logs=${BENCH_RESULTS_DIR:+$BENCH_RESULTS_DIR/logs}
logs=${logs:-bench/out/logs}
mkdir -p "$results" "$logs"
[ $# -gt 0 ] || rm -f "$results"/*.json "$results"/*.status

failed=0
for name in "${names[@]}"; do
  script=bench/$name.py
  [ -f "$script" ] || { echo "bench: no benchmark '$name' (have: ${all[*]})" >&2; exit 64; }
  rm -f "$results/$name.json" "$results/$name.status"
  echo "== $name" >&2
  start=$(date +%s)
  python3 "$script" 2>&1 | tee "$logs/$name.log"
  rc=${PIPESTATUS[0]}
  echo "$rc $(($(date +%s) - start))" >"$results/$name.status"
  if [ "$rc" -ne 0 ]; then
    echo "bench: $name failed (exit $rc); see $logs/$name.log" >&2
    failed=1
  fi
done

python3 bench/report.py >bench/RESULTS.md.partial && mv bench/RESULTS.md.partial bench/RESULTS.md
echo "bench: wrote bench/RESULTS.md" >&2
grep -E '\*\*(FAIL|ERROR)\*\*' bench/RESULTS.md >&2 || true
exit "$failed"
