/* Two profiles side by side (collsel show --compare; compare.c). */
#ifndef COLLSEL_COMPARE_H
#define COLLSEL_COMPARE_H

#include <stdio.h>

#include "profile.h"

/* Per collective and per hot cell (the top cells by the larger time of the
 * two), the calls, the times and their ratio b/a; text or CSV.  Returns 0,
 * or -1 out of memory. */
int cs_show_compare(FILE *f, const char *pa, const cs_profile *a, const char *pb,
                    const cs_profile *b, size_t top, int csv);

#endif
