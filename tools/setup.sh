#!/bin/sh
# tools/setup.sh: install what collsel needs from Debian's packages (only
# what is missing) and build it (Open MPI flavour in build/, MPICH flavour
# in build-mpich/, SimGrid SMPI replay tools in build-smpi/).  clang and
# its runtime (libFuzzer, sanitizers) are for tests/fuzz/run.sh.  Sourced by tools/demo.sh and tools/test.sh.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
pkgs="build-essential pkg-config meson ninja-build gfortran python3 libopenmpi-dev openmpi-bin
      mpich libmpich-dev libunwind-dev libzstd-dev libcairo2-dev libpng-dev libsimgrid-dev
      zstd clang libclang-rt-14-dev"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing:$missing"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
fi
cd "$top"
[ -f build/build.ninja ] || meson setup build -Dwerror=true
ninja -C build
[ -f build-mpich/build.ninja ] || meson setup build-mpich -Dmpi=mpich -Dwerror=true
ninja -C build-mpich
# SimGrid SMPI: the algorithms and replay tools on a modelled cluster
# (tools/simulate.sh, tests/sim)
[ -f build-smpi/build.ninja ] || meson setup build-smpi -Dmpi=smpi -Dwerror=true
ninja -C build-smpi
