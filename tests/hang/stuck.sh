#!/bin/sh
# stuck.sh MPIEXEC FLAVOUR COLLSEL STUCK OUTDIR: the stuck-wait report.  At
# 2 ranks with barrier.shm.ota forced, rank 1 stops itself (SIGSTOP) before
# barrier 5 while rank 0 waits for its arrival flag.  With
# COLLSEL_SHM_STUCK=0.5 and COLLSEL_VERBOSE=1, rank 0 must print one line
# naming the method, the communicator, the call's number (6), rank 1 as the
# one whose flag it waits for, and its state (stopped); then, continued,
# the job finishes with right results.  With COLLSEL_VERBOSE=0: no line.
# The same with allreduce.shm.dynamic forced on allreduces of one int (a
# wait on whichever rank posts first: the report names the one missing).
mpiexec=$1 flavour=$2 collsel=$3 stuck=$4 out=$5
rm -rf "$out"; mkdir -p "$out"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# run NAME VERBOSE [FORCE COLL]: the job, rank 1 continued once the report
# is there (or after 3 s without one)
run() {
    d=$out/$1; mkdir -p "$d"
    COLLSEL_VERBOSE=$2 COLLSEL_SHM_STUCK=0.5 timeout 60 "$mpiexec" "$flavour" 2 "$collsel" exec \
        --force "${3:-barrier=barrier.shm.ota}" -- "$stuck" "$d" 20 5 1 $4 > "$d/out" 2> "$d/err" &
    job=$!
    i=0
    while [ $i -lt 300 ]; do
        pid=$(cat "$d/pid.1" 2>/dev/null)
        [ -n "$pid" ] && grep -q '^State:.*stopped' "/proc/$pid/status" 2>/dev/null && break
        sleep 0.1; i=$((i + 1))
    done
    [ $i -lt 300 ] || { bad "$1: rank 1 never stopped"; kill "$job"; wait "$job"; return; }
    i=0
    while [ $i -lt 30 ] && ! grep -q 'still waiting' "$d/err"; do sleep 0.1; i=$((i + 1)); done
    grep '^State' "/proc/$pid/status" > "$d/state" # still stopped when the report came
    kill -CONT "$pid"
    wait "$job" || bad "$1: the job failed (exit $?): $(cat "$d/err")"
    grep -q "stuck: 20 calls, 0 wrong" "$d/out" || bad "$1: wrong results: $(cat "$d/out")"
}

run verbose 1
n=$(grep -c 'still waiting' "$out/verbose/err")
[ "$n" = 1 ] || bad "verbose: $n report lines (1 expected): $(cat "$out/verbose/err")"
pid1=$(cat "$out/verbose/pid.1") pid0=$(cat "$out/verbose/pid.0")
line=$(grep 'still waiting' "$out/verbose/err")
echo "report: $line"
for want in "world rank 0 (pid $pid0)" "in barrier.shm.ota on MPI_COMM_WORLD (2 ranks, rank 0 here)" \
    "its shared-memory call 6," "rank 1's flag (world rank 1, pid $pid1, state T: stopped)"; do
    case "$line" in *"$want"*) ;; *) bad "the report does not say '$want'" ;; esac
done
grep -q stopped "$out/verbose/state" || bad "rank 1 was continued before the report"

run dynamic 1 allreduce=allreduce.shm.dynamic allreduce
line=$(grep 'still waiting' "$out/dynamic/err")
n=$(grep -c 'still waiting' "$out/dynamic/err")
[ "$n" = 1 ] || bad "dynamic: $n report lines (1 expected): $(cat "$out/dynamic/err")"
echo "report: $line"
pid1=$(cat "$out/dynamic/pid.1")
for want in "in allreduce.shm.dynamic on MPI_COMM_WORLD" "its shared-memory call 6," \
    "rank 1's flag (world rank 1, pid $pid1, state T: stopped)"; do
    case "$line" in *"$want"*) ;; *) bad "the dynamic report does not say '$want'" ;; esac
done

run quiet 0
grep -q 'still waiting' "$out/quiet/err" && bad "COLLSEL_VERBOSE=0 printed a report: $(cat "$out/quiet/err")"
[ $fail = 0 ] && echo "stuck-wait report: ok"
exit $fail
