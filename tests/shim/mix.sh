#!/bin/sh
# mix.sh MPIEXEC FLAVOUR NP COLLSEL MIX CHECK OUTDIR [MIX ARGS...]
# Runs the known mix under `collsel exec --record` at NP ranks and checks the
# merged profile against what the program says it called.
set -e
mpiexec=$1 flavour=$2 np=$3 collsel=$4 mix=$5 check=$6 out=$7
shift 7
mkdir -p "$out"
prof=$out/mix.prof
exp=$out/mix.expect
rm -f "$prof" "$exp" "$prof".partial.*
"$mpiexec" "$flavour" "$np" "$collsel" exec --record "$prof" -- "$mix" "$exp" "$@"
"$check" "$prof" "$exp" --ranks "$np" --site run_mix
