#!/bin/sh
# A node fails mid-run: example_app on 2 nodes x 2 ranks, recording with
# snapshots every 0.2 s (COLLSEL_RECORD_INTERVAL), and every process of
# node 2 is killed (tools/cluster.sh kill 2).  The job fails as the MPI
# library makes it fail (non-zero); every rank keeps a partial profile
# (node 1's ranks, ended by the launcher, write theirs; node 2's keep their
# last snapshot); `collsel show` merges them and says the run did not
# finish; the cluster is still whole (node 2 runs a program again).
#   usage: nodefail.sh CLUSTER_MPIEXEC CLUSTER_SH FLAVOUR COLLSEL EXAMPLE_APP
cmpiexec=$1 cl=$2 flavour=$3 collsel=$4 app=$5
tmp=${TMPDIR:-/tmp}/cs-nodefail-$$
mkdir -p "$tmp" && trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$cl" check > /dev/null || exit $?
# no cluster up (the test run alone): one of our own, for the whole test
# (the launcher's own would be gone before node 2 is checked at the end)
if ! "$cl" status > /dev/null 2>&1; then
    "$cl" up 2 --ranks-per-node 2 > /dev/null || fail "cannot bring a cluster up"
    trap '"$cl" down > /dev/null; rm -rf "$tmp"' EXIT
fi
export CS_TEST_CLUSTER_NODES=2
prof=$tmp/app.prof
[ "$flavour" = openmpi ] && export MPIEXEC_EXTRA="-x COLLSEL_RECORD_INTERVAL"
COLLSEL_RECORD_INTERVAL=0.2 "$cmpiexec" "$flavour" 4 "$collsel" exec --record "$prof" -- \
    "$app" --steps 1000000 --n 4000 --table-every 50 > "$tmp/job.log" 2>&1 &
job=$!
i=0 # until every rank wrote a snapshot (at most 60 s)
while [ "$(ls "$prof".partial.* 2> /dev/null | grep -vc '\.tmp')" -lt 4 ] && [ $i -lt 600 ]; do
    sleep 0.1; i=$((i + 1))
done
[ $i -lt 600 ] || { cat "$tmp/job.log" >&2; kill "$job"; fail "no snapshots from 4 ranks"; }
sleep 0.5
"$cl" kill 2 || fail "cluster.sh kill 2 failed"
wait $job && { cat "$tmp/job.log" >&2; fail "the job succeeded though node 2 was killed"; }
[ -e "$prof" ] && fail "a final profile from a job that lost a node"
n=$(ls "$prof".partial.* 2> /dev/null | grep -vc '\.tmp')
[ "$n" = 4 ] || { ls "$tmp" >&2; fail "$n partial files, expected 4"; }
"$collsel" show "$prof" > "$tmp/show.out" 2>&1 || { cat "$tmp/show.out" >&2; fail "collsel show failed"; }
grep -q "INCOMPLETE: merged 4 partial files, the run did not reach MPI_Finalize" "$tmp/show.out" ||
    { cat "$tmp/show.out" >&2; fail "show does not say the run did not finish"; }
grep -q "Allreduce" "$tmp/show.out" || { cat "$tmp/show.out" >&2; fail "no Allreduce calls kept"; }
"$cl" exec 2 true || fail "node 2 is gone after its processes were killed"
echo "nodefail: the job failed, 4 partial profiles kept, the cluster whole"
