/* The correctness matrix, generated from the registry: every method of
 * every collective x communicator sizes x roots x counts x datatypes (x ops
 * for reduce, incl. MPI_IN_PLACE at the root; alltoall in place alternating),
 * each result compared bit for
 * bit with the native collective run on the same data in the same run
 * (guards around every buffer and the gaps of every datatype must stay
 * untouched, send buffers unchanged; the native reduce reference is never
 * in place).  Non-root reduce ranks pass recvbuf = NULL.
 * Barrier methods are checked on a shared-memory counter: nobody may leave
 * barrier round r before everyone entered it (a group spanning nodes of one
 * machine, tools/cluster.sh: on clock readings).
 *
 * One mpirun tests several communicator sizes: the world is partitioned
 * into groups of the requested sizes (e.g. 8 ranks: phases 8 | 7+1 | 5+3 |
 * 4+2), each group running the whole case list of its size concurrently,
 * on communicators whose rank order is the reverse of the world's.
 *
 * Coverage per (size, method): unsegmented methods get the full product
 * roots x datatypes (x ops) x counts {0,1,2,3,7,13}, in place alternating
 * (--quick: counts rotated, except char/int and int SUM); segmented
 * methods (identical to their unsegmented form below one segment) get a
 * third of the small cases, one root, and for every root a message of ~2.5
 * segments (several segments with a remainder) in a rotating datatype;
 * every method gets large cases (300001 bytes / 70001 ints, and 17500
 * non-commutative 2x2 matrices).  Methods that do not apply are skipped and
 * counted; a method that never ran a multi-segment case is a failure.
 * Where a method applies is judged too: expect.c derives it for every case
 * from the family's documented restrictions and the group's layout as MPI
 * and the test see it; a method whose applies() refuses a case they allow
 * (or takes one they exclude) fails, so does a family expect.c does not
 * know.
 *
 * The dynamic methods (*.dynamic) run after a random delay on every rank
 * (../arrival.h), so that the order in which the ranks arrive changes.
 *
 * usage: matrix [--sizes 1,2,3] [--colls bcast,reduce,barrier,allreduce,alltoall] [--quick]
 *               [--node-size N] (virtual nodes of N ranks: the node-aware methods run)
 *        [--methods SUBSTRING,...] (methods whose names hold one of them) [--selftest] [-v]
 * Exit 0 when every case matched, 1 otherwise.  --selftest runs
 * deliberately broken methods instead (selftest.c) and exits 0 only if the
 * matrix caught every one of them.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coll/coll.h"
#include "coll/shm/shm.h"
#include "tests/coll/arrival.h"
#include "expect.h"
#include "mtypes.h"
#include "selftest.h"

#define GUARD 64
#define SENTINEL 0xA5
#define MAX_PRINT 10
#define LARGE_BYTES 300001
#define LARGE_INTS 70001

/* MPICH 4.0.2's native MPI_Reduce gives wrong results on a communicator
 * of 3 ranks spread over 2 nodes (2 + 1, tools/cluster.sh) from some 1000
 * ints on (the root's own contribution replaced by its receive buffer's
 * old contents, or garbage), at every root; its MPI_Allreduce gives the
 * right ones, so under MPICH a reduce method is compared with the native
 * allreduce of the same data and op (the same result by definition, every
 * datatype and op of this matrix exact). */
#ifdef MPICH_VERSION
#define REF_ALLREDUCE 1
#else
#define REF_ALLREDUCE 0
#endif

static const int small_counts[] = {0, 1, 2, 3, 7, 13};
#define NSMALL 6

typedef struct stats {
    long ran, skipped, failed, large; /* large: multi-segment cases run */
    long expected, xlarge; /* cases (multi-segment ones) where expect.c says it applies */
} stats;
#define NSTATS ((int)(sizeof(stats) / sizeof(long)))

static struct {
    int wrank, wsize;
    int quick, verbose, selftest;
    const cs_method *(*methods)(enum cs_coll, int *);
    const char *filter;
    int colls[CS_NCOLL];
    stats *st[CS_NCOLL];
    int printed;
    int sizes[16], nsizes; /* the communicator sizes tested */
    int node_size;         /* --node-size (0: real nodes) */
} G;

typedef struct group {
    MPI_Comm comm;
    int rank, size;
    mx_layout lay; /* as MPI and the test see it (expect.c) */
} group;

static void report(const group *g, const cs_method *m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void report(const group *g, const cs_method *m, const char *fmt, ...)
{
    if (G.printed++ >= (G.selftest ? 1 : MAX_PRINT))
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL %s size %d rank %d (world %d): %s\n", m->name, g->size, g->rank,
            G.wrank, line);
}

static unsigned mix(unsigned a, unsigned b) { return (a * 0x9E3779B1u) ^ (b + 0x7F4A7C15u + (a << 6)); }

/* Does m apply to c (then it runs)?  Its applies() against expect.c's
 * answer for the case k: applying where the family's restrictions fail,
 * or not where they hold, is a failure (not in --selftest: the broken
 * methods are the subject there). */
static int runs(const group *g, const cs_method *m, stats *s, const cs_call *c, const mx_case *k,
                int large)
{
    const char *why = "";
    const int got = cs_method_applies(m, c);
    const int want = G.selftest ? got : mx_expect(m, &g->lay, k, &why);
    s->expected += want == 1;
    s->xlarge += want == 1 && large;
    if (want < 0) {
        s->failed++;
        report(g, m, "%s", why);
    } else if (want != got) {
        s->failed++;
        report(g, m, "%s (count %d, %d ranks on %d node(s)%s): %s", got ? "applies where the "
               "test expects it not to" : "does not apply where the test expects it to",
               k->count, k->size, g->lay.nnodes, g->lay.cma ? ", cross-memory attach" : "",
               why);
    }
    s->skipped += !got;
    return got;
}

/* A buffer of n elements of t with guards, all bytes SENTINEL. */
typedef struct mbuf {
    unsigned char *raw;
    size_t len;
    void *p; /* the MPI buffer pointer */
} mbuf;

static int mbuf_new(mbuf *b, const mt_type *t, int n)
{
    b->len = mt_span(t, n) + 2 * GUARD;
    b->raw = malloc(b->len);
    if (!b->raw)
        return -1;
    memset(b->raw, SENTINEL, b->len);
    b->p = b->raw + GUARD - t->tlb;
    return 0;
}

/* First byte where a and b differ (only where mask is MT_DATA when mask is
 * given; guards and gaps must hold SENTINEL in a); -1 if none. */
static long first_diff(const mbuf *a, const mbuf *b, const unsigned char *mask)
{
    for (size_t i = 0; i < a->len; i++) {
        int in = i >= GUARD && i < a->len - GUARD;
        int kind = !mask ? MT_DATA : in ? mask[i - GUARD] : MT_GAP;
        if (kind == MT_DATA && a->raw[i] != b->raw[i])
            return (long)i;
        if (mask && kind == MT_GAP && a->raw[i] != SENTINEL)
            return (long)i;
    }
    return -1;
}

/* Before a method's call: a random delay on this rank for the methods
 * that use the arrival order. */
static void arrive(const cs_method *m)
{
    static unsigned seed;
    if (!seed)
        seed = 2654435761u * (unsigned)(G.wrank + 1);
    if (strstr(m->name, ".dynamic"))
        test_arrival_delay(&seed);
}

/* ---- bcast ---------------------------------------------------------------- */

static void bcast_case(const group *g, int mi, const cs_method *m, int root, int ty, int count,
                       int large)
{
    stats *s = &G.st[CS_BCAST][mi];
    const mt_type *t = &mt_types[ty];
    mbuf a, n;
    if (mbuf_new(&a, t, count) < 0 || mbuf_new(&n, t, count) < 0) {
        report(g, m, "out of memory");
        s->failed++;
        exit(1);
    }
    unsigned seed = mix(mix(mix((unsigned)mi, (unsigned)g->size), (unsigned)root),
                        mix((unsigned)ty, (unsigned)count));
    if (g->rank == root) {
        mt_fill(t, a.p, count, seed, MPI_OP_NULL, root);
        mt_fill(t, n.p, count, seed, MPI_OP_NULL, root);
    }
    cs_call c;
    int rc = cs_call_bcast(&c, a.p, count, t->dt, root, g->comm);
    if (rc != MPI_SUCCESS) {
        report(g, m, "cs_call_bcast: MPI error %d", rc);
        s->failed++;
    } else if (runs(g, m, s, &c, &(mx_case){CS_BCAST, g->size, count, t->dt, MPI_OP_NULL},
                    large)) {
        rc = cs_method_run(m, &c);
        int nrc = MPI_Bcast(n.p, count, t->dt, root, g->comm);
        long d = first_diff(&a, &n, NULL);
        s->ran++;
        s->large += large;
        if (rc != MPI_SUCCESS || nrc != MPI_SUCCESS || d >= 0) {
            s->failed++;
            report(g, m, "root %d type %s count %d (%zu B): rc %d native rc %d, first "
                   "difference at byte %ld of %zu (%s)", root, t->name, count, c.bytes, rc,
                   nrc, d - GUARD, a.len - 2 * GUARD,
                   d < 0 ? "-" : d < GUARD || d >= (long)(a.len - GUARD) ? "guard" : "data/gap");
        }
    }
    free(a.raw);
    free(n.raw);
}

static void bcast_method(const group *g, int mi, const cs_method *m)
{
    int roots[3] = {0, g->size - 1, g->size / 2}, nroots = g->size == 1 ? 1 : g->size == 2 ? 2 : 3;
    for (int ri = 0; ri < nroots; ri++) {
        int root = roots[ri];
        if (m->segsize == 0 || ri == mi % nroots) {
            for (int ty = 0; ty < T_NTYPES; ty++) {
                if (m->segsize && (ty + mi) % 3 != 0)
                    continue; /* segmented: a third of the types for small counts */
                int all = !m->segsize && (!G.quick || ty == T_CHAR || ty == T_INT);
                for (int k = 0; k < NSMALL; k++)
                    if (all || k == (mi + ri + ty) % NSMALL || k == (mi + ri + ty + 3) % NSMALL)
                        bcast_case(g, mi, m, root, ty, small_counts[k], 0);
            }
        }
        if (m->segsize) { /* ~2.5 segments in a rotating datatype */
            int ty = (mi + ri) % T_NTYPES;
            MPI_Count sz;
            MPI_Type_size_x(mt_types[ty].dt, &sz);
            int count = (int)((5 * (MPI_Count)m->segsize / 2) / sz + 1);
            bcast_case(g, mi, m, root, ty, count, 1);
        }
    }
    /* large: 300001 chars, or ~300 KB of a gapped type */
    int root = roots[mi % nroots];
    if (mi % 2 == 0)
        bcast_case(g, mi, m, root, T_CHAR, LARGE_BYTES, 1);
    else
        bcast_case(g, mi, m, root, T_RESIZED, LARGE_BYTES / 8 + 1, 1);
}

/* ---- reduce --------------------------------------------------------------- */

typedef struct combo {
    int type;
    MPI_Op op;
    const char *opname;
} combo;
static combo combos[32];
static int ncombos;

static void add_combo(int type, MPI_Op op, const char *opname)
{
    combos[ncombos++] = (combo){type, op, opname};
}

static void init_combos(void)
{
    add_combo(T_INT, MPI_SUM, "sum"); /* combo 0: the primary one */
    add_combo(T_INT, MPI_PROD, "prod");
    add_combo(T_INT, MPI_MAX, "max");
    add_combo(T_INT, MPI_MIN, "min");
    add_combo(T_INT, MPI_LAND, "land");
    add_combo(T_INT, MPI_LOR, "lor");
    add_combo(T_INT, MPI_LXOR, "lxor");
    add_combo(T_INT, MPI_BAND, "band");
    add_combo(T_INT, MPI_BOR, "bor");
    add_combo(T_INT, MPI_BXOR, "bxor");
    add_combo(T_DOUBLE, MPI_SUM, "sum");
    add_combo(T_DOUBLE, MPI_MAX, "max");
    add_combo(T_LDOUBLE, MPI_SUM, "sum");
    add_combo(T_LDOUBLE, MPI_MIN, "min");
    add_combo(T_DOUBLE_INT, MPI_MAXLOC, "maxloc");
    add_combo(T_DOUBLE_INT, MPI_MINLOC, "minloc");
    add_combo(T_CONTIG, mt_op_csum, "user_commutative");
    add_combo(T_VECGAP, mt_op_csum, "user_commutative");
    add_combo(T_STRUCT, mt_op_csum, "user_commutative");
    add_combo(T_RESIZED, mt_op_csum, "user_commutative");
    add_combo(T_MAT, mt_op_matmul, "user_noncommutative");
    add_combo(T_MATV, mt_op_matmul, "user_noncommutative");
}

static void reduce_case(const group *g, int mi, const cs_method *m, int root, int ci, int count,
                        int inplace, int large)
{
    stats *s = &G.st[CS_REDUCE][mi];
    const combo *k = &combos[ci];
    const mt_type *t = &mt_types[k->type];
    int isroot = g->rank == root;
    inplace = inplace && isroot;
    mbuf sb, sb0, ra = {0}, rn = {0};
    unsigned char *mask = malloc(mt_span(t, count) + 1);
    if (!mask || mbuf_new(&sb, t, count) < 0 || mbuf_new(&sb0, t, count) < 0 ||
        (isroot && mbuf_new(&ra, t, count) < 0) ||
        ((isroot || REF_ALLREDUCE) && mbuf_new(&rn, t, count) < 0)) {
        report(g, m, "out of memory");
        exit(1);
    }
    unsigned seed = mix(mix(mix((unsigned)mi, (unsigned)g->size), (unsigned)root),
                        mix((unsigned)ci, (unsigned)count));
    mt_fill(t, sb.p, count, seed, k->op, g->rank);
    memcpy(sb0.raw, sb.raw, sb.len);
    if (inplace) {
        memcpy(ra.raw, sb.raw, sb.len);
        memcpy(rn.raw, sb.raw, sb.len);
    }
    const void *sendbuf = inplace ? MPI_IN_PLACE : sb.p;
    if (G.verbose > 1)
        fprintf(stderr, "rank %d: %s root %d %s %s count %d%s\n", g->rank, m->name, root,
                t->name, k->opname, count, inplace ? " in place" : "");
    cs_call c;
    int rc = cs_call_reduce(&c, sendbuf, isroot ? ra.p : NULL, count, t->dt, k->op, root,
                            g->comm);
    if (rc != MPI_SUCCESS) {
        report(g, m, "cs_call_reduce: MPI error %d", rc);
        s->failed++;
    } else if (runs(g, m, s, &c, &(mx_case){CS_REDUCE, g->size, count, t->dt, k->op}, large)) {
        arrive(m);
        rc = cs_method_run(m, &c);
        /* The reference is never in place: MPICH 4.0.2's native MPI_Reduce
         * crashes with MPI_IN_PLACE at a non-zero root for 70001 ints.  The
         * result is the same by definition (sb holds the root's data).
         * MPICH: the reference is the native allreduce (REF_ALLREDUCE). */
        int nrc = REF_ALLREDUCE
                      ? MPI_Allreduce(sb.p, rn.p, count, t->dt, k->op, g->comm)
                      : MPI_Reduce(sb.p, isroot ? rn.p : NULL, count, t->dt, k->op, root, g->comm);
        long d = -1;
        const char *what = "";
        if ((d = first_diff(&sb, &sb0, NULL)) >= 0) {
            what = "send buffer modified";
        } else if (isroot) {
            mt_mask(t, count, mask, 1);
            if ((d = first_diff(&ra, &rn, mask)) >= 0)
                what = "result differs from native (or a gap/guard byte was written)";
        }
        s->ran++;
        s->large += large;
        if (rc != MPI_SUCCESS || nrc != MPI_SUCCESS || d >= 0) {
            s->failed++;
            report(g, m, "root %d type %s op %s count %d%s: rc %d native rc %d; %s at byte %ld",
                   root, t->name, k->opname, count, inplace ? " in place" : "", rc, nrc, what,
                   d - GUARD);
        }
    }
    free(mask);
    free(sb.raw);
    free(sb0.raw);
    free(ra.raw);
    free(rn.raw);
}

static void reduce_method(const group *g, int mi, const cs_method *m)
{
    int roots[3] = {0, g->size - 1, g->size / 2}, nroots = g->size == 1 ? 1 : g->size == 2 ? 2 : 3;
    int n = 0; /* case number: in-place alternates */
    for (int ri = 0; ri < nroots; ri++) {
        int root = roots[ri];
        if (m->segsize == 0 || ri == mi % nroots) {
            for (int ci = 0; ci < ncombos; ci++) {
                if (m->segsize && (ci + mi) % 3 != 0)
                    continue;
                int all = !m->segsize && (!G.quick || ci == 0);
                for (int k = 0; k < NSMALL; k++)
                    if (all || k == (mi + ri + ci) % NSMALL)
                        reduce_case(g, mi, m, root, ci, small_counts[k], n++ % 2, 0);
            }
        }
        if (m->segsize) { /* ~2.5 segments, rotating over the combos */
            int ci = (mi + ri * 7) % ncombos;
            MPI_Count sz;
            MPI_Type_size_x(mt_types[combos[ci].type].dt, &sz);
            int count = (int)((5 * (MPI_Count)m->segsize / 2) / sz + 1);
            reduce_case(g, mi, m, root, ci, count, n++ % 2, 1);
        }
    }
    int root = roots[mi % nroots];
    reduce_case(g, mi, m, root, 0, LARGE_INTS, mi % 2, 1);            /* int sum */
    reduce_case(g, mi, m, root, ncombos - 1, LARGE_INTS / 4, 0, 1); /* non-commutative */
}

/* ---- allreduce ------------------------------------------------------------ */

/* A checksum of the data bytes of a result (mask: MT_DATA bytes). */
static unsigned data_hash(const mbuf *b, const unsigned char *mask)
{
    unsigned h = 2166136261u;
    for (size_t i = GUARD; i < b->len - GUARD; i++)
        if (mask[i - GUARD] == MT_DATA)
            h = (h ^ b->raw[i]) * 16777619u;
    return h;
}

static void allreduce_case(const group *g, int mi, const cs_method *m, int ci, int count,
                           int inplace, int large)
{
    stats *s = &G.st[CS_ALLREDUCE][mi];
    const combo *k = &combos[ci];
    const mt_type *t = &mt_types[k->type];
    mbuf sb, sb0, ra, rn;
    unsigned char *mask = malloc(mt_span(t, count) + 1);
    if (!mask || mbuf_new(&sb, t, count) < 0 || mbuf_new(&sb0, t, count) < 0 ||
        mbuf_new(&ra, t, count) < 0 || mbuf_new(&rn, t, count) < 0) {
        report(g, m, "out of memory");
        exit(1);
    }
    unsigned seed = mix(mix((unsigned)mi, (unsigned)g->size), mix((unsigned)ci, (unsigned)count));
    mt_fill(t, sb.p, count, seed, k->op, g->rank);
    memcpy(sb0.raw, sb.raw, sb.len);
    if (inplace)
        memcpy(ra.raw, sb.raw, sb.len);
    if (G.verbose > 1)
        fprintf(stderr, "rank %d: %s %s %s count %d%s\n", g->rank, m->name, t->name, k->opname,
                count, inplace ? " in place" : "");
    cs_call c;
    int rc = cs_call_allreduce(&c, inplace ? MPI_IN_PLACE : sb.p, ra.p, count, t->dt, k->op,
                               g->comm);
    if (rc != MPI_SUCCESS) {
        report(g, m, "cs_call_allreduce: MPI error %d", rc);
        s->failed++;
    } else if (runs(g, m, s, &c, &(mx_case){CS_ALLREDUCE, g->size, count, t->dt, k->op},
                    large)) {
        arrive(m);
        rc = cs_method_run(m, &c);
        int nrc = MPI_Allreduce(sb.p, rn.p, count, t->dt, k->op, g->comm); /* never in place */
        long d = -1;
        const char *what = "";
        mt_mask(t, count, mask, 1);
        if (!inplace && (d = first_diff(&sb, &sb0, NULL)) >= 0)
            what = "send buffer modified";
        else if ((d = first_diff(&ra, &rn, mask)) >= 0)
            what = "result differs from native (or a gap/guard byte was written)";
        /* and every rank must hold the same bits */
        unsigned h = data_hash(&ra, mask), hmin, hmax;
        MPI_Allreduce(&h, &hmin, 1, MPI_UNSIGNED, MPI_MIN, g->comm);
        MPI_Allreduce(&h, &hmax, 1, MPI_UNSIGNED, MPI_MAX, g->comm);
        if (d < 0 && hmin != hmax) {
            what = "the ranks' results differ";
            d = GUARD;
        }
        s->ran++;
        s->large += large;
        if (rc != MPI_SUCCESS || nrc != MPI_SUCCESS || d >= 0) {
            s->failed++;
            report(g, m, "type %s op %s count %d%s: rc %d native rc %d; %s at byte %ld", t->name,
                   k->opname, count, inplace ? " in place" : "", rc, nrc, what, d - GUARD);
        }
    }
    free(mask);
    free(sb.raw);
    free(sb0.raw);
    free(ra.raw);
    free(rn.raw);
}

static void allreduce_method(const group *g, int mi, const cs_method *m)
{
    int n = 0; /* case number: in-place alternates */
    for (int ci = 0; ci < ncombos; ci++) {
        if (m->segsize && (ci + mi) % 3 != 0)
            continue;
        int all = !m->segsize && (!G.quick || ci == 0);
        for (int k = 0; k < NSMALL; k++)
            if (all || k == (mi + ci) % NSMALL)
                allreduce_case(g, mi, m, ci, small_counts[k], n++ % 2, 0);
    }
    int seg = m->segsize ? m->segsize : m->part[1] ? m->part[1]->segsize : 0;
    if (seg) { /* ~2.5 segments per rank's block */
        int ci = mi % ncombos;
        MPI_Count sz;
        MPI_Type_size_x(mt_types[combos[ci].type].dt, &sz);
        int count = (int)((5 * (MPI_Count)seg / 2) * (g->size > 1 ? g->size : 1) / sz + 1);
        allreduce_case(g, mi, m, ci, count, n++ % 2, 1);
    }
    allreduce_case(g, mi, m, 0, LARGE_INTS, mi % 2, 1);            /* int sum */
    allreduce_case(g, mi, m, ncombos - 1, LARGE_INTS / 4, 0, 1); /* non-commutative */
}

/* ---- alltoall ------------------------------------------------------------- */

/* p blocks of count elements of type ty, to and from every rank; in place
 * or not; the reference is the native alltoall (never in place) on the
 * same data.  Gaps and guards of the receive buffer must stay untouched,
 * the send buffer unchanged. */
static void alltoall_case(const group *g, int mi, const cs_method *m, int ty, int count,
                          int inplace, int large)
{
    stats *s = &G.st[CS_ALLTOALL][mi];
    const mt_type *t = &mt_types[ty];
    const int all = count * g->size;
    mbuf sb, sb0, ra, rn;
    unsigned char *mask = malloc(mt_span(t, all) + 1);
    if (!mask || mbuf_new(&sb, t, all) < 0 || mbuf_new(&sb0, t, all) < 0 ||
        mbuf_new(&ra, t, all) < 0 || mbuf_new(&rn, t, all) < 0) {
        report(g, m, "out of memory");
        exit(1);
    }
    unsigned seed = mix(mix((unsigned)mi, (unsigned)g->size), mix((unsigned)ty, (unsigned)count));
    mt_fill(t, sb.p, all, mix(seed, (unsigned)g->rank), MPI_OP_NULL, g->rank);
    memcpy(sb0.raw, sb.raw, sb.len);
    if (inplace)
        memcpy(ra.raw, sb.raw, sb.len);
    if (G.verbose > 1)
        fprintf(stderr, "rank %d: %s %s count %d%s\n", g->rank, m->name, t->name, count,
                inplace ? " in place" : "");
    cs_call c;
    int rc = cs_call_alltoall(&c, inplace ? MPI_IN_PLACE : sb.p, count, t->dt, ra.p, count,
                              t->dt, g->comm);
    if (rc != MPI_SUCCESS) {
        report(g, m, "cs_call_alltoall: MPI error %d", rc);
        s->failed++;
    } else if (runs(g, m, s, &c, &(mx_case){CS_ALLTOALL, g->size, count, t->dt, MPI_OP_NULL},
                    large)) {
        rc = cs_method_run(m, &c);
        int nrc = MPI_Alltoall(sb.p, count, t->dt, rn.p, count, t->dt, g->comm);
        long d = -1;
        const char *what = "";
        mt_mask(t, all, mask, 0);
        if (!inplace && (d = first_diff(&sb, &sb0, NULL)) >= 0)
            what = "send buffer modified";
        else if ((d = first_diff(&ra, &rn, mask)) >= 0)
            what = "result differs from native (or a gap/guard byte was written)";
        s->ran++;
        s->large += large;
        if (rc != MPI_SUCCESS || nrc != MPI_SUCCESS || d >= 0) {
            s->failed++;
            report(g, m, "type %s count %d per block%s: rc %d native rc %d; %s at byte %ld",
                   t->name, count, inplace ? " in place" : "", rc, nrc, what, d - GUARD);
        }
    }
    free(mask);
    free(sb.raw);
    free(sb0.raw);
    free(ra.raw);
    free(rn.raw);
}

static void alltoall_method(const group *g, int mi, const cs_method *m)
{
    int n = 0; /* case number: in-place alternates */
    for (int ty = 0; ty < T_NTYPES; ty++) {
        int all = !G.quick || ty == T_CHAR || ty == T_INT;
        for (int k = 0; k < NSMALL; k++)
            if (all || k == (mi + ty) % NSMALL || k == (mi + ty + 3) % NSMALL)
                alltoall_case(g, mi, m, ty, small_counts[k], n++ % 2, 0);
    }
    /* large: p blocks of ~300 KB / p in all (at least 2.3 shared-memory
     * steps with a remainder: a step carries 64 KiB / (p - 1) per block), of
     * chars and of a gapped type */
    const int p = g->size;
    alltoall_case(g, mi, m, T_CHAR, LARGE_BYTES / p + 1, mi % 2, 1);
    alltoall_case(g, mi, m, T_RESIZED, LARGE_BYTES / 8 / p + 1, (mi + 1) % 2, 1);
}

/* ---- barrier -------------------------------------------------------------- */

#define BARRIER_ROUNDS 12

/* Is the method named in --methods (none: every method)? */
static int selected(const char *name)
{
    return cs_name_matches(name, G.filter);
}

/* The check of one round: ranks of one node count on a shared-memory
 * counter (nobody may leave round r before everyone entered it); a group
 * spanning nodes compares clock readings instead (every node on one machine,
 * as in tools/cluster.sh: one CLOCK_MONOTONIC): the latest entry of a round
 * must come before its earliest exit. */
typedef struct barrier_check {
    int *counter; /* one node: the counter; else NULL */
    int64_t *in, *out;    /* clock readings, [rank * BARRIER_ROUNDS + round] */
} barrier_check;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void barrier_method(const group *g, int mi, const cs_method *m, const barrier_check *ck)
{
    stats *s = &G.st[CS_BARRIER][mi];
    cs_call c;
    int rc = cs_call_barrier(&c, g->comm);
    if (rc != MPI_SUCCESS) {
        report(g, m, "cs_call_barrier: MPI error %d", rc);
        s->failed++;
        return;
    }
    if (!runs(g, m, s, &c,
              &(mx_case){CS_BARRIER, g->size, 0, MPI_DATATYPE_NULL, MPI_OP_NULL}, 0))
        return;
    int bad = 0;
    int64_t in[BARRIER_ROUNDS], out[BARRIER_ROUNDS];
    for (int r = 0; r < BARRIER_ROUNDS; r++) { /* all rounds, even after a failure */
        if (g->rank == (r * 5 + mi) % g->size)
            usleep(300); /* a late rank: leaving early would see a short count */
        if (ck->counter)
            __atomic_fetch_add(ck->counter, 1, __ATOMIC_SEQ_CST);
        in[r] = now_ns();
        rc = cs_method_run(m, &c);
        out[r] = now_ns();
        int v = ck->counter ? __atomic_load_n(ck->counter, __ATOMIC_SEQ_CST) : (r + 1) * g->size;
        if ((rc != MPI_SUCCESS || v < (r + 1) * g->size || v > (r + 2) * g->size) && !bad++)
            report(g, m, "round %d: rc %d, counter %d after the barrier, expected %d..%d", r, rc,
                   v, (r + 1) * g->size, (r + 2) * g->size);
    }
    if (!ck->counter) {
        MPI_Allgather(in, BARRIER_ROUNDS, MPI_INT64_T, ck->in, BARRIER_ROUNDS, MPI_INT64_T,
                      g->comm);
        MPI_Allgather(out, BARRIER_ROUNDS, MPI_INT64_T, ck->out, BARRIER_ROUNDS, MPI_INT64_T,
                      g->comm);
        for (int r = 0; r < BARRIER_ROUNDS; r++) {
            int64_t last_in = ck->in[r], first_out = ck->out[r];
            for (int i = 1; i < g->size; i++) {
                if (ck->in[i * BARRIER_ROUNDS + r] > last_in)
                    last_in = ck->in[i * BARRIER_ROUNDS + r];
                if (ck->out[i * BARRIER_ROUNDS + r] < first_out)
                    first_out = ck->out[i * BARRIER_ROUNDS + r];
            }
            if (first_out < last_in && !bad++)
                report(g, m, "round %d: a rank left %.1f us before the last one entered", r,
                       (double)(last_in - first_out) / 1e3);
        }
    }
    s->ran++;
    s->failed += bad > 0;
    MPI_Barrier(g->comm); /* realign before the next method (even after a failure) */
}

/* Do all ranks of comm run on one machine (one boot id: one clock)? */
static int one_machine(MPI_Comm comm)
{
    char id[64] = "", first[64];
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(id, sizeof id, f))
            id[0] = 0;
        fclose(f);
    }
    memcpy(first, id, sizeof id);
    MPI_Bcast(first, sizeof first, MPI_CHAR, 0, comm);
    int same = id[0] && !strcmp(id, first), all;
    MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, comm);
    return all;
}

static void barrier_all(const group *g, const cs_method *t, int n)
{
    MPI_Comm shm;
    MPI_Win win = MPI_WIN_NULL;
    int *base = NULL;
    MPI_Comm_split_type(g->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    int ssize;
    MPI_Comm_size(shm, &ssize);
    barrier_check ck = {0};
    if (ssize == g->size) {
        MPI_Win_allocate_shared(g->rank == 0 ? (MPI_Aint)(n * sizeof(int)) : 0, sizeof(int),
                                MPI_INFO_NULL, shm, &base, &win);
        MPI_Aint len;
        int du;
        MPI_Win_shared_query(win, 0, &len, &du, &base);
        if (g->rank == 0)
            for (int i = 0; i < n; i++)
                __atomic_store_n(&base[i], 0, __ATOMIC_RELAXED);
    } else if (one_machine(g->comm)) {
        ck.in = malloc((size_t)g->size * BARRIER_ROUNDS * sizeof *ck.in);
        ck.out = malloc((size_t)g->size * BARRIER_ROUNDS * sizeof *ck.out);
        if (!ck.in || !ck.out) {
            fprintf(stderr, "matrix: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else {
        if (g->rank == 0)
            fprintf(stderr, "matrix: barrier check needs one node or one machine; skipped\n");
        MPI_Comm_free(&shm);
        return;
    }
    MPI_Barrier(g->comm);
    for (int i = 1; i < n; i++) {
        ck.counter = base ? &base[i] : NULL;
        if (selected(t[i].name))
            barrier_method(g, i, &t[i], &ck);
    }
    if (win != MPI_WIN_NULL)
        MPI_Win_free(&win);
    free(ck.in);
    free(ck.out);
    MPI_Comm_free(&shm);
}

/* ---- driver --------------------------------------------------------------- */

static void run_group(const group *g)
{
    for (int c = 0; c < CS_NCOLL; c++) {
        if (!G.colls[c])
            continue;
        int n;
        const cs_method *t = G.methods((enum cs_coll)c, &n);
        if (c == CS_BARRIER) {
            barrier_all(g, t, n);
            continue;
        }
        for (int i = 1; i < n; i++) { /* 0 is native itself */
            if (!selected(t[i].name))
                continue;
            if (G.verbose && g->rank == 0)
                fprintf(stderr, "size %d: %s\n", g->size, t[i].name);
            if (c == CS_BCAST)
                bcast_method(g, i, &t[i]);
            else if (c == CS_ALLREDUCE)
                allreduce_method(g, i, &t[i]);
            else if (c == CS_ALLTOALL)
                alltoall_method(g, i, &t[i]);
            else
                reduce_method(g, i, &t[i]);
        }
    }
}

/* Phases: each takes the largest pending sizes that still fit. */
static void run_sizes(int *sizes, int nsizes)
{
    int done[16] = {0}, left = nsizes;
    while (left > 0) {
        int free_ranks = G.wsize, start = 0, mycolour = MPI_UNDEFINED, mystart = 0, mysize = 0;
        for (int i = 0; i < nsizes; i++) { /* sizes are sorted descending */
            if (done[i] || sizes[i] > free_ranks)
                continue;
            if (G.wrank >= start && G.wrank < start + sizes[i])
                mycolour = i, mystart = start, mysize = sizes[i];
            start += sizes[i];
            free_ranks -= sizes[i];
            done[i] = 1;
            left--;
        }
        group g;
        if (mysize == G.wsize) {
            g.comm = MPI_COMM_WORLD;
        } else {
            int key = mysize - 1 - (G.wrank - mystart); /* reversed rank order */
            MPI_Comm_split(MPI_COMM_WORLD, mycolour, key, &g.comm);
        }
        if (g.comm != MPI_COMM_NULL) {
            MPI_Comm_rank(g.comm, &g.rank);
            MPI_Comm_size(g.comm, &g.size);
            mx_layout_of(g.comm, G.node_size, &g.lay);
            run_group(&g);
            if (g.comm != MPI_COMM_WORLD)
                MPI_Comm_free(&g.comm);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

static int summary(void)
{
    int bad = 0;
    for (int c = 0; c < CS_NCOLL; c++) {
        if (!G.colls[c])
            continue;
        int n;
        const cs_method *t = G.methods((enum cs_coll)c, &n);
        stats *sum = calloc((size_t)n, sizeof *sum);
        MPI_Reduce(G.st[c], sum, NSTATS * n, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (G.wrank == 0) {
            long ran = 0, skipped = 0, failed = 0, tested = 0, missed = 0;
            for (int i = 1; i < n; i++) {
                if (!selected(t[i].name))
                    continue;
                tested++;
                ran += sum[i].ran;
                skipped += sum[i].skipped;
                failed += sum[i].failed;
                if (G.selftest) {
                    printf("  %s: %s\n", t[i].name, sum[i].failed ? "caught" : "NOT CAUGHT");
                    missed += !sum[i].failed;
                    continue;
                }
                if (sum[i].failed)
                    printf("  %s: %ld of %ld rank-cases FAILED\n", t[i].name, sum[i].failed,
                           sum[i].ran);
                if (sum[i].ran == 0 && sum[i].expected == 0) {
                    printf("  %s: its restrictions exclude every case tested (sizes, node "
                           "layouts)\n", t[i].name);
                } else if (sum[i].ran == 0) {
                    printf("  %s: never ran (not applicable everywhere)\n", t[i].name);
                    failed++;
                }
                if (c != CS_BARRIER && sum[i].large == 0 && (sum[i].ran > 0 || sum[i].xlarge)) {
                    printf("  %s: no multi-segment case ran\n", t[i].name);
                    failed++;
                }
            }
            printf("%-8s %3ld methods: %ld rank-cases matched native, %ld skipped (method "
                   "does not apply), %ld failed\n", cs_coll_name(c), tested, ran - failed,
                   skipped, failed);
            bad |= G.selftest ? missed != 0 : failed != 0;
        }
        free(sum);
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return bad;
}

static int parse_list(const char *s, int *out, int max)
{
    int n = 0;
    for (char *end; *s && n < max; s = *end ? end + 1 : end) {
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || (*end && *end != ','))
            return -1;
        out[n++] = (int)v;
    }
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &G.wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &G.wsize);
    static const int default_sizes[] = {8, 7, 5, 4, 3, 2, 1};
    int sizes[16], nsizes = 0;
    for (int i = 0; i < 7; i++)
        if (default_sizes[i] <= G.wsize)
            sizes[nsizes++] = default_sizes[i];
    for (int c = 0; c < CS_NCOLL; c++)
        G.colls[c] = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            nsizes = parse_list(argv[++i], sizes, 16);
        } else if (!strcmp(argv[i], "--colls") && i + 1 < argc) {
            const char *s = argv[++i];
            for (int c = 0; c < CS_NCOLL; c++) { /* whole names: "reduce" is in "allreduce" */
                size_t n = strlen(cs_coll_name(c));
                G.colls[c] = 0;
                for (const char *q = s; (q = strstr(q, cs_coll_name(c))); q += n)
                    if ((q == s || q[-1] == ',') && (q[n] == 0 || q[n] == ','))
                        G.colls[c] = 1;
            }
        } else if (!strcmp(argv[i], "--methods") && i + 1 < argc) {
            G.filter = argv[++i];
        } else if (!strcmp(argv[i], "--node-size") && i + 1 < argc) {
            G.node_size = atoi(argv[++i]); /* virtual nodes: node-aware methods */
            cs_shm_set_node_size(G.node_size);
        } else if (!strcmp(argv[i], "--quick")) {
            G.quick = 1;
        } else if (!strcmp(argv[i], "--selftest")) {
            G.selftest = 1;
        } else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "-vv")) {
            G.verbose = (int)strlen(argv[i]) - 1;
        } else {
            nsizes = -1;
        }
    }
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] > G.wsize)
            nsizes = -1;
    if (nsizes <= 0) {
        if (G.wrank == 0)
            fprintf(stderr, "usage: matrix [--sizes N,N,...] [--colls bcast,reduce,barrier] "
                            "[--methods SUBSTRING,...] [--quick] [-v]   (sizes <= %d)\n", G.wsize);
        MPI_Finalize();
        return 2;
    }
    for (int i = 0; i < nsizes; i++) /* descending, for the phases */
        for (int j = i + 1; j < nsizes; j++)
            if (sizes[j] > sizes[i]) {
                int x = sizes[i];
                sizes[i] = sizes[j];
                sizes[j] = x;
            }
    if (mt_init() < 0) {
        fprintf(stderr, "matrix: cannot create the test datatypes/ops\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    init_combos();
    G.methods = G.selftest ? selftest_methods : cs_methods;
    for (int c = 0; c < CS_NCOLL; c++) {
        int n;
        G.methods((enum cs_coll)c, &n);
        G.st[c] = calloc((size_t)n, sizeof(stats));
    }
    double t0 = MPI_Wtime();
    memcpy(G.sizes, sizes, sizeof(int) * (size_t)nsizes);
    G.nsizes = nsizes;
    run_sizes(sizes, nsizes);
    int bad = summary();
    if (G.wrank == 0)
        printf("matrix: %d ranks, %.1f s, %s\n", G.wsize, MPI_Wtime() - t0,
               G.selftest ? (bad ? "FAILED: a broken method went unnoticed"
                                 : "every broken method was caught")
                          : (bad ? "FAILED" : "all matched"));
    mt_finalize();
    for (int c = 0; c < CS_NCOLL; c++)
        free(G.st[c]);
    MPI_Finalize();
    return bad;
}
