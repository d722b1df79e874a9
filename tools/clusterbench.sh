#!/bin/bash
# tools/clusterbench.sh: collsel's methods against native on a cluster on
# this machine (tools/cluster.sh), with Open MPI's defaults and with its
# hierarchical component forced (HAN: --mca coll_han_priority 100), the
# two launches alternating, at each link delay (tools/cluster.sh --delay:
# netem, or the user-space link where the kernel has no netem).  Prints
# collsel-bench's tables (ratio = method / the native of that launch) and a
# summary per point: native, native HAN and the best node-aware method
# (medians over the repetitions) and their ratios (the median's, and the
# range of the repetitions' own ratios: a repetition's best node-aware time
# over the native of its launch, and over the HAN launch next to it).
#   tools/clusterbench.sh [--layout NxR] [--delays 0,20] [--reps N]
#                         [--link auto|veth|tap]   (tools/cluster.sh up --link)
#                         [--sizes LIST] [--colls LIST] [--time-per-method S]
#                         [--methods LIST]   (collsel-bench --methods; default
#                         the node-aware ones and the point-to-point methods
#                         they use between leaders)
# Out of CI (minutes); the machine's other load shows in the figures.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${COLLSEL_BUILD:-$top/build}
layout=2x2 delays=0,20 reps=3 link=auto sizes=8,65536,1048576 colls=bcast,reduce,allreduce,barrier tpm=0.05
methods=.node.,node_,.binomial,.knomial.k4,.recursive_doubling,.dissemination,.rabenseifner
usage() { sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//p}' "$0"; }
while [ $# -gt 0 ]; do
    case "$1" in
    --layout) layout=$2; shift 2 ;;
    --delays) delays=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --link) link=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --colls) colls=$2; shift 2 ;;
    --time-per-method) tpm=$2; shift 2 ;;
    --methods) methods=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "clusterbench.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
n=${layout%x*} r=${layout#*x}
case "$n$r" in *[!0-9]*|'') echo "clusterbench.sh: --layout takes NxR (got '$layout')" >&2; exit 2 ;; esac
cl=$top/tools/cluster.sh
"$cl" check > /dev/null || exit $?
lock=$("$cl" lockfile) || exit 1
exec 9>> "$lock" # one cluster user at a time, machine-wide (every clone's tests and benches)
flock 9
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp "${TMPDIR:-/tmp}/clusterbench.XXXXXX")
trap '"$cl" down; rm -f "$out"' EXIT
for d in ${delays//,/ }; do
    "$cl" up "$n" --ranks-per-node "$r" --delay "$d" --link "$link" > /dev/null || exit 1
    "$cl" status | grep -E "qdisc|user-space link" | sed 's/^ */   /' >&2
    line=$("$cl" launcher openmpi)
    for rep in $(seq 1 "$reps"); do
        for cfg in defaults han; do
            extra=
            [ $cfg = han ] && extra="--mca coll_han_priority 100"
            echo "== delay $d us, $layout, native $cfg, rep $rep"
            # shellcheck disable=SC2086
            $line $extra "$B/replay/collsel-bench" --coll "$colls" --sizes "$sizes" \
                --time-per-method "$tpm" --methods "$methods"
        done
    done
done | tee "$out"
# the summary: per delay and point, medians over the repetitions (us) of
# native (defaults), native HAN, the best node-aware method (its time
# in the defaults' launches) and the best of any method; ratios to both
echo
echo "== summary (medians over $reps repetition(s); node-aware = best *.node.* / *node_* method)"
printf '%-6s %-10s %-9s %10s %10s %10s %-34s %8s %-13s %8s %-13s\n' delay coll size native han \
    node-aware method "/native" "(range)" "/han" "(range)"
awk '
function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++)
    for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : -1 }
function range(num, den,   a, b, n, i, r, lo, hi) { # of the repetitions ratios num_i / den_i
    n = split(num, a, " "); if (split(den, b, " ") < n) n = length(b); lo = hi = -1
    for (i = 1; i <= n; i++) if (b[i] > 0) { r = a[i] / b[i]
        if (lo < 0 || r < lo) lo = r; if (r > hi) hi = r }
    return lo < 0 ? "-" : sprintf("[%.2f-%.2f]", lo, hi) }
/^== delay/ { d = $3; cfg = $7; sub(",", "", cfg); next }
/ ranks: native / { k = d " " $1 " " ($2 == "-" ? "-" : $2 " " $3); sub(",", "", k)
    if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
    for (i = 1; i <= NF; i++) if ($i == "native") nat[k, cfg] = nat[k, cfg] " " $(i + 1)
    bestn = ""; next }
/^  [a-z]+\.[a-z]/ && cfg == "defaults" && ($1 ~ /\.node\./ || $1 ~ /node_/) {
    if (bestn == "") { bestn = $1; nd[k] = nd[k] " " $2; cnt[k, $1]++ } }
END { for (i = 1; i <= nk; i++) { k = keys[i]; split(k, f, " ")
    n = med(nat[k, "defaults"]); h = med(nat[k, "han"]); b = med(nd[k]); m = ""
    sz = "-"; if (f[3] != "-") sz = f[3] " " f[4]
    for (x in cnt) { split(x, y, SUBSEP); if (y[1] == k && cnt[x] > c) { c = cnt[x]; m = y[2] } } c = 0
    printf "%-6s %-10s %-9s %10.2f %10.2f %10.2f %-34s %8.3f %-13s %8.3f %-13s\n", f[1], f[2],
        sz, n, h, b, m, (n > 0 ? b / n : 0), range(nd[k], nat[k, "defaults"]),
        (h > 0 ? b / h : 0), range(nd[k], nat[k, "han"]) } }
' "$out"
