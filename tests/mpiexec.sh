#!/bin/sh
# mpiexec.sh FLAVOUR NP PROGRAM [ARGS...]: run an MPI program the way this
# machine needs it (root, oversubscribed, yielding when idle), for either
# Open MPI or MPICH.  Extra mpirun options can come in MPIEXEC_EXTRA.
flavour=$1; np=$2; shift 2
case "$flavour" in
openmpi)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    exec mpirun.openmpi -n "$np" --oversubscribe --bind-to none \
        --mca mpi_yield_when_idle 1 --mca btl self,vader $MPIEXEC_EXTRA "$@" ;;
mpich)
    exec mpirun.mpich -n "$np" $MPIEXEC_EXTRA "$@" ;;
*)
    echo "mpiexec.sh: unknown MPI flavour '$flavour' (openmpi or mpich)" >&2; exit 2 ;;
esac
