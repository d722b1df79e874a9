#!/bin/sh
# soak.sh MPIEXEC FLAVOUR SOAK OUTDIR SECONDS [CONFIG...]: the soak test
# (soak.c) under the worst scheduling.  A CONFIG is CPUS:RANKS, the ranks
# pinned with taskset to CPUS (default: 8 ranks on core 0, 4 ranks on
# cores 0-1, 2 ranks on cores 0-1; MPICH: 2 ranks on core 0 and on 0-1).
# Each runs SECONDS while one rank, drawn at random each time, is stopped
# (SIGSTOP, 20-200 ms) and continued (SIGCONT) again and again, mid-call.
# A run fails if a result is wrong, a method never ran, no rank was ever
# stopped (unless SOAK_STOP=0), or it does not end within SECONDS + 120 s
# (a hang).  Prints one line of figures per run
# (calls, time per call, stops) and their sum.
#   SOAK_SEED: the seed (default: a new one per run, printed); SOAK_STOP=0:
#   no stopping.
mpiexec=$1 flavour=$2 soak=$3 out=$4 seconds=$5
shift 5
configs=$*
[ -n "$configs" ] || { [ "$flavour" = mpich ] && configs="0:2 0,1:2" || configs="0:8 0,1:4 0,1:2"; }
mkdir -p "$out"
fail=0 total=0 nstops=0
rnd() { od -An -N2 -tu2 /dev/urandom | tr -d ' '; } # 0..65535

for cfg in $configs; do
    cpus=${cfg%%:*} np=${cfg##*:}
    seed=${SOAK_SEED:-$(rnd)$(rnd)}
    log=$out/soak-$cpus-$np.log
    timeout $((seconds + 120)) "$mpiexec" "$flavour" "$np" taskset -c "$cpus" "$soak" \
        --seconds "$seconds" --seed "$seed" --progress 30 > "$log" 2>&1 &
    job=$!
    stops=0
    if [ "${SOAK_STOP:-1}" != 0 ]; then
        # the ranks' pids: the soak processes whose parent is this job's launcher tree
        sleep 1
        while kill -0 $job 2>/dev/null; do
            pids=$(pgrep -f "^$soak --seconds $seconds --seed $seed" | tr '\n' ' ')
            n=$(echo $pids | wc -w)
            [ "$n" -gt 0 ] || { sleep 0.1; continue; }
            p=$(echo $pids | cut -d' ' -f$(($(rnd) % n + 1)))
            kill -STOP "$p" 2>/dev/null && stops=$((stops + 1))
            sleep "0.$(printf %03d $(($(rnd) % 180 + 20)))"
            kill -CONT "$p" 2>/dev/null
            sleep "0.$(printf %03d $(($(rnd) % 250 + 50)))"
        done
    fi
    wait $job
    rc=$?
    line=$(grep '^soak' "$log" | tail -1)
    calls=$(echo "$line" | awk '{ print $2 }')
    echo "soak $np ranks on cpus $cpus, seed $seed: ${line#soak: }; $stops stops"
    total=$((total + ${calls:-0})) nstops=$((nstops + stops))
    if [ $rc = 124 ]; then
        echo "FAIL: $np ranks on cpus $cpus: no end within $((seconds + 120)) s (hang); log $log"; fail=1
    elif [ $rc != 0 ]; then
        echo "FAIL: $np ranks on cpus $cpus (exit $rc):"; grep -i 'fail\|error' "$log" | head -10; fail=1
    fi
    if [ "${SOAK_STOP:-1}" != 0 ] && [ "$stops" = 0 ]; then
        echo "FAIL: $np ranks on cpus $cpus: no rank was ever stopped (the stop loop found no pid)"
        fail=1
    fi
done
echo "soak: $total calls in all, $nstops stops"
exit $fail
