#!/bin/sh
# spawn.sh LIBCOLLSEL COLLSEL PROG OUTDIR (Open MPI)
# A job started by MPI_Comm_spawn inherits the preload and COLLSEL_RECORD
# (mpirun -x): it must record into FILE.spawn.PID, not over its parent's
# FILE (the last writer would win and one job's data would be lost).
set -e
lib=$1 collsel=$2 prog=$3 out=$4
mkdir -p "$out"
prof=$out/spawn.prof
rm -f "$prof" "$prof".*
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# spawning needs a transport between the jobs (tcp; vader is per job)
LD_PRELOAD=$lib COLLSEL_RECORD=$prof mpirun.openmpi -n 2 --oversubscribe --bind-to none \
    --mca mpi_yield_when_idle 1 --mca btl self,vader,tcp -x LD_PRELOAD -x COLLSEL_RECORD "$prog"
calls() { # calls PROFILE COLL: rank calls of COLL in PROFILE
    "$collsel" show "$1" --csv | awk -F, -v c="$2" '$1 == c { n += $7 } END { print n + 0 }'
}
[ "$(calls "$prof" Barrier)" = 10 ] && [ "$(calls "$prof" Bcast)" = 0 ] ||
    { "$collsel" show "$prof"; echo "FAIL: the parent's profile is not the parent's calls"; exit 1; }
set -- "$prof".spawn.*
[ $# -eq 1 ] && [ -f "$1" ] || { ls -l "$out"; echo "FAIL: no FILE.spawn.PID profile"; exit 1; }
[ "$(calls "$1" Bcast)" = 14 ] && [ "$(calls "$1" Barrier)" = 0 ] ||
    { "$collsel" show "$1"; echo "FAIL: the child's profile is not the child's calls"; exit 1; }
echo "spawn: parent and child job each kept their own profile ($1)"
