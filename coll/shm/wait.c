/* Waiting on the flags of a segment: the spin-or-yield rule, and the waits
 * before a rank reuses its slot or ring line (see shm.h). */
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "coll/shm/shm.h"

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

int cs_shm_spin_for(int p)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    return ncpu > 0 && node_ranks(p) > ncpu ? CS_SHM_SPIN_SHARED : CS_SHM_SPIN_ALONE;
}

void cs_shm_wait(const cs_shm *s, const cs_shm_flag *f, uint64_t v)
{
    for (int i = 0; __atomic_load_n(&f->v, __ATOMIC_ACQUIRE) < v; i++) {
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
        s->seen[i] = __atomic_load_n(&s->r[i]->done.v, __ATOMIC_ACQUIRE);
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
