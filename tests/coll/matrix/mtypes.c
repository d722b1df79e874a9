/* Datatypes and operations of the correctness matrix (see mtypes.h). */
#include "mtypes.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

mt_type mt_types[T_NTYPES];
MPI_Op mt_op_csum = MPI_OP_NULL, mt_op_matmul = MPI_OP_NULL;

static size_t ksize(enum mt_kind k)
{
    switch (k) {
    case K_CHAR: return 1;
    case K_INT: return sizeof(int);
    case K_UNSIGNED: return sizeof(unsigned);
    case K_DOUBLE: return sizeof(double);
    case K_LDOUBLE: return sizeof(long double);
    }
    return 0;
}

/* Bytes of a long double that hold its value (x87: 10 of 16). */
static size_t ld_value_bytes(void)
{
#if LDBL_MANT_DIG == 64
    return 10;
#else
    return sizeof(long double);
#endif
}

static const mt_type *find(MPI_Datatype dt)
{
    for (int i = 0; i < T_NTYPES; i++)
        if (mt_types[i].dt == dt)
            return &mt_types[i];
    return NULL;
}

/* inout = in + inout, field by field (wrapping for integers). */
static void csum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const mt_type *t = find(*dt);
    if (!t)
        return;
    for (int e = 0; e < *len; e++) {
        char *a = (char *)in + e * t->extent, *b = (char *)inout + e * t->extent;
        for (int f = 0; f < t->nf; f++) {
            char *x = a + t->f[f].off, *y = b + t->f[f].off;
            switch (t->f[f].kind) {
            case K_CHAR: *y = (char)(*x ^ *y); break;
            case K_INT: {
                int u, v;
                memcpy(&u, x, sizeof u);
                memcpy(&v, y, sizeof v);
                v = (int)((unsigned)u + (unsigned)v);
                memcpy(y, &v, sizeof v);
                break;
            }
            case K_UNSIGNED: {
                unsigned u, v;
                memcpy(&u, x, sizeof u);
                memcpy(&v, y, sizeof v);
                v += u;
                memcpy(y, &v, sizeof v);
                break;
            }
            case K_DOUBLE: {
                double u, v;
                memcpy(&u, x, sizeof u);
                memcpy(&v, y, sizeof v);
                v += u;
                memcpy(y, &v, sizeof v);
                break;
            }
            case K_LDOUBLE: {
                long double u, v;
                memcpy(&u, x, sizeof u);
                memcpy(&v, y, sizeof v);
                v += u;
                memcpy(y, &v, ld_value_bytes());
                break;
            }
            }
        }
    }
}

/* inout = in x inout (2x2 matrices of unsigned, row major, the 4 fields). */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const mt_type *t = find(*dt);
    if (!t || t->nf != 4)
        return;
    for (int e = 0; e < *len; e++) {
        unsigned a[4], b[4], r[4];
        for (int f = 0; f < 4; f++) {
            memcpy(&a[f], (char *)in + e * t->extent + t->f[f].off, sizeof(unsigned));
            memcpy(&b[f], (char *)inout + e * t->extent + t->f[f].off, sizeof(unsigned));
        }
        r[0] = a[0] * b[0] + a[1] * b[2];
        r[1] = a[0] * b[1] + a[1] * b[3];
        r[2] = a[2] * b[0] + a[3] * b[2];
        r[3] = a[2] * b[1] + a[3] * b[3];
        for (int f = 0; f < 4; f++)
            memcpy((char *)inout + e * t->extent + t->f[f].off, &r[f], sizeof(unsigned));
    }
}

static void set(mt_type *t, const char *name, MPI_Datatype dt, int derived)
{
    t->name = name;
    t->dt = dt;
    t->derived = derived;
    if (derived)
        MPI_Type_commit(&t->dt);
    MPI_Aint lb;
    MPI_Type_get_extent(t->dt, &lb, &t->extent);
    MPI_Type_get_true_extent(t->dt, &t->tlb, &t->textent);
}

static void field(mt_type *t, enum mt_kind k, MPI_Aint off)
{
    t->f[t->nf].kind = k;
    t->f[t->nf].off = off;
    t->nf++;
}

int mt_init(void)
{
    MPI_Datatype d;
    memset(mt_types, 0, sizeof mt_types);
    set(&mt_types[T_CHAR], "char", MPI_CHAR, 0);
    field(&mt_types[T_CHAR], K_CHAR, 0);
    set(&mt_types[T_INT], "int", MPI_INT, 0);
    field(&mt_types[T_INT], K_INT, 0);
    set(&mt_types[T_DOUBLE], "double", MPI_DOUBLE, 0);
    field(&mt_types[T_DOUBLE], K_DOUBLE, 0);
    set(&mt_types[T_LDOUBLE], "long_double", MPI_LONG_DOUBLE, 0);
    field(&mt_types[T_LDOUBLE], K_LDOUBLE, 0);
    set(&mt_types[T_DOUBLE_INT], "double_int", MPI_DOUBLE_INT, 0);
    field(&mt_types[T_DOUBLE_INT], K_DOUBLE, 0);
    field(&mt_types[T_DOUBLE_INT], K_INT, sizeof(double));

    /* contiguous: 3 ints */
    MPI_Type_contiguous(3, MPI_INT, &d);
    set(&mt_types[T_CONTIG], "contig3int", d, 1);
    for (int i = 0; i < 3; i++)
        field(&mt_types[T_CONTIG], K_INT, i * (MPI_Aint)sizeof(int));
    /* vector with gaps: 2 blocks of 2 doubles, stride 3 (gap after each) */
    MPI_Type_vector(2, 2, 3, MPI_DOUBLE, &d);
    MPI_Datatype v;
    MPI_Type_create_resized(d, 0, 6 * sizeof(double), &v); /* trailing gap too */
    MPI_Type_free(&d);
    set(&mt_types[T_VECGAP], "vector_gaps", v, 1);
    for (int i = 0; i < 4; i++)
        field(&mt_types[T_VECGAP], K_DOUBLE, (i / 2 * 3 + i % 2) * (MPI_Aint)sizeof(double));
    /* struct {int; double; char} with natural padding */
    struct s3 {
        int i;
        double d;
        char c;
    };
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {offsetof(struct s3, i), offsetof(struct s3, d), offsetof(struct s3, c)};
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, bl, disp, ty, &d);
    MPI_Type_create_resized(d, 0, sizeof(struct s3), &v);
    MPI_Type_free(&d);
    set(&mt_types[T_STRUCT], "struct", v, 1);
    field(&mt_types[T_STRUCT], K_INT, disp[0]);
    field(&mt_types[T_STRUCT], K_DOUBLE, disp[1]);
    field(&mt_types[T_STRUCT], K_CHAR, disp[2]);
    /* resized: a double with lb -8 and extent 24 (gaps before and after) */
    MPI_Type_create_resized(MPI_DOUBLE, -8, 24, &d);
    set(&mt_types[T_RESIZED], "resized", d, 1);
    field(&mt_types[T_RESIZED], K_DOUBLE, 0);
    /* 2x2 matrices of unsigned: contiguous, and spread over a vector */
    MPI_Type_contiguous(4, MPI_UNSIGNED, &d);
    set(&mt_types[T_MAT], "mat2x2", d, 1);
    for (int i = 0; i < 4; i++)
        field(&mt_types[T_MAT], K_UNSIGNED, i * (MPI_Aint)sizeof(unsigned));
    MPI_Type_vector(2, 2, 3, MPI_UNSIGNED, &d);
    MPI_Type_create_resized(d, 0, 6 * sizeof(unsigned), &v);
    MPI_Type_free(&d);
    set(&mt_types[T_MATV], "mat2x2_vector", v, 1);
    for (int i = 0; i < 4; i++)
        field(&mt_types[T_MATV], K_UNSIGNED, (i / 2 * 3 + i % 2) * (MPI_Aint)sizeof(unsigned));

    if (MPI_Op_create(csum, 1, &mt_op_csum) != MPI_SUCCESS ||
        MPI_Op_create(matmul, 0, &mt_op_matmul) != MPI_SUCCESS)
        return -1;
    return 0;
}

void mt_finalize(void)
{
    for (int i = 0; i < T_NTYPES; i++)
        if (mt_types[i].derived)
            MPI_Type_free(&mt_types[i].dt);
    MPI_Op_free(&mt_op_csum);
    MPI_Op_free(&mt_op_matmul);
}

size_t mt_span(const mt_type *t, int n)
{
    return n <= 0 ? 0 : (size_t)((n - 1) * t->extent + t->textent);
}

/* A small value for element e, field f: exact in every kind and every
 * reduction over <= 8 ranks. */
static long value(unsigned seed, int e, int f, int rank, MPI_Op op)
{
    unsigned h = seed * 2654435761u ^ (unsigned)e * 40503u ^ (unsigned)f * 977u ^
                 (unsigned)rank * 7919u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return (long)(h % 4 == 0 ? 0 : h % 3); /* 0, 1, 2: not only 0/1 */
    if (op == MPI_PROD)
        return (long)(h % 5) - 2;
    if (op == MPI_MAXLOC || op == MPI_MINLOC)
        return (long)(h % 3); /* many ties */
    return (long)(h % 201) - 100;
}

void mt_fill(const mt_type *t, void *buf, int n, unsigned seed, MPI_Op op, int rank)
{
    for (int e = 0; e < n; e++) {
        char *el = (char *)buf + e * t->extent;
        for (int f = 0; f < t->nf; f++) {
            char *p = el + t->f[f].off;
            long v = value(seed, e, f, rank, op);
            if (t == &mt_types[T_DOUBLE_INT] && f == 1)
                v = rank; /* MAXLOC/MINLOC: the index */
            switch (t->f[f].kind) {
            case K_CHAR: *p = (char)v; break;
            case K_INT: {
                int x = (int)v;
                memcpy(p, &x, sizeof x);
                break;
            }
            case K_UNSIGNED: {
                unsigned x = (unsigned)(v + 100);
                memcpy(p, &x, sizeof x);
                break;
            }
            case K_DOUBLE: {
                double x = (double)v / 4;
                memcpy(p, &x, sizeof x);
                break;
            }
            case K_LDOUBLE: {
                long double x = (long double)v / 4;
                memcpy(p, &x, ld_value_bytes());
                break;
            }
            }
        }
    }
}

void mt_mask(const mt_type *t, int n, unsigned char *mask, int reduce_result)
{
    size_t span = mt_span(t, n);
    memset(mask, MT_GAP, span);
    for (int e = 0; e < n; e++)
        for (int f = 0; f < t->nf; f++) {
            size_t len = ksize(t->f[f].kind), at = (size_t)(e * t->extent + t->f[f].off - t->tlb);
            memset(mask + at, MT_DATA, len);
            if (reduce_result && t->f[f].kind == K_LDOUBLE)
                memset(mask + at + ld_value_bytes(), MT_UNDEF, len - ld_value_bytes());
        }
}
