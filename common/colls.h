/* The collectives collsel can replace (MPI-free, shared by the shim, the
 * algorithms, select/ and the tools).  The values are part of the tree file
 * format: append only (a tree written before a collective was added still
 * loads). */
#ifndef COLLSEL_COLLS_H
#define COLLSEL_COLLS_H

enum cs_coll { CS_BCAST = 0, CS_REDUCE = 1, CS_BARRIER = 2, CS_ALLREDUCE = 3, CS_ALLTOALL = 4,
              CS_NCOLL = 5 };

/* "bcast", "reduce", "barrier", "allreduce", "alltoall"; NULL if out of range. */
const char *cs_coll_name(int c);
/* "bcast, reduce, barrier, allreduce, alltoall": every name, for messages that list
 * what is accepted. */
const char *cs_coll_names(void);
/* Reverse of cs_coll_name (exact, lower case); -1 if unknown. */
int cs_coll_from_name(const char *s);

#endif
