#!/bin/sh
# tools/setup.sh: install what collsel needs from the distribution's
# packages (only what is missing) and build it (Open MPI flavour in build/,
# MPICH flavour in build-mpich/, SimGrid SMPI replay tools in build-smpi/).
# clang and its runtime (libFuzzer, sanitizers) are for tests/fuzz/run.sh.
# Run by tools/demo.sh and tools/test.sh.
#
# Works on Debian 12 and 13 and Ubuntu 24.04: no package name carries a
# compiler version; the one that does (clang's runtime, libclang-rt-N-dev)
# is resolved from the release's default clang (clang depends on clang-N).
# SETUP_NO_BUILD=1: install only.  SETUP_MPI_ONLY=1: only the two MPI
# flavours (no SimGrid, no clang: what tools/test.sh --mpi-only needs).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
mpi_only=${SETUP_MPI_ONLY:-0}
pkgs="build-essential pkg-config meson ninja-build gfortran python3 libopenmpi-dev openmpi-bin
      mpich libmpich-dev libunwind-dev libzstd-dev libcairo2-dev libpng-dev zstd iproute2 procps
      gdb"
# the SimGrid flavour, the fuzzers' and sanitizers' clang, and debootstrap
# for the tests on another Debian release (tools/release-root.sh)
[ "$mpi_only" = 1 ] || pkgs="$pkgs libsimgrid-dev clang debootstrap"
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
updated=""
apt_update() { [ -n "$updated" ] || { $SUDO apt-get update -q; updated=1; }; }
install() {
    echo "setup: installing:$*"
    apt_update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "$@"
}
missing=""
for p in $pkgs; do installed "$p" || missing="$missing $p"; done
# shellcheck disable=SC2086
[ -z "$missing" ] || install $missing
if [ "$mpi_only" != 1 ]; then
    # clang's runtime for the release's own clang: libclang-rt-N-dev (Debian 12:
    # 14, Debian 13: 19, Ubuntu 24.04: 18), N read from the installed clang
    cv=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9][0-9]*\)\..*/\1/p' | head -1)
    if [ -z "$cv" ]; then
        echo "setup: cannot read clang's version (clang --version); its runtime is not installed" >&2
        exit 1
    fi
    installed "libclang-rt-$cv-dev" || install "libclang-rt-$cv-dev"
fi
[ "${SETUP_NO_BUILD:-0}" = 1 ] && exit 0
cd "$top"
[ -f build/build.ninja ] || meson setup build -Dwerror=true
ninja -C build
[ -f build-mpich/build.ninja ] || meson setup build-mpich -Dmpi=mpich -Dwerror=true
ninja -C build-mpich
[ "$mpi_only" = 1 ] && exit 0
# SimGrid SMPI: the algorithms and replay tools on a modelled cluster
# (tools/simulate.sh, tests/sim)
[ -f build-smpi/build.ninja ] || meson setup build-smpi -Dmpi=smpi -Dwerror=true
ninja -C build-smpi
