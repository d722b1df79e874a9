/* Datatypes and operations of the correctness matrix.
 *
 * Every test datatype is described by its fields (kind and byte offset in
 * one element) so that buffers can be filled with values that make every
 * reduction exact (small integers, also in floating point), and so that a
 * comparison knows which bytes are data and which are gaps. */
#ifndef CS_MTYPES_H
#define CS_MTYPES_H

#include <mpi.h>
#include <stddef.h>

enum mt_kind { K_CHAR, K_INT, K_UNSIGNED, K_DOUBLE, K_LDOUBLE };

typedef struct mt_type {
    const char *name;
    MPI_Datatype dt;
    int nf;
    struct {
        enum mt_kind kind;
        MPI_Aint off;
    } f[6];
    MPI_Aint extent, tlb, textent; /* from MPI */
    int derived;                   /* 1: we created (and free) dt */
} mt_type;

enum { T_CHAR, T_INT, T_DOUBLE, T_LDOUBLE, T_DOUBLE_INT, T_CONTIG, T_VECGAP, T_STRUCT,
       T_RESIZED, T_MAT, T_MATV, T_NTYPES };
extern mt_type mt_types[T_NTYPES];

/* Operations: predefined, a commutative user op (element-wise wrapping sum
 * of every field, exact on our values), a non-commutative one (2x2 matrix
 * product of unsigned, for T_MAT and T_MATV). */
extern MPI_Op mt_op_csum, mt_op_matmul;

int mt_init(void);     /* create the derived datatypes and user ops */
void mt_finalize(void);

/* Bytes spanned by n elements (n >= 1 ; 0 -> 0) and the offset of the
 * buffer pointer inside its allocation. */
size_t mt_span(const mt_type *t, int n);

/* Fill the data bytes of n elements at buf (gaps untouched) with values
 * depending on seed.  kind_ok: values suitable for op (logical ops get 0/1,
 * products small values, MAXLOC/MINLOC ties with index = rank). */
void mt_fill(const mt_type *t, void *buf, int n, unsigned seed, MPI_Op op, int rank);

/* Byte mask of n elements over mt_span(t, n) bytes from the true lower
 * bound of the buffer (pointer + tlb): MT_DATA, MT_GAP (never written by a
 * collective), and with reduce_result, MT_UNDEF for bytes whose value an
 * arithmetic op leaves undefined (the padding of an x87 long double). */
enum { MT_GAP = 0, MT_DATA = 1, MT_UNDEF = 2 };
void mt_mask(const mt_type *t, int n, unsigned char *mask, int reduce_result);

#endif
