/* What collsel autotune --verify makes of its paired runs: which
 * collectives the tree gives up (autotune_verify.c runs the pairs and
 * prints them; this is the rule alone, tested alone:
 * tests/apps/test_verify_rule.c).  Pure C. */
#ifndef COLLSEL_AUTOTUNE_RULE_H
#define COLLSEL_AUTOTUNE_RULE_H

/* One collective's pairs (or, last, all of them together): tuned / native
 * ratios of the collective time and of the completion (from the last
 * arrival on), the number of pairs with each and their median's 95 %
 * interval. */
typedef struct at_judged {
    int seen;        /* the tree drives the collective (not native everywhere)
                        and it ran; for all: some collective ran */
    int pairs;       /* pairs with its time in both runs */
    double lo, hi;   /* the 95 % interval of tuned / native time */
    int kpairs;      /* pairs with its completion in both (0: not recorded) */
    double klo, khi; /* the same for completion */
} at_judged;

/* The least pairs that decide (fewer: only the range, nothing decided). */
#define AT_RULE_PAIRS 6

/* j[0..n): per collective, j[n]: all of them.  A collective is slower
 * with the tree beyond the noise when its completion's interval lies above
 * 1 (its time's, where completion was not recorded): judged on completion
 * because the wait a slow collective causes lands on the next one.  Where
 * none is, but the collective time as a whole (what the tree promises) is,
 * every collective is given up (*whole = 1): the loss is the tree's,
 * whichever collective its wait landed on.  prove (a layout where the
 * expectations are known to be optimistic: more ranks on a node than
 * cores): a collective is kept only where its interval lies below 1,
 * faster with the tree beyond the noise, and none is unless the collective
 * time as a whole is faster beyond the noise too (*whole = 1 otherwise:
 * mpi4py at 4 ranks kept a bcast and a barrier whose completions were
 * 0.80 and 0.91, its collective time 1.023 (0.974-1.060) in the same 9
 * pairs, 1.009 over 21 more).  strip[c] = 1 for those given up (only
 * collectives seen); returns how many. */
int at_verify_rule(const at_judged *j, int n, int prove, int *strip, int *whole);

#endif
