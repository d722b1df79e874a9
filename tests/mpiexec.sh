#!/bin/sh
# mpiexec.sh FLAVOUR NP PROGRAM [ARGS...]: run an MPI program the way this
# machine needs it (root, oversubscribed, yielding when idle), for either
# Open MPI or MPICH.  Extra mpirun options can come in MPIEXEC_EXTRA.
# Open MPI: ranks bound to cores even when there are more ranks than cores
# (rank i on core i mod 2 here): unbound, the kernel moves them between
# launches and which ranks share a core changes which method is fastest
# (measured: the winner at reduce 4 ranks 8 B flipped in 2 of 4 launches
# unbound, never bound), so a tree tuned in one launch would not hold in
# the next.
flavour=$1; np=$2; shift 2
case "$flavour" in
openmpi)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    exec mpirun.openmpi -n "$np" --oversubscribe --bind-to core:overload-allowed \
        --mca mpi_yield_when_idle 1 --mca btl self,vader $MPIEXEC_EXTRA "$@" ;;
mpich)
    exec mpirun.mpich -n "$np" $MPIEXEC_EXTRA "$@" ;;
*)
    echo "mpiexec.sh: unknown MPI flavour '$flavour' (openmpi or mpich)" >&2; exit 2 ;;
esac
