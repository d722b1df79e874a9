#!/bin/sh
# rankenv.sh RANK VAR=VALUE... -- PROGRAM [ARGS...]: run PROGRAM with the
# VAR=VALUE settings on world rank RANK only, and as it is on the others.
# It stands in for an MPMD launch line (mpirun -n 1 A : -n 3 B), which Open
# MPI 5.0.7's prterun (Debian 13) cannot start: it dies of a segmentation
# fault on any line with ':' (open-mpi/ompi#13303).  The rank comes from
# the launcher's environment: OMPI_COMM_WORLD_RANK (Open MPI 4 and 5),
# PMIX_RANK, PMI_RANK (MPICH's hydra).
usage() { echo "usage: rankenv.sh RANK VAR=VALUE... -- PROGRAM [ARGS...]" >&2; exit 2; }
[ $# -ge 3 ] || usage
want=$1; shift
me=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-}}}
[ -n "$me" ] || { echo "rankenv.sh: no rank in the environment (not started by mpirun?)" >&2; exit 2; }
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case "$1" in
    *=*) [ "$me" = "$want" ] && export "$1" ;;
    *) echo "rankenv.sh: '$1' is not VAR=VALUE" >&2; exit 2 ;;
    esac
    shift
done
[ $# -ge 2 ] || usage
shift
exec "$@"
