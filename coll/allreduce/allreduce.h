/* collsel MPI_Allreduce algorithms: the registry table and the entry points.
 *
 * registry.c holds the table (entry 0 = "allreduce.native"); every other
 * file is one algorithm.  Operands are combined with PMPI_Reduce_local on
 * elements of c->dt (identical on every rank, as for reduce); c->sendbuf
 * may be MPI_IN_PLACE (then c->buf holds this rank's contribution).
 *
 * Every rank must end with the same bits: a method either combines in the
 * same order on every rank or reduces once and broadcasts the result.
 */
#ifndef COLLSEL_ALLREDUCE_H
#define COLLSEL_ALLREDUCE_H

#include "../coll.h"

extern const cs_method cs_allreduce_methods[];
extern const int cs_allreduce_nmethods;

/* Algorithms (cs_algo_fn). */
int cs_allreduce_native(const cs_call *c, const cs_method *m);

#endif
