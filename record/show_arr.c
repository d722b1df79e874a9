/* `collsel show`: where the collective time goes, wait (for the last rank
 * to arrive) against completion (from the last arrival on, what a method
 * can change), per collective and per cell, with the spread of arrivals,
 * the ranks that arrive last most often and the call site (record/
 * arrivals.h).  Every figure is the cell's recorded time split by the
 * shares measured on the matched calls (cs_arr_split); what that rests on
 * (how many calls matched, thinning, clocks, folding) is said once. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "show_arr.h"

void cs_arr_sum_of(const cs_profile *p, int coll, cs_arr_sum *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < p->ncells; i++) {
        const cs_cell *c = &p->cells[i];
        double w, k;
        if (coll >= 0 && (int)c->coll != coll)
            continue;
        s->total += c->t_total;
        if (cs_arr_split(p, c, &w, &k) == 0) {
            double caused, causes;
            s->wait += w;
            s->compl += k;
            s->covered += c->t_total;
            if (cs_arr_induced(p, c, &caused, &causes, NULL) == 0)
                s->induced += caused;
        }
    }
}

static double pct(double x, double of)
{
    return of > 0 ? 100 * x / of : 0;
}

static const char *fmt_t(char *buf, size_t len, double s)
{
    if (s < 0)
        snprintf(buf, len, "-");
    else if (s < 1e-6)
        snprintf(buf, len, "%.0f ns", s * 1e9);
    else
        cs_show_fmt_time(buf, len, s);
    return buf;
}

void cs_show_arr_headline(FILE *f, const cs_profile *p)
{
    cs_arr_sum s;
    char a[32], b[32], c[32];
    cs_arr_sum_of(p, -1, &s);
    if (!cs_arr_recorded(p)) {
        fprintf(f, "where the time goes: wait and completion NOT RECORDED (a profile of format 2 "
                   "or older): how much of the %s in collectives is waiting for late ranks "
                   "is unknown\n", fmt_t(a, sizeof a, s.total));
        return;
    }
    if (s.covered <= 0) {
        fprintf(f, "where the time goes: no recorded call could be matched across ranks: wait "
                   "and completion unknown\n");
        return;
    }
    fprintf(f, "where the time goes: %s in collectives (summed over ranks): %s (%.1f %%) "
               "waiting for the last rank to arrive, %s (%.1f %%) completion\n",
            fmt_t(a, sizeof a, s.total), fmt_t(b, sizeof b, s.wait), pct(s.wait, s.covered),
            fmt_t(c, sizeof c, s.compl), pct(s.compl, s.covered));
    const char *local = p->arr.clock == CS_ARR_CLOCK_NODE
                            ? " (within nodes: the clocks of the nodes could not be compared, so "
                              "waiting across nodes counts as completion)"
                            : "";
    if (p->arr.pairs) {
        double ind = s.induced > 0 ? s.induced : 0;
        fprintf(f, "any method could remove at most %.1f %% of the collective time: its "
                   "completion (%.1f %%) and the waiting that calls letting their ranks go at "
                   "different times caused at the next call (%.1f %%: a method that releases "
                   "them together removes it); the rest is waiting%s\n",
                pct(s.compl + ind, s.covered), pct(s.compl, s.covered), pct(ind, s.covered),
                local);
    } else {
        fprintf(f, "any method could remove at most %.1f %% of the collective time (its "
                   "completion), and the part of the waiting that uneven exits of the calls "
                   "before caused (not recorded: profile format 3); the rest is waiting%s\n",
                pct(s.compl, s.covered), local);
    }
    if (s.covered < s.total * 0.9995)
        fprintf(f, "(split measured for the cells holding %.1f %% of the time; the rest has no "
                   "matched call)\n", pct(s.covered, s.total));
}

void cs_show_arr_quality(FILE *f, const cs_profile *p)
{
    const cs_arr *a = &p->arr;
    char t[32];
    if (!a->recorded) {
        fprintf(f, "arrivals    not recorded (profile format 2 or older)\n");
        return;
    }
    uint64_t calls = 0, entries = 0;
    for (size_t i = 0; i < p->ncells; i++)
        calls += p->cells[i].rank_calls;
    for (size_t i = 0; i < a->ncells; i++)
        entries += a->cells[i].entries;
    fprintf(f, "arrivals    estimated from %llu of %llu rank calls matched across ranks "
               "(%.1f %%): the first %d calls of each communicator and %d of each "
               "collective and size on it, then 1 in %d",
            (unsigned long long)entries, (unsigned long long)calls, pct((double)entries,
                                                                        (double)calls),
            CS_ARR_FIRST, CS_ARR_CELL_FIRST, 1 << CS_ARR_LEVEL0);
    if (a->level > CS_ARR_LEVEL0)
        fprintf(f, " (rings full: down to 1 in %.0f, %llu kept calls dropped)",
                ldexp(1.0, (int)(a->level < 63 ? a->level : 63)), (unsigned long long)a->dropped);
    fprintf(f, "\n");
    /* how well the weighted sample stands for the calls of its cells */
    double stand = 0, of = 0, meas = 0, rec = 0;
    for (size_t i = 0; i < p->ncells; i++) {
        const cs_cell *c = &p->cells[i];
        const cs_arr_cell *x = cs_arr_find(p, c->coll, c->comm_size, c->bin);
        if (x) {
            stand += x->n;
            of += (double)c->rank_calls;
            meas += x->wait + x->compl;
            rec += c->t_total;
        }
    }
    if (of > 0 && rec > 0)
        fprintf(f, "            weighted, the matched calls stand for %.3f x their cells' calls "
                   "and %.3f x their time (each cell's time is split by the measured shares)\n",
                stand / of, meas / rec);
    if (a->unmatched || a->untracked)
        fprintf(f, "            %llu records without all ranks' records (not counted), %llu "
                   "calls on communicators not tracked (intercommunicators)\n",
                (unsigned long long)a->unmatched, (unsigned long long)a->untracked);
    if (!a->gaps)
        fprintf(f, "            the time before the calls not recorded (profile format %d)\n",
                a->pairs ? 4 : 3);
    if (a->clock == CS_ARR_CLOCK_NODE)
        fprintf(f, "            clocks of the nodes not comparable: wait and completion within "
                   "nodes only\n");
    else if (p->meta.nnodes > 1 || a->clock_err > 0)
        fprintf(f, "            across nodes: clock offsets estimated, error up to %s\n",
                fmt_t(t, sizeof t, a->clock_err));
    if (p->fold || a->vec_dropped)
        fprintf(f, "            %s%llu sampled arrival patterns dropped to fit the file's "
                   "bound\n", p->fold ? "cells folded: spread and late ranks are over the "
                                         "merged cells; " : "",
                (unsigned long long)a->vec_dropped);
}

void cs_show_arr_shares(FILE *f, const cs_arr_sum *s)
{
    if (s->covered > 0)
        fprintf(f, " %6.1f%% %6.1f%%", pct(s->wait, s->covered), pct(s->compl, s->covered));
    else
        fprintf(f, " %7s %7s", "-", "-");
}

/* "1 62%, 0 38%" */
static void late_text(char *buf, size_t len, const cs_arr_cell *a)
{
    size_t o = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < a->nlate && i < 3 && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%d %.0f%%", i ? ", " : "", a->late[i].rank,
                              pct(a->late[i].ops, a->ops));
    if (!a->nlate)
        snprintf(buf, len, "-");
}

void cs_show_arr_cells(FILE *f, const cs_profile *p, const size_t *idx, size_t k)
{
    if (!cs_arr_recorded(p) || k == 0)
        return;
    fprintf(f, "\nwait and completion of the hottest cells (exits: the part of the wait that "
               "the previous call on the communicator caused by letting its ranks go at "
               "different times; spread: last - first arrival; late: world ranks last to "
               "arrive, share of operations; before: a rank's mean time between leaving its "
               "previous call on the communicator and entering this one)\n"
               "%-22s %6s %-20s %12s %7s %7s %7s %-28s %9s %-22s %s\n", "collective", "comm",
            "message size", "time", "wait", "compl", "exits", "spread mean / p50 / p95",
            "before", "late ranks", "call site (most wait)");
    for (size_t i = 0; i < k; i++) {
        const cs_cell *c = &p->cells[idx[i]];
        const cs_arr_cell *a = cs_arr_find(p, c->coll, c->comm_size, c->bin);
        char range[80], t[32], s1[32], s2[32], s3[32], spread[100], late[80];
        double w, k2;
        cs_bin_range(range, sizeof range, (int)c->bin, p->fold);
        fprintf(f, "%-22s %6u %-20s %12s", cs_rcoll_name((int)c->coll), c->comm_size, range,
                fmt_t(t, sizeof t, c->t_total));
        if (!a || cs_arr_split(p, c, &w, &k2) < 0) {
            fprintf(f, " %7s %7s (no call matched)\n", "-", "-");
            continue;
        }
        double caused, causes;
        fprintf(f, " %6.1f%% %6.1f%%", pct(w, c->t_total), pct(k2, c->t_total));
        if (cs_arr_induced(p, c, &caused, &causes, NULL) == 0 && a->npair > 0)
            fprintf(f, " %6.1f%%", pct(caused, c->t_total));
        else
            fprintf(f, " %7s", "-");
        if (a->ops > 0)
            snprintf(spread, sizeof spread, "%s / %s / %s", fmt_t(s1, sizeof s1, a->spread / a->ops),
                     fmt_t(s2, sizeof s2, cs_arr_spread_q(a, 0.5)),
                     fmt_t(s3, sizeof s3, cs_arr_spread_q(a, 0.95)));
        else
            snprintf(spread, sizeof spread, "-");
        late_text(late, sizeof late, a);
        double gap = cs_arr_gap(p, a);
        fprintf(f, " %-28s %9s %-22s %s\n", spread, gap >= 0 ? fmt_t(s1, sizeof s1, gap) : "-",
                late, a->nsites ? a->sites[0].where : "-");
    }
}

/* ---- CSV ------------------------------------------------------------------ */

void cs_show_arr_csv_meta(FILE *f, const cs_profile *p)
{
    const cs_arr *a = &p->arr;
    cs_arr_sum s;
    fprintf(f, "# arrivals: %s\n", a->recorded ? "recorded" : "not recorded");
    if (!a->recorded)
        return;
    cs_arr_sum_of(p, -1, &s);
    fprintf(f, "# wait_s: %.9g\n# completion_s: %.9g\n# completion_share: %.4f\n"
               "# arrival_time_covered_s: %.9g\n", s.wait, s.compl,
            s.covered > 0 ? s.compl / s.covered : 0, s.covered);
    fprintf(f, "# arrival_clock: %s\n# arrival_clock_error_s: %.3g\n# arrival_level: %u\n"
               "# arrival_dropped: %llu\n# arrival_unmatched: %llu\n# arrival_untracked: %llu\n"
               "# arrival_vectors_dropped: %llu\n",
            a->clock == CS_ARR_CLOCK_NODE ? "within nodes" : "global", a->clock_err,
            a->level > CS_ARR_LEVEL0 ? a->level : CS_ARR_LEVEL0, (unsigned long long)a->dropped,
            (unsigned long long)a->unmatched, (unsigned long long)a->untracked,
            (unsigned long long)a->vec_dropped);
}

const char cs_show_arr_csv_header[] =
    ",wait_s,completion_s,wait_share,spread_mean_us,spread_p50_us,spread_p95_us,late_ranks,"
    "arrival_site,arrival_entries,exits_caused_wait_s,exits_cause_wait_s,before_us";

static void csv_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
    }
    fputc('"', f);
}

void cs_show_arr_csv_cell(FILE *f, const cs_profile *p, const cs_cell *c)
{
    const cs_arr_cell *a = cs_arr_find(p, c->coll, c->comm_size, c->bin);
    double w, k;
    if (!a || cs_arr_split(p, c, &w, &k) < 0) {
        fputs(",,,,,,,,,,,,", f);
        return;
    }
    fprintf(f, ",%.9g,%.9g,%.4f,", w, k, c->t_total > 0 ? w / c->t_total : 0);
    if (a->ops > 0)
        fprintf(f, "%.3f,%.3f,%.3f,", 1e6 * a->spread / a->ops, 1e6 * cs_arr_spread_q(a, 0.5),
                1e6 * cs_arr_spread_q(a, 0.95));
    else
        fputs(",,,", f);
    for (uint32_t i = 0; i < a->nlate && i < 3; i++)
        fprintf(f, "%s%d:%.4f", i ? ";" : "", a->late[i].rank, a->late[i].ops / a->ops);
    fputc(',', f);
    if (a->nsites)
        csv_text(f, a->sites[0].where);
    fprintf(f, ",%llu", (unsigned long long)a->entries);
    double caused, causes;
    if (cs_arr_induced(p, c, &caused, &causes, NULL) == 0)
        fprintf(f, ",%.9g,%.9g", caused, causes);
    else
        fputs(",,", f);
    double gap = cs_arr_gap(p, a);
    if (gap >= 0)
        fprintf(f, ",%.3f", 1e6 * gap);
    else
        fputc(',', f);
}

/* ---- JSON ----------------------------------------------------------------- */

void cs_show_arr_json_meta(FILE *f, const cs_profile *p)
{
    const cs_arr *a = &p->arr;
    cs_arr_sum s;
    if (!a->recorded) {
        fputs(", \"arrivals\": null", f);
        return;
    }
    cs_arr_sum_of(p, -1, &s);
    if (a->pairs)
        fprintf(f, ", \"exits_caused_wait_s\": %.9g", s.induced);
    else
        fputs(", \"exits_caused_wait_s\": null", f);
    fprintf(f, ", \"arrivals\": {\"wait_s\": %.9g, \"completion_s\": %.9g, "
               "\"completion_share\": %.6f, \"time_covered_s\": %.9g, \"clock\": \"%s\", "
               "\"clock_error_s\": %.3g, \"level\": %u, \"dropped\": %llu, \"unmatched\": %llu, "
               "\"untracked\": %llu, \"vectors_dropped\": %llu}",
            s.wait, s.compl, s.covered > 0 ? s.compl / s.covered : 0, s.covered,
            a->clock == CS_ARR_CLOCK_NODE ? "within nodes" : "global", a->clock_err,
            a->level > CS_ARR_LEVEL0 ? a->level : CS_ARR_LEVEL0, (unsigned long long)a->dropped,
            (unsigned long long)a->unmatched, (unsigned long long)a->untracked,
            (unsigned long long)a->vec_dropped);
}

void cs_show_arr_json_sum(FILE *f, const cs_arr_sum *s)
{
    if (s->covered > 0)
        fprintf(f, ", \"wait_s\": %.9g, \"completion_s\": %.9g, \"completion_share\": %.6f", s->wait,
                s->compl, s->compl / s->covered);
    else
        fputs(", \"wait_s\": null, \"completion_s\": null, \"completion_share\": null", f);
}

void cs_show_arr_json_cell(FILE *f, const cs_profile *p, const cs_cell *c)
{
    const cs_arr_cell *a = cs_arr_find(p, c->coll, c->comm_size, c->bin);
    double w, k;
    if (!a || cs_arr_split(p, c, &w, &k) < 0) {
        fputs(", \"arrivals\": null", f);
        return;
    }
    fprintf(f, ", \"arrivals\": {\"wait_s\": %.9g, \"completion_s\": %.9g, \"entries\": %llu, "
               "\"operations\": %llu",
            w, k, (unsigned long long)a->entries, (unsigned long long)a->nops);
    if (a->ops > 0)
        fprintf(f, ", \"spread_mean_s\": %.9g, \"spread_p50_s\": %.9g, \"spread_p95_s\": %.9g",
                a->spread / a->ops, cs_arr_spread_q(a, 0.5), cs_arr_spread_q(a, 0.95));
    fputs(", \"late_ranks\": [", f);
    for (uint32_t i = 0; i < a->nlate; i++)
        fprintf(f, "%s{\"rank\": %d, \"share\": %.6f}", i ? ", " : "", a->late[i].rank,
                a->ops > 0 ? a->late[i].ops / a->ops : 0);
    fputs("], \"sites\": [", f);
    for (uint32_t i = 0; i < a->nsites; i++) {
        fprintf(f, "%s{\"where\": ", i ? ", " : "");
        cs_json_str(f, a->sites[i].where);
        fprintf(f, ", \"wait_s\": %.9g}", a->sites[i].wait);
    }
    fprintf(f, "], \"patterns\": %u", a->nvec);
    double gap = cs_arr_gap(p, a);
    if (gap >= 0)
        fprintf(f, ", \"before_s\": %.9g", gap);
    else
        fputs(", \"before_s\": null", f);
    double caused, causes;
    if (cs_arr_induced(p, c, &caused, &causes, NULL) == 0)
        fprintf(f, ", \"exits_caused_wait_s\": %.9g, \"exits_cause_wait_s\": %.9g, "
                   "\"pairs\": %.0f}", caused, causes, a->npair);
    else
        fputs(", \"exits_caused_wait_s\": null, \"exits_cause_wait_s\": null}", f);
}
