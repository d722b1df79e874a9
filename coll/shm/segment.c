/* The shared-memory segment of a communicator and the flags in it: see
 * shm.h. */
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

/* How many processes of the job share this node: the launcher's count
 * (Open MPI: OMPI_COMM_WORLD_LOCAL_SIZE, MPICH hydra: MPI_LOCALNRANKS),
 * at least the communicator's own p.  A communicator of 2 ranks on a node
 * that runs 4 on 2 processors must yield as soon as the node's full one
 * does: its peer may be waiting for the processor (measured on the demo at
 * 4 ranks: its 2-rank communicators' small bcasts and reduces took 3.8x
 * native when they spun first). */
static int node_ranks(int p)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"};
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
    if (s->counted)
        atomic_fetch_sub(&held, CS_SHM_RANK_BYTES);
    free(s->r);
    free(s->seen);
    free(s);
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
    void *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    MPI_Info info = MPI_INFO_NULL;
    if (PMPI_Info_create(&info) == MPI_SUCCESS)
        PMPI_Info_set(info, "alloc_shared_noncontig", "true");
    /* every rank takes part in the allocation, even one that failed above
     * (it asks for 0 bytes and then reports failure) */
    /* one line more than a rank's part: the MPI library may place a part
     * anywhere; it is aligned to a cache line here (the same offset within
     * a page in every process that maps it) */
    int rc = PMPI_Win_allocate_shared(ok ? (MPI_Aint)(CS_SHM_RANK_BYTES + CS_SHM_LINE) : 0, 1,
                                      info, c->pcomm, &base, &win);
    if (win != MPI_WIN_NULL) /* errors come back to us, as on the private comm */
        PMPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (s)
        s->win = win;
    else if (win != MPI_WIN_NULL)
        PMPI_Win_free(&win);
    if (info != MPI_INFO_NULL)
        PMPI_Info_free(&info);
    ok = ok && rc == MPI_SUCCESS;
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
    if (ok) { /* flags start at 0; the data slots need nothing */
        cs_shm_rank *me = s->r[c->rank];
        memset(me, 0, offsetof(cs_shm_rank, slot));
    }
    static uint64_t probe = 0x636f6c6c73656cULL; /* what a peer reads to test CMA */
    if (ok) {
        cs_shm_rank *me = s->r[c->rank];
        me->cma.addr = (uint64_t)(uintptr_t)&probe;
        me->cma.pid = (int64_t)getpid();
    }
    int all = ok;
    if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->pcomm) != MPI_SUCCESS)
        all = 0;
    if (all) /* every rank's flags are zeroed before anyone uses them */
        all = PMPI_Barrier(c->pcomm) == MPI_SUCCESS;
    if (!all) {
        shm_free(s);
        return NULL;
    }
    /* single copy between processes: can this rank read its neighbour's
     * memory (same user, ptrace policy, no seccomp filter)?  All must. */
    int cma = c->size > 1 && cs_shm_peek(s, (c->rank + 1) % c->size, &probe, &(uint64_t){0});
    if (PMPI_Allreduce(&cma, &s->cma, 1, MPI_INT, MPI_MIN, c->pcomm) != MPI_SUCCESS)
        s->cma = 0;
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
    return c->st && c->st->node_local && !c->st->shm_failed;
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
