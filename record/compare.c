/* `collsel show --compare A B`: two runs of one application side by side
 * (A native, B tuned, typically): per collective and per hot cell (the
 * cells with the most time in either run), the calls and the time of each
 * run and the ratio B/A of the times (and of the time per call, which does
 * not depend on how many calls each run made).  The times are the
 * application's own, measured in the run (summed over ranks).  Each
 * profile's selection (the tree or forced methods active in its run) is
 * named.  The completion (record/arrivals.h: from the last arrival on,
 * what the methods change) of both runs and its ratio, where both
 * recorded arrivals.  Text, or CSV: kind,collective,comm_size,bin_lo,
 * bin_hi,rank_calls_a,rank_calls_b,time_a_s,time_b_s,ratio,per_call_ratio,
 * completion_a_s,completion_b_s,completion_ratio. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

typedef struct pair {
    int coll;
    uint32_t comm_size, bin;
    uint64_t calls[2];
    double time[2];
    double compl[2], covered[2]; /* completion, and the time it was measured on */
} pair;

static double ratio(double b, double a) { return a > 0 ? b / a : 0; }

static double per_call_ratio(const pair *p)
{
    if (!p->calls[0] || !p->calls[1] || !(p->time[0] > 0))
        return 0;
    return (p->time[1] / (double)p->calls[1]) / (p->time[0] / (double)p->calls[0]);
}

static int pair_cmp(const void *x, const void *y)
{
    const pair *a = x, *b = y;
    double ta = a->time[0] > a->time[1] ? a->time[0] : a->time[1];
    double tb = b->time[0] > b->time[1] ? b->time[0] : b->time[1];
    return ta != tb ? (ta > tb ? -1 : 1) : 0;
}

/* The cells of both profiles, matched by (collective, comm size, bin). */
static pair *match_cells(const cs_profile *a, const cs_profile *b, size_t *n)
{
    pair *v = calloc(a->ncells + b->ncells + 1, sizeof *v);
    size_t k = 0;
    if (!v)
        return NULL;
    const cs_profile *ps[2] = {a, b};
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < ps[s]->ncells; i++) {
            const cs_cell *c = &ps[s]->cells[i];
            size_t j = 0;
            while (j < k && !(v[j].coll == (int)c->coll && v[j].comm_size == c->comm_size &&
                              v[j].bin == c->bin))
                j++;
            if (j == k)
                v[k++] = (pair){(int)c->coll, c->comm_size, c->bin, {0, 0}, {0, 0}, {0, 0},
                                {0, 0}};
            v[j].calls[s] += c->rank_calls;
            v[j].time[s] += c->t_total;
            double w, cp;
            if (cs_arr_split(ps[s], c, &w, &cp) == 0) {
                v[j].compl[s] += cp;
                v[j].covered[s] += c->t_total;
            }
        }
    *n = k;
    return v;
}

static const char *sel(const cs_profile *p)
{
    return p->meta.selection && *p->meta.selection ? p->meta.selection : "native";
}

/* Completion known in both runs (measured on nearly all of their time)? */
static int have_compl(const pair *p)
{
    return p->covered[0] > 0 && p->covered[1] > 0 && p->covered[0] >= 0.999 * p->time[0] &&
           p->covered[1] >= 0.999 * p->time[1];
}

static void row(FILE *f, int csv, const char *kind, const pair *p, const char *what)
{
    char t0[32], t1[32];
    if (csv) {
        if (p->coll < 0) /* all */
            fprintf(f, "%s,,,,", kind);
        else
            fprintf(f, "%s,%s,%u,%llu,%llu", kind, cs_rcoll_name(p->coll), p->comm_size,
                    p->comm_size ? (unsigned long long)cs_bin_lo((int)p->bin) : 0ull,
                    p->comm_size ? (unsigned long long)cs_bin_hi((int)p->bin) : 0ull);
        fprintf(f, ",%llu,%llu,%.9g,%.9g,%.4f,%.4f", (unsigned long long)p->calls[0], (unsigned long long)p->calls[1], p->time[0],
                p->time[1], ratio(p->time[1], p->time[0]), per_call_ratio(p));
        if (have_compl(p))
            fprintf(f, ",%.9g,%.9g,%.4f\n", p->compl[0], p->compl[1],
                    ratio(p->compl[1], p->compl[0]));
        else
            fputs(",,,\n", f);
        return;
    }
    snprintf(t0, sizeof t0, "%.3f ms", p->time[0] * 1e3);
    snprintf(t1, sizeof t1, "%.3f ms", p->time[1] * 1e3);
    fprintf(f, "%-34s %11llu %11llu %13s %13s", what, (unsigned long long)p->calls[0],
            (unsigned long long)p->calls[1], t0, t1);
    if (p->time[0] > 0 && p->time[1] > 0)
        fprintf(f, " %7.3f %9.3f", ratio(p->time[1], p->time[0]), per_call_ratio(p));
    else
        fprintf(f, " %7s %9s", p->time[0] > 0 ? "gone" : "new", "-");
    if (have_compl(p)) {
        snprintf(t0, sizeof t0, "%.3f ms", p->compl[0] * 1e3);
        snprintf(t1, sizeof t1, "%.3f ms", p->compl[1] * 1e3);
        fprintf(f, " %13s %13s %7.3f\n", t0, t1, ratio(p->compl[1], p->compl[0]));
    } else {
        fprintf(f, " %13s %13s %7s\n", "-", "-", "-");
    }
}

int cs_show_compare(FILE *f, const char *pa, const cs_profile *a, const char *pb,
                    const cs_profile *b, size_t top, int csv)
{
    size_t n;
    pair *cells = match_cells(a, b, &n);
    if (!cells)
        return -1;
    pair coll[CS_R_N], all;
    memset(&all, 0, sizeof all);
    all.coll = -1;
    for (int c = 0; c < CS_R_N; c++) {
        memset(&coll[c], 0, sizeof coll[c]);
        coll[c].coll = c;
    }
    for (size_t i = 0; i < n; i++)
        for (int s = 0; s < 2; s++) {
            pair *to[2] = {&coll[cells[i].coll], &all};
            for (int t = 0; t < 2; t++) {
                to[t]->calls[s] += cells[i].calls[s];
                to[t]->time[s] += cells[i].time[s];
                to[t]->compl[s] += cells[i].compl[s];
                to[t]->covered[s] += cells[i].covered[s];
            }
        }
    qsort(cells, n, sizeof *cells, pair_cmp);
    qsort(coll, CS_R_N, sizeof *coll, pair_cmp);
    if (csv) {
        fprintf(f, "# a: %s (%s)\n# b: %s (%s)\n", pa, sel(a), pb, sel(b));
        fprintf(f, "kind,collective,comm_size,bin_lo,bin_hi,rank_calls_a,rank_calls_b,time_a_s,"
                   "time_b_s,ratio,per_call_ratio,completion_a_s,completion_b_s,"
                   "completion_ratio\n");
    } else {
        fprintf(f, "A  %s: %u ranks, %.3f s run, selection: %s\n", pa, a->nranks,
                a->meta.duration, sel(a));
        fprintf(f, "B  %s: %u ranks, %.3f s run, selection: %s\n", pb, b->nranks,
                b->meta.duration, sel(b));
        if (a->nranks != b->nranks)
            fprintf(f, "(the runs have different numbers of ranks: times are summed over ranks)\n");
        if (!cs_arr_recorded(a) || !cs_arr_recorded(b))
            fprintf(f, "(completion: %s recorded no arrivals)\n",
                    !cs_arr_recorded(a) && !cs_arr_recorded(b) ? "neither run"
                    : !cs_arr_recorded(a)                      ? "run A"
                                                               : "run B");
        fprintf(f, "\n%-34s %11s %11s %13s %13s %7s %9s %13s %13s %7s\n", "collective",
                "calls A", "calls B", "time A", "time B", "B/A", "per call", "completion A",
                "completion B", "B/A");
    }
    for (int c = 0; c < CS_R_N && (coll[c].time[0] > 0 || coll[c].time[1] > 0); c++)
        row(f, csv, "collective", &coll[c], cs_rcoll_name(coll[c].coll));
    if (!csv) {
        row(f, csv, "all", &all, "all");
        fprintf(f, "\nhottest cells (%zu of %zu, by the larger time of the two runs)\n%-34s %11s "
                   "%11s %13s %13s %7s %9s %13s %13s %7s\n",
                n < top ? n : top, n, "collective  comm  message size", "calls A", "calls B",
                "time A", "time B", "B/A", "per call", "completion A", "completion B", "B/A");
    }
    for (size_t i = 0; i < n && (csv || i < top); i++) {
        char what[128], range[80];
        snprintf(what, sizeof what, "%-11s %4u  %s", cs_rcoll_name(cells[i].coll),
                 cells[i].comm_size, cs_bin_range(range, sizeof range, (int)cells[i].bin,
                                              a->fold > b->fold ? a->fold : b->fold));
        row(f, csv, "cell", &cells[i], what);
    }
    if (csv)
        row(f, csv, "all", &all, "all");
    free(cells);
    return 0;
}
