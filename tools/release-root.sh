#!/bin/sh
# tools/release-root.sh: run collsel's tests on another Debian release, in a
# root made with debootstrap from Debian's packages (this is how a Debian 12
# machine tests Debian 13's Open MPI 5.0.7, MPICH 4.2.1, gcc 14 and
# clang 19).
#
#   tools/release-root.sh [--suite SUITE] [--dir DIR] [--keep] [--shell]
#                         [--prepare] [--results DIR]
#                         [-- COMMAND...]
#
#   --suite SUITE  the release (default trixie, Debian 13)
#   --dir DIR      where the root is made (default /var/tmp/collsel-SUITE)
#   --keep         leave the root there for the next run (made once, then
#                  reused: its packages and builds stay); without it the
#                  root is removed at the end
#   --shell        an interactive shell in the root instead of the tests
#   --prepare      make the root and install its packages (tools/setup.sh
#                  without building), then stop and keep it: a later run
#                  with the same --dir starts from there (tools/test.sh does
#                  this while its sanitizer, SimGrid and fuzz stages run)
#   --results DIR  copy what the command left in /results of the root to
#                  DIR (tools/test.sh there writes its tally to
#                  /results/tally: every test with its result)
#   COMMAND        run in the checkout inside the root instead of the
#                  default, the README's test command for the MPI flavours:
#                  tools/test.sh --mpi-only (both flavours built from a
#                  fresh copy of this checkout's committed files)
#
# The checkout's files (git ls-files: what a fresh clone has, with this
# tree's changes) are copied to /src in the root; tools/setup.sh there
# installs the release's packages with apt-get, as on a fresh machine.
# /proc, /sys, /dev and /dev/pts are bind-mounted and always unmounted at
# the end, before anything is removed (never rm across a mount).
# Exit status: the command's; 77 (skipped, the reason on stdout) when the
# root cannot be made here: not root, no debootstrap, less than 4 GiB free,
# or the archive cannot be reached.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
suite=trixie dir= keep=0 shell=0 results= prepare=0
usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
    --suite) suite=${2:?--suite needs a release name}; shift 2 ;;
    --dir) dir=${2:?--dir needs a directory}; shift 2 ;;
    --keep) keep=1; shift ;;
    --shell) shell=1; shift ;;
    --prepare) prepare=1 keep=1; shift ;;
    --results) results=${2:?--results needs a directory}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    *) echo "release-root.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ -n "$dir" ] || dir=/var/tmp/collsel-$suite
root=$dir/root
skip() { echo "release-root.sh: SKIP: $*"; exit 77; }
say() { echo "release-root.sh: $*"; }

[ "$(id -u)" = 0 ] || skip "not root (debootstrap and chroot need root)"
command -v debootstrap > /dev/null || skip "no debootstrap (apt-get install debootstrap)"
mkdir -p "$dir" || skip "cannot make $dir"
free_kib=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
[ "${free_kib:-0}" -ge 4194304 ] ||
    skip "$dir has $((${free_kib:-0} / 1024)) MiB free; a root with its builds needs 4096"

mounts="proc sys dev dev/pts"
unmount() {
    for m in dev/pts dev sys proc; do
        if mountpoint -q "$root/$m" 2> /dev/null; then
            umount "$root/$m" 2> /dev/null || umount -l "$root/$m" ||
                { echo "release-root.sh: cannot unmount $root/$m: $root left as it is" >&2; return 1; }
        fi
    done
}
cleanup() {
    unmount || return
    [ "$keep" = 1 ] && { say "root kept in $root"; return; }
    for m in $mounts; do mountpoint -q "$root/$m" 2> /dev/null && return; done
    rm -rf --one-file-system "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the mirror this machine's apt uses (a deb822 or a one-line source)
mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\/*\)$/\1/p; s/^deb  *\(http[^ ]*debian\/*\) .*/\1/p' \
    /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2> /dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
if [ ! -x "$root/usr/bin/apt-get" ]; then
    unmount || exit 1
    rm -rf --one-file-system "$root"
    start=$(date +%s)
    say "making a $suite root in $root (debootstrap, $mirror)"
    if ! debootstrap --variant=minbase "$suite" "$root" "$mirror" > "$dir/debootstrap.log" 2>&1; then
        tail -5 "$dir/debootstrap.log"
        rm -rf --one-file-system "$root"
        skip "debootstrap $suite failed (the archive unreachable? $dir/debootstrap.log)"
    fi
    say "root made in $(($(date +%s) - start)) s"
fi
for m in $mounts; do
    mountpoint -q "$root/$m" || mount --bind "/$m" "$root/$m" || { echo "cannot mount $root/$m" >&2; exit 1; }
done
cp /etc/resolv.conf "$root/etc/resolv.conf" 2> /dev/null || true
# a fresh copy of the checkout, builds kept between --keep runs only in
# their own folders (a build made from other sources is set up again)
mkdir -p "$root/src"
find "$root/src" -mindepth 1 -maxdepth 1 ! -name 'build*' -exec rm -rf --one-file-system {} +
(cd "$top" && git ls-files -z | xargs -0 tar cf - --ignore-failed-read 2> /dev/null) |
    tar xmf - -C "$root/src" || { echo "release-root.sh: cannot copy the checkout" >&2; exit 1; }
say "$(chroot "$root" sh -c '. /etc/os-release; echo "$PRETTY_NAME"')"
if [ "$prepare" = 1 ]; then
    set -- env SETUP_NO_BUILD=1 SETUP_MPI_ONLY=1 ./tools/setup.sh
elif [ "$shell" = 1 ]; then
    chroot "$root" sh -c 'cd /src && exec bash -i || exec sh -i'
    exit $?
fi
[ $# -gt 0 ] || set -- ./tools/test.sh --mpi-only
say "running in the root: $*"
rm -rf --one-file-system "$root/results" && mkdir -p "$root/results"
# shellcheck disable=SC2016
chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM=dumb CI="${CI:-}" CS_RELEASE_ROOT="$suite" \
    CS_TEST_TALLY=/results/tally sh -c 'cd /src && exec "$@"' sh "$@"
rc=$?
if [ -n "$results" ]; then
    mkdir -p "$results" && cp -R "$root/results/." "$results/" ||
        echo "release-root.sh: cannot copy the results to $results" >&2
fi
exit $rc
