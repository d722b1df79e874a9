#!/bin/sh
# export_probe_test.sh COLLSEL PROBE_SO APP_SRC MPIEXEC_SH DIR: the MPI
# libraries installed here load `collsel export`'s files and run, for one
# leaf per collective, the algorithm the export names -- seen by the
# library's own calls (export_probe.c), not by our reading of the file.
#
# The tree: at every size, bcast.scatter_ringallgather, reduce.rabenseifner,
# allreduce.rabenseifner, alltoall.linear_sync.k4, barrier.double_ring
# (none of them what the libraries run natively at 2 ranks).
# Open MPI: the probe prints the coll/base function coll/tuned calls (and
# its segment size / max requests); with the file it must be the exported
# algorithm's, without it another one.  Every target the installed release
# reads is run (5.0.7: ompi-4.1 and ompi-5.0; 4.1: ompi-4.1); the default
# target of --format ompi-rules must be the installed release's.
# MPICH: the probe prints the size of each message (MPIR_CVAR_NOLOCAL=1:
# through UCX); the sequence with the file must be the one of a run where
# MPICH is told the algorithm by its CVAR, and differ from that of another
# algorithm (barrier: every MPICH barrier sends the same at 2 ranks, so it
# is only compared).  The other MPICH target's file must be refused at
# MPI_Init by the installed release (4.2.1 refuses 4.0's dissemination).
# 2 ranks (Open MPI 5 refuses more ranks than cores with binding).
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
collsel=$(abs "$1"); probe=$(abs "$2"); src=$(abs "$3"); mpiexec=$(abs "$4")
dir=$5/export_probe; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
[ "$(uname -m)" = x86_64 ] || { echo "probe forwards x86-64 arguments only: skipped"; exit 77; }
fails=0 ran=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }

awk 'BEGIN {
    print "collective,comm_size,msg_bytes,method,median_us,min_us,max_us,reps"
    split("bcast.scatter_ringallgather reduce.rabenseifner allreduce.rabenseifner " \
          "alltoall.linear_sync.k4", m, " ")
    for (p = 2; p <= 8; p *= 2) {
        for (n = 8; n <= 1048576; n *= 8)
            for (i = 1; i <= 4; i++) {
                c = m[i]; sub(/\..*/, "", c)
                print c "," p "," n "," c ".native,10,9,11,5"
                print c "," p "," n "," m[i] ",5,4,6,5"
            }
        print "barrier," p ",0,barrier.native,10,9,11,5"
        print "barrier," p ",0,barrier.double_ring,5,4,6,5"
    }
}' > perf.csv
"$collsel" tune --perf perf.csv -o probe.tree > tune.out 2>&1 || { cat tune.out; exit 1; }
colls="bcast reduce allreduce alltoall barrier"
# default FORMAT OUT WANT LIBRARY: --format FORMAT without --target takes
# WANT, the target of the LIBRARY ("Open MPI 5.0.7") installed
default() {
    "$collsel" export probe.tree --format $1 -o $2 > $2.out 2>&1 ||
        fail "export --format $1: $(cat $2.out)"
    grep -q "^target $3 (installed: $4 " $2.out ||
        fail "$4: default target not $3: $(head -1 $2.out)"
}
bytes() { case $1 in alltoall) echo 4096 ;; barrier) echo 0 ;; *) echo 65536 ;; esac; }

# ---- Open MPI --------------------------------------------------------------
# expect COLL TARGET: the coll/base function (and argument) the file names
ompi_expect() {
    case $1 in
    bcast) echo "ompi_coll_base_bcast_intra_scatter_allgather_ring " ;;
    reduce) echo "ompi_coll_base_reduce_intra_redscat_gather" ;;
    allreduce) echo "ompi_coll_base_allreduce_intra_redscat_allgather" ;;
    alltoall) [ "$2" = ompi-4.1 ] && echo "ompi_coll_base_alltoall_intra_linear_sync " ||
        echo "ompi_coll_base_alltoall_intra_linear_sync max_requests 4" ;;
    barrier) echo "ompi_coll_base_barrier_intra_doublering" ;;
    esac
}
# ompi_run COLL FILE|none -> $seen: the rank 0 probe lines
ompi_run() {
    extra="-x LD_PRELOAD=$probe"
    [ "$2" != none ] && extra="$extra --mca coll_tuned_use_dynamic_rules 1" &&
        extra="$extra --mca coll_tuned_dynamic_rules_filename $PWD/$2"
    MPIEXEC_EXTRA="$extra" timeout 120 "$mpiexec" openmpi 2 ./app_ompi "$1" "$(bytes "$1")" \
        > run.out 2>&1
    rc=$?
    grep -q "^probe ok" run.out || fail "Open MPI $1 with $2 (exit $rc): $(head -5 run.out)"
    seen=$(sed -n 's/^collsel-probe rank 0: //p' run.out | sort -u | tr '\n' ';')
}
if command -v mpicc.openmpi > /dev/null && command -v ompi_info > /dev/null; then
    ver=$(ompi_info --version | sed -n 's/^Open MPI v\([0-9.]*\).*/\1/p')
    mpicc.openmpi -o app_ompi "$src" || exit 1
    case $ver in
    4.*|5.0.[0-6]) want=ompi-4.1; targets=ompi-4.1 ;;
    *) want=ompi-5.0; targets="ompi-4.1 ompi-5.0" ;;
    esac
    default ompi-rules default.conf $want "Open MPI $ver"
    for t in $targets; do
        "$collsel" export probe.tree --target $t -o $t.conf > $t.out 2>&1 ||
            fail "export --target $t: $(cat $t.out)"
        for c in $colls; do
            ompi_run $c none; native=$seen
            ompi_run $c $t.conf; ours=$seen
            want_fn=$(ompi_expect $c $t)
            echo "Open MPI $ver $t $c: with the file: $ours natively: $native"
            case "$ours" in
            *"$want_fn"*) ;;
            *) fail "Open MPI $ver, $t, $c: ran '$ours', not $want_fn" ;;
            esac
            [ "$ours" != "$native" ] || fail "Open MPI $ver, $c: the file changed nothing ($ours)"
            ran=$((ran + 1))
        done
    done
fi

# ---- MPICH -----------------------------------------------------------------
# mpich_run COLL FILE|none [CVAR VALUE] -> $seen: the message sizes, per rank
mpich_run() {
    c=$1 f=$2
    set --
    [ "$f" != none ] && set -- MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$PWD/$f
    [ -n "$cvar" ] && set -- "$@" "$cvar"
    env LD_PRELOAD="$probe" MPIR_CVAR_NOLOCAL=1 "$@" timeout 120 mpirun.mpich -n 2 \
        ./app_mpich $c "$(bytes $c)" > run.out 2>&1
    rc=$?
    seen=$(sed -n 's/^collsel-probe //p' run.out | sort | tr '\n' ';')
    grep -q "^probe ok" run.out
}
if command -v mpicc.mpich > /dev/null && command -v mpichversion > /dev/null; then
    ver=$(mpichversion -v | sed -n 's/^MPICH Version:[^0-9]*\([0-9.]*\).*/\1/p')
    mpicc.mpich -o app_mpich "$src" || exit 1
    case $ver in
    4.0.*) want=mpich-4.0 other=mpich-4.1 barrier=dissemination ;;
    *) want=mpich-4.1 other=mpich-4.0 barrier=k_dissemination ;;
    esac
    default mpich-json probe.json $want "MPICH $ver"
    for c in $colls; do
        C=$(echo $c | tr a-z A-Z)
        case $c in
        bcast) named=scatter_ring_allgather contrast=binomial ;;
        reduce) named=reduce_scatter_gather contrast=binomial ;;
        allreduce) named=reduce_scatter_allgather contrast=recursive_doubling ;;
        alltoall) named=scattered contrast=pairwise ;;
        barrier) named=$barrier contrast= ;;
        esac
        cvar= ; mpich_run $c probe.json || fail "MPICH $ver $c with probe.json: $(head -5 run.out)"
        ours=$seen
        cvar=MPIR_CVAR_${C}_INTRA_ALGORITHM=$named
        mpich_run $c none || fail "MPICH $ver $c with $cvar: $(head -5 run.out)"
        forced=$seen
        echo "MPICH $ver $c: with the file: $ours $named by CVAR: $forced"
        [ -n "$ours" ] || fail "MPICH $ver $c: the probe saw no message (MPIR_CVAR_NOLOCAL?)"
        [ "$ours" = "$forced" ] || fail "MPICH $ver $c: the file ran '$ours', $named runs '$forced'"
        if [ -n "$contrast" ]; then
            cvar=MPIR_CVAR_${C}_INTRA_ALGORITHM=$contrast
            mpich_run $c none || fail "MPICH $ver $c with $cvar: $(head -5 run.out)"
            echo "MPICH $ver $c: $contrast by CVAR: $seen"
            [ "$seen" != "$forced" ] || fail "MPICH $ver $c: $named and $contrast look alike"
        fi
        ran=$((ran + 1))
    done
    # the other release's file: refused at MPI_Init by this one
    "$collsel" export probe.tree --target $other -o other.json > other.out 2>&1 ||
        fail "export --target $other: $(cat other.out)"
    cvar= ; mpich_run barrier other.json &&
        fail "MPICH $ver accepted the $other file (it should refuse the other release's names)"
    echo "MPICH $ver with the $other file: $(grep -m1 -i 'unrecognized\|error\|abort' run.out)"
fi
[ $ran -gt 0 ] || { echo "neither Open MPI nor MPICH installed: skipped"; exit 77; }
[ $fails -eq 0 ] && echo "export probe: $ran leaves run as exported"
exit $fails
