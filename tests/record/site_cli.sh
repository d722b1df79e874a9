#!/bin/sh
# site_cli.sh COLLSEL MKPROFILE DIR: profiles of several runs and
# applications: collsel show A B (merged), collsel show --compare A B, and
# collsel tune with several --profile and --weights (each application
# counts by its weight, not by how long it ran).
collsel=$(realpath "$1") mk=$(realpath "$2") dir=$3/site
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# app1: bcast 16 B at 2 ranks, 1000 calls of 1 ms; app2: bcast 1 MiB, 10 calls of 1 ms
"$mk" cell app1.prof Bcast 2 16 1000 0.001 || exit 1
"$mk" cell app2.prof Bcast 2 1048576 10 0.001 || exit 1
"$mk" cell tuned1.prof Bcast 2 16 1000 0.0005 "tree /site/app.tree" || exit 1

# merged runs: calls and time add up
"$collsel" show app1.prof app1.prof --csv > merged.csv || bad "show A A"
awk -F, '$1 == "Bcast" { c += $7; t += $8 } END { exit !(c == 2000 && t > 1.99 && t < 2.01) }' merged.csv ||
    { bad "show A A: not merged"; cat merged.csv; }
"$collsel" show app1.prof app2.prof | grep -q "^profile  *app1.prof + app2.prof" || bad "show A B: no merged name"

# compare: native vs tuned, per collective and per cell, the ratio
"$collsel" show --compare app1.prof tuned1.prof > cmp.txt || bad "compare: exit $?"
grep -q "^A  app1.prof: .*selection: native" cmp.txt || { bad "compare: A's selection"; cat cmp.txt; }
grep -q "^B  tuned1.prof: .*selection: tree /site/app.tree" cmp.txt || { bad "compare: B's selection"; cat cmp.txt; }
grep -q "^Bcast  *1000  *1000  *1000.000 ms  *500.000 ms  *0.500  *0.500" cmp.txt || { bad "compare: the Bcast row"; cat cmp.txt; }
"$collsel" show --compare app1.prof tuned1.prof --csv | grep -q "^all,,,,,1000,1000,1,0.5,0.5000,0.5000" ||
    bad "compare --csv: the total row"
"$collsel" show --compare app1.prof > /dev/null 2> err.txt && bad "compare with one profile accepted"
grep -q "two profiles" err.txt || bad "compare with one profile: message"

# tune with two applications: one leaf, the weights decide its method.
# bcast.binomial is best at 16 B, bcast.linear at 1 MiB.
H=collective,comm_size,msg_bytes,method,median_us,min_us,max_us,reps
cat > perf.csv <<CSV
$H
bcast,2,16,bcast.native,10,10,10,10
bcast,2,16,bcast.binomial,1,1,1,10
bcast,2,16,bcast.linear,15,15,15,10
bcast,2,1048576,bcast.native,1000,1000,1000,10
bcast,2,1048576,bcast.binomial,3000,3000,3000,10
bcast,2,1048576,bcast.linear,100,100,100,10
CSV
first() { "$collsel" tree show "$1" | grep -o ' bcast\.[a-z_.0-9]*' | head -1 | tr -d ' '; }
"$collsel" tune --perf perf.csv --profile app1.prof --profile app2.prof --max-leaves 1 -o eq.tree > eq.txt ||
    { bad "tune with two profiles"; cat eq.txt; }
grep -q "site profile: app1.prof weight 1 (1.000 s of collective time), app2.prof weight 1 (0.010 s)" eq.txt ||
    { bad "tune: the site line"; cat eq.txt; }
# equal weights: app2's 1 MiB calls count as much as app1's (though 100x
# shorter in time): linear saves 900 us of 1000 there and loses little at 16 B
[ "$(first eq.tree)" = bcast.linear ] || { bad "equal weights: $(first eq.tree), want bcast.linear"; "$collsel" tree show eq.tree; }
"$collsel" tune --perf perf.csv --profile app1.prof --profile app2.prof --weights 1000,1 --max-leaves 1 -o w.tree > w.txt ||
    bad "tune --weights"
[ "$(first w.tree)" = bcast.binomial ] || { bad "weights 1000,1: $(first w.tree), want bcast.binomial"; "$collsel" tree show w.tree; }
# the same from two perf tables (one per application's points)
{ echo "$H"; grep ',16,' perf.csv; } > perf1.csv
{ echo "$H"; grep ',1048576,' perf.csv; } > perf2.csv
"$collsel" tune --perf perf1.csv --perf perf2.csv --profile app1.prof --profile app2.prof --max-leaves 1 \
    -o two.tree > two.txt || { bad "tune with two --perf"; cat two.txt; }
[ "$(first two.tree)" = bcast.linear ] || bad "two --perf: $(first two.tree), want bcast.linear"
"$collsel" tune --perf perf.csv --profile app1.prof --weights 1,2 -o x.tree > /dev/null 2> err.txt; rc=$?
[ $rc = 2 ] && grep -q "weights gives 2 weight(s) for 1 --profile" err.txt || bad "--weights count: exit $rc"
"$collsel" tune --perf perf.csv --profile app1.prof --profile app2.prof --weights 1,-2 -o x.tree > /dev/null 2>&1
[ $? = 2 ] || bad "negative weight accepted"
[ "$fail" = 0 ] && echo "site: ok"
exit $fail
