/* Broken methods for `matrix --selftest` (selftest.c). */
#ifndef CS_SELFTEST_H
#define CS_SELFTEST_H
#include "coll/coll.h"
const cs_method *selftest_methods(enum cs_coll c, int *n);
#endif
