#!/bin/sh
# tools/sim/smpirun.sh NP TMPDIR PROGRAM [ARGS...]: the one smpirun command
# line of collsel's simulations (tools/simulate.sh, tools/papers.sh,
# tests/sim/run.sh): NP simulated ranks on the modelled cluster of
# cluster.xml, 10 Gflop/s hosts, computation not simulated (deterministic
# timings), Open MPI's selector for the native collectives, SMPI's
# temporary files in TMPDIR ('': SMPI's default), warnings only.
np=$1 tmp=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
exec smpirun -np "$np" -platform "$here/cluster.xml" --cfg=smpi/host-speed:10Gf \
    --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi \
    ${tmp:+--cfg=smpi/tmpdir:"$tmp"} --log=root.thres:warning "$@"
