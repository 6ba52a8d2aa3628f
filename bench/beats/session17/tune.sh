#!/bin/bash
# BIN=practice tune.sh LABEL ENV...: detect the corpus's tuning halves (clean, delivered d13) with ENV, score against u-det/base
set -e
cd "$(dirname "$0")/../../.."
L=$1; shift
B=${BIN:-bench/out/practice-dbk}
O=bench/out/l17/det/$L
mkdir -p $O
envs=(); for e in "$@"; do envs+=(--env "$e"); done
bench/beats/run detect-dir $B bench/out/beats-corpus/.clean $O/tune-clean --half tune ${envs[@]} --jobs 2 >/dev/null 2>&1
bench/beats/run detect-dir $B bench/out/t-corpus-tune-d13 $O/tune-d13 --half tune ${envs[@]} --jobs 2 >/dev/null 2>&1
bench/beats/run score bench/out/beats-corpus/.clean base=bench/out/u-det/base/tune-clean new=$O/tune-clean --split tune --json bench/out/l17/$L-clean.json > bench/out/l17/$L-clean.txt
bench/beats/run score bench/out/t-corpus-tune-d13 base=bench/out/u-det/base/tune-d13 new=$O/tune-d13 --split tune --json bench/out/l17/$L-d13.json > bench/out/l17/$L-d13.txt
python3 - $L <<'PY'
import json,sys
L=sys.argv[1]
for k in ("clean","d13"):
    d=json.load(open(f"bench/out/l17/{L}-{k}.json")); h=next(iter(d)); d=d[h]
    b=d["base"]["means"]["all"]; n=d["new"]["means"]["all"]
    print(f"{L} {k}: {b['beat_f']:.3f}/{b['downbeat_f']:.3f} -> {n['beat_f']:.3f}/{n['downbeat_f']:.3f}")
PY
