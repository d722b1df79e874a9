/* Every method of the reduce table against PMPI_Reduce, in one run:
 * all roots, counts {0,1,2,3,5,7,13,1031} and a large count spanning
 * several segments of every size (~70000 ints; --big-roots limits its
 * roots), predefined ops on basic, pair and derived datatypes, a user
 * commutative op, a user non-commutative op (2x2 matrix product, also
 * checked against the rank-ordered product computed locally) and
 * MPI_IN_PLACE at the root.  The root also checks that gaps of derived
 * types are untouched, every rank that its send buffer is unchanged;
 * non-roots pass recvbuf = NULL.  A method that does not apply is skipped
 * (and counted); so is a segmented variant when the message fits in one
 * segment, as it then runs exactly the unsegmented variant's code.
 *
 * Usage: mpirun -n P test_reduce [--only NAME-PREFIX] [--big-roots N]
 *        [--op-roots N]
 * --big-roots: number of roots tried with the large count; --op-roots: with
 * the cases that only vary the predefined op on a basic type (int.prod ..
 * uchar.bxor); default all.  One root is the middle one; more are spread
 * evenly from 0 to P-1.
 * Exit 0 when every comparison holds, 1 otherwise. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/reduce/reduce.h"

enum slot { S_INT, S_UINT, S_DBL, S_LDBL, S_SCHAR, S_UCHAR };
static const int slot_bytes[] = {4, 4, 8, sizeof(long double), 1, 1};

/* One element layout: up to 6 typed slots at byte offsets, the extent. */
typedef struct layout {
    int n, off[6];
    enum slot type[6];
    int ext, gaps; /* gaps: bytes outside the slots must stay untouched */
} layout;

enum gen { G_SUM, G_PROD, G_WIDE, G_BITS, G_LOGIC, G_LOC, G_MOD, G_MAT };

typedef struct tcase {
    const char *name;
    layout L;
    enum gen gen;
    int big;     /* large count (0: none) */
    int inplace; /* root passes MPI_IN_PLACE */
    MPI_Datatype dt;
    MPI_Op op;
} tcase;

static int size, rank, nfail, nrun, nskip, nsame;

static uint32_t hash(int r, long i, int salt)
{
    uint32_t x = (uint32_t)r * 2654435761u ^ (uint32_t)i * 40503u ^ (uint32_t)salt * 97u;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    return x;
}

/* Value of slot j of element i on rank r. */
static long gen_value(const tcase *t, int r, long i, int j)
{
    uint32_t h = hash(r, i * 8 + j, (int)t->gen);
    switch (t->gen) {
    case G_SUM: return (long)(h % 2001) - 1000;
    case G_PROD: return h % 5 == 0 ? 2 : h % 7 == 0 ? -1 : 1;
    case G_WIDE: return (long)(h % 100001) - 50000;
    case G_BITS: return (long)h;
    case G_LOGIC: return (long[]){0, 1, 5}[h % 3];
    case G_LOC: return j == 1 ? r : (long)(h % 5);
    case G_MOD: return h % 1000003;
    case G_MAT: return h % 4;
    }
    return 0;
}

static void fill(const tcase *t, int r, char *buf, int count)
{
    for (long i = 0; i < count; i++)
        for (int j = 0; j < t->L.n; j++) {
            char *p = buf + i * t->L.ext + t->L.off[j];
            long v = gen_value(t, r, i, j);
            switch (t->L.type[j]) {
            case S_INT: *(int *)p = (int)v; break;
            case S_UINT: *(unsigned *)p = (unsigned)v; break;
            case S_DBL: *(double *)p = (double)v * 0.125; break;
            case S_LDBL: *(long double *)p = (long double)v * 0.25L + 1e6L; break;
            case S_SCHAR: *(signed char *)p = (signed char)(v & 0x7f); break;
            case S_UCHAR: *(unsigned char *)p = (unsigned char)v; break;
            }
        }
}

static int slot_equal(enum slot s, const char *a, const char *b)
{
    if (s == S_LDBL)
        return *(const long double *)a == *(const long double *)b;
    return memcmp(a, b, (size_t)slot_bytes[s]) == 0;
}

static void failf(const char *what, const char *m, const tcase *t, int count, int root, long i)
{
    nfail++;
    if (nfail <= 20)
        fprintf(stderr, "FAIL size=%d rank=%d method=%s case=%s count=%d root=%d: %s (element %ld)\n",
                size, rank, m, t->name, count, root, what, i);
}

/* 2x2 matrix product out = a * b (unsigned, wraps mod 2^32). */
static void matmul(const unsigned *a, const unsigned *b, unsigned *out)
{
    unsigned o[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                     a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
    memcpy(out, o, sizeof o);
}

static void op_matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) /* inout = in op inout */
        matmul((unsigned *)in + 4 * i, (unsigned *)inout + 4 * i, (unsigned *)inout + 4 * i);
}

static void op_modsum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < 3 * *len; i++) /* over contiguous(3, MPI_INT) */
        ((int *)inout)[i] = (int)(((long)((int *)in)[i] + ((int *)inout)[i]) % 1000003);
}

/* SUM of the int slots of a derived type with gaps, for an MPI that
 * refuses predefined ops on derived datatypes (Open MPI 4.1). */
static MPI_Datatype g_vec;
static const layout *g_vec_L, *g_st_L;
static void op_layout_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const layout *L = *dt == g_vec ? g_vec_L : g_st_L;
    for (long i = 0; i < *len; i++)
        for (int j = 0; j < L->n; j++) {
            long o = i * L->ext + L->off[j];
            *(int *)((char *)inout + o) += *(const int *)((const char *)in + o);
        }
}

/* MPI_SUM on dt if this MPI accepts a predefined op on a derived type
 * made of one basic type, else a user commutative sum. */
static MPI_Op sum_op_for(MPI_Datatype dt, MPI_Op usersum)
{
    int a[64] = {0}, b[64] = {0};
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Reduce_local(a, b, 1, dt, MPI_SUM);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    static int told;
    if (rank == 0 && rc != MPI_SUCCESS && !told++)
        printf("test_reduce: this MPI rejects MPI_SUM on a derived datatype: "
               "using a user commutative sum instead\n");
    return rc == MPI_SUCCESS ? MPI_SUM : usersum;
}

/* Checks at the root: result against the reference, gaps, the matrix
 * product in rank order. */
static void check_root(const tcase *t, const char *m, const char *res, const char *ref,
                       int count, int root)
{
    for (long i = 0; i < count; i++) {
        const char *e = res + i * t->L.ext, *f = ref + i * t->L.ext;
        for (int j = 0; j < t->L.n; j++)
            if (!slot_equal(t->L.type[j], e + t->L.off[j], f + t->L.off[j])) {
                failf("differs from PMPI_Reduce", m, t, count, root, i);
                return;
            }
        for (int b = 0; t->L.gaps && b < t->L.ext; b++) {
            int in_slot = 0;
            for (int j = 0; j < t->L.n; j++)
                in_slot |= b >= t->L.off[j] && b < t->L.off[j] + slot_bytes[t->L.type[j]];
            if (!in_slot && (unsigned char)e[b] != 0x5a) {
                failf("gap byte overwritten", m, t, count, root, i);
                return;
            }
        }
        if (t->gen == G_MAT) {
            unsigned p[4], x[4];
            for (int r = 0; r < size; r++) {
                for (int j = 0; j < 4; j++)
                    x[j] = (unsigned)gen_value(t, r, i, j);
                if (r == 0)
                    memcpy(p, x, sizeof p);
                else
                    matmul(p, x, p);
            }
            if (memcmp(p, e, sizeof p) != 0) {
                failf("not the rank-ordered matrix product", m, t, count, root, i);
                return;
            }
        }
    }
}

/* The root's receive buffer before a call: sentinel, plus its own data
 * when in place. */
static void init_recv(const tcase *t, char *rbuf, size_t bytes, int count)
{
    memset(rbuf, 0x5a, bytes);
    if (t->inplace)
        fill(t, rank, rbuf, count);
}

static void run_case(const tcase *t, const char *only, int big_roots, int op_roots)
{
    int counts[] = {0, 1, 2, 3, 5, 7, 13, 1031, t->big};
    int ncounts = t->big ? 9 : 8;
    int tsize;
    MPI_Type_size(t->dt, &tsize);
    for (int ci = 0; ci < ncounts; ci++) {
        const int count = counts[ci];
        const size_t bytes = (size_t)count * (size_t)t->L.ext + 16;
        char *sbuf = malloc(bytes), *sorig = malloc(bytes), *rbuf = malloc(bytes),
             *rref = malloc(bytes);
        if (!sbuf || !sorig || !rbuf || !rref) {
            fprintf(stderr, "test_reduce: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(sbuf, 0xee, bytes);
        fill(t, rank, sbuf, count);
        memcpy(sorig, sbuf, bytes);
        /* op-only cases (int.sum but another predefined op or basic type)
         * exercise nothing root-dependent beyond what int.sum does */
        const int oponly = t->gen == G_PROD || t->gen == G_WIDE || t->gen == G_BITS ||
                           t->gen == G_LOGIC;
        int nroots = ci == 8 && big_roots < size ? big_roots : size;
        if (oponly && op_roots < nroots)
            nroots = op_roots;
        for (int ri = 0; ri < nroots; ri++) {
            const int root = nroots == size ? ri
                             : nroots == 1 ? size / 2
                                           : (int)((long)ri * (size - 1) / (nroots - 1));
            const int me_root = rank == root;
            const void *sb = t->inplace && me_root ? MPI_IN_PLACE : sbuf;
            if (me_root)
                init_recv(t, rref, bytes, count);
            /* the reference never runs in place (the root's data is in
             * sbuf too): MPICH 4.0-4.1 crash on MPI_IN_PLACE at a root > 0
             * (pmodels/mpich#6540) */
            MPI_Reduce(sbuf, me_root ? rref : NULL, count, t->dt, t->op, root, MPI_COMM_WORLD);
            for (int mi = 0; mi < cs_reduce_nmethods; mi++) {
                const cs_method *m = &cs_reduce_methods[mi];
                if (only && strncmp(m->name, only, strlen(only)) != 0)
                    continue;
#ifdef MPICH_VERSION
                if (mi == 0 && t->inplace && root > 0) { /* native: mpich#6540 */
                    nskip++;
                    continue;
                }
#endif
                if (m->segsize > 0 && (long)count * tsize <= m->segsize) {
                    nsame++; /* one segment: runs exactly as the unsegmented variant */
                    continue;
                }
                cs_call c;
                int rc = cs_call_reduce(&c, sb, me_root ? rbuf : NULL, count, t->dt, t->op,
                                        root, MPI_COMM_WORLD);
                if (rc != MPI_SUCCESS) {
                    failf("cs_call_reduce failed", m->name, t, count, root, -1);
                    continue;
                }
                if (m->applies && !m->applies(&c, m)) {
                    nskip++;
                    continue;
                }
                if (me_root)
                    init_recv(t, rbuf, bytes, count);
                nrun++;
                if ((rc = cs_method_run(m, &c)) != MPI_SUCCESS)
                    failf("method returned an MPI error", m->name, t, count, root, -1);
                if (memcmp(sbuf, sorig, bytes) != 0)
                    failf("send buffer modified", m->name, t, count, root, -1);
                if (me_root)
                    check_root(t, m->name, rbuf, rref, count, root);
            }
        }
        free(sbuf);
        free(sorig);
        free(rbuf);
        free(rref);
    }
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    int big_roots = 1 << 30, op_roots = 1 << 30;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--only"))
            only = argv[i + 1];
        else if (!strcmp(argv[i], "--big-roots"))
            big_roots = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--op-roots"))
            op_roots = atoi(argv[i + 1]);
    }

    MPI_Datatype vec, st0, st, contig3, mat;
    MPI_Type_vector(3, 2, 3, MPI_INT, &vec); /* ints 0 1 _ 3 4 _ 6 7: extent 32 */
    MPI_Type_commit(&vec);
    MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){4, 12}, (MPI_Datatype[]){MPI_INT, MPI_INT},
                           &st0); /* _ int _ int: true lb 4 */
    MPI_Type_create_resized(st0, 0, 16, &st);
    MPI_Type_commit(&st);
    MPI_Type_contiguous(3, MPI_INT, &contig3);
    MPI_Type_commit(&contig3);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat);
    MPI_Type_commit(&mat);
    MPI_Op modsum, matop, lsum;
    MPI_Op_create(op_modsum, 1, &modsum);
    MPI_Op_create(op_matmul, 0, &matop);
    MPI_Op_create(op_layout_sum, 1, &lsum);
    const layout VEC = {6, {0, 4, 12, 16, 24, 28}, {S_INT, S_INT, S_INT, S_INT, S_INT, S_INT}, 32, 1};
    const layout ST = {2, {4, 12}, {S_INT, S_INT}, 16, 1};
    g_vec = vec, g_vec_L = &VEC, g_st_L = &ST;

    const layout INT1 = {1, {0}, {S_INT}, 4, 0};
    const int LD = (int)sizeof(long double);
    tcase cases[] = {
        {"int.sum", INT1, G_SUM, 70001, 0, MPI_INT, MPI_SUM},
        {"int.sum.inplace", INT1, G_SUM, 0, 1, MPI_INT, MPI_SUM},
        {"int.prod", INT1, G_PROD, 0, 0, MPI_INT, MPI_PROD},
        {"int.max", INT1, G_WIDE, 0, 0, MPI_INT, MPI_MAX},
        {"int.min", INT1, G_WIDE, 0, 0, MPI_INT, MPI_MIN},
        {"int.band", INT1, G_BITS, 0, 0, MPI_INT, MPI_BAND},
        {"int.bor", INT1, G_BITS, 0, 0, MPI_INT, MPI_BOR},
        {"int.bxor", INT1, G_BITS, 0, 0, MPI_INT, MPI_BXOR},
        {"int.land", INT1, G_LOGIC, 0, 0, MPI_INT, MPI_LAND},
        {"int.lor", INT1, G_LOGIC, 0, 0, MPI_INT, MPI_LOR},
        {"int.lxor", INT1, G_LOGIC, 0, 0, MPI_INT, MPI_LXOR},
        {"schar.max", {1, {0}, {S_SCHAR}, 1, 0}, G_WIDE, 0, 0, MPI_SIGNED_CHAR, MPI_MAX},
        {"uchar.bxor", {1, {0}, {S_UCHAR}, 1, 0}, G_BITS, 0, 0, MPI_UNSIGNED_CHAR, MPI_BXOR},
        {"double.sum", {1, {0}, {S_DBL}, 8, 0}, G_SUM, 0, 0, MPI_DOUBLE, MPI_SUM},
        {"longdouble.sum", {1, {0}, {S_LDBL}, LD, 0}, G_SUM, 0, 0, MPI_LONG_DOUBLE, MPI_SUM},
        {"double_int.maxloc", {2, {0, 8}, {S_DBL, S_INT}, 16, 0}, G_LOC, 0, 0, MPI_DOUBLE_INT,
         MPI_MAXLOC},
        {"double_int.minloc", {2, {0, 8}, {S_DBL, S_INT}, 16, 0}, G_LOC, 0, 0, MPI_DOUBLE_INT,
         MPI_MINLOC},
        {"2int.maxloc", {2, {0, 4}, {S_INT, S_INT}, 8, 0}, G_LOC, 0, 0, MPI_2INT, MPI_MAXLOC},
        {"vector.sum", VEC, G_SUM, 11701, 0, vec, sum_op_for(vec, lsum)},
        {"struct.sum", ST, G_SUM, 0, 0, st, sum_op_for(st, lsum)},
        {"contig.user_commutative", {3, {0, 4, 8}, {S_INT, S_INT, S_INT}, 12, 0}, G_MOD, 0, 0,
         contig3, modsum},
        {"matrix.user_noncommutative", {4, {0, 4, 8, 12}, {S_UINT, S_UINT, S_UINT, S_UINT}, 16, 0},
         G_MAT, 17501, 0, mat, matop},
        {"matrix.user_noncommutative.inplace",
         {4, {0, 4, 8, 12}, {S_UINT, S_UINT, S_UINT, S_UINT}, 16, 0}, G_MAT, 0, 1, mat, matop},
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    double t0 = MPI_Wtime();
    for (int i = 0; i < ncases; i++)
        run_case(&cases[i], only, big_roots, op_roots);

    int failed;
    MPI_Allreduce(&nfail, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_reduce: size %d: %d methods x %d cases: %d method calls checked, "
               "%d skipped as not applicable, %d segmented calls skipped as one segment "
               "(= unsegmented), %d failures, %.1f s\n",
               size, cs_reduce_nmethods, ncases, nrun, nskip, nsame, failed, MPI_Wtime() - t0);
    MPI_Op_free(&modsum);
    MPI_Op_free(&matop);
    MPI_Op_free(&lsum);
    MPI_Type_free(&vec);
    MPI_Type_free(&st0);
    MPI_Type_free(&st);
    MPI_Type_free(&contig3);
    MPI_Type_free(&mat);
    MPI_Finalize();
    return failed > 0;
}
