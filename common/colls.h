/* The three collectives collsel can replace (MPI-free, shared by the shim,
 * the algorithms, select/ and the tools).  The values are part of the tree
 * file format. */
#ifndef COLLSEL_COLLS_H
#define COLLSEL_COLLS_H

enum cs_coll { CS_BCAST = 0, CS_REDUCE = 1, CS_BARRIER = 2, CS_NCOLL = 3 };

/* "bcast", "reduce", "barrier"; NULL if out of range. */
const char *cs_coll_name(int c);
/* Reverse of cs_coll_name (exact, lower case); -1 if unknown. */
int cs_coll_from_name(const char *s);

#endif
