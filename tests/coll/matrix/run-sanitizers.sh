#!/bin/sh
# Sanitizer run of the correctness matrix, the isolation test, the
# multi-threaded test, the dynamic reductions' tests (random arrivals,
# virtual nodes, ranks stopped; the shm stress of the dynamic methods) and
# the communicator churn (leaks: LeakSanitizer):
# configures (once) a separate build directory with AddressSanitizer +
# UndefinedBehaviorSanitizer (gcc), builds only these two programs, and
# runs them at 4 ranks (sizes 4 | 3+1 | 2: every method, every root, every
# datatype and op; the 5/7/8-rank sizes are left to the plain matrix).
# Takes about 40 s of runs on 2 idle cores (plus ~30 s for the first build).
#   usage: tests/coll/matrix/run-sanitizers.sh [BUILDDIR]
#   (default BUILDDIR: build-sanitize at the top of the source tree)
# Exit status 0 only if both runs pass with no sanitizer report.
set -e
top=$(cd "$(dirname "$0")/../../.." && pwd)
bdir=${1:-$top/build-sanitize}
if [ ! -f "$bdir/build.ninja" ]; then
    CC=gcc meson setup "$bdir" "$top" -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debugoptimized -Dwerror=false >/dev/null
fi
ninja -C "$bdir" tests/coll/matrix/matrix tests/coll/matrix/anysource \
    tests/coll/matrix/threads tests/coll/shm/shm_dynamic tests/coll/shm/shm_stress \
    tests/hang/churn >/dev/null
# detect_leaks=0: MPI's own allocations at exit are not ours to fix.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
start=$(date +%s)
"$top/tests/mpiexec.sh" openmpi 4 "$bdir/tests/coll/matrix/matrix"
# virtual nodes of 2: the node-aware methods (and shared memory in the nodes)
"$top/tests/mpiexec.sh" openmpi 4 "$bdir/tests/coll/matrix/matrix" --methods .node. --node-size 2
"$top/tests/mpiexec.sh" openmpi 4 "$bdir/tests/coll/matrix/anysource"
"$top/tests/mpiexec.sh" openmpi 4 "$bdir/tests/coll/shm/shm_dynamic" 200
"$top/tests/mpiexec.sh" openmpi 4 "$bdir/tests/coll/shm/shm_dynamic" 100 --node-size 2 --stop
"$top/tests/mpiexec.sh" openmpi 3 "$bdir/tests/coll/shm/shm_stress" 2000 .dynamic
rc=0
"$top/tests/mpiexec.sh" openmpi 2 "$bdir/tests/coll/matrix/threads" || rc=$?
[ $rc -eq 0 ] || exit $rc # (77, MPI_THREAD_MULTIPLE not provided, is a failure too)
# communicators made, used with every shared-memory method and freed: no
# leak of ours (LeakSanitizer; MPI's own at exit suppressed, its components
# kept loaded so that their frames can be named; 300 here, 1000 measured
# by hand: tests/hang/meson.build)
OMPI_MCA_mca_base_component_disable_dlclose=1 \
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0 \
    LSAN_OPTIONS=suppressions=$top/tests/hang/lsan.supp:print_suppressions=0 \
    "$top/tests/mpiexec.sh" openmpi 2 "$bdir/tests/hang/churn" "$bdir" normal 300
echo "run-sanitizers: matrix, anysource, threads, dynamic, stress (dynamic), churn (with LSan) under ASan/UBSan passed in $(($(date +%s) - start)) s"
