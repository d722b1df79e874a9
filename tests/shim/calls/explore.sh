#!/bin/sh
# explore.sh MPIEXEC FLAVOUR NP COLLSEL MIX OUTDIR
# Exploring (COLLSEL_EXPLORE=3) draws the method of every call without a
# message between the ranks: they must all draw the same.  The known mix
# (mix.c: every collective, the world and a split of it) runs under a tree
# from a synthetic table with three methods per point (so every leaf has
# candidates to draw from), with COLLSEL_VERBOSE=3, where every rank logs
# each explored call's draw (its communicator's call number, size and the
# world rank of its rank 0, and the method).  Every call must have been
# drawn alike on every rank of its communicator, and some point must have
# drawn at least two methods.  A rank that drew otherwise may make the run
# hang or fail: the logs up to there are compared all the same (timeout).
mpiexec=$1 flavour=$2 np=$3 collsel=$4 mix=$5 out=$6
mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }
{
    echo "collective,comm_size,msg_bytes,method,median_us"
    for p in 2 3 4; do
        for b in 4 64 1024 8192; do
            echo "bcast,$p,$b,bcast.native,30"
            echo "bcast,$p,$b,bcast.binomial,10"
            echo "bcast,$p,$b,bcast.linear,11"
            echo "bcast,$p,$b,bcast.knomial.k3,12"
            echo "reduce,$p,$b,reduce.native,30"
            echo "reduce,$p,$b,reduce.binomial,10"
            echo "reduce,$p,$b,reduce.linear,11"
            echo "reduce,$p,$b,reduce.inorder_binary,12"
            echo "allreduce,$p,$b,allreduce.native,30"
            echo "allreduce,$p,$b,allreduce.recursive_doubling,10"
            echo "allreduce,$p,$b,allreduce.knomial.k3,11"
            echo "allreduce,$p,$b,allreduce.knomial.k4,12"
        done
        echo "barrier,$p,0,barrier.native,10"
        echo "barrier,$p,0,barrier.dissemination,5"
        echo "barrier,$p,0,barrier.linear,6"
        echo "barrier,$p,0,barrier.bruck,7"
    done
} > "$out/perf.csv"
"$collsel" tune --perf "$out/perf.csv" -o "$out/x.tree" > "$out/tune.out" 2>&1 ||
    { cat "$out/tune.out"; fail "collsel tune"; }
rm -rf "$out/x.prof" "$out/x.prof".partial.* "$out/ranks"
mkdir -p "$out/ranks"
# each rank's stderr to its own file (the launcher interleaves the ranks' lines); the rank
# from the launcher's environment (Open MPI, MPICH's hydra)
COLLSEL_EXPLORE=3 COLLSEL_VERBOSE=3 timeout 60 "$mpiexec" "$flavour" "$np" \
    sh -c 'exec "$@" 2> "$0/err.${OMPI_COMM_WORLD_RANK:-$PMI_RANK}"' "$out/ranks" \
    "$collsel" exec --tree "$out/x.tree" --record "$out/x.prof" -- "$mix" "$out/x.expect" \
    > "$out/x.log" 2>&1
rc=$?
find "$out/ranks" -type f -exec cat {} + | grep "explored call" > "$out/draws.txt"
# "collsel: rank R: explored call N on the P ranks led by world rank L: METHOD"
awk '
    { sub(/:$/, "", $3); sub(/:$/, "", $15)
      key = $9 " " $6 " " $15
      if (m[key] == "")
          m[key] = $NF
      if (m[key] != $NF && bad++ < 10)
          printf "FAIL: call %s of the %s ranks led by world rank %s: rank %s drew %s, " \
                 "another %s\n", $6, $9, $15, $3, $NF, m[key]
      n[key]++; size[key] = $9; split($NF, part, "."); pt = part[1] " " $9
      if (!((pt, $NF) in seen)) { seen[pt, $NF] = 1; kinds[pt]++ } }
    END { for (k in n) { calls++; if (n[k] != size[k] && short++ < 10)
              printf "FAIL: call (size, number, leader) %s: %d of its %d ranks logged a " \
                     "draw\n", k, n[k], size[k] }
          for (p in kinds) if (kinds[p] >= 2) many = 1
          printf "explore: %d explored calls, %d drawn differently, %d not logged by all\n",
                 calls, bad, short
          if (!many) print "FAIL: no collective drew two methods at one size"
          exit bad || short || !many || !calls }' "$out/draws.txt" || fail "the ranks' draws differ"
[ $rc = 0 ] || { tail -n 20 "$out/x.log" "$out"/ranks/err.*; fail "the mix exited $rc under exploring"; }
echo "explore: every rank drew the same method for every call"
