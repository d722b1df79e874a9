#!/bin/sh
# tools/apptime.sh: does the tree make this application faster?  Tunes a
# tree on it with collsel autotune (budget BUDGET, default 60s; or takes
# --tree), then runs it natively and with the tree, alternating, RUNS
# times each, every run recorded, and prints per pair the ratio tuned /
# native of the time in collectives (collsel show --compare) and of the
# wall time, then their medians.  Open MPI, through tests/mpiexec.sh.
# Predicted against measured: collsel-replay --mix (autotune's check, or
# with --tree a run recorded for it) replays the recorded profile through
# the tree, under its recorded arrivals when it has them, and predicts
# tuned / native for the application's collective time (recorded wait +
# tuned completion) and for the completion alone; the end prints both next
# to the medians measured over the pairs (completion: the cells with
# arrival data in both runs), the wait measured in those cells, and the
# part of the wait that uneven exits caused (show's exits column), which
# the prediction moves with the methods (the rest of the wait it keeps),
# then the points where the replay's native calls took far less or more
# than the application's own (recorded) ones, and per hot cell (>= 2 % of
# the completion) the replay's tuned / native completion ratio against the
# application's (median of the pairs; off by more than 0.2: marked): where
# the prediction is weak, on the native side and on the tuned one.
#   tools/apptime.sh [-n NP] [-r RUNS] [--tree TREE [--baseline TREE0]] [--dir DIR]
#                    [--launcher LINE] [--aa] [--explore K] -- APP [ARGS]
# --baseline TREE0: the other side of every pair runs with TREE0 instead of
# natively (tree against tree, e.g. with and without some methods; the
# columns then read TREE / TREE0, and nothing is predicted).
# --explore K: autotune --explore K (the tree built on the times of an
# exploring run inside the application); that run's own expectation is
# printed too, against the measured median.
# --aa: both runs of every pair native (an A/A test: no tree, no tuning);
# the spread of its ratios around 1 is what the measured column can tell
# apart at all on this machine (the prediction is then 1).  A tree that
# keeps every collective native is said to make the pairs an A/A test too.
# --launcher: start the ranks with LINE (word-split) instead, e.g. a
# cluster's (tools/cluster.sh launcher openmpi); -n is then LINE's business.
# COLLSEL_BUILD: the build to use (default build/), e.g. an older one to
# compare builds on the same application.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
B=${COLLSEL_BUILD:-$top/build}
np=4 runs=5 tree= dir= launcher= aa= explore= base=
usage() { sed -n '2,/^set -e/{/^#/s/^# \{0,1\}//p}' "$0"; }
while [ $# -gt 0 ]; do
    case "$1" in
    -n) np=$2; shift 2 ;;
    -r) runs=$2; shift 2 ;;
    --tree) tree=$2; shift 2 ;;
    --baseline) base=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --launcher) launcher=$2; shift 2 ;;
    --aa) aa=1; shift ;;
    --explore) explore=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) echo "apptime.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ $# -gt 0 ] || { echo "apptime.sh: no application given (see --help)" >&2; exit 2; }
case "$np$runs$explore" in *[!0-9]*) echo "apptime.sh: -n, -r and --explore take positive integers" >&2; exit 2 ;; esac
[ -z "$base" ] || { [ -n "$tree" ] && [ -z "$aa$explore" ]; } ||
    { echo "apptime.sh: --baseline goes with --tree (not with --aa or --explore)" >&2; exit 2; }
[ -z "$base" ] || [ -f "$base" ] || { echo "apptime.sh: --baseline $base: no such file" >&2; exit 2; }
[ -z "$explore" ] || [ -z "$tree$aa" ] ||
    { echo "apptime.sh: --explore goes with the tuning (not with --tree or --aa)" >&2; exit 2; }
c=$B/cli/collsel
[ -x "$c" ] || { echo "apptime.sh: no $c (build first, or set COLLSEL_BUILD)" >&2; exit 2; }
dir=${dir:-$(mktemp -d "${TMPDIR:-/tmp}/apptime.XXXXXX")}
mkdir -p "$dir"
rm -f "$dir/ratios" # a --dir used before: this run's pairs only (they were appended to its)
run() {
    if [ -n "$launcher" ]; then
        # shellcheck disable=SC2086
        $launcher "$@"
    else
        "$top/tests/mpiexec.sh" openmpi "$np" "$@"
    fi
}
if [ -n "$aa" ]; then
    echo "== A/A: both runs of every pair native ($np ranks; files in $dir)"
    tree=none mix=
elif [ -n "$base" ]; then
    echo "== tree against tree: $tree against $base ($np ranks; files in $dir)"
    mix=
elif [ -z "$tree" ]; then
    echo "== collsel autotune ($np ranks; files in $dir)"
    "$c" autotune --launcher "$top/tests/mpiexec.sh openmpi $np" --mpi openmpi \
        --budget "${BUDGET:-60s}" ${explore:+--explore "$explore"} \
        --dir "$dir/autotune" -o "$dir/app.tree" -- "$@" > "$dir/autotune.txt" 2>&1 ||
        { cat "$dir/autotune.txt" >&2; echo "apptime.sh: collsel autotune failed" >&2; exit 1; }
    tree=$dir/app.tree
    mix=$dir/autotune/mix.csv
else
    echo "== recording and replaying through the tree, for the prediction ($np ranks; files in $dir)"
    run "$c" exec --record "$dir/app.prof" -- "$@" > /dev/null 2> "$dir/record.err" ||
        { cat "$dir/record.err" >&2; echo "apptime.sh: the application failed" >&2; exit 1; }
    mix=$dir/mix.csv
    run "$B/replay/collsel-replay" --mix "$dir/app.prof" --tree "$tree" --budget 10 --csv \
        > "$mix" 2> "$dir/mix.err" || { cat "$dir/mix.err" >&2; echo "apptime.sh: --mix failed" >&2; exit 1; }
fi
# the prediction: the mix's "application" and "completion" rows (under
# arrivals), else its total (no arrival data: all of it taken as completion)
if [ -n "$aa" ]; then
    pred="1 1" pexits="1"
elif [ -n "$base" ]; then
    pred="- -" pexits="-"
else
    pred=$(awk -F, '$1 == "application" { a = $13 } $1 == "completion" { c = $13 } $1 == "total" { t = $13 }
        END { if (a == "") { a = t; c = t }; printf "%s %s", a, c }' "$mix")
    # the wait uneven exits cause, predicted tuned / recorded (1: none)
    pexits=$(awk -F, '$1 == "exits" && $7 > 0 { e = $13 } END { print e == "" ? "-" : e }' "$mix")
fi
echo "== $runs pairs of runs, native first in odd pairs, tuned first in even ones (tree $tree)"
# a tree whose every leaf answers native first drives nothing: the pairs
# then compare native with native (an A/A test of this application)
if [ -z "$aa$base" ] && leaves=$("$c" tree show "$tree" 2> /dev/null) && [ -n "$leaves" ] &&
    echo "$leaves" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[a-z]+\.[a-z]/) { if ($i !~ /\.native$/) d = 1; break } }
                          END { exit d }'; then
    echo "   (the tree keeps every collective native: these pairs are an A/A test, native against native)"
fi
printf '%-5s %12s %12s %12s %12s %12s\n' pair collectives completion wait exits wall
i=1
while [ "$i" -le "$runs" ]; do
    # the order alternates: whatever slows the first or the second run of a
    # pair (a cache warmed by the first, a drift) falls on both sides
    order="nat tun"; [ $((i % 2)) = 0 ] && order="tun nat"
    for side in $order; do
        t=$tree; [ "$side" = nat ] || [ -n "$aa" ] && t=$base
        p="$side-$i"
        t0=$(date +%s.%N)
        if [ -n "$t" ]; then
            run "$c" exec --tree "$t" --record "$dir/$p.prof" -- "$@" > "$dir/$p.out" 2> "$dir/$p.err"
        else
            run "$c" exec --record "$dir/$p.prof" -- "$@" > "$dir/$p.out" 2> "$dir/$p.err"
        fi || { cat "$dir/$p.err" >&2; echo "apptime.sh: run $p failed" >&2; exit 1; }
        echo "$(date +%s.%N) $t0" | awk '{ printf "%.3f\n", $1 - $2 }' > "$dir/$p.wall"
    done
    cmp -s "$dir/nat-$i.out" "$dir/tun-$i.out" ||
        echo "   (pair $i: the outputs differ, if only in the timings an application prints: diff $dir/nat-$i.out $dir/tun-$i.out)"
    coll=$("$c" show --compare "$dir/nat-$i.prof" "$dir/tun-$i.prof" | awk '$1 == "all" { print $8; exit }')
    # completion: the cells with arrival data in both runs (show --compare --csv)
    # and the wait there (time - completion), which the prediction keeps
    cw=$("$c" show --compare "$dir/nat-$i.prof" "$dir/tun-$i.prof" --csv |
        awk -F, '$1 == "cell" && $12 != "" && $13 != "" { a += $12; b += $13; wa += $8 - $12; wb += $9 - $13 }
            END { if (a > 0) printf "%.3f ", b / a; else printf "- "
                  if (wa > 0) printf "%.3f", wb / wa; else printf "-" }')
    compl=${cw% *} wait=${cw#* }
    # the wait that uneven exits caused (show's exits_caused_wait_s), both runs
    ex=$(for k in nat tun; do "$c" show --csv "$dir/$k-$i.prof" | awk -F, '
            $1 == "collective" { for (j = 1; j <= NF; j++) if ($j == "exits_caused_wait_s") col = j; next }
            col && $col != "" { s += $col } END { printf "%.9f ", s }'; done |
        awk '{ if ($1 > 0) printf "%.3f", $2 / $1; else printf "-" }')
    wall=$(awk '{ w[FILENAME] = $1 } END { printf "%.3f", w[ARGV[2]] / w[ARGV[1]] }' \
        "$dir/nat-$i.wall" "$dir/tun-$i.wall")
    printf '%-5s %12s %12s %12s %12s %12s\n' "$i" "$coll" "$compl" "$wait" "$ex" "$wall"
    echo "$coll $wall $compl $wait $ex" >> "$dir/ratios"
    i=$((i + 1))
done
sort -n "$dir/ratios" | awk '{ c[NR] = $1 } END { printf "median of tuned / native, collective time: %s (range %s-%s)", c[int((NR + 1) / 2)], c[1], c[NR] }'
sort -n -k2 "$dir/ratios" | awk '{ w[NR] = $2 } END { printf "; wall time: %s (%d pairs)\n", w[int((NR + 1) / 2)], NR }'
meas=$(sort -n "$dir/ratios" | awk '{ c[NR] = $1 } END { print c[int((NR + 1) / 2)] }')
# the median's 95 % interval, distribution-free: the order statistics j and
# n + 1 - j, j the largest rank with P(Bin(n, 1/2) <= j - 1) <= 2.5 % (as
# cs_median_ci in common/stats.c; none below 6 pairs)
mci=$(sort -n "$dir/ratios" | awk '{ c[NR] = $1 } END {
    if (NR < 6) { print "-"; exit }
    p = 0.5 ^ NR; cum = 0; j = 0
    for (i = 0; i < NR && cum + p <= 0.025; i++) { cum += p; j = i + 1; p = p * (NR - i) / (i + 1) }
    if (j < 1) j = 1
    printf "%s-%s", c[j], c[NR + 1 - j] }')
echo "  its 95 % interval (order statistics of the pairs): $mci"
if [ -n "$base" ]; then # nothing predicted: the completion's median too, and done
    awk '$3 != "-" { print $3 }' "$dir/ratios" | sort -n |
        awk '{ c[NR] = $1 } END { if (NR) printf "median of %s, completion: %s\n", "'"$(basename "$tree") / $(basename "$base")"'", c[int((NR + 1) / 2)] }'
    exit 0
fi
mcompl=$(awk '$3 != "-" { print $3 }' "$dir/ratios" | sort -n | awk '{ c[NR] = $1 } END { print NR ? c[int((NR + 1) / 2)] : "-" }')
mwait=$(awk '$4 != "-" && $4 != "" { print $4 }' "$dir/ratios" | sort -n | awk '{ c[NR] = $1 } END { print NR ? c[int((NR + 1) / 2)] : "-" }')
mexits=$(awk '$5 != "-" && $5 != "" { print $5 }' "$dir/ratios" | sort -n | awk '{ c[NR] = $1 } END { print NR ? c[int((NR + 1) / 2)] : "-" }')
echo "$pred $meas $mcompl $mwait $pexits $mexits" | awk '{ printf "predicted against measured (tuned / native):\n" \
    "  application collective time: predicted %.3f, measured median %.3f (difference %+.3f)\n" \
    "  completion time:             predicted %.3f, measured median %s\n" \
    "  wait:                        measured median %s\n" \
    "  wait caused by uneven exits: predicted %s, measured median %s\n", $1, $3, $3 - $1, $2, $4, $5, $6, $7 }'
# --explore: the tree was built on the exploring run's in-application
# times, whose own expectation is a second prediction
if [ -n "$explore" ] && [ -f "$dir/autotune.txt" ]; then
    sed -n 's/^  the tree built on them, at the explored points: tuned \/ native \([0-9.]*\)\( (+- \([0-9.]*\)\)\{0,1\}.*/\1 \3/p' \
        "$dir/autotune.txt" | tail -1 |
        awk -v m="$meas" -v ci="$mci" '{ printf "  in the application (the exploring runs, through the tree measured, built on them; the replay predicted above for its own tree): predicted %.3f%s, measured median %.3f (95 %%: %s; difference %+.3f)\n", $1, $2 != "" ? sprintf(" +- %.3f", $2) : "", m, ci, m - $1 }'
fi
# autotune's own paired runs (--verify, by default where the node holds
# more ranks than cores) measured this very tree when they kept it whole:
# a measured expectation, against this script's own pairs
if [ -f "$dir/autotune.txt" ] && grep -q "no collective was slower with the tree beyond the noise" "$dir/autotune.txt"; then
    awk '/^== verified in the application: / { v = 1; n = $6 }
         v && $1 == "all" { r = $2; ci = substr($0, index($0, "(")); ci = substr(ci, 1, index(ci, ")")); gsub(/ /, "", ci) }
         END { if (r != "") print n, r, ci }' \
        "$dir/autotune.txt" |
        awk -v m="$meas" -v ci="$mci" '{ printf "  in the application (autotune'"'"'s %s paired runs, --verify, the same tree): measured %.3f %s, here %.3f (95 %%: %s; difference %+.3f)\n", $1, $2, $3, m, ci, m - $2 }'
fi
# the points where the replay did not reproduce the application's own
# native calls (the mix's unlike column): the prediction's known weak spots
[ -n "$aa" ] || awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
    c["unlike"] && $c["unlike"] == 1 {
        if (!n++) print "  where the replay does not reproduce the application'"'"'s native calls (the prediction is uncertain there):"
        printf "    %s, %s ranks, %s B: the application'"'"'s native completion %.2f us per call, the replay'"'"'s %.2f us (%.2fx)\n",
            $1, $2, $3, $c["recorded_us"], $c["native_us"], $c["recorded_us"] / $c["native_us"] }' "$mix"
# per hot cell (>= 2 % of the native runs' completion): the replay's
# completion ratio (the mix's points in the cell, weighted by their native
# time) against the application's (median over the pairs): where the
# prediction goes wrong, on either side
if [ -z "$aa" ]; then
    for i in $(seq 1 "$runs"); do
        "$c" show --compare --csv "$dir/nat-$i.prof" "$dir/tun-$i.prof" 2> /dev/null |
            awk -F, '$1 == "cell" && $14 != "" { print tolower($2) "," $3 "," $4 "," $5 "," $12 "," $14 }'
    done > "$dir/cells"
    awk -F, 'NR == FNR { if (FNR == 1) { for (k = 1; k <= NF; k++) c[$k] = k; next }
                         if ($2 == "") next
                         n++; pc[n] = $1; ps[n] = $2; pb[n] = $3; pw[n] = $5 * $7; pr[n] = $13; pm[n] = $9; next }
        { key = $1 " " $2 " " $3 " " $4; if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
          nv[key]++; v[key, nv[key]] = $6; ca[key] += $5; tot += $5 }
        END {
            for (j = 1; j <= nk; j++) {
                key = keys[j]; split(key, f, " ")
                if (tot <= 0 || ca[key] / tot < 0.02) continue
                w = 0; r = 0; m = ""
                for (i = 1; i <= n; i++)
                    if (pc[i] == f[1] && ps[i] == f[2] && pb[i] >= f[3] && pb[i] <= f[4]) {
                        w += pw[i]; r += pw[i] * pr[i]; m = pm[i] }
                if (w <= 0) continue
                k = nv[key]
                for (a = 1; a <= k; a++) x[a] = v[key, a]
                for (a = 2; a <= k; a++) { y = x[a]; for (b = a - 1; b >= 1 && x[b] > y; b--) x[b + 1] = x[b]; x[b + 1] = y }
                med = x[int((k + 1) / 2)]
                if (!hdr++) print "  per hot cell, completion tuned / native: the replay'"'"'s against the application'"'"'s (median of the pairs):"
                d = med - r / w
                printf "    %-9s %3s ranks [%s, %s] B, %.0f %% of the completion, %s: predicted %.3f, measured %.3f%s\n",
                    f[1], f[2], f[3], f[4], 100 * ca[key] / tot, m, r / w, med,
                    (d > 0.2 || d < -0.2) ? "  <-- off by " sprintf("%+.2f", d) : ""
            } }' "$mix" "$dir/cells"
fi
