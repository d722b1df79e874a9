#!/bin/sh
# A tree is used on the layout it was tuned for only: example_app recorded
# on 2 nodes x 1 rank (a cluster on this machine), a tree tuned with that
# profile (collsel tune --profile: the layout goes into the tree, `collsel
# tree show` names it), then the tree runs on 2 x 1 (selected methods, no
# layout line) and on 1 node x 2 ranks (one line naming both layouts, every
# collective native, the output the native one's).
#   usage: layout.sh CLUSTER_MPIEXEC MPIEXEC_SH FLAVOUR LIBCOLLSEL COLLSEL EXAMPLE_APP
cmpiexec=$1 mpiexec=$2 flavour=$3 lib=$4 collsel=$5 app=$6
tmp=${TMPDIR:-/tmp}/cs-layout-$$
mkdir -p "$tmp" && trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
pre() { # MPIEXEC_EXTRA: the preload library and COLLSEL_* to the ranks
    if [ "$flavour" = openmpi ]; then
        printf -- '-x LD_PRELOAD=%s -x COLLSEL_RECORD -x COLLSEL_TREE -x COLLSEL_VERBOSE' "$lib"
    else
        printf -- '-genv LD_PRELOAD %s' "$lib"
    fi
}
export CS_TEST_CLUSTER_NODES=2
"$cmpiexec" "$flavour" 2 "$app" --quick > "$tmp/ref.out" 2> "$tmp/ref.err"
rc=$?
[ $rc = 77 ] && { cat "$tmp/ref.err" >&2; exit 77; }
[ $rc = 0 ] || { cat "$tmp/ref.err" >&2; fail "native example_app on the cluster failed"; }
COLLSEL_RECORD=$tmp/app.prof MPIEXEC_EXTRA=$(pre) "$cmpiexec" "$flavour" 2 "$app" --quick \
    > /dev/null 2> "$tmp/rec.err" || { cat "$tmp/rec.err" >&2; fail "recording failed"; }
"$collsel" show "$tmp/app.prof" | grep -q "ranks  *2 (2 nodes x 1 ranks per node)" ||
    { "$collsel" show "$tmp/app.prof" | head >&2; fail "the profile does not say 2 nodes x 1"; }
{
    echo "collective,comm_size,msg_bytes,method,median_us"
    for b in 4 64 1024 65536 1048576; do
        echo "bcast,2,$b,bcast.native,100"
        echo "bcast,2,$b,bcast.binomial,10"
    done
    echo "barrier,2,0,barrier.native,10"
    echo "barrier,2,0,barrier.dissemination,5"
} > "$tmp/perf.csv"
"$collsel" tune --perf "$tmp/perf.csv" --profile "$tmp/app.prof" -o "$tmp/app.tree" \
    > "$tmp/tune.out" 2>&1 || { cat "$tmp/tune.out" >&2; fail "collsel tune failed"; }
grep -q "tuned for 2 nodes x 1 rank per node" "$tmp/tune.out" ||
    { cat "$tmp/tune.out" >&2; fail "tune does not name the layout"; }
"$collsel" tree show "$tmp/app.tree" | grep -q "^tuned for 2 nodes x 1 rank per node" ||
    fail "tree show does not name the layout"
# the same layout: the tree's methods run
COLLSEL_TREE=$tmp/app.tree COLLSEL_VERBOSE=2 MPIEXEC_EXTRA=$(pre) \
    "$cmpiexec" "$flavour" 2 "$app" --quick > "$tmp/same.out" 2> "$tmp/same.err" ||
    { cat "$tmp/same.err" >&2; fail "the tuned run failed"; }
cmp -s "$tmp/ref.out" "$tmp/same.out" || fail "the tuned run's output differs from native"
grep -q "barrier -> barrier.dissemination (tree)" "$tmp/same.err" ||
    { cat "$tmp/same.err" >&2; fail "the tree's barrier did not run on its own layout"; }
if grep -q "tuned for" "$tmp/same.err"; then fail "a layout line on the tree's own layout"; fi
# another layout (one node of 2 ranks): one line naming both, native
COLLSEL_TREE=$tmp/app.tree COLLSEL_VERBOSE=2 MPIEXEC_EXTRA=$(pre) \
    "$mpiexec" "$flavour" 2 "$app" --quick > "$tmp/other.out" 2> "$tmp/other.err" ||
    { cat "$tmp/other.err" >&2; fail "the run on another layout failed"; }
cmp -s "$tmp/ref.out" "$tmp/other.out" || fail "the run on another layout differs from native"
n=$(grep -c "COLLSEL_TREE=$tmp/app.tree: tuned for 2 nodes x 1 rank per node, this run is 1 node x 2 ranks per node; the tree is not used" "$tmp/other.err")
[ "$n" = 1 ] || { cat "$tmp/other.err" >&2; fail "$n lines naming both layouts, expected 1"; }
if grep -q -- "-> [a-z]*\.[a-z_.0-9]* (tree" "$tmp/other.err"; then
    cat "$tmp/other.err" >&2; fail "a tree method ran on another layout"
fi
echo "layout: the tree runs on its own layout only, one line elsewhere"
