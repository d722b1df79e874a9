#!/bin/sh
# tests/fuzz/run.sh SECONDS [TARGET...]: build the libFuzzer targets of
# tests/fuzz (in $FUZZ_BUILD, default build-fuzz: CC=clang, -Dfuzz=true,
# every object under ASan + UBSan), make the seed corpora from the tests'
# files, and run each target (all by default) for SECONDS.  Fails on any
# crash, sanitizer report, leak, broken property, timeout (10 s per input)
# or memory blow-up (2 GiB); the input that did it is kept in
# $FUZZ_BUILD/fuzz-crash/ (reproduce: $FUZZ_BUILD/tests/fuzz/fuzz_TARGET FILE;
# then commit it to tests/fuzz/corpus/TARGET/ with the fix).
# Inputs the fuzzer finds go to $FUZZ_BUILD/fuzz-corpus/TARGET (kept
# between runs); the committed corpus tests/fuzz/corpus/TARGET (regression
# inputs) and the seeds are read, never written.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:?usage: tests/fuzz/run.sh SECONDS [TARGET...]}
shift
targets=${*:-profile partials tree perf env mpich_defaults}
bdir=${FUZZ_BUILD:-$top/build-fuzz}
if [ ! -f "$bdir/build.ninja" ]; then
    # no -Dwerror: clang warns where gcc does not; the gcc builds keep the code clean
    CC=clang meson setup "$bdir" "$top" -Dfuzz=true -Dbuildtype=debugoptimized \
        > "$bdir.setup.log" 2>&1 || { cat "$bdir.setup.log"; exit 1; }
fi
ninja -C "$bdir" > "$bdir/ninja.log" 2>&1 || { cat "$bdir/ninja.log"; exit 1; }

# seeds: the files the tests use and make
fz=$bdir/tests/fuzz
seeds=$bdir/fuzz-seeds
rm -rf "$seeds" "$bdir/fuzz-crash" "$bdir/fuzz-scratch"
mkdir -p "$seeds/files" "$seeds/bad" "$bdir/fuzz-crash" "$bdir/fuzz-scratch"
"$fz/mkprofile" golden "$seeds/files/golden.prof"
"$fz/mkprofile" odd "$seeds/files/odd.prof"
"$fz/mkprofile" arrivals "$seeds/files/arrivals.prof"
"$fz/mkprofile" explored "$seeds/files/explored.prof" # an explored table (COLLSEL_EXPLORE)
"$fz/mkprofile" bad "$seeds/bad" > /dev/null
"$fz/sel_synth" perf "$seeds/files/synth.csv"
"$fz/sel_synth" profile "$seeds/files/synth.prof"
"$fz/mkseeds" "$seeds" "$seeds"/files/* "$seeds"/bad/* "$top"/tests/select/data/*.tree

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export FUZZ_SCRATCH="$bdir/fuzz-scratch"
status=0
for t in $targets; do
    corpus=$bdir/fuzz-corpus/$t
    mkdir -p "$corpus" "$seeds/$t"
    committed=$top/tests/fuzz/corpus/$t
    [ -d "$committed" ] || committed=
    log=$bdir/fuzz-$t.log
    if timeout $((secs + 120)) "$fz/fuzz_$t" -max_total_time="$secs" -timeout=10 \
        -rss_limit_mb=2048 -max_len=16384 -close_fd_mask=3 -print_final_stats=1 \
        -artifact_prefix="$bdir/fuzz-crash/$t-" "$corpus" $committed "$seeds/$t" > "$log" 2>&1; then
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        echo "fuzz $t: ok, $execs executions in $secs s, corpus $(ls "$corpus" | wc -l) inputs"
    else
        input=$(ls "$bdir/fuzz-crash" | grep "^$t-" | head -1)
        echo "fuzz $t: FAILED (log: $log; input: $bdir/fuzz-crash/$input)"
        grep -E '^(==[0-9]+==ERROR|SUMMARY)|runtime error' "$log" | head -5
        # the target's own output was closed: run the input again to show it
        [ -z "$input" ] || "$fz/fuzz_$t" "$bdir/fuzz-crash/$input" 2>&1 | grep -E '^fuzz: |runtime error|ERROR' | head -3
        status=1
    fi
done
exit $status
