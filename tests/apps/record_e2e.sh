#!/bin/sh
# record_e2e.sh MPIEXEC FLAVOUR NP COLLSEL MIXED_APP EXAMPLE_APP
# End to end through the preload library:
#  1. mixed_app recorded with `collsel exec --record`: every line it expects
#     ("expect,COLL,COMM_SIZE,BYTES,OPS,ROOT_MODE") matches exactly one row of
#     `collsel show --csv` (exact size counted OPS x COMM_SIZE times, root
#     mode), there are no other rows, and the profile is complete;
#  2. example_app --quick prints the same result natively and recorded.
set -u
mpiexec=$1 flavour=$2 np=$3
collsel=$(realpath "$4") mixed=$(realpath "$5") example=$(realpath "$6")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cs-e2e-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

"$mpiexec" "$flavour" "$np" "$collsel" exec --record "$tmp/mixed.prof" -- "$mixed" \
    > "$tmp/expect" || bad "mixed_app under collsel exited $?"
"$collsel" show "$tmp/mixed.prof" --csv > "$tmp/csv" || bad "collsel show --csv exited $?"
grep -q '^# complete: 1' "$tmp/csv" || bad "profile not complete"
grep -q "^# world_size: $np\$" "$tmp/csv" || bad "world size not $np"
grep '^expect,' "$tmp/expect" > "$tmp/want"
[ -s "$tmp/want" ] || bad "mixed_app printed no expectations"
# CSV: collective,comm_size,bin_lo,bin_hi,exact_bytes,ops,rank_calls,time_s,min_us,max_us,root_mode,root
awk -F, -v csv="$tmp/csv" '
    BEGIN { while ((getline line < csv) > 0) if (line !~ /^#/ && line !~ /^collective,/) row[++n] = line }
    {
        coll = $2; comm = $3; bytes = $4; ops = $5; mode = $6; hits = 0
        for (i = 1; i <= n; i++) {
            split(row[i], c, ",")
            if (c[1] != coll || c[2] != comm || bytes + 0 < c[3] + 0 || bytes + 0 > c[4] + 0) continue
            used[i] = 1; hits++
            if (("," c[5] ";") !~ ("[,;]" bytes ":" ops * comm ";"))
                { print "FAIL: " $0 ": exact sizes " c[5] ", want " bytes ":" ops * comm; bad = 1 }
            if (c[11] != mode) { print "FAIL: " $0 ": root mode " c[11]; bad = 1 }
        }
        if (hits != 1) { print "FAIL: " $0 ": " hits " matching rows"; bad = 1 }
    }
    END { for (i = 1; i <= n; i++) if (!used[i]) { print "FAIL: unexpected row " row[i]; bad = 1 }
          exit bad }' "$tmp/want" >&2 || bad "recorded cells differ from mixed_app's expectations"

"$mpiexec" "$flavour" "$np" "$example" --quick > "$tmp/native" 2> "$tmp/native.err" \
    || bad "example_app exited $?"
"$mpiexec" "$flavour" "$np" "$collsel" exec --record "$tmp/ex.prof" -- "$example" --quick \
    > "$tmp/recorded" 2> "$tmp/recorded.err" || bad "example_app under collsel exited $?"
[ -s "$tmp/native" ] || bad "example_app printed nothing"
cmp -s "$tmp/native" "$tmp/recorded" || { diff "$tmp/native" "$tmp/recorded" >&2; bad "results differ when recorded"; }
"$collsel" show "$tmp/ex.prof" > "$tmp/show" || bad "show example profile"
grep -q "^Allreduce  *40  *$((40 * np)) " "$tmp/show" || bad "example: want 40 Allreduce ops: $(grep ^Allreduce "$tmp/show")"
grep -q "^status  *complete" "$tmp/show" || bad "example profile not complete"
[ $fail -eq 0 ] && echo "record_e2e: ok ($(wc -l < "$tmp/want") expected cells)"
exit $fail
