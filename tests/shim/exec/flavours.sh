#!/bin/sh
# flavours.sh MPIEXEC OWN OTHER COLLSEL LIB HELLO_OWN HELLO_OTHER OUTDIR:
# one build's preload library and `collsel exec` with programs of both MPI
# libraries (OWN: this build's flavour, openmpi or mpich).
#  1. LD_PRELOAD set by hand into the other library's program: one line
#     naming both libraries, the program runs natively (same output, rc 0),
#     no profile;
#  2. collsel exec on the other library's program (this build tree holds
#     only its own flavour): one line, native run, no profile;
#  3. collsel exec on this build's program: recorded, not a word on stderr.
mpiexec=$1 own=$2 other=$3 collsel=$(realpath "$4") lib=$(realpath "$5") hown=$(realpath "$6")
hother=$(realpath "$7") out=$8
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
title() { [ "$1" = openmpi ] && echo "Open MPI" || echo "MPICH"; }
run() { # run FLAVOUR TAG PROGRAM...: 2 ranks under FLAVOUR's launcher
    f=$1 tag=$2; shift 2
    timeout 60 "$mpiexec" "$f" 2 "$@" > "$tag.out" 2> "$tag.err"; echo $? > "$tag.rc"
}
run "$other" native "$hother"
[ "$(cat native.rc)" = 0 ] && grep -q '^hello: 2 ranks, sum 3, bcast 42' native.out ||
    { bad "the $other program does not run natively"; cat native.out native.err; }

# 1. by hand
run "$other" hand env LD_PRELOAD="$lib" COLLSEL_RECORD="$out/hand.prof" COLLSEL_FORCE=bcast=bcast.binomial "$hother"
[ "$(cat hand.rc)" = 0 ] || { bad "preloaded by hand: exit $(cat hand.rc)"; cat hand.err; }
cmp -s native.out hand.out || bad "preloaded by hand: output differs from the native run"
[ "$(grep -c . hand.err)" = 1 ] || { bad "preloaded by hand: not one line on stderr"; cat hand.err; }
grep -q "built for $(title "$own"), but this program runs $(title "$other")" hand.err ||
    { bad "preloaded by hand: the line does not name both libraries"; cat hand.err; }
[ -e hand.prof ] && bad "preloaded by hand: a profile was written"

# 2. collsel exec, the other library's program
run "$other" exec "$collsel" exec --record "$out/exec.prof" -- "$hother"
[ "$(cat exec.rc)" = 0 ] || { bad "exec, $other program: exit $(cat exec.rc)"; cat exec.err; }
cmp -s native.out exec.out || bad "exec, $other program: output differs from the native run"
[ "$(grep -c . exec.err)" = 1 ] && grep -q "no collsel flavour is installed" exec.err ||
    { bad "exec, $other program: not the one line"; cat exec.err; }
[ -e exec.prof ] && bad "exec, $other program: a profile was written"

# 3. collsel exec, this build's program
run "$own" mine "$collsel" exec --record "$out/mine.prof" -- "$hown"
[ "$(cat mine.rc)" = 0 ] && [ -s mine.prof ] || { bad "exec, $own program: exit $(cat mine.rc), no profile"; cat mine.err; }
[ -s mine.err ] && { bad "exec, $own program: printed on stderr"; cat mine.err; }
grep -q '^hello: 2 ranks, sum 3, bcast 42, half-sum 1' mine.out || { bad "exec, $own program: wrong output"; cat mine.out; }
[ "$fail" = 0 ] && echo "flavours ($own build): ok"
exit $fail
