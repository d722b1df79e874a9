#!/bin/sh
# forkexit.sh MPIEXEC FLAVOUR COLLSEL PROG OUTDIR
# Helper processes forked by the ranks exit after the run: the profile must
# stay complete, with no partial files next to it.
set -e
mpiexec=$1 flavour=$2 collsel=$3 prog=$4 out=$5
mkdir -p "$out"
prof=$out/fork.prof
rm -f "$prof" "$prof".partial.* "$out"/pids.*
"$mpiexec" "$flavour" 2 "$collsel" exec --record "$prof" -- "$prog" "$out/pids"
for f in "$out"/pids.*; do # wait (at most 15 s) for every helper to be gone
    pid=$(cat "$f")
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
done
sleep 0.2
if ls "$prof".partial.* >/dev/null 2>&1; then
    ls -l "$prof".partial.*
    echo "FAIL: a forked helper left partial files"
    exit 1
fi
"$collsel" show "$prof" | grep -q '^status *complete' ||
    { "$collsel" show "$prof" | head -3; echo "FAIL: profile not complete"; exit 1; }
echo "forkexit: the helpers' exits left the profile complete"
