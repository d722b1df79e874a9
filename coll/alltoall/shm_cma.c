/* Alltoall with one copy: "alltoall.shm.cma".
 *
 * Algorithm: every rank publishes where its send blocks are (address and
 * process id, in its cma line of the communicator's segment, ../shm/shm.h)
 * and raises the line's step; then it reads block `rank` of every peer's
 * send side straight into its receive buffer with process_vm_readv
 * (cross-memory attach), starting with rank + 1 so that the peers' pages
 * are not all read by everyone at once, and raises its done flag; it
 * returns when every peer is done (its send buffer must not change
 * before).  One copy of every block instead of two.  Whether the kernel
 * lets the ranks read each other is found once, when the segment is made,
 * and agreed by all (as for bcast.shm.cma); where it does not, the method
 * runs alltoall.shm.direct (the same on every rank) and stops applying.
 * Restrictions: one node, cross-memory attach allowed (p x block bytes fit
 * an int).
 * Cost: one flag transfer, p - 1 system calls reading n bytes each (in
 * parallel on every rank), one flag wait per peer at the end; for large
 * blocks (the system call costs about a microsecond).
 */
#include <unistd.h>

#include "coll/shm/shm.h"
#include "alltoall.h"

int cs_alltoall_shm_cma(const cs_call *c, const cs_method *m)
{
    if (c->size > 1 && c->bytes && c->st->shm && !((cs_shm *)c->st->shm)->cma)
        return cs_alltoall_shm_direct(c, m); /* the segment exists and CMA was refused */
    cs_alltoall_bytes b;
    int rc;
    if (!cs_alltoall_begin(c, &b, &rc))
        return rc;
    cs_shm *s = cs_shm_get(c);
    if (!s || !s->cma) {
        cs_alltoall_bytes_drop(&b);
        return s ? cs_alltoall_shm_direct(c, m) : cs_shm_native(c);
    }
    const int p = s->p, me = s->rank;
    const uint64_t step = ++s->step;
    cs_shm_rank *mine = s->r[me];
    mine->cma.addr = (uint64_t)(uintptr_t)b.s;
    mine->cma.pid = (int64_t)getpid();
    cs_shm_set(&mine->cma.v, step);
    cs_alltoall_self(c, &b);
    for (int i = 1; i < p; i++) {
        const int src = (me + i) % p;
        cs_shm_wait(s, &s->r[src]->cma.v, step);
        int e = cs_shm_pull(s->r[src], (size_t)me * c->bytes,
                            (unsigned char *)b.r + (size_t)src * c->bytes, c->bytes);
        if (e != MPI_SUCCESS && rc == MPI_SUCCESS)
            rc = e; /* the others still read from this rank: go on to the end */
    }
    cs_shm_set(&mine->done, step);
    for (int i = 1; i < p; i++)
        cs_shm_wait(s, &s->r[(me + i) % p]->done, step);
    return cs_alltoall_bytes_put(c, &b, rc);
}
