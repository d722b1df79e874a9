/* Barrier methods: the registry table and the algorithms (one per file).
 *
 * Every algorithm synchronises with zero-byte messages on c->pcomm under
 * CS_TAG_BARRIER and returns an MPI error code.  With one process a barrier
 * is a no-op.  None reads configuration: the tree degree / Bruck radix comes
 * from m->fanout. */
#ifndef COLLSEL_BARRIER_H
#define COLLSEL_BARRIER_H

#include "coll/coll.h"

extern const cs_method cs_barrier_methods[];
extern const int cs_barrier_nmethods;

int cs_barrier_native(const cs_call *c, const cs_method *m);
int cs_barrier_linear(const cs_call *c, const cs_method *m);
int cs_barrier_tree(const cs_call *c, const cs_method *m);
int cs_barrier_double_ring(const cs_call *c, const cs_method *m);
int cs_barrier_recursive_doubling(const cs_call *c, const cs_method *m);
int cs_barrier_dissemination(const cs_call *c, const cs_method *m);
int cs_barrier_bruck(const cs_call *c, const cs_method *m);
int cs_barrier_two_proc(const cs_call *c, const cs_method *m);
int cs_barrier_two_proc_applies(const cs_call *c, const cs_method *m);
int cs_barrier_shm_ota(const cs_call *c, const cs_method *m);
int cs_barrier_shm_counter(const cs_call *c, const cs_method *m);
int cs_barrier_shm_tree(const cs_call *c, const cs_method *m);
int cs_barrier_shm_pairwise(const cs_call *c, const cs_method *m);
int cs_barrier_shm_dissemination(const cs_call *c, const cs_method *m);
int cs_barrier_node(const cs_call *c, const cs_method *m);

/* Zero-byte signals on the private communicator. */
static inline int cs_bar_send(const cs_call *c, int to)
{
    return PMPI_Send(NULL, 0, MPI_BYTE, to, CS_TAG_BARRIER, c->pcomm);
}

static inline int cs_bar_recv(const cs_call *c, int from)
{
    return PMPI_Recv(NULL, 0, MPI_BYTE, from, CS_TAG_BARRIER, c->pcomm, MPI_STATUS_IGNORE);
}

/* Send to `to` and receive from `from` at the same time. */
static inline int cs_bar_sendrecv(const cs_call *c, int to, int from)
{
    return PMPI_Sendrecv(NULL, 0, MPI_BYTE, to, CS_TAG_BARRIER, NULL, 0, MPI_BYTE, from,
                         CS_TAG_BARRIER, c->pcomm, MPI_STATUS_IGNORE);
}

#endif
