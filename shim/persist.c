/* Persistent collectives (MPI 4; wrap.h, CS_INIT_LIST): the requests of
 * MPI_Bcast_init ... with what to record for them, from the _init to
 * MPI_Request_free; each MPI_Start / MPI_Startall of one is one operation,
 * recorded (rec.h) in the cell of the blocking collective, at the _init's
 * call site, timed over the start call (as a non-blocking collective is
 * over its initiation).
 *
 * A hash table keyed by the request handle (open addressing, linear
 * probing, deletion by backward shift), grown by doubling, under one
 * mutex: starts are not the hot path of the blocking collectives, and a
 * request that is not ours (point-to-point persistent requests) costs one
 * probe.  Only used while recording (cs_rec_on).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "wrap.h"

#ifdef CS_HAVE_PERSISTENT

typedef struct preq {
    MPI_Request req; /* MPI_REQUEST_NULL: empty slot */
    MPI_Comm comm;
    uint32_t coll, procs;
    int root;
    uint64_t bytes;
    void *ra;
} preq;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static preq *tab;
static size_t cap, used; /* cap: 0 or a power of two */

static size_t slot_of(MPI_Request r)
{
    uint64_t h = (uint64_t)(uintptr_t)r * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

/* The slot of r, or of the empty slot where it would go. */
static size_t find(MPI_Request r)
{
    size_t i = slot_of(r);
    while (tab[i].req != MPI_REQUEST_NULL && tab[i].req != r)
        i = (i + 1) & (cap - 1);
    return i;
}

static int grow(void)
{
    size_t ncap = cap ? 2 * cap : 64;
    preq *old = tab, *t = malloc(ncap * sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < ncap; i++)
        t[i].req = MPI_REQUEST_NULL;
    size_t ocap = cap;
    tab = t;
    cap = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].req != MPI_REQUEST_NULL)
            tab[find(old[i].req)] = old[i];
    free(old);
    return 0;
}

void cs_persist_add(MPI_Request req, int coll, MPI_Comm comm, uint64_t bytes, int root,
                    void *ra)
{
    if (req == MPI_REQUEST_NULL)
        return;
    uint32_t procs = cs_comm_procs(comm);
    pthread_mutex_lock(&lock);
    if ((used + 1) * 2 <= cap || grow() == 0) {
        size_t i = find(req);
        used += tab[i].req == MPI_REQUEST_NULL;
        tab[i] = (preq){req, comm, (uint32_t)coll, procs, root, bytes, ra};
    }
    pthread_mutex_unlock(&lock);
}

static int lookup(MPI_Request r, preq *out)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    if (cap && r != MPI_REQUEST_NULL) {
        size_t i = find(r);
        if ((found = tab[i].req == r))
            *out = tab[i];
    }
    pthread_mutex_unlock(&lock);
    return found;
}

static void forget(MPI_Request r)
{
    pthread_mutex_lock(&lock);
    if (cap && r != MPI_REQUEST_NULL) {
        size_t i = find(r);
        if (tab[i].req == r) {
            used--;
            /* backward shift: move later entries of the run into the hole */
            for (size_t j = (i + 1) & (cap - 1); tab[j].req != MPI_REQUEST_NULL;
                 j = (j + 1) & (cap - 1)) {
                size_t home = slot_of(tab[j].req);
                if (((j - home) & (cap - 1)) >= ((j - i) & (cap - 1))) {
                    tab[i] = tab[j];
                    i = j;
                }
            }
            tab[i].req = MPI_REQUEST_NULL;
        }
    }
    pthread_mutex_unlock(&lock);
}

/* One start of p that took `ticks`.  The communicator's size comes from
 * the _init (the application may have freed its handle since: MPI keeps
 * the communicator for the request), put in the thread's cache so that
 * recording does not ask MPI. */
static void record(const preq *p, uint64_t t0, uint64_t t1)
{
    cs_hc *hc = cs_hc_slot(cs_tl_comm, (uintptr_t)p->comm);
    hc->h = (uintptr_t)p->comm;
    hc->gen = __atomic_load_n(&cs_handle_gen, __ATOMIC_RELAXED);
    hc->v = p->procs;
    cs_rslot s;
    int timed = cs_rec_begin(&s, (int)p->coll, p->comm, p->bytes, p->root, p->ra);
    cs_rec_end(&s, timed, t0, t1);
    /* the request's communicator may have been freed and its handle given
     * to a new one: the size put above must not stand for that one */
    hc->h = 0;
}

int cs_w_Start(MPI_Request *req)
{
    preq p;
    if (!cs_rec_on || !req || !lookup(*req, &p))
        return PMPI_Start(req);
    uint64_t t0 = cs_ticks();
    int rc = PMPI_Start(req);
    uint64_t t1 = cs_ticks();
    if (rc == MPI_SUCCESS)
        record(&p, t0, t1);
    return rc;
}

int cs_w_Startall(int n, MPI_Request reqs[])
{
    if (!cs_rec_on || n <= 0 || !reqs)
        return PMPI_Startall(n, reqs);
    uint64_t t0 = cs_ticks();
    int rc = PMPI_Startall(n, reqs);
    uint64_t t1 = cs_ticks();
    if (rc != MPI_SUCCESS)
        return rc;
    int ours = 0;
    preq p;
    for (int i = 0; i < n; i++)
        ours += lookup(reqs[i], &p);
    uint64_t share = (t1 - t0) / (uint64_t)(ours ? ours : 1);
    for (int i = 0; ours && i < n; i++) /* the call's time shared among them */
        if (lookup(reqs[i], &p))
            record(&p, t0, t0 + share);
    return rc;
}

int cs_w_Request_free(MPI_Request *req)
{
    if (cs_rec_on && req)
        forget(*req);
    return PMPI_Request_free(req);
}

/* At exit: the table (requests never freed). */
__attribute__((destructor)) static void persist_free(void)
{
    free(tab);
    tab = NULL;
    cap = used = 0;
}

#endif
