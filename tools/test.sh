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
#   6. the MPI flavours' tests (1. and 2. without the cluster) on the other
#      Debian release, in a root that tools/release-root.sh makes with
#      debootstrap and removes: on Debian 12 that is Debian 13 (Open MPI
#      5.0.7, MPICH 4.2.1, gcc 14), on Debian 13 Debian 12; its tests are
#      counted as 'trixie-openmpi: NAME' ...  CS_TEST_RELEASE=SUITE
#      picks the release, =none skips the stage (counted as a skip).
# --mpi-only: stages 1 and 2 only, without the cluster (what 6. runs in
# the root; CS_TEST_TALLY=FILE: the tally is also copied there).
# Exit status 0 only if nothing failed.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
mpi_only=0
case ${1:-} in
--mpi-only) mpi_only=1 ;;
-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "tools/test.sh: unknown option '$1' (--mpi-only, --help)" >&2; exit 2 ;;
esac
SETUP_MPI_ONLY=$mpi_only "$top/tools/setup.sh"
cd "$top"
start=$(date +%s)
tally=$(mktemp) # one line per test: pass|fail|skip<TAB>STAGE: NAME<TAB>REASON
cluster=
prep= rdir=
cleanup() {
    [ -z "$cluster" ] || "$top/tools/cluster.sh" down
    # a root prepared for stage 6 that never ran (interrupted): its maker
    # unmounts what it mounted when it ends; then the folder goes
    if [ -n "$prep" ] && [ -d "$rdir" ]; then
        wait "$prep" 2> /dev/null || :
        grep -q " $rdir/" /proc/mounts || rm -rf --one-file-system "$rdir"
    fi
    rm -rf "$tally" "$tally.out" "$tally.rc" "$tally.retries" "$tally.release" "$tally.results" \
        "$tally.prep"
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
    *"release-root.sh: SKIP: not root"*) [ "$(id -u)" = 0 ] ;;
    *"release-root.sh: SKIP: no debootstrap"*) command -v debootstrap > /dev/null ;;
    *"release-root.sh: SKIP: "*|*"release stage: "*) return 1 ;; # space, the archive
    *) return 2 ;;
    esac
}

# the multi-node tests run on a cluster on this machine (tools/cluster.sh:
# 4 nodes as namespaces); where namespaces cannot be made, they skip with
# the reason (and could_run says whether that was right)
# the release this machine is (Debian's codename), and the other one that
# stage 6 tests
. /etc/os-release 2> /dev/null || :
here=${VERSION_CODENAME:-unknown}
if [ "$mpi_only" = 1 ]; then
    # in a release root (stage 6 of the machine outside): no cluster there
    flav=${CS_RELEASE_ROOT:+$CS_RELEASE_ROOT-}
    echo "== 1/2 tests of the Open MPI build ($here, no cluster)"
    # one test at a time: two Open MPI 5 jobs started together in a fresh
    # root hung both (shim-mix-np4 and shim-mix-forced, 178 s each, once
    # in 3 runs of the suite; not reproduced in 5 runs of the pair since)
    meson_stage "${flav}openmpi" build --num-processes 1 --no-suite cluster --no-suite cluster-long
    echo "== 2/2 tests of the MPICH build ($here, no cluster)"
    meson_stage "${flav}mpich" build-mpich --num-processes 1 --suite mpich --no-suite cluster \
        --no-suite cluster-long
else
    if "$top/tools/cluster.sh" up 4 --ranks-per-node 2 > /dev/null; then
        cluster=1
    fi
    echo "== 1/6 tests of the Open MPI build"
    meson_stage openmpi build --num-processes 2
    echo "== 2/6 tests of the MPICH build"
    meson_stage mpich build-mpich --num-processes 1 --suite mpich
    case ${CS_TEST_RELEASE:-} in
    "") case $here in bookworm) other=trixie ;; trixie) other=bookworm ;; *) other= ;; esac ;;
    *) other=$CS_TEST_RELEASE ;;
    esac
    rdir=/var/tmp/collsel-test-$other prep=
    # the other release's root is made (debootstrap, its packages: network
    # and disk more than processors) while stages 3-5, which time nothing,
    # run; stage 6 then starts from it and removes it
    if [ -n "$other" ] && [ "$other" != none ]; then
        "$top/tools/release-root.sh" --suite "$other" --dir "$rdir" --prepare \
            > "$tally.prep" 2>&1 &
        prep=$!
    fi
    echo "== 3/6 correctness matrix under ASan + UBSan"
    script_stage sanitizers "$top/tests/coll/matrix/run-sanitizers.sh" "$top/build-sanitize"
    echo "== 4/6 the replay on a simulated cluster (SimGrid SMPI)"
    script_stage smpi "$top/tests/sim/run.sh" "$top/build-smpi" "$top/build/cli/collsel"
    echo "== 5/6 fuzz targets, 4 s each (tests/fuzz/run.sh)"
    script_stage fuzz "$top/tests/fuzz/run.sh" 4
    if [ -n "$prep" ]; then
        wait "$prep" || :
        # its own lines (what it made, or why it skipped), not apt's
        grep '^release-root.sh' "$tally.prep" | sed 's/^/  (prepared while 3-5 ran) /' || :
    fi
    : > "$tally.release"
    if [ "$other" = none ]; then
        printf 'skip\trelease: %s\trelease stage: CS_TEST_RELEASE=none\n' "-" >> "$tally"
    elif [ -z "$other" ]; then
        printf 'skip\trelease: %s\trelease stage: no other Debian release to test from %s\n' \
            "-" "${PRETTY_NAME:-this system}" >> "$tally"
    else
        echo "== 6/6 the MPI flavours on $other (tools/release-root.sh)"
        mkdir -p "$tally.results"
        script_stage "release" "$top/tools/release-root.sh" --suite "$other" --dir "$rdir" \
            --results "$tally.results" -- ./tools/test.sh --mpi-only
        # the root's own tally replaces the stage's one line: every test
        # counted, its skips judged there (by that machine's could_run)
        if [ -s "$tally.results/tally" ]; then
            sed '$d' "$tally" > "$tally.out" && mv "$tally.out" "$tally"
            cp "$tally.results/tally" "$tally.release"
        fi
    fi
fi

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
[ ! -s "$tally.release" ] || cat "$tally.release" >> "$tally"
[ -z "${CS_TEST_TALLY:-}" ] || cp "$tally" "$CS_TEST_TALLY" || :
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
