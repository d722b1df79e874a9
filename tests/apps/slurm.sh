#!/bin/sh
# slurm.sh FLAVOUR COLLSEL APP OUTDIR: `collsel autotune --launcher 'srun
# ...'` under a Slurm of one node that this test starts and stops
# (Debian's slurm-wlm: slurmctld and slurmd on this machine, a minimal
# slurm.conf in OUTDIR, no munge: auth/none, ports of their own).  Then:
# the report names the srun command to run with, the tree is written, the
# profile has 2 ranks, and the tuned run under srun gives the
# application's output.  Exit 77 (skipped), saying why, where Slurm cannot
# be started here: not root (slurmd runs jobs as their users), a program
# or plugin missing, the daemons not up within 20 s, or the MPI flavour
# not one srun can start (Open MPI: srun --mpi=pmix; MPICH: --mpi=pmi2).
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
flavour=$1 collsel=$(abs "$2") app=$(abs "$3") out=$4
skip() { echo "slurm: skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root (slurmd runs the jobs as their users)"
for p in slurmctld slurmd srun sinfo scontrol; do
    command -v $p >/dev/null 2>&1 || skip "$p not found (Debian: apt-get install slurm-wlm)"
done
plug=$(dirname "$(find /usr/lib /usr/lib64 -name auth_none.so -path '*slurm*' 2>/dev/null | head -1)")
[ -f "$plug/auth_none.so" ] || skip "Slurm's auth/none plugin not found"
case $flavour in
openmpi) mpi=pmix ;;
mpich) mpi=pmi2 ;;
*) skip "flavour $flavour" ;;
esac
[ -f "$plug/mpi_$mpi.so" ] || skip "Slurm's mpi/$mpi plugin not found (needed by the $flavour flavour)"
rm -rf "$out"; mkdir -p "$out/state" "$out/spool" && cd "$out" || exit 1
out=$(pwd) host=$(hostname -s)
port=$((20000 + $$ % 20000))
cpus=$(nproc)
cat > slurm.conf <<CONF
ClusterName=collseltest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$out/state
SlurmdSpoolDir=$out/spool
SlurmctldPidFile=$out/slurmctld.pid
SlurmdPidFile=$out/slurmd.pid
SlurmctldLogFile=$out/slurmctld.log
SlurmdLogFile=$out/slurmd.log
PlugStackConfig=$out/plugstack.conf
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=$mpi
ReturnToService=2
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$cpus RealMemory=500 State=UNKNOWN
PartitionName=collseltest Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
CONF
: > plugstack.conf
export SLURM_CONF=$out/slurm.conf
slurmctld -f "$SLURM_CONF" -D > slurmctld.out 2>&1 &
ctld=$!
slurmd -f "$SLURM_CONF" -D > slurmd.out 2>&1 &
d=$!
stop() {
    kill "$d" "$ctld" 2>/dev/null
    i=0
    while { kill -0 "$d" || kill -0 "$ctld"; } 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -KILL "$d" "$ctld" 2>/dev/null
}
trap stop EXIT
i=0
until sinfo -h -o %T 2>/dev/null | grep -q idle; do
    i=$((i + 1))
    if [ $i -gt 200 ] || ! kill -0 "$ctld" 2>/dev/null || ! kill -0 "$d" 2>/dev/null; then
        tail -3 slurmctld.log slurmd.log slurmctld.out slurmd.out 2>/dev/null
        skip "the Slurm daemons did not come up within 20 s (logs above)"
    fi
    sleep 0.1
done
echo "slurm: slurmctld and slurmd up on $host (ports $port, $((port + 1)))"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
launcher="srun -n 2 --overcommit --mpi=$mpi"
timeout 300 "$collsel" autotune --launcher "$launcher" --budget 5s -o app.tree -- "$app" --quick > autotune.txt 2>&1 ||
    { bad "autotune under srun (exit $?)"; tail -20 autotune.txt; }
grep -q "^  $launcher .*collsel exec --tree app.tree -- " autotune.txt ||
    { bad "the report does not give the srun command"; tail -5 autotune.txt; }
[ -s app.tree ] && "$collsel" tree show app.tree > /dev/null || bad "no tree written"
prof=$(ls -d *.autotune 2>/dev/null | head -1)/app.prof
"$collsel" show "$prof" > show.txt 2>&1 && grep -q "2 ranks" show.txt || { bad "the profile is not of 2 ranks"; head -5 show.txt; }
timeout 120 $launcher "$collsel" exec --tree app.tree -- "$app" --quick > tuned.txt 2> tuned.err ||
    bad "the tuned run under srun (exit $?): $(tail -3 tuned.err)"
timeout 120 $launcher "$app" --quick > native.txt 2>&1 || bad "the native run under srun"
[ "$(grep -v -i 'time\|[0-9]\.[0-9]* s' native.txt)" = "$(grep -v -i 'time\|[0-9]\.[0-9]* s' tuned.txt)" ] ||
    bad "tuned and native outputs differ: $(diff native.txt tuned.txt | head -5)"
[ $fail = 0 ] && echo "slurm: collsel autotune --launcher '$launcher' ok"
exit $fail
