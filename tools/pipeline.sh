#!/bin/sh
# tools/pipeline.sh: the whole collsel pipeline on the bundled example
# application, at one rank per core (run by tools/demo.sh after set-up):
#   collsel autotune (record -> replay -> tune -> replay --mix -> explore
#   inside the application -> tune again on those times -> report ->
#   paired runs verifying the tree)
#   -> profile -> tree -> run with the tree -> native vs tuned time (wall,
#   and the collective time both runs of PAIRS alternating pairs recorded,
#   against the prediction: tools/apptime.sh) -> pictures, C code, exports.
# It ends by saying what the tree kept and whether the application's
# collective time with it is below native beyond the noise.
# Outputs go to out/ (or $COLLSEL_OUT).  BUDGET=60s, PAIRS=21 by default;
# NP ranks: by default as many as the machine has cores (nproc), at least
# 2.  More ranks than cores (NP=4 on 2 cores) oversubscribe: the ranks
# take turns on the cores, every measurement then times the scheduler as
# much as the method, and the paired runs keep only the methods whose gain
# shows through that (the tree may end all native).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
B=${COLLSEL_BUILD:-$top/build}
OUT=${COLLSEL_OUT:-$top/out}
cores=$(nproc)
NP=${NP:-$((cores > 2 ? cores : 2))}
case $NP in
[1-9]|[1-9][0-9]|[1-9][0-9][0-9]) ;;
*) echo "pipeline.sh: NP='$NP': a number of ranks (2 or more)" >&2; exit 2 ;;
esac
[ "$NP" -ge 2 ] || { echo "pipeline.sh: NP=$NP: the collectives need 2 ranks or more" >&2; exit 2; }
[ "$NP" -le "$cores" ] || echo "pipeline.sh: $NP ranks on $cores cores (NP): oversubscribed," \
    "the measurements time the scheduler too; the tree may keep little or nothing" >&2
mkdir -p "$OUT"
collsel="$B/cli/collsel"
app="$B/tests/apps/example_app"
launcher="$top/tests/mpiexec.sh openmpi $NP"
run() { "$top/tests/mpiexec.sh" openmpi "$@"; }
step() { printf '\n==== %s\n' "$*"; }

step "1. collsel autotune: record, measure, tune and check in one command ($NP ranks), then the tree's candidates measured inside the application, then the tree verified by paired runs"
# (a coarse grid is measured too, for the decision maps of step 7; --explore
# 3: exploring runs, each call one of the tree's first 3 candidates or
# native, and the tree built again on those in-application times; --verify
# 9: 9 native / tuned pairs, a collective slower with the tree made native)
"$collsel" autotune --launcher "$launcher" --budget "${BUDGET:-60s}" --explore 3 --verify 9 \
    --grid "cs=2:$NP:x2,ms=1:4M:x16" -o "$OUT/example.tree" --dir "$OUT" -- "$app"
cp "$OUT/app.prof" "$OUT/example.prof"

step "2. the recorded profile"
"$collsel" show "$OUT/example.prof"

step "3. the tree"
"$collsel" tree show "$OUT/example.tree"

step "4. the application with the tree: the decisions the shim takes (COLLSEL_VERBOSE=2)"
run "$NP" "$collsel" exec --tree "$OUT/example.tree" --verbose 2 -- "$app" > "$OUT/tuned.out" 2> "$OUT/decisions.txt"
grep '^collsel:' "$OUT/decisions.txt" | sort -u

RUNS=${APP_RUNS:-7}
step "5. the application natively and with the tree (alternating, $RUNS runs each)"
# Both sides' outputs must be identical in every run; the wall times are
# paired (native, tuned) run by run: the ratio's median and range.
pairs=""
for i in $(seq 1 "$RUNS"); do
    run "$NP" "$app" > "$OUT/native.out" 2> "$OUT/native.err"
    run "$NP" "$collsel" exec --tree "$OUT/example.tree" -- "$app" > "$OUT/tuned.out" 2> "$OUT/tuned.err"
    if ! cmp -s "$OUT/native.out" "$OUT/tuned.out"; then
        echo "results: DIFFER in run $i (see $OUT/native.out $OUT/tuned.out)"; exit 1
    fi
    pairs="$pairs $(sed -n 's/^time: *//p' "$OUT/native.err" | awk '{print $1}'):$(sed -n 's/^time: *//p' "$OUT/tuned.err" | awk '{print $1}')"
done
echo "results: identical with and without collsel in all $RUNS runs"
printf '%s\n' $pairs | awk -F: '
    { n[NR] = $1; t[NR] = $2; r[NR] = $2 / $1 }
    function med(a, k,   i, j, x) { for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } return a[int((k + 1) / 2)] }
    END { k = NR; mn = med(n, k); mt = med(t, k); lo = 1e9; hi = 0
          for (i = 1; i <= k; i++) { lo = r[i] < lo ? r[i] : lo; hi = r[i] > hi ? r[i] : hi }
          mr = med(r, k)
          printf "application wall time (median of %d): native %.3f s, tuned %.3f s; paired ratio tuned/native: median %.3f, range %.3f .. %.3f\n", k, mn, mt, mr, lo, hi }'
ours=$("$collsel" methods --csv | awk -F, 'NR > 1 && !seen[$2]++ { printf " %s", $2 }')
"$collsel" show "$OUT/example.prof" --csv | awk -F, -v ours="$ours " '
    /^#/ || $1 == "collective" { next }
    { all += $8; if (index(ours, " " tolower($1) " ")) mine += $8 }
    END { if (all > 0) printf "(the collectives collsel replaces (%s) are %.0f %% of this application'"'"'s collective time; at this run length the wall-time ratio is mostly launch noise: the check of step 1 measures the collectives themselves)\n", substr(ours, 2, length(ours) - 2), 100 * mine / all }'

step "6. the application's own collective time, native and tuned: ${PAIRS:-21} alternating pairs (with 7 the median of an A/A test wanders by +-0.1), predicted against measured"
# tools/apptime.sh: both sides recorded in every pair (collsel show
# --compare), the medians and ranges, the prediction of collsel-replay --mix
# for this tree next to them, and the points where the replay does not
# reproduce the application's native calls
"$top/tools/apptime.sh" -n "$NP" -r "${PAIRS:-21}" --tree "$OUT/example.tree" --dir "$OUT/apptime" \
    -- "$app" | tee "$OUT/apptime.txt"
"$collsel" show --compare "$OUT/apptime/nat-1.prof" "$OUT/apptime/tun-1.prof" --top 8

step "7. pictures, generated C, exports"
"$collsel" map "$OUT/example.tree" --profile "$OUT/example.prof" -o "$OUT/map.png"
"$collsel" map "$OUT/example.tree" --penalty --perf "$OUT/perf.csv" -o "$OUT/penalty.png"
"$collsel" codegen "$OUT/example.tree" -o "$OUT/decide.c"
"$collsel" export "$OUT/example.tree" --format ompi-rules -o "$OUT/ompi-rules.conf"
"$collsel" export "$OUT/example.tree" --format mpich-json -o "$OUT/mpich.json"

step "files"
ls -l "$OUT"

step "what the tree did ($NP ranks on $cores cores)"
# the methods the tree keeps (its leaves' first methods that are not
# native) and the measured collective time of step 6 against its noise
kept=$("$collsel" tree show "$OUT/example.tree" | awk '
    { for (i = 1; i <= NF; i++) if ($i ~ /^[a-z]+\.[a-z]/) { if ($i !~ /\.native$/) k[$i] = 1; break } }
    END { for (m in k) printf "%s ", m }')
med=$(sed -n 's/^median of tuned \/ native, collective time: \([0-9.]*\) .*/\1/p' "$OUT/apptime.txt")
ci=$(sed -n 's/^  its 95 % interval (order statistics of the pairs): //p' "$OUT/apptime.txt")
if [ -z "$kept" ]; then
    echo "the tree keeps every collective native: collsel found no method faster here"
else
    echo "the tree keeps: $kept"
fi
verdict=$(echo "$ci" | awk -F- '$2 != "" && $2 < 1 { print "below native beyond the noise"; next }
    $1 != "" && $1 > 1 { print "above native beyond the noise"; next }
    { print "not told apart from native (the interval holds 1, or too few pairs)" }')
echo "the application's collective time with the tree / native: median $med over ${PAIRS:-21}" \
     "pairs, 95 % interval $ci: $verdict"
