/* Bcast through shared memory: the intra-Cell paper's OTA and TREE bcasts
 * on a communicator's segment (../shm/shm.h).
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
 * "bcast.shm.tree.kN" pipelines the chunks through a k-ary tree of slots
 * instead: each inner rank copies its parent's slot into its own for its
 * children (k = 1 is a chain), so no line is read by more than k + 1 ranks
 * (the paper's TREE: degree 3 best for small messages beyond 4 processes).
 * Restrictions: one node.
 * Cost: OTA, per chunk of s bytes: copy-in + one flag transfer + copy-out
 * (2 s / memory bandwidth, readers in parallel); up to 56 B: the bytes and
 * their step in one line of the root's ring, so one cache-line transfer
 * per reader, and the root runs up to 64 calls ahead.  TREE: log_k p levels, each a
 * flag transfer and a copy, pipelined over the chunks.
 */

#include "coll/shm/shm.h"
#include "bcast.h"

/* One chunk through a k-ary tree of slots (k = 0: OTA, everyone reads
 * the root's slot).  v: this rank's place in the tree rooted at the root. */
static void chunk(cs_shm *s, const cs_call *c, int k, char *p, size_t len)
{
    const int P = s->p, v = (s->rank - c->root + P) % P;
    const int parent = k == 0 ? (v ? 0 : -1) : (v ? (v - 1) / k : -1);
    const int leaf = k == 0 ? v != 0 : (long)v * k + 1 >= P;
    const uint64_t step = ++s->step;
    cs_shm_rank *me = s->r[s->rank];
    const unsigned char *from = NULL;
    if (parent >= 0) {
        const int up = (parent + c->root) % P;
        cs_shm_wait(s, cs_shm_posted(s, up, step, len), step);
        from = cs_shm_data(s, up, step, len);
    }
    if (!leaf) { /* the children read this rank's slot */
        cs_shm_data_free(s, step, len);
        cs_copy(cs_shm_data(s, s->rank, step, len), from ? from : (const unsigned char *)p, len);
        cs_shm_set(cs_shm_posted(s, s->rank, step, len), step);
    }
    if (from)
        cs_copy(p, from, len);
    cs_shm_set(&me->done, step);
}

static int run(const cs_call *c, int k)
{
    if (c->size < 2 || c->bytes == 0)
        return MPI_SUCCESS;
    cs_shm *s = cs_shm_get(c);
    if (!s)
        return cs_shm_native(c);
    cs_bcast_bytes b;
    int rc;
    CS_TRY(cs_bcast_bytes_get(c, &b));
    for (size_t off = 0; off < c->bytes; off += CS_SHM_SLOT)
        chunk(s, c, k, b.p + off, c->bytes - off < CS_SHM_SLOT ? c->bytes - off : CS_SHM_SLOT);
out:
    return cs_bcast_bytes_put(c, &b, rc);
}

cs_shm *cs_bcast_shm_start(const cs_call *c, const cs_method *m, cs_bcast_bytes *b, int *rc)
{
    *rc = MPI_SUCCESS;
    if (c->size < 2 || c->bytes == 0)
        return NULL;
    cs_shm *s = cs_shm_get(c);
    if (!s)
        *rc = cs_shm_native(c);
    else if (!s->cma)
        *rc = cs_bcast_shm_ota(c, m);
    else if ((*rc = cs_bcast_bytes_get(c, b)) == MPI_SUCCESS)
        return s;
    return NULL;
}

int cs_bcast_shm_ota(const cs_call *c, const cs_method *m)
{
    (void)m;
    return run(c, 0);
}

int cs_bcast_shm_tree(const cs_call *c, const cs_method *m)
{
    return run(c, m->fanout);
}
