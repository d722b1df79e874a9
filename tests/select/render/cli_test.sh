#!/bin/sh
# cli_test.sh COLLSEL RENDER_CHECK DIR: `collsel map` pictures (checked by
# decoding them: size, fill colours, determinism, overlay) and the bad-input
# contract of map / codegen / export (exit 2, message naming file and line).
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
collsel=$(abs "$1"); check=$(abs "$2"); here=$(cd "$(dirname "$0")" && pwd)
dir=$3/cli; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
# expect RC STDERR-PATTERN -- CMD...: exit code and a grep pattern on stderr
expect() {
    want_rc=$1; pat=$2; shift 3
    "$@" > out.txt 2> err.txt; rc=$?
    if [ "$rc" != "$want_rc" ] || ! grep -q -- "$pat" err.txt; then
        fail "$* -> exit $rc (want $want_rc), stderr: $(cat err.txt) (want /$pat/)"
    fi
}

"$here/synth_perf.sh" perf.csv && "$check" profile app.prof || exit 1
"$collsel" tune --perf perf.csv -o exact.tree > /dev/null &&
"$collsel" tune --perf perf.csv --max-depth 1 -o coarse.tree > /dev/null || exit 1

# ---- pictures
"$collsel" map exact.tree -o tree.png && "$check" png tree.png 3000 8 14 || fail "map TREE"
"$collsel" map perf.csv -o perf.png && "$check" png perf.png 3000 8 22 || fail "map PERF"
"$collsel" map exact.tree -o 'one-%s.png' > out.txt || fail "map -o %s"
"$check" png one-bcast.png 600 3 3 && "$check" png one-reduce.png 600 3 3 &&
    "$check" png one-barrier.png 600 2 2 || fail "map -o %s: one PNG per collective"
"$collsel" map coarse.tree --penalty --perf perf.csv -o pen.png && "$check" png pen.png 3000 1 5 ||
    fail "map --penalty"
"$collsel" map exact.tree --penalty --perf perf.csv -o pen0.png && "$check" png pen0.png 3000 0 0 ||
    fail "map --penalty (exact tree)"
"$collsel" map exact.tree --profile app.prof -o prof.png && "$check" png prof.png 3000 8 14 ||
    fail "map --profile"
cmp -s prof.png tree.png && fail "the profile overlay changed nothing"
"$collsel" map exact.tree -o again.png > /dev/null && cmp -s again.png tree.png ||
    fail "map is not reproducible"
"$collsel" map perf.csv --profile app.prof -o perfprof.png > /dev/null || fail "map PERF --profile"

# ---- bad input: exit 2, the file (and line) named
H=collective,comm_size,msg_bytes,method,median_us,min_us,max_us,reps
printf 'collective,comm_size,method,median_us\nbcast,4,bcast.binomial,1\n' > cols.csv
printf '%s\nbcast,4,8,bcast.binomial,1,1,2,10\nbcast,4,8,bcast.binomial,-1.5,1,2,10\n' "$H" > neg.csv
printf '%s\n# comment\nbcast,4,8,bcast.binomial,fast,1,2,10\n' "$H" > nan.csv
printf '%s\nbcast,-4,8,bcast.binomial,1,1,2,10\n' "$H" > negcs.csv
size=$(wc -c < exact.tree)
head -c $((size / 2)) exact.tree > trunc.tree
{ head -c $((size / 2)) exact.tree; printf 'X'; tail -c $((size - size / 2 - 1)) exact.tree; } > flip.tree
cmp -s flip.tree exact.tree && printf 'Y' | dd of=flip.tree bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect 2 "cols.csv:1:.*msg_bytes" -- "$collsel" map cols.csv -o x.png
expect 2 "neg.csv:3:.*-1.5" -- "$collsel" map neg.csv -o x.png
expect 2 "nan.csv:3:.*fast" -- "$collsel" map nan.csv -o x.png
expect 2 "negcs.csv:2:" -- "$collsel" map negcs.csv -o x.png
expect 2 "neg.csv:3:" -- "$collsel" map exact.tree --penalty --perf neg.csv -o x.png
for t in trunc flip; do
    expect 2 "^collsel map: .*$t.tree" -- "$collsel" map $t.tree -o x.png
    expect 2 "^collsel codegen: .*$t.tree" -- "$collsel" codegen $t.tree -o x.c
    expect 2 "^collsel export: .*$t.tree" -- "$collsel" export $t.tree --format ompi-rules -o x.conf
    expect 2 "^collsel export: .*$t.tree" -- "$collsel" export $t.tree --format mpich-json -o x.json
done
expect 2 "^collsel codegen: .*perf.csv" -- "$collsel" codegen perf.csv -o x.c
expect 2 "^collsel export: .*perf.csv" -- "$collsel" export perf.csv --format ompi-rules -o x.conf
expect 2 "^collsel codegen: .*missing.tree" -- "$collsel" codegen missing.tree -o x.c
expect 2 "^collsel map: .*missing.prof" -- "$collsel" map exact.tree --profile missing.prof -o x.png
expect 2 "is not known" -- "$collsel" export exact.tree --format lam-mpi -o x
expect 2 "not a C identifier" -- "$collsel" codegen exact.tree --prefix 9x -o x.c
expect 2 "go together" -- "$collsel" map exact.tree --penalty -o x.png
expect 2 "needs a TREE" -- "$collsel" map perf.csv --penalty --perf perf.csv -o x.png
expect 2 "one %s" -- "$collsel" map exact.tree -o 'x-%d.png'
expect 2 "usage" -- "$collsel" map exact.tree
printf '%s\n' "$H" > hdr.csv
expect 2 "^collsel map: exact.tree and hdr.csv: nothing to draw" -- \
    "$collsel" map exact.tree --penalty --perf hdr.csv -o x.png
expect 2 "not a C identifier" -- "$collsel" codegen exact.tree --prefix \
    a123456789b123456789c123456789d123456789e123456789f123456789abcd -o x.c
# a valid tree with a method no library has a counterpart for: the tree named
printf '%s\nbcast,4,8,bcast.native,1,1,1,1\nbcast,4,8,bcast.mine,0.5,1,1,1\n' "$H" > mine.csv
"$collsel" tune --perf mine.csv -o mine.tree > /dev/null || fail "tune mine.csv"
expect 2 "^collsel export: mine.tree: method 'bcast.mine' has no counterpart in the Open MPI table" -- \
    "$collsel" export mine.tree --format ompi-rules -o x.conf
expect 2 "^collsel export: mine.tree: method 'bcast.mine' has no counterpart in the MPICH table" -- \
    "$collsel" export mine.tree --format mpich-json --no-mpich-defaults -o x.json
# ---- mpich-json: MPICH's built-in rules are read from the installed library
# at export time; a missing or wrong library is bad input (exit 2, named).
expect 2 "missing-libmpich.so.12" -- \
    "$collsel" export exact.tree --format mpich-json --mpich-lib missing-libmpich.so.12 -o x.json
expect 2 "^collsel export: .*--mpich-lib perf.csv: no .*--no-mpich-defaults" -- \
    "$collsel" export exact.tree --format mpich-json --mpich-lib perf.csv -o x.json
expect 2 "COLLSEL_MPICH_LIB .*bogus.so" -- \
    env COLLSEL_MPICH_LIB=$PWD/bogus.so "$collsel" export exact.tree --format mpich-json -o x.json
expect 2 "exclude each other" -- "$collsel" export exact.tree --format mpich-json \
    --mpich-lib perf.csv --no-mpich-defaults -o x.json
expect 2 "MPICH targets only" -- "$collsel" export exact.tree --format ompi-rules --mpich-lib perf.csv -o x.conf
# a stand-in library: binary junk, decoys (a CH4-level rule set, one with
# unbalanced braces), then the MPIR-level rules
S='{"collective=bcast":{"comm_type=intra":'
{
    printf 'ELF\001\002junk\000'
    printf '%s{"algorithm=MPIDI_POSIX_mpi_bcast":{}}}}\000' "$S"
    printf '%s{"algorithm=MPIR_Bcast_intra_binomial":{}}}\000' "$S"
    printf '%s{"algorithm=MPIR_Bcast_intra_binomial":{}}},"collective=allreduce":{"comm_type=intra":' "$S"
    printf '{"algorithm=MPIR_Allreduce_intra_recursive_doubling":{}},"comm_type=inter":{"algorithm=MPIR_'
    printf 'Allreduce_inter_reduce_exchange_bcast":{}}},"collective=gather":{"algorithm=MPIR_Gather_'
    printf 'intra_binomial":{}}}\000tail\000'
} > fake-libmpich.so
"$collsel" export exact.tree --format mpich-json --mpich-lib fake-libmpich.so -o fake.json > out.txt ||
    fail "export --mpich-lib fake-libmpich.so: $(cat out.txt)"
grep -q "rules of 1 other collective copied from fake-libmpich.so" out.txt ||
    fail "export --mpich-lib: $(tail -2 out.txt)"
# allreduce is in the tree: its rules are the tree's, not the library's
! grep -q '"collective=allreduce": {"comm_type=intra":{"algorithm=MPIR_Allreduce_intra_recursive_doubling":{}}' fake.json &&
    [ "$(grep -c 'collective=allreduce' fake.json)" = 1 ] &&
    grep -q '"collective=gather": {"algorithm=MPIR_Gather_intra_binomial":{}}' fake.json &&
    [ "$(grep -c 'collective=bcast' fake.json)" = 1 ] && ! grep -q MPIDI fake.json ||
    fail "fake.json: not the tree plus the library's other collectives: $(cat fake.json)"
"$collsel" export exact.tree --format mpich-json --no-mpich-defaults -o only.json > out.txt 2> err.txt ||
    fail "export --no-mpich-defaults"
grep -q "warning: .*only.json has rules for bcast, reduce, barrier, allreduce, alltoall only; MPICH aborts" err.txt ||
    fail "export --no-mpich-defaults: no warning: $(cat err.txt)"
[ "$(grep -c '"collective=' only.json)" = 5 ] || fail "only.json: not the tree's collectives only"
if command -v python3 > /dev/null; then
    for j in fake only; do
        python3 -c 'import json, sys; json.load(open(sys.argv[1]))' $j.json || fail "$j.json: not JSON"
    done
fi
for f in x.png x.c x.conf x.json; do [ -e $f ] && fail "$f written despite bad input"; done
for cmd in map codegen export; do
    "$collsel" $cmd --help > out.txt 2>&1 && grep -q "usage: collsel $cmd" out.txt ||
        fail "$cmd --help"
done
[ $fails -eq 0 ] && echo "render cli: all checks passed"
exit $fails
