#!/bin/sh
# tools/test.sh: set up (tools/setup.sh: Debian packages, Open MPI build in
# build/, MPICH build in build-mpich/), then run the whole test suite:
#   1. every test of the Open MPI build (unit, MPI, CLI golden tests, and
#      the multi-node ones, suites 'cluster' and 'cluster-long', on a
#      cluster of namespaces that tools/cluster.sh brings up before 1. and
#      down at the end),
#   2. the MPICH flavour's tests (suite 'mpich', 2 ranks; its cluster tests),
#   3. the correctness matrix under AddressSanitizer + UBSan,
#   4. the SimGrid SMPI flavour (tests/sim/run.sh),
#   5. every fuzz target briefly (tests/fuzz/run.sh: clang, libFuzzer,
#      ASan + UBSan; its corpus grows in build-fuzz between runs).
# Every test is counted: the skipped ones are listed with their reasons,
# and a skip of what this machine can run (could_run below) is a failure.
# The last line is the count, 'N passed, N failed, N skipped'.  A stage of
# meson tests is one meson_stage call; a stage run elsewhere (a chroot)
# runs its `meson test` there and hands its testlog.json to count_testlog.
# Exit status 0 only if nothing failed.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tools/setup.sh"
cd "$top"
start=$(date +%s)
tally=$(mktemp) # one line per test: pass|fail|skip<TAB>STAGE: NAME<TAB>REASON
cluster=
cleanup() {
    [ -z "$cluster" ] || "$top/tools/cluster.sh" down
    rm -f "$tally" "$tally.out" "$tally.rc" "$tally.retries"
}
trap cleanup EXIT
# MPICH cluster runs retried after MPICH's own finalize hang, one line each
# (tests/cluster/mpiexec.sh): printed at the end
export CS_TEST_RETRY_LOG="$tally.retries"
: > "$CS_TEST_RETRY_LOG"

# count_testlog STAGE TESTLOG.JSON: add the results of one `meson test`
# run (its meson-logs/testlog.json) to the tally
count_testlog() { python3 "$top/tools/testlog.py" "$1" "$2" >> "$tally"; }

# meson_stage STAGE BUILDDIR [MESON-TEST-ARGS...]: one `meson test` run,
# counted (a failure does not stop the stages after it)
meson_stage() {
    stage=$1 dir=$2
    shift 2
    rm -f "$dir/meson-logs/testlog.json"
    meson test -C "$dir" --print-errorlogs "$@" || :
    count_testlog "$stage" "$dir/meson-logs/testlog.json"
}

# script_stage STAGE COMMAND...: a script that is one test: exit 0 passed,
# 77 skipped (its last line the reason), anything else failed
script_stage() {
    stage=$1
    shift
    ( set +e; "$@"; echo $? > "$tally.rc" ) 2>&1 | tee "$tally.out"
    rc=$(cat "$tally.rc")
    case $rc in
    0) printf 'pass\t%s: %s\t\n' "$stage" "$1" >> "$tally" ;;
    77) printf 'skip\t%s: %s\t%s\n' "$stage" "$1" "$(grep . "$tally.out" | tail -1)" >> "$tally" ;;
    *) printf 'fail\t%s: %s\texit %s\n' "$stage" "$1" "$rc" >> "$tally" ;;
    esac
}

# could_run REASON: whether this machine has what a test that skipped with
# REASON said was missing (then the skip is a failure); 2: a reason not
# known here (a failure too: every skip is accounted for).
could_run() {
    case $1 in
    *"cluster.sh: skipped: tc qdisc"*|*"cluster.sh: skipped: no /dev/net/tun"*)
        [ -c /dev/net/tun ] && command -v "${CC:-cc}" > /dev/null ;;
    *"cluster.sh: skipped: no C compiler"*) command -v "${CC:-cc}" > /dev/null ;;
    *"cluster.sh: skipped:"*) "$top/tools/cluster.sh" check > /dev/null 2>&1 ;;
    *"SKIP: not a git checkout"*) git -C "$top" rev-parse --git-dir > /dev/null 2>&1 ;;
    *"MPICH not installed: skipped"*)
        command -v mpicc.mpich > /dev/null && command -v mpirun.mpich > /dev/null ;;
    *"slurm: skipped: not root"*) [ "$(id -u)" = 0 ] ;;
    *"slurm: skipped: "*) command -v slurmctld > /dev/null && command -v slurmd > /dev/null ;;
    *) return 2 ;;
    esac
}

# the multi-node tests run on a cluster on this machine (tools/cluster.sh:
# 4 nodes as namespaces); where namespaces cannot be made, they skip with
# the reason (and could_run says whether that was right)
if "$top/tools/cluster.sh" up 4 --ranks-per-node 2 > /dev/null; then
    cluster=1
fi
echo "== 1/5 tests of the Open MPI build"
meson_stage openmpi build --num-processes 2
echo "== 2/5 tests of the MPICH build"
meson_stage mpich build-mpich --num-processes 1 --suite mpich
echo "== 3/5 correctness matrix under ASan + UBSan"
script_stage sanitizers "$top/tests/coll/matrix/run-sanitizers.sh" "$top/build-sanitize"
echo "== 4/5 the replay on a simulated cluster (SimGrid SMPI)"
script_stage smpi "$top/tests/sim/run.sh" "$top/build-smpi" "$top/build/cli/collsel"
echo "== 5/5 fuzz targets, 4 s each (tests/fuzz/run.sh)"
script_stage fuzz "$top/tests/fuzz/run.sh" 4

# skips this machine could have run become failures
while IFS="$(printf '\t')" read -r res name why; do
    c=1 # 1: counted as it is
    if [ "$res" = skip ]; then c=0; could_run "$why" || c=$?; fi
    case $c in
    0) printf 'fail\t%s\tskipped, but this machine can run it: %s\n' "$name" "$why" ;;
    2) printf 'fail\t%s\tskipped for a reason tools/test.sh does not know: %s\n' "$name" "$why" ;;
    *) printf '%s\t%s\t%s\n' "$res" "$name" "$why" ;;
    esac
done < "$tally" > "$tally.out"
mv "$tally.out" "$tally"
n() { grep -c "^$1	" "$tally" || :; }
passed=$(n pass) failed=$(n fail) skipped=$(n skip)
if [ "$skipped" -gt 0 ]; then
    echo "== skipped ($skipped):"
    grep "^skip	" "$tally" | cut -f2,3 | sed 's/	/: /; s/^/  /'
fi
if [ "$failed" -gt 0 ]; then
    echo "== failed ($failed):"
    grep "^fail	" "$tally" | cut -f2,3 | sed 's/	/: /; s/^/  /'
fi
if [ -s "$CS_TEST_RETRY_LOG" ]; then
    echo "== MPICH runs retried after a hang in MPICH's MPI_Finalize ($(wc -l < "$CS_TEST_RETRY_LOG")):"
    sed 's/^cluster mpiexec.sh: /  /' "$CS_TEST_RETRY_LOG"
fi
echo "== $(($(date +%s) - start)) s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
