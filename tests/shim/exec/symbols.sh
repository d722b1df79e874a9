#!/bin/sh
# symbols.sh LIBCOLLSEL: the preload library exports only MPI names (C:
# MPI_*, Fortran: mpi_* / MPI_* manglings), and at least the C and Fortran
# entry points of MPI_Init and MPI_Bcast.
lib=$1
syms=$(nm -D --defined-only "$lib" | awk '{print $3}') || { echo "FAIL: nm cannot read $lib"; exit 1; }
bad=$(printf '%s\n' "$syms" | grep -v '^MPI_\|^mpi_')
[ -z "$bad" ] || { echo "FAIL: non-MPI symbols exported:"; echo "$bad"; exit 1; }
n=$(printf '%s\n' "$syms" | wc -l)
for s in MPI_Init MPI_Bcast MPI_Ialltoallw MPI_Finalize; do
    printf '%s\n' "$syms" | grep -qx "$s" || { echo "FAIL: $s not exported"; exit 1; }
done
if printf '%s\n' "$syms" | grep -qx 'mpi_bcast_f08ts_'; then
    # MPICH: call-site trampolines and the f08 routines that call PMPI
    fnames="mpi_bcast mpi_bcast_ mpi_bcast__ MPI_BCAST mpi_bcast_f08ts_ mpi_bcast_f08ts_large_
            mpi_init_f08_ mpi_barrier_f08_ mpi_comm_free_f08_"
elif printf '%s\n' "$syms" | grep -qx 'mpi_bcast_'; then
    # Open MPI: every Fortran binding
    fnames="mpi_bcast mpi_bcast__ MPI_BCAST mpi_bcast_f08_ mpi_init_ mpi_finalize_"
fi
if [ -n "$fnames" ]; then
    for s in $fnames; do
        printf '%s\n' "$syms" | grep -qx "$s" || { echo "FAIL: $s not exported"; exit 1; }
    done
fi
echo "symbols: ok ($n exported, all MPI names)"
