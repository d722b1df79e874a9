#!/bin/sh
# apptime.sh APPTIME BUILD COLLSEL EXAMPLE_APP OUTDIR: tools/apptime.sh on
# the example (--quick, 2 ranks, 2 pairs, Open MPI): native against a tree
# (with the prediction), a tree against a tree (--baseline), an A/A test;
# each prints a median that parses; bad combinations are refused.
tool=$1 build=$2 collsel=$(realpath "$3") app=$(realpath "$4") out=$5
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1
export COLLSEL_BUILD="$build"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# two trees from a hand-written perf table: barrier in shared memory, or
# by dissemination
for m in shm.counter dissemination; do
    { echo "collective,comm_size,msg_bytes,method,median_us"
      echo "barrier,2,0,barrier.native,10"
      echo "barrier,2,0,barrier.$m,1"; } > "$m.csv"
    "$collsel" tune --perf "$m.csv" -o "$m.tree" > "$m.txt" 2>&1 || { bad "tune $m"; cat "$m.txt"; }
done
num='[0-9][0-9]*\.[0-9]*'
"$tool" -n 2 -r 2 --tree shm.counter.tree --dir d1 -- "$app" --quick > d1.txt 2>&1 ||
    { bad "native against a tree: exit $?"; cat d1.txt; }
grep -q "^median of tuned / native, collective time: $num (range $num-$num); wall time: $num (2 pairs)$" d1.txt ||
    { bad "native against a tree: no median line"; cat d1.txt; }
grep -q "^  application collective time: predicted $num, measured median $num" d1.txt ||
    { bad "native against a tree: no prediction"; cat d1.txt; }
! grep -q "A/A test" d1.txt || { bad "a tree that drives the barrier called an A/A test"; cat d1.txt; }
# the same --dir again: this run's 2 pairs, not 4 (the demo's second run
# once reported "42 pairs" of its 21)
"$tool" -n 2 -r 2 --tree shm.counter.tree --dir d1 -- "$app" --quick > d1b.txt 2>&1 ||
    { bad "the same --dir again: exit $?"; cat d1b.txt; }
grep -q "^median of tuned / native, collective time: .*(2 pairs)$" d1b.txt ||
    { bad "the same --dir again: not this run's pairs only"; cat d1b.txt; }
# a tree that keeps everything native: the pairs are said to be an A/A test
{ echo "collective,comm_size,msg_bytes,method,median_us"
  echo "barrier,2,0,barrier.native,1"
  echo "barrier,2,0,barrier.dissemination,10"; } > native.csv
"$collsel" tune --perf native.csv -o native.tree > native.txt 2>&1 || { bad "tune native"; cat native.txt; }
"$tool" -n 2 -r 2 --tree native.tree --dir d4 -- "$app" --quick > d4.txt 2>&1 ||
    { bad "an all-native tree: exit $?"; cat d4.txt; }
grep -q "^   (the tree keeps every collective native: these pairs are an A/A test" d4.txt ||
    { bad "an all-native tree: not called an A/A test"; cat d4.txt; }
"$tool" -n 2 -r 2 --tree shm.counter.tree --baseline dissemination.tree --dir d2 -- "$app" --quick > d2.txt 2>&1 ||
    { bad "--baseline: exit $?"; cat d2.txt; }
grep -q "^== tree against tree: shm.counter.tree against dissemination.tree" d2.txt &&
    grep -q "^median of shm.counter.tree / dissemination.tree, completion: $num$" d2.txt &&
    ! grep -q "predicted" d2.txt || { bad "--baseline: output"; cat d2.txt; }
"$collsel" show d2/nat-1.prof | grep -q "tree dissemination.tree" || bad "--baseline: the other side did not run with its tree"
"$tool" -n 2 -r 2 --aa --dir d3 -- "$app" --quick > d3.txt 2>&1 || { bad "--aa: exit $?"; cat d3.txt; }
grep -q "^== A/A: both runs of every pair native" d3.txt || { bad "--aa: output"; cat d3.txt; }
"$tool" --baseline x.tree -- "$app" > e1.txt 2>&1; rc=$?
[ $rc = 2 ] && grep -q -- "--baseline goes with --tree" e1.txt || { bad "--baseline without --tree: exit $rc"; cat e1.txt; }
"$tool" --tree shm.counter.tree --baseline none.tree -- "$app" > e2.txt 2>&1; rc=$?
[ $rc = 2 ] && grep -q -- "--baseline none.tree: no such file" e2.txt || { bad "--baseline missing file: exit $rc"; cat e2.txt; }
[ "$fail" = 0 ] && echo "apptime: ok"
exit $fail
