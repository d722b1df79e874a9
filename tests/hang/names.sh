#!/bin/sh
# names.sh MPIEXEC FLAVOUR COLLSEL STRESS STUCK PLANTSHM OUTDIR: shared-memory
# object names another user (or a crashed run) holds are never opened as
# ours.  plantshm.so (LD_PRELOAD) plants objects holding "planted":
#  1. at the first name of every segment: the create fails, the next name
#     is taken (the log shows a different name created after each plant);
#     the shm stress passes;
#  2. at every name: every segment comes from MPI's window; stress passes;
#  3. over the object rank 0 made, before rank 1 opens it: rank 1 refuses
#     it, the communicator runs natively (one line at COLLSEL_VERBOSE=1),
#     results right, and rank 0 does not unlink the planted object.
# Every planted object must be left as it was (content "planted"), and no
# object of collsel's left in /dev/shm.
mpiexec=$1 flavour=$2 collsel=$3 stress=$4 stuck=$5 plantshm=$6 out=$7
rm -rf "$out"; mkdir -p "$out"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
if [ "$flavour" = mpich ]; then pre="-genv LD_PRELOAD $plantshm"; else pre="-x LD_PRELOAD=$plantshm"; fi

# planted NAME: the planted objects of the log are intact; then removed
planted() {
    n=0
    for o in $(awk '$1 == "planted" { print $2 }' "$out/$1.log"); do
        n=$((n + 1))
        f=/dev/shm${o}
        [ "$(head -c 7 "$f" 2>/dev/null)" = planted ] || bad "$1: the planted $o was changed or removed"
        rm -f "$f"
    done
    [ $n -gt 0 ] || bad "$1: nothing planted"
    echo "$1: $n planted, $(grep -c '^created' "$out/$1.log") created"
}

# 1. the first name of every segment planted
PLANT_SHM=first PLANT_LOG=$out/first.log MPIEXEC_EXTRA="$pre" timeout 120 \
    "$mpiexec" "$flavour" 2 "$stress" 300 > "$out/first.out" 2>&1 || bad "first: stress failed: $(tail -5 "$out/first.out")"
awk '$1 == "planted" { p = $2; next } $1 == "created" && p != "" { if ($2 == p) bad = 1; p = ""; ok++ }
     END { exit bad || ok == 0 }' "$out/first.log" || bad "first: no other name created after a plant"
planted first

# 2. every name planted: MPI's window
PLANT_SHM=all PLANT_LOG=$out/all.log MPIEXEC_EXTRA="$pre" timeout 120 \
    "$mpiexec" "$flavour" 2 "$stress" 300 > "$out/all.out" 2>&1 || bad "all: stress failed: $(tail -5 "$out/all.out")"
grep -q '^created' "$out/all.log" && bad "all: an object was created over a planted name"
planted all

# 3. the object replaced before rank 1 opens it
mkdir -p "$out/replace"
PLANT_SHM=replace PLANT_LOG=$out/replace.log MPIEXEC_EXTRA="$pre" COLLSEL_VERBOSE=1 timeout 120 \
    "$mpiexec" "$flavour" 2 "$collsel" exec --force barrier=barrier.shm.ota -- "$stuck" "$out/replace" 20 0 -1 \
    > "$out/replace.out" 2> "$out/replace.err" || bad "replace: the job failed: $(cat "$out/replace.err")"
grep -q "stuck: 20 calls, 0 wrong" "$out/replace.out" || bad "replace: wrong results"
grep -q "no shared-memory segment" "$out/replace.err" || bad "replace: the replaced object was used: $(cat "$out/replace.err")"
planted replace

left=$(ls /dev/shm | grep "^collsel\.\($(cat "$out"/replace/pid.* | tr '\n' '|' | sed 's/|$//; s/|/\\|/g')\)\." )
[ -z "$left" ] || bad "left in /dev/shm: $left"
[ $fail = 0 ] && echo "shared-memory names: ok"
exit $fail
