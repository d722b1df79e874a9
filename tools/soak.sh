#!/bin/sh
# tools/soak.sh [BUILD]: the long soak run (kept out of CI; the suite runs
# 5 s per layout as hang-soak).
#  1. tests/hang/soak.sh for SECONDS (default 150) per layout: 8 ranks
#     pinned to one core, 4 and 2 ranks on two cores, one rank stopped and
#     continued again and again; every result checked (aim: >= 10^6 calls
#     in all).
#  2. the slowdown against native where it is worst, one core: the same
#     sequence of calls (same seed, no stopping), collsel's methods and the
#     MPI library's own alternating, PAIRS (default 5) pairs at 8 ranks
#     and at 2 ranks on core 0; the ratio per pair, its median and range.
#   env: SECONDS_PER_LAYOUT (0: step 2 only), PAIRS, CALLS (per compared run, default
#   20000), FLAVOUR (openmpi; mpich: 2 ranks only), OUT (default out-soak)
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-$top/build}
flavour=${FLAVOUR:-openmpi} out=${OUT:-$top/out-soak} pairs=${PAIRS:-5} calls=${CALLS:-20000}
mkdir -p "$out"
start=$(date +%s)
if [ "${SECONDS_PER_LAYOUT:-150}" != 0 ]; then
    echo "== 1. soak, ${SECONDS_PER_LAYOUT:-150} s per layout ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
    "$top/tests/hang/soak.sh" "$top/tests/mpiexec.sh" "$flavour" "$b/tests/hang/soak" "$out" \
        "${SECONDS_PER_LAYOUT:-150}" || { echo "soak FAILED (logs in $out)"; exit 1; }
fi

echo "== 2. slowdown against native on one core ($pairs pairs of $calls calls, alternating)"
for np in $( [ "$flavour" = mpich ] && echo 2 || echo "8 2" ); do
    ratios=
    for i in $(seq "$pairs"); do
        for mode in shm native; do
            "$top/tests/mpiexec.sh" "$flavour" "$np" taskset -c 0 "$b/tests/hang/soak" --calls "$calls" \
                --seed $((1000 + i)) --progress 0 $( [ $mode = native ] && echo --native ) \
                > "$out/cmp-$np-$mode-$i.log" 2>&1 || { cat "$out/cmp-$np-$mode-$i.log"; exit 1; }
            eval "us_$mode=\$(awk '/^soak/ { for (k = 1; k <= NF; k++) if (\$(k + 1) == \"us\") print \$k }' \"$out/cmp-$np-$mode-$i.log\")"
        done
        r=$(awk -v a="$us_shm" -v b="$us_native" 'BEGIN { printf "%.3f", a / b }')
        echo "  $np ranks on core 0, pair $i: collsel $us_shm us, native $us_native us per call, ratio $r"
        ratios="$ratios $r"
    done
    echo "$ratios" | tr ' ' '\n' | grep . | sort -n | awk -v np="$np" '
        { r[NR] = $1 } END { m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
          printf "%d ranks on one core: collsel / native per call: median %.3f, range %.3f-%.3f (%d pairs)\n", np, m, r[1], r[NR], NR }'
done
echo "tools/soak.sh: $(($(date +%s) - start)) s (the machine's load at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
