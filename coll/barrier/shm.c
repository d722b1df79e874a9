/* Barrier through shared memory: the intra-Cell paper's barrier families
 * on a communicator's segment (../shm/shm.h).  Velamati et al.,
 * "Optimization of collective communication in intra-Cell MPI", HiPC 2007:
 * OTA, SIG, TREE of degree k, PE and DIS.  No message and no closing
 * barrier: call seq signals by storing seq in flags that only grow.
 *
 *   barrier.shm.ota            every rank flags its arrival, rank 0 waits
 *                              for all, then releases all with one flag.
 *                              Cost: 2 flag transfers + p reads at rank 0.
 *   barrier.shm.counter        (SIG) every rank adds 1 to one shared
 *                              counter and waits for it to reach p x seq.
 *                              Cost: p atomic adds on one line, contended.
 *   barrier.shm.tree.kN        arrival up a k-ary tree, release down it.
 *                              Cost: 2 ceil(log_k p) flag transfers.
 *   barrier.shm.pairwise       (PE) recursive doubling on flags, extra
 *                              ranks folded.  Cost: log2 p + 2 transfers.
 *   barrier.shm.dissemination  (DIS) round k: flag rank r + 2^k, wait for
 *                              r - 2^k.  Cost: ceil(log2 p) transfers.
 * Restrictions: the communicator lies within one node (cs_shm_applies).
 * A transfer is one cache line moving between cores: ~0.08 us here.
 */
#include "coll/shm/shm.h"
#include "barrier.h"

static void ota(cs_shm *s, uint64_t seq, const cs_method *m)
{
    (void)m;
    if (s->rank != 0) {
        cs_shm_set(&s->r[s->rank]->arrive, seq);
        cs_shm_wait(s, &s->r[0]->release, seq);
        return;
    }
    for (int i = 1; i < s->p; i++)
        cs_shm_wait(s, &s->r[i]->arrive, seq);
    cs_shm_set(&s->r[0]->release, seq);
}

static void counter(cs_shm *s, uint64_t seq, const cs_method *m)
{
    (void)m;
    (void)seq; /* the counter counts this method's calls only: */
    uint64_t n = ++s->nsig;
    __atomic_fetch_add(&s->r[0]->count.v, 1, __ATOMIC_ACQ_REL);
    cs_shm_wait(s, &s->r[0]->count, n * (uint64_t)s->p);
}

static void tree(cs_shm *s, uint64_t seq, const cs_method *m)
{
    const long k = m->fanout, r = s->rank, first = r * k + 1;
    const long last = first + k < s->p ? first + k : s->p; /* children [first, last) */
    for (long i = first; i < last; i++)
        cs_shm_wait(s, &s->r[i]->arrive, seq);
    if (r > 0) {
        cs_shm_set(&s->r[r]->arrive, seq);
        cs_shm_wait(s, &s->r[r]->release, seq);
    }
    for (long i = first; i < last; i++)
        cs_shm_set(&s->r[i]->release, seq);
}

static void pairwise(cs_shm *s, uint64_t seq, const cs_method *m)
{
    (void)m;
    const int p = s->p, r = s->rank;
    int q = 1;
    while (q * 2 <= p)
        q *= 2;
    if (r >= q) { /* folded onto r - q */
        cs_shm_set(&s->r[r]->arrive, seq);
        cs_shm_wait(s, &s->r[r]->release, seq);
        return;
    }
    if (r + q < p)
        cs_shm_wait(s, &s->r[r + q]->arrive, seq);
    for (int k = 0, mask = 1; mask < q; k++, mask <<= 1) {
        cs_shm_set(&s->r[r ^ mask]->round[k], seq);
        cs_shm_wait(s, &s->r[r]->round[k], seq);
    }
    if (r + q < p)
        cs_shm_set(&s->r[r + q]->release, seq);
}

static void dissemination(cs_shm *s, uint64_t seq, const cs_method *m)
{
    (void)m;
    const int p = s->p, r = s->rank;
    for (int k = 0, d = 1; d < p; k++, d <<= 1) {
        cs_shm_set(&s->r[(r + d) % p]->round[k], seq);
        cs_shm_wait(s, &s->r[r]->round[k], seq);
    }
}

/* The opening of every shared-memory barrier: the segment (none: the
 * MPI library's barrier runs) and this call's number seq, then the body. */
static int run(const cs_call *c, const cs_method *m,
               void (*body)(cs_shm *s, uint64_t seq, const cs_method *m))
{
    cs_shm *s = cs_shm_get(c);
    if (!s)
        return cs_shm_native(c);
    body(s, ++s->seq, m);
    return MPI_SUCCESS;
}

int cs_barrier_shm_ota(const cs_call *c, const cs_method *m)
{
    return run(c, m, ota);
}

int cs_barrier_shm_counter(const cs_call *c, const cs_method *m)
{
    return run(c, m, counter);
}

int cs_barrier_shm_tree(const cs_call *c, const cs_method *m)
{
    return run(c, m, tree);
}

int cs_barrier_shm_pairwise(const cs_call *c, const cs_method *m)
{
    return run(c, m, pairwise);
}

int cs_barrier_shm_dissemination(const cs_call *c, const cs_method *m)
{
    return run(c, m, dissemination);
}
