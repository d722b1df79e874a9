#!/bin/sh
# arrivals.sh MPIEXEC FLAVOUR NP COLLSEL ARRIVALSPROG ARRCHECK OUTDIR [PART...]
# (PART: late shift huge sampled; default all)
# Arrival recording (record/arrivals.h) on a known pattern (arrivals.c: one
# rank DELAY late at every Barrier):
#  late     the late rank is named, the spread is about DELAY, the others'
#           wait is there, and in every cell whose calls were all kept the
#           measured wait + completion is the recorded time within 1 %;
#           collsel show says how much any method could remove at most
#  shift    COLLSEL_NODE_SIZE=1 (a node per rank) and every node's clock
#           50 ms ahead of the previous one: the offsets estimated at
#           MPI_Init remove it (uncorrected, the wrong rank would be late)
#  huge     an offset beyond 2^56 ns: one line at MPI_Init, wait and
#           completion within nodes only, the application's results intact
#  sampled  thousands of calls: rings thinned, the weighted sample still
#           estimates the number of calls, show says what is estimated;
#           a cell of 6 calls made after them is matched whole; the pairs
#           (an operation and the one before) stand for the whole run
mpiexec=$1 flavour=$2 np=$3 collsel=$4 prog=$5 check=$6 out=$7
shift 7
parts=${*:-late shift huge sampled}
part() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
mkdir -p "$out"
fail=0
last=$((np - 1))
delay=20000 # us: well above the scheduling noise of a loaded machine

run() { # NAME ENV... -- ARGS: record a run into OUT/NAME.prof
    name=$1; shift
    prof=$out/$name.prof
    rm -f "$prof" "$prof".partial.*
    env "$@" "$mpiexec" "$flavour" "$np" "$collsel" exec --record "$prof" -- "$prog" $args \
        >"$out/$name.log" 2>&1 || { echo "FAIL $name: exit status $?"; cat "$out/$name.log"; fail=1; }
}

if part late; then
    args="$last $delay 15"
    run late COLLSEL_VERBOSE=0
    "$check" "$out/late.prof" --pairs || { echo "FAIL late: pairs"; fail=1; }
    "$check" "$out/late.prof" --clock global --late "$last" 0.8 --spread 0.016 0.2 \
        --wait-min "$(awk "BEGIN {print 0.8 * 15 * $delay * 1e-6 * $last}")" --sum-tol 0.01 ||
        { echo "FAIL late: arrivals"; fail=1; }
    "$collsel" show "$out/late.prof" >"$out/late.show"
    head -2 "$out/late.show" |
        grep -q "^any method could remove at most [0-9.]* % of the collective time" || {
        echo "FAIL late: show does not say first what a method could remove at most"
        head -3 "$out/late.show"; fail=1
    }
    "$collsel" show --csv "$out/late.prof" | grep -q "^Barrier,$np,.*,$last:" ||
        { echo "FAIL late: the CSV does not name the late rank"; fail=1; }
    "$collsel" show --json "$out/late.prof" | grep -q '"late_ranks": \[{"rank": '"$last" ||
        { echo "FAIL late: the JSON does not name the late rank"; fail=1; }
fi

if part shift; then
    args="0 $delay 15"
    run shift COLLSEL_NODE_SIZE=1 COLLSEL_CLOCK_SHIFT=0.05
    "$check" "$out/shift.prof" --clock global --late 0 0.8 --spread 0.016 0.2 ||
        { echo "FAIL shift: the nodes' clock offsets were not removed"; fail=1; }
    "$collsel" show "$out/shift.prof" | grep -q "clock offsets estimated, error up to" ||
        { echo "FAIL shift: show does not give the clock error"; fail=1; }
fi

if part huge; then
    run huge COLLSEL_NODE_SIZE=1 COLLSEL_CLOCK_SHIFT=1e9
    n=$(grep -c "clocks of the nodes cannot be compared at MPI_Init" "$out/huge.log")
    [ "$n" = 1 ] ||
        { echo "FAIL huge: $n lines about the clocks (expected 1)"; cat "$out/huge.log"; fail=1; }
    "$check" "$out/huge.prof" --clock node --sum-tol 0.01 || { echo "FAIL huge: arrivals"; fail=1; }
fi

if part sampled; then
    args="$last 0 2500"
    run sampled COLLSEL_VERBOSE=0
    "$check" "$out/sampled.prof" --estimate 0.35 || { echo "FAIL sampled: estimates"; fail=1; }
    "$check" "$out/sampled.prof" --pairs --pairs-estimate 0.35 ||
        { echo "FAIL sampled: the pairs do not stand for the whole run"; fail=1; }
    "$check" "$out/sampled.prof" --whole Bcast 4096 ||
        { echo "FAIL sampled: a cell of few late calls is not matched whole"; fail=1; }
    "$collsel" show "$out/sampled.prof" |
        grep -q "rings full: down to 1 in [0-9]*, [0-9]* kept calls dropped" ||
        { echo "FAIL sampled: show does not say the rings were thinned"; fail=1; }
fi
[ "$fail" = 0 ] && echo "arrivals: ok"
exit $fail
