#!/bin/sh
# session.sh MPIEXEC FLAVOUR NP COLLSEL SESSION OUTDIR
# An application that starts MPI with MPI_Session_init (MPI 4) under
# `collsel exec --record`: it runs natively with correct results, collsel
# says in exactly one line that it does not record it, and writes no
# profile (and no partial file).
set -e
mpiexec=$1 flavour=$2 np=$3 collsel=$4 app=$5 out=$6
mkdir -p "$out"
prof=$out/session.prof
rm -f "$prof" "$prof".partial.* "$out/stderr"
"$mpiexec" "$flavour" "$np" "$collsel" exec --record "$prof" -- "$app" 2> "$out/stderr" || {
    echo "FAIL: the application failed under collsel:"; cat "$out/stderr"; exit 1; }
n=$(grep -c '^collsel: MPI_Session_init: .*not recorded' "$out/stderr" || true)
if [ "$n" != 1 ] || [ "$(wc -l < "$out/stderr")" != 1 ]; then
    echo "FAIL: expected one line from collsel, stderr was:"; cat "$out/stderr"; exit 1
fi
if ls "$prof" "$prof".partial.* > /dev/null 2>&1; then
    echo "FAIL: a profile was written for a run that was not recorded"; exit 1
fi
echo "session: ok ($(cat "$out/stderr"))"
