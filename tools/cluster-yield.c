/* tools/cluster-yield.c: a preload library for MPICH's ranks on
 * tools/cluster.sh's cluster when the job has more ranks than the machine
 * has cores: a rank whose UCX progress found nothing to do gives its core
 * away (sched_yield), as Open MPI's mpi_yield_when_idle does.
 *
 *   LD_PRELOAD=.../cluster-yield.so (the launch line of `tools/cluster.sh
 *   launcher mpich` sets it where the job is oversubscribed)
 *
 * MPICH 4.0 (ch4:ucx) waits by calling ucp_worker_progress() in a loop and
 * never yields (MPIR_CVAR_POLLS_BEFORE_YIELD is ch3's; ch4 has no blocking
 * or yielding wait).  With 4 ranks on 2 cores a waiting rank then holds its
 * core for the scheduler's time slice while the rank it waits for is not
 * running: a barrier of 4 ranks (2 nodes x 2) took 6-11 ms.  This library
 * interposes ucp_worker_progress (MPICH calls it through libucp's PLT, so
 * a preloaded definition is the one called): it calls the real one
 * (dlsym RTLD_NEXT) and, when that progressed nothing, sched_yield()s, so
 * the rank that has something to do runs at once (the same barrier: 30-70
 * us).  MPICH's shared-memory waits within a node call the progress engine
 * too (every so many polls), so they yield through here as well.  Nothing
 * else changes: the same calls, the same results; a rank that is alone on
 * its core returns from sched_yield at once.
 *
 * No dependency on UCX's headers: the worker is an opaque pointer, the
 * return value the count of events progressed (ucp.h).  A process that has
 * no libucp (a shell, hydra's proxy) never calls it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned (*progress_fn)(void *worker);

unsigned ucp_worker_progress(void *worker);

unsigned ucp_worker_progress(void *worker)
{
    static progress_fn real; /* the same value in every thread that sets it */
    progress_fn f = __atomic_load_n(&real, __ATOMIC_RELAXED);
    if (!f) {
        f = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
        if (!f) { /* only called from a process that has libucp */
            fprintf(stderr, "cluster-yield: no ucp_worker_progress after this library: %s\n",
                    dlerror());
            abort();
        }
        __atomic_store_n(&real, f, __ATOMIC_RELAXED);
    }
    unsigned n = f(worker);
    if (n == 0)
        sched_yield();
    return n;
}
