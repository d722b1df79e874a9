#!/bin/sh
# export_target_test.sh COLLSEL DIR: `collsel export --target` and the
# default target, found from the installed release.  The tools it asks
# (ompi_info --version, mpichversion -v) are stood in for by scripts
# ($COLLSEL_OMPI_INFO, $COLLSEL_MPICHVERSION) that print a chosen release,
# so every case runs on any machine: which target each release gets, the
# one line when --target is not the installed release (the file still
# written), bad input (exit 2, one line naming the valid targets).
collsel=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); here=$(cd "$(dirname "$0")" && pwd)
dir=$2/export_target; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
"$here/synth_perf.sh" perf.csv && "$collsel" tune --perf perf.csv -o t.tree > /dev/null || exit 1
# fake NAME LINE: a tool printing LINE
fake() { printf '#!/bin/sh\necho "%s"\n' "$2" > "$1"; chmod +x "$1"; }
fake ompi-4.1.4 "Open MPI v4.1.4"; fake ompi-5.0.6 "Open MPI v5.0.6"
fake ompi-5.0.7 "Open MPI v5.0.7"; fake ompi-6.0.0 "Open MPI v6.0.0"
fake mpich-4.0.2 "MPICH Version:    	4.0.2"; fake mpich-4.2.1 "MPICH Version:      4.2.1"
fake mpich-5.0.0 "MPICH Version:      5.0.0"
# run OMPI MPICH ARGS...: export with those tools ("none": not installed)
run() {
    o=$1 m=$2; shift 2
    COLLSEL_OMPI_INFO=$PWD/$o COLLSEL_MPICHVERSION=$PWD/$m "$collsel" export t.tree "$@" \
        > out.txt 2> err.txt
}
# target OMPI MPICH WANT ARGS...: the export takes target WANT
target() {
    o=$1 m=$2 want=$3; shift 3
    rm -f x.out
    run $o $m "$@" -o x.out || { fail "$o/$m $*: exit $?: $(cat err.txt)"; return; }
    grep -q "^target $want (\(given; \)\?installed: " out.txt ||
        fail "$o/$m $*: target is not $want: $(head -1 out.txt)"
    [ -s x.out ] || fail "$o/$m $*: no file written"
    ! grep -v "warning: --no-mpich-defaults" err.txt | grep -q . ||
        fail "$o/$m $*: unexpected stderr: $(cat err.txt)"
}
target ompi-4.1.4 none ompi-4.1
target ompi-5.0.6 none ompi-4.1
target ompi-5.0.7 none ompi-5.0
target ompi-6.0.0 none ompi-6.0
target ompi-6.0.0 none ompi-6.0 --format ompi-json
# 6.0 reads classic comm sizes as the end of their rules: one line
run ompi-6.0.0 none --format ompi-rules -o x.out || fail "--format ompi-rules on 6.0: exit $?"
grep -q "^target ompi-5.0 (installed: Open MPI 6.0.0" out.txt && [ "$(wc -l < err.txt)" -eq 1 ] &&
    grep -q "Open MPI 6.0.0 .*end of its rules.*ompi-6.0" err.txt ||
    fail "--format ompi-rules on 6.0: $(head -1 out.txt) / $(cat err.txt)"
target ompi-5.0.7 mpich-4.2.1 ompi-5.0 --format ompi-rules
target none mpich-4.0.2 mpich-4.0 --no-mpich-defaults
target none mpich-4.2.1 mpich-4.1 --no-mpich-defaults
target none mpich-5.0.0 mpich-4.1 --no-mpich-defaults
target ompi-4.1.4 mpich-4.2.1 mpich-4.1 --format mpich-json --no-mpich-defaults
target ompi-5.0.7 none ompi-5.0 --target ompi-5.0
grep -q '^rule-file-version-2$' x.out || fail "ompi-5.0: file does not start rule-file-version-2"
target ompi-6.0.0 none ompi-6.0
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["rule_file_version"] == 3
assert d["module"] == "tuned" and "bcast" in d["collectives"]' x.out || fail "ompi-6.0: JSON"

# --target not the installed release: one line naming both, file written
rm -f x.out
run ompi-4.1.4 none --target ompi-5.0 -o x.out || fail "--target ompi-5.0 on 4.1.4: exit $?"
[ "$(wc -l < err.txt)" -eq 1 ] && grep -q "ompi-5.0.*Open MPI 4.1.4.*ompi-4.1" err.txt ||
    fail "--target ompi-5.0 on 4.1.4: stderr not one line naming both: $(cat err.txt)"
[ -s x.out ] || fail "--target ompi-5.0 on 4.1.4: no file"
run none mpich-4.2.1 --target mpich-4.0 --no-mpich-defaults -o x.out ||
    fail "--target mpich-4.0 on 4.2.1: exit $?"
grep -q "mpich-4.0.*MPICH 4.2.1.*mpich-4.1" err.txt || fail "mpich-4.0 on 4.2.1: $(cat err.txt)"
grep -q "MPIR_Barrier_intra_dissemination" x.out && ! grep -q "k_dissemination" x.out ||
    fail "--target mpich-4.0: not 4.0's barrier name"
run none mpich-4.0.2 --target mpich-4.1 --no-mpich-defaults -o x.out
grep -q '"algorithm=MPIR_Barrier_intra_k_dissemination": {"k=2": {}}' x.out &&
    ! grep -q '"algorithm=MPIR_Barrier_intra_dissemination"' x.out ||
    fail "--target mpich-4.1: not 4.1's barrier name and k"

# bad input: exit 2, one line
bad() {
    o=$1 m=$2 pat=$3; shift 3
    run $o $m "$@" -o x.bad; rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q -- "$pat" err.txt ||
        fail "$o/$m $*: exit $rc, stderr: $(cat err.txt) (want exit 2, one line /$pat/)"
    [ ! -e x.bad ] || fail "$o/$m $*: a file was written"
}
valid="ompi-4.1, ompi-5.0, ompi-6.0, mpich-4.0, mpich-4.1"
bad ompi-5.0.7 none "--target 'ompi-5' is not known (valid: $valid)" --target ompi-5
bad ompi-5.0.7 mpich-4.2.1 "both installed: give --target" 
bad none none "no MPI library found"
bad none none "writes --format ompi-json, not mpich-json" --target ompi-6.0 --format mpich-json
bad none none "--format 'lam' is not known" --format lam
# a 4.1 library's built-in rules cannot go into a 4.0 file: refused, named
b='{"collective=bcast":{"comm_type=intra":{"algorithm=MPIR_Bcast_intra_binomial":{}}},'
i='"collective=ibarrier":{"comm_type=intra":{"algorithm=MPIR_Bcast_intra_tree":{}}}}'
printf '\0%s%s\0' "$b" "$i" > lib41.so
bad none none "MPIR_Bcast_intra_tree.*mpich-4.0 does not accept" --target mpich-4.0 \
    --mpich-lib lib41.so
[ $fails -eq 0 ] && echo "export_target: all checks passed"
exit $fails
