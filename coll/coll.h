/* collsel algorithms: the call descriptor, the method registry, and the
 * entry points of every algorithm.
 *
 * A *method* is (collective, algorithm, segment size, fan-out/radix) with a
 * stable dotted name ("bcast.pipeline.seg8k").  There is one registry table
 * per collective (bcast/registry.c, reduce/registry.c, barrier/registry.c,
 * allreduce/registry.c, alltoall/registry.c);
 * everything that needs method names (env parser, tree files, `collsel
 * methods`, collsel-replay, the test matrix) reads them through the API
 * below.  Entry 0 of every table is the MPI library's own call
 * ("bcast.native", ...), so index 0 always means native.
 *
 * Naming (stable: tree files, COLLSEL_FORCE, perf tables and exports use it):
 *   COLL.ALGO[.QUALIFIER...][.kN][.segNk]   segment suffix absent = unsegmented;
 *   segment sizes 1, 8, 16, 32, 64, 128 KiB -> seg1k seg8k seg16k seg32k seg64k seg128k.
 *   The registries are the only list: `collsel methods` prints it.  The
 *   exports map every family (select/render/export.c; the test
 *   render_export_families walks every registry method through it).
 *
 * Rules for algorithms:
 *  - they talk only through PMPI_* point-to-point calls on c->pcomm, the
 *    private duplicate of the user communicator (never on c->comm);
 *  - they never read configuration: parameters come from the method entry
 *    (m->segsize, m->fanout);
 *  - errors from PMPI_* are returned to the caller unchanged, through one
 *    idiom (MPICH's MPIR_ERR_CHECK / fn_fail): CS_TRY(call) below, which
 *    keeps the code in the function's `rc` and jumps to its `out` label,
 *    where the clean-up runs and rc is returned; CS_TRY_CODE(rc) for a code
 *    kept until a shared-memory step is finished (its flags raised, so
 *    that no peer waits forever);
 *  - an algorithm may assume m->applies (if set) returned 1 for this call.
 *    applies() must depend only on values that are identical on every rank
 *    of the call (comm size, total bytes, op commutativity, count for
 *    reduce, root), never on per-rank datatype layout, so that every rank
 *    picks the same method.
 *  - Bcast moves bytes: a non-contiguous datatype is packed into a
 *    temporary contiguous buffer by the engine (ranks may legally pass
 *    different datatypes with the same type signature).  Reduce works on
 *    elements of c->dt (identical on all ranks) and applies the op with
 *    PMPI_Reduce_local.
 */
#ifndef COLLSEL_COLL_H
#define COLLSEL_COLL_H

#include <mpi.h>
#include <stddef.h>

#include "common/colls.h"

/* The error idiom of every algorithm: `int rc = MPI_SUCCESS;` ...
 * CS_TRY(PMPI_Send(...)); ... `out:` clean-up; `return rc;`.  Resources
 * that `out:` frees are declared (NULL) before the first CS_TRY. */
#define CS_TRY(call)                      \
    do {                                  \
        if ((rc = (call)) != MPI_SUCCESS) \
            goto out;                     \
    } while (0)
#define CS_TRY_CODE(code)                 \
    do {                                  \
        if ((code) != MPI_SUCCESS)        \
            goto out;                     \
    } while (0)

/* Where piece j of n items cut into p pieces starts (j = 0 .. p; piece j
 * is [cs_piece_at(n, p, j), cs_piece_at(n, p, j + 1))): as even as can be,
 * the first n % p pieces one item larger.  The blocks of the ring and
 * Rabenseifner reductions, the pieces of the shared-memory ones and of
 * bcast.shm.ag. */
static inline size_t cs_piece_at(size_t n, int p, int j)
{
    const size_t q = n / (size_t)p, extra = n % (size_t)p, i = (size_t)j;
    return i * q + (i < extra ? i : extra);
}

/* Per-communicator state, created on first use, cached on the user
 * communicator with an attribute and freed by the attribute's delete
 * callback (commstate.c).  The private communicator pcomm (same group, same
 * ranks; made with PMPI_Comm_create so that the application's attribute
 * copy callbacks do not run on it) is created by the first collective that
 * runs one of our methods; private communicators still alive at
 * MPI_Finalize are freed while MPI_COMM_SELF's attributes are deleted. */
typedef struct cs_comm_state {
    MPI_Comm pcomm;    /* private duplicate: all our traffic goes here */
    int rank, size;
    int is_inter;      /* intercommunicator: we never run our methods on it */
    void *topo_cache;  /* owned by topo.c (cs_topo_cached / cs_topo_cache_free) */
    int logged;        /* dispatch: decisions printed once (COLLSEL_VERBOSE=2) */
    unsigned long long logged_bins[CS_NCOLL]; /* dispatch: per collective, bit b set once
                                          the decision for a log2 byte bin b was
                                          printed (COLLSEL_VERBOSE=2) */
    int dup_rc;        /* MPI error of a failed creation of pcomm (not retried), or 0 */
    /* owned by shm/ (set when pcomm is made; the same on every rank): */
    int node_local;    /* 1: the communicator lies within one (virtual) node */
    int shm_failed;    /* 1: its shared segment could not be made (all ranks agreed) */
    MPI_Comm nodecomm; /* the ranks of this rank's (virtual) node, on pcomm */
    int nnodes;        /* (virtual) nodes the communicator spans */
    void *shm;         /* the segment (cs_shm), made by the first shm method */
    unsigned long long calls, bytes; /* dispatch: selected calls on the communicator
                                  and their payload bytes so far (the same on every
                                  rank) */
    int shm_cold;      /* dispatch: 1 while the communicator warms up: the shared-memory
                          and node-aware methods do not apply yet (0 outside the shim) */
    void *node;        /* the node-aware methods' state (cs_node), made by the first */
    struct cs_decision { /* dispatch: the last decision per collective, keyed
                            by all a decision depends on besides the size */
        int valid, root, count, commute, idx;
        size_t bytes;
    } last[CS_NCOLL];
} cs_comm_state;

/* Internal tags on the private duplicate c->pcomm.  Our traffic never meets
 * the application's (different communicator); distinct tags per collective
 * keep a method's messages apart from a different collective's. */
#define CS_TAG_BARRIER 0x4342 /* "CB" */
#define CS_TAG_REDUCE 0x4352  /* "CR" */
#define CS_TAG_BCAST 0x4353   /* "CS": every bcast method */
#define CS_TAG_NODE_DYNAMIC 0x4400 /* + node number: a node's result in the node-aware
                                       dynamic reductions (nodes < 0x3c00) */
#define CS_TAG_NODE_DYNAMIC_BCAST 0x2000 /* + node number: a node's request and its data in
                                             bcast.node.dynamic (nodes < 0x2000) */
#define CS_TAG_ALLREDUCE 0x4341 /* "CA": every allreduce method (the bcast
                                   and reduce steps of a composed method
                                   use their own tags) */
#define CS_TAG_ALLTOALL 0x4354  /* "CT": every alltoall method */

/* Warnings of the algorithms' set-up (a shared segment that cannot be
 * made, ...): NULL (silent) unless the preload library sets it (one line
 * on stderr at COLLSEL_VERBOSE >= 1). */
extern void (*cs_coll_warn)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Get (creating on first use) the state of comm.  Collective over comm the
 * first time.  Returns an MPI error code. */
int cs_comm_state_get(MPI_Comm comm, cs_comm_state **st);

/* Create the keyvals and set the MPI_COMM_SELF attribute whose delete
 * callback frees every private communicator at MPI_Finalize (otherwise
 * done at the first look-up).  The shim calls it from MPI_Init, before the
 * application can set attributes of its own there: MPI_Finalize deletes
 * MPI_COMM_SELF's attributes last-set first, so the private communicators
 * outlive every callback of the application. */
int cs_comm_states_init(void);

/* Frees of user communicators: the preload library's MPI_Comm_free and
 * MPI_Comm_disconnect wrappers (C and Fortran) put the free between
 * cs_comm_freeing_begin() and cs_comm_freeing_end() (f on their stack;
 * nested frees, a delete callback freeing another communicator, are fine).
 * In between, on this thread, the state of comm is neither looked up nor
 * created: cs_comm_state_get and the cs_call_* functions below return
 * MPI_ERR_COMM for it, and the dispatcher runs the native call.  The
 * application's attribute delete callbacks, which MPI runs inside the free,
 * may call collectives on the communicator after the delete callback of our
 * own state has run; a state made then would be set on a communicator being
 * freed, and could be found again under the handle after MPI reused it.
 * Both calls also invalidate every thread's cached (communicator -> state)
 * look-ups: MPI may hand the handle out again as soon as the free returns. */
typedef struct cs_comm_freeing {
    MPI_Comm comm;
    struct cs_comm_freeing *up;
} cs_comm_freeing;
void cs_comm_freeing_begin(cs_comm_freeing *f, MPI_Comm comm);
void cs_comm_freeing_end(cs_comm_freeing *f);

/* One call of a collective, as seen by one rank.  Filled by the dispatcher
 * (shim/dispatch.c) or by collsel-replay / the tests. */
typedef struct cs_call {
    enum cs_coll coll;
    const void *sendbuf; /* reduce, allreduce, alltoall: send buffer (may be
                            MPI_IN_PLACE: reduce at the root, allreduce and
                            alltoall on every rank) */
    void *buf;           /* bcast: the buffer; reduce: recvbuf (root only);
                            allreduce, alltoall: recvbuf (every rank) */
    int count;           /* alltoall: sendcount (one block) */
    MPI_Datatype dt;     /* alltoall: sendtype */
    int rcount;          /* alltoall: recvcount (one block) */
    MPI_Datatype rdt;    /* alltoall: recvtype */
    MPI_Op op;       /* reduce, allreduce */
    int commute;     /* reduce, allreduce: 1 if op is commutative */
    int root;        /* bcast/reduce */
    MPI_Comm comm;   /* the user's communicator (native methods use it) */
    MPI_Comm pcomm;  /* private duplicate: all our traffic goes here */
    cs_comm_state *st; /* state of comm (topology cache) */
    int rank, size;  /* in comm */
    size_t bytes;    /* count * type size: identical on every rank (alltoall: the
                        bytes of one block, recvcount x recvtype size when in place) */
    int reorder_fp;  /* reduce, allreduce: 1 if floating-point operands may be combined
                        in another order than rank order (the shim's COLLSEL_REORDER_FP;
                        0 unless the caller sets it: identical on every rank) */
} cs_call;

struct cs_method;
typedef int (*cs_algo_fn)(const cs_call *c, const struct cs_method *m);
typedef int (*cs_applies_fn)(const cs_call *c, const struct cs_method *m);

typedef struct cs_method {
    const char *name;  /* stable dotted name, e.g. "bcast.knomial.k4" */
    enum cs_coll coll;
    const char *algo;  /* algorithm family, e.g. "knomial" */
    int segsize;       /* segment size in bytes; 0 = unsegmented */
    int fanout;        /* fan-out / radix / degree; 0 = not applicable */
    const char *desc;  /* one line for `collsel methods` */
    cs_applies_fn applies; /* NULL = applies to every call */
    cs_algo_fn fn;
    const struct cs_method *part[2]; /* a composed method (allreduce.reduce_bcast.*):
                                        the methods of its steps; else NULL */
} cs_method;

/* The one entry macro of every registry table (designated initialisers;
 * the same argument order everywhere):
 *   CS_METHOD(COLL, "bcast.binomial", "binomial", segment bytes, fan-out,
 *             "description", applies or NULL, function)
 * and the segmented variants of a family, with the segment sizes listed in
 * this one place: the family unsegmented, then .seg1k .. .seg128k. */
#define CS_METHOD(coll_, name_, algo_, seg_, fan_, desc_, applies_, fn_)                     \
    {.name = (name_), .coll = (coll_), .algo = (algo_), .segsize = (seg_), .fanout = (fan_), \
     .desc = (desc_), .applies = CS_CODE(applies_), .fn = CS_CODE(fn_)}
/* The registry without MPI: the command line (`collsel methods`, cli/)
 * links the registry files compiled with CS_REGISTRY_NAMES (library
 * cs_registry_names): the same tables, names, parameters and descriptions,
 * without the code (applies and fn NULL), so that it needs no MPI library. */
#ifdef CS_REGISTRY_NAMES
#define CS_CODE(f) NULL
#else
#define CS_CODE(f) (f)
#endif
#define CS_SEGMENT_SIZES(X, ...) \
    X(1, __VA_ARGS__) X(8, __VA_ARGS__) X(16, __VA_ARGS__) X(32, __VA_ARGS__) X(64, __VA_ARGS__) \
        X(128, __VA_ARGS__)
#define CS_SEG_ENTRY(kib, coll, name, algo, fan, desc, applies, fn)                          \
    , CS_METHOD(coll, name ".seg" #kib "k", algo, (kib) * 1024, fan,                         \
                desc ", " #kib " KiB segments", applies, fn)
#define CS_SEGMENTED(coll, name, algo, fan, desc, applies, fn)                               \
    CS_METHOD(coll, name, algo, 0, fan, desc, applies, fn)                                   \
    CS_SEGMENT_SIZES(CS_SEG_ENTRY, coll, name, algo, fan, desc, applies, fn)

/* Fill c for a call on comm (gets the comm state, rank, size, bytes,
 * commutativity).  Returns an MPI error code. */
int cs_call_bcast(cs_call *c, void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int cs_call_reduce(cs_call *c, const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm);
int cs_call_barrier(cs_call *c, MPI_Comm comm);
int cs_call_allreduce(cs_call *c, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
int cs_call_alltoall(cs_call *c, const void *sendbuf, int scount, MPI_Datatype sdt,
                     void *recvbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm);

/* The same without creating the private duplicate: local (never
 * collective); c->pcomm is MPI_COMM_NULL until the communicator has one
 * (c->st is always set).  The
 * dispatcher decides on these values and calls cs_call_attach() only when it
 * runs one of our methods, so that communicators that only ever see native
 * calls are never duplicated.  Intercommunicators: c->st->is_inter is set. */
int cs_call_bcast_local(cs_call *c, void *buf, int count, MPI_Datatype dt, int root,
                        MPI_Comm comm);
int cs_call_reduce_local(cs_call *c, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm);
int cs_call_barrier_local(cs_call *c, MPI_Comm comm);
int cs_call_allreduce_local(cs_call *c, const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
int cs_call_alltoall_local(cs_call *c, const void *sendbuf, int scount, MPI_Datatype sdt,
                           void *recvbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm);
/* Create the private duplicate if needed (collective over c->comm the first
 * time) and set c->pcomm.  Returns an MPI error code (MPI_ERR_COMM for an
 * intercommunicator). */
int cs_call_attach(cs_call *c);

/* Run method m for call c (m->fn), after the applicability check has been
 * done by the caller. */
static inline int cs_method_run(const struct cs_method *m, const cs_call *c);

/* Registry access.  cs_methods(c, &n) returns the table of collective c and
 * its length; index 0 is native. */
const cs_method *cs_methods(enum cs_coll c, int *n);
/* Index of a method by name within its collective, or -1. */
int cs_method_index(enum cs_coll c, const char *name);
/* Find by full name in any collective: returns the method or NULL; sets
 * *coll and *index when found. */
const cs_method *cs_method_find(const char *name, enum cs_coll *coll, int *index);
/* 1 if m (or a step of a composed m) is a shared-memory or node-aware
 * method: its applies() reads the node split, which exists once the
 * communicator has its private duplicate (the dispatcher attaches first). */
int cs_method_needs_node(const cs_method *m);
/* Shared-memory segments this process has made so far (every communicator
 * and node communicator), and in *seconds (if not NULL) the time their
 * making took (the agreement with the other ranks included; not the first
 * touch of their pages, which the methods pay).  A call that raised the
 * count made one: exploring charges that time to the segment. */
unsigned long cs_shm_segments_made(double *seconds);
/* 1 if m is a shared-memory method that runs within one node: it needs the
 * node split, and neither it nor a step of it is node-aware (the "node"
 * family, which needs several nodes).  What the stress and soak tests pick
 * from the registry, so that they cover methods added later. */
int cs_method_shm_only(const cs_method *m);
/* Does name hold one of the comma-separated substrings of list (the
 * --methods filters of the test and bench programs)?  NULL list: yes. */
int cs_name_matches(const char *name, const char *list);
/* 1 if method idx of collective c applies to call c (always 1 for native). */
int cs_method_applies(const cs_method *m, const cs_call *c);

/* 1 for the most used predefined datatypes (MPI_BYTE, MPI_CHAR, MPI_INT,
 * MPI_DOUBLE, ...): one element, no gap, lower bound 0.  The per-call
 * paths that need that (a bcast's bytes, the shared-memory reductions)
 * answer them without the MPI queries (tens of ns on a call of a few
 * bytes); others are asked of MPI. */
int cs_dt_plain(MPI_Datatype dt);

/* memcpy without the processor's slow path for a destination just ahead
 * of the source (copy.c). */
void cs_copy(void *dst, const void *src, size_t n);

/* inout = in op inout over n elements, as PMPI_Reduce_local, inline for
 * the predefined ops on 32- and 64-bit integers and for floating-point sum
 * and product up to 256 bytes (combine.c: the same bits but NaN payloads;
 * the rest through PMPI_Reduce_local).  For folds of a few elements, where
 * the library's call is the cost. */
int cs_combine(const void *in, void *inout, int n, MPI_Datatype dt, MPI_Op op);

/* The method cs_method_run last started on this thread (the innermost
 * step of a composed or node-aware method): what the shared-memory
 * stuck-wait report names (shm/wait.c). */
#ifndef COLLSEL_SMPI
extern _Thread_local __attribute__((tls_model("initial-exec"))) const cs_method *cs_method_running;
#else
extern _Thread_local const cs_method *cs_method_running; /* SMPI: one copy per simulated rank */
#endif

/* shm/prepare.c: the receive buffer of a call of at least
 * CS_SHM_PREPARE_MIN bytes is this thread's job while its method runs: a
 * shared-memory wait maps its missing pages (see shm.h).  begin returns the
 * job it replaces (a composed method's step runs inside its method), end
 * puts it back. */
#define CS_SHM_PREPARE_MIN (64 * 1024)
typedef struct {
    char *p; /* the next piece */
    size_t left, page;
} cs_shm_prep;
cs_shm_prep cs_shm_prepare_begin(const cs_call *c);
void cs_shm_prepare_end(cs_shm_prep was);

static inline int cs_method_run(const cs_method *m, const cs_call *c)
{
    cs_method_running = m;
    if (c->bytes < CS_SHM_PREPARE_MIN)
        return m->fn(c, m);
    cs_shm_prep was = cs_shm_prepare_begin(c);
    int rc = m->fn(c, m);
    cs_shm_prepare_end(was);
    return rc;
}

#endif
