/* The engine of the dynamic reductions (reduce.shm.dynamic,
 * allreduce.shm.dynamic: their files carry the description and the cost).
 *
 * A chunk below 4 KiB (an allreduce of 2 ranks: every chunk, in the fixed
 * order) (run_local): every rank posts it (up to 56 B in a
 * line of its ring, payload and step together; above, in its slot, with
 * its flag line) and leaves if it does not want the result; a rank that
 * wants it folds the contributions into its buffer itself: in the order it
 * finds them posted where the order may change (an exact op; a reduce
 * allowed to reorder floating point), else in the fixed order below (an
 * allreduce allowed to reorder floating point too, up to 56 B: its ranks
 * must hold the same bits, and a fold costs less than a line transfer), so
 * that the early ranks have folded everything but the late one when it
 * comes.  The step in the line is its sequence number: no lock,
 * no CAS, no line written by two ranks, no wait for the others to be done
 * with an earlier step but the ring's (a writer waits, once every 64
 * steps, until all are done with the step 64 back: cs_shm_data_free).
 * After the last arrival: its store goes out while it loads the others'
 * lines (one line transfer, the loads overlapped; no fence between), the
 * others load its line (one), then the folds that are left.  A call of one
 * line (line_run) posts before it computes anything else (the order, the
 * element size), prefetches the others' lines, and folds a few elements
 * without the MPI library's call (cs_combine, ../combine.c): measured at 2
 * ranks (README), 0.21-0.24 us after the last arrival against 0.26-0.27
 * before and a barrier's 0.16-0.17 (barrier.shm.pairwise: the same two
 * line transfers, no data).
 * An allreduce of more than 2 ranks of reordered floating point above
 * 56 B takes the shared accumulator below (one order for all).
 *
 * Otherwise, per chunk of at most half a slot (a step), the vector is cut
 * into np pieces (one below 4 KiB, else up to one per rank, at least 1 KiB
 * each).
 * Piece j has an accumulator (in the line of its state when the chunk has
 * at most CS_SHM_DYN_INLINE bytes, else in the second half of the slot of
 * rank (root + j) % p, or (root + 1 + j) % p where the root stays out of
 * the accumulators, below) and a state line (cs_shm_dyn in that rank's part):
 * the step, how many contributions are folded in, which ones (mask), and a
 * lock bit taken with a CAS.  A rank that takes a piece's lock folds in
 * every contribution it may: its own (straight from its buffer) and every
 * one posted (copied into its owner's slot or ring line) that is not in
 * yet; the first one is copied, the others combined with
 * PMPI_Reduce_local (x op acc).  Which ones it may:
 *   reorder  any, in the order found (its own first);
 *   fixed    only the next one of the order p-1, p-2, ..., 0 (acc = x_k op
 *            acc: x_0 op (x_1 op (... op x_(p-1))), the bits of
 *            reduce.shm.direct, non-commutative ops included), as long as
 *            it is there: the arrived prefix of the order is combined
 *            before the late rank comes.  A reduce with a commutative op
 *            takes the root out of that order and puts it last: the
 *            others p-1, ..., 0 without the root, then the root's (a
 *            piece's accumulator leaves the root out, rootlast, and the
 *            root combines acc op x_root into its result, root_combine;
 *            a small chunk folds x_root op acc last): one association for
 *            every arrival and chunk, rank order's when the root is rank 0.
 * A reduce with a commutative op from 4 KiB (rootlast) keeps the root out
 * of the accumulators: the np <= p - 1 pieces collect the other p - 1
 * contributions, and the root, its own elements copied into its result
 * while it waits, combines each piece as it completes (acc op x_root,
 * root_combine: the last folder of a piece raises its holder's `ready`).
 * Balanced, the root so makes the two passes over the data that
 * reduce.shm.tree's root makes, where posting its vector, folding a piece
 * and copying every piece out made four (measured at 2 ranks: 1.4-1.7x
 * the fastest fixed-order method's time at 64 KiB-1 MiB before, 1.01-1.10x
 * after, README); a late root
 * combines once, as it folded its own into every piece before.  With one
 * folder (2 ranks) that one copies its vector into its accumulator, no
 * lock.
 * A rank loops over the pieces until its own contribution is in all of
 * them and, if it wants the result (an allreduce's ranks, a reduce's root
 * when it is in the accumulators), until every piece holds all p and it
 * has copied them out; it posts its vector (one
 * copy) when the pieces are more than one (so the early ranks share the
 * folding of every piece) or when its first pass could not fold it (a lock
 * held, or not its turn).  The last rank to arrive so finds the others'
 * contributions combined already: it folds its own and releases everyone.
 * A rank that waits folds what it finds; nobody waits on anyone in
 * particular, so a rank stopped for a while (a signal, the scheduler)
 * delays the call and breaks nothing.
 *
 * Synchronisation of the pieces (shm.h): a rank starts step s when every rank is done
 * with step s - 2 (its slot, its ring line and the state lines of step s
 * are free then); it raises `done` when it leaves the step.  The state word
 * only changes under its lock, except the CAS that takes it; a holder
 * stores the mask (from none, for the first holder of the step) right
 * before the release that shows the step and the count, so a reader that
 * sees the step in the word sees that step's mask.
 */

#include <string.h>

#include "coll/shm/shm.h"

#define W_STEP(w) ((w) >> 8)
#define W_COUNT(w) ((int)(((w) >> 1) & 0x7f))
#define W_LOCK 1u
#define DYN_SPLIT 4096 /* bytes of a chunk from which it is cut into pieces */
#define DYN_PIECE 1024 /* the smallest piece */

cs_shm_dyn_trace cs_shm_dyn_traced;

/* The trace (shm.h): a new step of n contributions (traced when armed),
 * and one fold. */
static void trace_start(int n, int alone)
{
    cs_shm_dyn_trace *t = &cs_shm_dyn_traced;
    if (__builtin_expect(t->on, 0) && t->on < 3 && t->on++ == 1) {
        t->n = n;
        t->alone = alone;
        for (int i = 0; i < CS_SHM_DYN_MAX; i++)
            t->who[i] = -1;
    }
}

static inline void trace_fold(int place, int who)
{
    if (__builtin_expect(cs_shm_dyn_traced.on, 0) == 2 && place < CS_SHM_DYN_MAX)
        cs_shm_dyn_traced.who[place] = who;
}

typedef struct {
    const cs_call *c;
    cs_shm *s;
    uint64_t step;
    int n, np, me, p, reorder;
    int local; /* a small chunk: every rank posts, who wants the result folds it alone */
    int rootorder; /* a reduce, commutative op: the fixed order takes the root's last */
    int rootlast; /* a reduce's pieces: the root's contribution is not in the accumulators,
                     the root combines it with each complete one into its result */
    int target;   /* contributions in a complete accumulator: p - rootlast */
    size_t esz, bytes;
    const char *own; /* this rank's elements of the chunk */
} dyn_step;

static inline uint64_t bit(int i)
{
    return (uint64_t)1 << i;
}

static void piece_range(const dyn_step *d, int j, int *first, int *len)
{
    const int q = d->n / d->np, extra = d->n % d->np;
    *first = j * q + (j < extra ? j : extra);
    *len = q + (j < extra);
}

/* The rank whose part holds piece j's state and accumulator (not the
 * root's when it combines last: the folders write their own slots). */
static int holder(const dyn_step *d, int j)
{
    return (d->c->root + d->rootlast + j) % d->p;
}

static cs_shm_dyn *line_of(const dyn_step *d, int j)
{
    return &d->s->r[holder(d, j)]->dyn[d->step % 2];
}

static unsigned char *acc_of(const dyn_step *d, int j, int first)
{
    if (d->bytes <= CS_SHM_DYN_INLINE)
        return line_of(d, j)->data;
    return cs_shm_result(d->s, holder(d, j), d->step) + (size_t)first * d->esz;
}

/* The ranks whose chunk is posted in their slot (or ring line). */
static uint64_t posted_set(const dyn_step *d)
{
    uint64_t set = 0;
    for (int i = 0; i < d->p; i++)
        if (__atomic_load_n(&cs_shm_posted(d->s, i, d->step, d->bytes)->v,
                                 __ATOMIC_ACQUIRE) >= d->step)
            set |= bit(i);
    return set;
}

/* The rank at place `count` of the fixed order: p-1, p-2, ..., 0, or
 * with the root taken out and put last (d->rootorder). */
static int fixed_next(const dyn_step *d, int count)
{
    if (!d->rootorder)
        return d->p - 1 - count;
    if (count == d->p - 1)
        return d->c->root;
    const int k = d->p - 1 - count;
    return k - (k <= d->c->root);
}

/* The contribution the holder of a piece may fold next (in: the ones in
 * it, their count; have: the ones it can read), or -1. */
static int next_fold(const dyn_step *d, uint64_t in, int count, uint64_t have)
{
    if (count >= d->target)
        return -1;
    if (!d->reorder) {
        const int k = fixed_next(d, count);
        return have & bit(k) ? k : -1;
    }
    uint64_t can = have & ~in & ~(d->rootlast ? bit(d->c->root) : 0);
    if (can & bit(d->me))
        return d->me; /* its own first: straight from its buffer */
    return can ? __builtin_ctzll(can) : -1;
}

/* next_fold, reading the posted flags (once: *fresh) only when this rank
 * has nothing of its own to fold: the last rank to arrive finds the piece
 * complete after its own and reads no other rank's line. */
static int next_fold_lazy(const dyn_step *d, uint64_t in, int count, uint64_t *have, int *fresh)
{
    int who = next_fold(d, in, count, *have);
    if (who < 0 && !*fresh && count < d->target) {
        *have |= posted_set(d);
        *fresh = 1;
        who = next_fold(d, in, count, *have);
    }
    return who;
}

/* With piece j's lock held (w: the word when it was taken): fold in every
 * contribution this rank may, then release with the new count. */
static int fold_piece(const dyn_step *d, int j, uint64_t w, uint64_t *in_out)
{
    cs_shm_dyn *line = line_of(d, j);
    const int cur = W_STEP(w) == d->step;
    uint64_t in = cur ? __atomic_load_n(&line->mask, __ATOMIC_RELAXED) : 0;
    int count = cur ? W_COUNT(w) : 0, first, len, rc = MPI_SUCCESS;
    piece_range(d, j, &first, &len);
    unsigned char *acc = acc_of(d, j, first);
    const size_t at = (size_t)first * d->esz;
    uint64_t have = bit(d->me);
    int fresh = 0;
    /* an error is kept and the folding goes on: the piece must complete, or
     * its waiters would wait forever */
    for (int who; (who = next_fold_lazy(d, in, count, &have, &fresh)) >= 0;) {
        const unsigned char *x = who == d->me
                                     ? (const unsigned char *)d->own + at
                                     : cs_shm_data(d->s, who, d->step, d->bytes) + at;
        int r = MPI_SUCCESS;
        if (j == 0)
            trace_fold(count, who);
        if (count == 0)
            cs_copy(acc, x, (size_t)len * d->esz);
        else
            r = PMPI_Reduce_local(x, acc, len, d->c->dt, d->c->op);
        rc = rc != MPI_SUCCESS ? rc : r;
        in |= bit(who);
        count++;
    }
    /* the mask once, next to the release: a rank polling the line (the root
     * waiting for the piece) does not take it away between the two */
    __atomic_store_n(&line->mask, in, __ATOMIC_RELAXED);
    __atomic_store_n(&line->w, d->step << 8 | (uint64_t)count << 1, __ATOMIC_RELEASE);
    if (d->rootlast && count == d->target) /* what the root waits for (root_combine) */
        cs_shm_set(&d->s->r[holder(d, j)]->ready, d->step);
    *in_out = in;
    return rc;
}

/* Copy this rank's chunk into its slot (ring line) and say so. */
static void post(const dyn_step *d)
{
    cs_copy(cs_shm_data(d->s, d->me, d->step, d->bytes), d->own, d->bytes);
    cs_shm_set(cs_shm_posted(d->s, d->me, d->step, d->bytes), d->step);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* A copy of a small chunk: the common element sizes without a call (a
 * copy of 8 bytes through memcpy costs as much as the fold after it). */
static inline void copy_small(void *to, const void *from, size_t n)
{
    if (n == 8) {
        uint64_t v;
        memcpy(&v, from, 8);
        memcpy(to, &v, 8);
    } else if (n == 4) {
        uint32_t v;
        memcpy(&v, from, 4);
        memcpy(to, &v, 4);
    } else {
        cs_copy(to, from, n);
    }
}

/* The post of a small chunk: its ring line (or slot) once free, the data
 * and the step (in one line up to CS_SHM_INLINE bytes); then, where this
 * rank wants the result, the others' lines are asked for, so that the late
 * rank's loads of them are under way while it decides how to fold (a rank
 * that only posts leaves them alone: one sharer less to invalidate).  No
 * fence: nobody here decides anything from a flag it missed, it only
 * waits for it (the late rank's own store and its loads of the others'
 * lines overlap). */
static void post_local(const dyn_step *d, int wants)
{
    cs_shm *s = d->s;
    cs_shm_data_free(s, d->step, d->bytes);
    copy_small(cs_shm_data(s, d->me, d->step, d->bytes), d->own, d->bytes);
    cs_shm_set(cs_shm_posted(s, d->me, d->step, d->bytes), d->step);
    for (int i = 0; wants && i < d->p; i++)
        if (i != d->me)
            __builtin_prefetch(cs_shm_posted(s, i, d->step, d->bytes));
}

/* One step of a small chunk (d->local; the header's first paragraph):
 * post (unless the caller did: posted), then, if this rank wants the
 * result, fold every contribution into out in its order as they come
 * (cs_combine: a fold of a few elements costs no library call).  The one
 * rank of a reduce that wants the result does not post: nobody reads its
 * contribution, which it folds straight from its buffer (unless that is
 * out, in place: an earlier fold would overwrite it): a copy of the chunk
 * less on the path of the one rank that waits for all. */
static int run_local(dyn_step *d, int wants, int everyone, char *out, int posted)
{
    cs_shm *s = d->s;
    int count = 0, rc = MPI_SUCCESS;
    uint64_t in = 0, have = bit(d->me), all = d->p == 64 ? ~0ull : bit(d->p) - 1;
    cs_shm_idler w = {0};
    const int own_here = !posted && wants && !everyone && out != d->own;
    trace_start(d->p, 1);
    if (!posted && !own_here)
        post_local(d, wants);
    while (wants && count < d->p) {
        int who = next_fold(d, in, count, have);
        if (who < 0 && !d->reorder) { /* the fixed order: its next one, nothing else */
            who = fixed_next(d, count);
            cs_shm_wait(s, cs_shm_posted(s, who, d->step, d->bytes), d->step);
            have |= bit(who);
        } else if (who < 0) { /* the lines of the ranks not seen yet, loaded together */
            for (int i = 0; i < d->p; i++)
                if (!(have & bit(i)) &&
                    __atomic_load_n(&cs_shm_posted(s, i, d->step, d->bytes)->v,
                                    __ATOMIC_ACQUIRE) >= d->step)
                    have |= bit(i);
            if ((who = next_fold(d, in, count, have)) < 0) {
                /* (a stuck-wait report names the first one missing) */
                const int k = __builtin_ctzll(all & ~have);
                cs_shm_idle(s, cs_shm_posted(s, k, d->step, d->bytes), d->step, &w);
                continue;
            }
            w = (cs_shm_idler){0};
        }
        const unsigned char *x = who == d->me && own_here
                                     ? (const unsigned char *)d->own
                                     : cs_shm_data(s, who, d->step, d->bytes); /* its own
                                           posted: out may be its send buffer (in place) */
        trace_fold(count, who);
        if (count == 0)
            copy_small(out, x, d->bytes);
        else
            CS_TRY(cs_combine(x, out, d->n, d->c->dt, d->c->op));
        in |= bit(who);
        count++;
    }
out: /* nobody waits for this rank but for its post: done at once */
    cs_shm_set(&s->r[d->me]->done, d->step);
    return rc;
}

/* One step of the root of a reduce whose root combines last (d->rootlast):
 * its own elements in out first (a copy made while it waits; none in
 * place), then out = acc op out for each piece as soon as the others'
 * contributions are all in its accumulator.  One pass over a piece after
 * it is complete, one before, as the root of reduce.shm.tree: no post of
 * its own, no copy of a shared result.  It waits on the holder's `ready`
 * flag, which the piece's last folder raises after the release, not on the
 * piece's lock line: the folders' CAS and release find that line where
 * they left it. */
static int root_combine(dyn_step *d, char *out)
{
    uint64_t need = d->np == 64 ? ~0ull : bit(d->np) - 1;
    int rc = MPI_SUCCESS;
    cs_shm_idler w = {0};
    if (out != d->own)
        cs_copy(out, d->own, d->bytes);
    while (need) {
        int progress = 0;
        for (int j = 0; j < d->np; j++) {
            if (!(need & bit(j)) ||
                __atomic_load_n(&d->s->r[holder(d, j)]->ready.v, __ATOMIC_ACQUIRE) < d->step)
                continue;
            int first, len;
            piece_range(d, j, &first, &len);
            int r = PMPI_Reduce_local(acc_of(d, j, first), out + (size_t)first * d->esz, len,
                                      d->c->dt, d->c->op);
            rc = rc != MPI_SUCCESS ? rc : r;
            need &= ~bit(j);
            progress = 1;
        }
        if (!progress) /* (a stuck-wait report names the first holder missing) */
            cs_shm_idle(d->s, &d->s->r[holder(d, __builtin_ctzll(need))]->ready, d->step, &w);
        else
            w = (cs_shm_idler){0};
    }
    cs_shm_set(&d->s->r[d->me]->done, d->step);
    return rc;
}

/* One step: this rank's contribution into every piece; the result copied
 * to out when wants. */
static int run_step(dyn_step *d, int wants, int everyone, char *out)
{
    if (d->local)
        return run_local(d, wants, everyone, out, 0);
    trace_start(d->target, 0);
    if (d->rootlast && d->me == d->c->root)
        return root_combine(d, out);
    if (d->rootlast && d->target == 1) { /* the one folder (2 ranks): no lock, no count */
        trace_fold(0, d->me);
        cs_shm_slot_free(d->s, d->step);
        cs_copy(acc_of(d, 0, 0), d->own, d->bytes);
        cs_shm_set(&d->s->r[d->me]->ready, d->step);
        cs_shm_set(&d->s->r[d->me]->done, d->step);
        return MPI_SUCCESS;
    }
    if (d->rootlast)
        wants = 0;
    const int np = d->np, p = d->target;
    uint64_t todo = np == 64 ? ~0ull : bit(np) - 1, need = wants ? todo : 0;
    int posted = 0, rc = MPI_SUCCESS;
    cs_shm_idler w = {0};
    cs_shm_slot_free(d->s, d->step);
    if (np > 1) {
        post(d);
        posted = 1;
    }
    while (todo | need) {
        int progress = 0;
        uint64_t have = bit(d->me);
        int fresh = 0;
        for (int t = 0; t < np; t++) {
            const int j = (t + d->me - d->c->root - d->rootlast + 2 * d->p) % np; /* its own
                                                                   slot's piece first */
            if (!((todo | need) & bit(j)))
                continue;
            cs_shm_dyn *line = line_of(d, j);
            uint64_t w = __atomic_load_n(&line->w, __ATOMIC_ACQUIRE), in = 0;
            const int cur = W_STEP(w) == d->step, count = cur ? W_COUNT(w) : 0;
            if (cur)
                in = __atomic_load_n(&line->mask, __ATOMIC_ACQUIRE);
            if (count == p) {
                todo &= ~bit(j);
                if (need & bit(j)) {
                    int first, len;
                    piece_range(d, j, &first, &len);
                    cs_copy(out + (size_t)first * d->esz, acc_of(d, j, first),
                           (size_t)len * d->esz);
                    need &= ~bit(j);
                    progress = 1;
                }
                continue;
            }
            if (in & bit(d->me))
                todo &= ~bit(j);
            if ((w & W_LOCK) || next_fold_lazy(d, in, count, &have, &fresh) < 0 ||
                !__atomic_compare_exchange_n(&line->w, &w, w | W_LOCK, 0, __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE))
                continue;
            int r = fold_piece(d, j, w, &in);
            rc = rc != MPI_SUCCESS ? rc : r;
            if (in & bit(d->me))
                todo &= ~bit(j);
            progress = 1;
        }
        if (todo && !posted) { /* its own could not go in at once: let others fold it */
            post(d);
            posted = progress = 1;
        }
        if (!progress)
            cs_shm_idle(d->s, NULL, 0, &w);
        else
            w = (cs_shm_idler){0};
    }
    cs_shm_set(&d->s->r[d->me]->done, d->step);
    return rc;
}

/* Count this rank in at the call whose first step is `step`, on the
 * arrival word of node rank `at`'s line: step << 16 | the first arrival's
 * rank << 8 | ranks arrived, advanced with one CAS (two ranks arriving "at
 * once" get distinct places).  Once every rank is done with step - 2 (they
 * all counted themselves in there), the word is this step's to take (a
 * rank that does not want the data may be two calls ahead, no further). */
int cs_shm_arrive(const cs_shm *s, int at, uint64_t step, int *first)
{
    cs_shm_slot_free(s, step);
    uint64_t *a = &s->r[at]->dyn[step % 2].arrived;
    uint64_t v = __atomic_load_n(a, __ATOMIC_ACQUIRE), n;
    do
        n = v >> 16 == step ? v + 1 : step << 16 | (uint64_t)s->rank << 8 | 1;
    while (!__atomic_compare_exchange_n(a, &v, n, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    if (first)
        *first = (int)(n >> 8 & 0xff);
    return (int)(n & 0xff);
}

/* How call c's chunks are combined (set in d: reorder, rootorder; fp_shared:
 * an allreduce's reordered floating point, which goes through one shared
 * accumulator above a line).  Small chunks are folded by each rank that
 * wants them; an allreduce whose floating point may be reordered folds
 * them in the fixed order up to a line (a fold costs less than a line
 * transfer), then in one shared accumulator (the same bits on every rank
 * both ways). */
static void set_order(dyn_step *d, int everyone, int to_last, int *reorder, int *fp_shared)
{
    const cs_call *c = d->c;
    const int exact = c->commute && (everyone || !c->reorder_fp) &&
                      cs_shm_op_exact(c->op, c->dt); /* asked once: where it counts */
    *reorder = c->commute && (c->reorder_fp || exact);
    *fp_shared = everyone && *reorder && !exact;
    /* a reduce from 4 KiB, commutative op: the root combines its own with
     * each complete accumulator of the others' (acc op x_root), so it
     * neither posts nor copies a shared result out: balanced, its passes
     * over the data are those of reduce.shm.tree's root */
    d->rootorder = !to_last && !everyone && d->p > 1 && c->commute;
}

/* A call of one line (c->bytes <= CS_SHM_INLINE, one chunk): the ring line
 * goes out before anything else is computed (not even the element size:
 * the fold needs the count and the bytes only), so that after the last
 * arrival nothing but its store and its loads stand before the folds. */
static int line_run(cs_shm *s, const cs_call *c, int wants, int everyone, int to_last,
                    char *out)
{
    dyn_step d = {.c = c, .s = s, .me = s->rank, .p = s->p, .n = c->count, .np = 1,
                  .local = 1, .target = s->p, .bytes = c->bytes, .step = ++s->step,
                  .own = c->sendbuf == MPI_IN_PLACE ? c->buf : c->sendbuf};
    post_local(&d, wants);
    int reorder, fp_shared;
    set_order(&d, everyone, to_last, &reorder, &fp_shared);
    d.esz = c->bytes / (size_t)c->count;
    d.reorder = reorder && !fp_shared;
    return run_local(&d, wants, everyone, out, 1);
}

/* The chunks of call c; the result into out where wants (-1: where this
 * rank arrives last, *last says so); everyone: an allreduce (its ranks
 * must hold the same bits). */
static int dynamic_run(const cs_call *c, int wants, int everyone, char *out, int *last)
{
    int esz, rc;
    if (wants < 0 && c->count > 0 && !cs_shm_get(c)) { /* no segment: root c->root, natively */
        *last = c->rank == c->root;
        return PMPI_Reduce(c->sendbuf, *last ? out : NULL, c->count, c->dt, c->op, c->root,
                           c->comm);
    }
    const int to_last = wants < 0;
    if (c->count > 0 && c->bytes > 0 && c->bytes <= CS_SHM_INLINE) { /* c->bytes: count x size */
        cs_shm *s = cs_shm_get(c);
        if (!s)
            return cs_shm_native(c);
        if (to_last)
            wants = *last = cs_shm_arrive(s, c->root, s->step + 1, NULL) == s->p;
        return line_run(s, c, wants, everyone, to_last, out);
    }
    cs_shm *s = cs_shm_reduction_start(c, &esz, &rc);
    if (!s)
        return rc;
    const int chunk = cs_shm_chunk((size_t)esz);
    if (to_last)
        wants = *last = cs_shm_arrive(s, c->root, s->step + 1, NULL) == s->p;
    const char *own = c->sendbuf == MPI_IN_PLACE ? c->buf : c->sendbuf;
    dyn_step d = {.c = c, .s = s, .me = s->rank, .p = s->p, .esz = (size_t)esz};
    int reorder, fp_shared;
    set_order(&d, everyone, to_last, &reorder, &fp_shared);
    const int rootlast = d.rootorder;
    for (int off = 0; off < c->count; off += chunk) {
        d.n = c->count - off < chunk ? c->count - off : chunk;
        d.bytes = (size_t)d.n * d.esz;
        d.np = 1;
        /* a 2-rank allreduce folds every chunk in each rank, in the fixed
         * order (two operands: the same bits on both ranks, floating point
         * that may be reordered too), not through the pieces: their locks,
         * accumulators and copy-out cost more than the half of the fold
         * they save, and with one rank late nothing can be combined before
         * it comes anyway.  Measured (collsel-bench --interleave, each
         * round in a new order, double sum, 2 ranks one per core, medians):
         * balanced 16 KiB 2.38 us against 2.68 through the pieces
         * (shm.direct 2.46), 32 KiB 6.63 against 7.40 (6.60), rank 1 20 us
         * late 16 KiB 2.30 against 2.68 (2.21), 32 KiB 3.54 against 4.92
         * (3.45).  The allreduce itself sends 2 ranks from DYN_TWO_RB
         * bytes to a reduce then a bcast (allreduce/shm_dynamic.c).  At 3
         * ranks on 2 cores the pieces were as fast as shm.direct at 4 KiB
         * (0.87-0.94x) */
        const int fold_all = everyone && d.p == 2;
        if (d.bytes >= DYN_SPLIT && !fold_all) {
            size_t k = d.bytes / DYN_PIECE;
            d.np = k < (size_t)d.p ? (int)k : d.p;
        }
        d.local = d.np == 1 && (!fp_shared || fold_all || d.bytes <= CS_SHM_INLINE);
        d.rootlast = rootlast && !d.local;
        d.target = d.p - d.rootlast;
        if (d.rootlast && d.np > d.target) /* one piece per folder at most */
            d.np = d.target;
        d.reorder = reorder && !(d.local && fp_shared);
        d.step = ++s->step;
        d.own = own + (size_t)off * d.esz;
        int r = run_step(&d, wants, everyone, out + (size_t)off * d.esz);
        rc = rc != MPI_SUCCESS ? rc : r; /* the first error; the chunks go on (peers wait) */
    }
    return rc;
}

int cs_shm_dynamic(const cs_call *c, int everyone)
{
    return dynamic_run(c, everyone || c->rank == c->root, everyone, c->buf, NULL);
}

int cs_shm_dynamic_last(const cs_call *c, void *out, int *last)
{
    *last = 0;
    return dynamic_run(c, -1, 0, out, last);
}

int cs_shm_dynamic_applies(const cs_call *c, const cs_method *m)
{
    return c->size <= CS_SHM_DYN_MAX && cs_shm_applies_dense(c, m);
}

/* The one element type of dt (a predefined type, or a derived type built
 * of one), or MPI_DATATYPE_NULL. */
static MPI_Datatype base_type(MPI_Datatype dt, int depth)
{
    int ni, na, nd, comb;
    if (depth > 8 || PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) != MPI_SUCCESS)
        return MPI_DATATYPE_NULL;
    if (comb == MPI_COMBINER_NAMED)
        return dt;
    if (nd != 1 || ni > 64 || na > 64 || comb == MPI_COMBINER_STRUCT)
        return MPI_DATATYPE_NULL;
    int ints[64];
    MPI_Aint addrs[64];
    MPI_Datatype inner;
    if (PMPI_Type_get_contents(dt, ni, na, nd, ints, addrs, &inner) != MPI_SUCCESS)
        return MPI_DATATYPE_NULL;
    MPI_Datatype b = base_type(inner, depth + 1);
    int ci, ca, cd, cc;
    if (PMPI_Type_get_envelope(inner, &ci, &ca, &cd, &cc) == MPI_SUCCESS &&
        cc != MPI_COMBINER_NAMED)
        PMPI_Type_free(&inner);
    return b;
}

/* Whether op on elements of the predefined type b gives the same bits in
 * any order (see cs_shm_op_exact); -1: b is not an integer type. */
static int int_exact(MPI_Op op, MPI_Datatype b)
{
    static const MPI_Datatype ints[] = {
        MPI_BYTE, MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_INT8_T, MPI_UINT8_T,
        MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_INT16_T, MPI_UINT16_T, MPI_C_BOOL, MPI_WCHAR,
        MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG,
        MPI_UNSIGNED_LONG_LONG, MPI_INT32_T, MPI_UINT32_T, MPI_INT64_T, MPI_UINT64_T,
        MPI_AINT, MPI_OFFSET, MPI_COUNT};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        if (ints[i] != b)
            continue;
        int size = 0;
        if (op != MPI_SUM && op != MPI_PROD)
            return 1;
        return PMPI_Type_size(b, &size) == MPI_SUCCESS && size >= 4;
    }
    return -1;
}

int cs_shm_op_exact(MPI_Op op, MPI_Datatype dt)
{
    static const MPI_Op any[] = {MPI_MAX, MPI_MIN, MPI_LAND, MPI_LOR, MPI_LXOR,
                                 MPI_BAND, MPI_BOR, MPI_BXOR};
    /* the predefined floating-point types answer without a query (a
     * small reduction's whole cost is a few of those) */
    static const MPI_Datatype fp[] = {MPI_DOUBLE, MPI_FLOAT, MPI_LONG_DOUBLE,
                                      MPI_C_DOUBLE_COMPLEX, MPI_C_FLOAT_COMPLEX};
    int known = op == MPI_SUM || op == MPI_PROD;
    for (size_t i = 0; i < sizeof any / sizeof any[0] && !known; i++)
        known = op == any[i];
    for (size_t i = 0; i < sizeof fp / sizeof fp[0] && known; i++)
        known = dt != fp[i];
    if (!known)
        return 0;
    int r = int_exact(op, dt);
    if (r >= 0)
        return r;
    MPI_Datatype b = base_type(dt, 0);
    return b != MPI_DATATYPE_NULL && b != dt && int_exact(op, b) > 0;
}
