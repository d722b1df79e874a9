/* tools/cluster-mpich.c: a preload library for MPICH's ranks on
 * tools/cluster.sh's cluster (the launch line of `tools/cluster.sh
 * launcher mpich` preloads it: -genv LD_PRELOAD .../cluster-mpich.so).  It
 * works around two faults of MPICH 4.0.2 (ch4:ucx) over UCX 1.13's TCP
 * transport on this machine, and changes nothing else: the same calls,
 * the same results.
 *
 * 1. Waiting ranks do not yield.  MPICH waits by calling
 *    ucp_worker_progress() in a loop (MPIR_CVAR_POLLS_BEFORE_YIELD is
 *    ch3's; ch4 has no blocking or yielding wait).  With 4 ranks on 2 cores
 *    a waiting rank holds its core for the scheduler's time slice while the
 *    rank it waits for is not running: a barrier of 2 nodes x 2 ranks took
 *    6-11 ms.  ucp_worker_progress is interposed (MPICH calls it through
 *    libucp's PLT): the real one is called (dlsym RTLD_NEXT) and, when it
 *    progressed nothing, the rank calls sched_yield(), so the rank that has
 *    work runs at once (the same barrier: 30-70 us), as Open MPI's
 *    mpi_yield_when_idle does.  MPICH's shared-memory waits call the
 *    progress engine too (every so many polls).  A rank alone on its core
 *    gets it back at once.
 *
 * 2. MPI_Finalize hangs now and then (openucx/ucx#8738's shape: up to 1
 *    run in 4 at 4 ranks over 2-4 nodes, with or without collsel): MPICH's
 *    UCX finalize closes every endpoint in flush mode (ucp_disconnect_nb)
 *    and progresses until all closes complete; on one rank a close never
 *    completes, while the others wait in PMI's barrier after it (it does
 *    not complete either when they go on progressing their workers: a
 *    barrier with progress placed after the closes changed nothing).  Here
 *    the first ucp_disconnect_nb inside MPI_Finalize first waits for every
 *    rank to get there (a barrier of hydra's PMI-1 protocol on PMI_FD,
 *    progressing the worker meanwhile); after it every rank is inside
 *    MPI_Finalize, so every receive the application posted has completed
 *    and no rank needs data from another any more, and the endpoints are
 *    left to ucp_worker_destroy (MPICH's next step, which releases them)
 *    instead of a flush that may never end.  Outside MPI_Finalize, or
 *    without PMI_FD, or if the barrier fails, the real close runs.
 *
 * No dependency on MPI's or UCX's headers: the worker and endpoint are
 * opaque pointers, the return value of progress the count of events
 * progressed, of a close a request or NULL (done) (ucp.h).  A process
 * without libucp (a shell, hydra's proxy) never calls these.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef unsigned (*progress_fn)(void *worker);
typedef void *(*close_fn)(void *ep);
typedef int (*finalize_fn)(void);

static void *next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) { /* only called from a process that has libucp and libmpich */
        fprintf(stderr, "cluster-mpich: no %s after this library: %s\n", name, dlerror());
        abort();
    }
    return f;
}

static progress_fn real_progress;
static void *last_worker; /* the worker MPICH progresses (one VCI) */
static int finalizing;    /* inside MPI_Finalize */
static int closing;       /* 0: not yet, 1: barrier passed, -1: barrier failed */

unsigned ucp_worker_progress(void *worker);
void *ucp_disconnect_nb(void *ep);
int MPI_Finalize(void);
int PMPI_Finalize(void);

unsigned ucp_worker_progress(void *worker)
{
    if (!real_progress)
        real_progress = (progress_fn)next("ucp_worker_progress");
    last_worker = worker;
    unsigned n = real_progress(worker);
    if (n == 0)
        sched_yield();
    return n;
}

/* MPI_Finalize from the application, PMPI_Finalize from a PMPI tool (collsel) */
int MPI_Finalize(void)
{
    finalizing = 1;
    return ((finalize_fn)next("MPI_Finalize"))();
}

int PMPI_Finalize(void)
{
    finalizing = 1;
    return ((finalize_fn)next("PMPI_Finalize"))();
}

/* A barrier of every rank of the job over hydra's PMI-1 socket (PMI_FD):
 * barrier_in, then barrier_out read back while WORKER is progressed.
 * 0 when passed. */
static int pmi_barrier(void *worker)
{
    const char *e = getenv("PMI_FD"), *msg = "cmd=barrier_in\n";
    if (!e || !*e)
        return -1;
    int fd = atoi(e);
    for (size_t n = strlen(msg); n > 0;) {
        ssize_t k = write(fd, msg, n);
        if (k < 0 && errno != EINTR)
            return -1;
        if (k > 0)
            msg += k, n -= (size_t)k;
    }
    char buf[256];
    size_t len = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int k = poll(&p, 1, 0);
        if (k > 0) {
            ssize_t got = read(fd, buf + len, sizeof buf - 1 - len);
            if (got <= 0)
                return -1;
            len += (size_t)got;
            buf[len] = 0;
            if (strchr(buf, '\n'))
                return strstr(buf, "cmd=barrier_out") ? 0 : -1;
            if (len == sizeof buf - 1)
                return -1;
        } else if (k < 0 && errno != EINTR) {
            return -1;
        } else if (worker) {
            ucp_worker_progress(worker);
        }
    }
}

void *ucp_disconnect_nb(void *ep)
{
    static close_fn real_close;
    if (!real_close)
        real_close = (close_fn)next("ucp_disconnect_nb");
    if (finalizing && closing == 0) {
        closing = pmi_barrier(last_worker) == 0 ? 1 : -1;
        if (closing < 0)
            fprintf(stderr, "cluster-mpich: no PMI barrier at MPI_Finalize (PMI_FD %s): "
                            "the endpoints are closed by MPICH\n", getenv("PMI_FD") ? "unusable" : "unset");
    }
    return finalizing && closing == 1 ? NULL : real_close(ep);
}
