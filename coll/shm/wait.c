/* Waiting on the flags of a segment: the spin-or-yield rule, and the waits
 * before a rank reuses its slot or ring line (see shm.h). */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coll/shm/shm.h"

/* Polls of a flag before the waiter starts yielding the processor.  With
 * no more ranks than processors a rank that spins never starves the one
 * it waits for, and the spin keeps the wake-up at a cache-line transfer;
 * oversubscribed, a spinning rank holds the processor its peer needs, so
 * it yields at once: when the node runs more ranks than it has processors,
 * and when the communicator's ranks may run on fewer processors than they
 * are (pinned together: taskset, a launcher's binding; measured with the
 * soak at 2 ranks pinned to one core, spinning first: 2.8-6.9x native per
 * call).  Measured (collsel-bench, 4 ranks on 2 cores, barrier
 * / allreduce 8 B against native): yield at once 0.55x / 0.61x, after 64
 * polls 1.06x / 1.12x, after 1000 polls 6.6x / 5.8x. */
#define CS_SHM_SPIN_ALONE 20000
#define CS_SHM_SPIN_SHARED 0

/* Slurm's tasks on this node: entry SLURM_NODEID of
 * SLURM_STEP_TASKS_PER_NODE ("2(x3),1": 2 tasks on each of nodes 0-2, 1
 * on node 3); 0 when not under srun or unreadable. */
static long slurm_local_tasks(void)
{
    const char *v = getenv("SLURM_STEP_TASKS_PER_NODE"), *id = getenv("SLURM_NODEID");
    long node = id ? strtol(id, NULL, 10) : 0;
    while (v && *v && node >= 0) {
        char *e;
        long n = strtol(v, &e, 10), rep = 1;
        if (e == v)
            return 0;
        if (e[0] == '(' && e[1] == 'x') {
            rep = strtol(e + 2, &e, 10);
            if (*e++ != ')')
                return 0;
        }
        if (node < rep)
            return n;
        node -= rep;
        if (*e && *e != ',')
            return 0;
        v = *e ? e + 1 : e;
    }
    return 0;
}

/* How many processes of the job share this node's processors: the
 * launcher's count (tools/cluster.sh's nodes share one machine's
 * processors: its launch lines set COLLSEL_MACHINE_RANKS to the ranks on
 * the machine; Open MPI: OMPI_COMM_WORLD_LOCAL_SIZE, MPICH hydra:
 * MPI_LOCALNRANKS, Slurm's srun: slurm_local_tasks), at least the
 * communicator's own p.  A communicator of 2 ranks on a node
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
    long n = slurm_local_tasks();
    return n > p && n < 1 << 24 ? (int)n : p;
}

/* The processors online, asked once per process: glibc reads a file in
 * /sys for it, 6.5 us a time here (50 us the first), and every segment
 * asked twice (processors brought online later are not seen). */
static long online_cpus(void)
{
    static long n;
    long v = __atomic_load_n(&n, __ATOMIC_RELAXED);
    if (v == 0) {
        v = sysconf(_SC_NPROCESSORS_ONLN);
        v = v > 0 ? v : -1;
        __atomic_store_n(&n, v, __ATOMIC_RELAXED);
    }
    return v;
}

int cs_shm_spin_for(int p, int cpus)
{
    long ncpu = online_cpus();
    return (ncpu > 0 && node_ranks(p) > ncpu) || (cpus > 0 && p > cpus) ? CS_SHM_SPIN_SHARED
                                                                        : CS_SHM_SPIN_ALONE;
}

static int64_t stuck_ns = 10 * (int64_t)1000000000; /* COLLSEL_SHM_STUCK */

void cs_shm_set_stuck(double seconds)
{
    __atomic_store_n(&stuck_ns, (int64_t)(seconds * 1e9), __ATOMIC_RELAXED);
}

int64_t cs_shm_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* A process's state letter from /proc/PID/stat (R running, S sleeping, T
 * stopped, Z zombie, ...), '?' when unknown, 'X' when it is gone. */
static char proc_state(int64_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    FILE *fp = pid > 0 ? fopen(path, "r") : NULL;
    if (!fp)
        return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH ? 'X' : '?';
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = 0;
    const char *e = strrchr(buf, ')'); /* after "pid (comm)" */
    return e && e[1] == ' ' && e[2] ? e[2] : '?';
}

/* The stuck-wait report (one line, see shm.h). */
static void report_stuck(const cs_shm *s, const cs_shm_flag *f, uint64_t v, double waited)
{
    int owner = -1;
    for (int i = 0; i < s->p && owner < 0; i++)
        if ((const char *)f >= (const char *)s->r[i] && (const char *)f < (const char *)(s->r[i] + 1))
            owner = i;
    const cs_shm_rank *me = s->r[s->rank], *o = owner >= 0 ? s->r[owner] : NULL;
    char who[96] = "a flag outside the ranks' parts";
    if (o) {
        char st = proc_state(o->cma.pid);
        snprintf(who, sizeof who, "rank %d's flag (world rank %lld, pid %lld, state %c%s)", owner,
                 (long long)o->cma.world, (long long)o->cma.pid, st,
                 st == 'T' || st == 't' ? ": stopped" : st == 'X' ? ": gone" : "");
    }
    const cs_method *m = cs_method_running;
    cs_coll_warn("world rank %lld (pid %lld): one wait in %s on %s (%d ranks, rank %d here), "
                 "its shared-memory call %llu, has taken %.1f s: waiting for %s to reach %llu "
                 "(it holds %llu); still waiting",
                 (long long)me->cma.world, (long long)me->cma.pid, m ? m->name : "a shared-memory method",
                 s->comm, s->p, s->rank, (unsigned long long)s->calls, waited, who,
                 (unsigned long long)v,
                 (unsigned long long)__atomic_load_n(&f->v, __ATOMIC_RELAXED));
}

/* The slow path of a wait (yielding): every 64 polls, the clock; past the
 * stuck time, one report.  *t0: when the yielding began (0: not yet; -1:
 * reported). */
static void check_stuck(const cs_shm *s, const cs_shm_flag *f, uint64_t v, int64_t *t0)
{
    int64_t limit = __atomic_load_n(&stuck_ns, __ATOMIC_RELAXED);
    if (*t0 < 0 || limit <= 0 || !cs_coll_warn)
        return;
    int64_t t = cs_shm_now_ns();
    if (*t0 == 0) {
        *t0 = t;
    } else if (t - *t0 >= limit) {
        report_stuck(s, f, v, (double)(t - *t0) * 1e-9);
        *t0 = -1;
    }
}

void cs_shm_idle(const cs_shm *s, const cs_shm_flag *f, uint64_t v, cs_shm_idler *w)
{
    /* a long wait (past 128 polls, or yielding) maps a piece of the
     * receive buffer instead (prepare.c), then polls again */
    if (cs_shm_prep_job.left && (w->polls >= 128 || w->polls >= s->spin) && cs_shm_prepare_some())
        return;
    if (w->polls >= s->spin) {
        sched_yield(); /* yield on every further poll */
        if (f && w->yields++ % 64 == 0)
            check_stuck(s, f, v, &w->t0);
        return;
    }
    w->polls++;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

void cs_shm_wait(const cs_shm *s, const cs_shm_flag *f, uint64_t v)
{
    cs_shm_idler w = {0};
    while (__atomic_load_n(&f->v, __ATOMIC_ACQUIRE) < v)
        cs_shm_idle(s, f, v, &w);
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
