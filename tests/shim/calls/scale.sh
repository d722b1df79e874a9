#!/bin/sh
# scale.sh MPIEXEC FLAVOUR NP COLLSEL SCALEPROG CHECK OUTDIR
# Thousands of distinct cells on many communicators: recorded exactly
# within the default bound; with a low bound (COLLSEL_RECORD_MAX_KIB=2) the
# profile is folded to fit (file size checked), `collsel show` says so, and
# every count is still exact (the checker folds its expectation the same
# way).
mpiexec=$1 flavour=$2 np=$3 collsel=$4 prog=$5 check=$6 out=$7
mkdir -p "$out"
fail=0
for kib in 64 2; do
    prof=$out/scale-$kib.prof
    rm -f "$prof" "$prof".partial.*
    COLLSEL_RECORD_MAX_KIB=$kib timeout 120 "$mpiexec" "$flavour" "$np" "$collsel" exec \
        --record "$prof" -- "$prog" "$out/scale-$kib.expect" >"$out/scale-$kib.log" 2>&1 ||
        { echo "FAIL $kib KiB: the run failed"; cat "$out/scale-$kib.log"; fail=1; continue; }
    size=$(wc -c <"$prof")
    [ "$size" -le $((kib * 1024)) ] || { echo "FAIL $kib KiB: the profile has $size bytes"; fail=1; }
    "$check" "$prof" "$out/scale-$kib.expect" --ranks "$np" || fail=1
    "$collsel" show "$prof" >"$out/scale-$kib.show" || fail=1
    if [ "$kib" = 2 ] && ! grep -q "^folded      level [0-9]*: .* cells merged" "$out/scale-$kib.show"; then
        echo "FAIL $kib KiB: collsel show does not say the profile is folded"; head -5 "$out/scale-$kib.show"; fail=1
    fi
    echo "$kib KiB: $(cat "$out/scale-$kib.log" | grep shim_scale), profile $size bytes, $(grep '^folded' "$out/scale-$kib.show" || echo 'not folded')"
done
exit $fail
