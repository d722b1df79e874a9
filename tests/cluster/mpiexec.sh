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
# is killed after CS_TEST_MPICH_LIMIT s (default 150) and run once more.
top=$(cd "$(dirname "$0")/../.." && pwd)
cl=$top/tools/cluster.sh
flavour=$1 np=$2; shift 2
nodes=${CS_TEST_CLUSTER_NODES:-2}
[ $((np % nodes)) = 0 ] || { echo "cluster mpiexec.sh: $np ranks do not fill $nodes nodes evenly" >&2; exit 2; }
"$cl" check > /dev/null || exit $?
exec 9< "$cl" # the lock: on the script itself (no file left behind)
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
    # (openucx/ucx#8738).  A run that does not end within LIMIT s has its
    # processes killed and runs once more; its output is shown only for the
    # run that counts.  A second hang fails.
    limit=${CS_TEST_MPICH_LIMIT:-150}
    out=$(mktemp) err=$(mktemp)
    for try in 1 2; do
        # shellcheck disable=SC2086
        timeout "$limit" $line $MPIEXEC_EXTRA "$@" > "$out" 2> "$err"
        rc=$?
        [ $rc = 124 ] && [ $try = 1 ] || break
        echo "cluster mpiexec.sh: the MPICH job did not end within $limit s (MPICH's" \
             "finalize hang over UCX TCP, openucx/ucx#8738?): its processes killed," \
             "running it once more" >&2
        for i in $(seq 1 "$nodes"); do "$cl" kill "$i" 2> /dev/null; done
    done
    cat "$out"
    cat "$err" >&2
    rm -f "$out" "$err"
fi
[ -n "$mine" ] && "$cl" down
exit $rc
