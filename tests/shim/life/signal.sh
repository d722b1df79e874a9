#!/bin/sh
# signal.sh MPIEXEC FLAVOUR NP COLLSEL SIGNALPROG CHECK OUTDIR
# An application with its own SIGTERM handler (plain, SA_SIGINFO,
# SA_RESETHAND) survives the signal while recording: its handler runs as
# installed, its SIGALRM handler and alarm are untouched (shim_signal
# checks these), the run completes, the final profile holds every call from
# before and after the signal, and the snapshots written on the signal are
# gone (their calls are in the profile).
mpiexec=$1 flavour=$2 np=$3 collsel=$4 prog=$5 check=$6 out=$7
mkdir -p "$out"
fail=0
for mode in plain siginfo resethand; do
    prof=$out/$mode.prof
    rm -f "$prof" "$prof".partial.* "$out/$mode.expect"*
    timeout 100 "$mpiexec" "$flavour" "$np" "$collsel" exec --record "$prof" -- "$prog" "$prof" \
        "$out/$mode.expect" "$mode" >"$out/$mode.log" 2>&1
    rc=$?
    if [ "$rc" != 0 ]; then
        echo "FAIL $mode: exit status $rc"; cat "$out/$mode.log"; fail=1; continue
    fi
    if [ ! -s "$prof" ]; then
        echo "FAIL $mode: no final profile $prof"; cat "$out/$mode.log"; fail=1; continue
    fi
    if [ -n "$(ls "$prof".partial.* 2>/dev/null)" ]; then
        echo "FAIL $mode: snapshots left next to the complete profile:"; ls "$prof".partial.*; fail=1
    fi
    cat "$out/$mode.expect".* >"$out/$mode.expect"
    "$check" "$prof" "$out/$mode.expect" --ranks "$np" --site main || { echo "FAIL $mode: profile"; fail=1; }
    "$collsel" show "$prof" >"$out/$mode.show" 2>&1
    if grep -qi 'incomplete' "$out/$mode.show"; then
        echo "FAIL $mode: collsel show reports the complete run as incomplete"; fail=1
    fi
    [ "$fail" = 0 ] && echo "$mode: handler ran, run completed, profile complete"
done
exit $fail
