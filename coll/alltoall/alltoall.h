/* collsel MPI_Alltoall algorithms: the registry table and the entry points.
 *
 * registry.c holds the table (entry 0 = "alltoall.native"); every other
 * file is one algorithm.  An alltoall moves bytes: every algorithm works on
 * p blocks of c->bytes contiguous bytes on each side (bytes.c: the user's
 * buffers themselves when their datatypes are dense, else packed copies),
 * so ranks may pass different datatypes with the same type signature, and
 * non-contiguous datatypes are handled by every method (one extra copy).
 * MPI_IN_PLACE is handled by every method: the receive buffer is copied
 * (or packed) once and sent from the copy.  Blocks of 0 bytes and a single
 * process return at once.  All point-to-point traffic is MPI_BYTE on
 * c->pcomm under CS_TAG_ALLTOALL.
 *
 * Every non-native method needs p x block bytes to fit an int (the counts
 * of the packing and point-to-point calls): cs_alltoall_applies, decided
 * on values identical on every rank.
 */
#ifndef COLLSEL_ALLTOALL_H
#define COLLSEL_ALLTOALL_H

#include <stddef.h>

#include "coll/coll.h"

extern const cs_method cs_alltoall_methods[];
extern const int cs_alltoall_nmethods;

/* The call's blocks as bytes on this rank: block j of the send side at
 * s + j * c->bytes (what goes to rank j), block i of the receive side at
 * r + i * c->bytes (what comes from rank i). */
typedef struct cs_alltoall_bytes {
    const char *s;
    char *r;
    void *stmp, *rtmp; /* temporaries (packed or in-place copies), else NULL */
} cs_alltoall_bytes;

/* Prepare b for call c (the send side packed or copied when it must be).
 * Returns an MPI error code (MPI_ERR_NO_MEM). */
int cs_alltoall_bytes_get(const cs_call *c, cs_alltoall_bytes *b);
/* Finish: with rc MPI_SUCCESS a temporary receive side is unpacked into
 * c->buf; the temporaries are freed.  Returns rc, or the unpack error. */
int cs_alltoall_bytes_put(const cs_call *c, cs_alltoall_bytes *b, int rc);
/* The start of every method: 0 when the call is over already (blocks of 0
 * bytes, one process, or an error: *rc says), else 1 with b prepared. */
int cs_alltoall_begin(const cs_call *c, cs_alltoall_bytes *b, int *rc);
/* A call with blocks of 0 bytes (nothing moves) or one process (its own
 * block copied): what every method runs then. */
int cs_alltoall_alone(const cs_call *c);
/* Free b's temporaries without unpacking (the call ran another way). */
void cs_alltoall_bytes_drop(cs_alltoall_bytes *b);
/* Copy this rank's own block from the send side to the receive side. */
void cs_alltoall_self(const cs_call *c, const cs_alltoall_bytes *b);

/* applies(): p x block bytes fit an int.  The shared-memory ones add one
 * node and a usable segment (../shm/shm.h), the node-aware ones two or
 * more nodes. */
int cs_alltoall_applies(const cs_call *c, const cs_method *m);
int cs_alltoall_applies_pow2(const cs_call *c, const cs_method *m);
int cs_alltoall_applies_shm(const cs_call *c, const cs_method *m);
int cs_alltoall_applies_cma(const cs_call *c, const cs_method *m);
int cs_alltoall_applies_node(const cs_call *c, const cs_method *m);

/* The p - 1 sendrecv steps of ring (xor 0: to rank + i, from rank - i)
 * and pairwise (xor 1: with rank ^ i), ring.c. */
int cs_alltoall_steps(const cs_call *c, int xor);

/* Algorithms (cs_algo_fn). */
int cs_alltoall_native(const cs_call *c, const cs_method *m);
int cs_alltoall_linear(const cs_call *c, const cs_method *m);
int cs_alltoall_linear_sync(const cs_call *c, const cs_method *m);
int cs_alltoall_pairwise(const cs_call *c, const cs_method *m);
int cs_alltoall_ring(const cs_call *c, const cs_method *m);
int cs_alltoall_bruck(const cs_call *c, const cs_method *m);
int cs_alltoall_shm_direct(const cs_call *c, const cs_method *m);
int cs_alltoall_shm_cma(const cs_call *c, const cs_method *m);
int cs_alltoall_node(const cs_call *c, const cs_method *m);

#endif
