/* Checks of the arrival data of a profile (arrivals.sh):
 *
 *   arrcheck PROFILE [--clock global|node] [--late RANK SHARE] [--spread LO HI]
 *            [--wait-min S] [--wait-max S] [--sum-tol FRACTION] [--matched]
 *
 * --late, --spread, --wait-min/-max look at the Barrier cell of the largest
 * communicator: the rank that arrives last most often must be RANK with at
 * least SHARE of the operations; the mean spread of arrivals (seconds) in
 * [LO, HI]; its wait (seconds, summed over ranks) at least / at most S.
 * --sum-tol: in every cell whose every call was kept (weighted entries =
 * rank calls), the measured wait + completion must be within FRACTION of
 * the cell's recorded time (they come from the same calls: the split adds
 * up, no call is lost or counted twice, the clocks agree).
 * --matched: some cell has matched calls (a partial profile too).
 * --pairs: the pair sums were recorded (format 4) and some cell has pairs
 * (an operation whose predecessor on the communicator was matched too),
 * their sums in range (the wait had the predecessor released together is
 * at least 0; what a predecessor caused is at most the successors' wait).
 * --pairs-estimate FRACTION: the weighted pairs estimate the operations
 * that had a predecessor (every operation of a long run but the first of
 * each communicator) within FRACTION: pairs come from the whole run.
 * --whole COLL BYTES: the cell of COLL (a profile name, "Bcast") and the
 * size bin of BYTES on the largest communicator has every call matched
 * (a cell of few calls is kept whole, whenever its calls come).
 * Exit 0 if every check holds, 1 otherwise (each failure named). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/profile.h"

static int fails;
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "arrcheck: " __VA_ARGS__);                     \
            fputc('\n', stderr);                                           \
            fails++;                                                       \
        }                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    cs_profile p;
    cs_err e;
    if (argc < 2 || cs_profile_load(&p, argv[1], &e) < 0) {
        fprintf(stderr, "arrcheck: %s\n", argc < 2 ? "usage: arrcheck PROFILE ..." : e.msg);
        return 2;
    }
    CHECK(cs_arr_recorded(&p), "%s: arrivals not recorded", argv[1]);
    const cs_cell *bar = NULL;
    for (size_t i = 0; i < p.ncells; i++)
        if (p.cells[i].coll == CS_R_BARRIER && (!bar || p.cells[i].comm_size > bar->comm_size))
            bar = &p.cells[i];
    const cs_arr_cell *ba = bar ? cs_arr_find(&p, bar->coll, bar->comm_size, bar->bin) : NULL;
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--clock") && i + 1 < argc) {
            uint32_t want = !strcmp(argv[++i], "node") ? CS_ARR_CLOCK_NODE : CS_ARR_CLOCK_GLOBAL;
            CHECK(p.arr.clock == want, "clock mode %u, expected %s", p.arr.clock, argv[i]);
        } else if (!strcmp(o, "--late") && i + 2 < argc) {
            int r = atoi(argv[++i]);
            double s = atof(argv[++i]);
            CHECK(ba && ba->nlate > 0 && ba->late[0].rank == r && ba->late[0].ops >= s * ba->ops,
                  "Barrier: last to arrive is rank %d in %.0f %% of the operations, expected "
                  "rank %d in at least %.0f %%", ba && ba->nlate ? ba->late[0].rank : -1,
                  ba && ba->nlate && ba->ops > 0 ? 100 * ba->late[0].ops / ba->ops : 0, r,
                  100 * s);
        } else if (!strcmp(o, "--spread") && i + 2 < argc) {
            double lo = atof(argv[++i]), hi = atof(argv[++i]);
            double m = ba && ba->ops > 0 ? ba->spread / ba->ops : -1;
            CHECK(m >= lo && m <= hi, "Barrier: mean spread %g s, expected [%g, %g]", m, lo, hi);
        } else if ((!strcmp(o, "--wait-min") || !strcmp(o, "--wait-max")) && i + 1 < argc) {
            double want = atof(argv[++i]), w = -1, c = 0;
            if (!bar || cs_arr_split(&p, bar, &w, &c) < 0)
                w = -1;
            CHECK(!strcmp(o, "--wait-min") ? w >= want : w >= 0 && w <= want,
                  "Barrier: wait %.6f s, expected %s %.6f s", w, o + 2, want);
        } else if (!strcmp(o, "--sum-tol") && i + 1 < argc) {
            double tol = atof(argv[++i]);
            int checked = 0;
            for (size_t k = 0; k < p.ncells; k++) {
                const cs_cell *c = &p.cells[k];
                const cs_arr_cell *a = cs_arr_find(&p, c->coll, c->comm_size, c->bin);
                if (!a || a->n != (double)c->rank_calls)
                    continue;
                double d = a->wait + a->compl;
                checked++;
                CHECK(fabs(d - c->t_total) <= tol * c->t_total,
                      "%s %u ranks bin %u: wait + completion %.9g s, recorded time %.9g s "
                      "(%+.2f %%)", cs_rcoll_name((int)c->coll), c->comm_size, c->bin, d,
                      c->t_total, 100 * (d / c->t_total - 1));
                printf("%s %u ranks: wait + completion / recorded time = %.5f over %llu calls\n",
                       cs_rcoll_name((int)c->coll), c->comm_size, d / c->t_total,
                       (unsigned long long)c->rank_calls);
            }
            CHECK(checked > 0, "no cell has every call kept");
        } else if (!strcmp(o, "--estimate") && i + 1 < argc) {
            /* sampled cells: the weighted count of matched calls estimates
             * the calls, wait + completion the recorded time */
            double tol = atof(argv[++i]);
            int checked = 0;
            for (size_t k = 0; k < p.ncells; k++) {
                const cs_cell *c = &p.cells[k];
                const cs_arr_cell *a = cs_arr_find(&p, c->coll, c->comm_size, c->bin);
                if (!a || c->rank_calls < 1000)
                    continue;
                checked++;
                double rn = a->n / (double)c->rank_calls, rt = (a->wait + a->compl) / c->t_total;
                printf("%s %u ranks: %llu of %llu calls matched; estimated calls / calls = "
                       "%.4f, wait + completion / recorded time = %.4f\n",
                       cs_rcoll_name((int)c->coll), c->comm_size, (unsigned long long)a->entries,
                       (unsigned long long)c->rank_calls, rn, rt);
                CHECK(fabs(rn - 1) <= tol, "%s %u ranks: estimated calls / calls = %.4f",
                      cs_rcoll_name((int)c->coll), c->comm_size, rn);
            }
            CHECK(checked > 0, "no cell of at least 1000 calls with arrivals to estimate from");
        } else if (!strcmp(o, "--pairs")) {
            double np = 0, nprev = 0;
            double pw = 0, ind = 0;
            for (size_t k = 0; k < p.arr.ncells; k++) {
                const cs_arr_cell *a = &p.arr.cells[k];
                np += a->npair;
                nprev += a->nprev;
                pw += a->pwait;
                ind += a->induced;
                CHECK(a->swait >= 0 && a->pwait >= 0 && a->lag >= 0, "cell %zu: bad pair sums", k);
            }
            CHECK(p.arr.pairs && np > 0 && fabs(np - nprev) <= 1e-9 * np,
                  "pairs: %s, %g pairs, %g predecessors",
                  p.arr.pairs ? "recorded" : "not recorded", np, nprev);
            CHECK(ind <= pw * (1 + 1e-9) + 1e-12, "caused %g s of wait, more than the %g s there", ind, pw);
        } else if (!strcmp(o, "--pairs-estimate") && i + 1 < argc) {
            double tol = atof(argv[++i]), np = 0, ops = 0;
            for (size_t k = 0; k < p.arr.ncells; k++) {
                np += p.arr.cells[k].npair;
                ops += p.arr.cells[k].ops;
            }
            printf("pairs: %.0f estimated, %.0f operations\n", np, ops);
            CHECK(ops > 0 && fabs(np / ops - 1) <= tol, "pairs estimate %.0f operations of %.0f", np,
                  ops);
        } else if (!strcmp(o, "--whole") && i + 2 < argc) {
            int coll = cs_rcoll_from_name(argv[++i]);
            uint32_t bin = (uint32_t)cs_bin_of(strtoull(argv[++i], NULL, 10));
            const cs_cell *c = NULL;
            for (size_t k = 0; k < p.ncells; k++)
                if ((int)p.cells[k].coll == coll && p.cells[k].bin == bin &&
                    (!c || p.cells[k].comm_size > c->comm_size))
                    c = &p.cells[k];
            const cs_arr_cell *a = c ? cs_arr_find(&p, c->coll, c->comm_size, c->bin) : NULL;
            CHECK(c != NULL, "no %s cell of %s bytes", argv[i - 1], argv[i]);
            if (c)
                CHECK(a && a->entries == c->rank_calls,
                      "%s %u ranks bin %u: %llu of %llu rank calls matched (expected all)",
                      argv[i - 1], c->comm_size, bin,
                      (unsigned long long)(a ? a->entries : 0),
                      (unsigned long long)c->rank_calls);
        } else if (!strcmp(o, "--matched")) {
            uint64_t n = 0;
            for (size_t k = 0; k < p.arr.ncells; k++)
                n += p.arr.cells[k].entries;
            CHECK(n > 0, "no call matched across ranks");
        } else {
            fprintf(stderr, "arrcheck: bad argument '%s'\n", o);
            return 2;
        }
    }
    cs_profile_free(&p);
    return fails ? 1 : 0;
}
