#!/bin/sh
# tools/test.sh: set up (tools/setup.sh), then run the whole test suite:
# the Open MPI build's tests, the MPICH flavour's tests, and the sanitizer
# runs.  Exit status 0 only if everything passed.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tools/setup.sh"
cd "$top"
echo "== tests (Open MPI build)"
meson test -C build --print-errorlogs --num-processes 2
echo "== tests (MPICH build)"
meson test -C build-mpich --print-errorlogs --num-processes 1 --suite mpich
echo "== all tests passed"
