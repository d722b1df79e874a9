#!/bin/sh
# bench-dynamic.sh [-r REPEATS] [-n "2 4"] [-s SIZES] [-p "none one-late:20us@1"] [-b BUILD] [-o DIR]
#
# The dynamic reductions (reduce/allreduce.shm.dynamic) against native and
# the fixed-order shared-memory methods (shm.direct, shm.ag, shm.tree.kN)
# under arrival patterns, with collsel-bench --arrivals (completion = last
# exit - last arrival, span = last exit - first arrival) and the flag round
# trip between two ranks of the same run (the floor).  Floating-point sums
# may be reordered (--reorder-fp), as with COLLSEL_REORDER_FP=1.  Every
# (ranks, pattern) pair is run REPEATS times (default 3), alternating, and
# summarised per point: the medians and ranges over the runs of the
# dynamic method's completion, the best fixed-order method's, their ratio,
# and the dynamic completion in floor round trips.  Not part of the test
# suite (minutes; a shared machine makes the figures noise: look at the
# load and at the bench's count of calls that missed their arrival time).
# Outputs: DIR/RANKS.PATTERN.RUN.txt (the bench's text) and DIR/summary.csv.
set -eu
reps=3; nps="2 4"; sizes=8,1k,64k,1M; pats="none one-late:20us@1"; build=build; out=out/bench-dynamic
while getopts r:n:s:p:b:o:h o; do
    case $o in
    r) reps=$OPTARG ;; n) nps=$OPTARG ;; s) sizes=$OPTARG ;; p) pats=$OPTARG ;;
    b) build=$OPTARG ;; o) out=$OPTARG ;;
    *) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
                --arrivals "$pat" --methods shm.,native --reorder-fp --time-per-method 0.1 \
                > "$f" 2>&1 || echo "  (the bench failed: see $f)" >&2
        done
    done
done
# per run: floor, then per point the dynamic and the best fixed-order completion
for f in "$out"/*.txt; do
    b=$(basename "$f" .txt)
    awk -v run="$b" '
    /^floor:/ { for (i = 1; i <= NF; i++) if ($i == "takes") floor = $(i + 1) }
    /^(reduce|allreduce) / { coll = $1; size = $2 $3; gsub(/,/, "", size)
                             best = ""; dyn = "" }
    $1 ~ /\.shm\.dynamic$/ { dyn = $2 }
    $1 ~ /\.shm\.(direct|ag|tree\.k[0-9])$/ { if (best == "" || $2 + 0 < best + 0) { best = $2; bm = $1 } }
    /^$/ && coll != "" { if (dyn != "" && best != "") print run "," coll "," size "," dyn "," best "," bm "," floor; coll = "" }
    END { if (coll != "" && dyn != "" && best != "") print run "," coll "," size "," dyn "," best "," bm "," floor }' "$f"
done > "$out/runs.csv"
# medians over the runs of each (ranks, pattern, coll, size)
awk -F, '
function med(s,   n, v, i, j, t) { n = split(s, v, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
function lo(s,   n, v, i, m) { n = split(s, v, " "); m = v[1]; for (i = 2; i <= n; i++) if (v[i] + 0 < m + 0) m = v[i]; return m }
function hi(s,   n, v, i, m) { n = split(s, v, " "); m = v[1]; for (i = 2; i <= n; i++) if (v[i] + 0 > m + 0) m = v[i]; return m }
{ key = $1; sub(/\.[0-9]+$/, "", key); key = key "," $2 "," $3
  if (!(key in seen)) { seen[key] = 1; order[++n] = key }
  D[key] = D[key] " " $4; B[key] = B[key] " " $5; R[key] = R[key] " " ($4 / $5); F[key] = F[key] " " ($4 / $7)
  BM[key] = BM[key] " " $6 }
END {
  print "ranks.pattern,coll,size,dynamic_us,dyn_lo,dyn_hi,best_fixed_us,best_lo,best_hi,ratio,ratio_lo,ratio_hi,dynamic_in_round_trips,best_fixed_methods"
  for (i = 1; i <= n; i++) { k = order[i]
    printf "%s,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.3f,%.3f,%.3f,%.1f,%s\n", k, med(D[k]), lo(D[k]), hi(D[k]), med(B[k]), lo(B[k]), hi(B[k]), med(R[k]), lo(R[k]), hi(R[k]), med(F[k]), BM[k] }
}' "$out/runs.csv" > "$out/summary.csv"
column -s, -t < "$out/summary.csv"
