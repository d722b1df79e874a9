#!/bin/sh
# tools/rank63.sh [NP] [STEPS] [RUNS]: the 64-rank recording runs whose
# mpirun said "rank 63 ... exiting improperly" after a correct profile
# (issue 23, item 5).  The example application at NP ranks (default 64) on
# this machine (oversubscribed, mpi_yield_when_idle, as tests/mpiexec.sh
# runs them), STEPS time steps (default 400), RUNS times each (default 3),
# alternating: natively; recorded (collsel exec --record, snapshots every
# second); recorded without the snapshot thread (COLLSEL_RECORD_INTERVAL=0).
# KINDS: the kinds to run (default all three); COLLSEL_RECORD_INTERVAL: the
# snapshot interval of "record" (default 1 s).
# Per run: mpirun's exit status, whether it printed "exiting improperly"
# (and for which rank), the wall time, and for recorded runs whether the
# profile is complete.  Kept out of CI (minutes per run).
top=$(cd "$(dirname "$0")/.." && pwd)
b=${COLLSEL_BUILD:-$top/build}
collsel=$b/cli/collsel
np=${1:-64} steps=${2:-400} runs=${3:-3}
out=${OUT:-$top/out-rank63}
mkdir -p "$out"
# APP=scale: tests/shim/scale.c instead (64 communicators of every size, 25
# message sizes: the 64-rank measurement of the README's profile size)
if [ "${APP:-example}" = scale ]; then
    app="$b/tests/shim/shim_scale $out/scale.expect 24"
else
    app="$b/tests/apps/example_app --steps $steps --n 2000 --table-mib 1"
fi
echo "rank63: $np ranks, ${APP:-example} (--steps $steps), $runs runs per kind ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
for i in $(seq "$runs"); do
    for kind in ${KINDS:-native record record-nosnap}; do
        log=$out/$kind-$i.log prof=$out/$kind-$i.prof
        rm -f "$prof" "$prof".partial.*
        case $kind in
        native) cmd=$app ;;
        record) cmd="$collsel exec --record $prof -- $app" ;;
        record-nosnap) cmd="env COLLSEL_RECORD_INTERVAL=0 $collsel exec --record $prof -- $app" ;;
        esac
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086
        COLLSEL_RECORD_INTERVAL=${COLLSEL_RECORD_INTERVAL:-1} timeout 1800 "$top/tests/mpiexec.sh" openmpi "$np" $cmd > "$log" 2>&1
        rc=$?
        t=$(echo "$(date +%s.%N) - $t0" | bc)
        imp=$(grep -o 'rank [0-9]* with PID [0-9]* on node [a-z0-9]* exiting improperly' "$log" | head -1)
        pr=
        [ $kind != native ] && { "$collsel" show "$prof" > "$prof.show" 2>&1 && pr=", profile complete" || pr=", profile: $(head -1 "$prof.show")"; }
        printf '  %-14s run %d: exit %d, %.0f s%s%s\n' "$kind" "$i" "$rc" "$t" "${imp:+, $imp}" "$pr"
    done
done
