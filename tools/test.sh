#!/bin/sh
# tools/test.sh: set up (tools/setup.sh: Debian packages, Open MPI build in
# build/, MPICH build in build-mpich/), then run the whole test suite:
#   1. every test of the Open MPI build (unit, MPI, CLI golden tests),
#   2. the MPICH flavour's tests (suite 'mpich', 2 ranks),
#   (the multi-node ones, suite 'cluster', on a cluster of namespaces that
#   tools/cluster.sh brings up before 1. and down at the end),
#   3. the correctness matrix under AddressSanitizer + UBSan,
#   4. the SimGrid SMPI flavour (tests/sim/run.sh),
#   5. every fuzz target briefly (tests/fuzz/run.sh: clang, libFuzzer,
#      ASan + UBSan; its corpus grows in build-fuzz between runs).
# Exit status 0 only if everything passed.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tools/setup.sh"
cd "$top"
start=$(date +%s)
# the multi-node tests (suite 'cluster') run on a cluster on this machine
# (tools/cluster.sh: 4 nodes as namespaces); where namespaces cannot be
# made, they are skipped with the reason
if "$top/tools/cluster.sh" up 4 --ranks-per-node 2 > /dev/null; then
    trap '"$top/tools/cluster.sh" down' EXIT
fi
echo "== 1/5 tests of the Open MPI build"
meson test -C build --print-errorlogs --num-processes 2 --no-suite cluster-long
echo "== 2/5 tests of the MPICH build"
meson test -C build-mpich --print-errorlogs --num-processes 1 --suite mpich --no-suite cluster-long
echo "== 3/5 correctness matrix under ASan + UBSan"
"$top/tests/coll/matrix/run-sanitizers.sh" "$top/build-sanitize"
echo "== 4/5 the replay on a simulated cluster (SimGrid SMPI)"
"$top/tests/sim/run.sh" "$top/build-smpi" "$top/build/cli/collsel"
echo "== 5/5 fuzz targets, 4 s each (tests/fuzz/run.sh)"
"$top/tests/fuzz/run.sh" 4
echo "== all tests passed in $(($(date +%s) - start)) s"
