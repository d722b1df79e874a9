#!/bin/bash
# tests/cluster/stuck.sh TOP PID...: where the stuck ranks PID... of a job
# that did not end are, and whether the hang is MPICH's own finalize hang
# (tests/cluster/mpiexec.sh retries only that one).  Prints every thread's
# stack of each rank (gdb -batch -p PID 'thread apply all bt'), then one
# line per rank and a last line saying which it is.  Exit 0 only if every
# rank is proven inside MPICH's MPI_Finalize: its main thread has a frame
# MPI_Finalize or PMPI_Finalize that is not collsel's, no frame of
# collsel's is younger than it, and no other thread has a frame of
# collsel's.  A frame is collsel's where its code is in TOP's tree: a
# source file of TOP ("at ../coll/shm/wait.c:183", the path relative to a
# build directory of TOP), an object under TOP ("from TOP/build/shim/
# libcollsel.so"), or, no object named, the rank's program when that is
# under TOP (the tests' programs hold collsel's methods).  Exit 1: a hang of collsel's or not proven (a rank
# gone, no stack, no gdb); the line says which.
top=$(cd "${1:?usage: stuck.sh TOP PID...}" && pwd)
shift
[ $# -gt 0 ] || { echo "stuck.sh: no rank was still running: nothing proves an MPI_Finalize hang"; exit 1; }
command -v gdb > /dev/null ||
    { echo "stuck.sh: no gdb to read the ranks' stacks: the hang is not proven MPICH's"; exit 1; }
ours() { # FRAME-LINE: 0 if the frame's code is in TOP's tree (exe: the process's program)
    local f
    f=$(sed -n 's/.* from \(target:\)\{0,1\}\(\/[^ ]*\)$/\2/p
                s/.* at \([^ :]*\):[0-9]*$/\1/p' <<< "$1")
    [ -n "$f" ] || f=$exe # no object named: the program's own code
    case $f in
    "$top"/*) return 0 ;;
    /*|'') return 1 ;;
    esac
    while [ "${f#../}" != "$f" ]; do f=${f#../}; done
    [ -e "$top/$f" ]
}
all=0 n=0
for pid in "$@"; do
    n=$((n + 1))
    exe=$(readlink "/proc/$pid/exe")
    st=$(timeout 120 gdb -batch -nx -p "$pid" -ex 'thread apply all bt' 2>&1 < /dev/null)
    echo "=== rank process $pid ($(tr '\0' ' ' < "/proc/$pid/cmdline" 2> /dev/null | cut -c1-100))"
    echo "$st" | grep -E '^(Thread |#[0-9])'
    verdict="in MPICH's MPI_Finalize"
    thread= fin= mainfin= seen=0
    while IFS= read -r l; do
        case $l in
        Thread\ *) thread=${l#Thread }; thread=${thread%% *}; fin= ;;
        \#[0-9]*)
            seen=1
            fn=$(sed -E 's/^#[0-9]+ +(0x[0-9a-f]+ in )?([^ ]+).*/\2/' <<< "$l")
            if [ "$thread" = 1 ] && [ -z "$fin" ] && ! ours "$l" &&
                { [ "$fn" = MPI_Finalize ] || [ "$fn" = PMPI_Finalize ]; }; then
                fin=1 mainfin=1
            elif ours "$l" && { [ "$thread" != 1 ] || [ -z "$fin" ]; }; then
                verdict="in collsel's code: thread $thread, $(cut -c1-120 <<< "$l")"
                break
            fi ;;
        esac
    done <<< "$st"
    [ "$verdict" != "in MPICH's MPI_Finalize" ] || [ -n "$mainfin" ] ||
        verdict="not inside MPI_Finalize (its main thread has no MPICH MPI_Finalize frame)"
    [ "$seen" = 1 ] || verdict="no stack read (gdb: $(tail -1 <<< "$st" | cut -c1-100))"
    echo "rank process $pid: $verdict"
    [ "$verdict" = "in MPICH's MPI_Finalize" ] || all=1
done
if [ $all = 0 ]; then
    echo "stuck.sh: all $n stuck rank(s) in MPICH's MPI_Finalize, no collsel frame inside it"
else
    echo "stuck.sh: not MPICH's finalize hang: a rank is elsewhere (above)"
fi
exit $all
