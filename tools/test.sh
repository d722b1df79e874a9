#!/bin/sh
# tools/test.sh: set up (tools/setup.sh: Debian packages, Open MPI build in
# build/, MPICH build in build-mpich/), then run the whole test suite:
#   1. every test of the Open MPI build (unit, MPI, CLI golden tests),
#   2. the MPICH flavour's tests (suite 'mpich', 2 ranks),
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
echo "== 1/5 tests of the Open MPI build"
meson test -C build --print-errorlogs --num-processes 2
echo "== 2/5 tests of the MPICH build"
meson test -C build-mpich --print-errorlogs --num-processes 1 --suite mpich
echo "== 3/5 correctness matrix under ASan + UBSan"
"$top/tests/coll/matrix/run-sanitizers.sh" "$top/build-sanitize"
echo "== 4/5 the replay on a simulated cluster (SimGrid SMPI)"
"$top/tests/sim/run.sh" "$top/build-smpi" "$top/build/cli/collsel"
echo "== 5/5 fuzz targets, 4 s each (tests/fuzz/run.sh)"
"$top/tests/fuzz/run.sh" 4
echo "== all tests passed in $(($(date +%s) - start)) s"
