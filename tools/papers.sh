#!/bin/sh
# tools/papers.sh: the tables of the quadtree and C4.5 papers, reproduced on
# collsel's own measurements of broadcast and reduce on the modelled cluster
# of tools/sim/cluster.xml (SimGrid SMPI, as tools/simulate.sh):
#   Pjesivac-Grbovic et al., "MPI collective algorithm selection and
#   quadtree encoding" (Parallel Computing 2007), tables 3 and 4;
#   Pjesivac-Grbovic, Fagg et al., "Decision trees and MPI collective
#   algorithm selection problem" (Euro-Par 2007).
# Writes under OUT (default docs/papers): perf.csv.zst (the measurements),
# tables.md (the papers' figures beside ours), quadtree.csv, c45.csv,
# combined.csv, weighted.csv, compare.csv (collsel compare), curve.png,
# measured.png, quadtree-dN.png, c45-mM-cC.png, c45-combined.png.
#
#   tools/papers.sh                         # the papers' grid (see below)
#   NP=16 CS=4,8,16 MS=1,1k,64k tools/papers.sh   # a smaller grid
#   PERF=docs/papers/perf.csv.zst tools/papers.sh  # tables again, no measuring
#     (PERF_NOTE: what tables.md says about how it was measured)
#   METHODS=papers tools/papers.sh          # the papers' algorithms only (faster)
# Grid (default): 25 comm sizes 2..64 x 44 message sizes 1 B..4 MiB (every
# half octave), bcast and reduce, every method (METHODS=papers: the
# algorithms of Open MPI's tuned module the papers measured: linear,
# pipeline, binary, split-binary, binomial with 8 and 32 KiB segments, and
# scatter-allgather / Rabenseifner; METHODS=LIST: collsel-replay
# --methods); NP (default 64) simulated ranks.  Penalties against the fastest measured method, margin 0 (the
# papers had no margin).  Weighted rows use PROFILE (default: a synthetic
# application with bcast and reduce calls at 5 points each, 8..64 ranks x
# 8 B..2 MiB, written by tests/replay's mkprof).
# Needs build/ (collsel) and build-smpi/ (tools/setup.sh builds both).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
NP=${NP:-64}
CS=${CS:-2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,20,24,28,32,36,40,44,48,56,64}
MS=${MS:-$(awk 'BEGIN { for (i = 0; i <= 44; i++) { v = int(2 ^ (i / 2) + 0.5); if (v != last) printf "%s%d", i ? "," : "", v; last = v } }')}
OUT=${OUT:-$top/docs/papers}
B=${COLLSEL_BUILD:-$top/build}
S=${COLLSEL_SMPI_BUILD:-$top/build-smpi}
METHODS=${METHODS:-bcast,reduce}
if [ "$METHODS" = papers ]; then
    METHODS=
    for c in bcast reduce; do
        for m in linear pipeline pipeline.seg8k pipeline.seg32k binary binary.seg8k binary.seg32k \
            binomial binomial.seg8k binomial.seg32k; do
            METHODS="$METHODS${METHODS:+,}$c.$m"
        done
    done
    METHODS="$METHODS,bcast.splitbinary.seg8k,bcast.splitbinary.seg32k,bcast.scatter_rdallgather"
    METHODS="$METHODS,reduce.inorder_binary.seg8k,reduce.rabenseifner"
fi
collsel="$B/cli/collsel"
abspath() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
[ -z "$PERF" ] || PERF=$(abspath "$PERF")
[ -z "$PROFILE" ] || PROFILE=$(abspath "$PROFILE")
mkdir -p "$OUT"
cd "$OUT"
log() { echo "==== $*"; }

# ---- 1. measuring ----------------------------------------------------------
if [ -n "$PERF" ]; then
    [ "$PERF" -ef perf.csv.zst ] || cp "$PERF" perf.csv.zst
    took=${PERF_NOTE:-"measured before: PERF=$PERF"}
else
    log "1. collsel-replay on the modelled cluster: $NP ranks, comm sizes $CS, message sizes $MS"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    t0=$(date +%s)
    # Simulations: per collective (two lanes at once: SMPI runs on one
    # core), per band of comm sizes with as few simulated ranks as the band
    # needs (idle ranks cost: a 4-rank column took 3 s with 8 ranks, 10 s
    # with 64).  perf-COLL-NP.csv are checkpointed after every point: an
    # interrupted run goes on where it stopped.
    bands=$(echo "$CS" | tr ',' '\n' | awk -v np="$NP" '
        { n = $1 + 0; b = 16; while (b < n) b *= 2; if (b > np) b = np; l[b] = l[b] (l[b] ? "," : "") n }
        END { for (b in l) print b ":" l[b] }' | sort -n)
    # One simulation per comm size: a long simulation slows down as it
    # grows (64 ranks: 1 s per point in a fresh one, 60 s after an hour,
    # at 1.7 GB resident).
    lane() { # lane COLL: every band of COLL, one after the other
        for band in $bands; do
            np=${band%%:*}
            for cs in $(echo "${band#*:}" | tr ',' ' '); do
                resume=
                [ ! -s "perf-$1-$np.csv" ] || resume=--resume
                mkdir -p "$tmp/$1-$np"
                "$top/tools/sim/smpirun.sh" "$np" "$tmp/$1-$np" \
                    "$S/replay/collsel-replay" --grid "cs=$cs,ms=$MS" --colls "$1" \
                    --methods "$METHODS" --quick --alone --no-progress $resume \
                    -o "perf-$1-$np.csv" || return 1
            done
        done
    }
    lane bcast & pb=$!
    lane reduce & pr=$!
    wait $pb || { echo "papers.sh: the bcast simulation failed (see above)" >&2; exit 1; }
    wait $pr || { echo "papers.sh: the reduce simulation failed (see above)" >&2; exit 1; }
    parts=$(for c in bcast reduce; do for band in $bands; do echo "perf-$c-${band%%:*}.csv"; done; done)
    # one table: the rows of all, a new trailer (crc32 of everything before
    # it: gzip's trailer holds the same CRC-32)
    awk 'FNR <= 2 && NR == FNR || !/^#/ && !/^collective,/' $parts > "$tmp/perf.csv"
    rows=$(grep -vc '^#\|^collective,' "$tmp/perf.csv")
    crc=$(gzip -c < "$tmp/perf.csv" | tail -c8 | head -c4 | od -An -tx4 | tr -d ' ')
    echo "# end rows=$rows crc32=$crc" >> "$tmp/perf.csv"
    zstd -q -f "$tmp/perf.csv" -o perf.csv.zst
    rm -f $parts
    took="measured in $(($(date +%s) - t0)) s on $(nproc) core(s) (two simulations at once)"
fi
perf=perf.csv.zst
if [ -z "$PROFILE" ]; then
    # a synthetic application: bcast and reduce calls at 5 points each,
    # spread over the grid (1 us per call: the weights are the call counts)
    PROFILE=$(pwd)/app.prof
    "$B/tests/replay/replay_mkprof" "$PROFILE" Bcast:8:64:5000 Bcast:16:4096:2000 \
        Bcast:16:65536:500 Bcast:24:16384:1000 Bcast:48:1048576:50 Reduce:8:8:5000 \
        Reduce:16:1024:2000 Reduce:24:128:3000 Reduce:32:65536:300 Reduce:64:2097152:20
    own_profile=1
fi

# ---- 2. quadtrees per depth (paper: table 3, bcast on Grig) -----------------
log "2. quadtrees per depth, C4.5 per -m/-c, combined, weighted"
"$collsel" compare --perf "$perf" --margin 0 --csv -o curve.png > compare.csv
# penalty line of `collsel tune` output for collective $1: min max mean median
pen() { awk -v c="$1" '$1 == c":" {b = 1} b && /penalty uniform/ {
    gsub("%", ""); print $4, $6, $8, $10; exit }' "$2"; }
echo "collective,depth,leaves,nodes,bytes,mean_pct,max_pct,median_pct,decide_ns,code_bytes,code_tests" > quadtree.csv
awk -F, '$2 == "quadtree" && ($3 ~ /^depth/ || $3 == "exact") {
    d = $3; sub("depth ", "", d); print $1 "," d "," $4 "," $5 "," $6 "," $7 "," $8 "," $9 "," $11 "," $12 "," $13 }' \
    compare.csv >> quadtree.csv
# beyond the papers: the same trees, a leaf answering its least-penalty
# method instead of its majority method (collsel tune --leaf penalty)
echo "collective,depth,leaves,mean_pct,max_pct,median_pct" > quadtree-penalty.csv
for d in 1 2 3 4 5 6; do
    "$collsel" tune --perf "$perf" --margin 0 --max-depth "$d" -o "qt-d$d.tree" > /dev/null
    "$collsel" map "qt-d$d.tree" -o "quadtree-d$d.png" > /dev/null
    "$collsel" tune --perf "$perf" --margin 0 --max-depth "$d" --leaf penalty -o qt-pen.tree > tune.txt
    for coll in bcast reduce; do
        awk -v c="$coll" -v d="$d" '$1 == c":" {b = 1}
            b && /answering\)/ && !l { l = $0; sub(/ answering.*/, "", l); sub(/.*\(/, "", l) }
            b && /penalty uniform/ { gsub("%", ""); printf "%s,%s,%s,%s,%s,%s\n", c, d, l, $8, $6, $10; exit }' \
            tune.txt >> quadtree-penalty.csv
    done
done
"$collsel" map "$perf" -o measured.png > /dev/null
grid=$("$collsel" tune --perf "$perf" -o qt.tree | sed -n 's/^bcast: \(.*\), [0-9]* methods.*/\1/p')

# ---- 3. C4.5 per -m / -c (paper: bcast, 1,248 cases) -------------------------
echo "collective,m,c,cases,leaves_before,errors_before_pct,leaves_after,errors_after_pct,predicted_pct,min_pct,max_pct,mean_pct,median_pct" > c45.csv
c45_row() { # c45_row OUTPUT_CSV M C TUNE_OUTPUT COLLECTIVE
    awk -v c="$5" -v m="$2" -v cf="$3" '
        $1 == c":" {b = 1}
        b && /C4.5 -m/ { line = $0 }
        b && /penalty uniform/ {
            n = split(line, w, /[ ,;()%]+/)
            for (i = 1; i <= n; i++) {
                if (w[i] == "cases") cases = w[i - 1]
                if (w[i] == "pruning") { lb = w[i + 1]; eb = w[i + 5] }
                if (w[i] == "after") { la = w[i + 1]; ea = w[i + 5] }
                if (w[i] == "predicted") pr = w[i + 1]
            }
            gsub("%", ""); printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", c, m, cf, cases, lb, eb, la, ea, pr, $4, $6, $8, $10
            exit
        }' "$4" >> "$1"
}
for m in 2 5 10 20 40; do
    for c in 5 10 25; do
        "$collsel" tune --c45 -m "$m" -c "$c" --perf "$perf" --margin 0 -o "c45-m$m-c$c.tree" > tune.txt
        for coll in bcast reduce; do c45_row c45.csv "$m" "$c" tune.txt "$coll"; done
    done
done
for s in "2 25" "40 5"; do
    set -- $s
    "$collsel" map "c45-m$1-c$2.tree" -o "c45-m$1-c$2.png" > /dev/null
done

# ---- 4. combined bcast + reduce trees (paper: 2,286 cases) -------------------
echo "m,c,cases,leaves_before,leaves_after,errors_after_pct,predicted_pct,collective_level,bcast_mean_pct,bcast_max_pct,reduce_mean_pct,reduce_max_pct" > combined.csv
for s in "2 25" "20 5"; do
    set -- $s
    "$collsel" tune --c45 --combined -m "$1" -c "$2" --perf "$perf" --margin 0 -o "c45-combined-m$1-c$2.tree" > tune.txt
    awk -v m="$1" -v cf="$2" '
        /C4.5 -m/ && !line { line = $0 }
        /first test on the collective/ { lev = $(NF); if ($NF == "(none)") lev = 0; else lev = $NF }
        /^bcast:/ { c = "b" } /^reduce:/ { c = "r" }
        /penalty uniform/ { gsub("%", ""); mean[c] = $8; max[c] = $6 }
        END {
            n = split(line, w, /[ ,;()%]+/)
            for (i = 1; i <= n; i++) {
                if (w[i] == "cases") cases = w[i - 1]
                if (w[i] == "pruning") lb = w[i + 1]
                if (w[i] == "after") { la = w[i + 1]; ea = w[i + 5] }
                if (w[i] == "predicted") pr = w[i + 1]
            }
            printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", m, cf, cases, lb, la, ea, pr, lev, mean["b"], max["b"], mean["r"], max["r"]
        }' tune.txt >> combined.csv
done
"$collsel" map c45-combined-m2-c25.tree -o c45-combined.png > /dev/null

# ---- 5. application-weighted trees against unweighted ones of as many leaves
echo "collective,kind,setting,leaves,weighted_mean_pct,unweighted_same_leaves_weighted_mean_pct,ratio" > weighted.csv
wrow() { # wrow KIND SETTING TUNE_OUTPUT COLLECTIVE
    awk -v c="$4" -v k="$1" -v s="$2" '
        $1 == c":" {b = 1} b && /answering\)/ && !l { l = $0; sub(/ answering.*/, "", l); sub(/.*\(/, "", l) }
        b && /penalty weighted/ { gsub("%", ""); v[++n] = $8 }
        b && n == 2 { r = v[1] > 0 ? sprintf("%.1f", v[2] / v[1]) : (v[2] > 0 ? "inf" : "1.0")
            printf "%s,%s,%s,%s,%s,%s,%s\n", c, k, s, l, v[1], v[2], r; exit }' "$3" >> weighted.csv
}
for n in 4 8 16 32; do
    "$collsel" tune --perf "$perf" --profile "$PROFILE" --margin 0 --max-leaves "$n" -o w.tree > tune.txt
    for coll in bcast reduce; do wrow quadtree "max-leaves $n" tune.txt "$coll"; done
done
for m in 2 10; do
    "$collsel" tune --c45 -m "$m" --perf "$perf" --profile "$PROFILE" --margin 0 -o w.tree > tune.txt
    for coll in bcast reduce; do wrow c45 "-m $m -c 25" tune.txt "$coll"; done
done

# ---- 6. the markdown -------------------------------------------------------
log "6. tables.md"
field() { awk -F, -v c="$1" -v k="$2" -v col="$3" '$1 == c && $2 == k { print $col; exit }' "$4"; }
# What was run, from the measurements themselves: per collective, its
# methods (the names after the collective).
ran() {
    zstdcat "$perf" | awk -F, -v c="$1" '$1 == c && !seen[$4]++ { sub("^" c "\\.", "", $4); m[++n] = $4 }
        END { printf "%d methods (", n; for (i = 1; i <= n; i++) printf "%s%s", m[i], i < n ? ", " : ")"; }'
}
{
    echo "# The papers' tables on collsel's modelled cluster"
    echo
    echo "Generated by \`tools/papers.sh\` (do not edit; $took)."
    echo "Grid: $grid,"
    echo "bcast: $(ran bcast),"
    echo "reduce: $(ran reduce),"
    echo "on \`tools/sim/cluster.xml\`"
    echo "(SimGrid SMPI; native = SMPI's emulation of Open MPI's decisions)."
    echo "Penalty = (t_chosen - t_best) / t_best over the measured points, margin 0."
    echo "Leaves: those that answer inputs (quadtree blocks entirely in the padding of"
    echo "the 2^k x 2^k grid are not counted)."
    echo "Papers' figures: Grig cluster (Pjesivac-Grbovic et al. 2007)."
    echo
    echo "## Quadtree: maximum depth (quadtree paper, table 3: broadcast)"
    echo
    echo "| depth | paper leaves | paper mean % | bcast leaves | bcast mean % | bcast max % | bcast median % | reduce leaves | reduce mean % | decision ns | C bytes | bcast mean %, least-penalty leaves | reduce mean %, least-penalty leaves |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    set -- "4 37.1" "16 18.6" "58 8.8" "166 6.3" "442 5.4" "973 0"
    for d in 1 2 3 4 5 6; do
        eval "p=\${$d}"
        bp=$(awk -F, -v d="$d" '$1 == "bcast" && $2 == d { print $4 }' quadtree-penalty.csv)
        rp=$(awk -F, -v d="$d" '$1 == "reduce" && $2 == d { print $4 }' quadtree-penalty.csv)
        awk -F, -v d="$d" -v p="$p" -v bp="$bp" -v rp="$rp" '
            $2 == d && $1 == "bcast" { bl = $3; bm = $6; bx = $7; bd = $8; ns = $9; cb = $10 }
            $2 == d && $1 == "reduce" { rl = $3; rm = $6 }
            END { split(p, q, " "); printf "| %s | %s | %s | %s | %.2f | %.1f | %.2f | %s | %.2f | %s | %s | %s | %s |\n", d, q[1], q[2], bl, bm, bx, bd, rl, rm, ns, cb, bp, rp }' quadtree.csv
    done
    echo
    echo "Last two columns (beyond the papers, \`collsel tune --leaf penalty\`): the"
    echo "same trees, each leaf answering the method of least summed normalised time"
    echo "over its block instead of its majority method (quadtree-penalty.csv)."
    echo
    echo "Decision time (quadtree paper, table 4, reduce): 22-175 ns per decision"
    echo "at 104 B per node.  collsel: the flat table above (4 B per node)."
    echo
    echo "## C4.5: -m and -c (C4.5 paper: broadcast, 1,248 cases)"
    echo
    echo "Paper: \`-m 2 -c 25\`: 127 leaves, 14.6 % predicted error, mean penalty 0.66 %;"
    echo "\`-m 40 -c 5\`: 21 leaves, 21.9 % predicted error, mean penalty 2.08 %; maximum"
    echo "penalty 75-317 %, at one point."
    echo
    echo "| collective | -m | -c | cases | leaves before | errors before % | leaves after | errors after % | predicted % | mean % | max % | median % |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    tail -n +2 c45.csv | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $12, $11, $13 }'
    echo
    echo "## Combined bcast + reduce trees (C4.5 paper: 2,286 cases)"
    echo
    echo "Paper: 221 leaves at \`-m 2 -c 25\`, 55 at \`-m 20 -c 5\`; mean penalty under"
    echo "2.5 % for both collectives; the first test on the collective at level 3."
    echo
    echo "| -m | -c | cases | leaves before | leaves after | errors % | predicted % | collective tested at level | bcast mean % | bcast max % | reduce mean % | reduce max % |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    tail -n +2 combined.csv | awk -F, '{ printf "| %s |\n", $0 }' | sed 's/,/ | /g'
    echo
    echo "## Application-weighted trees (beyond the papers)"
    echo
    echo "Weighted penalty (by the time the application spent at each point) of the"
    echo "tree built with the profile, against the unweighted tree of the same kind"
    echo "with as many leaves$( [ -n "$own_profile" ] && echo " (profile: a synthetic application, calls at bcast 8x64 B, 16x4 KiB, 16x64 KiB, 24x16 KiB, 48x1 MiB and reduce 8x8 B, 16x1 KiB, 24x128 B, 32x64 KiB, 64x2 MiB)")."
    echo
    echo "| collective | kind | setting | leaves | weighted tree: weighted mean % | unweighted tree: weighted mean % | ratio |"
    echo "|---|---|---|---|---|---|---|"
    tail -n +2 weighted.csv | awk -F, '{ printf "| %s |\n", $0 }' | sed 's/,/ | /g'
    echo
    echo "## Decision time, quadtree against C4.5 (\`collsel compare\`)"
    echo
    echo "| collective | kind | setting | leaves | decision ns | C bytes | comparisons |"
    echo "|---|---|---|---|---|---|---|"
    awk -F, 'NR > 1 && ($3 == "depth 3" || $3 == "depth 6" || $3 == "-m 2 -c 25" || $3 == "-m 40 -c 5") && $2 != "c45-weighted" {
        printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $11, $12, $13 }' compare.csv
    echo
    echo "Pictures: \`measured.png\` (the measured best methods), \`quadtree-dN.png\`"
    echo "(depth N), \`c45-m2-c25.png\`, \`c45-m40-c5.png\`, \`c45-combined.png\`,"
    echo "\`curve.png\` (mean penalty against leaves of every kind)."
} > tables.md
rm -f ./*.tree tune.txt "${own_profile:+app.prof}"
log "outputs in $OUT: tables.md, *.csv, *.png"
