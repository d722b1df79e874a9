/* A rank that waits prepares its receive buffer (see shm.h).
 *
 * A receive buffer the application has just allocated has no pages yet:
 * the first write to each 4 KiB page faults, and the kernel zeroes and maps
 * one (1.2 us a page here, 0.63 ms for 2 MiB; measured with a loop touching
 * each page of a fresh mapping).  Whatever the method, the collective's
 * writes pay that inside the call, after the last rank has arrived.  A rank
 * that is waiting for another (the root of a bcast that is still computing,
 * a slot still full) has nothing else to do: it asks the kernel to map the
 * pages now (madvise MADV_POPULATE_WRITE, Linux >= 5.14: the page tables
 * made writable, the contents untouched), 16 pages at a time between
 * polls, from the first page mincore() finds missing (one look over up to
 * 1024 pages: a buffer used before is looked at once for up to 4 MiB).
 * The contents never change, so the result cannot; the work is the one the
 * copy would have done, moved into the wait.
 *
 * Cost: only a wait that has already lasted 128 polls (3 us here) looks
 * (a pipelined copy's short waits for the next chunk never do: looking at
 * every one of them cost a balanced 2 MiB bcast 25 %), and it then sees
 * its flag at most one step later (16 pages mapped: 20 us, work the copy
 * would do anyway; a look: 1.2 us over 2 MiB of mapped pages, 0.7 us over
 * 64 KiB).  A call whose ranks never wait
 * long does nothing but set and clear the job (a few stores, calls of at
 * least CS_SHM_PREPARE_MIN bytes only).  Where the kernel has no
 * MADV_POPULATE_WRITE, the first refusal turns it off for the process. */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coll/shm/shm.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
#define PIECE_PAGES 16   /* pages mapped at a time */
#define LOOK_PAGES 1024  /* pages looked at at a time (mincore) */

#ifndef COLLSEL_SMPI
_Thread_local __attribute__((tls_model("initial-exec"))) cs_shm_prep cs_shm_prep_job;
#else
_Thread_local cs_shm_prep cs_shm_prep_job;
#endif
static int refused; /* the kernel has no MADV_POPULATE_WRITE, or COLLSEL_SHM_PREPARE=0 */

void cs_shm_set_prepare(int on)
{
    __atomic_store_n(&refused, !on, __ATOMIC_RELAXED);
}

#ifndef COLLSEL_SMPI
/* The receive buffer of call c: the bytes this rank's collective writes,
 * when they are one run of memory (a plain datatype); NULL when the rank
 * receives nothing (a bcast's root, a reduce's other ranks). */
static void *recv_range(const cs_call *c, size_t *bytes)
{
    *bytes = c->bytes;
    switch (c->coll) {
    case CS_BCAST:
        return c->rank != c->root && cs_dt_plain(c->dt) ? c->buf : NULL;
    case CS_REDUCE:
        return c->rank == c->root && cs_dt_plain(c->dt) ? c->buf : NULL;
    case CS_ALLREDUCE:
        return cs_dt_plain(c->dt) ? c->buf : NULL;
    case CS_ALLTOALL: /* c->bytes: one block; P blocks come in */
        *bytes = c->bytes * (size_t)c->size;
        return cs_dt_plain(c->rdt) ? c->buf : NULL;
    default:
        return NULL;
    }
}
#endif

cs_shm_prep cs_shm_prepare_begin(const cs_call *c)
{
    cs_shm_prep was = cs_shm_prep_job;
#ifndef COLLSEL_SMPI /* (simulated ranks: no pages of their own to map) */
    size_t bytes;
    char *p = recv_range(c, &bytes);
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096;
    /* nothing received here: the job stays (a step of a composed method,
     * e.g. the reduce of an allreduce on a rank that is not its root,
     * still waits for the call's receive buffer) */
    if (!p || __atomic_load_n(&refused, __ATOMIC_RELAXED))
        return was;
    /* whole pages only: the partial ones at the ends fault in the copy */
    uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), e = ((uintptr_t)p + bytes) & ~(page - 1);
    if (e > a) {
        cs_shm_prep_job.p = (char *)a;
        cs_shm_prep_job.left = e - a;
        cs_shm_prep_job.page = page;
    }
#else
    (void)c;
#endif
    return was;
}

void cs_shm_prepare_end(cs_shm_prep was)
{
    cs_shm_prep_job = was;
}

int cs_shm_prepare_some(void)
{
    cs_shm_prep *j = &cs_shm_prep_job;
    if (!j->left)
        return 0;
    /* one look over up to LOOK_PAGES pages: where all are mapped (a buffer
     * used before), that is the whole job for up to 4 MiB */
    size_t n = LOOK_PAGES * j->page, miss = 0;
    n = n < j->left ? n : j->left;
    unsigned char in[LOOK_PAGES];
    if (mincore(j->p, n, in) != 0) {
        j->left = 0; /* not mapped memory: the call will say so itself */
        return 1;
    }
    while (miss < n / j->page && (in[miss] & 1))
        miss++;
    if (miss == n / j->page) { /* all there */
        j->p += n;
        j->left -= n;
        return 1;
    }
    /* from the first missing page, one piece */
    j->p += miss * j->page;
    j->left -= miss * j->page;
    n = PIECE_PAGES * j->page < j->left ? PIECE_PAGES * j->page : j->left;
    if (madvise(j->p, n, MADV_POPULATE_WRITE) != 0) {
        if (errno == EINVAL) /* an older kernel (no such advice), or memory it
                                cannot populate: off for the process */
            __atomic_store_n(&refused, 1, __ATOMIC_RELAXED);
        j->left = 0; /* read-only or special memory: leave it to the copy */
        return 1;
    }
    j->p += n;
    j->left -= n;
    return 1;
}
