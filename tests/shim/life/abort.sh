#!/bin/sh
# abort.sh MPIEXEC FLAVOUR NP COLLSEL ABORTPROG CHECK OUTDIR
# A run that ends in MPI_Abort, and one that ends in exit() without
# MPI_Finalize: every rank leaves FILE.partial.RANK, no FILE is written, the
# partial files hold exactly what the ranks called, and `collsel show` (when
# built) says the run is incomplete.
mpiexec=$1 flavour=$2 np=$3 collsel=$4 prog=$5 check=$6 out=$7
# Open MPI sends SIGKILL 1 s after SIGTERM by default; on a loaded machine a
# rank may not get to run its handler in that time: give it 3 s.
# MPICH's launcher (hydra) kills the other ranks with SIGKILL, which no
# handler sees: there only the last rank (the one that aborts or exits)
# leaves a partial file.
writers=$np
if [ "$flavour" = openmpi ]; then
    export MPIEXEC_EXTRA="${MPIEXEC_EXTRA:-} --mca odls_base_sigkill_timeout 3"
else
    writers=1
fi
mkdir -p "$out"
fail=0
for mode in abort exit; do
    prof=$out/$mode.prof
    rm -f "$prof" "$prof".partial.* "$out/$mode.expect"*
    "$mpiexec" "$flavour" "$np" "$collsel" exec --record "$prof" -- "$prog" "$out/$mode.expect" "$mode" \
        >"$out/$mode.log" 2>&1
    rc=$?
    echo "$mode: mpirun exit status $rc"
    if [ "$rc" = 0 ]; then echo "FAIL $mode: the run should have failed"; fail=1; fi
    if [ -e "$prof" ]; then echo "FAIL $mode: $prof written by an incomplete run"; fail=1; fi
    n=$(ls "$prof".partial.* 2>/dev/null | grep -v '\.tmp\.' | wc -l)
    if [ "$n" != "$writers" ]; then
        echo "FAIL $mode: $n partial files, expected $writers"; ls "$out"; cat "$out/$mode.log"; fail=1
        continue
    fi
    if [ "$writers" = "$np" ]; then
        cat "$out/$mode.expect".* >"$out/$mode.expect"
    else
        cat "$out/$mode.expect.$((np - 1))" >"$out/$mode.expect"
    fi
    "$check" "$prof" "$out/$mode.expect" --partial --ranks "$writers" --site main || fail=1
    "$collsel" show "$prof" >"$out/$mode.show" 2>&1
    src=$?
    if [ "$src" = 2 ] && grep -q 'not built' "$out/$mode.show"; then
        echo "collsel show not built: output not checked"
    elif ! grep -qi 'incomplete' "$out/$mode.show"; then
        echo "FAIL $mode: collsel show does not say incomplete:"; cat "$out/$mode.show"; fail=1
    fi
done
# A later complete run recording into the same FILE: the stale partial files
# of the aborted run are removed at MPI_Init, so FILE alone is the profile.
prof=$out/exit.prof
if [ -n "$(ls "$prof".partial.* 2>/dev/null)" ]; then
    "$mpiexec" "$flavour" "$np" "$collsel" exec --record "$prof" -- "$prog" "$out/full.expect" full \
        >"$out/full.log" 2>&1 || { echo "FAIL full: the complete run failed"; cat "$out/full.log"; fail=1; }
    if [ -n "$(ls "$prof".partial.* 2>/dev/null)" ]; then
        echo "FAIL full: stale partial files left next to $prof"; fail=1
    fi
    "$collsel" show "$prof" >"$out/full.show" 2>&1
    if grep -qi 'incomplete' "$out/full.show"; then
        echo "FAIL full: collsel show reports the complete run as incomplete"; fail=1
    fi
fi
exit $fail
