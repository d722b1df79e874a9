#!/bin/bash
# tests/cluster/mpiexec.sh FLAVOUR NP PROGRAM [ARGS...]: tests/mpiexec.sh's
# interface, but the NP ranks run on the nodes of a cluster on this machine
# (tools/cluster.sh): CS_TEST_CLUSTER_NODES nodes (default 2) of NP / NODES
# ranks each.  A cluster that is up with enough nodes is used (tools/test.sh
# brings one up around the cluster tests); else one is brought up for this
# run and taken down after it.  One run at a time on the machine (a lock).
# Where namespaces cannot be made: one line, exit 77 (skipped).
# Extra launcher options come in MPIEXEC_EXTRA, as for tests/mpiexec.sh.
# MPICH: a run that hangs (MPICH's own finalize hang over UCX TCP, below)
# is killed after CS_TEST_MPICH_LIMIT s (default 150) and run again, up to
# CS_TEST_MPICH_TRIES runs in all (default 2).
top=$(cd "$(dirname "$0")/../.." && pwd)
cl=$top/tools/cluster.sh
flavour=$1 np=$2; shift 2
nodes=${CS_TEST_CLUSTER_NODES:-2}
[ $((np % nodes)) = 0 ] || { echo "cluster mpiexec.sh: $np ranks do not fill $nodes nodes evenly" >&2; exit 2; }
"$cl" check > /dev/null || exit $?
lock=$("$cl" lockfile) || exit 1
exec 9>> "$lock" # one cluster user at a time, machine-wide (every clone's tests and benches)
flock 9
# a node of the cluster's and its nodes' processes are seen from node 1 only
have=$(cat /run/collsel-cluster/state 2> /dev/null | cut -d' ' -f1)
mine=
if [ -z "$have" ] || [ "$have" -lt "$nodes" ]; then
    "$cl" up "$nodes" > /dev/null || exit 1
    mine=1
fi
case "$flavour" in
openmpi) export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ;;
mpich) ;;
*) echo "cluster mpiexec.sh: unknown MPI flavour '$flavour' (openmpi or mpich)" >&2; exit 2 ;;
esac
line=$("$cl" launcher "$flavour" --nodes "$nodes" --ranks-per-node $((np / nodes))) || exit 1
if [ "$flavour" = openmpi ]; then
    # shellcheck disable=SC2086
    $line $MPIEXEC_EXTRA "$@"
    rc=$?
else
    # MPICH 4.0.2 over UCX 1.13's TCP transport hangs now and then in
    # MPI_Finalize across nodes, with no collsel loaded: one rank waits in
    # PMI's barrier, the other flushes its endpoint to it for ever
    # (openucx/ucx#8738; at 2 x 2 and 4 x 1 up to 1 run in 4, README).  A
    # run that does not end within LIMIT s has its processes killed and runs
    # again, up to TRIES runs; its output is shown only for the run that
    # counts.  The last run hanging fails.
    limit=${CS_TEST_MPICH_LIMIT:-150} tries=${CS_TEST_MPICH_TRIES:-2}
    # The launch line preloads tools/cluster-mpich.c (-genv LD_PRELOAD); a
    # test's own -genv LD_PRELOAD LIB (the preload tests) would replace it:
    # LIB:cluster-mpich.so.
    yl=$(echo "$line" | sed -n 's/.* -genv LD_PRELOAD \([^ ]*\).*/\1/p')
    [ -n "$yl" ] && MPIEXEC_EXTRA=$(echo "${MPIEXEC_EXTRA:-}" |
        sed "s#-genv LD_PRELOAD \([^ ]*\)#-genv LD_PRELOAD \1:$yl#g")
    out=$(mktemp) err=$(mktemp)
    for try in $(seq 1 "$tries"); do
        # shellcheck disable=SC2086
        timeout "$limit" $line $MPIEXEC_EXTRA "$@" > "$out" 2> "$err"
        rc=$?
        [ $rc = 124 ] && [ "$try" -lt "$tries" ] || break
        echo "cluster mpiexec.sh: the MPICH job did not end within $limit s (MPICH's" \
             "finalize hang over UCX TCP, openucx/ucx#8738?): its processes killed," \
             "running it again (run $((try + 1)) of $tries)" >&2
        for i in $(seq 1 "$nodes"); do "$cl" kill "$i" 2> /dev/null; done
    done
    cat "$out"
    cat "$err" >&2
    rm -f "$out" "$err"
fi
[ -n "$mine" ] && "$cl" down
exit $rc
