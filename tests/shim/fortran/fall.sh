#!/bin/sh
# fall.sh MPIEXEC FLAVOUR NP COLLSEL PROG CHECK OUTDIR
# Every collective once from Fortran (fall.F90, `use mpi` or `use mpi_f08`):
# the recorded profile must match what the program says it called, and
# every call site must be in the program (MAIN__), none in the MPI
# library's Fortran bindings.
set -e
mpiexec=$1 flavour=$2 np=$3 collsel=$4 prog=$5 check=$6 out=$7
mkdir -p "$out"
prof=$out/fall.prof exp=$out/fall.expect
rm -f "$prof" "$exp" "$prof".partial.*
"$mpiexec" "$flavour" "$np" "$collsel" exec --record "$prof" -- "$prog" "$exp"
"$check" "$prof" "$exp" --ranks "$np" --site MAIN__
"$collsel" show "$prof" --top 1000 | sed -n '/^call sites/,$p' | tail -n +3 > "$out/sites.txt"
n=$(wc -l < "$out/sites.txt")
[ "$n" -ge 44 ] || { cat "$out/sites.txt"; echo "FAIL: $n call sites, expected one per collective (44)"; exit 1; }
name=$(basename "$prog")
if grep -v " $name+0x[0-9a-f]* MAIN__+0x" "$out/sites.txt"; then
    echo "FAIL: call sites above are not the program's"
    exit 1
fi
echo "fall: $n call sites, all in $name's MAIN__"
