#!/bin/sh
# `collsel methods`: the CSV lists every method once, agrees with the table
# view, and the command follows the CLI conventions (--help, exit 2 on bad
# usage with a "collsel methods:" message).   usage: methods-cli.sh COLLSEL
collsel=$1
tmp=${TMPDIR:-/tmp}/cs-methods-$$
trap 'rm -f "$tmp".*' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$collsel" methods --csv > "$tmp.csv" || fail "methods --csv exited $?"
head -1 "$tmp.csv" | grep -qx 'name,collective,algorithm,segsize,fanout,description' ||
    fail "bad CSV header: $(head -1 "$tmp.csv")"
rows=$(($(wc -l < "$tmp.csv") - 1))
uniq=$(tail -n +2 "$tmp.csv" | cut -d, -f1 | sort -u | wc -l)
[ "$rows" -eq "$uniq" ] || fail "$rows rows but $uniq distinct names"
for c in bcast reduce barrier; do
    grep -q "^$c\.native,$c,native,0,0," "$tmp.csv" || fail "no $c.native row"
    n=$(tail -n +2 "$tmp.csv" | cut -d, -f2 | grep -cx "$c")
    [ "$n" -ge 2 ] || fail "only $n $c methods"
done
# every name is prefixed by its collective
tail -n +2 "$tmp.csv" | awk -F, '{ if (index($1, $2 ".") != 1) { print "FAIL: " $0; bad = 1 } }
    END { exit bad }' >&2 || fail "a name without its collective prefix"

"$collsel" methods > "$tmp.txt" || fail "methods exited $?"
grep -q "^($rows methods)\$" "$tmp.txt" || fail "table view does not say ($rows methods)"
grep -q '^barrier.tree.k4 .* tree .* 4 ' "$tmp.txt" || fail "barrier.tree.k4 row missing/wrong"

"$collsel" methods --help > "$tmp.help" || fail "--help exited $?"
grep -q '^usage: collsel methods' "$tmp.help" || fail "--help has no usage line"
"$collsel" methods --bogus > /dev/null 2> "$tmp.err"
rc=$?
[ $rc -eq 2 ] || fail "--bogus exited $rc, not 2"
grep -q "^collsel methods: .*--bogus" "$tmp.err" || fail "--bogus message: $(cat "$tmp.err")"
echo "methods-cli: $rows methods, ok"
