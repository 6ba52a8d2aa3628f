#!/bin/bash
# BIN=practice compare.sh LABEL [tune|test]: detect the corpus's halves (clean, delivered d13)
# and, for test, the second generator's set (dry, delivered) with BIN, and score them against
# session 17's maps of the same pieces (bench/out/l17/det/sdfix for the tuning halves,
# l17/det/default for the rest: the shipped detector of 7471cef, whose maps the sd fix left
# as they were on the corpus).
set -e
cd "$(dirname "$0")/../../.."
L=$1; H=${2:-tune}
B=${BIN:?BIN=path to a release practice}
O=bench/out/l18/det/$L
R=bench/out/l18
mkdir -p $O
run() { bench/beats/run detect-dir $B "$1" "$2" "${@:3}" --jobs 2 >/dev/null 2>&1; }
run bench/out/beats-corpus/.clean $O/$H-clean --half $H
run bench/out/t-corpus-$H-d13 $O/$H-d13 --half $H
base=bench/out/l17/det/sdfix; [ "$H" = test ] && base=bench/out/l17/det/default
bench/beats/run score bench/out/beats-corpus/.clean base=$base/$H-clean new=$O/$H-clean --split $H --json $R/$L-$H-clean.json >/dev/null
bench/beats/run score bench/out/t-corpus-$H-d13 base=$base/$H-d13 new=$O/$H-d13 --split $H --json $R/$L-$H-d13.json >/dev/null
sets="$H-clean $H-d13"
if [ "$H" = test ]; then
  for k in dry delivered; do
    run bench/out/g-heldout/$k $O/held-$k
    bench/beats/run score bench/out/g-heldout/$k base=bench/out/l17/det/default/held-$k new=$O/held-$k --json $R/$L-held-$k.json >/dev/null
    sets="$sets held-$k"
  done
fi
python3 - $R $L $sets <<'PY'
import json, sys
R, L, sets = sys.argv[1], sys.argv[2], sys.argv[3:]
for k in sets:
    d = json.load(open(f"{R}/{L}-{k}.json")); d = d[next(iter(d))]
    b, n = d["base"], d["new"]
    print(f"{L} {k}: {b['means']['all']['beat_f']:.3f}/{b['means']['all']['downbeat_f']:.3f} -> "
          f"{n['means']['all']['beat_f']:.3f}/{n['means']['all']['downbeat_f']:.3f}")
    for p, q in n["pieces"].items():
        o = b["pieces"].get(p)
        if o and (abs(o["beat_f"] - q["beat_f"]) > 0.005 or abs(o["downbeat_f"] - q["downbeat_f"]) > 0.005):
            print(f"   {p}: {o['beat_f']:.3f}/{o['downbeat_f']:.3f} -> {q['beat_f']:.3f}/{q['downbeat_f']:.3f}")
PY
