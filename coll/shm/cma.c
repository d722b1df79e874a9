/* Reads of another process's memory (process_vm_readv, "cross-memory
 * attach"): the probe that decides whether a segment's ranks may use it,
 * and the single-copy reads of bcast.shm.cma and bcast.shm.ag (see shm.h). */
#include <stdint.h>
#include <sys/uio.h>

#include "coll/shm/shm.h"

int cs_shm_peek(const cs_shm *s, int rank, const void *their, void *mine)
{
    struct iovec local = {mine, sizeof(uint64_t)};
    struct iovec remote = {(void *)(uintptr_t)s->r[rank]->cma.addr, sizeof(uint64_t)};
    (void)their;
    return process_vm_readv((pid_t)s->r[rank]->cma.pid, &local, 1, &remote, 1, 0) ==
               (ssize_t)sizeof(uint64_t) &&
           *(uint64_t *)mine == CS_SHM_PROBE;
}

int cs_shm_pull(const cs_shm_rank *owner, size_t from, unsigned char *to, size_t n)
{
    for (size_t off = 0; off < n;) {
        struct iovec local = {to + off, n - off};
        struct iovec remote = {(char *)(uintptr_t)owner->cma.addr + from + off, n - off};
        ssize_t got = process_vm_readv((pid_t)owner->cma.pid, &local, 1, &remote, 1, 0);
        if (got <= 0)
            return MPI_ERR_OTHER;
        off += (size_t)got;
    }
    return MPI_SUCCESS;
}
