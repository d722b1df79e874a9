/* cs_combine (coll/combine.c) against PMPI_Reduce_local: every predefined
 * op valid on the type, on every type it folds inline (and a few it hands
 * to the library), counts 1..9 and 33, random bit patterns with the edge
 * values mixed in (integer extremes, 0, 1, -1; floating point: +-0, +-inf,
 * denormals, huge and tiny magnitudes; no NaN, whose payload the library
 * itself keeps differently by count).  The result must have the library's
 * bits, and `in` must stay untouched.
 *   usage: combine [ROUNDS]   exit 0: every check held */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"

static uint64_t state;

static uint64_t next(void) /* splitmix64 */
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

enum { INTEGER, FLOATING };

typedef struct {
    MPI_Datatype dt;
    const char *name;
    int kind, size;
} dtype;

/* One element of a type: random bits or an edge value. */
static void fill(const dtype *t, unsigned char *x)
{
    uint64_t v = next(), pick = next() % 8;
    if (t->kind == INTEGER) {
        static const uint64_t edge[] = {0, 1, ~0ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
                                        0x7fffffff, 0x80000000u, 2};
        if (pick < 3)
            v = edge[next() % 8];
        else if (pick < 5)
            v = next() % 5; /* small: logical ops see zeros and ones */
        memcpy(x, &v, (size_t)t->size); /* little end: the 32-bit extremes land whole */
        return;
    }
    double d;
    if (pick == 0) { /* the edges, of the type's range */
        static const double e64[] = {0.0, -0.0, INFINITY, -INFINITY, DBL_MIN / 4, -DBL_MIN / 8,
                                     1e300, -1e-300};
        static const double e32[] = {0.0, -0.0, INFINITY, -INFINITY, FLT_MIN / 4, -FLT_MIN / 8,
                                     1e38, -1e-38};
        d = (t->size == 4 ? e32 : e64)[next() % 8];
    } else if (pick == 1) {
        d = (double)(int64_t)(next() % 2001) - 1000.0;
    } else {
        d = ((double)(v >> 11) / 9007199254740992.0 - 0.5) * ldexp(1.0, (int)(next() % 80) - 40);
    }
    if (t->size == 4) {
        float f = (float)d;
        memcpy(x, &f, 4);
    } else {
        memcpy(x, &d, 8);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const int rounds = argc > 1 ? atoi(argv[1]) : 200;
    const dtype types[] = {
        {MPI_INT, "int", INTEGER, 4},
        {MPI_INT32_T, "int32_t", INTEGER, 4},
        {MPI_UNSIGNED, "unsigned", INTEGER, 4},
        {MPI_UINT32_T, "uint32_t", INTEGER, 4},
        {MPI_LONG, "long", INTEGER, (int)sizeof(long)},
        {MPI_UNSIGNED_LONG, "unsigned long", INTEGER, (int)sizeof(long)},
        {MPI_LONG_LONG, "long long", INTEGER, 8},
        {MPI_INT64_T, "int64_t", INTEGER, 8},
        {MPI_UINT64_T, "uint64_t", INTEGER, 8},
        {MPI_UNSIGNED_LONG_LONG, "unsigned long long", INTEGER, 8},
        {MPI_SHORT, "short (library)", INTEGER, 2},
        {MPI_DOUBLE, "double", FLOATING, 8},
        {MPI_FLOAT, "float", FLOATING, 4},
    };
    const struct {
        MPI_Op op;
        const char *name;
        int floating; /* valid on floating point too */
    } ops[] = {{MPI_SUM, "sum", 1},   {MPI_PROD, "prod", 1}, {MPI_MAX, "max", 1},
               {MPI_MIN, "min", 1},   {MPI_BAND, "band", 0}, {MPI_BOR, "bor", 0},
               {MPI_BXOR, "bxor", 0}, {MPI_LAND, "land", 0}, {MPI_LOR, "lor", 0},
               {MPI_LXOR, "lxor", 0}};
    static const int counts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 33};
    unsigned char in[33 * 8], keep[33 * 8], got[33 * 8], want[33 * 8];
    long checks = 0, failures = 0;
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
            const dtype *t = &types[ti];
            if (t->kind == FLOATING && !ops[oi].floating)
                continue;
            for (int r = 0; r < rounds; r++) {
                const int n = counts[r % 10];
                const size_t bytes = (size_t)n * (size_t)t->size;
                for (int i = 0; i < n; i++) {
                    fill(t, in + (size_t)i * (size_t)t->size);
                    fill(t, got + (size_t)i * (size_t)t->size);
                }
                memcpy(want, got, bytes);
                memcpy(keep, in, bytes);
                int rc1 = cs_combine(in, got, n, t->dt, ops[oi].op);
                int rc2 = PMPI_Reduce_local(keep, want, n, t->dt, ops[oi].op);
                checks++;
                if (rc1 != rc2 || memcmp(got, want, bytes) || memcmp(in, keep, bytes)) {
                    if (failures++ < 10)
                        fprintf(stderr, "FAIL %s %s count %d: rc %d/%d, %s\n", t->name,
                                ops[oi].name, n, rc1, rc2,
                                memcmp(in, keep, bytes) ? "in changed" : "bits differ");
                }
            }
        }
    printf("combine: %ld checks, %ld failures\n", checks, failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}
