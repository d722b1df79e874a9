#!/bin/bash
# tests/cluster/mpiexec.sh FLAVOUR NP PROGRAM [ARGS...]: tests/mpiexec.sh's
# interface, but the NP ranks run on the nodes of a cluster on this machine
# (tools/cluster.sh): CS_TEST_CLUSTER_NODES nodes (default 2) of NP / NODES
# ranks each.  A cluster that is up with enough nodes is used (tools/test.sh
# brings one up around the cluster tests); else one is brought up for this
# run and taken down after it.  One run at a time on the machine (a lock).
# Where namespaces cannot be made: one line, exit 77 (skipped).
# Extra launcher options come in MPIEXEC_EXTRA, as for tests/mpiexec.sh.
# MPICH: a run that does not end within CS_TEST_MPICH_LIMIT s (default
# 150) has its ranks' stacks read (tests/cluster/stuck.sh) before they are
# killed.  Only MPICH's own finalize hang over UCX TCP (below: every stuck
# rank inside MPICH's MPI_Finalize, no collsel frame in it) runs again, up
# to CS_TEST_MPICH_TRIES runs in all (default 2), each retry printed and
# counted (a line in $CS_TEST_RETRY_LOG, which tools/test.sh prints); a
# hang in collsel's code (its stuck-wait report, or a frame of collsel's in
# a stuck rank) or one not proven MPICH's fails at once, with the stacks.
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
    # (openucx/ucx#8738; at 2 x 2 and 4 x 1 up to 1 run in 4, README;
    # tools/cluster-mpich.c works around it).  A run that does not end
    # within LIMIT s: its ranks' stacks are read, its processes killed; if
    # every stuck rank is in MPICH's MPI_Finalize it runs again, up to
    # TRIES runs, else it fails.  The output shown is the last run's.
    limit=${CS_TEST_MPICH_LIMIT:-150} tries=${CS_TEST_MPICH_TRIES:-2}
    # The launch line preloads tools/cluster-mpich.c (-genv LD_PRELOAD); a
    # test's own -genv LD_PRELOAD LIB (the preload tests) would replace it:
    # LIB:cluster-mpich.so.
    yl=$(echo "$line" | sed -n 's/.* -genv LD_PRELOAD \([^ ]*\).*/\1/p')
    [ -n "$yl" ] && MPIEXEC_EXTRA=$(echo "${MPIEXEC_EXTRA:-}" |
        sed "s#-genv LD_PRELOAD \([^ ]*\)#-genv LD_PRELOAD \1:$yl#g")
    out=$(mktemp) err=$(mktemp) stacks=$(mktemp)
    ranks() { # the job's ranks: the processes of its nodes that have libmpich mapped
        local i p
        for i in $(seq 1 "$nodes"); do
            for p in $("$cl" pids "$i" 2> /dev/null); do
                grep -q libmpich "/proc/$p/maps" 2> /dev/null && echo "$p"
            done
        done
    }
    for try in $(seq 1 "$tries"); do
        # shellcheck disable=SC2086
        $line $MPIEXEC_EXTRA "$@" > "$out" 2> "$err" &
        job=$! t=0
        while kill -0 "$job" 2> /dev/null && [ $t -lt $((limit * 10)) ]; do
            sleep 0.1; t=$((t + 1))
        done
        if ! kill -0 "$job" 2> /dev/null; then
            wait "$job"; rc=$?
            break
        fi
        # it hangs: where are its ranks?  (their stacks before the kill)
        # shellcheck disable=SC2046
        "$top/tests/cluster/stuck.sh" "$top" $(ranks) > "$stacks" 2>&1; mpich=$?
        grep -q "one wait in .* has taken [0-9.]* s: waiting for" "$err" &&
            { echo "cluster mpiexec.sh: collsel's stuck-wait report (below)" >> "$stacks"; mpich=1; }
        kill "$job" 2> /dev/null
        for i in $(seq 1 "$nodes"); do "$cl" kill "$i" 2> /dev/null; done
        wait "$job" 2> /dev/null
        rc=124
        if [ $mpich != 0 ]; then
            cat "$stacks" >&2
            echo "cluster mpiexec.sh: the MPICH job did not end within $limit s, and not in" \
                 "MPICH's MPI_Finalize: a hang of collsel's (or not proven MPICH's);" \
                 "not run again (run $try of $tries)" >&2
            break
        fi
        tail -1 "$stacks" >&2
        msg="cluster mpiexec.sh: run $try of $tries of '$(basename "$1")' ($np ranks) hung in"
        msg="$msg MPICH's MPI_Finalize (openucx/ucx#8738) after $limit s: its processes killed"
        [ "$try" -lt "$tries" ] && msg="$msg, running it again" || msg="$msg; the last run: failed"
        echo "$msg" >&2
        [ -n "${CS_TEST_RETRY_LOG:-}" ] && echo "$msg" >> "$CS_TEST_RETRY_LOG"
    done
    cat "$out"
    cat "$err" >&2
    rm -f "$out" "$err" "$stacks"
fi
[ -n "$mine" ] && "$cl" down
exit $rc
