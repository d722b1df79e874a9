/* Command-line value parsing of collsel-replay and collsel-bench (pure C,
 * no MPI; collsel autotune reads --budget with it too): sizes, durations,
 * size lists, the measuring grid.
 *
 * Sizes: an integer with an optional binary suffix k/K (KiB), m/M (MiB),
 * g/G (GiB): "8", "64k", "4M".
 *
 * Grid SPEC: comma-separated clauses `cs=...` (communicator sizes) and
 * `ms=...` (message sizes in bytes), each one of
 *   LO:HI        every value from LO to HI: cs steps by 1, ms by x2
 *   LO:HI:+N     arithmetic steps of N
 *   LO:HI:xN     geometric steps of factor N (cs=2:64:x2 = powers of two)
 *   V1,V2,...    an explicit list (a token without '=' continues the list
 *                of the clause before it)
 * A missing cs clause means cs=2:WORLD, a missing ms clause ms=1:4M.
 * Example: --grid cs=2:4,ms=1:4M  (3 comm sizes x 23 message sizes).
 */
#ifndef COLLSEL_SPEC_H
#define COLLSEL_SPEC_H

#include <stdint.h>

#include "common/util.h"

typedef struct cs_replay_grid {
    uint32_t *cs; /* ascending, no duplicates */
    int ncs;
    uint64_t *ms; /* ascending, no duplicates */
    int nms;
} cs_replay_grid;

int cs_parse_size(const char *s, uint64_t *v, cs_err *e);
/* A duration: a number of seconds with an optional unit s, m or min, h
 * ("90", "90s", "1.5m", "1h"), in (0, max]. */
int cs_parse_seconds(const char *s, double max, double *out, cs_err *e);
/* Comma-separated sizes; *v malloc'd, sorted, duplicates removed. */
int cs_parse_size_list(const char *s, uint64_t **v, int *n, cs_err *e);
/* world_size: default upper communicator size. */
int cs_replay_grid_parse(const char *spec, uint32_t world_size, cs_replay_grid *g, cs_err *e);
void cs_replay_grid_free(cs_replay_grid *g);

#endif
