/* collsel MPI_Allreduce algorithms: the registry table and the entry points.
 *
 * registry.c holds the table (entry 0 = "allreduce.native"); every other
 * file is one algorithm.  Operands are combined with PMPI_Reduce_local on
 * elements of c->dt (identical on every rank, as for reduce, and the
 * helpers of ../reduce/reduce.h: datatype geometry, temporaries by true
 * extent, typed copies); c->sendbuf may be MPI_IN_PLACE (c->buf then holds
 * this rank's contribution).
 *
 * Every rank must end with the same bits (an allreduce whose ranks disagree
 * in the last bit breaks applications): each method either reduces every
 * element once and distributes the result (reduce_bcast, ring,
 * rabenseifner), or computes the same expression, operands in the same
 * order, on every rank (recursive_doubling, knomial).  Which methods keep
 * rank order (and so apply to non-commutative ops):
 *   native, recursive_doubling, knomial, reduce_bcast with an order-keeping
 *   reduce (linear, inorder_binary)            -- every op
 *   ring, rabenseifner (also count >= size), the other reduce_bcast
 *                                              -- commutative ops only
 */
#ifndef COLLSEL_ALLREDUCE_H
#define COLLSEL_ALLREDUCE_H

#include "coll/coll.h"
#include "coll/reduce/reduce.h"

/* Filled once when the library is loaded (registry.c: the fixed methods,
 * then the reduce_bcast compositions generated from the reduce and bcast
 * registries); read-only afterwards. */
extern cs_method cs_allreduce_methods[];
extern int cs_allreduce_nmethods;

/* The call c as a reduce to root 0 / a bcast from root 0 of its result
 * (reduce_bcast.c; MPI_IN_PLACE handled). */
void cs_allreduce_as_reduce(const cs_call *c, cs_call *r);
void cs_allreduce_as_bcast(const cs_call *c, cs_call *b);

/* The fold (fold.c).  fold_in: every non-leader sends its vector to its
 * leader and returns with *leader = 0; a leader combines its range in rank
 * order and returns with *leader = 1 and *acc = the buffer that holds the
 * range's vector (c->buf or tmp; the other is free).  fold_out: after the
 * leaders' exchange, each leader sends the result (in c->buf) to the rest
 * of its range, which receive it into c->buf.  MPI error codes. */
int cs_allreduce_fold_in(const cs_call *c, const cs_rtype *t, int npart, int *leader,
                         char **acc, char *tmp);
int cs_allreduce_fold_out(const cs_call *c, const cs_rtype *t, int npart, int leader,
                          const char *acc);

/* applies() (commutativity and Rabenseifner's count >= p: the reduce
 * registry's, ../reduce/reduce.h) */
int cs_allreduce_applies_reduce_bcast(const cs_call *c, const cs_method *m);

/* The fold of the recursive algorithms onto a power: participant j of
 * npart (npart = radix^m <= p) stands for the contiguous ranks
 * [lo, hi) of the communicator; its first rank (the leader) takes part.
 * Pure arithmetic (unit-tested). */
void cs_allreduce_range(int p, int npart, int j, int *lo, int *hi);
/* The participant of rank r. */
int cs_allreduce_part_of(int p, int npart, int r);
/* The largest power of radix <= p. */
int cs_allreduce_pow_below(int p, int radix);

/* Algorithms (cs_algo_fn). */
int cs_allreduce_native(const cs_call *c, const cs_method *m);
int cs_allreduce_reduce_bcast(const cs_call *c, const cs_method *m);
int cs_allreduce_recursive_doubling(const cs_call *c, const cs_method *m);
int cs_allreduce_knomial(const cs_call *c, const cs_method *m);
int cs_allreduce_ring(const cs_call *c, const cs_method *m);
int cs_allreduce_rabenseifner(const cs_call *c, const cs_method *m);
int cs_allreduce_shm_direct(const cs_call *c, const cs_method *m);
int cs_allreduce_shm_ag(const cs_call *c, const cs_method *m);
int cs_allreduce_node(const cs_call *c, const cs_method *m);

#endif
