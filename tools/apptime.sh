#!/bin/sh
# tools/apptime.sh: does the tree make this application faster?  Tunes a
# tree on it with collsel autotune (budget BUDGET, default 60s; or takes
# --tree), then runs it natively and with the tree, alternating, RUNS
# times each, every run recorded, and prints per pair the ratio tuned /
# native of the time in collectives (collsel show --compare) and of the
# wall time, then their medians.  Open MPI, through tests/mpiexec.sh.
#   tools/apptime.sh [-n NP] [-r RUNS] [--tree TREE] [--dir DIR] [--launcher LINE] -- APP [ARGS]
# --launcher: start the ranks with LINE (word-split) instead, e.g. a
# cluster's (tools/cluster.sh launcher openmpi); -n is then LINE's business.
# COLLSEL_BUILD: the build to use (default build/), e.g. an older one to
# compare builds on the same application.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
B=${COLLSEL_BUILD:-$top/build}
np=4 runs=5 tree= dir= launcher=
usage() { sed -n '2,12s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
    case "$1" in
    -n) np=$2; shift 2 ;;
    -r) runs=$2; shift 2 ;;
    --tree) tree=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --launcher) launcher=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) echo "apptime.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ $# -gt 0 ] || { echo "apptime.sh: no application given (see --help)" >&2; exit 2; }
case "$np$runs" in *[!0-9]*) echo "apptime.sh: -n and -r take positive integers" >&2; exit 2 ;; esac
c=$B/cli/collsel
[ -x "$c" ] || { echo "apptime.sh: no $c (build first, or set COLLSEL_BUILD)" >&2; exit 2; }
dir=${dir:-$(mktemp -d "${TMPDIR:-/tmp}/apptime.XXXXXX")}
mkdir -p "$dir"
run() {
    if [ -n "$launcher" ]; then
        # shellcheck disable=SC2086
        $launcher "$@"
    else
        "$top/tests/mpiexec.sh" openmpi "$np" "$@"
    fi
}
if [ -z "$tree" ]; then
    echo "== collsel autotune ($np ranks; files in $dir)"
    "$c" autotune --launcher "$top/tests/mpiexec.sh openmpi $np" --budget "${BUDGET:-60s}" \
        --dir "$dir/autotune" -o "$dir/app.tree" -- "$@" > "$dir/autotune.txt" 2>&1 ||
        { cat "$dir/autotune.txt" >&2; echo "apptime.sh: collsel autotune failed" >&2; exit 1; }
    tree=$dir/app.tree
fi
echo "== $runs pairs of runs, native then tuned (tree $tree)"
printf '%-5s %12s %12s\n' pair collectives wall
i=1
while [ "$i" -le "$runs" ]; do
    for side in nat tun; do
        t=$tree; [ "$side" = nat ] && t=
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
    wall=$(awk '{ w[FILENAME] = $1 } END { printf "%.3f", w[ARGV[2]] / w[ARGV[1]] }' \
        "$dir/nat-$i.wall" "$dir/tun-$i.wall")
    printf '%-5s %12s %12s\n' "$i" "$coll" "$wall"
    echo "$coll $wall" >> "$dir/ratios"
    i=$((i + 1))
done
sort -n "$dir/ratios" | awk '{ c[NR] = $1 } END { printf "median of tuned / native, collective time: %s", c[int((NR + 1) / 2)] }'
sort -n -k2 "$dir/ratios" | awk '{ w[NR] = $2 } END { printf "; wall time: %s (%d pairs)\n", w[int((NR + 1) / 2)], NR }'
