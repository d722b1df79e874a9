/* Bcast with one copy: "bcast.shm.cma".
 *
 * Algorithm: the root publishes where its bytes are (address and process
 * id, in its flag line of the communicator's segment, ../shm/shm.h) and
 * raises the line's step; every other rank reads the bytes straight from
 * the root's memory with process_vm_readv (cross-memory attach, the
 * mechanism of Open MPI's single-copy shared-memory transfers), all in
 * parallel, and raises its done flag; the root returns when every rank is
 * done (its buffer must not change before).  One copy of the message
 * instead of two.  Whether the kernel lets the ranks read each other is
 * found once, when the segment is made, and agreed by all; where it does
 * not, the method runs bcast.shm.ota (the same on every rank) and stops
 * applying.
 * Restrictions: one node, cross-memory attach allowed.
 * Cost: one flag transfer, n / memory bandwidth per reader in parallel, one
 * flag transfer back; a system call per reader.
 */
#include <unistd.h>

#include "coll/shm/shm.h"
#include "bcast.h"

int cs_bcast_shm_cma(const cs_call *c, const cs_method *m)
{
    cs_bcast_bytes b;
    int rc;
    cs_shm *s = cs_bcast_shm_start(c, m, &b, &rc);
    if (!s)
        return rc;
    const uint64_t step = ++s->step;
    cs_shm_rank *root = s->r[c->root], *me = s->r[s->rank];
    if (s->rank == c->root) {
        root->cma.addr = (uint64_t)(uintptr_t)b.p;
        root->cma.pid = (int64_t)getpid();
        cs_shm_set(&root->cma.v, step);
        for (int i = 0; i < s->p; i++)
            if (i != s->rank)
                cs_shm_wait(s, &s->r[i]->done, step);
    } else {
        cs_shm_wait(s, &root->cma.v, step);
        rc = cs_shm_pull(root, 0, (unsigned char *)b.p, c->bytes);
    }
    cs_shm_set(&me->done, step);
    return cs_bcast_bytes_put(c, &b, rc);
}
