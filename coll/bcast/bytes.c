/* Bcast: the message as contiguous bytes.
 *
 * A broadcast only copies the type signature's bytes, so every algorithm
 * works on c->bytes contiguous bytes.  When the datatype is *dense* (count
 * elements form one gap-free run of bytes whose memory order is the type-map
 * order) that run is the user's buffer, used in place.  Otherwise the root
 * packs the message (PMPI_Pack) into a temporary and the others receive into
 * a temporary and unpack (PMPI_Unpack).  This is decided per rank: ranks may
 * legally pass different datatypes with the same type signature (e.g. 4
 * MPI_INT on one rank, a contiguous type of 4 MPI_INT on another).
 *
 * Density is decided from the datatype's construction, not its extents
 * alone: a struct {int at 4, int at 0} has size == true extent but sends its
 * bytes in the order 4..7, 0..3, which a raw byte copy would not reproduce.
 * Accepted as dense: predefined types with size == true extent == extent,
 * and dups, contiguous types, vectors whose stride equals the block length,
 * resized types (extent == size) built from dense types.  Everything else
 * is packed: correct, at the cost of one copy.
 * Restriction: assumes the native pack format (homogeneous system: packed
 * bytes == signature bytes), as both Open MPI and MPICH use.
 */
#include <stdlib.h>

#include "bcast.h"

/* 1 if one element of dt is a gap-free byte run in type-map order. */
static int run(MPI_Datatype dt, int depth);

/* Run and consecutive elements abut (extent == size). */
static int dense1(MPI_Datatype dt, int depth)
{
    MPI_Aint lb, extent;
    int size;
    if (PMPI_Type_size(dt, &size) || PMPI_Type_get_extent(dt, &lb, &extent))
        return 0;
    return extent == size && run(dt, depth);
}

static int run(MPI_Datatype dt, int depth)
{
    int ni, na, nd, comb, size;
    MPI_Aint tlb, textent;
    if (depth > 16 || PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) ||
        PMPI_Type_size(dt, &size) || PMPI_Type_get_true_extent(dt, &tlb, &textent))
        return 0;
    if (textent != size)
        return 0;
    if (comb == MPI_COMBINER_NAMED)
        return 1;
    int ints[3];
    MPI_Aint addrs[2];
    MPI_Datatype old;
    if (nd != 1 || ni > 3 || na > 2 ||
        (comb != MPI_COMBINER_DUP && comb != MPI_COMBINER_CONTIGUOUS &&
         comb != MPI_COMBINER_VECTOR && comb != MPI_COMBINER_HVECTOR &&
         comb != MPI_COMBINER_RESIZED))
        return 0;
    if (PMPI_Type_get_contents(dt, ni, na, nd, ints, addrs, &old))
        return 0;
    int ok;
    switch (comb) {
    case MPI_COMBINER_RESIZED: /* the run is the old type's */
        ok = run(old, depth + 1);
        break;
    case MPI_COMBINER_VECTOR:  /* count, blocklength, stride (elements) */
        ok = (ints[0] <= 1 || ints[1] == ints[2]) && dense1(old, depth + 1);
        break;
    case MPI_COMBINER_HVECTOR: { /* count, blocklength; stride in bytes */
        MPI_Aint lb, ext;
        ok = !PMPI_Type_get_extent(old, &lb, &ext) &&
             (ints[0] <= 1 || addrs[0] == ints[1] * ext) && dense1(old, depth + 1);
        break;
    }
    case MPI_COMBINER_CONTIGUOUS: /* count */
        ok = ints[0] <= 1 ? run(old, depth + 1) : dense1(old, depth + 1);
        break;
    default: /* DUP */
        ok = run(old, depth + 1);
        break;
    }
    int oni, ona, ond, ocomb;
    if (!PMPI_Type_get_envelope(old, &oni, &ona, &ond, &ocomb) && ocomb != MPI_COMBINER_NAMED)
        PMPI_Type_free(&old);
    return ok;
}

int cs_bcast_dense(MPI_Datatype dt, MPI_Aint *tlb)
{
    if (cs_dt_plain(dt)) {
        *tlb = 0;
        return 1;
    }
    MPI_Aint textent;
    if (PMPI_Type_get_true_extent(dt, tlb, &textent))
        return 0;
    return dense1(dt, 0);
}

int cs_bcast_bytes_get(const cs_call *c, cs_bcast_bytes *b)
{
    MPI_Aint tlb;
    b->tmp = NULL;
    if (cs_bcast_dense(c->dt, &tlb)) {
        b->p = (char *)c->buf + tlb;
        return MPI_SUCCESS;
    }
    int psize = (int)c->bytes, rc = MPI_SUCCESS, pos = 0;
    if (c->rank == c->root)
        CS_TRY(PMPI_Pack_size(c->count, c->dt, c->pcomm, &psize));
    if (!(b->tmp = malloc((size_t)psize > c->bytes ? (size_t)psize : c->bytes)))
        return MPI_ERR_NO_MEM;
    b->p = b->tmp;
    if (c->rank == c->root)
        CS_TRY(PMPI_Pack(c->buf, c->count, c->dt, b->tmp, psize, &pos, c->pcomm));
out:
    if (rc != MPI_SUCCESS) {
        free(b->tmp);
        b->tmp = NULL;
    }
    return rc;
}

int cs_bcast_bytes_put(const cs_call *c, cs_bcast_bytes *b, int rc)
{
    if (b->tmp && rc == MPI_SUCCESS && c->rank != c->root) {
        int pos = 0;
        rc = PMPI_Unpack(b->tmp, (int)c->bytes, &pos, c->buf, c->count, c->dt, c->pcomm);
    }
    free(b->tmp);
    b->tmp = NULL;
    return rc;
}
