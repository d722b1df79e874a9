#!/bin/sh
# tools/mpich-colltests.sh: MPICH's own collective tests of MPI_Alltoall
# (test/mpi/coll of the MPICH source: alltoall1, coll13, icalltoall) run
# through the preload library with every alltoall method forced in turn
# (COLLSEL_FORCE=alltoall=M), each test's verdict (" No Errors") checked,
# and the forced decisions counted in the COLLSEL_VERBOSE=2 log (a method
# that never ran is reported: icalltoall is on intercommunicators, which
# stay native by design).  The node-aware methods run on virtual nodes of
# 2 ranks (COLLSEL_NODE_SIZE=2), the others on one node.
#   usage: tools/mpich-colltests.sh [--np N (4)] [--methods GLOB (alltoall.*)]
#                                   [--src DIR (a cache of the MPICH source)]
# The MPICH source comes from Debian's source package (apt-get source mpich,
# with a deb-src list of its own under DIR: the machine's apt configuration
# is not touched); nothing of it is kept in this repository.  Built with
# the Open MPI flavour's mpicc against the build in $COLLSEL_BUILD (build/).
# Not part of the CI (it downloads); exit 1 if any run failed.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
NP=4 GLOB='alltoall.*' SRC=${TMPDIR:-/tmp}/collsel-mpich-src
while [ $# -gt 0 ]; do
    case "$1" in
    --np) NP=$2; shift 2 ;;
    --methods) GLOB=$2; shift 2 ;;
    --src) SRC=$2; shift 2 ;;
    -h|--help) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "mpich-colltests.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
B=${COLLSEL_BUILD:-$top/build}
collsel=$B/cli/collsel lib=$B/shim/libcollsel.so
[ -x "$collsel" ] && [ -f "$lib" ] ||
    { echo "mpich-colltests.sh: no build in $B (meson setup build && ninja -C build)" >&2; exit 2; }
mkdir -p "$SRC/lists/partial"
T=$(ls -d "$SRC"/mpich-*/test/mpi 2>/dev/null | head -1)
if [ -z "$T" ]; then
    echo "fetching the MPICH source package (Debian) into $SRC"
    printf 'deb-src http://deb.debian.org/debian bookworm main\n' > "$SRC/src.list"
    A="-o Dir::Etc::sourcelist=$SRC/src.list -o Dir::Etc::sourceparts=- -o Dir::State::Lists=$SRC/lists"
    (cd "$SRC" && apt-get $A update > apt.log 2>&1 && apt-get $A source --download-only mpich >> apt.log 2>&1) ||
        { tail -5 "$SRC/apt.log" >&2; echo "mpich-colltests.sh: cannot fetch the MPICH source" >&2; exit 2; }
    tarball=$(ls "$SRC"/mpich_*.orig.tar.* | head -1)
    (cd "$SRC" && tar xf "$tarball" --wildcards '*/test/mpi/coll/*' '*/test/mpi/util/*' '*/test/mpi/include/*')
    T=$(ls -d "$SRC"/mpich-*/test/mpi | head -1)
fi
W=$SRC/build; mkdir -p "$W"
# the configure-generated header, for this machine (Linux, no GPU, no threads package)
cat > "$W/mpitestconf.h" <<'EOF'
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
#define HAVE_STDARG_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_USLEEP 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
#endif
EOF
tests="alltoall1 coll13 icalltoall"
for t in $tests; do
    mpicc.openmpi -O1 -w -I"$W" -I"$T/include" -o "$W/$t" "$T/coll/$t.c" "$T/util/mtest.c" \
        "$T/util/mtest_common.c" "$T/util/dtypes.c" "$T/util/mtest_single.c" ||
        { echo "mpich-colltests.sh: cannot build $t" >&2; exit 2; }
done
methods=$("$collsel" methods --csv | cut -d, -f1 | grep '^alltoall\.' | grep -v '\.native$' |
          while read -r m; do case $m in $GLOB) echo "$m" ;; esac; done)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bad=0
printf '%-26s %-11s %-8s %s\n' METHOD TEST VERDICT "FORCED CALLS (rank 0's log: one per comm and size bin)"
for m in $methods; do
    for t in $tests; do
        log=$W/$t.$m.log
        case $m in *.node.*) nodes=2 ;; *) nodes=0 ;; esac
        env COLLSEL_FORCE="alltoall=$m" COLLSEL_VERBOSE=2 COLLSEL_NODE_SIZE=$nodes \
            MPIEXEC_EXTRA="-x LD_PRELOAD=$lib -x COLLSEL_FORCE -x COLLSEL_VERBOSE -x COLLSEL_NODE_SIZE" \
            timeout 600 "$top/tests/mpiexec.sh" openmpi "$NP" "$W/$t" > "$log" 2>&1 && rc=0 || rc=$?
        ok=$(grep -c '^ No Errors' "$log" || true)
        ran=$(grep -c -- "-> $m (forced)" "$log" || true)
        verdict=ok
        [ "$rc" -eq 0 ] && [ "$ok" -eq 1 ] || { verdict=FAILED; bad=1; }
        note=""
        [ "$ran" -gt 0 ] || note=" (never ran: $( [ $t = icalltoall ] && echo 'intercommunicators stay native' || echo 'did not apply'))"
        printf '%-26s %-11s %-8s %s%s\n' "$m" "$t" "$verdict" "$ran" "$note"
        [ $verdict = ok ] || tail -5 "$log"
    done
done
exit $bad
