#!/bin/sh
# export_mpich_test.sh COLLSEL APP_SOURCE DIR: `collsel export --format
# mpich-json` files are accepted by MPICH (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE).
# MPICH parses the whole file at MPI_Init and aborts on anything it does not
# understand (bad JSON, unknown keys or algorithms) and on calls no rule
# matches; so: our files must run the test program to a correct end at 2
# ranks, while a truncated file and one naming an unknown algorithm
# (negative controls) must make it fail.  MPICH's rules for the other
# collectives are taken from the installed libmpich.  The program is built with
# mpicc.mpich here, so the test runs from either build flavour.
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
collsel=$(abs "$1"); src=$(abs "$2"); here=$(cd "$(dirname "$0")" && pwd)
dir=$3/export_mpich; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
command -v mpicc.mpich > /dev/null && command -v mpirun.mpich > /dev/null ||
    { echo "MPICH not installed: skipped"; exit 77; }
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }

mpicc.mpich -o app "$src" || exit 1
"$here/synth_perf.sh" perf.csv && "$here/native_perf.sh" native.csv || exit 1
"$collsel" tune --perf perf.csv -o synth.tree > /dev/null &&
"$collsel" tune --perf native.csv -o native.tree > /dev/null || exit 1
for t in synth native; do
    "$collsel" export $t.tree --format mpich-json -o $t.json > $t.out || fail "export $t"
    cat $t.out
    # valid JSON; every decision level that has comparisons ends with "=any"
    python3 - $t.json <<'PY' || fail "$t.json: structure"
import json, sys
def walk(d, path):
    keys = list(d)
    cmp = [k for k in keys if "<=" in k or "<" in k]
    if cmp and not keys[-1].endswith("=any"):
        sys.exit("%s: %s does not end with an =any entry" % (sys.argv[1], path))
    for k in keys:
        walk(d[k], path + "/" + k)
d = json.load(open(sys.argv[1]), object_pairs_hook=lambda p: dict(p))
for c in ("bcast", "reduce", "barrier", "allreduce", "alltoall"):
    assert "collective=" + c in d, c
walk(d, "")
PY
done
# the rules of the other collectives come from the installed libmpich, read
# at export time; naming that library explicitly gives the same file
lib=$(sed -n "s/^MPICH's built-in rules of [0-9]* other collectives copied from //p" synth.out)
[ -n "$lib" ] || fail "export did not say which MPICH library it read"
"$collsel" export synth.tree --format mpich-json --mpich-lib "$lib" -o explicit.json > /dev/null &&
    cmp -s explicit.json synth.json || fail "--mpich-lib $lib: not the same file"
grep -q "bcast.native  *-> MPICH's default rules" native.out || fail "native not mapped to MPICH's rules"
# the native regions carry the library's own rules of the collective (its
# built-in JSON's, read here apart from collsel), and so do the
# intercommunicator branches
python3 - "$lib" native.json native.out <<'PY' || fail "native.json: native regions are not $lib's rules"
import json, sys
data = open(sys.argv[1], "rb").read()
start, lib = b'{"collective=bcast":{"comm_type=intra":', None
i = data.find(start)
while i >= 0 and lib is None:
    t = data[i:data.find(b"\0", i)].decode()
    if "algorithm=MPIR_" in t and "algorithm=MPIDI" not in t and "composition=" not in t:
        lib = json.loads(t)
    i = data.find(start, i + 1)
ours = json.load(open(sys.argv[2]))
def values(d):
    for k, v in d.items():
        yield v
        yield from values(v)
natives = [l.split()[0].split(".")[0] for l in open(sys.argv[3]) if ".native " in l]
assert natives, "native.tree has no native region"
for c in natives:
    mine, theirs = ours["collective=" + c], lib["collective=" + c]
    assert any(v == theirs["comm_type=intra"] for v in values(mine["comm_type=intra"])), c
    assert mine["comm_type=inter"] == theirs["comm_type=inter"], c
print("native regions of %s: the library's own rules" % ", ".join(natives))
PY
grep -q "reduce.rabenseifner  *-> MPIR_Reduce_intra_reduce_scatter_gather$" native.out ||
    fail "rabenseifner not mapped to reduce_scatter_gather"
grep -q "allreduce.rabenseifner  *-> MPIR_Allreduce_intra_reduce_scatter_allgather$" native.out ||
    fail "allreduce.rabenseifner not mapped to reduce_scatter_allgather"
grep -q "alltoall.pairwise  *-> MPIR_Alltoall_intra_pairwise$" native.out ||
    fail "alltoall.pairwise not mapped to MPIR_Alltoall_intra_pairwise"
grep -q "MPIR_Alltoall_intra_pairwise_sendrecv_replace" native.json ||
    fail "native.json: alltoall in place has no pairwise_sendrecv_replace rule"

# run FILE: exit status of the test program at 2 ranks with that file
run() {
    MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$PWD/$1 MPIR_CVAR_BCAST_INTRA_ALGORITHM=auto \
    MPIR_CVAR_REDUCE_INTRA_ALGORITHM=auto MPIR_CVAR_BARRIER_INTRA_ALGORITHM=auto \
    MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=auto MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=auto \
        timeout 120 mpirun.mpich -n 2 ./app > run.out 2>&1
    rc=$?
    [ $rc -eq 0 ] && grep -q "collectives ok" run.out && return 0
    return 1
}
head -c 300 synth.json > truncated.json
sed 's/MPIR_Bcast_intra_binomial/MPIR_Bcast_intra_nonexistent/' synth.json > unknown.json
sed 's/MPIR_Allreduce_intra_recursive_doubling/MPIR_Allreduce_intra_nonexistent/' synth.json \
    > unknown_allreduce.json
cmp -s synth.json unknown_allreduce.json && fail "synth.json names no MPICH allreduce algorithm"
sed 's/MPIR_Alltoall_intra_brucks/MPIR_Alltoall_intra_nonexistent/' synth.json > unknown_alltoall.json
cmp -s synth.json unknown_alltoall.json && fail "synth.json names no MPICH alltoall brucks"
for f in synth.json native.json; do
    run $f || fail "MPICH did not run with $f: $(head -3 run.out)"
done
for f in truncated.json unknown.json unknown_allreduce.json unknown_alltoall.json; do
    run $f && fail "MPICH accepted the broken $f (negative control)"
done
[ $fails -eq 0 ] && echo "export mpich-json: all checks passed"
exit $fails
