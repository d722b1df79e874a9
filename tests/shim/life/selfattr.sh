#!/bin/sh
# selfattr.sh MPIEXEC FLAVOUR NP COLLSEL SELFATTRPROG CHECK OUTDIR
# Collectives made in the application's MPI_COMM_SELF delete callbacks
# (inside MPI_Finalize) are recorded and still dispatched: natively and
# with every collective forced to one of our methods, the results are
# right and the profile holds every call.
mpiexec=$1 flavour=$2 np=$3 collsel=$4 prog=$5 check=$6 out=$7
mkdir -p "$out"
fail=0
for force in "" "bcast=bcast.binomial,reduce=reduce.binary,barrier=barrier.dissemination"; do
    name=native; [ -n "$force" ] && name=forced
    prof=$out/$name.prof
    rm -f "$prof" "$out/$name.expect"*
    COLLSEL_FORCE=$force timeout 100 "$mpiexec" "$flavour" "$np" "$collsel" exec --record "$prof" \
        -- "$prog" "$out/$name.expect" >"$out/$name.log" 2>&1
    rc=$?
    if [ "$rc" != 0 ]; then
        echo "FAIL $name: exit status $rc"; cat "$out/$name.log"; fail=1; continue
    fi
    cat "$out/$name.expect".* >"$out/$name.expect"
    if "$check" "$prof" "$out/$name.expect" --ranks "$np"; then
        echo "$name: the calls of MPI_COMM_SELF's delete callbacks are in the profile"
    else
        echo "FAIL $name: profile"; fail=1
    fi
done
exit $fail
