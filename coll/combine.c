/* cs_combine: inout = in op inout, as PMPI_Reduce_local, without the MPI
 * library's call for the predefined ops on the common predefined types.
 *
 * A small reduction's whole fold is one or two elements per contribution:
 * there the MPI library's call (argument checks, the op's dispatch) is
 * the cost, about 25 ns per call measured with Open MPI 4.1 on this
 * project's machine (a flag round trip between two cores is 80-110 ns).
 * Inline here:
 *   integers of 32 and 64 bits (int, unsigned, long, unsigned long, long
 *   long, unsigned long long, int32_t/uint32_t, int64_t/uint64_t): sum
 *   and product (modulo 2^bits, as the MPI libraries' C loops and vector
 *   code wrap), the bitwise and the logical ops (0 or 1, as MPI's C
 *   `&&`), and max and min of the signed ones: the same bits as the
 *   library, in any order.  Max and min of the unsigned types go to the
 *   library: Debian's MPICH 4.0 compares unsigned, uint32_t, uint64_t and
 *   unsigned long long as signed there, Open MPI 4.1 unsigned long
 *   (measured by coll-combine: max(2^64 - 1, 1) = 1), and collsel keeps
 *   the library's bits;
 *   double and float: sum and product, one IEEE operation per element as
 *   the library's, so the same value; where both operands are NaN, the
 *   payload kept may be the other one's (Open MPI 4.1 itself keeps
 *   inout's below 2 doubles and in's from 2 on, MPICH inout's).
 * Everything else (floating-point max/min: -0/+0 and NaN; other types,
 * user ops) and every fold of more than COMBINE_MAX bytes go to
 * PMPI_Reduce_local.  Used where a fold is a few elements: the dynamic
 * reductions' small steps (shm/dynamic.c), whose ranks all fold with it,
 * so they hold the same bits. */
#include <stdint.h>
#include <string.h>

#include "coll.h"

enum { K_NONE, K_S32, K_U32, K_S64, K_U64, K_F64, K_F32 };

/* Bytes up to which the fold is inline: measured against Open MPI 4.1's
 * PMPI_Reduce_local (double sum), 4.4 against 15 ns at 7 elements, 23
 * against 18 ns at 64, 168 against 63 ns at 512 (its vector code). */
#define COMBINE_MAX 256

static int kind_of(MPI_Datatype dt)
{
    if (dt == MPI_DOUBLE)
        return K_F64;
    if (dt == MPI_INT || dt == MPI_INT32_T)
        return K_S32;
    if (dt == MPI_FLOAT)
        return K_F32;
    if (dt == MPI_UNSIGNED || dt == MPI_UINT32_T)
        return K_U32;
    if (dt == MPI_INT64_T || dt == MPI_LONG_LONG)
        return K_S64;
    if (dt == MPI_UINT64_T || dt == MPI_UNSIGNED_LONG_LONG)
        return K_U64;
    if (dt == MPI_LONG)
        return sizeof(long) == 8 ? K_S64 : K_S32;
    if (dt == MPI_UNSIGNED_LONG)
        return sizeof(long) == 8 ? K_U64 : K_U32;
    return K_NONE;
}

/* One loop over n elements of type T (loads and stores through memcpy: a
 * buffer need not be aligned), out = F(a, b) with a from in, b from inout. */
#define LOOP(T, F)                                                                         \
    do {                                                                                   \
        const char *x = in;                                                                \
        char *y = inout;                                                                   \
        for (int i = 0; i < n; i++, x += sizeof(T), y += sizeof(T)) {                      \
            T a, b;                                                                        \
            memcpy(&a, x, sizeof a);                                                       \
            memcpy(&b, y, sizeof b);                                                       \
            b = (T)(F);                                                                    \
            memcpy(y, &b, sizeof b);                                                       \
        }                                                                                  \
        return MPI_SUCCESS;                                                                \
    } while (0)

/* An integer type: S, its unsigned U (sums and products wrap); max and
 * min inline where ORDERED (the signed types: see the header). */
#define INTEGER(S, U, ORDERED)                                                             \
    do {                                                                                   \
        if (op == MPI_SUM)                                                                 \
            LOOP(U, a + b);                                                                \
        if (op == MPI_PROD)                                                                \
            LOOP(U, a * b);                                                                \
        if (op == MPI_MAX && (ORDERED))                                                    \
            LOOP(S, a > b ? a : b);                                                        \
        if (op == MPI_MIN && (ORDERED))                                                    \
            LOOP(S, a < b ? a : b);                                                        \
        if (op == MPI_BAND)                                                                \
            LOOP(U, a & b);                                                                \
        if (op == MPI_BOR)                                                                 \
            LOOP(U, a | b);                                                                \
        if (op == MPI_BXOR)                                                                \
            LOOP(U, a ^ b);                                                                \
        if (op == MPI_LAND)                                                                \
            LOOP(U, a && b);                                                               \
        if (op == MPI_LOR)                                                                 \
            LOOP(U, a || b);                                                               \
        if (op == MPI_LXOR)                                                                \
            LOOP(U, !a != !b);                                                             \
    } while (0)

#define FLOATING(T)                                                                        \
    do {                                                                                   \
        if (op == MPI_SUM)                                                                 \
            LOOP(T, a + b);                                                                \
        if (op == MPI_PROD)                                                                \
            LOOP(T, a * b);                                                                \
    } while (0)

int cs_combine(const void *in, void *inout, int n, MPI_Datatype dt, MPI_Op op)
{
    const int kind = kind_of(dt);
    const size_t size = kind == K_S32 || kind == K_U32 || kind == K_F32 ? 4 : 8;
    if ((size_t)n * size > COMBINE_MAX) /* the library's vector loops win */
        return PMPI_Reduce_local(in, inout, n, dt, op);
    switch (kind) {
    case K_F64:
        FLOATING(double);
        break;
    case K_F32:
        FLOATING(float);
        break;
    case K_S32:
        INTEGER(int32_t, uint32_t, 1);
        break;
    case K_U32:
        INTEGER(uint32_t, uint32_t, 0);
        break;
    case K_S64:
        INTEGER(int64_t, uint64_t, 1);
        break;
    case K_U64:
        INTEGER(uint64_t, uint64_t, 0);
        break;
    default:
        break;
    }
    return PMPI_Reduce_local(in, inout, n, dt, op);
}
