/* `collsel show PROFILE [--csv|--json] [--top N]`: the recorded collective
 * distribution as text (summary, hottest cells, call sites), as CSV (one row
 * per cell, metadata as "# key: value" lines) or as JSON.  Exit codes: 0 ok,
 * 1 output failed, 2 bad usage or a profile that cannot be read. */
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compare.h"
#include "profile.h"
#include "show_arr.h"
#include "show_explore.h"

int cs_cmd_show(int argc, char **argv);

enum { FMT_TEXT, FMT_CSV, FMT_JSON };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: collsel show PROFILE... [--csv|--json] [--top N]\n"
            "       collsel show --compare A B [--csv] [--top N]\n"
            "       collsel show --explored PROFILE... [--csv]\n\n"
            "Print the collective distribution recorded in PROFILE (COLLSEL_RECORD=PROFILE).\n"
            "PROFILE.partial.RANK files next to it (a run that did not reach MPI_Finalize:\n"
            "each rank's newest snapshot, see COLLSEL_RECORD_INTERVAL, or what it wrote when\n"
            "it ended) are merged in, the profile is marked INCOMPLETE and the time of each\n"
            "rank's data is shown (CSV: partial_rank_R_data_time, JSON: meta.partials).  Several\n"
            "PROFILEs (runs of one application) are merged into one and shown as one.\n\n"
            "  (default)  text: first how much of the collective time any method could\n"
            "             remove at most (its completion share, below); run metadata and\n"
            "             what the arrival figures are estimated from; per collective the\n"
            "             operations, total time, mean time per call, share of all\n"
            "             collective time, wait and completion shares; the hottest\n"
            "             (communicator size, message size) cells with their exact sizes\n"
            "             and root behaviour, then their wait and completion, the spread of\n"
            "             arrivals (mean, p50, p95), a rank's mean time before the call\n"
            "             (since it left its previous call on the communicator), the ranks\n"
            "             that arrive last most often and the call site with the most\n"
            "             wait; the call sites\n"
            "  --csv      one row per cell: collective,comm_size,bin_lo,bin_hi,exact_bytes,\n"
            "             ops,rank_calls,time_s,min_us,max_us,root_mode,root,wait_s,\n"
            "             completion_s,wait_share,spread_mean_us,spread_p50_us,spread_p95_us,\n"
            "             late_ranks,arrival_site,arrival_entries,exits_caused_wait_s,\n"
            "             exits_cause_wait_s,before_us (empty where not recorded);\n"
            "             metadata as leading '# key: value' lines.  exact_bytes lists\n"
            "             BYTES:RANK_CALLS pairs separated by ';' (plus other:RANK_CALLS for\n"
            "             sizes not kept); late_ranks RANK:SHARE pairs, the top 3\n"
            "  --json     one object: meta (with meta.arrivals), collectives, cells (with\n"
            "             exact sizes and arrivals), sites\n"
            "  --top N    cells and call sites listed in the text output (default 10)\n"
            "  --compare  two runs side by side (A native, B with a tree, say): per\n"
            "             collective and per hot cell the calls and times of both runs,\n"
            "             the ratio B/A of the times and of the time per call, and what\n"
            "             chose the methods in each run (its profile's selection).  CSV:\n"
            "             kind,collective,comm_size,bin_lo,bin_hi,rank_calls_a,\n"
            "             rank_calls_b,time_a_s,time_b_s,ratio,per_call_ratio,\n"
            "             completion_a_s,completion_b_s,completion_ratio: the completion\n"
            "             (what the methods change) of both runs, empty where not recorded\n"
            "  --explored the methods measured inside the application (a run recorded with\n"
            "             COLLSEL_EXPLORE=K and a tree: collsel exec --explore K --tree T\n"
            "             --record P): per point and method the rank calls, the mean time\n"
            "             per call with its 95 %% interval, the difference to native and\n"
            "             the ratio; --csv: the same as a perf table (arrivals column\n"
            "             'application') for collsel tune --perf\n"
            "  --help     this text\n\n"
            "Times are summed over ranks (time_s, total time); ops = rank_calls / comm_size.\n"
            "A profile folded to stay within its size bound (COLLSEL_RECORD_MAX_KIB) says so\n"
            "(text: 'folded', CSV: # fold_level, JSON: meta.fold_level): its cells cover\n"
            "wider message-size ranges (bin_hi), its counts and times are exact.\n\n"
            "Wait and completion: a rank's time in a collective is its wait, until the last\n"
            "rank arrives (min(last arrival, own exit) - own entry), plus its completion\n"
            "(from the last arrival to its exit).  No method can remove the wait.  They are\n"
            "measured on the calls matched across ranks (the first 32 calls of each\n"
            "communicator, then a sample chosen by call number, the same on every rank),\n"
            "on CLOCK_MONOTONIC with the nodes' offsets estimated at MPI_Init and\n"
            "MPI_Finalize, and applied to each cell's recorded time.  Profiles of format 2\n"
            "or older say 'not recorded'; what is estimated, and by how much, is said on\n"
            "the 'arrivals' lines.\n");
}

/* ---- shared helpers ---------------------------------------------------- */

const char *cs_show_fmt_time(char *buf, size_t len, double s)
{
    if (s < 1e-3)
        snprintf(buf, len, "%.1f us", s * 1e6);
    else if (s < 1)
        snprintf(buf, len, "%.2f ms", s * 1e3);
    else
        snprintf(buf, len, "%.3f s", s);
    return buf;
}

static const char *fmt_start(char *buf, size_t len, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (t <= 0 || !gmtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
        snprintf(buf, len, "unknown");
    return buf;
}

static const char *str_or(const char *s, const char *dflt)
{
    return s && *s ? s : dflt;
}

typedef struct summary {
    double ops, time;
    uint64_t rank_calls;
    int coll;
} summary;

static int sum_cmp(const void *a, const void *b)
{
    const summary *x = a, *y = b;
    if (x->time != y->time)
        return x->time > y->time ? -1 : 1;
    return x->coll - y->coll;
}

/* Per-collective totals, sorted by time; returns how many are non-empty. */
static int summarise(const cs_profile *p, summary s[CS_R_N], double *total)
{
    int n = 0;
    *total = 0;
    for (int c = 0; c < CS_R_N; c++)
        s[c] = (summary){0, 0, 0, c};
    for (size_t i = 0; i < p->ncells; i++) {
        const cs_cell *c = &p->cells[i];
        s[c->coll].ops += cs_cell_ops(c);
        s[c->coll].time += c->t_total;
        s[c->coll].rank_calls += c->rank_calls;
        *total += c->t_total;
    }
    qsort(s, CS_R_N, sizeof *s, sum_cmp);
    for (int c = 0; c < CS_R_N; c++)
        n += s[c].rank_calls > 0;
    /* sort put zero-time entries last, but one with calls and no time may
     * sit behind empty ones: compact */
    int k = 0;
    for (int c = 0; c < CS_R_N; c++)
        if (s[c].rank_calls > 0)
            s[k++] = s[c];
    return n;
}

static const cs_profile *hot_p;

static int hot_cmp(const void *a, const void *b)
{
    const cs_cell *x = &hot_p->cells[*(const size_t *)a], *y = &hot_p->cells[*(const size_t *)b];
    if (x->t_total != y->t_total)
        return x->t_total > y->t_total ? -1 : 1;
    return cs_cell_key_cmp(x, y);
}

static double share(double t, double total)
{
    return total > 0 ? 100.0 * t / total : 0;
}

/* ---- text -------------------------------------------------------------- */

static void text_status(FILE *f, const cs_profile *p)
{
    if (p->complete && !p->npartial)
        fprintf(f, "status      complete\n");
    else if (p->npartial)
        fprintf(f, "status      INCOMPLETE: merged %u partial file%s, the run did not reach "
                   "MPI_Finalize\n", p->npartial, p->npartial == 1 ? "" : "s");
    else
        fprintf(f, "status      INCOMPLETE: the run did not reach MPI_Finalize\n");
}

/* An age to the second (the data's time is known to about a second). */
static const char *fmt_age(char *buf, size_t len, double s)
{
    long t = s > 0 ? (long)(s + 0.5) : 0;
    if (t < 1)
        snprintf(buf, len, "under 1 s");
    else if (t < 120)
        snprintf(buf, len, "%ld s", t);
    else if (t < 7200)
        snprintf(buf, len, "%ld min", (t + 30) / 60);
    else if (t < 172800)
        snprintf(buf, len, "%ld h", (t + 1800) / 3600);
    else
        snprintf(buf, len, "%ld days", (t + 43200) / 86400);
    return buf;
}

/* How old each rank's data is (partial files: its last snapshot, or what
 * it wrote when it ended); many ranks: the oldest and the newest. */
static void text_partials(FILE *f, const cs_profile *p)
{
    double now = (double)time(NULL);
    char a[64], b[64];
    const cs_partial_info *old = NULL, *young = NULL;
    for (uint32_t i = 0; i < p->npartial; i++) {
        const cs_partial_info *q = &p->partials[i];
        if (!old || q->data_time < old->data_time)
            old = q;
        if (!young || q->data_time > young->data_time)
            young = q;
        if (p->npartial <= 16)
            fprintf(f, "%-11s rank %d: data as of %s, %s old\n", i ? "" : "rank data", q->rank,
                    fmt_start(a, sizeof a, (int64_t)q->data_time),
                    fmt_age(b, sizeof b, now - q->data_time));
    }
    if (p->npartial > 16)
        fprintf(f, "rank data   %u ranks; oldest: rank %d, as of %s; newest: rank %d, %s later\n",
                p->npartial, old->rank, fmt_start(a, sizeof a, (int64_t)old->data_time),
                young->rank, fmt_age(b, sizeof b, young->data_time - old->data_time));
}

static void text_cell_sizes(FILE *f, const cs_cell *c)
{
    for (uint32_t k = 0; k < c->nsizes; k++)
        fprintf(f, "%s%llu B x%g", k ? ", " : "", (unsigned long long)c->sizes[k].bytes,
                (double)c->sizes[k].rank_calls / c->comm_size);
    if (c->other_size_calls)
        fprintf(f, "%sother x%g", c->nsizes ? ", " : "",
                (double)c->other_size_calls / c->comm_size);
}

static void text_root(char *buf, size_t len, const cs_cell *c)
{
    switch (c->root_mode) {
    case CS_ROOT_ZERO: snprintf(buf, len, "0"); break;
    case CS_ROOT_FIXED: snprintf(buf, len, "fixed %d", c->root); break;
    case CS_ROOT_VARYING: snprintf(buf, len, "varying"); break;
    default: snprintf(buf, len, "-"); break;
    }
}

/* Jobs started by MPI_Comm_spawn record next to their parent's profile,
 * into PATH.spawn.PID (the shim): name them. */
static void text_spawned(FILE *f, const char *path)
{
    char pattern[4200];
    glob_t g;
    if (snprintf(pattern, sizeof pattern, "%s.spawn.*", path) >= (int)sizeof pattern ||
        glob(pattern, GLOB_NOESCAPE, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc; i++)
        if (!strstr(g.gl_pathv[i] + strlen(path), ".partial."))
            fprintf(f, "spawned     %s (a job it started: collsel show it)\n", g.gl_pathv[i]);
    globfree(&g);
}

static void show_text(FILE *f, const char *path, const cs_profile *p, size_t top)
{
    const cs_meta *m = &p->meta;
    char a[64], b[64], t[64];
    cs_show_arr_headline(f, p);
    fprintf(f, "\nprofile     %s\n", path);
    text_status(f, p);
    text_partials(f, p);
    cs_show_arr_quality(f, p);
    if (p->fold)
        fprintf(f, "folded      level %u: %s; %llu cells merged into coarser ones to keep the "
                   "file within its bound (COLLSEL_RECORD_MAX_KIB); calls and times are exact\n",
                p->fold, cs_fold_describe(p->fold), (unsigned long long)p->folded_cells);
    fprintf(f, "MPI         %s\n", str_or(m->mpi_library, "unknown"));
    fprintf(f, "command     %s\n", str_or(m->cmdline, "unknown"));
    if (m->world_size)
        fprintf(f, "ranks       %u (%u node%s x %u ranks per node), %u recorded\n", m->world_size,
                m->nnodes, m->nnodes == 1 ? "" : "s", m->ranks_per_node, p->nranks);
    else
        fprintf(f, "ranks       unknown, %u recorded\n", p->nranks);
    fprintf(f, "host        %s (rank 0)\n", str_or(m->hostname0, "unknown"));
    if (m->selection && *m->selection)
        fprintf(f, "selection   %s\n", m->selection);
    fprintf(f, "start       %s\n", fmt_start(a, sizeof a, m->start_time));
    fprintf(f, "duration    %s\n", cs_show_fmt_time(a, sizeof a, m->duration));
    text_spawned(f, path);

    summary s[CS_R_N];
    double total;
    int n = summarise(p, s, &total);
    cs_arr_sum as;
    fprintf(f, "\n%-22s %12s %12s %12s %12s %7s %7s %7s\n", "collective", "operations",
            "rank calls", "total time", "mean/call", "share", "wait", "compl");
    for (int i = 0; i < n; i++) {
        fprintf(f, "%-22s %12.10g %12llu %12s %12s %6.1f%%", cs_rcoll_name(s[i].coll), s[i].ops,
                (unsigned long long)s[i].rank_calls, cs_show_fmt_time(a, sizeof a, s[i].time),
                cs_show_fmt_time(b, sizeof b, s[i].time / (double)s[i].rank_calls),
                share(s[i].time, total));
        cs_arr_sum_of(p, s[i].coll, &as);
        cs_show_arr_shares(f, &as);
        fputc('\n', f);
    }
    if (n == 0)
        fprintf(f, "(no collective calls recorded)\n");
    fprintf(f, "%-22s %12s %12s %12s %12s %7s", "all", "", "", cs_show_fmt_time(a, sizeof a, total), "",
            "");
    cs_arr_sum_of(p, -1, &as);
    cs_show_arr_shares(f, &as);
    fputc('\n', f);

    size_t *idx = malloc((p->ncells ? p->ncells : 1) * sizeof *idx);
    if (idx && p->ncells) {
        for (size_t i = 0; i < p->ncells; i++)
            idx[i] = i;
        hot_p = p;
        qsort(idx, p->ncells, sizeof *idx, hot_cmp);
        size_t k = p->ncells < top ? p->ncells : top;
        fprintf(f, "\nhottest cells (%zu of %zu)\n%-22s %6s %-24s %10s %12s %7s %-10s %s\n", k,
                p->ncells, "collective", "comm", "message size", "operations", "time", "share",
                "root", "exact sizes (bytes x operations)");
        for (size_t i = 0; i < k; i++) {
            const cs_cell *c = &p->cells[idx[i]];
            char range[80], r[32];
            cs_bin_range(range, sizeof range, (int)c->bin, p->fold);
            text_root(r, sizeof r, c);
            fprintf(f, "%-22s %6u %-24s %10.10g %12s %6.1f%% %-10s ", cs_rcoll_name((int)c->coll),
                    c->comm_size, range, cs_cell_ops(c), cs_show_fmt_time(t, sizeof t, c->t_total),
                    share(c->t_total, total), r);
            text_cell_sizes(f, c);
            fputc('\n', f);
        }
        cs_show_arr_cells(f, p, idx, k);
    }
    free(idx);

    if (p->nsites) {
        size_t k = p->nsites < top ? p->nsites : top;
        fprintf(f, "\ncall sites (%zu of %zu)\n%-22s %12s %12s %7s  %s\n", k, p->nsites,
                "collective", "rank calls", "time", "share", "where");
        for (size_t i = 0; i < k; i++) {
            const cs_site *c = &p->sites[i];
            fprintf(f, "%-22s %12llu %12s %6.1f%%  %s\n", cs_rcoll_name((int)c->coll),
                    (unsigned long long)c->rank_calls, cs_show_fmt_time(a, sizeof a, c->t_total),
                    share(c->t_total, total), c->where);
        }
    }
}

/* ---- CSV --------------------------------------------------------------- */

static void csv_meta_str(FILE *f, const char *key, const char *v)
{
    fprintf(f, "# %s: ", key);
    for (const char *s = str_or(v, ""); *s; s++)
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
    fputc('\n', f);
}

static void show_csv(FILE *f, const char *path, const cs_profile *p)
{
    const cs_meta *m = &p->meta;
    char a[64];
    csv_meta_str(f, "profile", path);
    fprintf(f, "# complete: %u\n# partial_files: %u\n", p->complete && !p->npartial, p->npartial);
    for (uint32_t i = 0; i < p->npartial; i++)
        fprintf(f, "# partial_rank_%d_data_time: %.3f\n", p->partials[i].rank,
                p->partials[i].data_time);
    if (p->fold)
        fprintf(f, "# fold_level: %u (%s)\n# folded_cells: %llu\n", p->fold,
                cs_fold_describe(p->fold), (unsigned long long)p->folded_cells);
    csv_meta_str(f, "mpi_library", m->mpi_library);
    csv_meta_str(f, "command", m->cmdline);
    csv_meta_str(f, "host0", m->hostname0);
    if (m->selection && *m->selection)
        csv_meta_str(f, "selection", m->selection);
    fprintf(f, "# world_size: %u\n# nodes: %u\n# ranks_per_node: %u\n# ranks_recorded: %u\n",
            m->world_size, m->nnodes, m->ranks_per_node, p->nranks);
    fprintf(f, "# start_time: %lld (%s)\n# duration_s: %.6f\n", (long long)m->start_time,
            fmt_start(a, sizeof a, m->start_time), m->duration);
    cs_show_arr_csv_meta(f, p);
    fprintf(f, "collective,comm_size,bin_lo,bin_hi,exact_bytes,ops,rank_calls,time_s,min_us,"
               "max_us,root_mode,root%s\n", cs_show_arr_csv_header);
    for (size_t i = 0; i < p->ncells; i++) {
        const cs_cell *c = &p->cells[i];
        fprintf(f, "%s,%u,%llu,%llu,", cs_rcoll_name((int)c->coll), c->comm_size,
                (unsigned long long)cs_bin_lo((int)c->bin),
                (unsigned long long)cs_fold_bin_hi(c->bin, p->fold));
        for (uint32_t k = 0; k < c->nsizes; k++)
            fprintf(f, "%s%llu:%llu", k ? ";" : "", (unsigned long long)c->sizes[k].bytes,
                    (unsigned long long)c->sizes[k].rank_calls);
        if (c->other_size_calls)
            fprintf(f, "%sother:%llu", c->nsizes ? ";" : "", (unsigned long long)c->other_size_calls);
        fprintf(f, ",%.10g,%llu,%.9g,%.3f,%.3f,%s,", cs_cell_ops(c),
                (unsigned long long)c->rank_calls, c->t_total, c->t_min * 1e6, c->t_max * 1e6,
                cs_root_mode_name((int)c->root_mode));
        if (c->root_mode != CS_ROOT_NONE)
            fprintf(f, "%d", c->root);
        cs_show_arr_csv_cell(f, p, c);
        fputc('\n', f);
    }
}

/* ---- JSON -------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s, 0 if invalid. */
static int utf8_len(const unsigned char *s)
{
    int n = s[0] >= 0xf0 && s[0] <= 0xf4   ? 4
            : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
            : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
                                          : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

void cs_json_str(FILE *f, const char *v)
{
    const unsigned char *s = (const unsigned char *)(v ? v : "");
    fputc('"', f);
    while (*s) {
        int n;
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s++);
        else if (*s < 0x20 || *s == 0x7f)
            fprintf(f, "\\u%04x", *s++);
        else if (*s < 0x80)
            fputc(*s++, f);
        else if ((n = utf8_len(s)) > 0)
            fwrite(s, 1, (size_t)n, f), s += n;
        else
            fputs("\\ufffd", f), s++;
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

static void json_kv_str(FILE *f, const char *k, const char *v, const char *sep)
{
    fprintf(f, "\"%s\": ", k);
    cs_json_str(f, v);
    fputs(sep, f);
}

static void json_kv_num(FILE *f, const char *k, double v, const char *sep)
{
    fprintf(f, "\"%s\": ", k);
    json_num(f, v);
    fputs(sep, f);
}

static void show_json(FILE *f, const char *path, const cs_profile *p)
{
    const cs_meta *m = &p->meta;
    char a[64];
    fputs("{\n  \"profile\": ", f);
    cs_json_str(f, path);
    fputs(",\n  \"meta\": {", f);
    json_kv_str(f, "mpi_library", m->mpi_library, ", ");
    json_kv_str(f, "command", m->cmdline, ", ");
    json_kv_str(f, "host0", m->hostname0, ", ");
    if (m->selection && *m->selection)
        json_kv_str(f, "selection", m->selection, ", ");
    fprintf(f, "\"world_size\": %u, \"nodes\": %u, \"ranks_per_node\": %u, \"ranks_recorded\": %u, "
               "\"start_time\": %lld, ", m->world_size, m->nnodes, m->ranks_per_node, p->nranks,
            (long long)m->start_time);
    json_kv_str(f, "start_time_utc", fmt_start(a, sizeof a, m->start_time), ", ");
    json_kv_num(f, "duration_s", m->duration, ", ");
    fprintf(f, "\"complete\": %s, \"partial_files\": %u, \"partials\": [",
            p->complete && !p->npartial ? "true" : "false", p->npartial);
    for (uint32_t i = 0; i < p->npartial; i++) {
        fprintf(f, "%s{\"rank\": %d, ", i ? ", " : "", p->partials[i].rank);
        json_kv_num(f, "data_time", p->partials[i].data_time, "}");
    }
    fprintf(f, "], \"fold_level\": %u, \"folded_cells\": %llu", p->fold,
            (unsigned long long)p->folded_cells);
    cs_show_arr_json_meta(f, p);
    fputs("},\n  \"collectives\": [", f);
    summary s[CS_R_N];
    double total;
    int n = summarise(p, s, &total);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s\n    {\"collective\": \"%s\", ", i ? "," : "", cs_rcoll_name(s[i].coll));
        json_kv_num(f, "operations", s[i].ops, ", ");
        fprintf(f, "\"rank_calls\": %llu, ", (unsigned long long)s[i].rank_calls);
        json_kv_num(f, "time_s", s[i].time, ", ");
        json_kv_num(f, "mean_us", 1e6 * s[i].time / (double)s[i].rank_calls, ", ");
        json_kv_num(f, "share", share(s[i].time, total) / 100, "");
        cs_arr_sum as;
        cs_arr_sum_of(p, s[i].coll, &as);
        cs_show_arr_json_sum(f, &as);
        fputc('}', f);
    }
    fputs("\n  ],\n  \"cells\": [", f);
    for (size_t i = 0; i < p->ncells; i++) {
        const cs_cell *c = &p->cells[i];
        fprintf(f, "%s\n    {\"collective\": \"%s\", \"comm_size\": %u, \"bin_lo\": %llu, "
                   "\"bin_hi\": %llu, ", i ? "," : "", cs_rcoll_name((int)c->coll), c->comm_size,
                (unsigned long long)cs_bin_lo((int)c->bin),
                (unsigned long long)cs_fold_bin_hi(c->bin, p->fold));
        json_kv_num(f, "operations", cs_cell_ops(c), ", ");
        fprintf(f, "\"rank_calls\": %llu, ", (unsigned long long)c->rank_calls);
        json_kv_num(f, "time_s", c->t_total, ", ");
        json_kv_num(f, "min_us", c->t_min * 1e6, ", ");
        json_kv_num(f, "max_us", c->t_max * 1e6, ", ");
        fprintf(f, "\"root_mode\": \"%s\", \"root\": ", cs_root_mode_name((int)c->root_mode));
        if (c->root_mode == CS_ROOT_NONE)
            fputs("null", f);
        else
            fprintf(f, "%d", c->root);
        fputs(", \"sizes\": [", f);
        for (uint32_t k = 0; k < c->nsizes; k++)
            fprintf(f, "%s{\"bytes\": %llu, \"rank_calls\": %llu}", k ? ", " : "",
                    (unsigned long long)c->sizes[k].bytes, (unsigned long long)c->sizes[k].rank_calls);
        fprintf(f, "], \"other_size_calls\": %llu", (unsigned long long)c->other_size_calls);
        cs_show_arr_json_cell(f, p, c);
        fputc('}', f);
    }
    fputs("\n  ],\n  \"sites\": [", f);
    for (size_t i = 0; i < p->nsites; i++) {
        const cs_site *c = &p->sites[i];
        fprintf(f, "%s\n    {\"collective\": \"%s\", ", i ? "," : "", cs_rcoll_name((int)c->coll));
        json_kv_str(f, "where", c->where, ", ");
        fprintf(f, "\"rank_calls\": %llu, ", (unsigned long long)c->rank_calls);
        json_kv_num(f, "time_s", c->t_total, "}");
    }
    fputs("\n  ]\n}\n", f);
}

int cs_cmd_show(int argc, char **argv)
{
    const char *paths[64];
    int npaths = 0, compare = 0, explored = 0;
    int fmt = FMT_TEXT;
    size_t top = 10;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--csv") || !strcmp(argv[i], "--json")) {
            int f = argv[i][2] == 'c' ? FMT_CSV : FMT_JSON;
            if (fmt != FMT_TEXT && fmt != f) {
                fprintf(stderr, "collsel show: --csv and --json exclude each other\n");
                return 2;
            }
            fmt = f;
        } else if (!strcmp(argv[i], "--top")) {
            char *end;
            long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : -1;
            if (v < 1 || *end) {
                fprintf(stderr, "collsel show: --top needs a positive integer, got '%s'\n",
                        i + 1 < argc ? argv[i + 1] : "");
                return 2;
            }
            top = (size_t)v;
            i++;
        } else if (!strcmp(argv[i], "--compare")) {
            compare = 1;
        } else if (!strcmp(argv[i], "--explored")) {
            explored = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "collsel show: unknown option '%s' (collsel show --help)\n", argv[i]);
            return 2;
        } else if (npaths == (int)(sizeof paths / sizeof paths[0])) {
            fprintf(stderr, "collsel show: at most %zu profiles\n", sizeof paths / sizeof paths[0]);
            return 2;
        } else {
            paths[npaths++] = argv[i];
        }
    }
    if (npaths == 0 || !*paths[0]) {
        fprintf(stderr, "collsel show: missing PROFILE (collsel show --help)\n");
        return 2;
    }
    if (compare && (npaths != 2 || fmt == FMT_JSON)) {
        fprintf(stderr, "collsel show: --compare takes two profiles, A and B (text or --csv)\n");
        return 2;
    }
    if (explored && (compare || fmt == FMT_JSON)) {
        fprintf(stderr, "collsel show: --explored is text or --csv (not --json, not --compare)\n");
        return 2;
    }
    const char *path = paths[0];
    char label[4096];
    cs_profile p, q;
    cs_err e;
    if (cs_profile_load(&p, path, &e) < 0) {
        fprintf(stderr, "collsel show: %s\n", e.msg);
        return 2;
    }
    for (int k = 1; k < npaths; k++) {
        if (cs_profile_load(&q, paths[k], &e) < 0) {
            fprintf(stderr, "collsel show: %s\n", e.msg);
            cs_profile_free(&p);
            return 2;
        }
        if (compare) {
            int rc = cs_show_compare(stdout, path, &p, paths[k], &q, top, fmt == FMT_CSV);
            cs_profile_free(&q);
            cs_profile_free(&p);
            if (rc < 0)
                fprintf(stderr, "collsel show: out of memory\n");
            return rc < 0 || fflush(stdout) != 0 || ferror(stdout) ? 1 : 0;
        }
        int rc = cs_profile_merge(&p, &q);
        cs_profile_free(&q);
        if (rc < 0) {
            fprintf(stderr, "collsel show: out of memory merging %s\n", paths[k]);
            cs_profile_free(&p);
            return 1;
        }
    }
    if (npaths > 1) { /* the merged runs, named together */
        size_t o = (size_t)snprintf(label, sizeof label, "%s", paths[0]);
        for (int k = 1; k < npaths && o < sizeof label; k++)
            o += (size_t)snprintf(label + o, sizeof label - o, " + %s", paths[k]);
        path = label;
    }
    if (explored) {
        int rc = cs_show_explored(stdout, path, &p, fmt == FMT_CSV);
        cs_profile_free(&p);
        return rc < 0 ? 2 : fflush(stdout) != 0 || ferror(stdout) ? 1 : 0;
    }
    if (fmt == FMT_CSV)
        show_csv(stdout, path, &p);
    else if (fmt == FMT_JSON)
        show_json(stdout, path, &p);
    else
        show_text(stdout, path, &p, top);
    cs_profile_free(&p);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "collsel show: cannot write the output\n");
        return 1;
    }
    return 0;
}
