/* The shared-memory segment of a communicator: its creation (POSIX shared
 * memory, else an MPI window), the agreement of its ranks, and its free
 * (see shm.h). */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coll/shm/shm.h"

void cs_shm_free(cs_shm *s)
{
    if (!s)
        return;
    if (s->win != MPI_WIN_NULL)
        PMPI_Win_free(&s->win);
    if (s->map)
        munmap(s->map, s->map_bytes);
    if (s->counted)
        cs_shm_unreserve(CS_SHM_RANK_BYTES);
    free(s->r);
    free(s->seen);
    free(s);
}

/* The segment as one POSIX shared-memory object: rank 0 creates it (each
 * rank's part page-aligned, so each rank's first touch places its pages),
 * its name goes out in one bcast (empty: rank 0 could not, or did not
 * want to), every rank maps it.  Returns 1 when this rank mapped it (s->r
 * set), 0 when it did not, -1 when no name came (nothing to undo); *name
 * (64 bytes) keeps the name for the unlink.  Collective over c->pcomm. */
static int seg_posix(cs_shm *s, const cs_call *c, int want, char *name)
{
    static unsigned serial;
    long pg = sysconf(_SC_PAGESIZE);
    size_t page = pg > 0 ? (size_t)pg : 4096;
    size_t part = (CS_SHM_RANK_BYTES + page - 1) / page * page, bytes = part * (size_t)c->size;
    int fd = -1;
    memset(name, 0, 64);
    if (c->rank == 0 && want) {
        for (int k = 0; k < 4 && fd < 0; k++) {
            snprintf(name, 64, "/collsel.%ld.%u", (long)getpid(),
                     __atomic_fetch_add(&serial, 1, __ATOMIC_SEQ_CST));
            fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        }
        if (fd >= 0 && ftruncate(fd, (off_t)bytes) != 0) {
            close(fd);
            shm_unlink(name);
            fd = -1;
        }
        if (fd < 0)
            memset(name, 0, 64);
    }
    if (PMPI_Bcast(name, 64, MPI_CHAR, 0, c->pcomm) != MPI_SUCCESS || !name[0]) {
        if (fd >= 0) { /* the bcast failed here only */
            close(fd);
            shm_unlink(name);
        }
        return -1;
    }
    if (c->rank != 0 && want)
        fd = shm_open(name, O_RDWR, 0);
    void *m = fd >= 0 ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (fd >= 0)
        close(fd);
    if (m == MAP_FAILED)
        return 0;
    s->map = m;
    s->map_bytes = bytes;
    for (int i = 0; i < c->size; i++)
        s->r[i] = (cs_shm_rank *)((char *)m + part * (size_t)i);
    return 1;
}

/* The segment from MPI (PMPI_Win_allocate_shared over c->pcomm), where
 * POSIX shared memory failed.  Returns 1 when this rank has it (s->r set).
 * Collective over c->pcomm; a rank with want = 0 asks for 0 bytes. */
static int seg_window(cs_shm *s, const cs_call *c, int want)
{
    void *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    MPI_Info info = MPI_INFO_NULL;
    if (PMPI_Info_create(&info) == MPI_SUCCESS)
        PMPI_Info_set(info, "alloc_shared_noncontig", "true");
    /* one line more than a rank's part: the MPI library may place a part
     * anywhere; it is aligned to a cache line here (the same offset within
     * a page in every process that maps it) */
    int rc = PMPI_Win_allocate_shared(want ? (MPI_Aint)(CS_SHM_RANK_BYTES + CS_SHM_LINE) : 0, 1,
                                      info, c->pcomm, &base, &win);
    if (win != MPI_WIN_NULL) /* errors come back to us, as on the private comm */
        PMPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    s->win = win;
    if (info != MPI_INFO_NULL)
        PMPI_Info_free(&info);
    int ok = want && rc == MPI_SUCCESS;
    for (int i = 0; ok && i < c->size; i++) {
        MPI_Aint sz;
        int du;
        void *p = NULL;
        ok = PMPI_Win_shared_query(s->win, i, &sz, &du, &p) == MPI_SUCCESS && p &&
             sz >= (MPI_Aint)(CS_SHM_RANK_BYTES + CS_SHM_LINE);
        if (ok)
            s->r[i] = (cs_shm_rank *)(((uintptr_t)p + CS_SHM_LINE - 1) &
                                      ~(uintptr_t)(CS_SHM_LINE - 1));
    }
    return ok;
}

/* Zero our flags (the data slots need nothing) and say where the CMA probe
 * is; then agree (allreduce: also the point after which every rank's flags
 * are zero).  Returns the agreement. */
static int seg_agree(cs_shm *s, const cs_call *c, int ok, const uint64_t *probe)
{
    if (ok) {
        cs_shm_rank *me = s->r[c->rank];
        memset(me, 0, offsetof(cs_shm_rank, slot));
        me->cma.addr = (uint64_t)(uintptr_t)probe;
        me->cma.pid = (int64_t)getpid();
    }
    int all = 0;
    if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->pcomm) != MPI_SUCCESS)
        all = 0;
    return all;
}

/* Make the segment (collective over pcomm); NULL on failure, the same on
 * every rank. */
static cs_shm *shm_make(const cs_call *c)
{
    cs_shm *s = calloc(1, sizeof *s);
    int ok = s != NULL;
    if (s) {
        s->win = MPI_WIN_NULL;
        s->p = c->size;
        s->rank = c->rank;
        s->spin = cs_shm_spin_for(c->size);
        s->r = calloc((size_t)c->size, sizeof *s->r);
        s->seen = calloc((size_t)c->size, sizeof *s->seen);
        ok = s->r != NULL && s->seen != NULL;
    }
    if (ok)
        ok = s->counted = cs_shm_reserve(CS_SHM_RANK_BYTES);
    static uint64_t probe = CS_SHM_PROBE; /* what a peer reads to test CMA */
    cs_shm dummy = {.win = MPI_WIN_NULL};        /* a rank without memory takes part too */
    cs_shm *t = s ? s : &dummy;
    char name[64];
    int mapped = seg_posix(t, c, ok, name), all = 0;
    if (mapped >= 0) {
        all = seg_agree(t, c, mapped, &probe);
        if (c->rank == 0) /* every rank has mapped it, or given up */
            shm_unlink(name);
        if (!all && t->map) {
            munmap(t->map, t->map_bytes);
            t->map = NULL;
        }
    }
    if (mapped < 0) /* rank 0 made no object (every rank knows it): MPI's window */
        all = seg_agree(t, c, seg_window(t, c, ok), &probe);
    if (!s && dummy.win != MPI_WIN_NULL)
        PMPI_Win_free(&dummy.win);
    if (!all) {
        cs_shm_free(s);
        return NULL;
    }
    /* single copy between processes: can this rank read its neighbour's
     * memory (same user, ptrace policy, no seccomp filter)?  All must; the
     * verdicts meet in the segment (no MPI call). */
    int cma = c->size > 1 && cs_shm_peek(s, (c->rank + 1) % c->size, &probe, &(uint64_t){0});
    cs_shm_set(&s->r[c->rank]->can_read, 1 + (uint64_t)cma);
    s->cma = 1;
    for (int i = 0; i < c->size; i++) {
        cs_shm_wait(s, &s->r[i]->can_read, 1);
        s->cma &= __atomic_load_n(&s->r[i]->can_read.v, __ATOMIC_ACQUIRE) == 2;
    }
    return s;
}

cs_shm *cs_shm_get(const cs_call *c)
{
    cs_comm_state *st = c->st;
    if (st->shm)
        return st->shm;
    if (st->shm_failed)
        return NULL;
    st->shm = shm_make(c);
    if (!st->shm) {
        st->shm_failed = 1;
        if (cs_coll_warn && c->rank == 0)
            cs_coll_warn("communicator of %d ranks: no shared-memory segment (%zu bytes per "
                         "rank: out of memory, or over COLLSEL_SHM_LIMIT=%zu MiB on some "
                         "rank); the MPI library's collective runs instead of its "
                         "shared-memory methods", c->size, (size_t)CS_SHM_RANK_BYTES,
                         cs_shm_limit() >> 20);
    }
    return st->shm;
}
