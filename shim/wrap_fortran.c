/* Fortran entry points (Open MPI): its mpif.h / `use mpi` / `use mpi_f08`
 * bindings call PMPI_* directly, so a C-only shim would miss Fortran
 * applications.  Each Fortran name converts the handles (MPI_*_f2c), the
 * MPI_IN_PLACE / MPI_BOTTOM sentinels and the request (MPI_Request_c2f) and
 * calls the same internal cs_w_NAME() as the C entry point, with the
 * Fortran caller's return address: every call is counted once, at the
 * application's call site.
 *
 * Names exported for each routine (those libmpi_mpifh / libmpi_usempif08
 * export): mpi_bcast, mpi_bcast_, mpi_bcast__, MPI_BCAST (mpif.h and
 * `use mpi`, per compiler mangling), MPI_Bcast_f08 and mpi_bcast_f08_ (the
 * `use mpi_f08` procedures).  The f08 bindings of Open MPI 4.1 are safe to
 * take over with the same code: choice buffers are passed as plain
 * addresses (ignore-TKR), TYPE(MPI_Comm) etc. hold the one integer handle
 * (ABI-identical to INTEGER), and the optional ierror arrives as NULL when
 * absent (we test it).  Sentinels: Fortran MPI_IN_PLACE / MPI_BOTTOM are
 * the addresses of the common blocks mpi_fortran_in_place / _bottom (all
 * manglings referenced weakly; the f08 module uses the same symbols).
 */
#include <stdlib.h>

#include "wrap.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are passed as int[]");

#define CS_EXPORT __attribute__((visibility("default")))
#define CS_RA __builtin_return_address(0)

#define CS_SENTINEL(x)                                                                     \
    extern int x __attribute__((weak));                                                    \
    extern int x##_ __attribute__((weak));                                                 \
    extern int x##__ __attribute__((weak));
CS_SENTINEL(mpi_fortran_in_place)
CS_SENTINEL(mpi_fortran_bottom)
extern int MPI_FORTRAN_IN_PLACE __attribute__((weak));
extern int MPI_FORTRAN_BOTTOM __attribute__((weak));

static inline int is_in_place(const void *p)
{
    return p && (p == (void *)&mpi_fortran_in_place_ || p == (void *)&mpi_fortran_in_place ||
                 p == (void *)&mpi_fortran_in_place__ || p == (void *)&MPI_FORTRAN_IN_PLACE);
}

static inline int is_bottom(const void *p)
{
    return p && (p == (void *)&mpi_fortran_bottom_ || p == (void *)&mpi_fortran_bottom ||
                 p == (void *)&mpi_fortran_bottom__ || p == (void *)&MPI_FORTRAN_BOTTOM);
}

/* A Fortran choice buffer as C sees it. */
static inline void *FB(const void *p)
{
    return is_in_place(p) ? MPI_IN_PLACE : is_bottom(p) ? MPI_BOTTOM : (void *)p;
}

#define CM(x) PMPI_Comm_f2c(*(x))
#define TY(x) PMPI_Type_f2c(*(x))
#define OP(x) PMPI_Op_f2c(*(x))
#define F MPI_Fint *

/* Every Fortran spelling of one routine, as aliases of fn. */
#define CS_FNAMES(lower, UPPER, Camel, fn, PARAMS)                                         \
    CS_EXPORT void lower PARAMS __attribute__((alias(#fn)));                               \
    CS_EXPORT void lower##_ PARAMS __attribute__((alias(#fn)));                            \
    CS_EXPORT void lower##__ PARAMS __attribute__((alias(#fn)));                           \
    CS_EXPORT void UPPER PARAMS __attribute__((alias(#fn)));                               \
    CS_EXPORT void MPI_##Camel##_f08 PARAMS __attribute__((alias(#fn)));                   \
    CS_EXPORT void lower##_f08_ PARAMS __attribute__((alias(#fn)));

/* A blocking collective: FPARAMS without ierr; CARGS the C arguments. */
#define CS_FWRAP(lower, UPPER, Camel, FPARAMS, CARGS)                                      \
    static void cs_f_##lower(CS_UNPAREN FPARAMS, F ierr)                                   \
    {                                                                                      \
        int rc = cs_w_##Camel(CS_RA, CS_UNPAREN CARGS);                                    \
        if (ierr)                                                                          \
            *ierr = rc;                                                                    \
    }                                                                                      \
    CS_FNAMES(lower, UPPER, Camel, cs_f_##lower, (CS_UNPAREN FPARAMS, F ierr))

/* A non-blocking one: the request goes back through MPI_Request_c2f. */
#define CS_FWRAP_RQ(lower, UPPER, Camel, FPARAMS, CARGS)                                   \
    static void cs_f_##lower(CS_UNPAREN FPARAMS, F freq, F ierr)                           \
    {                                                                                      \
        MPI_Request req = MPI_REQUEST_NULL;                                                \
        int rc = cs_w_##Camel(CS_RA, CS_UNPAREN CARGS, &req);                              \
        if (rc == MPI_SUCCESS)                                                             \
            *freq = PMPI_Request_c2f(req);                                                 \
        if (ierr)                                                                          \
            *ierr = rc;                                                                    \
    }                                                                                      \
    CS_FNAMES(lower, UPPER, Camel, cs_f_##lower, (CS_UNPAREN FPARAMS, F freq, F ierr))

/* Parameter / argument shapes shared by several routines. */
#define FP_GATHER                                                                          \
    (void *sb, F sc, F st, void *rb, F rc_, F rt, F root, F comm)
#define FA_GATHER (FB(sb), *sc, TY(st), FB(rb), *rc_, TY(rt), *root, CM(comm))
#define FP_GATHERV                                                                         \
    (void *sb, F sc, F st, void *rb, F rcs, F dis, F rt, F root, F comm)
#define FA_GATHERV (FB(sb), *sc, TY(st), FB(rb), rcs, dis, TY(rt), *root, CM(comm))
#define FP_SCATTERV                                                                        \
    (void *sb, F scs, F dis, F st, void *rb, F rc_, F rt, F root, F comm)
#define FA_SCATTERV (FB(sb), scs, dis, TY(st), FB(rb), *rc_, TY(rt), *root, CM(comm))
#define FP_ALLGATHER (void *sb, F sc, F st, void *rb, F rc_, F rt, F comm)
#define FA_ALLGATHER (FB(sb), *sc, TY(st), FB(rb), *rc_, TY(rt), CM(comm))
#define FP_ALLGATHERV (void *sb, F sc, F st, void *rb, F rcs, F dis, F rt, F comm)
#define FA_ALLGATHERV (FB(sb), *sc, TY(st), FB(rb), rcs, dis, TY(rt), CM(comm))
#define FP_ALLTOALLV (void *sb, F scs, F sds, F st, void *rb, F rcs, F rds, F rt, F comm)
#define FA_ALLTOALLV (FB(sb), scs, sds, TY(st), FB(rb), rcs, rds, TY(rt), CM(comm))
#define FP_REDUCE (void *sb, void *rb, F count, F dt, F op, F root, F comm)
#define FA_REDUCE (FB(sb), FB(rb), *count, TY(dt), OP(op), *root, CM(comm))
#define FP_ALLREDUCE (void *sb, void *rb, F count, F dt, F op, F comm)
#define FA_ALLREDUCE (FB(sb), FB(rb), *count, TY(dt), OP(op), CM(comm))
#define FP_RSCAT (void *sb, void *rb, F rcs, F dt, F op, F comm)
#define FA_RSCAT (FB(sb), FB(rb), rcs, TY(dt), OP(op), CM(comm))
#define FP_BCAST (void *buf, F count, F dt, F root, F comm)
#define FA_BCAST (FB(buf), *count, TY(dt), *root, CM(comm))

#define FP_RSCATB FP_ALLREDUCE
#define FA_RSCATB FA_ALLREDUCE

/* Every row of wrap.h's table whose FORT column is 1, blocking and
 * non-blocking (Barrier, Alltoallw and Neighbor_alltoallw are written by
 * hand below). */
#define CS_FROW(X, Camel, low, UP, SH, ROOT, BY, BYC, SEL, FN, FNC, BUF, FORT)              \
    CS_IF_##FORT(CS_FWRAP(mpi_##low, MPI_##UP, Camel, FP_##SH, FA_##SH)                    \
                 CS_FWRAP_RQ(mpi_i##low, MPI_I##UP, I##low, FP_##SH, FA_##SH))
CS_COLL_TABLE(CS_FROW, _)

static void cs_f_mpi_barrier(F comm, F ierr)
{
    int rc = cs_w_Barrier(CS_RA, CM(comm));
    if (ierr)
        *ierr = rc;
}
CS_FNAMES(mpi_barrier, MPI_BARRIER, Barrier, cs_f_mpi_barrier, (F comm, F ierr))

static void cs_f_mpi_ibarrier(F comm, F freq, F ierr)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = cs_w_Ibarrier(CS_RA, CM(comm), &req);
    if (rc == MPI_SUCCESS)
        *freq = PMPI_Request_c2f(req);
    if (ierr)
        *ierr = rc;
}
CS_FNAMES(mpi_ibarrier, MPI_IBARRIER, Ibarrier, cs_f_mpi_ibarrier, (F comm, F freq, F ierr))

/* Alltoallw: arrays of datatype handles to convert (on the stack up to 256
 * ranks, else on the heap). */
#define CS_W_STACK 256
static int alltoallw(void *ra, void *sb, F scs, F sds, F sts, void *rb, F rcs, F rds, F rts,
                     F comm, MPI_Request *req)
{
    MPI_Comm c = CM(comm);
    int n = 0, inter = 0, rc;
    PMPI_Comm_test_inter(c, &inter);
    if (inter)
        PMPI_Comm_remote_size(c, &n);
    else
        PMPI_Comm_size(c, &n);
    MPI_Datatype stack[2 * CS_W_STACK], *t = stack;
    if (n > CS_W_STACK && !(t = malloc(2 * (size_t)n * sizeof *t)))
        return MPI_ERR_NO_MEM;
    void *s = FB(sb);
    for (int i = 0; i < n; i++) {
        t[i] = s == MPI_IN_PLACE ? MPI_DATATYPE_NULL : PMPI_Type_f2c(sts[i]);
        t[n + i] = PMPI_Type_f2c(rts[i]);
    }
    if (req)
        rc = cs_w_Ialltoallw(ra, s, scs, sds, t, FB(rb), rcs, rds, t + n, c, req);
    else
        rc = cs_w_Alltoallw(ra, s, scs, sds, t, FB(rb), rcs, rds, t + n, c);
    if (t != stack)
        free(t);
    return rc;
}

static void cs_f_mpi_alltoallw(void *sb, F scs, F sds, F sts, void *rb, F rcs, F rds, F rts,
                               F comm, F ierr)
{
    int rc = alltoallw(CS_RA, sb, scs, sds, sts, rb, rcs, rds, rts, comm, NULL);
    if (ierr)
        *ierr = rc;
}
CS_FNAMES(mpi_alltoallw, MPI_ALLTOALLW, Alltoallw, cs_f_mpi_alltoallw,
          (void *sb, F scs, F sds, F sts, void *rb, F rcs, F rds, F rts, F comm, F ierr))

static void cs_f_mpi_ialltoallw(void *sb, F scs, F sds, F sts, void *rb, F rcs, F rds, F rts,
                                F comm, F freq, F ierr)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = alltoallw(CS_RA, sb, scs, sds, sts, rb, rcs, rds, rts, comm, &req);
    if (rc == MPI_SUCCESS)
        *freq = PMPI_Request_c2f(req);
    if (ierr)
        *ierr = rc;
}
CS_FNAMES(mpi_ialltoallw, MPI_IALLTOALLW, Ialltoallw, cs_f_mpi_ialltoallw,
          (void *sb, F scs, F sds, F sts, void *rb, F rcs, F rds, F rts, F comm, F freq,
           F ierr))

/* Neighbor_alltoallw: displacements are INTEGER(KIND=MPI_ADDRESS_KIND)
 * (MPI_Aint); one datatype per out-neighbour (send) and in-neighbour
 * (receive). */
static int neighbor_alltoallw(void *ra, void *sb, F scs, MPI_Aint *sds, F sts, void *rb, F rcs,
                              MPI_Aint *rds, F rts, F comm, MPI_Request *req)
{
    MPI_Comm c = CM(comm);
    int out, in, rc;
    cs_topo_degrees(c, &out, &in);
    MPI_Datatype stack[2 * CS_W_STACK], *t = stack;
    if (out + in > 2 * CS_W_STACK && !(t = malloc((size_t)(out + in) * sizeof *t)))
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < out; i++)
        t[i] = PMPI_Type_f2c(sts[i]);
    for (int i = 0; i < in; i++)
        t[out + i] = PMPI_Type_f2c(rts[i]);
    if (req)
        rc = cs_w_Ineighbor_alltoallw(ra, FB(sb), scs, sds, t, FB(rb), rcs, rds, t + out, c,
                                      req);
    else
        rc = cs_w_Neighbor_alltoallw(ra, FB(sb), scs, sds, t, FB(rb), rcs, rds, t + out, c);
    if (t != stack)
        free(t);
    return rc;
}

static void cs_f_mpi_neighbor_alltoallw(void *sb, F scs, MPI_Aint *sds, F sts, void *rb, F rcs,
                                        MPI_Aint *rds, F rts, F comm, F ierr)
{
    int rc = neighbor_alltoallw(CS_RA, sb, scs, sds, sts, rb, rcs, rds, rts, comm, NULL);
    if (ierr)
        *ierr = rc;
}
CS_FNAMES(mpi_neighbor_alltoallw, MPI_NEIGHBOR_ALLTOALLW, Neighbor_alltoallw,
          cs_f_mpi_neighbor_alltoallw,
          (void *sb, F scs, MPI_Aint *sds, F sts, void *rb, F rcs, MPI_Aint *rds, F rts, F comm,
           F ierr))

static void cs_f_mpi_ineighbor_alltoallw(void *sb, F scs, MPI_Aint *sds, F sts, void *rb,
                                         F rcs, MPI_Aint *rds, F rts, F comm, F freq, F ierr)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = neighbor_alltoallw(CS_RA, sb, scs, sds, sts, rb, rcs, rds, rts, comm, &req);
    if (rc == MPI_SUCCESS)
        *freq = PMPI_Request_c2f(req);
    if (ierr)
        *ierr = rc;
}
CS_FNAMES(mpi_ineighbor_alltoallw, MPI_INEIGHBOR_ALLTOALLW, Ineighbor_alltoallw,
          cs_f_mpi_ineighbor_alltoallw,
          (void *sb, F scs, MPI_Aint *sds, F sts, void *rb, F rcs, MPI_Aint *rds, F rts, F comm,
           F freq, F ierr))

/* Life cycle. */

static void cs_f_mpi_init(F ierr)
{
    int rc = PMPI_Init(NULL, NULL);
    if (rc == MPI_SUCCESS)
        cs_life_init(MPI_THREAD_SINGLE);
    if (ierr)
        *ierr = rc;
}
CS_FNAMES(mpi_init, MPI_INIT, Init, cs_f_mpi_init, (F ierr))

static void cs_f_mpi_init_thread(F required, F provided, F ierr)
{
    int p = MPI_THREAD_SINGLE;
    int rc = PMPI_Init_thread(NULL, NULL, *required, &p);
    if (rc == MPI_SUCCESS) {
        *provided = p;
        cs_life_init(p);
    }
    if (ierr)
        *ierr = rc;
}
CS_FNAMES(mpi_init_thread, MPI_INIT_THREAD, Init_thread, cs_f_mpi_init_thread,
          (F required, F provided, F ierr))

static void cs_f_mpi_finalize(F ierr)
{
    cs_life_finalize();
    int rc = PMPI_Finalize();
    if (ierr)
        *ierr = rc;
}
CS_FNAMES(mpi_finalize, MPI_FINALIZE, Finalize, cs_f_mpi_finalize, (F ierr))

#define CS_FFREE(lower, UPPER, Camel, CT, f2c, c2f)                                        \
    static void cs_f_##lower(F h, F ierr)                                                  \
    {                                                                                      \
        CT c = f2c(*h);                                                                    \
        int rc = cs_w_##Camel(&c); /* the caches of the C wrapper, see wrap_c.c */         \
        if (rc == MPI_SUCCESS)                                                             \
            *h = c2f(c);                                                                   \
        if (ierr)                                                                          \
            *ierr = rc;                                                                    \
    }                                                                                      \
    CS_FNAMES(lower, UPPER, Camel, cs_f_##lower, (F h, F ierr))
CS_FFREE(mpi_comm_free, MPI_COMM_FREE, Comm_free, MPI_Comm, PMPI_Comm_f2c, PMPI_Comm_c2f)
CS_FFREE(mpi_comm_disconnect, MPI_COMM_DISCONNECT, Comm_disconnect, MPI_Comm, PMPI_Comm_f2c,
         PMPI_Comm_c2f)
CS_FFREE(mpi_type_free, MPI_TYPE_FREE, Type_free, MPI_Datatype, PMPI_Type_f2c, PMPI_Type_c2f)

static void cs_f_mpi_abort(F comm, F code, F ierr)
{
    cs_life_abort();
    int rc = PMPI_Abort(CM(comm), *code);
    if (ierr)
        *ierr = rc;
}
CS_FNAMES(mpi_abort, MPI_ABORT, Abort, cs_f_mpi_abort, (F comm, F code, F ierr))
