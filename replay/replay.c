/* collsel-replay: measure methods where a profile says the application
 * calls (or on a grid) into a perf table, or replay a profile's mix native
 * vs tuned.  Options are parsed before MPI_Init so that usage errors are
 * reported at once (by the rank that the launcher calls 0). */
#include <fnmatch.h>
#include <stdarg.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "select/perf.h"
#include "select/tree.h"
#include "op.h"
#include "replay.h"
#include "spec.h"

#define PROG "collsel-replay"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mpirun -n P " PROG " [--profile PROFILE] [--grid SPEC] [--methods LIST]\n"
        "            [--colls LIST] [--time-per-point S] [--budget S] [--quick]\n"
        "            [--finalists K] [--resume] [--alone] [--arrivals LIST] [-v] -o PERF.csv\n"
        "       mpirun -n P " PROG " --mix PROFILE --tree TREE [--budget S] [--rounds N]\n"
        "            [--colls LIST] [--alone] [--arrivals PATTERN] [--csv|--json]\n\n"
        "Measuring: times native and every applicable method (collective timing: warm-up,\n"
        "rounds of back-to-back calls separated by a barrier, max over ranks, until the\n"
        "95 %% CI of the median is within 5 %% or the method's share of the point's time\n"
        "is used up), then (stage 2) re-measures the K best methods and native with most\n"
        "of the point's time in interleaved rounds, each cycle in a new order (no method\n"
        "always after the same one) so that a changing machine load hits them alike,\n"
        "and writes PERF.csv (collective,\n"
        "comm_size,msg_bytes,method,median_us,min_us,max_us,reps; reps = timed rounds:\n"
        "stage-2 rounds for the finalists and native), rewritten after every point so\n"
        "an interrupted run keeps its data.  All measurements of a point use the same\n"
        "round size (calls per round, sized on native), as --mix does.  Where a\n"
        "shared-memory method is measured, one row COLL.segment,SIZE,0 per collective\n"
        "and communicator size: the one-time cost of a communicator's segment (collsel\n"
        "tune spreads it over the application's calls).  Built for SimGrid SMPI, a point\n"
        "whose native calls take exactly the same simulated time (simulated computation\n"
        "off) gets one warm-up call and one round per method: more would add nothing.\n"
        "  --profile PROFILE   the cells of a recorded profile of the collectives collsel\n"
        "                      replaces (--colls): each\n"
        "                      exact message size and communicator size, with the cell's\n"
        "                      root behaviour (root 0, a fixed root, or rotating roots)\n"
        "  --grid SPEC         comm sizes x message sizes, e.g. cs=2:4,ms=1:4M\n"
        "                        cs=LO:HI every size (cs=2:64:x2 powers of two, :+N steps)\n"
        "                        ms=LO:HI powers of two from LO to HI bytes (:xN, :+N steps)\n"
        "                        V1,V2,... explicit lists; sizes take k/M/G suffixes\n"
        "                      missing cs: 2..P; missing ms: 1..4M.  With neither --profile\n"
        "                      nor --grid: --grid cs=2:P,ms=1:4M:x4\n"
        "  --methods LIST      comma-separated method names, glob patterns ('bcast.knomial*')\n"
        "                      or collective names; native is always measured.  Without\n"
        "                      --colls, only the collectives named in LIST are replayed\n"
        "  --colls LIST        comma-separated, of %s (default: all)\n"
        "  --time-per-point S  seconds for all methods of one point (default 2; --quick 0.3)\n"
        "  --budget S          total seconds: caps the time per point and the whole\n"
        "                      measurement (the points left when it is used up are\n"
        "                      not measured: --resume measures them later) or the\n"
        "                      replay (--mix, default 5; --quick 2)\n"
        "  --quick             short run: 0.3 s per point, CI target 10 %%, --mix 2 s\n"
        "  --finalists K       methods re-measured in stage 2 besides native (default 4;\n"
        "                      0: no stage 2, every method gets an equal share)\n"
        "  -v, --verbose       one line per point on stderr: round size, stage times and\n"
        "                      the finalists' stage-2/stage-1 medians in us\n"
        "  -o, --output PERF   the perf table to write\n"
        "  --resume            keep the rows PERF has (an interrupted run's) and measure\n"
        "                      only the points it lacks\n"
        "  --progress          a live progress line on stderr (point, method, points\n"
        "                      done/total, time left); default: when the stderr of rank\n"
        "                      0 or of its launcher (mpirun) is a terminal, else one\n"
        "                      summary line at the end\n"
        "  --no-progress       only the summary line\n"
        "  --alone             measure a point of size s on world ranks 0..s-1 only, the\n"
        "                      others waiting (the papers' way)\n"
        "  --arrivals LIST     arrival patterns, comma-separated (each point under each;\n"
        "                      --mix: the first): none, one-late:D[@R] (rank R, or one\n"
        "                      drawn per call, D late: 20us, 1.5ms), random:D (each rank\n"
        "                      uniform in [0, D]), recorded (per call a lateness vector\n"
        "                      drawn from the cell's recorded ones).  Every call is then\n"
        "                      timed on its own, its time the COMPLETION: last exit - last\n"
        "                      arrival, the injected delay never counted (arrivals on\n"
        "                      CLOCK_MONOTONIC, a spin per delay; the same draw on every\n"
        "                      rank); the rows carry the pattern (column arrivals).\n"
        "                      Default: recorded,none (--mix: recorded) for a profile\n"
        "                      with arrival data, else back-to-back calls as above\n"
        "Points larger than the world are skipped.  A point of size s runs on floor(P/s)\n"
        "disjoint groups of s consecutive ranks at once, as an application's row and\n"
        "column communicators do; rounds start together in every group and a round's\n"
        "time is the slowest group's (--alone: one group).  Segmented variants whose segment is\n"
        ">= the message are not measured (they behave exactly as the unsegmented method).\n"
        "Data: bcast moves bytes; (all)reduce sums doubles, its size rounded to the nearest\n"
        "multiple of 8 (>= 8) - the perf table records the size really reduced; alltoall\n"
        "moves p blocks of the size (bytes) each way.\n\n"
        "Mix (--mix PROFILE --tree TREE): replays the profile's cells natively and\n"
        "through the tree (first applicable candidate, as the preload\n"
        "library does), each cell in alternating rounds N T, T N, ... measured exactly\n"
        "as in measuring mode (same buffers, roots, round size), and prints per point the\n"
        "native and tuned time per call, the chosen method, the ratio tuned/native (the\n"
        "median of the ratios of paired rounds) with its 95 %% CI, flagging points > 5 %%\n"
        "slower, and the totals weighted by the profile's operations.\n"
        "  --rounds N          at least N rounds per side and point (default 20); the\n"
        "                      budget gives more, half in equal shares, half in\n"
        "                      proportion to the points' share of the profile's time\n"
        "  --work recorded[:KIB]  before each replayed call every rank computes (stencil\n"
        "                      sweeps over KIB KiB of its own, default 1024; untimed)\n"
        "                      for the application's recorded time between calls at\n"
        "                      that point (show's 'before', at most 5 ms), as the\n"
        "                      application did: calls after computation are slower\n"
        "                      than in a loop; needs arrivals (profile format 5)\n"
        "  --csv, --json       print the table as CSV or JSON instead of text (CSV: a\n"
        "                      last row 'total' with the profile-weighted times in us)\n"
        "  -h, --help          this text\n"
        "Under arrivals (--arrivals, or a profile with arrival data) the times are\n"
        "completion, and the prediction is given twice: on completion (what the tree\n"
        "changes) and on the application's collective time, every collective of the\n"
        "profile: (recorded wait + recorded completion x the point's ratio, summed;\n"
        "the collectives not replayed unchanged) / the recorded time.\n",
        cs_coll_names());
}

static int is_rank0_env(void)
{
    const char *v[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (int i = 0; i < 3; i++)
        if (getenv(v[i]))
            return atoi(getenv(v[i])) == 0;
    return 1;
}

static int bad(const char *fmt, ...) CS_PRINTF(1, 2);
static int bad(const char *fmt, ...)
{
    if (is_rank0_env()) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, PROG ": ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
    return 2;
}

static int parse_seconds(const char *opt, const char *v, double *out)
{
    cs_err e;
    return cs_parse_seconds(v, 86400, out, &e) < 0 ? bad("%s %s", opt, e.msg) : 0;
}

static void list_methods(void)
{
    if (!is_rank0_env())
        return;
    fprintf(stderr, "valid methods (or a collective name, or a glob pattern):");
    for (int c = 0; c < CS_NCOLL; c++) {
        int nm, col = 80;
        const cs_method *t = cs_methods((enum cs_coll)c, &nm);
        for (int i = 0; i < nm; i++) {
            int w = (int)strlen(t[i].name) + 1;
            if (col + w > 78)
                col = fprintf(stderr, "\n ");
            col += fprintf(stderr, " %s", t[i].name) > 0 ? w : 0;
        }
    }
    fprintf(stderr, "\n");
}

/* --methods: select by name, glob or collective; fills o->sel, and o->colls
 * when colls_given is 0. */
static int select_methods(cs_replay_opts *o, int colls_given)
{
    int named[CS_NCOLL] = {0};
    for (int c = 0; c < CS_NCOLL; c++) {
        int nm;
        cs_methods((enum cs_coll)c, &nm);
        o->sel[c] = calloc((size_t)nm, 1);
        if (!o->sel[c])
            return bad("out of memory");
        memset(o->sel[c], o->methods ? 0 : 1, (size_t)nm);
        o->sel[c][0] = 1;
    }
    if (!o->methods)
        return 0;
    char *d = strdup(o->methods), *save = NULL;
    int rc = 0;
    for (char *t = strtok_r(d, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
        int hits = 0, whole = cs_coll_from_name(t);
        for (int c = 0; c < CS_NCOLL; c++) {
            int nm;
            const cs_method *tab = cs_methods((enum cs_coll)c, &nm);
            for (int i = 0; i < nm; i++)
                if (whole == c || fnmatch(t, tab[i].name, 0) == 0) {
                    o->sel[c][i] = 1;
                    named[c] = 1;
                    hits++;
                }
        }
        if (!hits) {
            rc = bad("--methods: '%s' matches no method", t);
            list_methods();
        }
    }
    free(d);
    if (!colls_given)
        memcpy(o->colls, named, sizeof named);
    return rc;
}

static int parse_colls(cs_replay_opts *o, const char *v)
{
    memset(o->colls, 0, sizeof o->colls);
    char *d = strdup(v ? v : ""), *save = NULL;
    int rc = 0, any = 0;
    for (char *t = strtok_r(d, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
        int c = cs_coll_from_name(t);
        if (c < 0)
            rc = bad("--colls: unknown collective '%s' (accepted: %s)", t, cs_coll_names());
        else
            o->colls[c] = any = 1;
    }
    free(d);
    return rc ? rc : any ? 0 : bad("--colls '%s': empty (accepted: %s)", v ? v : "",
                                       cs_coll_names());
}

static int takes_value(const char *a)
{
    static const char *opts[] = {"--profile", "--mix",    "--tree",           "--grid",
                                 "--methods", "-o",       "--output",         "--colls",
                                 "--budget",  "--rounds", "--time-per-point", "--finalists",
                                 "--arrivals", "--work"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (!strcmp(a, opts[i]))
            return 1;
    return 0;
}

/* Returns -1 to go on, or an exit code. */
static int parse_args(int argc, char **argv, cs_replay_opts *o, const char **mix)
{
    int quick = 0, colls_given = 0, tpp_given = 0, budget_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int rc = 0, takes = 1;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (is_rank0_env())
                usage(stdout);
            return 0;
        } else if (!strcmp(a, "--quick")) {
            quick = 1;
            takes = 0;
        } else if (!strcmp(a, "--resume")) {
            o->resume = 1;
            takes = 0;
        } else if (!strcmp(a, "--alone")) {
            o->alone = 1;
            takes = 0;
        } else if (!strcmp(a, "--progress") || !strcmp(a, "--no-progress")) {
            o->progress = a[2] == 'p' ? 1 : -1;
            takes = 0;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            o->verbose = 1;
            takes = 0;
        } else if (!strcmp(a, "--csv") || !strcmp(a, "--json")) {
            o->format = a[2] == 'c' ? CS_OUT_CSV : CS_OUT_JSON;
            takes = 0;
        } else if (!takes_value(a)) {
            return bad("unknown option '%s' (see --help)", a);
        } else if (!v) {
            return bad("option '%s' needs a value (see --help)", a);
        } else if (!strcmp(a, "--profile")) {
            o->profile = v;
        } else if (!strcmp(a, "--mix")) {
            *mix = v;
        } else if (!strcmp(a, "--tree")) {
            o->tree = v;
        } else if (!strcmp(a, "--grid")) {
            o->grid = v;
        } else if (!strcmp(a, "--methods")) {
            o->methods = v;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            o->out = v;
        } else if (!strcmp(a, "--colls")) {
            rc = parse_colls(o, v);
            colls_given = 1;
        } else if (!strcmp(a, "--time-per-point")) {
            rc = parse_seconds(a, v, &o->time_per_point);
            tpp_given = 1;
        } else if (!strcmp(a, "--budget")) {
            rc = parse_seconds(a, v, &o->budget);
            budget_given = 1;
        } else if (!strcmp(a, "--rounds")) {
            char *end;
            long r = strtol(v, &end, 10);
            if (*end || r < 1 || r > 1000)
                rc = bad("--rounds '%s': need an integer in 1..1000", v);
            o->rounds = (int)r;
        } else if (!strcmp(a, "--arrivals")) {
            cs_err e = {{0}};
            o->arrivals = v;
            if (cs_pattern_parse_list(v, o->pats, CS_REPLAY_PATS, &o->npats, &e) < 0)
                rc = bad("--arrivals: %s", e.msg);
#ifdef COLLSEL_SMPI
            rc = rc ? rc : bad("--arrivals: not in the SimGrid build (its clock is simulated)");
#endif
        } else if (!strcmp(a, "--work")) {
            char *end = NULL;
            long kib = CS_REPLAY_WORK_KIB;
            if (!strncmp(v, "recorded", 8) && v[8] == ':')
                kib = strtol(v + 9, &end, 10);
            if (strncmp(v, "recorded", 8) || (v[8] && (v[8] != ':' || *end || kib < 1 ||
                                                       kib > 1048576)))
                rc = bad("--work '%s': need recorded or recorded:KIB (KIB in 1..1048576)", v);
            o->work_kib = (size_t)kib;
        } else if (!strcmp(a, "--finalists")) {
            char *end;
            long k = strtol(v, &end, 10);
            if (*end || k < 0 || k > 64)
                rc = bad("--finalists '%s': need an integer in 0..64", v);
            o->finalists = (int)k;
        }
        if (rc)
            return rc;
        i += takes;
    }
    if (quick) {
        o->rel_ci = 0.10;
        if (!tpp_given)
            o->time_per_point = 0.3;
    }
    if (!budget_given) /* measuring: no cap unless asked */
        o->budget = *mix ? (quick ? 2 : 5) : 0;
    if (*mix) {
        if (!o->tree)
            return bad("--mix %s needs --tree TREE", *mix);
        if (o->profile || o->grid || o->out || o->methods || o->resume)
            return bad("--mix replays a profile through a tree: --profile, --grid, --methods "
                       "-o and --resume do not apply");
        o->profile = *mix;
    } else {
        if (o->tree)
            return bad("--tree is used with --mix PROFILE");
        if (o->work_kib)
            return bad("--work recorded is used with --mix PROFILE");
        if (!o->out)
            return bad("missing -o PERF.csv (the perf table to write)");
    }
    if (o->grid) { /* syntax check now; comm sizes again after MPI_Init */
        cs_replay_grid g;
        cs_err e;
        if (cs_replay_grid_parse(o->grid, 2, &g, &e) < 0)
            return bad("--grid '%s': %s", o->grid, e.msg);
        cs_replay_grid_free(&g);
    }
    return select_methods(o, colls_given) ? 2 : -1;
}

/* --resume: drop the points whose rows the perf table at o->out already has
 * (rank 0 reads it; every rank drops the same).  Returns 0, or 2 when the
 * table cannot be read. */
static int drop_measured(const cs_replay_opts *o, cs_points *pts)
{
    unsigned char *keep = malloc(pts->n + 1);
    int rc = 0;
    if (!keep)
        PMPI_Abort(MPI_COMM_WORLD, 1);
    memset(keep, 1, pts->n + 1);
    if (o->rank == 0 && access(o->out, F_OK) == 0) {
        cs_perf t;
        cs_err e = {{0}};
        cs_perf_init(&t);
        if (cs_perf_read(&t, o->out, &e) < 0) {
            fprintf(stderr, PROG ": --resume: %s\n", e.msg);
            rc = 2;
        }
        size_t had = 0;
        for (size_t i = 0; i < pts->n && rc == 0; i++)
            for (size_t r = 0; r < t.n && keep[i]; r++)
                if (t.rows[r].coll == pts->p[i].coll && t.rows[r].comm_size == pts->p[i].comm_size &&
                    t.rows[r].msg_bytes == pts->p[i].bytes)
                    keep[i] = 0, had++;
        if (rc == 0)
            fprintf(stderr, PROG ": --resume: %zu of %zu point(s) already measured in %s\n", had,
                    pts->n, o->out);
        cs_perf_free(&t);
        keep[pts->n] = (unsigned char)rc;
    }
    PMPI_Bcast(keep, (int)pts->n + 1, MPI_BYTE, 0, MPI_COMM_WORLD);
    rc = keep[pts->n] == 1 ? 0 : keep[pts->n];
    size_t n = 0;
    for (size_t i = 0; i < pts->n; i++)
        if (keep[i])
            pts->p[n++] = pts->p[i];
        else
            free(pts->p[i].late);
    pts->n = n;
    free(keep);
    return rc;
}

/* Rank 0 loads the profile and sends it to everybody (one message, one
 * error report).  Returns 0 or -1 (same on every rank). */
static int load_profile(const cs_replay_opts *o, cs_profile *p)
{
    cs_buf b = {0};
    cs_err e = {{0}};
    long long n = -1;
    if (o->rank == 0) {
        if (cs_profile_load(p, o->profile, &e) < 0)
            fprintf(stderr, PROG ": %s\n", e.msg);
        else if (cs_profile_serialize(p, &b) < 0 || b.oom)
            fprintf(stderr, PROG ": %s: out of memory\n", o->profile);
        else
            n = (long long)b.n;
    }
    PMPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (n < 0 || n > INT32_MAX) {
        cs_buf_free(&b);
        return -1;
    }
    if (o->rank != 0 && !(b.p = malloc(n ? (size_t)n : 1)))
        PMPI_Abort(MPI_COMM_WORLD, 1);
    PMPI_Bcast(b.p, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
    int rc = 0;
    if (o->rank != 0 && cs_profile_deserialize(p, b.p, (size_t)n, &e) < 0) {
        fprintf(stderr, PROG ": rank %d: %s\n", o->rank, e.msg);
        rc = -1;
    }
    cs_buf_free(&b);
    int all;
    PMPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

static int make_points(const cs_replay_opts *o, cs_points *pts)
{
    cs_err e = {{0}};
    cs_profile prof;
    cs_profile_init(&prof);
    int rc = 0;
    if (o->profile && (rc = load_profile(o, &prof)) == 0) {
        rc = cs_points_add_profile(pts, &prof, o->colls, &e);
        if (rc == 0 && pts->n == 0 && o->rank == 0)
            fprintf(stderr, PROG ": %s: no calls of the selected collectives recorded\n",
                    o->profile);
        rc = rc ? rc : pts->n == 0 ? -1 : 0;
    }
    cs_profile_free(&prof);
    if (rc == 0 && (o->grid || !o->profile)) {
        cs_replay_grid g;
        rc = cs_replay_grid_parse(o->grid ? o->grid : "ms=1:4M:x4", (uint32_t)o->size, &g, &e);
        if (rc == 0) {
            rc = cs_points_add_grid(pts, &g, o->colls, &e);
            cs_replay_grid_free(&g);
        }
        if (rc < 0 && o->rank == 0)
            fprintf(stderr, PROG ": --grid: %s\n", e.msg);
    }
    cs_points_merge(pts);
    return rc;
}

/* The arrival patterns: --arrivals as given, or, when the profile recorded
 * arrivals, "recorded,none" (measuring: the tree under the application's
 * pattern, and the balanced one to compare) or "recorded" (--mix).
 * "recorded" needs a profile with arrival data.  The same on every rank.
 * Returns 0 or 2. */
static int choose_patterns(cs_replay_opts *o, const cs_points *pts, int mix)
{
    cs_err e = {{0}};
    if (!o->arrivals && pts->arr) {
        o->arrivals = mix ? "recorded" : "recorded,none";
        cs_pattern_parse_list(o->arrivals, o->pats, CS_REPLAY_PATS, &o->npats, &e);
        if (o->rank == 0)
            fprintf(stderr, PROG ": %s recorded arrivals: %s under --arrivals %s (times: "
                            "completion)\n", o->profile, mix ? "replaying" : "measuring",
                    o->arrivals);
    }
    for (int k = 0; k < o->npats; k++)
        if (o->pats[k].kind == CS_PAT_RECORDED && !pts->arr) {
            if (o->rank == 0)
                fprintf(stderr, PROG ": --arrivals recorded: %s\n",
                        o->profile ? "the profile has no arrival data (recorded by an older "
                                     "collsel, or folded): use none, one-late:D or random:D"
                                   : "needs --profile (the cells' recorded arrivals)");
            return 2;
        }
    if (o->work_kib) {
        size_t known = 0;
        for (size_t i = 0; i < pts->n; i++)
            known += pts->p[i].gap_s >= 0;
        if (o->npats == 0) {
            if (o->rank == 0)
                fprintf(stderr, PROG ": --work recorded: needs arrivals (the profile has no "
                                "arrival data; give --arrivals to replay under a pattern)\n");
            return 2;
        }
        if (o->rank == 0)
            fprintf(stderr, PROG ": --work recorded: before each call the application's time "
                            "between calls (at most %.0f ms, over %zu KiB) at %zu of %zu "
                            "points%s\n", CS_REPLAY_WORK_MAX * 1e3, o->work_kib, known, pts->n,
                    known ? "" : " (not recorded: profile format 4 or older)");
    }
    return 0;
}

int main(int argc, char **argv)
{
    cs_replay_opts o = {.time_per_point = 2.0, .budget = 5.0, .rel_ci = 0.05, .rounds = 20,
                        .finalists = 4};
    for (int c = 0; c < CS_NCOLL; c++) /* every collective unless --colls/--methods */
        o.colls[c] = 1;
    const char *mix = NULL;
    int rc = parse_args(argc, argv, &o, &mix);
    if (rc >= 0) {
        for (int c = 0; c < CS_NCOLL; c++)
            free(o.sel[c]);
        return rc;
    }
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &o.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &o.size);
    cs_points pts = {0};
    cs_tree *tree = NULL;
    rc = make_points(&o, &pts) < 0 ? 2 : 0;
    if (rc == 0)
        rc = choose_patterns(&o, &pts, mix != NULL);
    if (rc == 0 && mix) {
        cs_err e = {{0}};
        int ok = cs_tree_read(&tree, o.tree, &e), all;
        if (ok < 0 && o.rank == 0)
            fprintf(stderr, PROG ": %s\n", e.msg);
        PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        rc = all < 0 ? 2 : 0;
    }
    if (rc == 0 && !mix && o.rank == 0) {
        cs_err e = {{0}};
        if (cs_check_writable_dir(o.out, &e) < 0) {
            fprintf(stderr, PROG ": -o %s: %s\n", o.out, e.msg);
            rc = 2;
        }
    }
    PMPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int nothing_left = 0;
    if (rc == 0 && !mix && o.resume) {
        rc = drop_measured(&o, &pts);
        nothing_left = rc == 0;
        for (size_t i = 0; i < pts.n; i++)
            nothing_left &= pts.p[i].comm_size > (uint32_t)o.size;
    }
    if (nothing_left) {
        if (o.rank == 0)
            fprintf(stderr, PROG ": every point is measured in %s: nothing left to do\n", o.out);
    } else if (rc == 0 && !mix) {
        size_t n = 0;
        for (size_t i = 0; i < pts.n; i++)
            n += pts.p[i].comm_size <= (uint32_t)o.size;
        if (o.budget > 0 && n > 0 && o.budget / n < o.time_per_point)
            o.time_per_point = o.budget / n;
        rc = cs_replay_measure(&o, &pts);
    } else if (rc == 0) {
        rc = cs_replay_mix(&o, &pts, tree);
    }
    if (tree)
        cs_tree_free(tree);
    cs_points_free(&pts);
    cs_replay_comms_free();
    for (int c = 0; c < CS_NCOLL; c++)
        free(o.sel[c]);
    MPI_Finalize();
    return rc;
}
