/* `collsel show --compare A B`: two runs of one application side by side
 * (A native, B tuned, typically): per collective and per hot cell (the
 * cells with the most time in either run), the calls and the time of each
 * run and the ratio B/A of the times (and of the time per call, which does
 * not depend on how many calls each run made).  The times are the
 * application's own, measured in the run (summed over ranks).  Each
 * profile's selection (the tree or forced methods active in its run) is
 * named.  Text, or CSV: kind,collective,comm_size,bin_lo,bin_hi,
 * rank_calls_a,rank_calls_b,time_a_s,time_b_s,ratio,per_call_ratio. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

typedef struct pair {
    int coll;
    uint32_t comm_size, bin;
    uint64_t calls[2];
    double time[2];
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
                v[k++] = (pair){(int)c->coll, c->comm_size, c->bin, {0, 0}, {0, 0}};
            v[j].calls[s] += c->rank_calls;
            v[j].time[s] += c->t_total;
        }
    *n = k;
    return v;
}

static const char *sel(const cs_profile *p)
{
    return p->meta.selection && *p->meta.selection ? p->meta.selection : "native";
}

static void row(FILE *f, int csv, const char *kind, const pair *p, const char *what)
{
    char t0[32], t1[32];
    if (csv) {
        fprintf(f, "%s,%s,%u,%llu,%llu,%llu,%llu,%.9g,%.9g,%.4f,%.4f\n", kind,
                cs_rcoll_name(p->coll), p->comm_size,
                p->comm_size ? (unsigned long long)cs_bin_lo((int)p->bin) : 0ull,
                p->comm_size ? (unsigned long long)cs_bin_hi((int)p->bin) : 0ull,
                (unsigned long long)p->calls[0], (unsigned long long)p->calls[1], p->time[0],
                p->time[1], ratio(p->time[1], p->time[0]), per_call_ratio(p));
        return;
    }
    snprintf(t0, sizeof t0, "%.3f ms", p->time[0] * 1e3);
    snprintf(t1, sizeof t1, "%.3f ms", p->time[1] * 1e3);
    fprintf(f, "%-34s %11llu %11llu %13s %13s", what, (unsigned long long)p->calls[0],
            (unsigned long long)p->calls[1], t0, t1);
    if (p->time[0] > 0 && p->time[1] > 0)
        fprintf(f, " %7.3f %9.3f\n", ratio(p->time[1], p->time[0]), per_call_ratio(p));
    else
        fprintf(f, " %7s %9s\n", p->time[0] > 0 ? "gone" : "new", "-");
}

int cs_show_compare(FILE *f, const char *pa, const cs_profile *a, const char *pb,
                    const cs_profile *b, size_t top, int csv)
{
    size_t n;
    pair *cells = match_cells(a, b, &n);
    if (!cells)
        return -1;
    pair coll[CS_R_N], all = {0, 0, 0, {0, 0}, {0, 0}};
    for (int c = 0; c < CS_R_N; c++)
        coll[c] = (pair){c, 0, 0, {0, 0}, {0, 0}};
    for (size_t i = 0; i < n; i++)
        for (int s = 0; s < 2; s++) {
            coll[cells[i].coll].calls[s] += cells[i].calls[s];
            coll[cells[i].coll].time[s] += cells[i].time[s];
            all.calls[s] += cells[i].calls[s];
            all.time[s] += cells[i].time[s];
        }
    qsort(cells, n, sizeof *cells, pair_cmp);
    qsort(coll, CS_R_N, sizeof *coll, pair_cmp);
    if (csv) {
        fprintf(f, "# a: %s (%s)\n# b: %s (%s)\n", pa, sel(a), pb, sel(b));
        fprintf(f, "kind,collective,comm_size,bin_lo,bin_hi,rank_calls_a,rank_calls_b,time_a_s,"
                   "time_b_s,ratio,per_call_ratio\n");
    } else {
        fprintf(f, "A  %s: %u ranks, %.3f s run, selection: %s\n", pa, a->nranks,
                a->meta.duration, sel(a));
        fprintf(f, "B  %s: %u ranks, %.3f s run, selection: %s\n", pb, b->nranks,
                b->meta.duration, sel(b));
        if (a->nranks != b->nranks)
            fprintf(f, "(the runs have different numbers of ranks: times are summed over ranks)\n");
        fprintf(f, "\n%-34s %11s %11s %13s %13s %7s %9s\n", "collective", "calls A", "calls B",
                "time A", "time B", "B/A", "per call");
    }
    for (int c = 0; c < CS_R_N && (coll[c].time[0] > 0 || coll[c].time[1] > 0); c++)
        row(f, csv, "collective", &coll[c], cs_rcoll_name(coll[c].coll));
    if (!csv) {
        row(f, csv, "all", &all, "all");
        fprintf(f, "\nhottest cells (%zu of %zu, by the larger time of the two runs)\n%-34s %11s "
                   "%11s %13s %13s %7s %9s\n",
                n < top ? n : top, n, "collective  comm  message size", "calls A", "calls B",
                "time A", "time B", "B/A", "per call");
    }
    for (size_t i = 0; i < n && (csv || i < top); i++) {
        char what[128], range[80];
        snprintf(what, sizeof what, "%-11s %4u  %s", cs_rcoll_name(cells[i].coll),
                 cells[i].comm_size, cs_bin_range(range, sizeof range, (int)cells[i].bin,
                                              a->fold > b->fold ? a->fold : b->fold));
        row(f, csv, "cell", &cells[i], what);
    }
    if (csv)
        fprintf(f, "all,,,,,%llu,%llu,%.9g,%.9g,%.4f,%.4f\n", (unsigned long long)all.calls[0],
                (unsigned long long)all.calls[1], all.time[0], all.time[1],
                ratio(all.time[1], all.time[0]), per_call_ratio(&all));
    free(cells);
    return 0;
}
