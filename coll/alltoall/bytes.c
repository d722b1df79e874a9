/* Alltoall: the blocks as contiguous bytes.
 *
 * A dense datatype (../bcast/bytes.c: a gap-free run in type-map order)
 * is used in place: block j of the send buffer is the j-th run of
 * c->bytes bytes from its true lower bound.  Otherwise the send side is
 * packed (PMPI_Pack) into a temporary and the receive side is received
 * into one and unpacked at the end; decided per rank, as ranks may pass
 * different datatypes with the same type signature.  MPI_IN_PLACE: the
 * receive buffer is the send side too; it is copied (dense) or packed
 * before anything arrives.
 * Restriction: the native pack format (homogeneous system), as for bcast.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/bcast/bcast.h"
#include "alltoall.h"

int cs_alltoall_bytes_get(const cs_call *c, cs_alltoall_bytes *b)
{
    const size_t total = c->bytes * (size_t)c->size;
    const int inplace = c->sendbuf == MPI_IN_PLACE;
    const void *src = inplace ? c->buf : c->sendbuf;
    MPI_Aint tlb;
    int rc = MPI_SUCCESS;
    b->stmp = b->rtmp = NULL;
    if (cs_bcast_dense(c->dt, &tlb)) {
        b->s = (const char *)src + tlb;
        if (inplace) {
            if (!(b->stmp = malloc(total)))
                return MPI_ERR_NO_MEM;
            cs_copy(b->stmp, b->s, total);
            b->s = b->stmp;
        }
    } else {
        int psize, pos = 0;
        CS_TRY(PMPI_Pack_size(c->count * c->size, c->dt, c->pcomm, &psize));
        if (!(b->stmp = malloc((size_t)psize > total ? (size_t)psize : total + 1))) {
            rc = MPI_ERR_NO_MEM;
            goto out;
        }
        CS_TRY(PMPI_Pack(src, c->count * c->size, c->dt, b->stmp, psize, &pos, c->pcomm));
        b->s = b->stmp;
    }
    if (cs_bcast_dense(c->rdt, &tlb)) {
        b->r = (char *)c->buf + tlb;
    } else {
        if (!(b->rtmp = malloc(total + 1))) {
            rc = MPI_ERR_NO_MEM;
            goto out;
        }
        b->r = b->rtmp;
    }
out:
    if (rc != MPI_SUCCESS) {
        free(b->stmp);
        b->stmp = NULL;
    }
    return rc;
}

int cs_alltoall_bytes_put(const cs_call *c, cs_alltoall_bytes *b, int rc)
{
    if (b->rtmp && rc == MPI_SUCCESS) {
        int pos = 0;
        rc = PMPI_Unpack(b->rtmp, (int)(c->bytes * (size_t)c->size), &pos, c->buf,
                         c->rcount * c->size, c->rdt, c->pcomm);
    }
    cs_alltoall_bytes_drop(b);
    return rc;
}

void cs_alltoall_bytes_drop(cs_alltoall_bytes *b)
{
    free(b->stmp);
    free(b->rtmp);
    b->stmp = b->rtmp = NULL;
}

void cs_alltoall_self(const cs_call *c, const cs_alltoall_bytes *b)
{
    const size_t at = c->bytes * (size_t)c->rank;
    if (b->r != b->s)
        cs_copy(b->r + at, b->s + at, c->bytes);
}

int cs_alltoall_alone(const cs_call *c)
{
    if (c->bytes == 0)
        return MPI_SUCCESS;
    cs_alltoall_bytes b;
    int rc;
    CS_TRY(cs_alltoall_bytes_get(c, &b));
    cs_alltoall_self(c, &b);
    rc = cs_alltoall_bytes_put(c, &b, rc);
out:
    return rc;
}

int cs_alltoall_begin(const cs_call *c, cs_alltoall_bytes *b, int *rc)
{
    if (c->size < 2 || c->bytes == 0) {
        *rc = cs_alltoall_alone(c);
        return 0;
    }
    *rc = cs_alltoall_bytes_get(c, b);
    return *rc == MPI_SUCCESS;
}
