#!/bin/sh
# Selection through the preload library, end to end: example_app's stdout
# (bit-exact checksums of every reduction) must be identical to its native
# run when COLLSEL_FORCE forces our methods, when COLLSEL_TREE selects them
# from a tree built by `collsel tune`, and when the configuration is bad
# (unknown method or collective, corrupt tree file: one clear line from
# rank 0, the rest of the run native).  COLLSEL_VERBOSE=2 shows that the
# methods really ran.  Finally the ANY_SOURCE isolation test runs through
# MPI_* with every collective forced.
#   usage: preload.sh MPIEXEC_SH FLAVOUR NP LIBCOLLSEL COLLSEL EXAMPLE_APP ANYSOURCE
# On a cluster (tests/cluster/mpiexec.sh, CS_TEST_CLUSTER_NODES nodes):
# the world spans nodes, so a forced shared-memory method must not run on
# it (the line says it does not apply, the call runs natively); it runs on
# example_app's row communicators (ranks 2i, 2i+1: bcast and reduce) where
# a node holds two ranks.
mpiexec=$1 flavour=$2 np=$3 lib=$4 collsel=$5 app=$6 anysource=$7
rankenv=$(cd "$(dirname "$0")/../../.." && pwd)/tests/rankenv.sh
rpn=$np # ranks per node
[ -n "${CS_TEST_CLUSTER_NODES:-}" ] && rpn=$((np / CS_TEST_CLUSTER_NODES))
tmp=${TMPDIR:-/tmp}/cs-preload-$$
mkdir -p "$tmp" && trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# LD_PRELOAD goes to the ranks only (not to mpirun) through MPIEXEC_EXTRA:
# "-x VAR=VALUE" (Open MPI) or "-genv VAR VALUE" (MPICH); COLLSEL_* values
# (which may hold blanks) are set in mpirun's environment and forwarded
# (Open MPI: "-x VAR"; MPICH's hydra forwards the environment by default).
preload_env() { # preload_env VAR=VALUE...: MPIEXEC_EXTRA for LD_PRELOAD + VARs
    if [ "$flavour" = openmpi ]; then
        printf -- '-x LD_PRELOAD=%s' "$lib"
        for kv in "$@"; do printf ' -x %s' "${kv%%=*}"; done
    else
        printf -- '-genv LD_PRELOAD %s' "$lib"
    fi
}
run() { # run NAME [VAR=VALUE...]: example_app under the preload library
    name=$1; shift
    env "$@" MPIEXEC_EXTRA="$(preload_env "$@")" "$mpiexec" "$flavour" "$np" "$app" \
        --quick > "$tmp/$name.out" 2> "$tmp/$name.err" ||
        { cat "$tmp/$name.err" >&2; fail "$name: example_app exited non-zero"; }
    cmp -s "$tmp/ref.out" "$tmp/$name.out" ||
        { diff "$tmp/ref.out" "$tmp/$name.out" >&2; fail "$name: output differs from native"; }
}
tune() { # tune PERF TREE: collsel tune, or fail showing its output
    "$collsel" tune --perf "$1" -o "$2" > "$2.out" 2>&1 ||
        { cat "$2.out" >&2; fail "collsel tune --perf $1 failed"; }
}
expect() { # expect NAME PATTERN: stderr of run NAME has a line matching PATTERN
    grep -q -- "$2" "$tmp/$1.err" || { cat "$tmp/$1.err" >&2; fail "$1: no stderr line like '$2'"; }
}

# a launcher that cannot run here (tests/cluster/mpiexec.sh where namespaces
# cannot be made) says why and exits 77: the same skip, not a failure
"$mpiexec" "$flavour" "$np" "$app" --quick > "$tmp/ref.out" 2> "$tmp/ref.err"
rc=$?
[ $rc = 77 ] && { cat "$tmp/ref.err" >&2; exit 77; }
[ $rc = 0 ] || { cat "$tmp/ref.err" >&2; fail "native example_app failed"; }

# 1. Forced methods, all three collectives at once; every run must match.
i=0
for spec in "bcast=binomial,reduce=inorder_binary.seg1k,barrier=dissemination" \
            "bcast=bcast.pipeline.seg8k,reduce=knomial.k4,barrier=tree.k3" \
            "bcast=scatter_ringallgather,reduce=reduce.linear,barrier=bruck" \
            "bcast=splitbinary.seg16k,reduce=chain.k2.seg8k,barrier=recursive_doubling" \
            "bcast=shm.ota,reduce=shm.direct,barrier=shm.dissemination,allreduce=shm.direct" \
            "reduce=shm.ag,barrier=shm.counter,allreduce=recursive_doubling" \
            "barrier=shm.tree.k2,allreduce=reduce_bcast.knomial_k4-knomial_k4" \
            "barrier=shm.pairwise,allreduce=shm.ag" "barrier=shm.ota,allreduce=knomial.k3" \
            "allreduce=ring" "allreduce=reduce_bcast.inorder_binary-binomial" \
            "reduce=shm.dynamic,allreduce=shm.dynamic"; do
    i=$((i + 1))
    run force$i COLLSEL_VERBOSE=2 COLLSEL_FORCE="$spec"
    for item in $(echo "$spec" | tr ',' ' '); do
        coll=${item%%=*} m=${item#*=}
        case "$m" in "$coll".*) ;; *) m="$coll.$m" ;; esac
        if [ "$rpn" = "$np" ] || [ "${m#*.shm.}" = "$m" ]; then
            expect force$i "^collsel: comm .* $coll.* -> $m (forced)"
        elif [ "$rpn" -ge 2 ] && { [ "$coll" = bcast ] || [ "$coll" = reduce ]; }; then
            expect force$i "^collsel: comm .* size 2: $coll.* -> $m (forced)"
            expect force$i "^collsel: comm .* size $np: $coll.* -> $coll.native (forced method does not apply)"
        else
            expect force$i "^collsel: comm .* $coll.* -> $coll.native (forced method does not apply)"
        fi
    done
    if [ "$rpn" != "$np" ] && grep -q "size $np: .* -> [a-z]*\.shm\." "$tmp/force$i.err"; then
        cat "$tmp/force$i.err" >&2; fail "force$i: a shared-memory method ran on a world that spans nodes"
    fi
done

# 1b. No shared memory allowed (COLLSEL_SHM_LIMIT=0): the segment is
#     refused on every rank, one line says so, the calls run natively and
#     the results do not change.  (On nodes of one rank no communicator
#     would make one.)
[ "$rpn" -ge 2 ] && run shmlimit COLLSEL_VERBOSE=1 COLLSEL_SHM_LIMIT=0 \
    COLLSEL_FORCE=bcast=shm.ota,barrier=shm.dissemination,allreduce=shm.direct
[ "$rpn" -ge 2 ] && expect shmlimit "no shared-memory segment .*COLLSEL_SHM_LIMIT=0 MiB"

# 1b'. The dynamic reductions with floating-point reordering allowed (the
#      example's sums are exact in any order), and a bad value of the
#      setting: one line, rank order
run reorder COLLSEL_VERBOSE=2 COLLSEL_REORDER_FP=1 COLLSEL_FORCE=reduce=shm.dynamic,allreduce=shm.dynamic
if [ "$rpn" = "$np" ]; then
    expect reorder "allreduce 8 B -> allreduce.shm.dynamic (forced)"
elif [ "$rpn" -ge 2 ]; then # the world spans nodes: on the row communicators
    expect reorder "size 2: reduce .* -> reduce.shm.dynamic (forced)"
    expect reorder "size $np: allreduce 8 B -> allreduce.native (forced method does not apply)"
else
    expect reorder "allreduce 8 B -> allreduce.native (forced method does not apply)"
fi
run badreorder COLLSEL_REORDER_FP=yes COLLSEL_FORCE=allreduce=shm.dynamic
n=$(grep -c "COLLSEL_REORDER_FP='yes' is not valid (accepted: an integer 0..1)" "$tmp/badreorder.err")
[ "$n" -eq 1 ] || { cat "$tmp/badreorder.err" >&2; fail "badreorder: $n lines about COLLSEL_REORDER_FP, expected 1"; }

# 1c. Node-aware methods on virtual nodes of 2 ranks (COLLSEL_NODE_SIZE)
if [ "$np" -ge 4 ]; then
    run nodedyn COLLSEL_VERBOSE=2 COLLSEL_NODE_SIZE=2 \
        COLLSEL_FORCE=bcast=node.dynamic,reduce=node.dynamic,allreduce=node.dynamic
    expect nodedyn "allreduce 8 B -> allreduce.node.dynamic (forced)"
    expect nodedyn "bcast [0-9]* B -> bcast.node.dynamic (forced)"
    run nodes COLLSEL_VERBOSE=2 COLLSEL_NODE_SIZE=2 \
        COLLSEL_FORCE=bcast=node.binomial,reduce=node.knomial.k4,barrier=node.dissemination,allreduce=node.recursive_doubling
    expect nodes "barrier -> barrier.node.dissemination (forced)"
    expect nodes "allreduce 8 B -> allreduce.node.recursive_doubling (forced)"
fi

# 2. Unknown method: one line (rank 0 only) naming it and the valid names;
#    the other collective stays forced.
run badmethod COLLSEL_VERBOSE=2 COLLSEL_FORCE=bcast=nosuch,barrier=double_ring
n=$(grep -c "unknown bcast method 'nosuch'" "$tmp/badmethod.err")
[ "$n" -eq 1 ] || fail "badmethod: $n lines about 'nosuch', expected 1"
expect badmethod "unknown bcast method 'nosuch'.*bcast.binomial.*bcast.scatter_ringallgather"
expect badmethod "barrier -> barrier.double_ring (forced)"
if grep -q -- "-> bcast\.[a-z]" "$tmp/badmethod.err" &&
   grep -- "-> bcast\." "$tmp/badmethod.err" | grep -qv -- "-> bcast.native"; then
    fail "badmethod: bcast ran one of our methods"
fi

# 3. Unknown collective, an item that is not COLL=NAME, blanks: the valid
#    item still counts.
run badcoll COLLSEL_VERBOSE=2 "COLLSEL_FORCE=gather=linear, junk , reduce = binary"
expect badcoll "unknown collective 'gather' (accepted: bcast, reduce, barrier, allreduce, alltoall)"
expect badcoll "'junk' is not COLL=METHOD"
expect badcoll "reduce [0-9]* B -> reduce.binary (forced)"

# 4. A tree from a synthetic performance table: binomial below 64 KiB,
#    pipeline with 8 KiB segments above (bcast); binomial / Rabenseifner
#    (reduce: Rabenseifner does not apply to short counts, dispatch falls
#    back to the next candidate); dissemination (barrier).
{
    echo "collective,comm_size,msg_bytes,method,median_us"
    for p in 2 4; do
        for b in 4 64 1024 65536 1048576 4194304; do
            small=$([ "$b" -lt 65536 ] && echo 1 || echo 0)
            echo "bcast,$p,$b,bcast.native,100"
            echo "bcast,$p,$b,bcast.binomial,$([ $small = 1 ] && echo 10 || echo 200)"
            echo "bcast,$p,$b,bcast.pipeline.seg8k,$([ $small = 1 ] && echo 50 || echo 20)"
            echo "reduce,$p,$b,reduce.native,100"
            echo "reduce,$p,$b,reduce.binomial,$([ $small = 1 ] && echo 20 || echo 200)"
            echo "reduce,$p,$b,reduce.rabenseifner,$([ $small = 1 ] && echo 10 || echo 30)"
        done
        echo "barrier,$p,0,barrier.native,10"
        echo "barrier,$p,0,barrier.dissemination,5"
    done
} > "$tmp/perf.csv"
tune "$tmp/perf.csv" "$tmp/app.tree"
run tree COLLSEL_VERBOSE=2 COLLSEL_TREE="$tmp/app.tree"
expect tree "bcast [0-9]* B -> bcast.binomial (tree)"
expect tree "bcast 1048576 B -> bcast.pipeline.seg8k (tree)"
expect tree "reduce [0-9]* B -> reduce.binomial (tree, next best applicable)"
expect tree "barrier -> barrier.dissemination (tree)"
# a communicator of one rank (the example's rows below 4 ranks) stays
# native whatever the tree says: no decision is logged for it
if grep -q -- " size 1: " "$tmp/tree.err"; then
    cat "$tmp/tree.err" >&2; fail "tree: a one-rank communicator went through the tree"
fi

# 4b. A tree that keeps native everywhere for a collective (here barrier):
#     that collective is not intercepted at all (no per-call cost), the
#     others still are.
sed 's/^barrier,\([0-9]*\),0,barrier.dissemination,5$/barrier,\1,0,barrier.dissemination,50/' \
    "$tmp/perf.csv" > "$tmp/perf-nb.csv"
tune "$tmp/perf-nb.csv" "$tmp/nb.tree"
run nbtree COLLSEL_VERBOSE=2 COLLSEL_TREE="$tmp/nb.tree"
expect nbtree "the tree keeps native barrier everywhere; barrier is not intercepted"
expect nbtree "bcast [0-9]* B -> bcast.binomial (tree)"
if grep -q -- "barrier -> " "$tmp/nbtree.err"; then
    cat "$tmp/nbtree.err" >&2; fail "nbtree: barrier went through dispatch"
fi

# 4c. Exploring (COLLSEL_EXPLORE=K): every call one of the leaf's first K
#     candidates or native, drawn per call: results as native's (run
#     compares), the times kept per method; K without a tree, or out of
#     range: one line, nothing explored.
run explore COLLSEL_TREE="$tmp/app.tree" COLLSEL_EXPLORE=3 COLLSEL_RECORD="$tmp/explore.prof"
"$collsel" show --explored "$tmp/explore.prof" > "$tmp/explored.txt" 2>&1 ||
    { cat "$tmp/explored.txt" >&2; fail "explore: show --explored failed"; }
awk '$1 ~ /^(bcast|reduce|barrier)$/ && $5 > 0 { n[$1 " " $2 " " $3]++ }
     END { for (k in n) if (n[k] >= 2) ok = 1; exit !ok }' "$tmp/explored.txt" ||
    { cat "$tmp/explored.txt" >&2; fail "explore: no point where two methods ran"; }
# Another seed (COLLSEL_EXPLORE_SEED) draws other calls for the methods:
# results as native's, and the calls per method differ somewhere.
run explore7 COLLSEL_TREE="$tmp/app.tree" COLLSEL_EXPLORE=3 COLLSEL_EXPLORE_SEED=7 \
    COLLSEL_RECORD="$tmp/explore7.prof"
"$collsel" show --explored "$tmp/explore7.prof" > "$tmp/explored7.txt" 2>&1 ||
    { cat "$tmp/explored7.txt" >&2; fail "explore7: show --explored failed"; }
! grep -q "disagree" "$tmp/explore7.err" || { cat "$tmp/explore7.err" >&2; fail "explore7: ranks disagreed"; }
calls() { awk '$1 ~ /^(bcast|reduce|barrier|allreduce)$/ { print $1, $2, $3, $4, $5 }' "$1"; }
[ "$(calls "$tmp/explored.txt")" != "$(calls "$tmp/explored7.txt")" ] ||
    { cat "$tmp/explored7.txt" >&2; fail "explore7: seed 7 drew the same calls as seed 0"; }
run explorenotree COLLSEL_EXPLORE=2
expect explorenotree "COLLSEL_EXPLORE=2: needs a tree"
run explorebad COLLSEL_EXPLORE=9 COLLSEL_TREE="$tmp/app.tree"
expect explorebad "COLLSEL_EXPLORE='9' is not valid (accepted: an integer 0..8)"

# 4d. The warm-up (COLLSEL_SHM_WARMUP=N): a tree (barrier only: only
#     barriers count) whose barrier is shared-memory runs the next candidate
#     on a communicator's first N - 1 selected calls, then the shared-memory
#     method; COLLSEL_SHM_WARMUP=0: at once.  (example_app --quick: 20
#     barriers.)
{
    echo "collective,comm_size,msg_bytes,method,median_us"
    for p in 2 4; do
        echo "barrier,$p,0,barrier.native,10"
        echo "barrier,$p,0,barrier.dissemination,5"
        echo "barrier,$p,0,barrier.shm.dissemination,2"
    done
} > "$tmp/perf-shm.csv"
tune "$tmp/perf-shm.csv" "$tmp/shm.tree"
# (barrier runs on the world only: across nodes no shared-memory barrier applies)
[ "$rpn" = "$np" ] && {
    run warm COLLSEL_VERBOSE=2 COLLSEL_TREE="$tmp/shm.tree" COLLSEL_SHM_WARMUP=10
    expect warm "barrier -> barrier.dissemination (tree, next best applicable)"
    expect warm "barrier -> barrier.shm.dissemination (tree)"
    grep -- "barrier -> " "$tmp/warm.err" | head -n 1 | grep -q "barrier.dissemination" ||
        { cat "$tmp/warm.err" >&2; fail "warm: the first barrier did not wait for the warm-up"; }
    run warm0 COLLSEL_VERBOSE=2 COLLSEL_TREE="$tmp/shm.tree" COLLSEL_SHM_WARMUP=0
    if grep -q -- "barrier -> barrier.dissemination" "$tmp/warm0.err"; then
        cat "$tmp/warm0.err" >&2; fail "warm0: COLLSEL_SHM_WARMUP=0 still warmed up"
    fi
    expect warm0 "barrier -> barrier.shm.dissemination (tree)"
    # exploring that tree: the call that makes the segment is kept apart
    # (barrier.segment: the making's time per rank, not the method's call),
    # and the CSV carries it as the tree's segment row
    run xseg COLLSEL_TREE="$tmp/shm.tree" COLLSEL_SHM_WARMUP=0 COLLSEL_EXPLORE=2 \
        COLLSEL_RECORD="$tmp/xseg.prof"
    "$collsel" show --explored "$tmp/xseg.prof" > "$tmp/xseg.txt" 2>&1 &&
        "$collsel" show --explored --csv "$tmp/xseg.prof" > "$tmp/xseg.csv" 2>&1 ||
        { cat "$tmp/xseg.txt" "$tmp/xseg.csv" >&2; fail "xseg: show --explored failed"; }
    awk -v np="$np" '$1 == "barrier" && $2 == np && $4 == "barrier.segment" && $5 == np &&
                     $6 > 0 && $9 == "-" { ok = 1 } END { exit !ok }' "$tmp/xseg.txt" ||
        { cat "$tmp/xseg.txt" >&2; fail "xseg: no barrier.segment of $np rank calls"; }
    grep -q "^barrier,$np,0,barrier.segment,[0-9.e+-]*,[0-9.e+-]*,[0-9.e+-]*,$np,application$" \
        "$tmp/xseg.csv" || { cat "$tmp/xseg.csv" >&2; fail "xseg: no segment row in the CSV"; }
}

# 5. A corrupt tree file: one line naming the file; everything native.
printf 'not a tree\n' > "$tmp/bad.tree"
run badtree COLLSEL_VERBOSE=2 COLLSEL_TREE="$tmp/bad.tree"
n=$(grep -c "COLLSEL_TREE=$tmp/bad.tree" "$tmp/badtree.err")
[ "$n" -eq 1 ] || { cat "$tmp/badtree.err" >&2; fail "badtree: $n lines naming the file, expected 1"; }
if grep -q -- "-> bcast\.[a-z]" "$tmp/badtree.err"; then
    fail "badtree: a method was selected from a corrupt tree"
fi
# ... with COLLSEL_EXPLORE too: still one line, which says there is nothing
# to explore
run badtreex COLLSEL_TREE="$tmp/bad.tree" COLLSEL_EXPLORE=2
n=$(grep -c "^collsel: COLLSEL_" "$tmp/badtreex.err")
[ "$n" -eq 1 ] && grep -q "COLLSEL_TREE=$tmp/bad.tree: .*; nothing to explore)" "$tmp/badtreex.err" ||
    { cat "$tmp/badtreex.err" >&2; fail "badtreex: $n lines, expected 1 saying nothing is explored"; }

# 6. Ranks that disagree (here: rank 0 and the others get different forced
#    bcast methods, set per rank by tests/rankenv.sh) must not hang: bcast
#    stays native, with one line; the collective they agree on (barrier)
#    stays forced.
if [ "$flavour" = openmpi ] && [ "$rpn" = "$np" ]; then
    COLLSEL_FORCE=bcast=linear,barrier=bruck \
    MPIEXEC_EXTRA="-x LD_PRELOAD=$lib -x COLLSEL_VERBOSE=2 -x COLLSEL_FORCE" \
        "$mpiexec" "$flavour" "$np" "$rankenv" 0 COLLSEL_FORCE=bcast=binomial,barrier=bruck -- \
        "$app" --quick > "$tmp/disagree.out" 2> "$tmp/disagree.err" ||
        { cat "$tmp/disagree.err" >&2; fail "disagree: example_app exited non-zero"; }
    cmp -s "$tmp/ref.out" "$tmp/disagree.out" || fail "disagree: output differs from native"
    expect disagree "the ranks disagree about bcast"
    expect disagree "barrier -> barrier.bruck (forced)"
    # exploring with different seeds would draw different methods for one
    # call: the tree's collectives stay native, with one line
    MPIEXEC_EXTRA="-x LD_PRELOAD=$lib -x COLLSEL_TREE=$tmp/app.tree -x COLLSEL_EXPLORE=2 -x COLLSEL_EXPLORE_SEED=2" \
        "$mpiexec" "$flavour" "$np" "$rankenv" 0 COLLSEL_EXPLORE_SEED=1 -- "$app" --quick \
        > "$tmp/disseed.out" 2> "$tmp/disseed.err" ||
        { cat "$tmp/disseed.err" >&2; fail "disseed: example_app exited non-zero"; }
    cmp -s "$tmp/ref.out" "$tmp/disseed.out" || fail "disseed: output differs from native"
    expect disseed "the ranks disagree about bcast"
fi

# 7. The application's ANY_SOURCE receives while forced collectives run.
force=COLLSEL_FORCE=bcast=knomial.k3,reduce=binary.seg1k,barrier=linear,alltoall=linear_sync.k2
env "$force" MPIEXEC_EXTRA="$(preload_env "$force")" \
    "$mpiexec" "$flavour" "$np" "$anysource" --mpi > "$tmp/any.out" 2>&1 ||
    { cat "$tmp/any.out" >&2; fail "anysource --mpi under preload"; }

echo "preload: forced, tree-selected and misconfigured runs all matched native"
