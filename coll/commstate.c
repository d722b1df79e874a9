/* Per-communicator state and the call descriptor.
 *
 * The state of a user communicator is created on first use and cached on
 * it with an attribute (one keyval, created once per process).  Creating it
 * is local: rank, size, intercommunicator flag.  The private communicator
 * that carries our traffic is created separately (cs_call_attach), the
 * first time one of our methods runs on the communicator: collective, and
 * every rank gets there together because the method choice is identical on
 * every rank.  It is made with PMPI_Comm_create over the communicator's own
 * group rather than PMPI_Comm_dup so that the application's attribute copy
 * callbacks and info hints are not applied to it (same ranks, same order).
 *
 * Lifetime: the attribute's delete callback (the user frees the
 * communicator) frees the private communicator, the topology cache and the
 * state.  While the preload library's free wrapper runs, no state is looked
 * up or created for the communicator being freed (cs_comm_freeing_begin):
 * collectives that the application's own delete callbacks run on it are
 * native.  At MPI_Finalize, MPI_COMM_SELF's attributes are deleted first,
 * while MPI is still fully usable: a second keyval on MPI_COMM_SELF frees
 * every private communicator still alive at that point, so that delete
 * callbacks run later in MPI_Finalize (Open MPI deletes MPI_COMM_WORLD's
 * attributes too) only release memory.  Intercommunicators get a state
 * with is_inter set and no private communicator (never used by us).
 */
#include <pthread.h>
#include <stdlib.h>

#include "coll.h"
#include "shm/shm.h"
#include "topo.h"

typedef struct state_node {
    cs_comm_state st; /* first member: the attribute value is this node */
    struct state_node *prev, *next; /* states with a live private comm */
} state_node;

static int state_key = MPI_KEYVAL_INVALID, self_key = MPI_KEYVAL_INVALID;
static int key_rc = MPI_SUCCESS;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static state_node live = {.prev = &live, .next = &live};

/* Per-thread cache of the last few (communicator -> state) look-ups, so
 * that the per-call path does not pay PMPI_Comm_get_attr (~30 ns in Open
 * MPI).  A freed communicator's handle may be reused: every state deletion
 * bumps state_gen, and so do the free wrappers of the preload library
 * before and after the free (cs_comm_freeing_begin/end), which invalidates
 * all cached entries of all threads.  A communicator that this thread is
 * freeing (the list `freeing`) is never entered: after the bump at the
 * start of its free, look-ups of it always miss the cache and find it in
 * the list (only there: the per-call path stays one cache look-up). */
#define CS_TCACHE 4
#ifndef COLLSEL_SMPI
#define CS_TLS _Thread_local __attribute__((tls_model("initial-exec"))) /* no
        __tls_get_addr call: the preload library is loaded at start-up */
#else
#define CS_TLS _Thread_local /* SMPI dlopens one copy per simulated rank:
        initial-exec would exhaust the static TLS block */
#endif
static unsigned long state_gen = 1;
static CS_TLS struct {
    MPI_Comm comm;
    cs_comm_state *st;
    unsigned long gen;
} tcache[CS_TCACHE];
static CS_TLS unsigned tcache_next;
static CS_TLS cs_comm_freeing *freeing; /* innermost free of this thread */

void cs_comm_freeing_begin(cs_comm_freeing *f, MPI_Comm comm)
{
    f->comm = comm;
    f->up = freeing;
    freeing = f;
    __atomic_fetch_add(&state_gen, 1, __ATOMIC_ACQ_REL);
}

void cs_comm_freeing_end(cs_comm_freeing *f)
{
    freeing = f->up;
    __atomic_fetch_add(&state_gen, 1, __ATOMIC_ACQ_REL);
}

static void live_unlink(state_node *n)
{
    pthread_mutex_lock(&live_lock);
    if (n->next) {
        n->prev->next = n->next;
        n->next->prev = n->prev;
        n->prev = n->next = NULL;
    }
    pthread_mutex_unlock(&live_lock);
}

static int state_delete(MPI_Comm comm, int key, void *attr, void *extra)
{
    (void)comm, (void)key, (void)extra;
    state_node *n = attr;
    __atomic_fetch_add(&state_gen, 1, __ATOMIC_ACQ_REL);
    live_unlink(n);
    int rc = MPI_SUCCESS;
    cs_shm_state_free(&n->st); /* collective, as the free of the user's communicator */
    if (n->st.pcomm != MPI_COMM_NULL)
        rc = PMPI_Comm_free(&n->st.pcomm);
    cs_topo_cache_free(n->st.topo_cache);
    free(n);
    return rc;
}

/* MPI_Finalize, MPI_COMM_SELF's attributes: free every private comm. */
static int finalize_hook(MPI_Comm comm, int key, void *attr, void *extra)
{
    (void)comm, (void)key, (void)attr, (void)extra;
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&live_lock);
    while (live.next != &live) {
        state_node *n = live.next;
        n->prev->next = n->next;
        n->next->prev = n->prev;
        n->prev = n->next = NULL;
        cs_shm_state_free(&n->st);
        int r = PMPI_Comm_free(&n->st.pcomm);
        if (r != MPI_SUCCESS)
            rc = r;
    }
    pthread_mutex_unlock(&live_lock);
    return rc;
}

static void create_keys(void)
{
    int rc;
    CS_TRY(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, state_delete, &state_key, NULL));
    CS_TRY(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_hook, &self_key, NULL));
    CS_TRY(PMPI_Comm_set_attr(MPI_COMM_SELF, self_key, NULL));
out:
    key_rc = rc;
}

int cs_comm_states_init(void)
{
    pthread_once(&key_once, create_keys);
    return key_rc;
}

static int remember(MPI_Comm comm, cs_comm_state *st, unsigned long gen)
{
    unsigned i = tcache_next++ % CS_TCACHE;
    tcache[i].comm = comm;
    tcache[i].st = st;
    tcache[i].gen = gen;
    return MPI_SUCCESS;
}

/* The state of comm, created (locally) if it has none yet; MPI_ERR_COMM
 * while this thread is freeing comm (its state may be gone already). */
static int state_peek(MPI_Comm comm, cs_comm_state **st)
{
    unsigned long gen = __atomic_load_n(&state_gen, __ATOMIC_ACQUIRE);
    for (int i = 0; i < CS_TCACHE; i++)
        if (tcache[i].comm == comm && tcache[i].gen == gen && tcache[i].st) {
            *st = tcache[i].st;
            return MPI_SUCCESS;
        }
    for (const cs_comm_freeing *f = freeing; f; f = f->up)
        if (f->comm == comm)
            return MPI_ERR_COMM;
    pthread_once(&key_once, create_keys);
    state_node *n = NULL;
    void *v;
    int found, rc;
    CS_TRY(key_rc);
    CS_TRY(PMPI_Comm_get_attr(comm, state_key, &v, &found));
    if (found)
        return remember(comm, *st = v, gen);
    rc = MPI_ERR_NO_MEM;
    if (!(n = calloc(1, sizeof *n)))
        goto out;
    n->st.pcomm = MPI_COMM_NULL;
    n->st.nodecomm = MPI_COMM_NULL;
    CS_TRY(PMPI_Comm_test_inter(comm, &n->st.is_inter));
    CS_TRY(PMPI_Comm_rank(comm, &n->st.rank));
    CS_TRY(PMPI_Comm_size(comm, &n->st.size));
    CS_TRY(PMPI_Comm_set_attr(comm, state_key, n));
    return remember(comm, *st = &n->st, gen);
out:
    free(n);
    return rc;
}

/* Create the private communicator of st (collective over comm). */
static int state_attach(MPI_Comm comm, cs_comm_state *st)
{
    if (st->pcomm != MPI_COMM_NULL)
        return MPI_SUCCESS;
    if (st->is_inter)
        return MPI_ERR_COMM;
    if (st->dup_rc != MPI_SUCCESS)
        return st->dup_rc; /* failed before: do not retry */
    MPI_Group g;
    int rc;
    CS_TRY(PMPI_Comm_group(comm, &g));
    rc = PMPI_Comm_create(comm, g, &st->pcomm);
    PMPI_Group_free(&g);
    CS_TRY_CODE(rc);
    /* errors go to the caller, then to comm's handler */
    CS_TRY(PMPI_Comm_set_errhandler(st->pcomm, MPI_ERRORS_RETURN));
    if (cs_shm_node_init(st) != MPI_SUCCESS) /* which ranks share memory */
        st->node_local = 0;
    state_node *n = (state_node *)st;
    pthread_mutex_lock(&live_lock);
    n->next = live.next;
    n->prev = &live;
    live.next->prev = n;
    live.next = n;
    pthread_mutex_unlock(&live_lock);
    return MPI_SUCCESS;
out:
    if (st->pcomm != MPI_COMM_NULL)
        PMPI_Comm_free(&st->pcomm);
    st->pcomm = MPI_COMM_NULL;
    st->dup_rc = rc;
    return rc;
}

int cs_comm_state_get(MPI_Comm comm, cs_comm_state **st)
{
    int rc;
    CS_TRY(state_peek(comm, st));
    if (!(*st)->is_inter)
        CS_TRY(state_attach(comm, *st));
out:
    return rc;
}

static int call_init(cs_call *c, enum cs_coll coll, MPI_Comm comm)
{
    cs_comm_state *st;
    int rc;
    CS_TRY(state_peek(comm, &st));
    /* field by field: a compound literal zeroes the whole struct first
     * (rep stos), a measurable part of the per-call cost */
    c->coll = coll;
    c->sendbuf = NULL;
    c->buf = NULL;
    c->count = 0;
    c->dt = MPI_DATATYPE_NULL;
    c->rcount = 0;
    c->rdt = MPI_DATATYPE_NULL;
    c->op = MPI_OP_NULL;
    c->commute = 1;
    c->root = 0;
    c->comm = comm;
    c->pcomm = st->pcomm;
    c->st = st;
    c->rank = st->rank;
    c->size = st->size;
    c->bytes = 0;
    c->reorder_fp = 0;
out:
    return rc;
}

static int call_bytes(cs_call *c)
{
    MPI_Count sz;
    int rc;
    CS_TRY(PMPI_Type_size_x(c->dt, &sz));
    if (sz < 0 || c->count < 0)
        return MPI_ERR_COUNT;
    c->bytes = (size_t)sz * (size_t)c->count;
out:
    return rc;
}

int cs_call_bcast_local(cs_call *c, void *buf, int count, MPI_Datatype dt, int root,
                        MPI_Comm comm)
{
    int rc;
    CS_TRY(call_init(c, CS_BCAST, comm));
    c->buf = buf;
    c->count = count;
    c->dt = dt;
    c->root = root;
    rc = call_bytes(c);
out:
    return rc;
}

/* Reduce and allreduce: buffers, op and its commutativity. */
static int call_reduction(cs_call *c, enum cs_coll coll, const void *sendbuf, void *recvbuf,
                          int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
    int rc;
    CS_TRY(call_init(c, coll, comm));
    c->sendbuf = sendbuf;
    c->buf = recvbuf;
    c->count = count;
    c->dt = dt;
    c->op = op;
    c->root = root;
    CS_TRY(PMPI_Op_commutative(op, &c->commute));
    rc = call_bytes(c);
out:
    return rc;
}

int cs_call_reduce_local(cs_call *c, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
    return call_reduction(c, CS_REDUCE, sendbuf, recvbuf, count, dt, op, root, comm);
}

int cs_call_barrier_local(cs_call *c, MPI_Comm comm)
{
    return call_init(c, CS_BARRIER, comm);
}

int cs_call_allreduce_local(cs_call *c, const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return call_reduction(c, CS_ALLREDUCE, sendbuf, recvbuf, count, dt, op, 0, comm);
}

int cs_call_alltoall_local(cs_call *c, const void *sendbuf, int scount, MPI_Datatype sdt,
                           void *recvbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    int rc;
    CS_TRY(call_init(c, CS_ALLTOALL, comm));
    c->sendbuf = sendbuf;
    c->buf = recvbuf;
    c->rcount = rcount;
    c->rdt = rdt;
    /* in place: the blocks are recvcount x recvtype, also what is sent */
    c->count = sendbuf == MPI_IN_PLACE ? rcount : scount;
    c->dt = sendbuf == MPI_IN_PLACE ? rdt : sdt;
    rc = call_bytes(c);
out:
    return rc;
}

/* The first meeting of a communicator's ranks in a call of ours is the
 * private duplicate's creation; a rank that gets there first would wait
 * inside the MPI library.  For a call of CS_SHM_PREPARE_MIN bytes or more
 * (the same on every rank, so is this barrier), the ranks meet first in a
 * barrier that the early ones spend mapping their receive buffers
 * (shm/prepare.c): the first call on a buffer the application has just
 * allocated, which is often the first of a communicator too. */
static void meet_preparing(const cs_call *c)
{
    cs_shm_prep was = cs_shm_prepare_begin(c);
    MPI_Request r;
    if (PMPI_Ibarrier(c->comm, &r) == MPI_SUCCESS) {
        int done = 0;
        while (PMPI_Test(&r, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
            if (!cs_shm_prepare_some()) { /* nothing (more) to map */
                PMPI_Wait(&r, MPI_STATUS_IGNORE);
                break;
            }
    }
    cs_shm_prepare_end(was);
}

int cs_call_attach(cs_call *c)
{
    if (c->st->pcomm == MPI_COMM_NULL && !c->st->is_inter && c->st->dup_rc == MPI_SUCCESS &&
        c->bytes >= CS_SHM_PREPARE_MIN && c->coll != CS_BARRIER)
        meet_preparing(c);
    int rc = state_attach(c->comm, c->st);
    c->pcomm = c->st->pcomm;
    return rc;
}

/* The full descriptor: after a successful local fill, the private
 * duplicate (intracommunicators). */
static int attached(cs_call *c, int rc)
{
    return rc != MPI_SUCCESS || c->st->is_inter ? rc : cs_call_attach(c);
}

int cs_call_bcast(cs_call *c, void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return attached(c, cs_call_bcast_local(c, buf, count, dt, root, comm));
}

int cs_call_reduce(cs_call *c, const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
    return attached(c, cs_call_reduce_local(c, sendbuf, recvbuf, count, dt, op, root, comm));
}

int cs_call_barrier(cs_call *c, MPI_Comm comm)
{
    return attached(c, cs_call_barrier_local(c, comm));
}

int cs_call_allreduce(cs_call *c, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return attached(c, cs_call_allreduce_local(c, sendbuf, recvbuf, count, dt, op, comm));
}

int cs_call_alltoall(cs_call *c, const void *sendbuf, int scount, MPI_Datatype sdt,
                     void *recvbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    return attached(c, cs_call_alltoall_local(c, sendbuf, scount, sdt, recvbuf, rcount, rdt,
                                              comm));
}

int cs_dt_plain(MPI_Datatype dt)
{
    return dt == MPI_BYTE || dt == MPI_CHAR || dt == MPI_INT || dt == MPI_DOUBLE ||
           dt == MPI_UNSIGNED_CHAR || dt == MPI_SIGNED_CHAR || dt == MPI_UNSIGNED ||
           dt == MPI_LONG || dt == MPI_UNSIGNED_LONG || dt == MPI_LONG_LONG || dt == MPI_FLOAT ||
           dt == MPI_SHORT || dt == MPI_INT32_T || dt == MPI_INT64_T || dt == MPI_UINT64_T;
}
