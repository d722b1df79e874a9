#!/bin/bash
# The user-space link (tools/cluster-link.c, `tools/cluster.sh up --link tap`,
# what --delay uses on kernels without netem): 2 nodes x 2 ranks with a
# delay of 500 us and a rate limit.
#   - the delay applies: ping's smallest round trip >= 2 x 500 us;
#   - no frame is lost: 50 pings, 50 answers (each way);
#   - the rate's tbf sits on every node's interface;
#   - an MPI job (FLAVOUR's) runs across the link: the correctness matrix of the
#     node-aware methods (groups 4 | 3+1 | 2+2), all matched;
#   - an unclean earlier run (its state in /run/collsel-cluster lost, a
#     stray switch left in collsel-sw) is cleaned by the next `up`: both
#     switch processes are ended;
#   - `down` leaves nothing: no namespace, link, mount, switch process or
#     /run/collsel-cluster.
# A cluster that was up before (tools/test.sh brings one up around the
# suite) is brought up again with its layout at the end.
#   usage: link.sh CLUSTER_SH FLAVOUR MATRIX
cl=$1 flavour=$2 matrix=$3
RUN=/run/collsel-cluster
tmp=${TMPDIR:-/tmp}/cs-link-$$
fail() { echo "FAIL: $*" >&2; exit 1; }
# PID is a running switch (not a zombie waiting for its parent, PID 1, to reap it)
running_link() {
    [ "$(cat "/proc/$1/comm" 2> /dev/null)" = cluster-link ] &&
        [ "$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f1)" != Z ]
}
"$cl" check > /dev/null || exit $?
case "$flavour" in openmpi|mpich) ;; *) echo "link.sh: the MPI job is Open MPI's or MPICH's (got '$flavour')" >&2; exit 77 ;; esac
lock=$("$cl" lockfile) || exit 1
exec 9>> "$lock" # one cluster user at a time, machine-wide (every clone's tests and benches)
flock 9
mkdir -p "$tmp"
prev=$(cat "$RUN/state" 2> /dev/null)
restore() {
    [ -n "${stray:-}" ] && kill "$stray" 2> /dev/null # (a failed check below)
    "$cl" down > /dev/null 2>&1
    # shellcheck disable=SC2086
    [ -n "$prev" ] && set -- $prev && "$cl" up "$1" --ranks-per-node "$2" > /dev/null
    rm -rf "$tmp"
}
trap restore EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

"$cl" up 2 --ranks-per-node 2 --delay 500 --rate 1gbit --link tap > "$tmp/up.out" 2>&1
rc=$?
[ $rc = 77 ] && { cat "$tmp/up.out" >&2; exit 77; } # no TAP devices, no cc: skipped, with the reason
[ $rc = 0 ] || { cat "$tmp/up.out" >&2; fail "cluster.sh up --delay 500 --link tap failed"; }
grep -q "tap, the user-space link: 500 us" "$tmp/up.out" || { cat "$tmp/up.out" >&2; fail "up does not name the link"; }
for i in 1 2; do
    tc -n collsel-node$i qdisc show dev collsel0 | grep -q "tbf .*rate 1Gbit" ||
        fail "no tbf of 1gbit on node $i's interface: $(tc -n collsel-node$i qdisc show dev collsel0)"
done

# the delay and the frames: RTT min in us, answers of 50
for way in "1 2" "2 1"; do
    # shellcheck disable=SC2086
    out=$("$cl" ping $way 50 2>&1)
    echo "ping $way: $out"
    echo "$out" | grep -q ": 50 sent, 50 received, loss 0.0 %" || fail "frames lost ($way): $out"
    min=$(echo "$out" | sed -n 's/.*rtt us min \([0-9.]*\) .*/\1/p')
    [ -n "$min" ] || fail "no RTT in: $out"
    awk -v m="$min" 'BEGIN { exit !(m >= 1000) }' ||
        fail "RTT min $min us < 2 x 500 us: the delay is not applied ($way)"
done

# an MPI job across the delayed link
line=$("$cl" launcher "$flavour") || fail "no launcher line"
# shellcheck disable=SC2086
timeout 90 $line "$matrix" --sizes 4,3,2 --quick --methods node > "$tmp/matrix.out" 2>&1
rc=$?
[ $rc = 124 ] && { tail -20 "$tmp/matrix.out" >&2; fail "the matrix did not end within 90 s across the delayed link"; }
[ $rc = 0 ] || { tail -20 "$tmp/matrix.out" >&2; fail "the matrix failed across the delayed link (exit $rc)"; }
grep -q "all matched" "$tmp/matrix.out" || { tail "$tmp/matrix.out" >&2; fail "the matrix did not match"; }
tail -1 "$tmp/matrix.out"

# an unclean earlier run: the state is lost, and a second switch runs in
# the switch's namespace with its TAP still there (an `up` that died before
# it moved the TAP into a node: only the namespace knows of it); the next
# `up` ends both
read -r old _ < "$RUN/link.pid" || fail "no $RUN/link.pid"
running_link "$old" || fail "the switch (PID $old) is not running"
cp "$RUN/cluster-link" "$tmp/" || fail "no $RUN/cluster-link"
rm -rf "$RUN"
nsenter --net=/run/netns/collsel-sw "$tmp/cluster-link" -d 500 -R "$tmp/stray.ready" collsel-t9 \
    2> /dev/null &
stray=$!
for i in $(seq 1 100); do [ -e "$tmp/stray.ready" ] && break; sleep 0.02; done
running_link "$stray" || fail "the stray switch did not start"
"$cl" up 2 --ranks-per-node 2 --delay 500 --link tap > "$tmp/up2.out" 2>&1 ||
    { cat "$tmp/up2.out" >&2; fail "up after an unclean run failed"; }
running_link "$old" && fail "the earlier run's switch (PID $old) still runs after up"
running_link "$stray" && fail "the stray switch (PID $stray) in collsel-sw still runs after up"
wait "$stray"
read -r pid _ < "$RUN/link.pid" || fail "no $RUN/link.pid"

# down leaves nothing
"$cl" down > "$tmp/down.out" 2>&1 || { cat "$tmp/down.out" >&2; fail "down failed"; }
cat "$tmp/down.out"
left=$(ip netns list | grep collsel-)
[ -z "$left" ] || fail "namespaces left: $left"
[ -e "$RUN" ] && fail "$RUN left"
running_link "$pid" && fail "the switch (PID $pid) still runs"
left=$(ip -o link show | grep collsel)
[ -z "$left" ] || fail "links left: $left"
left=$(grep collsel /proc/self/mounts)
[ -z "$left" ] || fail "mounts left: $left"
echo "link: delay applied, no frame lost, the matrix matched across it, nothing left after down"
