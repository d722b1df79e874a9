/* autotune --verify's rule (autotune_rule.h). */
#include "cli/autotune_rule.h"

static int above_one(int pairs, double lo)
{
    return pairs >= AT_RULE_PAIRS && lo > 1;
}

int at_verify_rule(const at_judged *j, int n, int *strip, int *whole)
{
    int nstrip = 0;
    *whole = 0;
    for (int c = 0; c < n; c++) {
        strip[c] = j[c].seen && (j[c].kpairs > 0 ? above_one(j[c].kpairs, j[c].klo)
                                                 : above_one(j[c].pairs, j[c].lo));
        nstrip += strip[c];
    }
    if (nstrip == 0 && above_one(j[n].pairs, j[n].lo)) {
        *whole = 1;
        for (int c = 0; c < n; c++)
            if (j[c].seen)
                strip[c] = 1, nstrip++;
    }
    return nstrip;
}
