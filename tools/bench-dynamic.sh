#!/bin/sh
# bench-dynamic.sh [-r REPEATS] [-c CALLS] [-n "2 4"] [-s SIZES] [-p "none one-late:20us@1"]
#                  [-F] [-b BUILD] [-o DIR]
#
# The dynamic reductions (reduce/allreduce.shm.dynamic) against native and
# the fixed-order shared-memory methods (shm.direct, shm.ag, shm.tree.kN,
# and for the allreduce the reduce then bcast through shared memory,
# allreduce.reduce_bcast.shm_*) under arrival patterns, with
# collsel-bench --arrivals --interleave CALLS
# (default 200: the methods one call each in turn; completion = last exit
# - last arrival, span = last exit - first arrival) and the flag round trip
# between two ranks of the same run (the floor).  Floating-point sums may
# be reordered (--reorder-fp), as with COLLSEL_REORDER_FP=1 (-F: not; the
# dynamic methods then keep their fixed order).  Every
# (ranks, pattern) pair is run REPEATS times (default 3) and summarised per
# point: over the runs, the median (range) of the dynamic method's median
# completion, of the best fixed-order method's, of their ratio, of the
# same ratio on the 10th percentiles, and the dynamic median in floor round
# trips and in data floors (from 1 KiB: the point's bytes crossing the
# cores once, collsel-bench's "data floor").  Not part of the test suite
# (minutes; a shared machine makes the
# figures noise: look at the load printed per run, and at the bench's
# count of calls that missed their arrival time).
# Outputs: DIR/RANKS.PATTERN.RUN.txt (the bench's text), DIR/runs.csv,
# DIR/summary.csv.
set -eu
reps=3; calls=200; nps="2 4"; sizes=8,1k,64k,1M; pats="none one-late:20us@1"; build=build; out=out/bench-dynamic
fp=--reorder-fp
while getopts r:c:n:s:p:b:o:Fh o; do
    case $o in
    r) reps=$OPTARG ;; c) calls=$OPTARG ;; n) nps=$OPTARG ;; s) sizes=$OPTARG ;; p) pats=$OPTARG ;;
    b) build=$OPTARG ;; o) out=$OPTARG ;; F) fp= ;;
     *) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
bench=$build/replay/collsel-bench
[ -x "$bench" ] || { echo "bench-dynamic.sh: no $bench (build first, or -b BUILD)" >&2; exit 2; }
mkdir -p "$out"
total=0
for r in $(seq 1 "$reps"); do for np in $nps; do for pat in $pats; do total=$((total + 1)); done; done; done
k=0
for r in $(seq 1 "$reps"); do
    for np in $nps; do
        for pat in $pats; do
            k=$((k + 1))
            f=$out/$np.$(echo "$pat" | tr ':@' '__').$r.txt
            echo "[$k/$total] $np ranks, arrivals $pat, run $r (load $(cut -d' ' -f1 /proc/loadavg))" >&2
            "$here/tests/mpiexec.sh" openmpi "$np" "$bench" --coll reduce,allreduce --sizes "$sizes" \
                --arrivals "$pat" --methods shm.,reduce_bcast.shm_,native $fp --interleave "$calls" \
                > "$f" 2>&1 || echo "  (the bench failed: see $f)" >&2
        done
    done
done
# per run: floor, then per point the dynamic and the best fixed-order method
# (by median): median and 10th percentile of each
for f in "$out"/*.txt; do
    b=$(basename "$f" .txt)
    awk -v run="$b" '
    function flush() { if (coll != "" && dyn != "" && best != "") print run "," coll "," size "," dyn "," dp "," best "," bp "," bm "," floor "," cross; coll = "" }
    /^floor:/ { for (i = 1; i <= NF; i++) if ($i == "takes") floor = $(i + 1) }
    /^  data floor:/ { for (i = 1; i <= NF; i++) if ($i == "takes") cross = $(i + 1) }
    /^(reduce|allreduce) / { flush(); coll = $1; size = $2 $3; gsub(/,/, "", size); best = ""; dyn = ""; cross = 0 }
    $1 ~ /\.shm\.dynamic$/ { dyn = $3; dp = $2 }
    $1 ~ /\.shm\.(direct|ag|tree\.k[0-9])$/ || ($1 ~ /^allreduce\.reduce_bcast\.shm_/ && $1 !~ /dynamic/) {
        if (best == "" || $3 + 0 < best + 0) { best = $3; bp = $2; bm = $1 } }
    END { flush() }' "$f"
done > "$out/runs.csv"
# over the runs of each (ranks, pattern, coll, size): median (range)
awk -F, '
function sortv(s, v,   n, i, j, t) { n = split(s, v, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }; return n }
function mr(s,   v, n) { n = sortv(s, v); return sprintf("%.3g (%.3g-%.3g)", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, v[1], v[n]) }
{ key = $1; sub(/\.[0-9]+$/, "", key); key = key "," $2 "," $3
  if (!(key in seen)) { seen[key] = 1; order[++n] = key }
  D[key] = D[key] " " $4; B[key] = B[key] " " $6; R[key] = R[key] " " ($4 / $6)
  P[key] = P[key] " " ($5 / $7); F[key] = F[key] " " ($4 / $9); BM[key] = BM[key] " " $8
  if ($10 > 0) C[key] = C[key] " " ($4 / $10) }
END {
  print "ranks.pattern,coll,size,dynamic_median_us,best_fixed_median_us,ratio_median,ratio_p10,dynamic_round_trips,dynamic_data_floors,best_fixed"
  for (i = 1; i <= n; i++) { k = order[i]
    printf "%s,%s,%s,%s,%s,%s,%s,%s\n", k, mr(D[k]), mr(B[k]), mr(R[k]), mr(P[k]), mr(F[k]), C[k] == "" ? "-" : mr(C[k]), BM[k] }
}' "$out/runs.csv" > "$out/summary.csv"
column -s, -t < "$out/summary.csv"
