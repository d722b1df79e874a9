#!/bin/sh
# tests/replay/run.sh CASE MPIEXEC_SH FLAVOUR REPLAY CHECK_PERF MKPROF COLLSEL
# The MPI tests of collsel-replay, one CASE per meson test (steps of a case
# depend on each other: replay -> check -> tune -> mix).
#   grid     tiny grids at 2 and 3 ranks -> valid perf tables (check_perf)
#   profile  a small profile -> exactly its cells; tune a tree; --mix prints
#            a ratio (text and CSV); the same with a C4.5 tree
#   checkpoint  a run stopped in the middle keeps a valid table of the
#            points measured so far
#   finalists  stage 2: the K best of stage 1 and native are re-measured
#            (interleaved); their rows carry the stage-2 figures (reps =
#            stage-2 rounds, medians as printed by -v); no method that lost
#            the screening is faster in the table than the final's best;
#            --finalists 0: no stage 2
#   arrivals a profile with recorded arrivals (rank 1 always 200 us late):
#            measured under recorded and none by default (both in the table,
#            column arrivals); tune builds on recorded and compares with none;
#            --mix predicts on completion and on the application's time, the
#            latter = recorded wait + tuned completion (checked exactly)
#   args     bad arguments exit 2 with a clear message
set -u
case_=$1 mpiexec=$2 flavour=$3 replay=$4 check=$5 mkprof=$6 collsel=$7
T=$(mktemp -d "${TMPDIR:-/tmp}/cs-replay-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
run() { "$mpiexec" "$flavour" "$@"; }

case "$case_" in
grid)
    run 2 "$replay" --grid cs=2,ms=8,64k --time-per-point 0.2 -o "$T/g2.csv" || fail "replay at 2 ranks"
    run 1 "$check" "$T/g2.csv" bcast:2:8 bcast:2:65536 reduce:2:8 reduce:2:65536 barrier:2:0 \
        allreduce:2:8 allreduce:2:65536 alltoall:2:8 alltoall:2:65536 ||
        fail "perf table at 2 ranks"
    head -1 "$T/g2.csv" | grep -q '^# collsel perf' || fail "no perf magic line"
    # 3 ranks: comm size 2 is the first two ranks, the third waits
    run 3 "$replay" --grid cs=2:3,ms=1k --methods 'bcast.bin*,reduce.binomial,barrier' \
        --time-per-point 0.2 -o "$T/g3.csv" || fail "replay at 3 ranks"
    grep -q 'bcast.binomial' "$T/g3.csv" || fail "bcast.binomial not measured"
    grep -q '^bcast,3,1024,bcast.native,' "$T/g3.csv" || fail "no native row at 3 ranks"
    grep -q 'bcast.knomial' "$T/g3.csv" && fail "--methods did not restrict"
    grep -q 'reduce.linear' "$T/g3.csv" && fail "--methods did not restrict reduce"
    grep -c '^barrier,[23],0,barrier\.' "$T/g3.csv" | grep -q '^[1-9]' || fail "barrier rows missing"
    ;;
profile)
    "$mkprof" "$T/app.prof" Bcast:2:100:50:fixed:1 Bcast:2:40000:20 Reduce:2:800:30:varying \
        Barrier:2:0:10 Allreduce:2:8:100 Alltoall:2:24576:40 Bcast:8:64:5 || fail "mkprof"
    run 2 "$replay" --profile "$T/app.prof" --time-per-point 0.2 -o "$T/p.csv" 2>"$T/err" ||
        { cat "$T/err" >&2; fail "replay of the profile"; }
    cat "$T/err" >&2
    grep -q 'need more than 2 ranks' "$T/err" || fail "the 8-rank cell was not reported as skipped"
    run 1 "$check" "$T/p.csv" bcast:2:100 bcast:2:40000 reduce:2:800 barrier:2:0 allreduce:2:8 \
        alltoall:2:24576 ||
        fail "perf table of the profile"
    "$collsel" tune --perf "$T/p.csv" --profile "$T/app.prof" -o "$T/app.tree" >"$T/tune.out" ||
        { cat "$T/tune.out"; fail "collsel tune"; }
    run 2 "$replay" --mix "$T/app.prof" --tree "$T/app.tree" --budget 1 --rounds 2 >"$T/mix.txt" ||
        fail "--mix"
    cat "$T/mix.txt"
    grep -Eq 'ratio tuned/native [0-9]+\.[0-9]+' "$T/mix.txt" || fail "--mix printed no ratio"
    for p in 'bcast +2 +100 B' 'bcast +2 +39.1 KiB' 'reduce +2 +800 B' 'barrier +2 +-' \
             'allreduce +2 +8 B' 'alltoall +2 +24 KiB'; do
        grep -Eq "^$p " "$T/mix.txt" || fail "--mix: no row for '$p'"
    done
    run 2 "$replay" --mix "$T/app.prof" --tree "$T/app.tree" --budget 0.5 --rounds 2 --csv \
        >"$T/mix.csv" || fail "--mix --csv"
    [ "$(head -1 "$T/mix.csv" | cut -d, -f1-3)" = "collective,comm_size,msg_bytes" ] ||
        fail "--mix --csv header"
    [ "$(grep -c '^[a-z]*,2,' "$T/mix.csv")" = 6 ] || fail "--mix --csv: not 6 points"
    grep -Eq '^total,.*,[0-9]+\.[0-9]+,[01]$' "$T/mix.csv" || fail "--mix --csv: no total ratio"
    # the tuned side ran the tree's choice: every chosen method is the first
    # candidate of some leaf of the tree (the tree's test points are all
    # measured, so the first candidate applies)
    "$collsel" tree show "$T/app.tree" >"$T/tree.txt" || fail "collsel tree show"
    for m in $(grep '^[a-z]*,2,' "$T/mix.csv" | cut -d, -f9 | cut -d' ' -f1); do
        grep -Eq "[0-9] +$m( \(then|\$)" "$T/tree.txt" || { cat "$T/tree.txt"; fail "--mix chose $m, not in the tree"; }
    done
    # a C4.5 tree (binary, tree file version 2) runs the same way
    "$collsel" tune --c45 --perf "$T/p.csv" --profile "$T/app.prof" -o "$T/c45.tree" >"$T/tune.out" ||
        { cat "$T/tune.out"; fail "collsel tune --c45"; }
    run 2 "$replay" --mix "$T/app.prof" --tree "$T/c45.tree" --budget 0.5 --rounds 2 --csv \
        >"$T/mix45.csv" || fail "--mix with a C4.5 tree"
    "$collsel" tree show "$T/c45.tree" >"$T/tree45.txt" || fail "collsel tree show (C4.5)"
    [ "$(grep -c '^[a-z]*,2,' "$T/mix45.csv")" = 6 ] || fail "--mix (C4.5): not 6 points"
    for m in $(grep '^[a-z]*,2,' "$T/mix45.csv" | cut -d, -f9 | cut -d' ' -f1); do
        grep -Eq "[0-9] +$m( \(then|\$)" "$T/tree45.txt" || { cat "$T/tree45.txt"; fail "--mix chose $m, not in the C4.5 tree"; }
    done
    ;;
arrivals)
    "$mkprof" --late 1:200 "$T/late.prof" Reduce:2:8:200 Barrier:2:0:100 || fail "mkprof --late"
    run 2 "$replay" --profile "$T/late.prof" --methods 'reduce.linear,reduce.shm.direct,barrier.shm.counter' \
        --time-per-point 0.2 -o "$T/a.csv" 2>"$T/err" || { cat "$T/err" >&2; fail "replay"; }
    grep -q 'recorded arrivals: measuring under --arrivals recorded,none' "$T/err" ||
        { cat "$T/err"; fail "no default patterns"; }
    head -2 "$T/a.csv" | grep -q '^collective,.*,arrivals$' || fail "no arrivals column"
    head -1 "$T/a.csv" | grep -q '^# collsel perf v2' || fail "not perf v2"
    for pt in reduce,2,8 barrier,2,0; do
        for pat in recorded none; do
            grep -q "^$pt,.*native,.*,$pat\$" "$T/a.csv" || { cat "$T/a.csv"; fail "no $pt native under $pat"; }
        done
    done
    "$collsel" tune --perf "$T/a.csv" --profile "$T/late.prof" -o "$T/a.tree" >"$T/tune.out" ||
        { cat "$T/tune.out"; fail "tune"; }
    grep -q '^arrivals: built on the rows measured under recorded, completion times (2 pattern' \
        "$T/tune.out" || { cat "$T/tune.out"; fail "tune did not take recorded"; }
    grep -q 'point(s) measured under both differ' "$T/tune.out" || fail "tune: no comparison"
    "$collsel" tune --perf "$T/a.csv" --arrivals nosuch -o "$T/b.tree" >"$T/tune2.out" 2>&1 &&
        fail "tune --arrivals nosuch succeeded"
    grep -q "no rows measured under arrivals 'nosuch'" "$T/tune2.out" || fail "tune --arrivals nosuch: message"
    run 2 "$replay" --mix "$T/late.prof" --tree "$T/a.tree" --budget 1 --rounds 3 --csv \
        >"$T/mix.csv" || fail "--mix under arrivals"
    cat "$T/mix.csv"
    # application = every collective's recorded time - recorded completion +
    # tuned completion; the wait (200 us of 201 per operation) stays
    awk -F, '$1 == "completion" { c = $7; ct = $8 } $1 == "application" { a = $7; at = $8 }
        END { if (!(c > 0 && a > 0)) exit 1
              if ((a - c) / a < 0.95) { print "wait share " (a - c) / a; exit 1 }
              d = at - (a - c + ct); if (d < 0) d = -d
              if (d > 1e-3 * a) { print "application " at " != " a - c + ct; exit 1 } }' \
        "$T/mix.csv" || fail "--mix: the prediction is not recorded wait + tuned completion"
    run 2 "$replay" --mix "$T/late.prof" --tree "$T/a.tree" --budget 0.5 --rounds 2 >"$T/mix.txt" ||
        fail "--mix text"
    grep -q "expected gain on the application's collective time" "$T/mix.txt" || fail "--mix text: no prediction"
    # --work recorded: the time between calls mkprof recorded (0.8 and 1 ms
    # per rank: calls 1 ms apart, rank 1 200 us late) computed before each
    # replayed call; the prediction still comes
    run 2 "$replay" --mix "$T/late.prof" --tree "$T/a.tree" --budget 0.5 --rounds 2 \
        --work recorded:64 >"$T/work.txt" 2>"$T/work.err" || { cat "$T/work.err"; fail "--mix --work recorded"; }
    grep -q -- "--work recorded: before each call .* (at most 5 ms, over 64 KiB) at 2 of 2 points$" \
        "$T/work.err" || { cat "$T/work.err"; fail "--work recorded: not at every point"; }
    grep -q "expected gain on the application's collective time" "$T/work.txt" ||
        fail "--mix --work recorded: no prediction"
    "$collsel" show --csv "$T/late.prof" | awk -F, '$1 == "Reduce" && $2 == 2 {
        n = split($0, f, ","); b = f[n]; if (!(b > 850 && b < 950)) { print "before_us " b; exit 1 }
        ok = 1 } END { if (!ok) exit 1 }' ||
        fail "show: the time before the calls is not the recorded 900 us"
    for w in bogus recorded: recorded:0 recorded:x; do
        run 1 "$replay" --mix "$T/late.prof" --tree "$T/a.tree" --work "$w" >/dev/null 2>"$T/werr" &&
            fail "--work $w accepted"
        grep -q -- "--work '$w': need recorded or recorded:KIB" "$T/werr" || { cat "$T/werr"; fail "--work $w: message"; }
    done
    run 1 "$replay" --profile "$T/late.prof" --work recorded -o "$T/w.csv" 2>"$T/werr" && fail "--work without --mix"
    grep -q -- "--work recorded is used with --mix" "$T/werr" || { cat "$T/werr"; fail "--work without --mix: message"; }
    # uneven exits: rank 0 leaves each reduce 5 us early and so waits 5 us
    # at the next; the prediction moves that wait with the tuned method:
    # by (ratio - 1) x that wait when, as here, the work between is even
    "$mkprof" --skew 5 "$T/skew.prof" Reduce:2:8:200 || fail "mkprof --skew"
    run 2 "$replay" --mix "$T/skew.prof" --tree "$T/a.tree" --budget 0.5 --rounds 3 --json \
        >"$T/skew.json" || fail "--mix --json (skew)"
    v() { sed -n "s/.*\"$1\": \([-0-9.e]*\).*/\1/p" "$T/skew.json" | head -1; }
    awk -v r="$(v ratio)" -v ex="$(v exits_wait_s)" -v ch="$(v exits_change_s)" \
        -v w="$(v recorded_wait_s)" 'BEGIN {
            if (ex == "" || ch == "" || r == "") { print "no exits fields"; exit 1 }
            if (ex < 0.99e-4 || ex > 1.01e-4 || w < 0.99e-4 || w > 1.01e-4) { print "exits wait " ex ", wait " w " (1e-4)"; exit 1 }
            d = ch - (r - 1) * ex; if (d < 0) d = -d
            if (d > 2e-6) { print "exits change " ch " != (" r " - 1) x " ex; exit 1 } }' ||
        { cat "$T/skew.json"; fail "--mix: the uneven exits' wait not moved with the method"; }
    # the application's own native calls against the replay's: recorded 20
    # us per rank call, 3/4 of it completion (rank 0 leaves 5 us after the
    # last arrival, rank 1 10 us; each waits 5 us at the next), so 15 us per
    # rank call, some 20x an 8 B reduce replayed here: the point is flagged,
    # in the JSON, the CSV's unlike column and the text; in the 1 us
    # profile above (0.75 us) it is not
    sed -n 's/.*"recorded_us": \([0-9.]*\), "unlike": \([a-z]*\).*/\1 \2/p' "$T/skew.json" |
        awk '{ if ($1 < 0.74 || $1 > 0.76) { print "recorded_us " $1 " (0.75)"; exit 1 } }' ||
        { cat "$T/skew.json"; fail "--mix: the application's native completion per call (0.75 us) not given"; }
    "$mkprof" --us 20 --skew 5 "$T/skew20.prof" Reduce:2:8:200 || fail "mkprof --us 20 --skew"
    run 2 "$replay" --mix "$T/skew20.prof" --tree "$T/a.tree" --budget 0.5 --rounds 2 --csv \
        >"$T/skew20.csv" || fail "--mix --csv (skew20)"
    awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next } $1 == "reduce" { n++
            if ($c["recorded_us"] < 14.9 || $c["recorded_us"] > 15.1 || $c["unlike"] != 1) exit 1 }
        END { if (n != 1) exit 1 }' "$T/skew20.csv" ||
        { cat "$T/skew20.csv"; fail "--mix: the application's native completion (15 us per call) not given or not flagged"; }
    run 2 "$replay" --mix "$T/skew20.prof" --tree "$T/a.tree" --budget 0.5 --rounds 2 >"$T/skew.txt" ||
        fail "--mix text (skew20)"
    grep -A1 "where the replay does not reproduce the application's native calls" "$T/skew.txt" |
        grep -q "reduce .* 2 ranks .*8 B: application 15.00 us" ||
        { cat "$T/skew.txt"; fail "--mix text: the unlike point not listed"; }
    ;;
checkpoint)
    # an interrupted run keeps the points it measured: stop the run once the
    # first (fast) point is in the table, during the long second one
    "$mpiexec" "$flavour" 2 "$replay" --grid cs=2,ms=8,4M --colls bcast --time-per-point 60 \
        --no-progress -o "$T/c.csv" 2>"$T/err" &
    pid=$! # mpiexec.sh execs mpirun: this is mpirun, which passes the signal on
    for i in $(seq 1 600); do
        [ -s "$T/c.csv" ] && break
        kill -0 $pid 2>/dev/null || break
        sleep 0.1
    done
    kill -TERM $pid 2>/dev/null; wait $pid
    [ -s "$T/c.csv" ] || { cat "$T/err" >&2; fail "no perf table after the first point"; }
    grep -q '^bcast,2,8,bcast.native,' "$T/c.csv" || fail "first point missing"
    grep -q '^bcast,2,4194304,' "$T/c.csv" && fail "the stopped point was written (not a test of interruption)"
    "$collsel" tune --perf "$T/c.csv" -o "$T/c.tree" >/dev/null || fail "the kept table is not a valid perf table"
    ls "$T" | grep -q 'tmp' && fail "a temporary file was left behind"
    ;;
finalists)
    run 2 "$replay" --grid cs=2,ms=8,64k --colls bcast,reduce --finalists 2 -v --no-progress \
        --time-per-point 0.3 -o "$T/f.csv" 2>"$T/err" || { cat "$T/err" >&2; fail "replay --finalists 2"; }
    cat "$T/err" >&2
    run 1 "$check" "$T/f.csv" bcast:2:8 bcast:2:65536 reduce:2:8 reduce:2:65536 ||
        fail "perf table with a final"
    [ "$(grep -c '^collsel-replay: final ' "$T/err")" = 4 ] || fail "not one final per point"
    # final COLL,CS,BYTES calls=R methods=N cycles=C stage1=.. stage2=.. scale=.. NAME=S2/S1 ...
    grep '^collsel-replay: final ' "$T/err" | while read -r _ _ point calls methods cycles _ _ _ rest; do
        c=${cycles#cycles=}
        [ "$c" -ge 10 ] || fail "$point: $cycles: fewer than 10 stage-2 rounds"
        set -- $rest
        [ $# = 3 ] || fail "$point: $# finalists, not 2 + native"
        echo "$rest" | grep -q "${point%%,*}.native=" || fail "$point: native not in the final"
        best=""
        for f in "$@"; do
            name=${f%%=*} s2=${f#*=}; s2=${s2%%/*}
            row=$(grep "^$point,$name," "$T/f.csv") || fail "$point: no row for finalist $name"
            reps=$(echo "$row" | cut -d, -f8) med=$(echo "$row" | cut -d, -f5)
            [ "$reps" = "$c" ] || fail "$point: $name: reps $reps, not the $c stage-2 rounds"
            awk -v a="$med" -v b="$s2" 'BEGIN { d = a - b; exit !(d < 0.0015 && d > -0.0015) }' ||
                fail "$point: $name: median $med is not the stage-2 median $s2"
            best=$(awk -v a="$med" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
            echo ",$name," >>"$T/fin.$point"
        done
        # the methods that lost the screening: never below the final's best
        grep "^$point," "$T/f.csv" | grep -v -F -f "$T/fin.$point" | cut -d, -f4,5 | tr , ' ' |
            while read -r name med; do
                awk -v a="$med" -v b="$best" 'BEGIN { exit !(a >= b) }' ||
                    fail "$point: $name (not a finalist) at $med us, below the final's best $best"
            done || exit 1
    done || exit 1
    run 2 "$replay" --grid cs=2,ms=8 --colls bcast --finalists 0 -v --no-progress \
        --time-per-point 0.2 -o "$T/f0.csv" 2>"$T/err0" || fail "replay --finalists 0"
    grep -q '^collsel-replay: final bcast,2,8 .* cycles=0 ' "$T/err0" || { cat "$T/err0"; fail "--finalists 0 ran a final"; }
    run 1 "$check" "$T/f0.csv" bcast:2:8 || fail "perf table without a final"
    ;;
args)
    expect2() { # expect2 PATTERN CMD...: exit status 2 and PATTERN on stderr
        pat=$1; shift
        "$@" >"$T/out" 2>"$T/err"; rc=$?
        [ $rc = 2 ] || { cat "$T/err"; fail "exit $rc (not 2): $*"; }
        grep -q -- "$pat" "$T/err" || { cat "$T/err"; fail "no '$pat' in the message of: $*"; }
    }
    "$replay" --help | grep -q -- '--grid SPEC' || fail "--help"
    expect2 'missing -o' "$replay" --grid cs=2
    expect2 'cs range 4:2' "$replay" --grid cs=4:2 -o "$T/x.csv"
    expect2 "unknown clause 'xs'" "$replay" --grid xs=2 -o "$T/x.csv"
    expect2 "'bcast.nosuch' matches no method" "$replay" --methods bcast.nosuch -o "$T/x.csv"
    expect2 'bcast.native' "$replay" --methods bcast.nosuch -o "$T/x.csv"
    expect2 "unknown collective 'gather'" "$replay" --colls gather -o "$T/x.csv"
    expect2 'needs --tree' "$replay" --mix "$T/app.prof"
    expect2 "unknown option '--frobnicate'" "$replay" --frobnicate -o "$T/x.csv"
    expect2 "time-per-point '-1'" "$replay" --time-per-point -1 -o "$T/x.csv"
    expect2 'rounds' "$replay" --mix a --tree b --rounds 0
    expect2 "finalists '-1'" "$replay" --finalists -1 -o "$T/x.csv"
    expect2 "option '-o' needs a value" "$replay" --grid cs=2 -o
    expect2 "unknown arrival pattern 'late:5us'" "$replay" --grid cs=2 --arrivals late:5us -o "$T/x.csv"
    expect2 "delay '0us' is not a duration" "$replay" --grid cs=2 --arrivals one-late:0us -o "$T/x.csv"
    expect2 "--arrivals recorded: needs --profile" run 2 "$replay" --grid cs=2,ms=8 --arrivals recorded -o "$T/x.csv"
    # input errors found under MPI: the file is named
    expect2 "$T/nonexistent.prof" run 2 "$replay" --profile "$T/nonexistent.prof" -o "$T/x.csv"
    echo "not a profile" >"$T/bad.prof"
    expect2 "$T/bad.prof" run 2 "$replay" --profile "$T/bad.prof" -o "$T/x.csv"
    expect2 "$T/nodir" run 2 "$replay" --grid cs=2,ms=8 -o "$T/nodir/x.csv"
    [ -e "$T/x.csv" ] && fail "a failed run left a perf table"
    ;;
*)
    fail "unknown case '$case_'" ;;
esac
echo "ok: replay $case_"
