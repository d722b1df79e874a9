#!/bin/sh
# Golden-output tests of collsel tune / tree show / penalty.
# usage: cli_test.sh COLLSEL SEL_SYNTH SCRATCH_DIR
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
collsel=$(abs "$1"); synth=$(abs "$2"); dir=$3/cli
rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fails=0

# expect EXIT_CODE EXPECTED_STDERR -- COMMAND...: run, compare exit code and
# the whole of stderr.
expect() {
    want_rc=$1; want_err=$2; shift 3
    "$@" > out.txt 2> err.txt; rc=$?
    if [ "$rc" != "$want_rc" ] || [ "$(cat err.txt)" != "$want_err" ]; then
        echo "FAILED: $*"; echo "  exit $rc (want $want_rc)"
        echo "  stderr: $(cat err.txt)"; echo "  want:   $want_err"
        fails=$((fails + 1))
    fi
}
check() { # check DESCRIPTION COMMAND...: the command must succeed
    desc=$1; shift
    if ! "$@"; then echo "FAILED: $desc"; fails=$((fails + 1)); fi
}

H=collective,comm_size,msg_bytes,method,median_us,min_us,max_us,reps
printf '%s\nbcast,4,8,bcast.binomial,1.5,1,2,10\ngather,4,8,gather.linear,1,1,1,1\n' "$H" > coll.csv
printf '%s\nbcast,4,8,bcast.binomial,-1.5,1,2,10\n' "$H" > neg.csv
printf '%s\n# comment\nbcast,4,8,bcast.binomial,fast,1,2,10\n' "$H" > nan.csv
printf 'collective,comm_size,method,median_us\nbcast,4,bcast.binomial,1\n' > col.csv
printf '%s\nbcast,4,8,reduce.binomial,1,1,2,10\n' "$H" > pfx.csv
printf '%s\nbcast,4,8,bcast.binomial,1,1,2\n' "$H" > short.csv

expect 2 "collsel tune: coll.csv:3: unknown collective 'gather' (accepted: bcast, reduce, barrier, allreduce, alltoall)" -- \
    "$collsel" tune --perf coll.csv -o t.tree
expect 2 "collsel tune: neg.csv:2: median_us '-1.5' is not a non-negative number" -- \
    "$collsel" tune --perf neg.csv -o t.tree
expect 2 "collsel tune: nan.csv:3: median_us 'fast' is not a non-negative number" -- \
    "$collsel" tune --perf nan.csv -o t.tree
expect 2 "collsel tune: col.csv:1: header lacks column 'msg_bytes' (expected $H)" -- \
    "$collsel" tune --perf col.csv -o t.tree
expect 2 "collsel tune: pfx.csv:2: method 'reduce.binomial' does not start with its collective 'bcast.'" -- \
    "$collsel" tune --perf pfx.csv -o t.tree
expect 2 "collsel penalty: short.csv:2: 7 fields, the header has 8" -- \
    "$collsel" penalty --table --perf short.csv
expect 2 "collsel tune: missing.csv: cannot open: No such file or directory" -- \
    "$collsel" tune --perf missing.csv -o t.tree
expect 2 "collsel tune: --perf PERF and -o TREE are required (collsel tune --help)" -- \
    "$collsel" tune --perf coll.csv
expect 2 "collsel tune: --threshold '0' (accepted: a percentage in (0, 100])" -- \
    "$collsel" tune --perf coll.csv --threshold 0 -o t.tree
expect 2 "collsel tune: --max-depth 'x' (accepted: 0..8)" -- \
    "$collsel" tune --perf coll.csv --max-depth x -o t.tree
expect 2 "collsel tune: --margin '-1' (accepted: a percentage in [0, 100])" -- \
    "$collsel" tune --perf coll.csv --margin -1 -o t.tree
expect 2 "collsel penalty: --margin 'x' (accepted: a percentage in [0, 100])" -- \
    "$collsel" penalty --table --perf coll.csv --margin x
expect 2 "collsel tune: unknown option '--bogus' (collsel tune --help)" -- \
    "$collsel" tune --bogus
expect 2 "collsel tree: usage: collsel tree show TREE" -- "$collsel" tree
for cmd in tune tree penalty compare; do
    expect 0 "" -- "$collsel" $cmd --help
    check "$cmd --help prints usage" grep -q "usage: collsel $cmd" out.txt
done
expect 0 "" -- "$collsel" tune --help
check "tune --help documents --margin" grep -q -- "--margin PCT  (default 10)" out.txt
# tables that parse but cannot be tuned: every message names the table
printf '%s\n' "$H" > hdr.csv
awk -v h="$H" 'BEGIN {print h; for (c = 1; c <= 300; c++) print "bcast," c ",8,bcast.native,1,1,1,1"}' > wide.csv
printf '%s\nbcast,4,8,bcast.bin\377omial,1,1,2,10\n' "$H" > name.csv
expect 2 "collsel tune: hdr.csv: no rows" -- "$collsel" tune --perf hdr.csv -o t.tree
expect 2 "collsel penalty: hdr.csv: no rows" -- "$collsel" penalty --table --perf hdr.csv
expect 2 "collsel tune: wide.csv: bcast map is 300 x 1 points (at most 256 per axis supported)" -- \
    "$collsel" tune --perf wide.csv -o t.tree
expect 2 "collsel penalty: wide.csv: bcast map is 300 x 1 points (at most 256 per axis supported)" -- \
    "$collsel" penalty --table --perf wide.csv
expect 2 "collsel tune: name.csv:2: method 'bcast.bin$(printf '\377')omial' has characters other than letters, digits, '_', '-' and '.'" -- \
    "$collsel" tune --perf name.csv -o t.tree
check "no tree written on bad input" test ! -e t.tree

# a real run: synthetic table, exact tree, show, penalty (margin 0: the
# plain fastest method at every point)
"$synth" perf synth.csv && "$synth" profile app.prof || exit 1
expect 0 "" -- "$collsel" tune --perf synth.csv --margin 0 -o exact.tree
check "tune prints bcast and reduce" grep -q "^reduce: 31 comm sizes (2..32) x 48 message sizes (1 B..16 MiB), 6 methods, grid 64 x 64" out.txt
check "exact tree: no penalty" grep -q "penalty uniform    min 0.0%  max 0.0%  mean 0.00%" out.txt
expect 0 "" -- "$collsel" tree show exact.tree
check "tree show: header" grep -q "^bcast: [0-9]* leaves" out.txt
check "tree show: first leaf starts at 1 rank, 0 B" grep -q "^  1-[0-9]* *0 B-" out.txt
check "tree show: an open-ended last leaf" grep -q "^  [0-9]*+ *[0-9.]* [KM]*i*B+ " out.txt
expect 0 "" -- "$collsel" penalty exact.tree --perf synth.csv --csv
check "penalty --csv: 2 x 1488 points + header" test "$(wc -l < out.txt)" = 2977
check "penalty --csv: all zero" test "$(awk -F, 'NR > 1 && $8 != 0' out.txt | wc -l)" = 0

# the default margin of 10 %: native wherever no method is 10 % faster, so
# the exact tree is never slower than native (but has a penalty against the
# fastest method: synth's native is 5 % slower than binomial/pipeline)
expect 0 "" -- "$collsel" tune --perf synth.csv -o m10.tree
check "margin 10 reported" grep -q "^  margin 10%: native is the decision at [1-9][0-9]* of 1488 measured points" out.txt
check "margin 10: honest penalty against the fastest" grep -q "penalty uniform    min 0.0%  max [1-9]" out.txt
check "margin 10: exact tree never slower than native" \
    test "$(grep -c 'vs native uniform  mean -[0-9.]*%  max [-]*0.0%  (1488 points, 0 more than 5% slower)' out.txt)" = 2
expect 0 "" -- "$collsel" tune --perf synth.csv --margin 10 -o m10b.tree
check "--margin 10 is the default" cmp -s m10.tree m10b.tree
expect 0 "" -- "$collsel" penalty m10.tree --perf synth.csv
check "penalty prints the figures against native" grep -q "vs native uniform  .*(1488 points, 0 more than 5% slower)" out.txt
expect 0 "" -- "$collsel" penalty exact.tree --perf synth.csv
check "margin 0: the fastest method can be slower than native elsewhere, never here" \
    grep -q "vs native uniform  .*max [-]*0.0%" out.txt

# papers' construction with a depth cap: a penalty appears, --table agrees
expect 0 "" -- "$collsel" tune --perf synth.csv --max-depth 3 -o d3.tree
mean_tune=$(awk '/^bcast/ {b = 1} b && /penalty uniform/ {print $8; exit}' out.txt)
expect 0 "" -- "$collsel" penalty --table --perf synth.csv
mean_table=$(awk '/^bcast/ {b = 1} b && $1 == "3" {printf "%.2f%%\n", $8; exit}' out.txt)
check "depth 3 has a penalty ($mean_tune)" test "$mean_tune" != "0.00%"
check "tune and --table agree at depth 3 ($mean_tune, $mean_table)" test "$mean_tune" = "$mean_table"

# weighted tuning: lower weighted penalty than the papers' tree of the same size
expect 0 "" -- "$collsel" tune --perf synth.csv --profile app.prof --max-leaves 16 -o w.tree
w=$(awk '/^bcast/ {b = 1} b && /penalty weighted/ {sub("%", "", $8); print $8}' out.txt | head -1)
p=$(awk '/^bcast/ {b = 1} b && /penalty weighted/ {sub("%", "", $8); print $8}' out.txt | sed -n 2p)
check "weighted tree better where the app calls ($w% < $p%)" awk -v w="$w" -v p="$p" 'BEGIN {exit !(w + 0 < p + 0)}'
ans=$(sed -n 's/.*leaves (\([0-9]*\) answering).*/\1/p' out.txt | head -1)
check "leaf budget 16 used ($ans answering leaves)" test "$ans" -ge 13 -a "$ans" -le 16
expect 0 "" -- "$collsel" penalty w.tree --perf synth.csv --profile app.prof
check "penalty repeats tune's weighted figure" grep -q "penalty weighted .* mean $w%" out.txt
expect 0 "" -- "$collsel" tune --perf synth.csv --profile app.prof --json -o w2.tree
check "json output" grep -q '^{"perf":"synth.csv","mode":"weighted","collectives":\[{"collective":"bcast"' out.txt
check "same tree from --json run" cmp -s w.tree w2.tree

# C4.5 (--c45): a binary tree file every reader takes; the paper's -m/-c
expect 0 "" -- "$collsel" tune --c45 --perf synth.csv --margin 0 -o c45.tree
check "c45: pruning reported" grep -q "^  C4.5 -m 2 -c 25: 1488 cases, 6 classes; before pruning [0-9]* leaves" out.txt
check "c45: a binary tree" grep -q "^  tree (binary, C4.5): " out.txt
l25=$(sed -n 's/.*; after \([0-9]*\) leaves.*/\1/p' out.txt | head -1)
expect 0 "" -- "$collsel" tune --c45 -m 40 -c 5 --perf synth.csv --margin 0 -o c45b.tree
l5=$(sed -n 's/.*; after \([0-9]*\) leaves.*/\1/p' out.txt | head -1)
check "c45: -m 40 -c 5 prunes more ($l5 < $l25 leaves)" test "$l5" -lt "$l25"
expect 0 "" -- "$collsel" tree show c45.tree
check "c45: tree show lists $l25 bcast leaves" grep -q "^bcast: $l25 leaves ($l25 answering)" out.txt
expect 0 "" -- "$collsel" penalty c45.tree --perf synth.csv
expect 0 "" -- "$collsel" tune --c45 --combined --perf synth.csv -o c45c.tree
check "c45: combined tree" grep -q "^  combined tree: .* first test on the collective at level [0-9]" out.txt
expect 0 "" -- "$collsel" tune --c45 --perf synth.csv --profile app.prof --json -o c45w.tree
check "c45: json" grep -q '"kind":"c45","c45":{"m":2,"c":25,"combined":false,"weighted":true' out.txt
expect 2 "collsel tune: -m '0' (accepted: 1..1000000 cases)" -- "$collsel" tune --c45 -m 0 --perf synth.csv -o x.tree
expect 2 "collsel tune: -c '101' (accepted: a confidence level in (0, 100])" -- "$collsel" tune --c45 -c 101 --perf synth.csv -o x.tree
expect 2 "collsel tune: -m, -c and --combined need --c45" -- "$collsel" tune -c 5 --perf synth.csv -o x.tree
expect 2 "collsel tune: --max-depth and --threshold are quadtree options (not with --c45)" -- \
    "$collsel" tune --c45 --max-depth 2 --perf synth.csv -o x.tree
printf '%s\nbcast,4,8,bcast.binomial,1.5,1,2,10\n' "$H" > one.csv
expect 0 "" -- "$collsel" tune --c45 --perf one.csv -o one.tree
check "c45: one point, one leaf" grep -q "after 1 leaves" out.txt
check "no tree written on bad input" test ! -e x.tree

# compare: quadtrees and C4.5 side by side
expect 0 "" -- "$collsel" compare --perf synth.csv --margin 0 --csv
check "compare --csv: header + 2 x 25 rows" test "$(wc -l < out.txt)" = 51
check "compare --csv: C4.5 rows" test "$(grep -c '^bcast,c45,-m [0-9]* -c [0-9]*,' out.txt)" = 10
check "compare --csv: the exact quadtree has no penalty" grep -q '^bcast,quadtree,exact,[0-9]*,[0-9]*,[0-9]*,0.0000,0.0000,0.0000,' out.txt
expect 0 "" -- "$collsel" compare --perf synth.csv --profile app.prof
check "compare: weighted C4.5 rows" grep -q "^  C4.5, weighted  *-m 2 -c 25 " out.txt
if "$collsel" compare --perf synth.csv -o curve.png > out.txt 2> err.txt; then
    check "compare -o: a PNG" sh -c 'head -c 4 curve.png | grep -q PNG'
else
    check "compare -o without cairo says so" grep -q "built without cairo" err.txt
fi
expect 2 "collsel compare: --perf PERF is required, no other argument (collsel compare --help)" -- \
    "$collsel" compare
expect 2 "collsel compare: --margin '200' (accepted: a percentage in [0, 100])" -- \
    "$collsel" compare --perf synth.csv --margin 200

# bad tree files
head -c 30 exact.tree > trunc.tree
expect 2 "collsel tree: trunc.tree: truncated (header says $(($(wc -c < exact.tree) - 20)) payload bytes, file has 10)" -- \
    "$collsel" tree show trunc.tree
expect 2 "collsel penalty: synth.csv: not a collsel tree file (bad magic)" -- \
    "$collsel" penalty synth.csv --perf synth.csv

# A tree written before allreduce was a collective (by collsel 0.1.0 of
# 2026-11, bcast/reduce/barrier) still loads and reads the same.
data=$(cd "$(dirname "$0")" && pwd)/data
"$collsel" tree show "$data/three-collectives.tree" > old.show &&
    cmp -s old.show "$data/three-collectives.show" ||
    { echo "FAILED: the tree written before allreduce does not load the same"; diff old.show "$data/three-collectives.show"; fails=$((fails + 1)); }

if [ $fails -ne 0 ]; then echo "$fails failures"; exit 1; fi
echo "cli_test: all passed"
