#!/bin/sh
# bench-bcastdyn.sh [-r REPEATS] [-s SIZES] [-b BUILD] [-o DIR]
#
# bcast.node.dynamic against bcast.node.binomial (and the other bcast.node.*
# methods) and native on virtual nodes (collsel-bench --node-size), root 0:
#   2 ranks, nodes of 1 rank:  one-late:20us@1 (the other node's only rank
#                              late), none
#   4 ranks, 2 nodes of 2:     one-late:20us@2 (the fixed leader of the
#                              root's other node late), one-late:20us@0
#                              (the root late), none
# Every (layout, pattern) is run REPEATS times (default 5), alternating;
# per point and method: the median (range) over the runs of the bench's
# median completion (last exit - last arrival) and the median of its exit
# span (last exit - first arrival), and dynamic / binomial on the medians.
# Not part of the test suite (a minute or two; on a shared machine look at
# the load printed per run).
# Outputs: DIR/runs.csv (every run's rows, with its layout), DIR/summary.txt.
set -eu
reps=5; sizes=8,1k,64k,1M; build=build; out=out/bench-bcastdyn
while getopts r:s:b:o:h o; do
    case $o in
    r) reps=$OPTARG ;; s) sizes=$OPTARG ;; b) build=$OPTARG ;; o) out=$OPTARG ;;
    *) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
bench=$build/replay/collsel-bench
[ -x "$bench" ] || { echo "bench-bcastdyn.sh: no $bench (build first, or -b BUILD)" >&2; exit 2; }
mkdir -p "$out"
echo "layout,run,coll,comm_size,msg_bytes,arrivals,method,median_us,ratio,span_us,native_us,rounds,skew_us" \
    > "$out/runs.csv"
for r in $(seq 1 "$reps"); do
    for case in "2 1 one-late:20us@1" "2 1 none" "4 2 one-late:20us@2" "4 2 one-late:20us@0" "4 2 none"; do
        set -- $case
        echo "run $r/$reps: $1 ranks, nodes of $2, $3 (load $(cut -d' ' -f1 /proc/loadavg))" >&2
        "$here/tests/mpiexec.sh" openmpi "$1" "$bench" --coll bcast --sizes "$sizes" \
            --arrivals "$3" --methods node.,native --node-size "$2" --csv 2> "$out/err.txt" |
            awk -v l="$1x$2" -v r="$r" -F, 'NR > 1 { print l "," r "," $0 }' >> "$out/runs.csv" ||
            { echo "  (the bench failed: see $out/err.txt)" >&2; }
    done
done
awk -F, 'NR > 1 { k = $1 " " $6 " " $5 " " $7; c[k] = c[k] " " $8; s[k] = s[k] " " $10 }
function med(list,   a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    lo = a[1]; hi = a[n]
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
    for (k in c) {
        m = med(c[k]); l = lo; h = hi; sp = med(s[k])
        split(k, f, " ")
        printf "%-5s %-16s %8s B  %-34s completion %9.3f us (%.3f-%.3f)  span %9.3f us\n", f[1], f[2], f[3], f[4], m, l, h, sp
        comp[f[1] " " f[2] " " f[3] " " f[4]] = m
    }
    for (k in comp) {
        split(k, f, " ")
        if (f[4] != "bcast.node.dynamic") continue
        b = comp[f[1] " " f[2] " " f[3] " bcast.node.binomial"]
        if (b > 0) printf "ratio %-5s %-16s %8s B  dynamic / node.binomial %.2f\n", f[1], f[2], f[3], comp[k] / b
    }
}' "$out/runs.csv" | sort -k1,1 -k2,2 -k3,3n -k5,5 > "$out/summary.txt"
cat "$out/summary.txt"
