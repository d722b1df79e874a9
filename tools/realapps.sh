#!/bin/sh
# tools/realapps.sh: real applications (Debian's LAMMPS, HPCC and an mpi4py
# script) under collsel, their results compared with the native run's:
#   1. native (the reference), then recorded (collsel exec --record);
#   2. every collective forced to a shared-memory method, round by round
#      until every shared-memory method of every collective has run
#      (COLLSEL_FORCE; a method that does not apply to a call falls back);
#   3. a tree tuned on the application by collsel autotune (its own record,
#      replay and tune), run recorded: results compared, and the
#      collective time of the tuned run against the native recorded run
#      (the profiles' own times);
#   4. the same tree, exploring (collsel exec --explore 3: each call runs
#      one of its leaf's first 3 candidates or native, drawn per call, so
#      methods alternate call by call inside the application): results
#      compared.
# Results are compared on what each application prints of its science:
# LAMMPS the thermo rows (every printed digit), HPCC its verdicts (residual
# checks, error counts, validations), pw.x its energies (every line with
# "total energy", "Fermi" or "highest", every printed digit), the mpi4py
# script everything.
#   usage: tools/realapps.sh [--np N] [--apps lammps,hpcc,qe,mpi4py] [--out DIR]
#                            [--budget SECONDS of autotune per application: 120]
# Installs the applications from Debian's packages when missing.  Takes a
# few minutes at 4 ranks (HPCC is the longest).  Exit status 1 if any
# result differs.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
NP=4 APPS=lammps,hpcc,mpi4py OUT=$top/out-realapps BUDGET=120
while [ $# -gt 0 ]; do
    case "$1" in
    --np) NP=$2; shift 2 ;;
    --apps) APPS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --budget) BUDGET=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "realapps.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
B=${COLLSEL_BUILD:-$top/build}
collsel=$B/cli/collsel
[ -x "$collsel" ] || { echo "realapps.sh: no build in $B (run tools/setup.sh)" >&2; exit 2; }
need=""
for a in $(echo "$APPS" | tr , ' '); do
    case $a in
    lammps) p=lammps ;; hpcc) p=hpcc ;; mpi4py) p=python3-mpi4py ;;
    qe) p="quantum-espresso quantum-espresso-data" ;; # -data: the Si pseudopotential
    *) echo "realapps.sh: unknown application '$a' (lammps, hpcc, qe, mpi4py)" >&2; exit 2 ;;
    esac
    for q in $p; do
        dpkg-query -W -f='${Status}' "$q" 2>/dev/null | grep -q "install ok installed" || need="$need $q"
    done
done
if [ -n "$need" ]; then
    echo "realapps.sh: installing:$need"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $need >/dev/null
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
real=$top/tests/apps/real
run() { timeout 600 "$top/tests/mpiexec.sh" openmpi "$NP" "$@"; }
# pw.x reads its pseudopotential and writes its scratch files in the run's
# folder (app_setup), single-threaded; the ranks get these variables too.
export ESPRESSO_PSEUDO=./ ESPRESSO_TMPDIR=./tmp OMP_NUM_THREADS=1
export MPIEXEC_EXTRA="${MPIEXEC_EXTRA:+$MPIEXEC_EXTRA }-x ESPRESSO_PSEUDO -x ESPRESSO_TMPDIR -x OMP_NUM_THREADS"

# The collectives collsel replaces and the shared-memory methods of each,
# from the registry.
COLLS=$("$collsel" methods --csv | awk -F, 'NR > 1 && !seen[$2]++ { print $2 }')
shm() { "$collsel" methods --csv | awk -F, -v c="$1" '$2 == c && $1 ~ /\.shm\./ { print $1 }'; }
nth() { printf '%s\n' $1 | awk -v k="$2" 'NF { a[++n] = $0 } END { if (n) print a[(k % n) + 1] }'; }
rounds=$(for c in $COLLS; do shm "$c" | wc -l; done | sort -n | tail -1)
# force_round K: COLLSEL_FORCE of round K (the K-th shared-memory method of each).
force_round() {
    f=""
    for c in $COLLS; do
        m=$(nth "$(shm "$c")" "$1")
        [ -n "$m" ] && f="$f${f:+,}$c=$m"
    done
    echo "$f"
}

# app_cmd APP: its command line; app_setup APP: its input files in the
# current folder.
app_cmd() {
    case $1 in
    lammps) echo lmp -in "$real/in.melt" -log none ;;
    hpcc) echo hpcc ;;
    qe) echo pw.x -in "$real/si.scf.in" ;;
    mpi4py) echo /usr/bin/python3 "$real/colls.py" ;;
    esac
}
app_setup() {
    case $1 in
    hpcc) cp "$real/hpccinf.txt" . ;;
    qe) zcat /usr/share/doc/quantum-espresso/examples/EPW/sic/pp/Si.pz-vbc.UPF.gz > Si.pz-vbc.UPF
        mkdir -p tmp ;;
    esac
}

# app_run APP DIR [collsel exec options]: run APP in DIR (its own files
# there), its science on stdout of the caller in DIR/result.
app_run() {
    app=$1 dir=$2; shift 2
    mkdir -p "$dir"
    cd "$dir"
    app_setup "$app"
    pre=""
    [ $# -gt 0 ] && pre="$collsel exec $* --"
    case $app in
    lammps)
        run $pre $(app_cmd lammps) > out.txt 2>&1 || { cat out.txt; return 1; }
        grep -E '^ +[0-9]+ +-?[0-9]' out.txt > result ;;
    hpcc)
        rm -f hpccoutf.txt
        run $pre $(app_cmd hpcc) > out.txt 2>&1 || { cat out.txt; return 1; }
        grep -v '^CPU ' hpccoutf.txt > hpccoutf.txt.nocpu # CPU timer lines come and go
        grep -oE 'Found [0-9]+ errors|[0-9]+ tests completed and (passed|failed) residual checks|Solution Validates|Node\(s\) with error [0-9]+|PASSED|FAILED' \
            hpccoutf.txt.nocpu > result ;;
    qe)
        run $pre $(app_cmd qe) > out.txt 2>&1 || { cat out.txt; return 1; }
        grep -E 'total energy|Fermi|highest|convergence has been achieved' out.txt > result ;;
    mpi4py)
        rm -f colls.*.out
        run $pre $(app_cmd mpi4py) > out.txt 2>&1 || { cat out.txt; return 1; }
        cat colls.*.out > result ;;
    esac
    cd "$OUT"
}

# check APP DIR WHAT: the run's results against the native run's.
bad=0
check() {
    if cmp -s "$OUT/$1/native/result" "$2/result" && [ -s "$2/result" ]; then
        echo "  $1 $3: identical ($(wc -l < "$2/result") result lines)"
    else
        echo "  $1 $3: DIFFERENT (diff $OUT/$1/native/result $2/result)"
        bad=1
    fi
}

# The collective time of a profile in the collectives collsel replaces.
ctime() {
    "$collsel" show "$1" --csv | awk -F, -v ours=" $(echo $COLLS) " '
        /^#/ || $1 == "collective" { next }
        index(ours, " " tolower($1) " ") { t += $8 }
        END { printf "%.6f", t }'
}

for app in $(echo "$APPS" | tr , ' '); do
    d=$OUT/$app
    rm -rf "$d"
    echo "== $app at $NP ranks"
    app_run "$app" "$d/native"
    app_run "$app" "$d/recorded" --record "$d/native.prof"
    check "$app" "$d/recorded" "recorded"
    k=0
    while [ $k -lt "$rounds" ]; do
        f=$(force_round $k)
        app_run "$app" "$d/forced$k" --force "$f"
        check "$app" "$d/forced$k" "forced $f"
        k=$((k + 1))
    done
    mkdir -p "$d/autotune" && (cd "$d/autotune" && app_setup "$app" &&
        "$collsel" autotune --launcher "timeout 600 $top/tests/mpiexec.sh openmpi $NP" --mpi openmpi \
            --budget "$BUDGET" -o "$d/app.tree" -- $(app_cmd "$app") > report.txt 2>&1) ||
        { cat "$d/autotune/report.txt"; echo "realapps.sh: collsel autotune failed on $app" >&2; exit 1; }
    app_run "$app" "$d/tuned" --tree "$d/app.tree" --record "$d/tuned.prof"
    check "$app" "$d/tuned" "with its tuned tree"
    app_run "$app" "$d/explored" --tree "$d/app.tree" --explore 3 --record "$d/explored.prof"
    check "$app" "$d/explored" "exploring its tree's candidates (--explore 3)"
    nt=$(ctime "$d/native.prof") tt=$(ctime "$d/tuned.prof")
    awk -v n="$nt" -v t="$tt" 'BEGIN { printf "  collective time (the collectives collsel replaces; the profiles): native %.4f s, tuned %.4f s, ratio %.2f\n", n, t, (n > 0 ? t / n : 0) }'
    "$collsel" show --compare "$d/native.prof" "$d/tuned.prof" --top 5 > "$d/compare.txt"
    sed -n '4,/^all /p' "$d/compare.txt" | sed 's/^/    /'
done
[ $bad = 0 ] && echo "all results identical" || echo "SOME RESULTS DIFFER"
exit $bad
