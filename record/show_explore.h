/* `collsel show --explored` (show_explore.c): the methods measured inside
 * the application, as text or as a perf table (CSV). */
#ifndef COLLSEL_SHOW_EXPLORE_H
#define COLLSEL_SHOW_EXPLORE_H

#include <stdio.h>

#include "profile.h"

/* Prints p's explored methods; -1 (one line on stderr naming path) when
 * the profile has none. */
int cs_show_explored(FILE *f, const char *path, const cs_profile *p, int csv);

#endif
