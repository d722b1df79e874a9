/* Alltoall through shared memory: "alltoall.shm.direct".
 *
 * Algorithm: the blocks go in steps through the communicator's segment
 * (../shm/shm.h).  In a step every rank copies the next piece (at most a
 * slot / (p - 1)) of each of its p - 1 outgoing blocks into its own slot,
 * one region per destination, and raises its post flag; then it waits for
 * each peer's flag of the step and copies its own region out of the
 * peer's slot, and raises its done flag.  The two slots alternate (double
 * buffering): a rank refills a slot once every rank is done with the step
 * two back.  When a step's p - 1 pieces fit one line (p - 1 pieces <= 56
 * bytes, e.g. 8 B blocks up to 8 ranks) they travel in the line with its
 * step (the ring of small payloads): one cache-line transfer per peer, and
 * a rank may run 64 calls ahead.  Copy-in/copy-out as Open MPI's sm/xhc and
 * MPICH's shared-memory collectives.
 * Restrictions: one node, a segment (p x block bytes fit an int).
 * Cost per step of s bytes per block: (p - 1) s copied in, p - 1 flag
 * waits, (p - 1) s copied out; ceil(n / (slot / (p - 1))) steps.
 */
#include <string.h>

#include "coll/shm/shm.h"
#include "alltoall.h"

/* Step of len bytes per block at offset off of every block. */
static void step_once(cs_shm *s, const cs_call *c, const cs_alltoall_bytes *b, size_t off,
                      size_t len)
{
    const int p = s->p, me = s->rank;
    const size_t tot = (size_t)(p - 1) * len;
    const uint64_t step = ++s->step;
    cs_shm_data_free(s, step, tot);
    unsigned char *mine = cs_shm_data(s, me, step, tot);
    for (int i = 1; i < p; i++) /* region i - 1: the piece for rank me + i */
        cs_copy(mine + (size_t)(i - 1) * len, b->s + (size_t)((me + i) % p) * c->bytes + off,
               len);
    cs_shm_set(cs_shm_posted(s, me, step, tot), step);
    for (int i = 1; i < p; i++) { /* rank me - i put mine in its region i - 1 */
        const int src = (me - i + p) % p;
        cs_shm_wait(s, cs_shm_posted(s, src, step, tot), step);
        cs_copy(b->r + (size_t)src * c->bytes + off,
               cs_shm_data(s, src, step, tot) + (size_t)(i - 1) * len, len);
    }
    cs_shm_set(&s->r[me]->done, step);
}

int cs_alltoall_shm_direct(const cs_call *c, const cs_method *m)
{
    (void)m;
    cs_alltoall_bytes b;
    int rc;
    if (!cs_alltoall_begin(c, &b, &rc))
        return rc;
    cs_shm *s = cs_shm_get(c);
    if (!s) {
        cs_alltoall_bytes_drop(&b);
        return cs_shm_native(c);
    }
    const size_t piece = CS_SHM_SLOT / (size_t)(c->size - 1) / CS_SHM_LINE * CS_SHM_LINE;
    const size_t chunk = piece ? piece : CS_SHM_SLOT / (size_t)(c->size - 1);
    cs_alltoall_self(c, &b);
    for (size_t off = 0; off < c->bytes; off += chunk)
        step_once(s, c, &b, off, c->bytes - off < chunk ? c->bytes - off : chunk);
    return cs_alltoall_bytes_put(c, &b, rc);
}
