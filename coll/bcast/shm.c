/* Bcast through shared memory ("bcast.shm.ota"): the intra-Cell paper's OTA
 * bcast on a communicator's segment (../shm/shm.h).
 *
 * Algorithm: the message (packed to bytes first if its datatype is not
 * contiguous, as the point-to-point engine does) goes in chunks of one
 * slot (64 KiB) through the root's two slots, alternately: the root copies
 * chunk i into slot i % 2 and raises its post flag to the chunk's step;
 * every other rank waits for that flag and copies the chunk out, all in
 * parallel, then raises its done flag.  Double buffering lets the root fill
 * the next slot while the others still read the last one; before it
 * reuses a slot it waits (lazily) for everybody's done of two steps back,
 * so no closing barrier.  Velamati et al., HiPC 2007 (OTA, double
 * buffering); Open MPI xhc / MPICH release-gather (copy-in/copy-out).
 * Restrictions: one node.
 * Cost: per chunk of s bytes, copy-in + one flag transfer + copy-out
 * (2 s / memory bandwidth, readers in parallel); small messages: two copies
 * of n bytes and ~2 cache-line transfers.
 */
#include <string.h>

#include "../shm/shm.h"
#include "bcast.h"

int cs_bcast_shm_ota(const cs_call *c, const cs_method *m)
{
    (void)m;
    if (c->size < 2 || c->bytes == 0)
        return MPI_SUCCESS;
    cs_shm *s = cs_shm_get(c);
    if (!s)
        return cs_shm_native(c);
    cs_bcast_bytes b;
    int rc = cs_bcast_bytes_get(c, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    cs_shm_rank *root = s->r[c->root], *me = s->r[s->rank];
    for (size_t off = 0; off < c->bytes; off += CS_SHM_SLOT) {
        size_t len = c->bytes - off < CS_SHM_SLOT ? c->bytes - off : CS_SHM_SLOT;
        uint64_t step = ++s->step;
        unsigned char *slot = root->slot[step % 2];
        if (s->rank == c->root) {
            cs_shm_slot_free(s, step);
            memcpy(slot, b.p + off, len);
            cs_shm_set(&root->post, step);
        } else {
            cs_shm_wait(s, &root->post, step);
            memcpy(b.p + off, slot, len);
        }
        cs_shm_set(&me->done, step);
    }
    return cs_bcast_bytes_put(c, &b, rc);
}
