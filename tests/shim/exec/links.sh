#!/bin/sh
# links.sh MPIEXEC FLAVOUR COLLSEL MIX KILLED CHECK PLANT SYNTH_PERF OUTDIR
# Files in a directory other users can write: symbolic links planted at
# every name collsel writes (the profile, partial files, and the names of
# temporary and probe files a writer using "NAME.tmp.PID" would pick, for
# the process ids the runs will get) point to a victim file, or to a file
# that does not exist.  collsel must never write through them: the victim
# keeps its content, the missing file stays missing, and every output is a
# regular file of its own (a link at the final name is replaced, not
# followed).  Recording (the final profile, periodic snapshots, the
# partial files of a job ended by SIGTERM) and the command line's outputs
# (tree, generated C, exports, pictures).
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
mpiexec=$1 flavour=$2 collsel=$(abs "$3") mix=$4 killed=$5 check=$6 plant=$(abs "$7")
synth=$(abs "$8") out=$9
rm -rf "$out"; mkdir -p "$out"
victim=$out/victim ghost=$out/ghost
echo "another user's data" >"$victim"
cp "$victim" "$out/victim.orig"
fail=0
from=$$ to=$(($$ + 4000)) # the process ids of the runs below, most likely

# intact WHAT FILE...: the victim is unchanged, the ghost missing, and each
# FILE a regular file (not a link).
intact() {
    what=$1; shift
    cmp -s "$victim" "$out/victim.orig" || { echo "FAIL $what: written through a link into the victim"; fail=1; }
    [ -e "$ghost" ] && { echo "FAIL $what: created the target of a dangling link"; fail=1; rm -f "$ghost"; }
    for f in "$@"; do
        if [ -L "$f" ] || [ ! -f "$f" ]; then echo "FAIL $what: $f is not a regular file of its own"; fail=1; fi
    done
}

# 1. a complete run with snapshots: links at the profile and at every
# temporary / probe name of it
prof=$out/run.prof
"$plant" "$victim" "$from" "$to" "$prof" "$prof.tmp.%d" >/dev/null || exit 1
"$plant" "$ghost" "$from" "$to" "$prof.probe.%d" >/dev/null || exit 1
COLLSEL_RECORD_INTERVAL=0.02 timeout 120 "$mpiexec" "$flavour" 2 "$collsel" exec --record "$prof" -- \
    "$mix" "$out/run.expect" >"$out/run.log" 2>&1 || { echo "FAIL run: exit $?"; cat "$out/run.log"; fail=1; }
"$check" "$prof" "$out/run.expect" --ranks 2 || fail=1
intact "final profile" "$prof"

# 2. a job whose partial files are links when the snapshots are written,
# and whose temporary names (the ranks' pids are known by then) are links
# when the snapshots and the final partial files (SIGTERM) are written
base=$out/k prof=$out/k.prof
[ "$flavour" = openmpi ] && export MPIEXEC_EXTRA="${MPIEXEC_EXTRA:-} --mca odls_base_sigkill_timeout 3"
COLLSEL_RECORD_INTERVAL=0.1 timeout 60 "$mpiexec" "$flavour" 2 "$collsel" exec --record "$prof" -- \
    "$killed" "$base" idle >"$base.log" 2>&1 &
job=$!
i=0
while [ "$(ls "$base".pid.[0-9] 2>/dev/null | wc -l)" -lt 2 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
for r in 0 1; do
    pid=$(cat "$base.pid.$r")
    "$plant" "$victim" 0 0 "$prof.partial.$r" "$prof.partial.$r.tmp.$pid" "$prof.tmp.$pid" >/dev/null
done
sleep 0.6 # snapshots replace the links
intact "snapshots" "$prof.partial.0" "$prof.partial.1"
kill -TERM "$(cat "$base.pid.0")" "$(cat "$base.pid.1")"
wait $job
cat "$base".expect.[0-9] >"$base.expect"
"$check" "$prof" "$base.expect" --partial --ranks 2 || fail=1
intact "partial files" "$prof.partial.0" "$prof.partial.1"

# 3. the command line's outputs
cd "$out" || exit 1
"$synth" perf.csv || exit 1
outs="app.tree app.c rules.conf"
"$plant" "$victim" "$from" "$to" app.tree app.tree.tmp.%d app.c app.c.tmp.%d rules.conf \
    rules.conf.tmp.%d map.png map.png.tmp.%d >/dev/null || exit 1
"$collsel" tune --perf perf.csv -o app.tree >/dev/null || { echo "FAIL tune"; fail=1; }
"$collsel" codegen app.tree -o app.c >/dev/null || { echo "FAIL codegen"; fail=1; }
"$collsel" export app.tree --format ompi-rules -o rules.conf >/dev/null || { echo "FAIL export"; fail=1; }
if "$collsel" map app.tree -o map.png >map.log 2>&1; then
    outs="$outs map.png"
elif ! grep -q 'not built\|cairo' map.log; then
    echo "FAIL map: $(cat map.log)"; fail=1
fi
# shellcheck disable=SC2086
intact "command line" $outs
[ "$fail" = 0 ] && echo "links: no write went through a planted link"
exit $fail
