#!/bin/sh
# bad.sh MPIEXEC FLAVOUR COLLSEL MIX CHECK OUTDIR
# Bad input never harms the application: each case runs the mix at 2 ranks
# and must complete (exit 0, its log written) with exactly one line on
# stderr naming the problem.
mpiexec=$1 flavour=$2 collsel=$3 mix=$4 check=$5 out=$6
mkdir -p "$out"
fail=0

# expect_line CASE PATTERN...: the case printed exactly one collsel line and
# it matches every pattern.
expect_line() {
    case_=$1; shift
    n=$(grep -c '^collsel' "$out/$case_.err")
    if [ "$n" != 1 ]; then
        echo "FAIL $case_: $n collsel lines on stderr, expected 1:"; cat "$out/$case_.err"; fail=1
        return
    fi
    for pat in "$@"; do
        if ! grep '^collsel' "$out/$case_.err" | grep -q -- "$pat"; then
            echo "FAIL $case_: the line does not name '$pat':"; cat "$out/$case_.err"; fail=1
        fi
    done
    echo "$case_: $(grep '^collsel' "$out/$case_.err")"
}

# run CASE [ENV=VALUE...] -- COLLSEL-EXEC-ARGS
run() {
    case_=$1; shift
    rm -f "$out/$case_.expect"
    env "$@" "$mpiexec" "$flavour" 2 "$collsel" exec $EXEC_ARGS -- "$mix" "$out/$case_.expect" \
        >"$out/$case_.out" 2>"$out/$case_.err"
    rc=$?
    if [ "$rc" != 0 ] || [ ! -s "$out/$case_.expect" ]; then
        echo "FAIL $case_: the application did not complete (exit status $rc)"; cat "$out/$case_.err"; fail=1
    fi
}

EXEC_ARGS="--record /nonexistent/dir/x.prof" run missing-dir SHIM_TEST_CASE=1
expect_line missing-dir 'COLLSEL_RECORD' '/nonexistent/dir' 'does not exist' 'recording is off'

# A read-only directory: chmod works for ordinary users; root writes
# anywhere, so as root use /proc (exists, no new files can be made there).
rodir=$out/readonly
mkdir -p "$rodir"; chmod 555 "$rodir"
if [ "$(id -u)" = 0 ]; then rodir=/proc; fi
EXEC_ARGS="--record $rodir/x.prof" run read-only SHIM_TEST_CASE=1
expect_line read-only 'COLLSEL_RECORD' "$rodir" 'recording is off'
chmod 755 "$out/readonly"

# COLLSEL_RECORD naming a directory: refused at init (rename() could not
# replace it at the end, and all the data would be lost).
mkdir -p "$out/adir.prof"
EXEC_ARGS="--record $out/adir.prof" run is-dir SHIM_TEST_CASE=1
expect_line is-dir 'COLLSEL_RECORD' "$out/adir.prof" 'not a regular file' 'recording is off'

rm -f "$out/bogus.prof"
EXEC_ARGS="--record $out/bogus.prof" run bogus COLLSEL_BOGUS=1
expect_line bogus 'COLLSEL_BOGUS' 'COLLSEL_RECORD'
"$check" "$out/bogus.prof" "$out/bogus.expect" --ranks 2 || fail=1

EXEC_ARGS="" run banana COLLSEL_VERBOSE=banana
expect_line banana 'COLLSEL_VERBOSE' 'banana' '0..3'

# A snapshot interval that is not a number of seconds: the default, one line.
for v in 0.001 -1 1e99 10s nan; do
    rm -f "$out/interval.prof"
    EXEC_ARGS="--record $out/interval.prof" run interval-$v COLLSEL_RECORD_INTERVAL=$v
    expect_line interval-$v 'COLLSEL_RECORD_INTERVAL' "'$v'" '0.01' 'using 60'
    "$check" "$out/interval.prof" "$out/interval-$v.expect" --ranks 2 || fail=1
done

# COLLSEL_RECORD on rank 1 only: no hang, recording off, one line.
rm -f "$out/some.expect" "$out/some.prof"
"$mpiexec" "$flavour" 2 sh -c 'r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
    if [ "$r" = 1 ]; then exec "$0" exec --record "$2/some.prof" -- "$1" "$2/some.expect"; fi
    exec "$0" exec -- "$1" "$2/some.expect"' "$collsel" "$mix" "$out" >"$out/some.out" 2>"$out/some.err"
rc=$?
if [ "$rc" != 0 ] || [ ! -s "$out/some.expect" ]; then
    echo "FAIL some-ranks: the application did not complete (exit status $rc)"; cat "$out/some.err"; fail=1
fi
expect_line some 'COLLSEL_RECORD' 'some ranks' 'recording is off'
[ -e "$out/some.prof" ] && { echo "FAIL some-ranks: a profile was written"; fail=1; }

# COLLSEL_FORCE on rank 1 only: every rank must agree to stay native (our
# methods meeting the native call would hang), one line says so.
rm -f "$out/force-some.expect"
timeout 60 "$mpiexec" "$flavour" 2 sh -c 'r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
    if [ "$r" = 1 ]; then export COLLSEL_FORCE=bcast=bcast.binomial; fi
    exec "$0" exec -- "$1" "$2/force-some.expect"' "$collsel" "$mix" "$out" \
    >"$out/force-some.out" 2>"$out/force-some.err"
rc=$?
if [ "$rc" != 0 ] || [ ! -s "$out/force-some.expect" ]; then
    echo "FAIL force-some: the application did not complete (exit status $rc)"
    cat "$out/force-some.err"; fail=1
fi
expect_line force-some 'disagree' 'bcast stays native'

exit $fail
