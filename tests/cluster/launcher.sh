#!/bin/sh
# tools/cluster.sh launcher openmpi follows the major version of the
# mpirun.openmpi on PATH (here a stub that prints a version): Open MPI 4's
# line (ORTE's settings, --rankfile in RUN), and Open MPI 5's and later
# (PRRTE's --prtemca names, the rankfile as --map-by rankfile:file= at a
# path without '-', which prterun 5.0.7 refuses, and
# --bind-to core:overload-allowed for nodes of more ranks than cores).
# No cluster is brought up: `launcher` reads RUN/state only (a fake RUN).
#   usage: launcher.sh CLUSTER_SH
cl=$1
tmp=$(mktemp -d /tmp/cslauncher.XXXXXX) || exit 1 # no '-' in the path: Open MPI 5's rankfile
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
run=$tmp/run
mkdir -p "$run" "$tmp/bin" && echo "2 2" > "$run/state"
cat > "$tmp/bin/mpirun.openmpi" << 'EOF'
#!/bin/sh
[ -n "$FAKE_OMPI" ] && echo "mpirun.openmpi (Open MPI) $FAKE_OMPI"
EOF
chmod 755 "$tmp/bin/mpirun.openmpi"
line() { # VERSION [LAUNCHER OPTIONS...]: the printed line, or fail
    v=$1
    shift
    FAKE_OMPI=$v PATH=$tmp/bin:$PATH COLLSEL_CLUSTER_RUN=$run "$cl" launcher openmpi "$@" ||
        fail "launcher openmpi failed with Open MPI '$v'"
}
has() { # LINE WORDS: LINE holds WORDS
    case " $1 " in *" $2 "*) ;; *) fail "no '$2' in: $1" ;; esac
}
hasnt() {
    case " $1 " in *"$2"*) fail "'$2' in: $1" ;; esac
}
# the rankfile FILE for N nodes x R ranks: rank i on node i / R + 1, core i mod cores
rankfile_is() {
    [ -r "$1" ] || fail "no rankfile $1"
    k=0 nc=$(nproc)
    while [ $k -lt $(($2 * $3)) ]; do
        echo "rank $k=collsel-node$((k / $3 + 1)) slot=$((k % nc))"
        k=$((k + 1))
    done | cmp -s - "$1" ||
        { cat "$1" >&2; fail "rankfile $1 is not $2 x $3, rank i on core i mod $nc"; }
}

# Open MPI 4 (and no version read: the stub prints nothing)
for v in 4.1.4 ''; do
    l=$(line "$v") || exit 1
    has "$l" "--mca plm_rsh_agent $run/agent"
    has "$l" "--mca btl self,vader,tcp --mca btl_tcp_if_include collsel0"
    has "$l" "--mca oob_tcp_if_include collsel0"
    has "$l" "--rankfile $run/rankfile.2x2"
    has "$l" "--mca mpi_yield_when_idle $([ 4 -gt "$(nproc)" ] && echo 1 || echo 0)"
    has "$l" "-x COLLSEL_MACHINE_RANKS=4"
    hasnt "$l" "--prtemca"
    hasnt "$l" "--map-by"
    rankfile_is "$run/rankfile.2x2" 2 2
done

# Open MPI 5 and 6 (PRRTE), also with a layout of its own
for v in 5.0.7 6.0.0; do
    l=$(line "$v") || exit 1
    rf=$tmp/collsel_cluster.rankfile.2x2
    has "$l" "--prtemca plm_ssh_agent $run/agent"
    has "$l" "--mca btl self,sm,tcp --mca btl_tcp_if_include collsel0"
    has "$l" "--prtemca prte_if_include collsel0"
    has "$l" "--map-by rankfile:file=$rf --bind-to core:overload-allowed"
    has "$l" "-x COLLSEL_MACHINE_RANKS=4"
    for w in --rankfile plm_rsh_agent oob_tcp_if_include vader " : "; do hasnt "$l" "$w"; done
    case "$rf" in *-*) fail "Open MPI 5's rankfile path $rf has a '-'" ;; esac
    rankfile_is "$rf" 2 2
    l=$(line "$v" --nodes 1 --ranks-per-node 3) || exit 1
    has "$l" "--map-by rankfile:file=$tmp/collsel_cluster.rankfile.1x3"
    has "$l" "-n 3 --host collsel-node1:3"
    rankfile_is "$tmp/collsel_cluster.rankfile.1x3" 1 3
done

# a RUN whose directory has a '-': one line naming the path and the bug, exit 1
mkdir -p "$tmp/a-b/run" && echo "2 1" > "$tmp/a-b/run/state"
err=$(FAKE_OMPI=5.0.7 PATH=$tmp/bin:$PATH COLLSEL_CLUSTER_RUN=$tmp/a-b/run \
    "$cl" launcher openmpi 2>&1 > /dev/null)
rc=$?
[ $rc = 1 ] || fail "a rankfile path with '-' under Open MPI 5: exit $rc, not 1"
[ "$(echo "$err" | wc -l)" = 1 ] || fail "not one line: $err"
case "$err" in *"$tmp/a-b/collsel_cluster.rankfile"*13545*) ;; *) fail "the error: $err" ;; esac
echo "launcher: Open MPI 4's and 5's lines, the rankfiles, the '-' path refused"
