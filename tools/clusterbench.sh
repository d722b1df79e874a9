#!/bin/bash
# tools/clusterbench.sh: collsel's methods against native on a cluster on
# this machine (tools/cluster.sh), with Open MPI's defaults and with its
# hierarchical component forced (HAN: --mca coll_han_priority 100), the
# two launches alternating, at each netem delay.  Prints collsel-bench's
# tables (ratio = method / the native of that launch) and a summary per
# point: native, native HAN, the best node-aware method and the best method.
#   tools/clusterbench.sh [--layout NxR] [--delays 0,20] [--reps N]
#                         [--sizes LIST] [--colls LIST] [--time-per-method S]
#                         [--methods LIST]   (collsel-bench --methods; default
#                         the node-aware ones and the point-to-point methods
#                         they use between leaders)
# Out of CI (minutes); the machine's other load shows in the figures.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${COLLSEL_BUILD:-$top/build}
layout=2x2 delays=0,20 reps=3 sizes=8,65536,1048576 colls=bcast,reduce,allreduce,barrier tpm=0.05
methods=.node.,node_,.binomial,.knomial.k4,.recursive_doubling,.dissemination,.rabenseifner
usage() { sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//p}' "$0"; }
while [ $# -gt 0 ]; do
    case "$1" in
    --layout) layout=$2; shift 2 ;;
    --delays) delays=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --colls) colls=$2; shift 2 ;;
    --time-per-method) tpm=$2; shift 2 ;;
    --methods) methods=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "clusterbench.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
n=${layout%x*} r=${layout#*x}
case "$n$r" in *[!0-9]*|'') echo "clusterbench.sh: --layout takes NxR (got '$layout')" >&2; exit 2 ;; esac
cl=$top/tools/cluster.sh
"$cl" check > /dev/null || exit $?
exec 9< "$cl" # one cluster user at a time (tests/cluster/mpiexec.sh takes it too)
flock 9
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
trap '"$cl" down' EXIT
for d in ${delays//,/ }; do
    "$cl" up "$n" --ranks-per-node "$r" --delay "$d" > /dev/null || exit 1
    line=$("$cl" launcher openmpi)
    for rep in $(seq 1 "$reps"); do
        for cfg in defaults han; do
            extra=
            [ $cfg = han ] && extra="--mca coll_han_priority 100"
            echo "== delay $d us, $layout, native $cfg, rep $rep"
            # shellcheck disable=SC2086
            $line $extra "$B/replay/collsel-bench" --coll "$colls" --sizes "$sizes" \
                --time-per-method "$tpm" --methods "$methods"
        done
    done
done
