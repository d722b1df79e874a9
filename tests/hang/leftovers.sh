#!/bin/sh
# leftovers.sh MPIEXEC FLAVOUR NP COLLSEL CHURN STUCK OUTDIR: nothing of
# collsel's left behind.  Jobs that make, use and free communicators with
# every shared-memory method (churn) end in every way: normally,
# MPI_Abort, SIGTERM to one rank, SIGKILL to one rank, SIGKILL to all; and
# a segment refused by COLLSEL_SHM_LIMIT (0 on every rank; 0 on rank 1
# only, after rank 0 made the object).  After each: the launcher returns
# within 60 s, no process of the job is left (none spinning), and no
# /dev/shm/collsel.PID.* object of its processes remains.  A job killed
# (SIGKILL) while a segment is being made can leave that one object: the
# next segment made on the node removes it, checked with objects planted
# under the name of a dead process (removed) and of a live one (kept).
mpiexec=$1 flavour=$2 np=$3 collsel=$4 churn=$5 stuck=$6 out=$7
rankenv=$(cd "$(dirname "$0")/../.." && pwd)/tests/rankenv.sh
rm -rf "$out"; mkdir -p "$out"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ "$flavour" = openmpi ] && export MPIEXEC_EXTRA="${MPIEXEC_EXTRA:-} --mca odls_base_sigkill_timeout 2"

# pids DIR: the job's rank pids, once all np have written theirs (10 s)
pids() {
    i=0
    while [ "$(ls "$1"/pid.* 2>/dev/null | wc -l)" -lt "$np" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    cat "$1"/pid.* 2>/dev/null
}

# after NAME: no process of the job alive (within 10 s), no object left
after() {
    d=$out/$1
    all=$(cat "$d"/pid.* 2>/dev/null)
    [ -n "$all" ] || { bad "$1: no pid files"; return; }
    i=0
    while [ $i -lt 100 ]; do
        alive=
        for p in $all; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
        [ -z "$alive" ] && break
        sleep 0.1; i=$((i + 1))
    done
    [ -z "$alive" ] || { bad "$1: processes left:$alive"; ps -o pid,stat,time,cmd -p $(echo $alive | tr ' ' ,); kill -KILL $alive; }
    left=
    for p in $all; do left="$left$(ls /dev/shm | grep "^collsel\.$p\." | tr '\n' ' ')"; done
    echo "$1: $(echo $all | wc -w) processes ended${left:+, left in /dev/shm: $left}"
    [ -z "$left" ] || [ "$2" = may-leave ] || bad "$1: left in /dev/shm: $left"
    leftover="$leftover$left"
}

# job NAME MODE N: churn in the background
job() {
    mkdir -p "$out/$1"
    timeout 60 "$mpiexec" "$flavour" "$np" "$churn" "$out/$1" "$2" "$3" > "$out/$1/log" 2>&1 &
    jobpid=$!
}

job normal normal 100; wait $jobpid || bad "normal: exit $?: $(tail -3 "$out/normal/log")"; after normal
job abort abort 200; wait $jobpid; rc=$?
[ $rc != 0 ] && [ $rc != 124 ] || bad "abort: exit $rc (MPI_Abort's non-zero expected, no timeout)"; after abort
for sig in TERM KILL; do
    job one-$sig normal 0; p=$(pids "$out/one-$sig" | sed -n 2p); sleep 0.5
    kill -$sig "$p"; wait $jobpid; [ $? != 124 ] || bad "one-$sig: the launcher did not end"
    after one-$sig may-leave
done
job all-KILL normal 0; p=$(pids "$out/all-KILL"); sleep 0.5
kill -KILL $p; wait $jobpid; [ $? != 124 ] || bad "all-KILL: the launcher did not end"
after all-KILL may-leave

# refused by COLLSEL_SHM_LIMIT: everywhere, and on rank 1 only (tests/rankenv.sh)
mkdir -p "$out/limit" "$out/limit-one"
COLLSEL_SHM_LIMIT=0 COLLSEL_VERBOSE=1 timeout 60 "$mpiexec" "$flavour" 2 "$collsel" exec \
    --force barrier=barrier.shm.ota -- "$stuck" "$out/limit" 10 0 -1 > "$out/limit/log" 2>&1 ||
    bad "limit: exit $?: $(cat "$out/limit/log")"
grep -q "no shared-memory segment" "$out/limit/log" || bad "limit: the segment was not refused"
after limit
timeout 60 "$mpiexec" "$flavour" 2 "$rankenv" 1 COLLSEL_SHM_LIMIT=0 -- "$collsel" exec \
    --force barrier=barrier.shm.ota -- "$stuck" "$out/limit-one" 10 0 -1 > "$out/limit-one/log" 2>&1 ||
    bad "limit-one: exit $?: $(cat "$out/limit-one/log")"
grep -q "stuck: 10 calls, 0 wrong" "$out/limit-one/log" || bad "limit-one: wrong results: $(cat "$out/limit-one/log")"
after limit-one

# the sweep: a dead creator's objects go (those the kills left, and a
# planted one), a live one's stay
sh -c 'echo $$ > "$1"' sh "$out/dead.pid"; dead=$(cat "$out/dead.pid")
echo x > /dev/shm/collsel.$dead.0.planted; echo x > /dev/shm/collsel.$$.0.planted
job sweep normal 4; wait $jobpid || bad "sweep: exit $?"
[ -e /dev/shm/collsel.$dead.0.planted ] && bad "sweep: the object of a dead process was not removed"
[ -e /dev/shm/collsel.$$.0.planted ] || bad "sweep: the object of a live process was removed"
rm -f /dev/shm/collsel.$$.0.planted /dev/shm/collsel.$dead.0.planted
for o in $leftover; do [ -e "/dev/shm/$o" ] && bad "sweep: $o is still there"; done
[ $fail = 0 ] && echo "leftovers: none"
exit $fail
