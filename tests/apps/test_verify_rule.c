/* Unit test of collsel autotune --verify's rule (cli/autotune_rule.h):
 * which collectives a tree gives up after its paired runs. */
#include <stdio.h>
#include <string.h>

#include "cli/autotune_rule.h"

static int fails;
#define CHECK(cond, what)                                       \
    do {                                                        \
        if (!(cond)) {                                          \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, what); \
            fails++;                                            \
        }                                                       \
    } while (0)

enum { BCAST, REDUCE, BARRIER, ALLREDUCE, N };

/* every collective ran, 9 pairs each, intervals around 1 */
static void even(at_judged *j)
{
    for (int c = 0; c <= N; c++)
        j[c] = (at_judged){.seen = 1, .pairs = 9, .lo = 0.95, .hi = 1.05, .kpairs = 9,
                           .klo = 0.9, .khi = 1.1};
}

int main(void)
{
    at_judged j[N + 1];
    int strip[N], whole, n;

    even(j);
    n = at_verify_rule(j, N, 0, strip, &whole);
    CHECK(n == 0 && !whole, "intervals holding 1: nothing given up");
    for (int c = 0; c < N; c++)
        CHECK(!strip[c], "intervals holding 1: a collective given up");

    /* one slow collective, which also makes the whole slower: only it */
    even(j);
    j[BCAST].klo = 1.5, j[BCAST].lo = 2.0, j[N].lo = 1.2, j[N].klo = 1.3;
    n = at_verify_rule(j, N, 0, strip, &whole);
    CHECK(n == 1 && strip[BCAST] && !strip[REDUCE] && !strip[BARRIER] && !strip[ALLREDUCE] &&
              !whole, "a slow bcast: only the bcast");

    /* judged on completion: a time above 1 whose completion holds 1 is wait */
    even(j);
    j[BARRIER].lo = 1.1;
    n = at_verify_rule(j, N, 0, strip, &whole);
    CHECK(n == 0, "a barrier slower in time only is kept");

    /* completion not recorded: judged on time */
    even(j);
    j[REDUCE].kpairs = 0, j[REDUCE].klo = 0, j[REDUCE].lo = 1.1;
    n = at_verify_rule(j, N, 0, strip, &whole);
    CHECK(n == 1 && strip[REDUCE], "no completion: the time decides");

    /* too few pairs decide nothing, whatever the interval */
    even(j);
    j[ALLREDUCE].kpairs = 5, j[ALLREDUCE].klo = 3, j[ALLREDUCE].pairs = 6, j[ALLREDUCE].lo = 3;
    j[N].pairs = 5, j[N].lo = 2;
    n = at_verify_rule(j, N, 0, strip, &whole);
    CHECK(n == 0 && !whole, "5 pairs decide nothing");

    /* an interval that starts at 1 holds 1 */
    even(j);
    j[BCAST].klo = 1.0;
    n = at_verify_rule(j, N, 0, strip, &whole);
    CHECK(n == 0, "an interval from 1.000 is kept");

    /* the whole slower, no collective to blame: every one that ran */
    even(j);
    j[BARRIER].seen = 0, j[BARRIER].pairs = j[BARRIER].kpairs = 0;
    j[N].lo = 1.001;
    n = at_verify_rule(j, N, 0, strip, &whole);
    CHECK(whole && n == 3 && strip[BCAST] && strip[REDUCE] && strip[ALLREDUCE] && !strip[BARRIER],
          "the whole slower: every collective that ran");

    /* more ranks than cores (prove): kept only where faster beyond the
     * noise, on completion where recorded, else on time */
    even(j);
    j[BCAST].khi = 0.8;                          /* faster: kept */
    j[REDUCE].khi = 0.99, j[REDUCE].kpairs = 5;  /* too few pairs to show it */
    j[BARRIER].hi = 0.9;                         /* faster in time only: not shown */
    j[ALLREDUCE].kpairs = 0, j[ALLREDUCE].hi = 0.97; /* no completion: time shows it */
    j[N].hi = 0.98;                              /* and the whole is faster */
    n = at_verify_rule(j, N, 1, strip, &whole);
    CHECK(n == 2 && !strip[BCAST] && strip[REDUCE] && strip[BARRIER] && !strip[ALLREDUCE] && !whole,
          "prove: kept where the interval lies below 1");
    /* ... but not where the collective time as a whole does not show it */
    j[N].hi = 1.06;
    n = at_verify_rule(j, N, 1, strip, &whole);
    CHECK(n == 4 && whole && strip[BCAST] && strip[ALLREDUCE],
          "prove: the whole not faster: every collective given up");
    even(j);
    j[BCAST].seen = 0; /* native everywhere in the tree: nothing to give up */
    n = at_verify_rule(j, N, 1, strip, &whole);
    CHECK(n == 3 && !strip[BCAST], "prove: a collective the tree keeps native is not listed");
    /* nothing kept per collective: not called the whole's fault */
    CHECK(!whole, "prove: nothing left for the whole to give up");

    if (fails)
        return 1;
    printf("autotune --verify rule: ok\n");
    return 0;
}
