#!/bin/bash
# The house style, held by grep: the old spellings that one idiom replaced
# must not come back.  Usage: spellings.sh SOURCE_ROOT.  Each rule names
# what it forbids, where, and what to write instead; a hit prints the lines.
cd "${1:?usage: spellings.sh SOURCE_ROOT}" || exit 1
git rev-parse --git-dir > /dev/null 2>&1 || { echo "SKIP: not a git checkout"; exit 77; }
fail=0
files() { git ls-files -- "$@"; }
# rule NAME ERE PATHSPEC... : no line of the files matches ERE
rule() {
    local name=$1 re=$2
    shift 2
    local hits
    hits=$(files "$@" | xargs -r grep -nE -- "$re" | grep -v 'spellings.sh')
    if [ -n "$hits" ]; then
        echo "FAIL: $name:"
        echo "$hits" | sed 's/^/  /'
        fail=1
    fi
}
src=('*.c' '*.h')
rule "an include relative to its folder (include from the repository root: \"coll/coll.h\")" \
    '#include "\.\./' "${src[@]}"
rule "a cleanup label other than out: (goto out; out: clean up, return)" \
    '^\s*(fail|done|oom|cleanup|fn_fail|fn_exit):|goto (fail|done|oom|cleanup|fn_fail|fn_exit);' "${src[@]}"
rule "C11 <stdatomic.h> (collsel uses the __atomic built-ins on plain objects)" \
    '<stdatomic\.h>|_Atomic|\batomic_(load|store|fetch_[a-z]+|exchange|init|compare_exchange)' "${src[@]}"
rule "a tuned collective named by its recorded twin (cs_coll_of_rcoll / cs_rcoll_of_coll, common/colls.h)" \
    'CS_R_(BCAST|REDUCE|BARRIER|ALLREDUCE)\b' $(files "${src[@]}" | grep -v -e '^tests/' -e '^record/profile.h$' -e '^record/bins.c$')
rule "a copy of the recorded -> tuned mapping" \
    '(static )?int (rcoll_of|coll_of_rcoll)\(' "${src[@]}"
# The algorithms' error idiom (coll/coll.h): CS_TRY(call) / CS_TRY_CODE(rc) and
# an `out:` label, not an early return, a chain of `if (rc == MPI_SUCCESS)`
# or a loop that runs on while rc is MPI_SUCCESS.
hits=$(files 'coll/*.c' 'coll/*.h' | xargs -r perl -0777 -ne '
    while (/(if \(rc != MPI_SUCCESS\)\s*return rc;|if \(rc == MPI_SUCCESS[^)]*\)\s*\{?\s*rc = |for \([^;{]*;[^;{]*rc == MPI_SUCCESS[^;{]*;|return rc != MPI_SUCCESS \?|\(rc = [^;]*\) != MPI_SUCCESS \|\|)/g) {
        my $l = 1 + (substr($_, 0, pos) =~ tr/\n//); (my $m = $1) =~ s/\s+/ /g; print "$ARGV:$l: $m\n" }')
if [ -n "$hits" ]; then
    echo "FAIL: an error spelling other than CS_TRY / CS_TRY_CODE in coll/:"
    echo "$hits" | sed 's/^/  /'
    fail=1
fi
[ "$fail" = 0 ] && echo "house spellings: ok"
exit $fail
