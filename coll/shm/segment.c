/* The shared-memory segment of a communicator and the flags in it: see
 * shm.h. */
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "shm.h"

static _Atomic size_t held, limit = (size_t)64 << 20; /* bytes of segments */

void cs_shm_set_limit(size_t bytes)
{
    limit = bytes;
}

/* Polls of a flag before the waiter starts yielding the processor.  With
 * no more ranks than processors a rank that spins never starves the one
 * it waits for, and the spin keeps the wake-up at a cache-line transfer;
 * oversubscribed, a spinning rank holds the processor its peer needs, so
 * it yields at once.  Measured (collsel-bench, 4 ranks on 2 cores, barrier
 * / allreduce 8 B against native): yield at once 0.55x / 0.61x, after 64
 * polls 1.06x / 1.12x, after 1000 polls 6.6x / 5.8x. */
#define CS_SHM_SPIN_ALONE 20000
#define CS_SHM_SPIN_SHARED 0

/* How many processes of the job share this node's processors: the
 * launcher's count (tools/cluster.sh's nodes share one machine's
 * processors: its launch lines set COLLSEL_MACHINE_RANKS to the ranks on
 * the machine; Open MPI: OMPI_COMM_WORLD_LOCAL_SIZE, MPICH hydra:
 * MPI_LOCALNRANKS), at least the communicator's own p.  A communicator of 2 ranks on a node
 * that runs 4 on 2 processors must yield as soon as the node's full one
 * does: its peer may be waiting for the processor (measured on the demo at
 * 4 ranks: its 2-rank communicators' small bcasts and reduces took 3.8x
 * native when they spun first; on a 2 x 2 cluster of namespaces on 2 cores,
 * barrier.node.dissemination took 3.7-7.7 ms against native's 70 us). */
static int node_ranks(int p)
{
    static const char *vars[] = {"COLLSEL_MACHINE_RANKS", "OMPI_COMM_WORLD_LOCAL_SIZE",
                                 "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        long n = v ? strtol(v, NULL, 10) : 0;
        if (n > p && n < 1 << 24)
            return (int)n;
    }
    return p;
}

void cs_shm_wait(const cs_shm *s, const cs_shm_flag *f, uint64_t v)
{
    for (int i = 0; atomic_load_explicit(&f->v, memory_order_acquire) < v; i++) {
        if (i >= s->spin) {
            sched_yield();
            i = s->spin; /* yield on every further poll */
        }
#if defined(__x86_64__) || defined(__i386__)
        else
            __builtin_ia32_pause();
#endif
    }
}

/* Wait until every other rank is done with step `upto`. */
static void all_done(const cs_shm *s, uint64_t upto)
{
    for (int i = 0; i < s->p; i++) {
        if (i == s->rank || s->seen[i] >= upto)
            continue; /* known done already: the line need not move */
        cs_shm_wait(s, &s->r[i]->done, upto);
        s->seen[i] = atomic_load_explicit(&s->r[i]->done.v, memory_order_acquire);
    }
}

void cs_shm_slot_free(const cs_shm *s, uint64_t step)
{
    if (step > 2)
        all_done(s, step - 2);
}

void cs_shm_data_free(const cs_shm *s, uint64_t step, size_t bytes)
{
    if (bytes > CS_SHM_INLINE)
        cs_shm_slot_free(s, step);
    else if (step > CS_SHM_RING)
        all_done(s, step - CS_SHM_RING);
}

int cs_shm_native(const cs_call *c)
{
    switch (c->coll) {
    case CS_BCAST: return PMPI_Bcast(c->buf, c->count, c->dt, c->root, c->comm);
    case CS_REDUCE:
        return PMPI_Reduce(c->sendbuf, c->buf, c->count, c->dt, c->op, c->root, c->comm);
    case CS_ALLREDUCE:
        return PMPI_Allreduce(c->sendbuf, c->buf, c->count, c->dt, c->op, c->comm);
    default: return PMPI_Barrier(c->comm);
    }
}

int cs_shm_chunk(size_t esz)
{
    return (int)(CS_SHM_SLOT / 2 / esz);
}

uint64_t cs_shm_post(cs_shm *s, const void *own, int n, size_t esz)
{
    const uint64_t step = ++s->step;
    const size_t bytes = (size_t)n * esz;
    cs_shm_data_free(s, step, bytes);
    memcpy(cs_shm_data(s, s->rank, step, bytes), own, bytes);
    cs_shm_set(cs_shm_posted(s, s->rank, step, bytes), step);
    return step;
}

int cs_shm_fold(const cs_shm *s, uint64_t step, size_t posted, int first, int n, size_t esz,
                MPI_Datatype dt, MPI_Op op, void *out)
{
    const int p = s->p;
    for (int i = 0; i < p; i++)
        if (i != s->rank)
            cs_shm_wait(s, cs_shm_posted(s, i, step, posted), step);
    if (n <= 0)
        return MPI_SUCCESS;
    const size_t at = (size_t)first * esz, bytes = (size_t)n * esz;
    memcpy(out, cs_shm_data(s, p - 1, step, posted) + at, bytes);
    for (int i = p - 2; i >= 0; i--) {
        int rc = PMPI_Reduce_local(cs_shm_data(s, i, step, posted) + at, out, n, dt, op);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static void shm_free(cs_shm *s)
{
    if (!s)
        return;
    if (s->win != MPI_WIN_NULL)
        PMPI_Win_free(&s->win);
    if (s->map)
        munmap(s->map, s->map_bytes);
    if (s->counted)
        atomic_fetch_sub(&held, CS_SHM_RANK_BYTES);
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
    static _Atomic unsigned serial;
    long pg = sysconf(_SC_PAGESIZE);
    size_t page = pg > 0 ? (size_t)pg : 4096;
    size_t part = (CS_SHM_RANK_BYTES + page - 1) / page * page, bytes = part * (size_t)c->size;
    int fd = -1;
    memset(name, 0, 64);
    if (c->rank == 0 && want) {
        for (int k = 0; k < 4 && fd < 0; k++) {
            snprintf(name, 64, "/collsel.%ld.%u", (long)getpid(), atomic_fetch_add(&serial, 1));
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
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        s->spin = ncpu > 0 && node_ranks(c->size) > ncpu ? CS_SHM_SPIN_SHARED : CS_SHM_SPIN_ALONE;
        s->r = calloc((size_t)c->size, sizeof *s->r);
        s->seen = calloc((size_t)c->size, sizeof *s->seen);
        ok = s->r != NULL && s->seen != NULL;
    }
    if (ok && atomic_fetch_add(&held, CS_SHM_RANK_BYTES) + CS_SHM_RANK_BYTES > limit) {
        atomic_fetch_sub(&held, CS_SHM_RANK_BYTES);
        ok = 0;
    } else if (ok) {
        s->counted = 1;
    }
    static uint64_t probe = 0x636f6c6c73656cULL; /* what a peer reads to test CMA */
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
        shm_free(s);
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
        s->cma &= atomic_load_explicit(&s->r[i]->can_read.v, memory_order_acquire) == 2;
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
                         (size_t)limit >> 20);
    }
    return st->shm;
}

int cs_shm_peek(const cs_shm *s, int rank, const void *their, void *mine)
{
    struct iovec local = {mine, sizeof(uint64_t)};
    struct iovec remote = {(void *)(uintptr_t)s->r[rank]->cma.addr, sizeof(uint64_t)};
    (void)their;
    return process_vm_readv((pid_t)s->r[rank]->cma.pid, &local, 1, &remote, 1, 0) ==
               (ssize_t)sizeof(uint64_t) &&
           *(uint64_t *)mine == 0x636f6c6c73656cULL;
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

int cs_shm_applies_cma(const cs_call *c, const cs_method *m)
{
    if (!cs_shm_applies(c, m))
        return 0;
    const cs_shm *s = c->st->shm;
    return !s || s->cma;
}

int cs_shm_applies(const cs_call *c, const cs_method *m)
{
    (void)m;
    return c->st && c->st->node_local && !c->st->shm_failed && !c->st->shm_cold;
}

int cs_shm_applies_dense(const cs_call *c, const cs_method *m)
{
    if (!cs_shm_applies(c, m) || c->dt == MPI_DATATYPE_NULL)
        return 0;
    if (cs_dt_plain(c->dt))
        return 1;
    MPI_Aint lb, ext, tlb, text;
    int size;
    if (PMPI_Type_get_extent(c->dt, &lb, &ext) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(c->dt, &tlb, &text) != MPI_SUCCESS ||
        PMPI_Type_size(c->dt, &size) != MPI_SUCCESS)
        return 0;
    return size > 0 && ext == size && text == size && tlb == 0 && lb == 0;
}

void cs_shm_state_free(cs_comm_state *st)
{
    cs_node_state_free(st);
    shm_free(st->shm);
    st->shm = NULL;
    if (st->nodecomm != MPI_COMM_NULL)
        PMPI_Comm_free(&st->nodecomm);
}
