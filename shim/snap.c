/* Periodic snapshots of a recording rank (COLLSEL_RECORD_INTERVAL): a
 * helper thread wakes up every interval and hands this rank's data so far
 * to life.c, which writes it to the rank's partial file, so that a job
 * killed without warning (SIGKILL, the out-of-memory killer, a hang ended
 * by the batch system) keeps what it recorded up to the last interval.
 *
 * The recording threads never wait for it.  Each thread table carries a
 * seqlock counter (rec.h: odd while its owner changes it outside the
 * memo's inline counting, whose single stores need none; two plain stores
 * per call that takes the slow path).  To collect, the helper
 *  1. gives every table a buffer and moves the request counter cs_snap_req
 *     on; an owner that records a call sees it when leaving its table and
 *     copies its own table into the buffer (a memcpy of about 90 KiB, once
 *     per interval, outside any MPI call), then answers;
 *  2. meanwhile copies the tables that do not answer itself, keeping a copy
 *     only if the table's counter was even and unchanged around the copy
 *     (a thread blocked in a collective that never returns, or idle);
 *  3. after at most SNAP_WAIT, uses for a table that gave neither its copy
 *     of the previous round (never a torn one).
 * The copies are then flushed and turned into a profile by rec.c, without
 * any MPI call (call sites are symbolised here, on the helper thread).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rec.h"

#define SNAP_WAIT 0.2    /* seconds to wait for busy threads to answer */
#define SNAP_POLL 0.001  /* seconds between looks */
#define SNAP_TABLES 1024 /* thread tables followed (threads that record) */

/* A copy of t taken while its owner did not change it (but for the
 * memos' pending counts, each read whole), or -1. */
static int try_copy(cs_rtab *dst, const cs_rtab *t)
{
    unsigned s1 = __atomic_load_n(&t->seq, __ATOMIC_ACQUIRE);
    if (s1 & 1)
        return -1;
    memcpy(dst, t, sizeof *dst);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return __atomic_load_n(&t->seq, __ATOMIC_RELAXED) == s1 ? 0 : -1;
}

/* The helper's own state (its thread only). */
static struct {
    cs_rtab *orig[SNAP_TABLES];
    cs_rtab *copy[SNAP_TABLES]; /* last consistent copy, or NULL */
    cs_rtab *scratch;           /* for try_copy */
    size_t n;
} tabs;

static void nap(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Follow the tables of threads that started recording since the last
 * round: each gets its answer buffer (before the request that asks for it). */
static void follow_new_tables(void)
{
    cs_rtab *now[SNAP_TABLES];
    size_t n = cs_rec_tables(now, SNAP_TABLES);
    if (n > SNAP_TABLES)
        n = SNAP_TABLES; /* more recording threads than that: the first ones */
    for (size_t i = n; i-- > 0 && tabs.n < SNAP_TABLES;) { /* oldest first */
        size_t k;
        for (k = 0; k < tabs.n && tabs.orig[k] != now[i]; k++)
            ;
        if (k < tabs.n)
            continue;
        cs_rtab *buf = malloc(sizeof *buf);
        if (!buf)
            return;
        tabs.orig[tabs.n] = now[i];
        tabs.copy[tabs.n++] = NULL;
        __atomic_store_n(&now[i]->snap, buf, __ATOMIC_RELEASE);
    }
}

/* Table k's copy from src (its owner's answer, or scratch). */
static int keep_copy(size_t k, const cs_rtab *src)
{
    if (!tabs.copy[k] && !(tabs.copy[k] = malloc(sizeof(cs_rtab))))
        return -1;
    memcpy(tabs.copy[k], src, sizeof(cs_rtab));
    return 0;
}

int cs_snap_collect(cs_profile *p, double spt)
{
    if (!tabs.scratch && !(tabs.scratch = malloc(sizeof(cs_rtab))))
        return -1;
    follow_new_tables();
    unsigned req = __atomic_add_fetch(&cs_snap_req, 1, __ATOMIC_ACQ_REL);
    char fresh[SNAP_TABLES] = {0};
    size_t left = tabs.n;
    for (double waited = 0;; waited += SNAP_POLL) {
        for (size_t k = 0; k < tabs.n; k++) {
            cs_rtab *t = tabs.orig[k];
            if (fresh[k])
                continue;
            if (__atomic_load_n(&t->snap_ans, __ATOMIC_ACQUIRE) == req)
                fresh[k] = keep_copy(k, t->snap) == 0;
            else if (try_copy(tabs.scratch, t) == 0)
                fresh[k] = keep_copy(k, tabs.scratch) == 0;
            left -= fresh[k];
        }
        if (left == 0 || waited >= SNAP_WAIT)
            break;
        nap(SNAP_POLL);
    }
    cs_rtab *copy[SNAP_TABLES], *orig[SNAP_TABLES];
    size_t m = 0;
    for (size_t k = 0; k < tabs.n; k++)
        if (tabs.copy[k]) { /* fresh, or the previous round's */
            copy[m] = tabs.copy[k];
            orig[m++] = tabs.orig[k];
        }
    return cs_rec_build_copies(p, spt, copy, orig, m);
}

/* The thread. */
static pthread_t thread;
static int running, stop;
static double interval;
static void (*write_cb)(void);
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv;

static void *loop(void *arg)
{
    (void)arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&mu);
    for (;;) {
        double t = (double)next.tv_sec + 1e-9 * (double)next.tv_nsec + interval;
        next.tv_sec = (time_t)t;
        next.tv_nsec = (long)((t - (double)next.tv_sec) * 1e9);
        while (!stop && pthread_cond_timedwait(&cv, &mu, &next) != ETIMEDOUT)
            ;
        if (stop)
            break;
        pthread_mutex_unlock(&mu);
        write_cb();
        pthread_mutex_lock(&mu);
        struct timespec now; /* a late round: the next one an interval later */
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
            next = now;
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

int cs_snap_start(double every, void (*write)(void))
{
    pthread_condattr_t ca;
    if (running || every <= 0)
        return 0;
    interval = every;
    write_cb = write;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&cv, &ca);
    pthread_condattr_destroy(&ca);
    /* the application's signals (SIGTERM: the partial file) go to its own
     * threads, not to this one */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&thread, NULL, loop, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return -1;
    running = 1;
    return 0;
}

void cs_snap_stop(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&mu);
    stop = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(thread, NULL);
    running = 0;
}
