#!/bin/sh
# sites.sh MPIEXEC FLAVOUR COLLSEL PROG OUTDIR
# A stripped -rdynamic program: the call site in a function with no symbol
# must show the module and offset only (not the nearest exported function,
# which does not contain it); the call in main must name main.
set -e
mpiexec=$1 flavour=$2 collsel=$3 prog=$4 out=$5
mkdir -p "$out"
prof=$out/sites.prof
rm -f "$prof" "$prof".partial.*
"$mpiexec" "$flavour" 2 "$collsel" exec --record "$prof" -- "$prog"
"$collsel" show "$prof" > "$out/show.txt"
fail=0
if grep -q 'collsel_test_tiny_exported' "$out/show.txt"; then
    echo "FAIL: a call site is named after a function that does not contain it:"
    grep 'collsel_test_tiny_exported' "$out/show.txt"
    fail=1
fi
grep -Eq '^Bcast +[0-9]+ .* shim_sites\+0x[0-9a-f]+$' "$out/show.txt" || {
    echo "FAIL: no Bcast call site shown as shim_sites+OFFSET"; fail=1; }
grep -Eq '^Barrier +[0-9]+ .* shim_sites\+0x[0-9a-f]+ main\+0x[0-9a-f]+$' "$out/show.txt" || {
    echo "FAIL: the Barrier call site in main is not named main"; fail=1; }
if [ $fail -ne 0 ]; then
    sed -n '/^call sites/,$p' "$out/show.txt"
    exit 1
fi
echo "sites: stripped program's call sites named correctly"
