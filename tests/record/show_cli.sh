#!/bin/sh
# show_cli.sh COLLSEL MKPROFILE GOLDEN_DIR [golden|errors]
# golden: `collsel show` text/CSV/JSON of a known profile equal the golden files
#         (one without arrivals: "not recorded"; one with, whose arrival
#         figures are also computed from mkprofile's records: show_expect.py);
#         partial files are merged and flagged INCOMPLETE.
# errors: every damaged file, a missing file and bad usage exit 2 with one
#         line on stderr naming the file; --help exits 0.
set -u
collsel=$(realpath "$1"); mkprofile=$(realpath "$2"); golden=$(realpath "$3"); what=${4:-golden}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cs-show-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

if [ "$what" = golden ]; then
    "$mkprofile" golden g.prof || exit 1
    for fmt in text csv json; do
        opt=; [ $fmt = text ] || opt=--$fmt
        "$collsel" show g.prof $opt > out.$fmt 2> err.$fmt
        rc=$?
        [ $rc -eq 0 ] || bad "show $opt exit $rc: $(cat err.$fmt)"
        [ -s err.$fmt ] && bad "show $opt wrote to stderr: $(cat err.$fmt)"
        diff -u "$golden/show.$fmt" out.$fmt >&2 || bad "show $opt differs from $golden/show.$fmt"
    done
    # the same run with arrivals: wait and completion, spread, late ranks
    "$mkprofile" arrivals a.prof || exit 1
    for fmt in text csv json; do
        opt=; [ $fmt = text ] || opt=--$fmt
        "$collsel" show a.prof $opt > arr.$fmt 2> err.$fmt || bad "show a.prof $opt exit $?"
        diff -u "$golden/show.arr.$fmt" arr.$fmt >&2 || bad "show $opt differs from $golden/show.arr.$fmt"
    done
    # the figures of the arrivals (wait, spread and its p50 / p95, late
    # ranks, exits, before) computed from the records mkprofile put in,
    # not from the golden files: these are regenerated with the code
    if command -v python3 > /dev/null; then
        "$mkprofile" records > recs.csv || bad "mkprofile records failed"
        python3 "$here/show_expect.py" recs.csv arr.csv arr.text >&2 ||
            bad "show's arrival figures differ from those computed from the records"
    else
        bad "python3 is needed to compute the expected arrival figures"
    fi
    # --compare: the completion of both runs, the same figure show gives
    compl=$(grep '^Allreduce,' arr.csv | cut -d, -f14)
    "$collsel" show --compare a.prof a.prof --csv |
        grep -q "^collective,Allreduce,0,0,0,3200,3200,0.098,0.098,1.0000,1.0000,$compl,$compl,1.0000$" ||
        bad "compare: Allreduce completion $compl not in $("$collsel" show --compare a.prof a.prof --csv | grep Allreduce)"
    "$collsel" show --compare g.prof a.prof | grep -q "^(completion: run A recorded no arrivals)$" ||
        bad "compare: a run without arrivals not named"
    if command -v python3 > /dev/null; then
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["meta"]["complete"] is True; assert sum(c["rank_calls"] for c in d["cells"]) == 4488' out.json \
            || bad "JSON does not parse or has wrong content"
    fi
    # two partial files, no main file: counts double, flagged incomplete
    cp g.prof run.prof.partial.0 && cp g.prof run.prof.partial.5
    "$collsel" show run.prof > part.txt 2>&1 || bad "show of partial files failed: $(cat part.txt)"
    grep -q "INCOMPLETE: merged 2 partial files, the run did not reach MPI_Finalize" part.txt \
        || bad "partial files not flagged: $(sed -n 2p part.txt)"
    grep -q "^Allreduce  *800  *6400 " part.txt || bad "partial counts not merged: $(grep ^Allreduce part.txt)"
    "$collsel" show run.prof --csv | grep -q "^# complete: 0" || bad "CSV complete flag"
    "$collsel" show run.prof --json | grep -q '"partial_files": 2, "partials": \[{"rank": 0, "data_time": 1763820003.75}, {"rank": 5, "data_time": 1763820003.75}\]' \
        || bad "JSON partial_files / partials"
    # how old each rank's data is (the golden run: 2025-11-22 14:00:00 + 3.75 s)
    grep -q "^rank data   rank 0: data as of 2025-11-22 14:00:03 UTC, [0-9]* days old$" part.txt &&
        grep -q "^            rank 5: data as of 2025-11-22 14:00:03 UTC, [0-9]* days old$" part.txt \
        || bad "the age of each rank's data: $(sed -n 3,4p part.txt)"
    "$collsel" show run.prof --csv | grep -q "^# partial_rank_5_data_time: 1763820003.750$" || bad "CSV partial time"
    "$collsel" show g.prof --top 2 | grep -q "hottest cells (2 of 7)" || bad "--top 2"
    # strings that are not UTF-8 (0xf5..0xff, cut sequences) or hold control
    # characters: the JSON is still valid UTF-8 JSON, the bad bytes U+FFFD
    "$mkprofile" odd odd.prof || exit 1
    if command -v python3 > /dev/null; then
        "$collsel" show odd.prof --json > odd.json || bad "show odd.prof --json exit $?"
        python3 -c 'import json,sys; d=json.loads(open(sys.argv[1],"rb").read().decode("utf-8")); c=d["meta"]["command"]; assert c.count("\ufffd") == 7 and "\u00e9 \"q\" \t\x1b" in c, c; assert d["meta"]["host0"] == "\ufffd" * 5' odd.json \
            || bad "JSON of odd strings is not valid UTF-8 JSON: $(head -c 300 odd.json)"
    fi
else
    mkdir bad && "$mkprofile" bad bad || exit 1
    n=0
    for f in bad/* missing.prof; do
        "$collsel" show "$f" > out 2> err
        rc=$?
        n=$((n + 1))
        [ $rc -eq 2 ] || bad "$f: exit $rc, want 2"
        [ -s out ] && bad "$f: wrote to stdout"
        [ "$(wc -l < err)" -eq 1 ] || bad "$f: want one line on stderr, got: $(cat err)"
        grep -q "^collsel show: .*$f" err || bad "$f: message does not name the file: $(cat err)"
        echo "$f: $(cat err)"
    done
    [ $n -ge 16 ] || bad "only $n damaged files"
    grep -q "written by a newer collsel (format v7, this reads up to v5)" \
        <<EOF || bad "newer-version message"
$("$collsel" show bad/newer.prof 2>&1)
EOF
    for args in "" "--bogus g.prof" "a.prof b.prof" "--top 0 a.prof" "--top" "--csv --json a.prof"; do
        # shellcheck disable=SC2086
        "$collsel" show $args > /dev/null 2> err
        rc=$?
        [ $rc -eq 2 ] || bad "show $args: exit $rc, want 2"
        grep -q "^collsel show: " err || bad "show $args: message $(cat err)"
    done
    # --explored: a profile without explored methods says how to get them
    "$mkprofile" golden g.prof || exit 1
    "$collsel" show --explored g.prof > out 2> err; rc=$?
    [ $rc -eq 2 ] && grep -q "^collsel show: g.prof: no methods explored (record a run with COLLSEL_EXPLORE" err ||
        bad "show --explored without explored methods: exit $rc, $(cat err)"
    [ -s out ] && bad "show --explored without explored methods wrote to stdout"
    for args in "--explored --json g.prof" "--explored --compare g.prof g.prof"; do
        # shellcheck disable=SC2086
        "$collsel" show $args > /dev/null 2> err; rc=$?
        [ $rc -eq 2 ] && grep -q "^collsel show: --explored is text or --csv (not --json, not --compare)" err ||
            bad "show $args: exit $rc, $(cat err)"
    done
    "$collsel" show --help > out 2>&1 || bad "--help exit $?"
    grep -q "usage: collsel show PROFILE" out || bad "--help text"
fi
[ $fail -eq 0 ] && echo "show_cli $what: ok"
exit $fail
