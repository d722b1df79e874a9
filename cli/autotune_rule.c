/* autotune --verify's rule (autotune_rule.h). */
#include "cli/autotune_rule.h"

static int above_one(int pairs, double lo)
{
    return pairs >= AT_RULE_PAIRS && lo > 1;
}

static int below_one(int pairs, double hi)
{
    return pairs >= AT_RULE_PAIRS && hi < 1;
}

int at_verify_rule(const at_judged *j, int n, int prove, int *strip, int *whole)
{
    int nstrip = 0;
    *whole = 0;
    for (int c = 0; c < n; c++) {
        const int k = j[c].kpairs > 0; /* judged on completion */
        if (!j[c].seen)
            strip[c] = 0;
        else if (prove)
            strip[c] = !(k ? below_one(j[c].kpairs, j[c].khi) : below_one(j[c].pairs, j[c].hi));
        else
            strip[c] = k ? above_one(j[c].kpairs, j[c].klo) : above_one(j[c].pairs, j[c].lo);
        nstrip += strip[c];
    }
    int kept = 0;
    for (int c = 0; c < n; c++)
        kept += j[c].seen && !strip[c];
    /* the whole: slower (none to blame alone), or where the gain must be
     * shown, not faster (a faster completion that the application's
     * collective time does not show is no gain: its wait took it back) */
    if (kept && (prove ? !below_one(j[n].pairs, j[n].hi)
                       : nstrip == 0 && above_one(j[n].pairs, j[n].lo))) {
        *whole = 1;
        for (int c = 0; c < n; c++)
            if (j[c].seen && !strip[c])
                strip[c] = 1, nstrip++;
    }
    return nstrip;
}
