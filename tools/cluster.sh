#!/bin/bash
# tools/cluster.sh: a cluster on one machine, its nodes Linux namespaces, so
# that MPI libraries see separate hosts (shared memory within a node, TCP
# between nodes) and collsel's node-aware methods meet real node boundaries.
#   tools/cluster.sh up N [--ranks-per-node R] [--delay US] [--rate RATE]
#                         [--link auto|veth|tap]
#   tools/cluster.sh down
#   tools/cluster.sh exec NODE CMD [ARGS...]
#   tools/cluster.sh kill NODE        (SIGKILL every process in NODE: a node failure)
#   tools/cluster.sh pids NODE        (the processes inside NODE, one PID a line,
#                                      the node's own holder left out)
#   tools/cluster.sh launcher openmpi|mpich [--nodes N] [--ranks-per-node R]
#   tools/cluster.sh ping FROM TO [COUNT]   (the link's RTT: min/median/p95/max us)
#   tools/cluster.sh status | check
#   tools/cluster.sh lockfile     (the machine-wide file a user of the
#                                  cluster flocks on fd 9: the tests do)
# A node (collsel-node1 ... collsel-nodeN) is a network, UTS, IPC and mount
# namespace: its own hostname (Open MPI names its session directory and
# shared-memory segments after it), its own /dev/shm (a tmpfs), its own
# /sys (a sysfs of its network namespace: UCX finds its interfaces there), /etc/hosts
# naming every node (a file bind-mounted there), loopback, and one interface
# collsel0 with 198.18.25.K/24 (RFC 2544's benchmarking range).  The nodes'
# switch lives in a namespace of its own (collsel-sw): the host's network
# is not touched at all, and packets never leave the namespaces made here.
# The link (--link; auto: veth without a delay, or where tc's netem exists):
#   veth  collsel0 is a veth to a bridge in collsel-sw; --delay US adds a
#         netem delay of US microseconds to every node's egress (a kernel
#         without sch_netem: one line, exit 77)
#   tap   collsel0 is a TAP device of tools/cluster-link.c, a switch in user
#         space running in collsel-sw (compiled into /run/collsel-cluster at
#         `up` with cc): it learns the nodes' MAC addresses and sends every
#         frame on US microseconds after it came in (one-way node-to-node
#         latency + US; its counts in /run/collsel-cluster/link.log)
# --rate RATE (tc units: 1gbit, 100mbit) limits every node's egress
# bandwidth (netem's rate with a netem delay, else tbf).  The file systems are the
# host's (a shared file system, as on a cluster), but /dev/shm, /sys, /etc/hosts.
# `up` prints the launch lines; mpirun runs inside node 1 (its daemons reach
# it over the nodes' network) and starts the other nodes' daemons with an
# agent that enters their namespaces instead of ssh.  MPICH's line preloads
# tools/cluster-mpich.c (built with cc into RUN): its ranks yield when idle
# and its MPI_Finalize does not hang in UCX's endpoint close.  `up` first removes
# what an earlier run left (also an unclean one); `down` ends the processes
# still inside the nodes and the switch (by PID; each node's namespaces are
# held by one sleep, ended last), deletes the network namespaces and the state in
# /run/collsel-cluster: nothing is left.  Where namespaces cannot
# be made (not root, no unshare/nsenter/ip) every command says so in one
# line and exits 77 (the test harness's "skipped").
set -u
RUN=${COLLSEL_CLUSTER_RUN:-/run/collsel-cluster}
LOCK=$RUN.lock # next to RUN, not in it: down removes RUN; one per machine, as the cluster
# Open MPI 5's rankfiles, next to RUN too: its prterun (5.0.7) refuses a
# rankfile path with a '-' in it (open-mpi/ompi#13545), RUN's name has one
RF5=${RUN%/*}/collsel_cluster.rankfile
SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
PFX=collsel-node SW=collsel-sw BR=collsel-br IF=collsel0 NET=198.18.25
usage() { sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//p}' "$SELF"; }
die() { echo "cluster.sh: $1" >&2; exit "${2:-2}"; }
skip() { echo "cluster.sh: skipped: $*" >&2; exit 77; }

# One line and exit 77 where namespaces cannot be made here.
check() {
    [ "$(id -u)" = 0 ] || skip "namespaces need root (uid $(id -u))"
    local t err
    for t in ip nsenter unshare tc mount; do
        command -v "$t" > /dev/null || skip "no '$t' on this machine"
    done
    # (in a chroot whose / is not a mount point: "cannot change root
    # filesystem propagation", the private mounts of a node are not possible)
    err=$(unshare --net --uts --ipc --mount true 2>&1) ||
        skip "namespaces are not permitted here (unshare --net --uts --ipc --mount: ${err:-failed})"
}

node_name() { # NODE (1..N or collsel-nodeK) -> collsel-nodeK
    case "$1" in
    "$PFX"[1-9]*) echo "$1" ;;
    [1-9]|[1-9][0-9]) echo "$PFX$1" ;;
    *) return 1 ;;
    esac
}

state() { # the layout of the cluster that is up: N R
    [ -r "$RUN/state" ] || die "no cluster is up (tools/cluster.sh up N)" 1
    cat "$RUN/state"
}

# The PIDs of processes inside a node (its network namespace).
node_pids() { ip netns pids "$1" 2> /dev/null; }

kill_node() { # NODE SIGNAL [KEEP]: every process inside it but KEEP, by PID
    local p pids
    pids=$(node_pids "$1")
    [ -n "$pids" ] || return 0
    for p in $pids; do [ "$p" = "${3:-}" ] || kill "-$2" "$p" 2> /dev/null; done
}

# PID's start time (/proc/PID/stat field 22; empty once it is gone or a
# zombie): with the PID it names one process, also after the PID is reused.
start_time() {
    local st
    st=$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null) || return 0
    set -- $st
    [ "${1:-Z}" = Z ] || echo "${20}"
}

# The processes of the nodes and of the switch (the user-space link, whose
# PID is in RUN/link.pid; any other process in collsel-sw is an unclean
# earlier run's), by PID: SIGTERM, up to 1 s to end, then SIGKILL, and up to
# 5 s more until each has ended.  A process leaves its network namespace
# before it has ended (the kernel closes its files, the switch's TAP
# devices, after that), so the wait is on the processes themselves, not on
# `ip netns pids`.
teardown() {
    local ns i p procs=
    p=$(holder link) && procs="$p:$(start_time "$p")"
    for ns in $(ip netns list 2> /dev/null | awk '{print $1}'); do
        case "$ns" in "$PFX"[0-9]*|"$SW")
            for p in $(node_pids "$ns"); do procs="$procs $p:$(start_time "$p")"; done ;;
        esac
    done
    for p in $procs; do kill -TERM "${p%%:*}" 2> /dev/null; done
    for i in $(seq 1 60); do
        local left=
        for p in $procs; do
            [ -n "${p#*:}" ] && [ "$(start_time "${p%%:*}")" = "${p#*:}" ] && left="$left $p"
        done
        procs=$left
        [ -z "$procs" ] && break
        [ "$i" = 10 ] && for p in $procs; do kill -KILL "${p%%:*}" 2> /dev/null; done
        sleep 0.1
    done
    [ -n "$procs" ] && echo "cluster.sh: still ending after SIGKILL (PID:start):$procs" >&2
    for ns in $(ip netns list 2> /dev/null | awk '{print $1}'); do
        case "$ns" in "$PFX"[0-9]*|"$SW"|"$SW-probe") ip netns del "$ns" ;; esac
    done
    [ -n "${1:-}" ] && [ -s "$RUN/link.log" ] && tail -1 "$RUN/link.log" # its counts
    rm -rf "$RUN" "$RF5".*
}

# A node's UTS, IPC and mount namespaces are held by one process inside
# them (a sleep; its PID in RUN/NODE.pid): nsenter -t enters them from
# anywhere, also from inside another node (whose mount namespace cannot see
# files bound after it was made).  It closes fd 9, the lock the test
# harness holds while it uses the cluster (tests/cluster/mpiexec.sh): a
# holder that kept it would hold the lock as long as the cluster is up.
start_node() {
    local nd=$1
    rm -f "$RUN/$nd.ready"
    nsenter --net="/run/netns/$nd" unshare --uts --ipc --mount --propagation private \
        sh -c "hostname $nd && mount -t tmpfs -o mode=1777 collsel-shm /dev/shm &&
               umount -l /sys && mount -t sysfs collsel-sys /sys &&
               mount --bind $RUN/hosts /etc/hosts && : > $RUN/$nd.ready && exec sleep infinity" \
        < /dev/null > /dev/null 2> "$RUN/$nd.err" 9<&- &
    echo "$! $(stat -L -c %i "/run/netns/$nd")" > "$RUN/$nd.pid"
    local i
    for i in $(seq 1 100); do
        [ -e "$RUN/$nd.ready" ] && return 0
        kill -0 "$(cut -d' ' -f1 "$RUN/$nd.pid")" 2> /dev/null || break
        sleep 0.02
    done
    cat "$RUN/$nd.err" >&2
    return 1
}

# The PID holding NODE's namespaces (or the switch's, NODE "link"), checked to be inside its network
# namespace still (not a reused PID; /run/netns of a later node is not seen
# inside an earlier one, hence the namespace's inode kept in RUN/NODE.pid).
holder() {
    local p ino
    read -r p ino 2> /dev/null < "$RUN/$1.pid" && [ -n "$p" ] &&
        [ "$(stat -L -c %i "/proc/$p/ns/net" 2> /dev/null)" = "$ino" ] && echo "$p"
}

# Can this kernel do qdisc Q?  (tried on a scratch namespace's loopback;
# its error on stdout)
qdisc_works() {
    local err rc
    ip netns add "$SW-probe" || return 1
    err=$(tc -n "$SW-probe" qdisc add dev lo root $1 2>&1)
    rc=$?
    ip netns del "$SW-probe" 2> /dev/null
    echo "$err"
    return $rc
}

# RUN/OUT, built once from tools/NAME.c with cc (FLAGS...): exit 77 without
# the source or a C compiler
build_tool() {
    local name=$1 out=$2 src
    shift 2
    src=$(dirname "$SELF")/$name.c
    [ -e "$RUN/$out" ] && return 0
    [ -r "$src" ] || skip "$name's source $src is missing"
    command -v "${CC:-cc}" > /dev/null || skip "no C compiler (${CC:-cc}) to build $src"
    "${CC:-cc}" -O2 "$@" -o "$RUN/$out.tmp" "$src" && mv "$RUN/$out.tmp" "$RUN/$out"
}
# RUN/cluster-link, from tools/cluster-link.c (the link, and a ping)
build_link() { build_tool cluster-link cluster-link; }

# The user-space link (tools/cluster-link.c, built here into RUN with cc):
# a switch in collsel-sw with one TAP device per node (collsel-tK, moved
# into node K after), each frame sent on DELAY us after it came in; TCP
# segmentation offloaded (-g: frames of up to 64 KiB, as on the veth);
# the timer set early by its usual lateness (-e: frames go out ~2 us after
# they are due, not 7-10); SCHED_FIFO 10 (-r: a frame due is sent when
# due, not after a busy rank's time slice).  Its PID (and its namespace's
# inode) in RUN/link.pid.
start_link() {
    local n=$1 delay=$2 i taps=
    build_link || return 1
    for i in $(seq 1 "$n"); do taps="$taps collsel-t$i"; done
    # shellcheck disable=SC2086
    nsenter --net="/run/netns/$SW" "$RUN/cluster-link" -g -e -r 10 -d "$delay" -R "$RUN/link.ready" \
        $taps < /dev/null > /dev/null 2> "$RUN/link.log" 9<&- &
    echo "$! $(stat -L -c %i "/run/netns/$SW")" > "$RUN/link.pid"
    for i in $(seq 1 100); do
        [ -e "$RUN/link.ready" ] && return 0
        kill -0 "$(cut -d' ' -f1 "$RUN/link.pid")" 2> /dev/null || break
        sleep 0.02
    done
    cat "$RUN/link.log" >&2
    return 1
}

up() {
    local n=${1:-} r=1 delay=0 rate= link=auto err
    [ -n "$n" ] && shift
    case "$n" in [1-9]|[1-9][0-9]) ;; *) die "up takes a node count 1..99 (got '$n')" ;; esac
    while [ $# -gt 0 ]; do
        case "$1" in
        --ranks-per-node) r=${2:-}; shift 2 || die "--ranks-per-node needs a value" ;;
        --delay) delay=${2:-}; shift 2 || die "--delay needs microseconds" ;;
        --rate) rate=${2:-}; shift 2 || die "--rate needs a tc rate (e.g. 1gbit)" ;;
        --link) link=${2:-}; shift 2 || die "--link needs auto, veth or tap" ;;
        *) die "up: unknown option '$1' (see --help)" ;;
        esac
    done
    case "$r" in [1-9]|[1-9][0-9]) ;; *) die "--ranks-per-node takes 1..99 (got '$r')" ;; esac
    case "$delay" in ''|*[!0-9]*) die "--delay takes whole microseconds (got '$delay')" ;; esac
    case "$rate" in ''|[0-9]*[a-zA-Z]*) ;; *) die "--rate takes a tc rate such as 1gbit or 100mbit (got '$rate')" ;; esac
    case "$link" in auto|veth|tap) ;; *) die "--link takes auto, veth or tap (got '$link')" ;; esac
    check
    teardown
    mkdir -p "$RUN" || die "cannot make $RUN" 1
    {
        echo "127.0.0.1 localhost"
        for i in $(seq 1 "$n"); do echo "$NET.$i $PFX$i"; done
    } > "$RUN/hosts"
    # the link's qdisc on every node's interface: netem (delay, and rate
    # with it) on a veth, or tbf for a rate alone
    local q= tbf=${rate:+tbf rate $rate burst 64kb latency 10ms}
    if [ "$link" != tap ] && [ "$delay" != 0 ]; then
        q="netem delay ${delay}us${rate:+ rate $rate}"
        if ! err=$(qdisc_works "$q"); then
            [ "$link" = veth ] && { teardown; skip "tc qdisc '$q' is not possible here: $err"; }
            link=tap q= # auto: the user-space link delays
        fi
    fi
    [ "$link" = auto ] && link=veth
    [ -z "$q" ] && q=$tbf
    if [ -n "$q" ] && ! err=$(qdisc_works "$q"); then
        teardown; skip "tc qdisc '$q' is not possible here: $err"
    fi
    if [ "$link" = tap ]; then # what the user-space link needs
        [ -c /dev/net/tun ] ||
            { teardown; skip "no /dev/net/tun: the user-space link (--delay without netem) needs TAP devices"; }
        command -v "${CC:-cc}" > /dev/null ||
            { teardown; skip "no C compiler (${CC:-cc}) to build the user-space link (--delay without netem)"; }
    fi
    ip netns add "$SW" && ip -n "$SW" link set lo up ||
        { teardown; die "cannot make the switch namespace $SW" 1; }
    if [ "$link" = veth ]; then
        ip -n "$SW" link add "$BR" type bridge && ip -n "$SW" link set "$BR" up ||
            { teardown; die "cannot make the bridge in $SW" 1; }
    else
        start_link "$n" "$delay" || { teardown; die "cannot start the user-space link" 1; }
    fi
    for i in $(seq 1 "$n"); do
        local nd=$PFX$i
        ip netns add "$nd" &&
            if [ "$link" = veth ]; then
                ip -n "$SW" link add "collsel-p$i" type veth peer name "$IF" netns "$nd" &&
                    ip -n "$SW" link set "collsel-p$i" master "$BR" up
            else # the switch's TAP device, moved into the node and renamed
                ip -n "$SW" link set "collsel-t$i" netns "$nd" name "$IF"
            fi &&
            ip -n "$nd" link set lo up &&
            ip -n "$nd" addr add "$NET.$i/24" dev "$IF" &&
            ip -n "$nd" link set "$IF" up &&
            { [ -z "$q" ] || tc -n "$nd" qdisc add dev "$IF" root $q; } &&
            start_node "$nd" ||
            { teardown; die "cannot make node $nd" 1; }
    done
    # the remote-launch agent (ssh's place): [OPTIONS] HOST COMMAND...
    cat > "$RUN/agent" << EOF
#!/bin/sh
# made by tools/cluster.sh: runs COMMAND in node HOST's namespaces (ssh's place)
while [ \$# -gt 0 ]; do case "\$1" in -*) shift ;; *) break ;; esac; done
host=\$1; shift
exec "$SELF" exec "\$host" /bin/sh -c "\$*"
EOF
    chmod 755 "$RUN/agent"
    echo "$n $r" > "$RUN/state"
    local how="$link"
    [ "$link" = tap ] && how="tap, the user-space link: $delay us"
    echo "cluster: $n node(s) x $r rank(s) (${PFX}1..$PFX$n, $NET.1..$n on $IF, $how${q:+, qdisc $q})"
    launch_lines
}

# Open MPI's rankfile for N nodes x R ranks: rank i on core i mod ncores of
# the machine.  A node's daemon binds its own ranks from core 0, so with
# --bind-to core the first rank of every node would share core 0 (2 nodes x
# 1 rank: both busy-polling one core, a 4 ms barrier; spread: 17 us).
# (Open MPI 4 and 5 read the same syntax; FILE: the path, default in RUN)
rankfile() {
    local f=${3:-$RUN/rankfile}.$1x$2 nc k=0 i j
    nc=$(nproc)
    for i in $(seq 1 "$1"); do
        for j in $(seq 1 "$2"); do echo "rank $k=$PFX$i slot=$((k % nc))"; k=$((k + 1)); done
    done > "$f.tmp" && mv "$f.tmp" "$f" && echo "$f"
}

# The launch line of an MPI library for the cluster that is up, on its
# first NODES nodes with R ranks each (default: all, the R of `up`).
launcher() {
    local fl=${1:-} n r nn= rr= np
    shift || true
    while [ $# -gt 0 ]; do
        case "$1" in
        --nodes) nn=${2:-}; shift 2 || die "--nodes needs a count" ;;
        --ranks-per-node) rr=${2:-}; shift 2 || die "--ranks-per-node needs a count" ;;
        *) die "launcher: unknown option '$1' (see --help)" ;;
        esac
    done
    st=$(state) || exit 1; read -r n r <<< "$st"
    case "$nn" in '') nn=$n ;; *[!0-9]*|0) die "--nodes takes 1..$n (got '$nn')" ;; esac
    case "$rr" in '') rr=$r ;; *[!0-9]*|0) die "--ranks-per-node takes a count (got '$rr')" ;; esac
    [ "$nn" -le "$n" ] || die "the cluster has $n node(s), not $nn" 1
    n=$nn r=$rr np=$((nn * rr))
    local hosts=
    for i in $(seq 1 "$n"); do hosts="$hosts${hosts:+,}$PFX$i:$r"; done
    # more ranks than cores: a waiting rank yields the core (busy-polling
    # ranks that share a core wait for the scheduler's time slice); the
    # nodes share this machine's processors, which COLLSEL_MACHINE_RANKS
    # tells collsel's shared-memory waits (a node's own count is smaller)
    local y=0
    [ "$np" -gt "$(nproc)" ] && y=1
    local root=
    [ "$(id -u)" = 0 ] && root="--allow-run-as-root "
    case "$fl" in
    openmpi)
        if [ "$(ompi_major)" -ge 5 ]; then
            launcher_prrte "$n" "$r" "$np" "$hosts" "$y" "$root"
            return
        fi
        echo "$SELF exec 1 mpirun.openmpi $root-n $np --host $hosts --mca plm_rsh_agent $RUN/agent" \
             "--mca btl self,vader,tcp --mca btl_tcp_if_include $IF --mca oob_tcp_if_include $IF" \
             "--rankfile $(rankfile "$n" "$r") --mca mpi_yield_when_idle $y -x COLLSEL_MACHINE_RANKS=$np" ;;
    mpich)
        # unbound (hydra binds per node, from core 0); UCX over the nodes'
        # interface; tools/cluster-mpich.c preloaded: MPICH's UCX progress
        # loop yields when idle (4 ranks on 2 cores: a barrier of 2 x 2
        # ranks 30-70 us instead of 6-11 ms), and its MPI_Finalize does not
        # hang in UCX's endpoint close (openucx/ucx#8738's shape)
        (build_tool cluster-mpich cluster-mpich.so -shared -fPIC) > /dev/null ||
            die "cannot build tools/cluster-mpich.c (MPICH's ranks would not yield, and MPI_Finalize hang now and then)" 1
        echo "$SELF exec 1 mpiexec.hydra -n $np -hosts $hosts -launcher rsh -launcher-exec $RUN/agent" \
             "-iface $IF -genv UCX_NET_DEVICES $IF -genv COLLSEL_MACHINE_RANKS $np" \
             "-genv LD_PRELOAD $RUN/cluster-mpich.so" ;;
    *) die "launcher takes openmpi or mpich (got '$fl')" ;;
    esac
}

# The major version of the Open MPI whose mpirun the launch line runs (0
# where there is none: the line is then 4's)
ompi_major() {
    local v
    v=$(mpirun.openmpi --version 2> /dev/null | sed -n 's/.*(Open MPI) \([0-9]*\)\..*/\1/p')
    echo "${v:-0}"
}

# Open MPI 5's launch line (N R NP HOSTS YIELD ROOT): its runtime is PRRTE,
# whose own names the line gives its settings (--prtemca; Open MPI's
# generic --mca still translates 4's plm_rsh_agent and oob_tcp_if_include,
# deprecated); the rankfile is a --map-by directive (--rankfile, which
# it becomes, is deprecated) at a path without '-' (RF5, above); the
# shared-memory BTL is sm (vader, 4's name, is an alias); a node of more
# ranks than cores: a rankfile giving two ranks one core is refused without
# --bind-to core:overload-allowed (4 binds them).  No MPMD (':'):
# prterun 5.0.7 dies on it (open-mpi/ompi#13303).
launcher_prrte() {
    case "$RF5" in *[-:]*) # (COLLSEL_CLUSTER_RUN's directory)
        die "Open MPI 5 cannot read rankfile $RF5.*: '-' or ':' in it (open-mpi/ompi#13545)" 1 ;;
    esac
    local rf
    rf=$(rankfile "$1" "$2" "$RF5") || die "cannot write the rankfile $RF5.$1x$2" 1
    echo "$SELF exec 1 mpirun.openmpi $6-n $3 --host $4 --prtemca plm_ssh_agent $RUN/agent" \
         "--mca btl self,sm,tcp --mca btl_tcp_if_include $IF --prtemca prte_if_include $IF" \
         "--map-by rankfile:file=$rf --bind-to core:overload-allowed" \
         "--mca mpi_yield_when_idle $5 -x COLLSEL_MACHINE_RANKS=$3"
}

launch_lines() {
    echo "Open MPI:"
    echo "  $(launcher openmpi)"
    echo "MPICH (hydra):"
    echo "  $(launcher mpich)"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
up) up "$@" ;;
down)
    [ "$(id -u)" = 0 ] || skip "namespaces need root (uid $(id -u))"
    teardown counts ;;
exec)
    [ $# -ge 2 ] || die "exec takes NODE CMD [ARGS...]"
    nd=$(node_name "$1") || die "no node '$1' (1..N or ${PFX}K)"
    shift
    p=$(holder "$nd") || die "no node $nd (is the cluster up? tools/cluster.sh status)" 1
    # --root: the holder's root too (entering a mount namespace alone sets
    # its root: in a chroot, the host's files, Open MPI and RUN/agent)
    exec nsenter -t "$p" --net --uts --ipc --mount --root --wd="$PWD" -- "$@" ;;
kill)
    [ $# -eq 1 ] || die "kill takes NODE"
    nd=$(node_name "$1") || die "no node '$1' (1..N or ${PFX}K)"
    p=$(holder "$nd") || die "no node $nd (is the cluster up?)" 1
    kill_node "$nd" KILL "$p" ;; # the node stays (its namespaces), as a rebooted one
pids)
    [ $# -eq 1 ] || die "pids takes NODE"
    nd=$(node_name "$1") || die "no node '$1' (1..N or ${PFX}K)"
    p=$(holder "$nd") || die "no node $nd (is the cluster up?)" 1
    node_pids "$nd" | grep -vx "$p" || : ;;
launcher) launcher "$@" ;;
ping)
    [ $# -ge 2 ] && [ $# -le 3 ] || die "ping takes FROM TO [COUNT]"
    to=$(node_name "$2") || die "no node '$2' (1..N or ${PFX}K)"
    case "${3:-200}" in [1-9]|[1-9][0-9]*) ;; *) die "ping: COUNT takes a number (got '$3')" ;; esac
    state > /dev/null || exit 1
    build_link || die "cannot build the ping (tools/cluster-link.c)" 1
    "$SELF" exec "$1" "$RUN/cluster-link" -P "$NET.${to#"$PFX"}" -c "${3:-200}" -i 2000 ;;
status)
    st=$(state) || exit 1; read -r n r <<< "$st"
    echo "cluster: $n node(s) x $r rank(s)"
    for i in $(seq 1 "$n"); do
        echo "  $PFX$i $NET.$i processes: $(node_pids "$PFX$i" | wc -l)" \
             "qdisc: $(tc -n "$PFX$i" qdisc show dev "$IF" | head -1)"
    done
    p=$(holder link) && echo "  the user-space link: PID $p, $(tr '\0' ' ' < "/proc/$p/cmdline")"
    launch_lines ;;
check) check; echo "cluster.sh: namespaces can be made here" ;;
lockfile) # the file whose flock one cluster user at a time holds (on fd 9)
    mkdir -p "$(dirname "$LOCK")" && echo "$LOCK" ;;
-h|--help|help) usage ;;
'') usage >&2; exit 2 ;;
*) die "unknown command '$cmd' (see --help)" ;;
esac
