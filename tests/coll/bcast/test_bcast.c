/* MPI test of every bcast method of the registry table (bcast/registry.c)
 * on MPI_COMM_WORLD (run at several sizes): every root (messages > 64 KiB
 * at P > 3: roots 0, P/2, P-1), counts 0 .. ~300 KB
 * (several 64 KiB segments plus a remainder), dense and non-dense
 * datatypes (vector with gaps, struct with a hole, struct in reverse memory
 * order, resized, long double, pair type), and ranks passing different
 * datatypes with the same type signature.  Each result is compared byte for
 * byte (holes included) with PMPI_Bcast of the same data in the same run.
 *
 *   test_bcast [METHOD-SUBSTRING]   (default: every method)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/bcast/bcast.h"

static int rank, size, failures;

typedef struct tcase {
    const char *name;
    MPI_Datatype dt;     /* the datatype at the root (and even ranks) */
    int count;
    MPI_Datatype odd_dt; /* if set: odd ranks use this type and odd_count */
    int odd_count;
} tcase;

static size_t span(MPI_Datatype dt, int count)
{
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(dt, &lb, &ext);
    MPI_Type_get_true_extent(dt, &tlb, &text);
    return count ? (size_t)(tlb + text + (MPI_Aint)(count - 1) * ext) : 1;
}

static unsigned char pattern(size_t i, int seed)
{
    unsigned x = (unsigned)i * 2654435761u ^ (unsigned)seed * 40503u;
    return (unsigned char)(x >> 13 ^ x);
}

/* Run method m on case t with root; compare with PMPI_Bcast. */
static void run(const cs_method *m, const tcase *t, int root, int seed)
{
    int odd = t->odd_dt != MPI_DATATYPE_NULL && rank % 2 == 1;
    MPI_Datatype dt = odd ? t->odd_dt : t->dt;
    int count = odd ? t->odd_count : t->count;
    size_t n = span(dt, count);
    unsigned char *a = malloc(n), *b = malloc(n);
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] = rank == root ? pattern(i, seed) : (unsigned char)(0xE0 + rank);
    cs_call c;
    int rc = cs_call_bcast(&c, a, count, dt, root, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && (!m->applies || m->applies(&c, m)))
        rc = cs_method_run(m, &c);
    else if (rc == MPI_SUCCESS) /* not applicable: native, as dispatch would */
        rc = PMPI_Bcast(a, count, dt, root, MPI_COMM_WORLD);
    int rc2 = PMPI_Bcast(b, count, dt, root, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS || memcmp(a, b, n) != 0) {
        size_t first = 0;
        while (first < n && a[first] == b[first])
            first++;
        if (failures++ < 10)
            fprintf(stderr,
                    "test_bcast: P=%d rank %d: %s, %s, root %d: rc %d/%d, first wrong byte "
                    "%zu of %zu (got 0x%02x, native 0x%02x)\n",
                    size, rank, m->name, t->name, root, rc, rc2, first, n,
                    first < n ? a[first] : 0, first < n ? b[first] : 0);
    }
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *only = argc > 1 ? argv[1] : NULL;

    MPI_Datatype vec, vec_big, hole, rev, resized, dense3, four;
    MPI_Type_vector(3, 2, 3, MPI_INT, &vec); /* 2 of every 3 ints */
    MPI_Type_commit(&vec);
    MPI_Type_vector(1100, 7, 9, MPI_INT, &vec_big); /* 30800 bytes, gaps */
    MPI_Type_commit(&vec_big);
    {
        int bl[2] = {1, 1};
        MPI_Aint d[2] = {0, 8};
        MPI_Datatype ty[2] = {MPI_CHAR, MPI_DOUBLE};
        MPI_Type_create_struct(2, bl, d, ty, &hole); /* char, 7-byte hole, double */
        MPI_Type_commit(&hole);
        MPI_Aint dr[2] = {4, 0};
        MPI_Datatype ti[2] = {MPI_INT, MPI_INT};
        MPI_Type_create_struct(2, bl, dr, ti, &rev); /* dense, but bytes 4..7 first */
        MPI_Type_commit(&rev);
    }
    MPI_Type_create_resized(MPI_INT, 0, 8, &resized);
    MPI_Type_commit(&resized);
    MPI_Type_contiguous(3, MPI_DOUBLE, &dense3);
    MPI_Type_commit(&dense3);
    MPI_Type_contiguous(4, MPI_INT, &four);
    MPI_Type_commit(&four);

    const tcase cases[] = {
        {"0 int", MPI_INT, 0, MPI_DATATYPE_NULL, 0},
        {"1 int", MPI_INT, 1, MPI_DATATYPE_NULL, 0},
        {"7 int", MPI_INT, 7, MPI_DATATYPE_NULL, 0},
        {"1000 int", MPI_INT, 1000, MPI_DATATYPE_NULL, 0},
        {"300013 byte", MPI_BYTE, 300013, MPI_DATATYPE_NULL, 0},
        {"1 vector(3,2,3,int)", vec, 1, MPI_DATATYPE_NULL, 0},
        {"1000 vector(3,2,3,int)", vec, 1000, MPI_DATATYPE_NULL, 0},
        {"9 vector(1100,7,9,int) = 277200 bytes", vec_big, 9, MPI_DATATYPE_NULL, 0},
        {"7 struct{char,double}", hole, 7, MPI_DATATYPE_NULL, 0},
        {"1000 struct{int@4,int@0}", rev, 1000, MPI_DATATYPE_NULL, 0},
        {"1000 resized(int,0,8)", resized, 1000, MPI_DATATYPE_NULL, 0},
        {"7 long double", MPI_LONG_DOUBLE, 7, MPI_DATATYPE_NULL, 0},
        {"1000 long double", MPI_LONG_DOUBLE, 1000, MPI_DATATYPE_NULL, 0},
        {"7 double_int", MPI_DOUBLE_INT, 7, MPI_DATATYPE_NULL, 0},
        {"100 contiguous(3,double)", dense3, 100, MPI_DATATYPE_NULL, 0},
        {"1000 int / odd ranks 250 contiguous(4,int)", MPI_INT, 1000, four, 250},
        {"1000 struct{int@4,int@0} / odd ranks 2000 int", rev, 1000, MPI_INT, 2000},
        {"1000 int / odd ranks 500 struct{int@4,int@0}", MPI_INT, 1000, rev, 500},
        {"12 resized(int,0,8) / odd ranks 2 vector(3,2,3,int)", resized, 12, vec, 2},
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);

    /* the density decision itself */
    MPI_Aint tlb;
    int dense_ok = cs_bcast_dense(MPI_INT, &tlb) && cs_bcast_dense(dense3, &tlb) &&
                   cs_bcast_dense(four, &tlb) && cs_bcast_dense(MPI_LONG_DOUBLE, &tlb) &&
                   !cs_bcast_dense(vec, &tlb) && !cs_bcast_dense(hole, &tlb) &&
                   !cs_bcast_dense(rev, &tlb) && !cs_bcast_dense(resized, &tlb) &&
                   !cs_bcast_dense(MPI_DOUBLE_INT, &tlb);
    if (!dense_ok && failures++ < 10)
        fprintf(stderr, "test_bcast: cs_bcast_dense misclassifies a datatype\n");

    int nrun = 0;
    double t0 = MPI_Wtime();
    for (int mi = 0; mi < cs_bcast_nmethods; mi++) {
        const cs_method *m = &cs_bcast_methods[mi];
        if (only && !strstr(m->name, only))
            continue;
        for (int root = 0; root < size; root++)
            for (int ci = 0; ci < ncases; ci++) {
                /* segmented methods: only messages of 2..64 segments (one
                 * segment is the unsegmented path, tested with the
                 * unsegmented method; beyond a few segments the engine
                 * repeats itself, and time on 2 shared cores is short) */
                int tsize;
                MPI_Type_size(cases[ci].dt, &tsize);
                size_t bytes = (size_t)tsize * (size_t)cases[ci].count;
                if (m->segsize && (bytes <= (size_t)m->segsize || bytes > 64 * (size_t)m->segsize))
                    continue;
                /* large messages at P > 3: roots 0, P/2, P-1 only (every
                 * root with every case at P <= 3) */
                if (size > 3 && bytes > 65536 && root != 0 && root != size / 2 &&
                    root != size - 1)
                    continue;
                run(m, &cases[ci], root, mi * 1000 + root * 37 + ci);
                nrun++;
            }
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_bcast: P=%d: %d method x root x case runs in %.1f s, %d failures\n", size,
               nrun, MPI_Wtime() - t0, total);
    MPI_Datatype *types[] = {&vec, &vec_big, &hole, &rev, &resized, &dense3, &four};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        MPI_Type_free(types[i]);
    MPI_Finalize();
    return total ? 1 : 0;
}
