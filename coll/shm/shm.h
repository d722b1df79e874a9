/* Shared memory inside a node: the one support module of the shared-memory
 * (barrier.shm.*, bcast.shm.*, reduce.shm.*, allreduce.shm.*) and node-aware
 * (*.node.*) methods, as topo.c is for the tree methods.
 *
 * Node split.  When a communicator's private duplicate is created
 * (commstate.c, a collective step already), cs_shm_node_init() splits it
 * by shared memory (PMPI_Comm_split_type(MPI_COMM_TYPE_SHARED)), and, with
 * a virtual node size N set (COLLSEL_NODE_SIZE, read by the shim and handed
 * over with cs_shm_set_node_size), cuts each node into virtual nodes of N
 * consecutive ranks.  st->node_local: the whole communicator is one node
 * (the same answer on every rank: every rank's node communicator then has
 * all p ranks).  applies() of the shared-memory methods reads only that
 * and st->shm_failed, so the choice stays identical on every rank.  The
 * SimGrid build has no shared memory: node_local is 0 there.
 *
 * Segment.  The first call that runs a shared-memory method on a
 * communicator creates its segment (every rank is in that call, because
 * every rank takes the same decision): a POSIX shared-memory object that
 * rank 0 of the private duplicate creates and names in one PMPI_Bcast,
 * mapped by all and unlinked once all have it (a crash cannot leave it
 * behind after that); where that fails, PMPI_Win_allocate_shared over the
 * private duplicate.  Measured at 2 ranks (4 on 2 cores): 0.15 (0.55) ms
 * against Open MPI's window 0.58 (1.8) ms.  All ranks agree on the outcome
 * in one PMPI_Allreduce; a failure (out
 * of memory, limits) leaves st->shm_failed set on every rank, the call runs
 * the MPI library's own collective, and the shared-memory methods stop
 * applying to the communicator (the next candidate runs).  The segment is
 * freed with the communicator's state (or at MPI_Finalize, before the
 * private duplicate).
 *
 * Size: CS_SHM_RANK_BYTES per rank (about 135 KiB: 40 cache lines of flags,
 * a ring of 64 lines for small payloads and two 64 KiB data slots), so p x 135 KiB per communicator on a node
 * that runs shared-memory methods on it.
 *
 * Synchronisation.  Every rank of the communicator counts the shared-memory
 * operations it runs on it (seq: one per call; step: one per data chunk);
 * the counts are the same on every rank because every rank runs the same
 * calls.  A rank announces "I reached step s" by storing s (release) into
 * a flag of its own cache line; a waiter loads (acquire) until the value
 * is >= s.  Values only grow, so flags never need resetting and a fast
 * rank that is already one call ahead only makes the values larger: no
 * closing barrier.  Data slots are double-buffered: before a rank writes
 * slot s % 2 of step s, it waits until every rank has finished step s - 2
 * (its `done` flag), the last step that could still read that slot.
 * Waiting spins, then yields the processor (sched_yield), sooner when the
 * node has more ranks than processors (see cs_shm_wait).  Flags are plain
 * uint64_t read and written with the GCC __atomic built-ins, the one kind
 * of atomics in collsel (the recorder's seqlock, shim/rec.h, stores into
 * plain fields of tables that are also copied whole, which C11 atomic
 * objects would not allow).
 */
#ifndef COLLSEL_SHM_H
#define COLLSEL_SHM_H

#include <stdint.h>

#include "coll/coll.h"

#define CS_SHM_LINE 64
#define CS_SHM_ROUNDS 32           /* barrier round flags per rank */
#define CS_SHM_SLOT (64 * 1024)    /* bytes of one data slot; two per rank */

#define CS_SHM_INLINE 56 /* bytes of a small payload: it travels in one line with its step */
#define CS_SHM_RING 64   /* lines of small payloads per rank: steps a writer may run ahead */

typedef struct {
    _Alignas(CS_SHM_LINE) uint64_t v;
    unsigned char data[CS_SHM_INLINE]; /* ring lines only: the payload of step v */
} cs_shm_flag; /* one flag in a cache line of its own */

/* The state of one piece of a dynamic reduction's step (reduce.shm.dynamic,
 * allreduce.shm.dynamic; dynamic.c): w = step << 8 | contributions
 * folded << 1 | lock (the lock taken with a CAS); mask: the ranks whose
 * contribution is in the piece's accumulator; data: the accumulator of a
 * message of at most CS_SHM_DYN_INLINE bytes. */
#define CS_SHM_DYN_INLINE 40
#define CS_SHM_DYN_MAX 64 /* ranks: one bit each in mask */
typedef struct {
    _Alignas(CS_SHM_LINE) uint64_t w;
    uint64_t mask;
    uint64_t arrived; /* step << 16 | first arrival << 8 | ranks arrived: the node-aware
                         dynamic methods' leader (cs_shm_arrive) */
    unsigned char data[CS_SHM_DYN_INLINE];
} cs_shm_dyn;

/* The part of the segment owned by one rank (others read it and write the
 * flags that the algorithms name). */
typedef struct cs_shm_rank {
    cs_shm_flag post;    /* owner: its data of step s is in its slot */
    cs_shm_flag ring[CS_SHM_RING]; /* owner: a small payload of step s in ring[s % 64],
        with s in the same line (one line moves per step, and the writer can run
        64 steps ahead of its readers) */
    cs_shm_flag ready;   /* owner: its result (piece) of step s is in its slot */
    cs_shm_flag done;    /* owner: finished reading the others' slots for step s */
    cs_shm_flag arrive;  /* barrier: owner arrived at call s */
    cs_shm_flag release; /* barrier: owner may leave call s (written by its parent) */
    cs_shm_flag count;   /* barrier.shm.counter: the one shared counter (rank 0's) */
    cs_shm_flag round[CS_SHM_ROUNDS]; /* round k of a barrier: written by one peer */
    struct {                          /* bcast.shm.cma: where the root's bytes are */
        cs_shm_flag v;                /* the step they are for */
        uint64_t addr;                /* in the owner's address space */
        int64_t pid;                  /* the owner's process (also: stuck-wait report) */
        int64_t world;                /* its rank in MPI_COMM_WORLD (stuck-wait report) */
    } cma;
    cs_shm_flag can_read; /* set once: 1 + (owner can read its neighbour's memory) */
    cs_shm_dyn dyn[2];    /* the dynamic reductions' piece of step s: dyn[s % 2] (dynamic.c) */
    uint64_t cpus[16];    /* set once, before can_read: the CPUs the owner may run on
                             (its affinity, CPUs 0..1023), for the spin rule */
    _Alignas(CS_SHM_LINE) unsigned char slot[2][CS_SHM_SLOT];
} cs_shm_rank;
#define CS_SHM_RANK_BYTES sizeof(cs_shm_rank)

typedef struct cs_shm {
    MPI_Win win;          /* the segment when MPI made it (else MPI_WIN_NULL) */
    void *map;            /* the segment when we made it (POSIX shm; else NULL) */
    size_t map_bytes;
    int p, rank;
    int spin;             /* polls before yielding */
    uint64_t seq, step;   /* barrier calls / data steps run so far */
    uint64_t calls;       /* shared-memory calls on it so far (cs_shm_get counts
                             them; the same on every rank) */
    char comm[64];        /* the communicator's name, or how to find it (report) */
    uint64_t nsig;        /* barrier.shm.counter calls (its counter counts only them) */
    int counted;          /* its bytes count against the limit */
    int cma;              /* 1: every rank can read every other's memory
                             (process_vm_readv), agreed when the segment was made */
    cs_shm_rank **r;      /* r[i]: rank i's part, mapped here */
    uint64_t *seen;       /* seen[i]: the last value read of rank i's done flag */
} cs_shm;

/* The virtual node size (0: real nodes only).  Set by the shim at
 * MPI_Init from COLLSEL_NODE_SIZE; read when a private duplicate is made. */
void cs_shm_set_node_size(int n);

/* The most bytes of segments this process may hold (COLLSEL_SHM_LIMIT;
 * default 64 MiB, about 490 communicators).  A segment that would pass it
 * is not made (the call runs natively, the methods stop applying there).
 * limit.c: cs_shm_reserve counts bytes of a segment against it (0: over
 * the limit, nothing counted), cs_shm_unreserve gives them back. */
void cs_shm_set_limit(size_t bytes);
size_t cs_shm_limit(void);
int cs_shm_reserve(size_t bytes);
void cs_shm_unreserve(size_t bytes);

/* Called by commstate.c right after the private duplicate is created
 * (collective over it): fills st->node_local and st->nodecomm.  Returns an
 * MPI error code (then the node is unknown: node_local 0). */
int cs_shm_node_init(cs_comm_state *st);
/* Frees what cs_shm_node_init, cs_node_get and cs_shm_get made (before
 * pcomm is freed; node.c). */
void cs_shm_state_free(cs_comm_state *st);

/* applies.c: applies() of every shared-memory method: the communicator is one node
 * and its segment did not fail. */
int cs_shm_applies(const cs_call *c, const cs_method *m);
/* applies() of the shared-memory reductions: the same, and a datatype
 * whose elements are dense (data = extent, no gaps), as the reduction
 * works in place in the slots. */
int cs_shm_applies_dense(const cs_call *c, const cs_method *m);

/* segment.c: the communicator's segment, created on first use (collective
 * over c->pcomm).  NULL when it cannot be made: then st->shm_failed is set
 * on every rank and the caller runs the native collective.  cs_shm_free
 * unmaps it (NULL: nothing). */
cs_shm *cs_shm_get(const cs_call *c);
void cs_shm_free(cs_shm *s);

/* wait.c: wait until flag f holds a value >= v (acquire); cs_shm_spin_for:
 * the polls before yielding for a segment of p ranks on this node that
 * may run on `cpus` processors together (the union of their affinities;
 * 0: unknown).
 * Stuck-wait report: one wait that takes longer than cs_shm_set_stuck's
 * seconds (COLLSEL_SHM_STUCK, set by the shim; default 10; 0: never)
 * prints one line through cs_coll_warn (COLLSEL_VERBOSE >= 1): this
 * process, the method (cs_method_running), the communicator, the call's
 * number on it (s->calls) and the rank whose flag it waits for (its world
 * rank, process id and state); then it goes on waiting. */
void cs_shm_wait(const cs_shm *s, const cs_shm_flag *f, uint64_t v);
/* One poll of a wait that found nothing (for a caller that watches several
 * flags): spin, then yield, as cs_shm_wait; f, v: the flag it waits for
 * most (the stuck-wait report names its owner; NULL: no report).  *w
 * zeroed before the first poll of a wait, and again after progress. */
typedef struct {
    int polls;
    unsigned yields;
    int64_t t0;
} cs_shm_idler;
void cs_shm_idle(const cs_shm *s, const cs_shm_flag *f, uint64_t v, cs_shm_idler *w);
int cs_shm_spin_for(int p, int cpus);
/* prepare.c: what a wait does before it polls again (cs_shm_idle): while
 * this thread's call has a receive buffer with pages the kernel has not
 * mapped yet, look over up to 1024 more pages and map 16 from the first
 * one missing (returns 1 when it looked; 0: no job).  A receive buffer the application has just allocated faults on
 * every page at the collective's first write (1.2 us a page here); a rank
 * that waits for another does that work in its wait instead. */
#ifndef COLLSEL_SMPI
extern _Thread_local __attribute__((tls_model("initial-exec"))) cs_shm_prep cs_shm_prep_job;
#else
extern _Thread_local cs_shm_prep cs_shm_prep_job;
#endif
int cs_shm_prepare_some(void);
/* 0: no mapping (COLLSEL_SHM_PREPARE=0; the barrier of a communicator's
 * first large call, commstate.c, stays: it must be the same on every
 * rank). */
void cs_shm_set_prepare(int on);
void cs_shm_set_stuck(double seconds);
static inline void cs_shm_set(cs_shm_flag *f, uint64_t v)
{
    __atomic_store_n(&f->v, v, __ATOMIC_RELEASE);
}

/* cma.c: what a peer reads to find out whether it can read this process's
 * memory. */
#define CS_SHM_PROBE 0x636f6c6c73656cULL
/* Read n bytes at offset from of the buffer that rank `owner` published in
 * its cma line (bcast.shm.cma, bcast.shm.ag) into to, with
 * process_vm_readv; MPI_ERR_OTHER if the kernel refuses after all. */
int cs_shm_pull(const cs_shm_rank *owner, size_t from, unsigned char *to, size_t n);

/* Test read of rank's probe word through process_vm_readv (1: works). */
int cs_shm_peek(const cs_shm *s, int rank, const void *their, void *mine);

/* Where the data of rank's step lives: its ring line for a small payload
 * (bytes <= CS_SHM_INLINE), else its slot. */
static inline unsigned char *cs_shm_data(const cs_shm *s, int rank, uint64_t step, size_t bytes)
{
    return bytes <= CS_SHM_INLINE ? s->r[rank]->ring[step % CS_SHM_RING].data
                                  : s->r[rank]->slot[step % 2];
}

/* The flag that says rank's data of step is there: the ring line itself
 * for a small payload, else the post flag. */
static inline cs_shm_flag *cs_shm_posted(const cs_shm *s, int rank, uint64_t step, size_t bytes)
{
    return bytes <= CS_SHM_INLINE ? &s->r[rank]->ring[step % CS_SHM_RING] : &s->r[rank]->post;
}

/* Before writing this rank's data of `bytes` for step: its slot must be
 * free (cs_shm_slot_free), or, for a small payload, the ring line (every
 * rank done with step - CS_SHM_RING). */
void cs_shm_data_free(const cs_shm *s, uint64_t step, size_t bytes);

/* Before writing this rank's slot for step `step`: wait until every rank
 * has finished step - 2 (the last one that could read that slot). */
void cs_shm_slot_free(const cs_shm *s, uint64_t step);

/* reduction.c: the reductions' steps (reduce.shm.*, allreduce.shm.*; dense datatypes,
 * elements of esz bytes, at most cs_shm_chunk() elements per step):
 * cs_shm_post starts a step: waits until this rank's slot is free, copies
 * n elements of own into the first half of it (into a ring line when they
 * fit, cs_shm_data) and raises its flag (cs_shm_posted); returns the step.
 * cs_shm_fold waits for every rank's post of step (posted: the bytes each
 * posted) and
 * writes x_0 op x_1 op ... op x_(p-1) of elements [first, first + n) of the
 * posted data into out, combining in rank order (x_(p-2) op x_(p-1) first,
 * MPI_Reduce_local's in op inout), the same operations on every rank that
 * calls it for the same elements. */
int cs_shm_chunk(size_t esz);
uint64_t cs_shm_post(cs_shm *s, const void *own, int n, size_t esz);
int cs_shm_fold(const cs_shm *s, uint64_t step, size_t posted, int first, int n, size_t esz,
                MPI_Datatype dt, MPI_Op op, void *out);
/* The second half of a rank's slot of step: where allreduce.shm.ag puts
 * the piece it reduced. */
static inline unsigned char *cs_shm_result(const cs_shm *s, int rank, uint64_t step)
{
    return s->r[rank]->slot[step % 2] + CS_SHM_SLOT / 2;
}

/* 1 if the single-copy bcast may run on c: the communicator's segment
 * exists with cma set, or does not exist yet (then the method itself finds
 * out, the same on every rank, and runs bcast.shm.ota if not). */
int cs_shm_applies_cma(const cs_call *c, const cs_method *m);

/* The shared-memory reductions (reduction.c): ag 0 = direct, 1 = pieces;
 * everyone 1 = allreduce (every rank gets the result), 0 = reduce. */
int cs_shm_reduction(const cs_call *c, int ag, int everyone);
/* Their start: the segment and the element size; NULL when the call is
 * over already (count 0, or no segment: it ran natively; *rc its result). */
cs_shm *cs_shm_reduction_start(const cs_call *c, int *esz, int *rc);

/* The dynamic reductions (dynamic.c): contributions combined in the order
 * ranks arrive, by whichever rank holds a piece's lock.  reorder: the
 * combining order may depend on arrival (an exact op, or c->reorder_fp:
 * set_order), else
 * ranks p-1, p-2, ..., 0 are folded in that order (the bits of
 * reduce.shm.direct), the arrived prefix of it ahead of the late ranks.
 * everyone 1 = allreduce. */
int cs_shm_dynamic(const cs_call *c, int everyone);
/* The same with the result going to the rank that arrives last (*last set
 * to 1 there, 0 elsewhere; the ranks count themselves in with a CAS on a
 * line of the segment, no message), into out (count elements of c->dt,
 * dense) on that rank: the node step of the node-aware dynamic methods. */
int cs_shm_dynamic_last(const cs_call *c, void *out, int *last);
/* For tests, off unless `on` is set to 1 (then one store per fold): the
 * order of the folds this process makes in the next step of a dynamic
 * reduction (the first chunk of the next call: where a late arrival
 * shows; `on` is 3 after it), into the step's piece 0, or into its result
 * where each rank folds the chunk alone (`alone`: a rank then folds its
 * own first): who[q] = the rank whose contribution went in q-th (-1: not
 * folded here); n = the contributions that piece takes.  One per process
 * (the tests that read it call from one thread). */
typedef struct cs_shm_dyn_trace {
    int on, n, alone;
    int who[CS_SHM_DYN_MAX];
} cs_shm_dyn_trace;
extern cs_shm_dyn_trace cs_shm_dyn_traced;
/* Count this rank in at the call whose first step is `step` (the next
 * s->step), with a CAS on the arrival word of node rank `at`, no message:
 * returns its place (1: it arrived first; s->p: last) and, where first is
 * not NULL, the rank that arrived first.  At most CS_SHM_DYN_MAX ranks. */
int cs_shm_arrive(const cs_shm *s, int at, uint64_t step, int *first);
/* CLOCK_MONOTONIC in nanoseconds (wait.c: the stuck-wait report; the
 * making time of a segment). */
int64_t cs_shm_now_ns(void);
/* applies(): cs_shm_applies_dense, a commutative op, at most
 * CS_SHM_DYN_MAX ranks. */
int cs_shm_dynamic_applies(const cs_call *c, const cs_method *m);
/* 1 if op on dt gives the same bits in any order: a predefined op other
 * than sum and product on integer, logical or byte elements, or sum and
 * product on integers of 32 bits or more (8- and 16-bit sums saturate
 * in Open MPI 4.1's AVX code: their order shows).  Floating-point
 * elements (min and max too: -0/+0 and NaN show the order), user ops and
 * composite elements: 0. */
int cs_shm_op_exact(MPI_Op op, MPI_Datatype dt);

/* Node-aware methods (node.c).  Their state, made by the first of them on
 * a communicator (collective over pcomm): the leaders' communicator (the
 * node-rank-0 ranks, ordered by comm rank: a leader's rank there is its
 * node's number) and every rank's node and node rank. */
typedef struct cs_node {
    MPI_Comm leaders;        /* MPI_COMM_NULL on the other ranks */
    int my_node;             /* this rank's node number */
    int *node_of;            /* node_of[2 r]: node of comm rank r, [2 r + 1]: its node rank */
    int *nranks;             /* nranks[k]: the ranks of node k (in node_of's block) */
    int *leader_of;          /* leader_of[k]: the comm rank of node k's node rank 0 */
    int largest;             /* the ranks of the largest node */
    cs_comm_state node_st;   /* calls on the node communicator (shared memory) */
    cs_comm_state leader_st; /* calls among the leaders (point to point) */
} cs_node;
cs_node *cs_node_get(const cs_call *c);
void cs_node_state_free(cs_comm_state *st);
/* in: c on this rank's node communicator; out: c among the leaders (the
 * caller sets roots and buffers). */
void cs_node_calls(const cs_node *nd, const cs_call *c, cs_call *in, cs_call *out);
/* applies(): the communicator spans two or more (virtual) nodes; the
 * reductions also need a commutative op (nodes regroup the ranks) and
 * dense elements (the node step is a shared-memory reduction). */
int cs_node_applies(const cs_call *c, const cs_method *m);
int cs_node_applies_reduction(const cs_call *c, const cs_method *m);
/* The leaders' point-to-point method of node-aware method m (its name
 * without ".node"), and the shared-memory method of a node step. */
const cs_method *cs_node_outer(const cs_method *m);
const cs_method *cs_node_inner(enum cs_coll coll);

/* The run of a shared-memory method when the segment cannot be had: the
 * MPI library's own collective for call c (every rank comes here together). */
int cs_shm_native(const cs_call *c);

#endif
