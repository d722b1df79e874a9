#!/bin/sh
# tools/simulate.sh: measure collsel's methods against the MPI library's
# decisions on a modelled cluster (SimGrid SMPI, tools/sim/cluster.xml) at
# up to NP ranks (default 64), build the decision trees and draw them.
#   NP=128 GRID="cs=8:128:x2,ms=1:4M:x16" tools/simulate.sh
# "Native" is SMPI's emulation of Open MPI's decision logic
# (smpi/coll-selector:ompi); simulated computation is off, so timings are
# deterministic (one clean round per method suffices).  Outputs in out-sim/.
# tools/setup.sh installs Debian's libsimgrid-dev and builds build-smpi/.
# Slow: tens of minutes for the default grid at 64 ranks.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
NP=${NP:-64}
GRID=${GRID:-"cs=4:$NP:x2,ms=1:4M:x16"}
OUT=${COLLSEL_OUT:-$top/out-sim}
B=${COLLSEL_BUILD:-$top/build}
S=$top/build-smpi
"$top/tools/setup.sh" > /dev/null   # packages (libsimgrid-dev) and builds
mkdir -p "$OUT"
collsel="$B/cli/collsel"

echo "==== 1. replay on the modelled cluster: $NP ranks, grid $GRID"
"$top/tools/sim/smpirun.sh" "$NP" "" \
    "$S/replay/collsel-replay" --grid "$GRID" --quick -o "$OUT/perf.csv"

echo "==== 2. the trees (exact map, then the papers' depth caps)"
"$collsel" tune --perf "$OUT/perf.csv" --margin 0 -o "$OUT/sim.tree"
for d in 1 2 3 4 5 6; do
    "$collsel" tune --perf "$OUT/perf.csv" --margin 0 --max-depth "$d" -o "$OUT/sim-d$d.tree" \
        > "$OUT/tune-d$d.txt"
    printf 'depth %d: ' "$d"
    grep -E '^[a-z]+:|penalty uniform' "$OUT/tune-d$d.txt" | awk '
        /^[a-z]+:/ { c = $1 } /penalty uniform/ { printf "%s mean %s max %s  ", c, $8, $6 }'
    echo
done
"$collsel" tree show "$OUT/sim.tree"

echo "==== 3. pictures"
"$collsel" map "$OUT/perf.csv" -o "$OUT/measured.png"
"$collsel" map "$OUT/sim.tree" -o "$OUT/map.png"
echo "outputs in $OUT: perf.csv sim.tree measured.png map.png tune-d*.txt"
