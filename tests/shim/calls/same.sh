#!/bin/sh
# same.sh MPIEXEC FLAVOUR NP COLLSEL EXAMPLE_APP OUTDIR
# The example application prints the same stdout natively, preloaded with
# nothing configured (pure pass-through), and recorded.
mpiexec=$1 flavour=$2 np=$3 collsel=$4 app=$5 out=$6
mkdir -p "$out"
fail=0
"$mpiexec" "$flavour" "$np" "$app" --quick >"$out/native" 2>"$out/native.err" || fail=1
"$mpiexec" "$flavour" "$np" "$collsel" exec -- "$app" --quick >"$out/preload" 2>"$out/preload.err" || fail=1
rm -f "$out/ex.prof"
"$mpiexec" "$flavour" "$np" "$collsel" exec --record "$out/ex.prof" -- "$app" --quick \
    >"$out/record" 2>"$out/record.err" || fail=1
[ "$fail" = 0 ] || { echo "FAIL: a run failed"; cat "$out"/*.err; }
[ -s "$out/native" ] || { echo "FAIL: no output"; fail=1; }
for run in preload record; do
    if ! cmp -s "$out/native" "$out/$run"; then
        echo "FAIL: stdout differs ($run):"; diff "$out/native" "$out/$run"; fail=1
    fi
done
[ -s "$out/ex.prof" ] || { echo "FAIL: no profile written"; fail=1; }
[ "$fail" = 0 ] && echo "same.sh: identical stdout ($(wc -l <"$out/native") lines) native, pass-through, recorded"
exit $fail
