#!/bin/bash
# BIN=practice test.sh LABEL ENV...: the held-out halves: corpus test half clean/d13 (against u-det/base), the second generator's set dry/delivered (against l17/det/default)
cd "$(dirname "$0")/../../.."
L=$1; shift
B=${BIN:-bench/out/practice-dbk}
O=bench/out/l17/det/$L
mkdir -p $O
envs=(); for e in "$@"; do envs+=(--env "$e"); done
bench/beats/run detect-dir $B bench/out/beats-corpus/.clean $O/test-clean --half test ${envs[@]} --jobs 2 >/dev/null 2>&1
bench/beats/run detect-dir $B bench/out/t-corpus-test-d13 $O/test-d13 --half test ${envs[@]} --jobs 2 >/dev/null 2>&1
for k in dry delivered; do bench/beats/run detect-dir $B bench/out/g-heldout/$k $O/held-$k ${envs[@]} --jobs 2 >/dev/null 2>&1; done
[ "$L" = default ] && exit 0
bench/beats/run score bench/out/beats-corpus/.clean base=bench/out/u-det/base/test-clean new=$O/test-clean --split test --json bench/out/l17/$L-test-clean.json > /dev/null
bench/beats/run score bench/out/t-corpus-test-d13 base=bench/out/u-det/base/test-d13 new=$O/test-d13 --split test --json bench/out/l17/$L-test-d13.json > /dev/null
for k in dry delivered; do bench/beats/run score bench/out/g-heldout/$k base=bench/out/l17/det/default/held-$k new=$O/held-$k --json bench/out/l17/$L-held-$k.json > /dev/null; done
python3 - $L <<'PY'
import json,sys
L=sys.argv[1]
for k in ("test-clean","test-d13","held-dry","held-delivered"):
    d=json.load(open(f"bench/out/l17/{L}-{k}.json")); h=next(iter(d)); d=d[h]
    b=d["base"]["means"]["all"]; n=d["new"]["means"]["all"]
    print(f"{L} {k}: {b['beat_f']:.3f}/{b['downbeat_f']:.3f} -> {n['beat_f']:.3f}/{n['downbeat_f']:.3f}")
PY
