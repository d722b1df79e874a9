#!/bin/sh
# persist.sh MPIEXEC FLAVOUR NP COLLSEL PERSIST OUTDIR
# Runs shim_persist (persistent and neighborhood collectives) under
# `collsel exec --record` and checks `collsel show --csv` against what the
# program says it called: every expected cell (collective, communicator
# size, exact size) with exactly its operations, and no other cell.
set -e
mpiexec=$1 flavour=$2 np=$3 collsel=$4 app=$5 out=$6
mkdir -p "$out"
prof=$out/persist.prof exp=$out/persist.expect csv=$out/persist.csv
rm -f "$prof" "$exp" "$csv" "$prof".partial.*
"$mpiexec" "$flavour" "$np" "$collsel" exec --record "$prof" -- "$app" "$exp"
"$collsel" show "$prof" --csv > "$csv"
fail=0
while read -r coll size bytes ops; do
    got=$(awk -F, -v c="$coll" -v s="$size" -v b="$bytes" \
        '$1 == c && $2 == s && $5 ~ ("^" b ":") { print $6 }' "$csv")
    if [ "$got" != "$ops" ]; then
        echo "FAIL: $coll at $size ranks, $bytes B: ${got:-no cell}, expected $ops operations"
        fail=1
    fi
done < "$exp"
rows=$(grep -c '^[A-Z][a-z_]*,[0-9]' "$csv" || true)
want=$(wc -l < "$exp")
if [ "$rows" != "$want" ]; then
    echo "FAIL: $rows cells in the profile, expected $want:"
    cat "$csv"
    fail=1
fi
[ $fail = 0 ] && echo "persist: ok ($want cells)"
exit $fail
