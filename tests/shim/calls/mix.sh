#!/bin/sh
# mix.sh MPIEXEC FLAVOUR NP COLLSEL MIX CHECK OUTDIR SITE [MIX ARGS...]
# Runs the known mix under `collsel exec --record` at NP ranks and checks the
# merged profile against what the program says it called; some call site
# must name SITE (the calling function).
set -e
mpiexec=$1 flavour=$2 np=$3 collsel=$4 mix=$5 check=$6 out=$7 site=$8
shift 8
mkdir -p "$out"
prof=$out/mix.prof
exp=$out/mix.expect
rm -f "$prof" "$exp" "$prof".partial.*
"$mpiexec" "$flavour" "$np" "$collsel" exec --record "$prof" -- "$mix" "$exp" "$@"
"$check" "$prof" "$exp" --ranks "$np" --site "$site"
