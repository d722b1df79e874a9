#!/bin/sh
# tools/arrivals-case.sh: does an arrival pattern change the best method,
# and is the tree built under the pattern no worse than the balanced tree?
#   tools/arrivals-case.sh [-n NP] [--pattern P] [--grid SPEC] [--colls LIST]
#                          [--time-per-point S] [--tolerance PCT] [--dir DIR]
# 1. measures every method on the grid under balanced arrival (none) and
#    under the pattern (collsel-replay --arrivals none,P: completion times);
# 2. builds a tree on each (collsel tune --arrivals none / P; tune lists the
#    points where the fastest method differs);
# 3. measures again, under the pattern only, in a separate run (both trees
#    are judged on data neither was built from), and prints per point the
#    completion of each tree's choice there (collsel penalty --csv);
# 4. exits 1 if the pattern's tree is slower than the balanced tree by more
#    than PCT % (default 10: the noise of two runs) at some point.
# Defaults: 2 ranks, one-late:20us@1 (rank 1 late, the root 0 early),
# reduce and bcast at 8 B, 1 KiB, 64 KiB, 2 s per point.  Open MPI, through
# tests/mpiexec.sh.  COLLSEL_BUILD: the build (default build/).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${COLLSEL_BUILD:-$top/build}
np=2 pat=one-late:20us@1 grid=cs=2,ms=8,1k,64k colls=reduce,bcast tpp=2 tol=10 dir=
usage() { sed -n '2,20s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
    case "$1" in
    -n) np=$2; shift 2 ;;
    --pattern) pat=$2; shift 2 ;;
    --grid) grid=$2; shift 2 ;;
    --colls) colls=$2; shift 2 ;;
    --time-per-point) tpp=$2; shift 2 ;;
    --tolerance) tol=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "arrivals-case.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
c=$B/cli/collsel r=$B/replay/collsel-replay
[ -x "$c" ] && [ -x "$r" ] || { echo "arrivals-case.sh: build first ($B)" >&2; exit 2; }
dir=${dir:-$(mktemp -d "${TMPDIR:-/tmp}/arrivals-case.XXXXXX")}
mkdir -p "$dir"
run() { "$top/tests/mpiexec.sh" openmpi "$np" "$@"; }
echo "== 1. measuring under none and $pat ($np ranks, $grid, $colls; files in $dir)"
run "$r" --grid "$grid" --colls "$colls" --arrivals "none,$pat" --time-per-point "$tpp" \
    --no-progress -o "$dir/tune.csv"
echo "== 2. trees: balanced and under $pat"
"$c" tune --perf "$dir/tune.csv" --arrivals none -o "$dir/balanced.tree" > "$dir/tune-none.txt"
"$c" tune --perf "$dir/tune.csv" --arrivals "$pat" -o "$dir/pattern.tree" | tee "$dir/tune-pat.txt" |
    sed -n '/^arrivals:/,/point(s) measured under both/p'
echo "== 3. measuring again under $pat (a separate run)"
run "$r" --grid "$grid" --colls "$colls" --arrivals "$pat" --time-per-point "$tpp" \
    --no-progress -o "$dir/check.csv"
"$c" penalty "$dir/balanced.tree" --perf "$dir/check.csv" --arrivals "$pat" --csv > "$dir/bal.csv"
"$c" penalty "$dir/pattern.tree" --perf "$dir/check.csv" --arrivals "$pat" --csv > "$dir/pat.csv"
echo "== 4. completion under $pat at every point (us; second run): the balanced tree's choice and the pattern tree's"
paste -d, "$dir/bal.csv" "$dir/pat.csv" | awk -F, -v tol="$tol" '
    NR == 1 { printf "%-9s %5s %9s  %-34s %9s  %-34s %9s %7s\n", "coll", "ranks", "bytes",
              "balanced tree", "us", "pattern tree", "us", "ratio"; next }
    { r = $6 > 0 ? $15 / $6 : 1; bad = (r > 1 + tol / 100); worse += bad; diff += ($4 != $13); n++
      printf "%-9s %5s %9s  %-34s %9.2f  %-34s %9.2f %7.3f%s\n", $1, $2, $3, $4, $6, $13, $15, r,
             (bad ? "  WORSE" : "") }
    END { printf "%d point(s), the trees differ at %d; the pattern tree is worse than %s %% at %d\n",
                 n, diff, tol, worse; exit (worse > 0) }'
