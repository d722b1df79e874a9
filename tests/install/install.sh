#!/bin/sh
# install.sh SRCDIR BUILDDIR FLAVOUR MPIEXEC HELLO HELLO_OTHER OUTDIR: install
# this build (and the other flavour's build, build/ or build-mpich/ next to
# it in the source tree, when it is there and up to date: tools/test.sh
# builds both) into a temporary prefix with DESTDIR, as a user would
# (meson install -C build; meson install -C build-mpich), then check:
# collsel --version names the installed flavours, a man page for every
# command of collsel --help, bash completion, and the installed collsel exec
# records each flavour's program (the right library preloaded).
src=$1 bld=$(realpath "$2") own=$3 mpiexec=$4 hello=$(realpath "$5") hother=$(realpath "$6") out=$7
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1
out=$(pwd) D=$(pwd)/dest
fail=0
bad() { echo "FAIL: $*"; fail=1; }
meson install --no-rebuild --quiet -C "$bld" --destdir "$D" > install.log 2>&1 ||
    { cat install.log; echo "FAIL: meson install -C $bld"; exit 1; }
other=openmpi; odir=$src/build
[ "$own" = openmpi ] && { other=mpich; odir=$src/build-mpich; }
both=0
if [ -f "$odir/build.ninja" ] && ninja -C "$odir" -n 2>/dev/null | grep -q "no work to do"; then
    meson install --no-rebuild --quiet -C "$odir" --destdir "$D" >> install.log 2>&1 ||
        { cat install.log; echo "FAIL: meson install -C $odir"; exit 1; }
    both=1
else
    echo "install: $odir is not built: only the $own flavour is checked"
fi
bin=$(dirname "$(find "$D" -path '*/bin/collsel' -type f | head -1)")
[ -x "$bin/collsel" ] || { echo "FAIL: no bin/collsel under $D"; find "$D" | head -30; exit 1; }
prefix=$(dirname "$bin")
for t in collsel-replay collsel-bench; do
    for f in $own $( [ $both = 1 ] && echo $other ); do
        sfx=; [ "$f" = mpich ] && sfx=-mpich
        [ -x "$bin/$t$sfx" ] || bad "$t$sfx is not installed"
        [ -f "$prefix/share/man/man1/$t$sfx.1" ] || bad "no man page $t$sfx.1"
    done
done
"$bin/collsel" --version > version.txt 2>&1 || bad "collsel --version failed"
grep -q "^collsel [0-9]" version.txt || bad "--version: no version line"
grep -q "^flavour $own .*$prefix/" version.txt || { bad "--version does not list the installed $own flavour"; cat version.txt; }
[ $both = 1 ] && { grep -q "^flavour $other .*$prefix/" version.txt || { bad "--version does not list $other"; cat version.txt; }; }
for c in "" $("$bin/collsel" --help | awk '/^  [a-z]/ { print $1 }'); do
    page=collsel${c:+-$c}.1
    [ -f "$prefix/share/man/man1/$page" ] || { bad "no man page $page"; continue; }
    grep -q '^\.TH' "$prefix/share/man/man1/$page" || bad "$page is not a man page"
done
grep -q -- '--record' "$prefix/share/man/man1/collsel-exec.1" || bad "collsel-exec.1 lacks the --help text"
[ -f "$prefix/share/bash-completion/completions/collsel" ] || bad "no bash completion"
bash -n "$prefix/share/bash-completion/completions/collsel" 2>/dev/null || bad "the completion does not parse"

# The installed collsel exec, one program per flavour, each under its launcher.
check_exec() { # FLAVOUR PROGRAM
    rm -f "$out/$1.prof"
    timeout 60 "$mpiexec" "$1" 2 "$bin/collsel" exec --record "$out/$1.prof" -- "$2" > "$1.out" 2> "$1.err"
    rc=$?
    [ "$rc" = 0 ] && [ -s "$out/$1.prof" ] || { bad "installed collsel exec, $1 program: exit $rc, no profile"; cat "$1.err"; }
    [ -s "$1.err" ] && { bad "installed collsel exec, $1 program: printed on stderr"; cat "$1.err"; }
    "$bin/collsel" show "$out/$1.prof" | grep -q "^MPI .*$3" || bad "$1.prof: not recorded by $3"
}
[ "$own" = openmpi ] && title="Open MPI" || title=MPICH
check_exec "$own" "$hello" "$title"
if [ $both = 1 ]; then
    [ "$other" = openmpi ] && title="Open MPI" || title=MPICH
    check_exec "$other" "$hother" "$title"
fi
# One collsel for both flavours: it links no MPI library (collsel methods
# reads the registry without its code), and installing the flavours in the
# other order gives the same working collsel.
ldd "$bin/collsel" > ldd.txt 2>&1
grep -E -q 'libmpi|libmpich|libopen-' ldd.txt && { bad "collsel links an MPI library:"; grep -E 'libmpi|libmpich|libopen-' ldd.txt; }
"$bin/collsel" methods --csv > methods.csv 2> methods.err || { bad "collsel methods failed"; cat methods.err; }
[ "$(grep -c '\.native,' methods.csv)" -ge 4 ] || bad "collsel methods: no native method per collective"
if [ $both = 1 ]; then
    D2=$out/dest2 bin2=$out/dest2${bin#$D}
    { meson install --no-rebuild --quiet -C "$odir" --destdir "$D2" &&
      meson install --no-rebuild --quiet -C "$bld" --destdir "$D2"; } >> install.log 2>&1 ||
        { cat install.log; echo "FAIL: meson install in the other order"; exit 1; }
    for args in "--version" "--help" "methods --csv" "exec --help"; do
        "$bin/collsel" $args 2>&1 | sed "s#$D##g" > first.txt
        "$bin2/collsel" $args 2>&1 | sed "s#$D2##g" > second.txt
        cmp -s first.txt second.txt || { bad "collsel $args differs with the other install order:"; diff first.txt second.txt | head; }
    done
    cmp -s "$bin/collsel" "$bin2/collsel" && echo "install: the same collsel binary in either order" ||
        echo "install: the collsel binaries of the two builds differ in bytes; the same behaviour"
    bin=$bin2
    check_exec "$own" "$hello" "$( [ "$own" = openmpi ] && echo "Open MPI" || echo MPICH)"
    check_exec "$other" "$hother" "$( [ "$other" = openmpi ] && echo "Open MPI" || echo MPICH)"
fi
[ "$fail" = 0 ] && echo "install: ok ($own$( [ $both = 1 ] && echo " and $other"))"
exit $fail
