#!/bin/sh
# killed.sh MPIEXEC FLAVOUR NP COLLSEL KILLEDPROG CHECK OUTDIR
# Jobs killed without warning while recording with snapshots every 0.2 s
# (COLLSEL_RECORD_INTERVAL): SIGKILL to every rank, or to one rank only
# (the launcher then ends the others), of a job that idles, that keeps
# calling collectives, or that hangs in a collective.  Every rank must
# leave its partial file, holding every call it made before the last
# interval (the busy rank: at least the calls it had made 6 intervals
# before the kill), and `collsel show` must say the run did not finish and
# how old each rank's data is.
mpiexec=$1 flavour=$2 np=$3 collsel=$4 prog=$5 check=$6 out=$7
interval=0.2
mkdir -p "$out"
fail=0

# wait_files PATTERN N: until N files match (at most 30 s)
wait_files() {
    i=0
    while [ "$(ls $1 2>/dev/null | grep -vc '\.tmp')" -lt "$2" ] && [ $i -lt 300 ]; do
        sleep 0.1; i=$((i + 1))
    done
}

for case in idle-all busy-all hang-all busy-one hang-one; do
    mode=${case%-*} who=${case#*-}
    base=$out/$case prof=$out/$case.prof
    rm -f "$base".*
    COLLSEL_RECORD_INTERVAL=$interval timeout 60 "$mpiexec" "$flavour" "$np" "$collsel" exec \
        --record "$prof" -- "$prog" "$base" "$mode" >"$base.log" 2>&1 &
    job=$!
    wait_files "$base.pid.*" "$np"
    least=""
    if [ "$mode" = busy ]; then
        wait_files "$base.busy.*" "$np"
        made=$(cat "$base".busy.[0-9]* | awk '{s += $1} END {print s + 0}')
        least="--at-least Bcast 1 8 $made"
    fi
    sleep $(awk "BEGIN {print 6 * $interval}")
    if [ "$who" = all ]; then
        kill -KILL $(cat "$base".pid.[0-9]*) 2>/dev/null
    else
        kill -KILL "$(cat "$base.pid.$((np - 1))")" 2>/dev/null
    fi
    wait $job
    n=$(ls "$prof".partial.* 2>/dev/null | grep -vc '\.tmp\.')
    if [ -e "$prof" ] || [ "$n" != "$np" ]; then
        echo "FAIL $case: $n partial files (expected $np)$([ -e "$prof" ] && echo ', and a final profile')"
        ls "$out"; cat "$base.log"; fail=1; continue
    fi
    cat "$base".expect.[0-9]* >"$base.expect"
    # shellcheck disable=SC2086
    "$check" "$prof" "$base.expect" --partial --ranks "$np" --site main $least ||
        { echo "FAIL $case: the partial files lack calls made before the last interval"; fail=1; }
    "$collsel" show "$prof" >"$base.show" 2>&1
    if ! grep -q "INCOMPLETE: merged $np partial files" "$base.show" ||
        [ "$(grep -c 'rank [0-9]*: data as of .* old$' "$base.show")" != "$np" ]; then
        echo "FAIL $case: collsel show does not say the run is incomplete and how old each rank's data is:"
        head -12 "$base.show"; fail=1
    fi
    [ "$fail" = 0 ] && echo "$case: $n partial files hold every call made before the kill"
done
exit $fail
