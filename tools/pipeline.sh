#!/bin/sh
# tools/pipeline.sh: the whole collsel pipeline on the bundled example
# application, at 4 ranks (run by tools/demo.sh after set-up):
#   collsel autotune (record -> replay -> tune -> replay --mix -> explore
#   inside the application -> tune again on those times -> report ->
#   paired runs verifying the tree)
#   -> profile -> tree -> run with the tree -> native vs tuned time (wall,
#   and the collective time both runs of PAIRS alternating pairs recorded,
#   against the prediction: tools/apptime.sh) -> pictures, C code, exports.
# Outputs go to out/ (or $COLLSEL_OUT).  NP=4, BUDGET=60s, PAIRS=21 by default.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
B=${COLLSEL_BUILD:-$top/build}
OUT=${COLLSEL_OUT:-$top/out}
NP=${NP:-4}
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
"$top/tools/apptime.sh" -n "$NP" -r "${PAIRS:-21}" --tree "$OUT/example.tree" --dir "$OUT/apptime" -- "$app"
"$collsel" show --compare "$OUT/apptime/nat-1.prof" "$OUT/apptime/tun-1.prof" --top 8

step "7. pictures, generated C, exports"
"$collsel" map "$OUT/example.tree" --profile "$OUT/example.prof" -o "$OUT/map.png"
"$collsel" map "$OUT/example.tree" --penalty --perf "$OUT/perf.csv" -o "$OUT/penalty.png"
"$collsel" codegen "$OUT/example.tree" -o "$OUT/decide.c"
"$collsel" export "$OUT/example.tree" --format ompi-rules -o "$OUT/ompi-rules.conf"
"$collsel" export "$OUT/example.tree" --format mpich-json -o "$OUT/mpich.json"

step "files"
ls -l "$OUT"
