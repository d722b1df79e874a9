#!/bin/sh
# export_ompi_test.sh COLLSEL APP MPIEXEC_SH DIR: `collsel export --format
# ompi-rules` files are read and used by Open MPI's coll/tuned (the target
# is the installed release's: ompi-4.1, or ompi-5.0 from 5.0.7 on).
#
# Open MPI 4.1 release builds log nothing about the rules file (its
# OPAL_OUTPUT messages exist only in --enable-debug builds, whatever
# coll_base_verbose says) and silently fall back to the fixed rules when the
# file is bad.  So the proof is behavioural: the pml monitoring component
# counts the point-to-point messages the collectives generate ("E" lines).
# The synthetic tree picks a 1 KiB-segmented pipeline for large broadcasts
# at 4 ranks (the run uses 4),
# so with our file the count must change; with a broken file (negative
# control) it must be exactly the count of a run without any file.
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
collsel=$(abs "$1"); app=$(abs "$2"); mpiexec=$(abs "$3"); here=$(cd "$(dirname "$0")" && pwd)
dir=$4/export_ompi; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }

# validate the classic format: counts, ids, ascending sizes starting at 0;
# with "rule-file-version-2" first (ompi-5.0), a fifth number a rule
validate() {
    sed 's/#.*//' "$1" | tr -s ' \t\n' '\n\n\n' | grep -v '^$' | awk '
    function num() { if (++i > n) { print "truncated"; exit 1 } return v[i] }
    NR == 1 && $1 == "rule-file-version-2" { v2 = 1; next }
    { v[++n] = $1 }
    END {
        i = 0; ncoll = num(); if (ncoll < 1 || ncoll > 5) { print "ncoll " ncoll; exit 1 }
        for (c = 0; c < ncoll; c++) {
            id = num(); if (id != 2 && id != 3 && id != 6 && id != 7 && id != 11) { print "coll id " id; exit 1 }
            ncs = num(); last = -1
            for (s = 0; s < ncs; s++) {
                cs = num(); if (cs <= last || (s == 0 && cs != 0)) { print "comm size " cs; exit 1 }
                last = cs; nms = num(); lastm = -1
                for (m = 0; m < nms; m++) {
                    ms = num(); alg = num(); fan = num(); seg = num(); req = v2 ? num() : 0
                    if (req < 0) { print "max requests " req; exit 1 }
                    if (ms <= lastm || (m == 0 && ms != 0)) { print "msg size " ms; exit 1 }
                    if (alg < 0 || alg > 9 || fan < 0 || seg < 0) { print "rule " alg; exit 1 }
                    lastm = ms
                }
            }
        }
        if (i != n) { print "trailing numbers"; exit 1 }
    }'
}

# run FILE|none -> sets $count to the number of collective-generated
# messages (not called in $(...): its failures must reach $fails)
run() {
    rm -f mon.*.prof
    extra="--mca pml_monitoring_enable 1 --mca pml_monitoring_enable_output 3"
    extra="$extra --mca pml_monitoring_filename $PWD/mon"
    [ "$1" != none ] && extra="$extra --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename $PWD/$1"
    MPIEXEC_EXTRA="$extra" "$mpiexec" openmpi 4 "$app" > app.out 2>&1
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q "collectives ok" app.out; then
        fail "app with rules '$1' (exit $rc): $(head -5 app.out)"
    fi
    count=$(cat mon.*.prof 2>/dev/null | awk -F'\t' '$1 == "E" { split($5, a, " "); s += a[1] } END { print s + 0 }')
}

"$here/synth_perf.sh" perf.csv && "$here/native_perf.sh" native.csv || exit 1
"$collsel" tune --perf perf.csv -o synth.tree > /dev/null &&
"$collsel" tune --perf native.csv -o native.tree > /dev/null || exit 1
# only the native rows: a tree that says native everywhere
awk -F, 'NR == 1 || $4 ~ /\.native$/' native.csv > allnative.csv
"$collsel" tune --perf allnative.csv -o allnative.tree > /dev/null || exit 1
for t in synth native allnative; do
    "$collsel" export $t.tree --format ompi-rules -o $t.conf > $t.out || fail "export $t"
    cat $t.out
    validate $t.conf || fail "$t.conf is not a valid rules file"
done
grep -q "bcast.native  *-> algorithm 0 " native.out || fail "native does not map to algorithm 0"
grep -Eq " 3 0 1024( 0)?$" synth.conf || fail "synth.conf lacks the 1 KiB pipeline rule"
grep -q "^2  *# collective id: allreduce" synth.conf || fail "synth.conf has no allreduce rules"
grep -Eq " 5 0 65536( 0)?$" synth.conf || fail "synth.conf lacks the segmented-ring allreduce rule"
grep -q "allreduce.rabenseifner  *-> algorithm 6 " native.out ||
    fail "allreduce.rabenseifner does not map to Open MPI's algorithm 6"
grep -q "^3  *# collective id: alltoall" synth.conf || fail "synth.conf has no alltoall rules"
grep -q "alltoall.bruck  *-> algorithm 3 " synth.out ||
    fail "alltoall.bruck does not map to Open MPI's modified Bruck (3)"
grep -q "alltoall.pairwise  *-> algorithm 2 " native.out ||
    fail "alltoall.pairwise does not map to Open MPI's pairwise (2)"
# negative control: the same file cut after the first rule line
head -n 9 synth.conf > broken.conf

run none; none=$count
run synth.conf; ours=$count
run broken.conf; broken=$count
run native.conf; nat=$count
run allnative.conf; allnat=$count
echo "collective messages: no rules file $none, synth.conf $ours, broken.conf $broken, native.conf $nat, allnative.conf $allnat"
[ "$none" -gt 0 ] || fail "pml monitoring counted no collective messages"
[ "$ours" != "$none" ] || fail "Open MPI ignored synth.conf (same message count as without it)"
[ "$ours" -gt "$none" ] || fail "the segmented pipeline of synth.conf should send more messages"
[ "$broken" = "$none" ] || fail "broken.conf was not rejected (count $broken, without file $none)"
# native.tree mixes native with binomial / Rabenseifner rules: Open MPI
# must follow them; allnative.tree says native everywhere: its rules
# (algorithm 0, "the fixed decision") must leave Open MPI's choice as it is
[ "$nat" != "$none" ] || fail "Open MPI ignored native.conf (same message count as without it)"
[ "$allnat" = "$none" ] ||
    fail "allnative.conf changed Open MPI's choice (count $allnat, without file $none)"
[ $fails -eq 0 ] && echo "export ompi-rules: all checks passed"
exit $fails
