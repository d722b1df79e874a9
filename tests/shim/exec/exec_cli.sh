#!/bin/sh
# exec_cli.sh COLLSEL LIBCOLLSEL FLAVOUR: `collsel exec` sets the environment
# and LD_PRELOAD and execs the application; exit codes 0 / 1 / 2.  The
# programs here use no MPI: --mpi FLAVOUR names the library to preload
# (without it they run without collsel, after one line).
collsel=$1 lib=$(realpath "$2") flavour=$3
fail=0
t() { # t WANT_STATUS DESCRIPTION CMD...: the command exits WANT_STATUS
    want=$1 what=$2; shift 2
    "$@" >/dev/null 2>&1; rc=$?
    [ "$rc" = "$want" ] || { echo "FAIL: $what: exit $rc, expected $want"; fail=1; }
}
t 0 "--help" "$collsel" exec --help
"$collsel" exec --help | grep -q -- '--record' || { echo "FAIL: --help does not list --record"; fail=1; }
t 2 "no application" "$collsel" exec
t 2 "no application after --" "$collsel" exec --record x.prof --
t 2 "unknown option" "$collsel" exec --bogus -- true
t 2 "option without value" "$collsel" exec --record
t 2 "bad --verbose" "$collsel" exec --verbose 9 -- true
t 1 "missing application" "$collsel" exec -- /nonexistent/app
t 1 "COLLSEL_LIB missing" env COLLSEL_LIB=/nonexistent/lib.so "$collsel" exec -- true
t 2 "bad --mpi" "$collsel" exec --mpi lam -- true
t 2 "--mpi without value" "$collsel" exec --mpi
t 3 "the application's exit status" "$collsel" exec --mpi "$flavour" -- sh -c 'exit 3'
"$collsel" exec --mpi "$flavour" --record stderr-test.prof -- sh -c 'exit 0' 2>err.txt
[ -s err.txt ] && { echo "FAIL: collsel exec printed on stderr:"; cat err.txt; fail=1; }

# A program that uses no MPI: one line, run without collsel, its status kept.
got=$(env -u LD_PRELOAD "$collsel" exec --record x.prof -- sh -c 'echo "[$LD_PRELOAD]"; exit 4' 2>err.txt)
rc=$?
[ "$rc" = 4 ] && [ "$got" = "[]" ] || { echo "FAIL: non-MPI program: exit $rc, LD_PRELOAD '$got'"; fail=1; }
[ "$(grep -c . err.txt)" = 1 ] && grep -q "sh does not load an MPI library.*running it without collsel" err.txt ||
    { echo "FAIL: non-MPI program: not the one line:"; cat err.txt; fail=1; }
# ... a script: its MPI cannot be read; ranks other than 0 say nothing
printf '#!/bin/sh\necho "[$LD_PRELOAD]"\n' > script.sh && chmod +x script.sh
got=$(env -u LD_PRELOAD "$collsel" exec -- ./script.sh 2>err.txt)
[ "$got" = "[]" ] && grep -q "script.sh is a script" err.txt ||
    { echo "FAIL: script: '$got'"; cat err.txt; fail=1; }
# ... a static program (Debian's ldconfig is static-pie: no ELF interpreter)
if [ -x /sbin/ldconfig ] && ! readelf -l /sbin/ldconfig 2>/dev/null | grep -q INTERP; then
    env -u LD_PRELOAD -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE "$collsel" exec -- /sbin/ldconfig --version >/dev/null 2>err.txt ||
        { echo "FAIL: static program did not run"; fail=1; }
    grep -q "ldconfig is statically linked.*running it without collsel" err.txt ||
        { echo "FAIL: static program: not the one line:"; cat err.txt; fail=1; }
fi
# ... the same script under an MPI launcher (as python3 with mpi4py): the
# flavour of the launcher, read from the environment it sets
case $flavour in openmpi) lv=OMPI_COMM_WORLD_SIZE ;; *) lv=PMI_SIZE ;; esac
got=$(env -u LD_PRELOAD -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE $lv=1 "$collsel" exec -- ./script.sh 2>err.txt)
case "$got" in "[/"*libcollsel*) ;; *) echo "FAIL: script under a launcher: '$got'"; cat err.txt; fail=1 ;; esac
env -u LD_PRELOAD PMI_RANK=1 "$collsel" exec -- ./script.sh >/dev/null 2>err.txt
[ -s err.txt ] && { echo "FAIL: rank 1 printed:"; cat err.txt; fail=1; }

prev=$(ls /lib/*/libm.so.6 /usr/lib/*/libm.so.6 /lib64/libm.so.6 2>/dev/null | head -1)
got=$(LD_PRELOAD=$prev "$collsel" exec --mpi "$flavour" --record a.prof --tree t.tree --force=bcast=bcast.binomial \
      --verbose 2 -- sh -c 'echo "$COLLSEL_RECORD|$COLLSEL_TREE|$COLLSEL_FORCE|$COLLSEL_VERBOSE|$LD_PRELOAD"')
want="a.prof|t.tree|bcast=bcast.binomial|2|$lib:$prev"
[ "$got" = "$want" ] || { echo "FAIL: environment: got '$got', want '$want'"; fail=1; }
got=$(env -u LD_PRELOAD COLLSEL_LIB="$lib" "$collsel" exec -- sh -c 'echo "$LD_PRELOAD"')
[ "$got" = "$lib" ] || { echo "FAIL: COLLSEL_LIB: got '$got', want '$lib'"; fail=1; }
[ "$fail" = 0 ] && echo "exec_cli: ok"
exit $fail
