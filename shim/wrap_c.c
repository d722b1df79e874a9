/* The C entry points of the preload library: every collective of
 * profile.h's CS_RCOLL_LIST (blocking, and non-blocking recorded at
 * initiation; neighborhood ones too), with MPI 4 their persistent forms
 * (MPI_Bcast_init ...: each MPI_Start recorded, persist.c), MPI_Init,
 * MPI_Init_thread, MPI_Finalize, MPI_Abort, and the
 * frees that let a handle be reused (MPI_Comm_free, MPI_Comm_disconnect,
 * MPI_Type_free: they reset the handle caches of rec.h).
 *
 * Per call, with nothing configured: one branch, then the PMPI call.
 * Recording: cs_rec_hit() with the communicator, the memo key (wrap.h,
 * CS_K_*: the count and type, or the bytes this rank contributes), the
 * root and the application's return address; cs_rec_begin_slow() with the
 * bytes when the memo does not hold the call;
 * clock reads around the call when it is to be timed; cs_rec_end().
 * The MPI 4 large-count variants (MPI_Bcast_c, ...) where the library has
 * them (wrap.h, CS_WRAP_LIST_C) are recorded in the same cells.
 * The collectives collsel replaces go to cs_dispatch_*() when selection is active
 * for them; the time recorded covers whichever ran.  Failed calls
 * (rc != MPI_SUCCESS) are not recorded.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "coll/coll.h"
#include "wrap.h"

#define CS_EXPORT __attribute__((visibility("default")))
#define CS_RA __builtin_return_address(0)

static inline uint64_t B(long long count, MPI_Datatype t)
{
    return count > 0 ? (uint64_t)count * cs_type_size(t) : 0;
}

static inline int inter(MPI_Comm comm)
{
    int f = 0;
    PMPI_Comm_test_inter(comm, &f);
    return f;
}

static inline int NL(MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    return n;
}

static inline int NP(MPI_Comm comm)
{
    int n = 0;
    if (inter(comm))
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    return n;
}

/* 1 at the root of a rooted collective (MPI_ROOT on an intercommunicator),
 * 0 elsewhere, -1 for MPI_PROC_NULL (an intercommunicator rank that takes no
 * part). */
static inline int rootness(MPI_Comm comm, int root)
{
    if (root == MPI_PROC_NULL)
        return -1;
    if (root == MPI_ROOT)
        return 1;
    return cs_comm_rank(comm) == root; /* cached: no MPI call per call */
}

/* Only the significant arguments are read: a and b are evaluated lazily
 * (e.g. Gatherv's recvcounts may be NULL away from the root). */
#define RB(comm, root, a, b) \
    (rootness(comm, root) > 0 ? (a) : rootness(comm, root) == 0 ? (b) : 0)

#define NR(root, x) ((root) == MPI_PROC_NULL ? 0 : (x))

static uint64_t VM(int n, const int counts[], MPI_Datatype t)
{
    uint64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += counts[i] > 0 ? (uint64_t)counts[i] : 0;
    return n > 0 ? (sum * cs_type_size(t) + (uint64_t)n / 2) / (uint64_t)n : 0;
}

static uint64_t WM(int n, const int counts[], const MPI_Datatype types[])
{
    uint64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += B(counts[i], types[i]);
    return n > 0 ? (sum + (uint64_t)n / 2) / (uint64_t)n : 0;
}

#define IP(buf) ((const void *)(buf) == MPI_IN_PLACE)

static inline int ND(MPI_Comm comm)
{
    int out, in;
    cs_topo_degrees(comm, &out, &in);
    return out;
}

#ifdef CS_HAVE_LARGE_COUNT
static uint64_t VMC(int n, const MPI_Count counts[], MPI_Datatype t)
{
    uint64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += counts[i] > 0 ? (uint64_t)counts[i] : 0;
    return n > 0 ? (sum * cs_type_size(t) + (uint64_t)n / 2) / (uint64_t)n : 0;
}

static uint64_t WMC(int n, const MPI_Count counts[], const MPI_Datatype types[])
{
    uint64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += B(counts[i], types[i]);
    return n > 0 ? (sum + (uint64_t)n / 2) / (uint64_t)n : 0;
}

/* A large-count call whose count fits an int is the plain call: our
 * methods may take it; a larger count stays native. */
static int cs_dispatch_bcast_c(void *buf, MPI_Count count, MPI_Datatype dt, int root,
                               MPI_Comm comm)
{
    if (count < 0 || count > INT_MAX)
        return PMPI_Bcast_c(buf, count, dt, root, comm);
    return cs_dispatch_bcast(buf, (int)count, dt, root, comm);
}

static int cs_dispatch_reduce_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                                MPI_Op op, int root, MPI_Comm comm)
{
    if (count < 0 || count > INT_MAX)
        return PMPI_Reduce_c(sbuf, rbuf, count, dt, op, root, comm);
    return cs_dispatch_reduce(sbuf, rbuf, (int)count, dt, op, root, comm);
}

static int cs_dispatch_allreduce_c(const void *sbuf, void *rbuf, MPI_Count count,
                                   MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    if (count < 0 || count > INT_MAX)
        return PMPI_Allreduce_c(sbuf, rbuf, count, dt, op, comm);
    return cs_dispatch_allreduce(sbuf, rbuf, (int)count, dt, op, comm);
}

static int cs_dispatch_alltoall_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                                  void *rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (scount < 0 || scount > INT_MAX || rcount < 0 || rcount > INT_MAX)
        return PMPI_Alltoall_c(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    return cs_dispatch_alltoall(sbuf, (int)scount, stype, rbuf, (int)rcount, rtype, comm);
}
#endif

/* The parts of a key (wrap.h, CS_K_*). */
#define CS_K_LAZY(lazy, a, t) (lazy)
#define CS_K_A(lazy, a, t) (a)
#define CS_K_T(lazy, a, t) (t)

#define CS_DEFINE(NAME, ID, PARAMS, ARGS, ROOT, BYTES, SEL, FN, KEY)                       \
    int cs_w_##NAME(void *ra, CS_UNPAREN PARAMS)                                           \
    {                                                                                      \
        if (__builtin_expect(!cs_hook_on, 1))                                              \
            return PMPI_##NAME ARGS;                                                       \
        int sel = SEL >= 0 && cs_sel_active[SEL >= 0 ? SEL : 0];                           \
        if (!cs_rec_on)                                                                    \
            return sel ? FN ARGS : PMPI_##NAME ARGS;                                       \
        cs_rslot s_;                                                                       \
        uint64_t ka_ = CS_K_LAZY KEY ? (uint64_t)CS_K_A KEY : (BYTES);                     \
        uintptr_t kb_ = CS_K_LAZY KEY ? cs_hkey(CS_K_T KEY) : CS_KEY_BYTES;                \
        int timed = cs_rec_hit(&s_, CS_R_##ID, comm, ka_, kb_, (ROOT), CS_SITE_RA(ra));    \
        if (timed < 0)                                                                     \
            timed = cs_rec_begin_slow(&s_, comm, CS_K_LAZY KEY ? (BYTES) : ka_);           \
        uint64_t t0 = timed ? cs_ticks() : 0;                                              \
        int rc = sel ? FN ARGS : PMPI_##NAME ARGS;                                         \
        uint64_t t1 = timed ? cs_ticks() : 0;                                              \
        if (rc == MPI_SUCCESS)                                                             \
            cs_rec_end(&s_, timed, t0, t1);                                                \
        return rc;                                                                         \
    }                                                                                      \
    CS_EXPORT int MPI_##NAME PARAMS { return cs_w_##NAME(CS_RA, CS_UNPAREN ARGS); }

CS_WRAP_LIST(CS_DEFINE)
CS_WRAP_LIST_C(CS_DEFINE)

/* Persistent collectives (wrap.h, CS_INIT_LIST): the request is
 * remembered with its cell; its starts are recorded (persist.c). */
#define CS_DEFINE_INIT(NAME, ID, PARAMS, ARGS, ROOT, BYTES)                                \
    int cs_w_##NAME(void *ra, CS_UNPAREN PARAMS)                                           \
    {                                                                                      \
        int rc = PMPI_##NAME ARGS;                                                         \
        if (rc == MPI_SUCCESS && cs_rec_on)                                                \
            cs_persist_add(*req, CS_R_##ID, comm, (BYTES), (ROOT), CS_SITE_RA(ra));        \
        return rc;                                                                         \
    }                                                                                      \
    CS_EXPORT int MPI_##NAME PARAMS { return cs_w_##NAME(CS_RA, CS_UNPAREN ARGS); }
CS_INIT_LIST(CS_DEFINE_INIT)

#ifdef CS_HAVE_PERSISTENT
CS_EXPORT int MPI_Start(MPI_Request *req)
{
    return cs_w_Start(req);
}

CS_EXPORT int MPI_Startall(int n, MPI_Request reqs[])
{
    return cs_w_Startall(n, reqs);
}

CS_EXPORT int MPI_Request_free(MPI_Request *req)
{
    return cs_w_Request_free(req);
}
#endif

/* The profile lists every collective of the table, blocking and
 * non-blocking (record/profile.h; append-only for the file format). */
_Static_assert(2 * CS_NWRAP_ROWS == CS_R_N,
               "wrap.h's CS_COLL_TABLE and profile.h's CS_RCOLL_LIST disagree");

/* Life cycle. */

CS_EXPORT int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        cs_life_init(MPI_THREAD_SINGLE);
    return rc;
}

CS_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        cs_life_init(*provided);
    return rc;
}

#if MPI_VERSION >= 4
/* MPI 4 sessions: collsel starts at MPI_Init / MPI_Init_thread (the
 * profile is merged over MPI_COMM_WORLD), so the collectives of a process
 * that starts MPI only through MPI_Session_init are neither recorded nor
 * tuned.  When collsel was asked to (COLLSEL_RECORD / _TREE / _FORCE), one
 * line says so, from the launcher's rank 0 only. */
static int launcher_rank(void)
{
    static const char *vars[] = {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v);
    }
    return 0;
}

int cs_w_Session_init(MPI_Info info, MPI_Errhandler eh, MPI_Session *session)
{
    static int said;
    int rc = PMPI_Session_init(info, eh, session), init = 0;
    PMPI_Initialized(&init);
    const char *rec = getenv("COLLSEL_RECORD"), *tree = getenv("COLLSEL_TREE"),
               *force = getenv("COLLSEL_FORCE");
    int asked = (rec && *rec) || (tree && *tree) || (force && *force);
    if (rc == MPI_SUCCESS && !init && asked && !__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED) &&
        launcher_rank() == 0)
        fprintf(stderr, "collsel: MPI_Session_init: collectives of an application that starts "
                        "MPI with sessions are not recorded or tuned (collsel starts at "
                        "MPI_Init / MPI_Init_thread); running natively\n");
    return rc;
}

CS_EXPORT int MPI_Session_init(MPI_Info info, MPI_Errhandler eh, MPI_Session *session)
{
    return cs_w_Session_init(info, eh, session);
}
#endif

CS_EXPORT int MPI_Finalize(void)
{
    cs_life_finalize();
    return PMPI_Finalize();
}

/* Frees: a handle may be reused for a new object afterwards, so the
 * handle caches (rec.h) and the communicator states' cache (commstate.c)
 * start over, before the free and again after it: MPI runs attribute
 * delete callbacks inside the free, and the application's may call
 * collectives on the object being freed, which caches it again.  While a
 * communicator is being freed, dispatch leaves it native (coll.h,
 * cs_comm_freeing_begin): our own state of it may be deleted already. */
static int comm_free(MPI_Comm *comm, int (*pfree)(MPI_Comm *))
{
    cs_comm_freeing f;
    MPI_Comm h = comm ? *comm : MPI_COMM_NULL;
    cs_comm_freeing_begin(&f, h);
    cs_handle_freed();
    if (cs_rec_on) /* its arrival state is kept, the handle forgotten */
        cs_arr_comm_freed(h);
    int rc = pfree(comm);
    cs_handle_freed();
    if (cs_rec_on) /* and any state its delete callbacks' calls made */
        cs_arr_comm_freed(h);
    cs_comm_freeing_end(&f);
    return rc;
}

int cs_w_Comm_free(MPI_Comm *comm)
{
    return comm_free(comm, PMPI_Comm_free);
}

int cs_w_Comm_disconnect(MPI_Comm *comm)
{
    return comm_free(comm, PMPI_Comm_disconnect);
}

int cs_w_Type_free(MPI_Datatype *type)
{
    cs_handle_freed();
    int rc = PMPI_Type_free(type);
    cs_handle_freed();
    return rc;
}

CS_EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
    return cs_w_Comm_free(comm);
}

CS_EXPORT int MPI_Comm_disconnect(MPI_Comm *comm)
{
    return cs_w_Comm_disconnect(comm);
}

CS_EXPORT int MPI_Type_free(MPI_Datatype *type)
{
    return cs_w_Type_free(type);
}

CS_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    cs_life_abort();
    return PMPI_Abort(comm, errorcode);
}
