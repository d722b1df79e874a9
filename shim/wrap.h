/* The intercepted collectives: ONE table (CS_COLL_TABLE, a row per
 * collective), from which every wrapper is derived: wrap_c.c expands it into
 * the internal implementations cs_w_NAME(ra, ...) and the exported MPI_NAME
 * entry points of the blocking, non-blocking (INAME) and MPI 4 large-count
 * (NAME_c, INAME_c) bindings; wrap_fortran.c (Open MPI) into the Fortran
 * entry points, which call the same cs_w_NAME with the Fortran caller's
 * return address, so every call is counted once, where the application made
 * it; wrap_mpich_fortran.c into MPICH's call-site trampolines.  The profile's
 * list of collectives (record/profile.h, CS_RCOLL_LIST: the file format) has
 * a blocking and a non-blocking entry per row; wrap_c.c checks at compile
 * time that the counts agree.
 *
 * Columns of a row C(X, Camel, low, UP, SHAPE, ROOT, BYTES, BYTES_C, SEL, FN,
 * FN_C, BUF, FORT):
 *   Camel / low / UP  the name's spellings: MPI_Camel, mpi_low, MPI_UP (the
 *                     non-blocking one is I##low / I##UP: Ibcast, IBCAST);
 *                     UP is also the profile id (CS_R_UP, CS_R_IUP)
 *   SHAPE             the parameter list: CS_P_SHAPE / CS_A_SHAPE below (C),
 *                     CS_PC_SHAPE (large count), FP_/FA_SHAPE (Fortran)
 *   ROOT              the root argument, or CS_NOROOT
 *   BYTES, BYTES_C    the bytes one rank contributes (profile.h), plain and
 *                     large-count arguments.  The helpers live in wrap_c.c:
 *     B(count, type)            count x type size
 *     RB(comm, root, a, b)      a at the root (MPI_ROOT on an intercomm), 0 on
 *                               MPI_PROC_NULL, b elsewhere (lazily: only the
 *                               significant arguments are read)
 *     NR(root, x)               0 on MPI_PROC_NULL, else x (Bcast, Reduce)
 *     VM(n, counts, type)       mean over n ranks of counts x type size
 *                               (rounded to nearest); VMC: MPI_Count counts
 *     WM(n, counts, types)      the same with one type per rank; WMC
 *     NP(comm)                  length of per-rank arrays: comm size, or the
 *                               remote group size on an intercommunicator
 *     NL(comm)                  local group size
 *     ND(comm)                  out-degree of the communicator's topology
 *                               (neighborhood collectives; cs_topo_degrees)
 *     IP(buf)                   buf == MPI_IN_PLACE
 *   SEL, FN, FN_C     the enum cs_coll of a collective dispatch may replace
 *                     and its dispatch functions (blocking, large count), or
 *                     -1 and the PMPI functions; non-blocking calls always go
 *                     to PMPI
 *   BUF               1: has a buffer (large-count and f08 bindings exist)
 *   FORT              1: Open MPI's Fortran wrapper is generated from SHAPE
 *                     (0: written by hand in wrap_fortran.c)
 * MPI_IN_PLACE: the size is still what the rank contributes, taken from the
 * arguments that are significant (e.g. Allgather in place: recvcount).
 */
#ifndef COLLSEL_SHIM_WRAP_H
#define COLLSEL_SHIM_WRAP_H

#include "rec.h"

#define CS_UNPAREN(...) __VA_ARGS__

/* Parameter lists shared by blocking and non-blocking variants. */
#define CS_P_GATHER                                                                        \
    const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,              \
        MPI_Datatype rtype, int root, MPI_Comm comm
#define CS_A_GATHER sbuf, scount, stype, rbuf, rcount, rtype, root, comm
#define CS_P_GATHERV                                                                       \
    const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],     \
        const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm
#define CS_A_GATHERV sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm
#define CS_P_SCATTERV                                                                      \
    const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,         \
        void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm
#define CS_A_SCATTERV sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm
#define CS_P_ALLGATHER                                                                     \
    const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,              \
        MPI_Datatype rtype, MPI_Comm comm
#define CS_A_ALLGATHER sbuf, scount, stype, rbuf, rcount, rtype, comm
#define CS_P_ALLGATHERV                                                                    \
    const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],     \
        const int displs[], MPI_Datatype rtype, MPI_Comm comm
#define CS_A_ALLGATHERV sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm
#define CS_P_ALLTOALLV                                                                     \
    const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,        \
        void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,          \
        MPI_Comm comm
#define CS_A_ALLTOALLV sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm
#define CS_P_ALLTOALLW                                                                     \
    const void *sbuf, const int scounts[], const int sdispls[],                            \
        const MPI_Datatype stypes[], void *rbuf, const int rcounts[], const int rdispls[], \
        const MPI_Datatype rtypes[], MPI_Comm comm
#define CS_A_ALLTOALLW sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm
/* Neighbor_alltoallw: displacements in bytes (MPI_Aint) */
#define CS_P_NALLTOALLW                                                                    \
    const void *sbuf, const int scounts[], const MPI_Aint sdispls[],                       \
        const MPI_Datatype stypes[], void *rbuf, const int rcounts[],                      \
        const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm
#define CS_A_NALLTOALLW CS_A_ALLTOALLW
#define CS_P_REDUCE                                                                        \
    const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,         \
        MPI_Comm comm
#define CS_A_REDUCE sbuf, rbuf, count, dt, op, root, comm
#define CS_P_ALLREDUCE                                                                     \
    const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm
#define CS_A_ALLREDUCE sbuf, rbuf, count, dt, op, comm
#define CS_P_RSCAT                                                                         \
    const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt, MPI_Op op,         \
        MPI_Comm comm
#define CS_A_RSCAT sbuf, rbuf, rcounts, dt, op, comm
#define CS_P_RSCATB                                                                        \
    const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm
#define CS_A_RSCATB sbuf, rbuf, rcount, dt, op, comm

/* Bytes of the common shapes. */
#define CS_BY_GATHER RB(comm, root, B(rcount, rtype), B(scount, stype))
#define CS_BY_GATHERV RB(comm, root, VM(NP(comm), rcounts, rtype), B(scount, stype))
#define CS_BY_SCATTER RB(comm, root, B(scount, stype), B(rcount, rtype))
#define CS_BY_SCATTERV RB(comm, root, VM(NP(comm), scounts, stype), B(rcount, rtype))
#define CS_BY_ALLGATHER (IP(sbuf) ? B(rcount, rtype) : B(scount, stype))
#define CS_BY_ALLGATHERV VM(NP(comm), rcounts, rtype)
#define CS_BY_ALLTOALLV                                                                    \
    (IP(sbuf) ? VM(NP(comm), rcounts, rtype) : VM(NP(comm), scounts, stype))
#define CS_BY_ALLTOALLW                                                                    \
    (IP(sbuf) ? WM(NP(comm), rcounts, rtypes) : WM(NP(comm), scounts, stypes))

#define CS_RQ , MPI_Request *req
#define CS_RQA , req

#define CS_P_BARRIER MPI_Comm comm
#define CS_A_BARRIER comm
#define CS_P_BCAST void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm
#define CS_A_BCAST buf, count, dt, root, comm

/* The memo key of each shape (rec.h, cs_rec_hit): (1, count, type) where
 * every row of the shape has bytes count x type size (given the root and
 * the communicator, which the memo keys too), so that a repeated call
 * needs no type size; (0, -, -) elsewhere: the key is the bytes. */
#define CS_K_BARRIER (0, 0, 0)
#define CS_K_BCAST (1, count, dt)
#define CS_K_REDUCE (1, count, dt)
#define CS_K_ALLREDUCE (1, count, dt)
#define CS_K_RSCATB (1, rcount, dt)
#define CS_K_GATHER (0, 0, 0)
#define CS_K_GATHERV (0, 0, 0)
#define CS_K_SCATTERV (0, 0, 0)
#define CS_K_ALLGATHER (0, 0, 0)
#define CS_K_ALLGATHERV (0, 0, 0)
#define CS_K_ALLTOALLV (0, 0, 0)
#define CS_K_ALLTOALLW (0, 0, 0)
#define CS_K_NALLTOALLW (0, 0, 0)
#define CS_K_RSCAT (0, 0, 0)

#define CS_COLL_TABLE(C, X)                                                                \
    C(X, Barrier, barrier, BARRIER, BARRIER, CS_NOROOT, 0, 0, CS_BARRIER,                  \
      cs_dispatch_barrier, -, 0, 0)                                                        \
    C(X, Bcast, bcast, BCAST, BCAST, root, NR(root, B(count, dt)), NR(root, B(count, dt)), \
      CS_BCAST, cs_dispatch_bcast, cs_dispatch_bcast_c, 1, 1)                              \
    C(X, Reduce, reduce, REDUCE, REDUCE, root, NR(root, B(count, dt)),                     \
      NR(root, B(count, dt)), CS_REDUCE, cs_dispatch_reduce, cs_dispatch_reduce_c, 1, 1)   \
    C(X, Allreduce, allreduce, ALLREDUCE, ALLREDUCE, CS_NOROOT, B(count, dt), B(count, dt),\
      CS_ALLREDUCE, cs_dispatch_allreduce, cs_dispatch_allreduce_c, 1, 1)                  \
    C(X, Gather, gather, GATHER, GATHER, root, CS_BY_GATHER, CS_BY_GATHER, -1,             \
      PMPI_Gather, PMPI_Gather_c, 1, 1)                                                    \
    C(X, Gatherv, gatherv, GATHERV, GATHERV, root, CS_BY_GATHERV, CS_BYC_GATHERV, -1,      \
      PMPI_Gatherv, PMPI_Gatherv_c, 1, 1)                                                  \
    C(X, Scatter, scatter, SCATTER, GATHER, root, CS_BY_SCATTER, CS_BY_SCATTER, -1,        \
      PMPI_Scatter, PMPI_Scatter_c, 1, 1)                                                  \
    C(X, Scatterv, scatterv, SCATTERV, SCATTERV, root, CS_BY_SCATTERV, CS_BYC_SCATTERV,    \
      -1, PMPI_Scatterv, PMPI_Scatterv_c, 1, 1)                                            \
    C(X, Allgather, allgather, ALLGATHER, ALLGATHER, CS_NOROOT, CS_BY_ALLGATHER,           \
      CS_BY_ALLGATHER, -1, PMPI_Allgather, PMPI_Allgather_c, 1, 1)                         \
    C(X, Allgatherv, allgatherv, ALLGATHERV, ALLGATHERV, CS_NOROOT, CS_BY_ALLGATHERV,      \
      CS_BYC_ALLGATHERV, -1, PMPI_Allgatherv, PMPI_Allgatherv_c, 1, 1)                     \
    C(X, Alltoall, alltoall, ALLTOALL, ALLGATHER, CS_NOROOT, CS_BY_ALLGATHER,              \
      CS_BY_ALLGATHER, CS_ALLTOALL, cs_dispatch_alltoall, cs_dispatch_alltoall_c, 1, 1)    \
    C(X, Alltoallv, alltoallv, ALLTOALLV, ALLTOALLV, CS_NOROOT, CS_BY_ALLTOALLV,           \
      CS_BYC_ALLTOALLV, -1, PMPI_Alltoallv, PMPI_Alltoallv_c, 1, 1)                        \
    C(X, Alltoallw, alltoallw, ALLTOALLW, ALLTOALLW, CS_NOROOT, CS_BY_ALLTOALLW,           \
      CS_BYC_ALLTOALLW, -1, PMPI_Alltoallw, PMPI_Alltoallw_c, 1, 0)                        \
    C(X, Reduce_scatter, reduce_scatter, REDUCE_SCATTER, RSCAT, CS_NOROOT,                 \
      VM(NL(comm), rcounts, dt), VMC(NL(comm), rcounts, dt), -1, PMPI_Reduce_scatter,      \
      PMPI_Reduce_scatter_c, 1, 1)                                                         \
    C(X, Reduce_scatter_block, reduce_scatter_block, REDUCE_SCATTER_BLOCK, RSCATB,         \
      CS_NOROOT, B(rcount, dt), B(rcount, dt), -1, PMPI_Reduce_scatter_block,              \
      PMPI_Reduce_scatter_block_c, 1, 1)                                                   \
    C(X, Scan, scan, SCAN, ALLREDUCE, CS_NOROOT, B(count, dt), B(count, dt), -1, PMPI_Scan, \
      PMPI_Scan_c, 1, 1)                                                                   \
    C(X, Exscan, exscan, EXSCAN, ALLREDUCE, CS_NOROOT, B(count, dt), B(count, dt), -1,     \
      PMPI_Exscan, PMPI_Exscan_c, 1, 1)                                                    \
    C(X, Neighbor_allgather, neighbor_allgather, NEIGHBOR_ALLGATHER, ALLGATHER, CS_NOROOT, \
      B(scount, stype), B(scount, stype), -1, PMPI_Neighbor_allgather,                     \
      PMPI_Neighbor_allgather_c, 1, 1)                                                     \
    C(X, Neighbor_allgatherv, neighbor_allgatherv, NEIGHBOR_ALLGATHERV, ALLGATHERV,        \
      CS_NOROOT, B(scount, stype), B(scount, stype), -1, PMPI_Neighbor_allgatherv,         \
      PMPI_Neighbor_allgatherv_c, 1, 1)                                                    \
    C(X, Neighbor_alltoall, neighbor_alltoall, NEIGHBOR_ALLTOALL, ALLGATHER, CS_NOROOT,    \
      B(scount, stype), B(scount, stype), -1, PMPI_Neighbor_alltoall,                      \
      PMPI_Neighbor_alltoall_c, 1, 1)                                                      \
    C(X, Neighbor_alltoallv, neighbor_alltoallv, NEIGHBOR_ALLTOALLV, ALLTOALLV, CS_NOROOT, \
      VM(ND(comm), scounts, stype), VMC(ND(comm), scounts, stype), -1,                     \
      PMPI_Neighbor_alltoallv, PMPI_Neighbor_alltoallv_c, 1, 1)                            \
    C(X, Neighbor_alltoallw, neighbor_alltoallw, NEIGHBOR_ALLTOALLW, NALLTOALLW,           \
      CS_NOROOT, WM(ND(comm), scounts, stypes), WMC(ND(comm), scounts, stypes), -1,        \
      PMPI_Neighbor_alltoallw, PMPI_Neighbor_alltoallw_c, 1, 0)

/* CS_IF_1(x) is x, CS_IF_0(x) nothing (for the BUF and FORT columns). */
#define CS_IF_1(...) __VA_ARGS__
#define CS_IF_0(...)

/* The rows as X(NAME, ID, PARAMS, ARGS, ROOT, BYTES, SEL, FN, KEY): blocking,
 * then non-blocking (never dispatched); KEY: CS_K_SHAPE. */
#define CS_ROW_BLOCKING(X, Camel, low, UP, SH, ROOT, BY, BYC, SEL, FN, FNC, BUF, FORT)      \
    X(Camel, UP, (CS_P_##SH), (CS_A_##SH), ROOT, BY, SEL, FN, CS_K_##SH)
#define CS_ROW_NONBLOCKING(X, Camel, low, UP, SH, ROOT, BY, BYC, SEL, FN, FNC, BUF, FORT)   \
    X(I##low, I##UP, (CS_P_##SH CS_RQ), (CS_A_##SH CS_RQA), ROOT, BY, -1, PMPI_I##low,     \
      CS_K_##SH)
#define CS_WRAP_LIST(X) CS_COLL_TABLE(CS_ROW_BLOCKING, X) CS_COLL_TABLE(CS_ROW_NONBLOCKING, X)

/* Number of rows (each a blocking and a non-blocking collective). */
#define CS_ROW_COUNT(X, ...) +1
enum { CS_NWRAP_ROWS = 0 CS_COLL_TABLE(CS_ROW_COUNT, _) };

/* MPI 4 large-count bindings (MPI_Bcast_c, ...: MPICH 4; Open MPI 4.1 has
 * none): the same collectives, recorded in the same cells (a large-count
 * call is the same collective; its size is what the rank contributes).
 * Counts are MPI_Count, displacements MPI_Aint; the helpers BC/VMC/WMC take
 * them.  Bcast_c, Reduce_c, Allreduce_c and Alltoall_c dispatch like the plain calls when the count
 * fits an int (cs_dispatch_bcast_c, wrap_c.c), natively otherwise. */
#if MPI_VERSION >= 4
#define CS_HAVE_LARGE_COUNT 1
#define CS_PC_GATHER                                                                       \
    const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf, MPI_Count rcount,  \
        MPI_Datatype rtype, int root, MPI_Comm comm
#define CS_PC_GATHERV                                                                      \
    const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,                    \
        const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rtype, int root,  \
        MPI_Comm comm
#define CS_PC_SCATTERV                                                                     \
    const void *sbuf, const MPI_Count scounts[], const MPI_Aint displs[],                  \
        MPI_Datatype stype, void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,    \
        MPI_Comm comm
#define CS_PC_ALLGATHER                                                                    \
    const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf, MPI_Count rcount,  \
        MPI_Datatype rtype, MPI_Comm comm
#define CS_PC_ALLGATHERV                                                                   \
    const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,                    \
        const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rtype,            \
        MPI_Comm comm
#define CS_PC_ALLTOALLV                                                                    \
    const void *sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[],                 \
        MPI_Datatype stype, void *rbuf, const MPI_Count rcounts[],                         \
        const MPI_Aint rdispls[], MPI_Datatype rtype, MPI_Comm comm
#define CS_PC_ALLTOALLW                                                                    \
    const void *sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[],                 \
        const MPI_Datatype stypes[], void *rbuf, const MPI_Count rcounts[],                \
        const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm
#define CS_PC_REDUCE                                                                       \
    const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op, int root,   \
        MPI_Comm comm
#define CS_PC_ALLREDUCE                                                                    \
    const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm
#define CS_PC_RSCAT                                                                        \
    const void *sbuf, void *rbuf, const MPI_Count rcounts[], MPI_Datatype dt, MPI_Op op,   \
        MPI_Comm comm
#define CS_PC_RSCATB                                                                       \
    const void *sbuf, void *rbuf, MPI_Count rcount, MPI_Datatype dt, MPI_Op op,            \
        MPI_Comm comm
#define CS_BYC_GATHERV RB(comm, root, VMC(NP(comm), rcounts, rtype), B(scount, stype))
#define CS_BYC_SCATTERV RB(comm, root, VMC(NP(comm), scounts, stype), B(rcount, rtype))
#define CS_BYC_ALLGATHERV VMC(NP(comm), rcounts, rtype)
#define CS_BYC_ALLTOALLV                                                                   \
    (IP(sbuf) ? VMC(NP(comm), rcounts, rtype) : VMC(NP(comm), scounts, stype))
#define CS_BYC_ALLTOALLW                                                                   \
    (IP(sbuf) ? WMC(NP(comm), rcounts, rtypes) : WMC(NP(comm), scounts, stypes))
#define CS_PC_BCAST void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm
#define CS_PC_NALLTOALLW CS_PC_ALLTOALLW
#define CS_ROW_LARGE(X, Camel, low, UP, SH, ROOT, BY, BYC, SEL, FN, FNC, BUF, FORT)         \
    CS_IF_##BUF(X(Camel##_c, UP, (CS_PC_##SH), (CS_A_##SH), ROOT, BYC, SEL, FNC,           \
                  CS_K_##SH)                                                               \
                X(I##low##_c, I##UP, (CS_PC_##SH CS_RQ), (CS_A_##SH CS_RQA), ROOT, BYC, -1,\
                  PMPI_I##low##_c, CS_K_##SH))
#define CS_WRAP_LIST_C(X) CS_COLL_TABLE(CS_ROW_LARGE, X)
#else
#define CS_WRAP_LIST_C(X)
#endif

/* MPI 4 persistent collectives (MPI_Bcast_init, ..., MPI_Neighbor_*_init,
 * and their large-count forms; MPICH 4, not Open MPI 4.1): the _init call
 * is not an operation; each MPI_Start / MPI_Startall of its request is one,
 * recorded in the cell of the blocking collective, at the call site of the
 * _init (persist.c keeps the request's cell from the _init to
 * MPI_Request_free).  Never dispatched:
 * the MPI library runs them.  Rows X(NAME, ID, PARAMS, ARGS, ROOT, BYTES),
 * ID the blocking collective's. */
#if MPI_VERSION >= 4
#define CS_HAVE_PERSISTENT 1
#define CS_RI , MPI_Info info, MPI_Request *req
#define CS_RIA , info, req
#define CS_ROW_INIT(X, Camel, low, UP, SH, ROOT, BY, BYC, SEL, FN, FNC, BUF, FORT)          \
    X(Camel##_init, UP, (CS_P_##SH CS_RI), (CS_A_##SH CS_RIA), ROOT, BY)                   \
    CS_IF_##BUF(X(Camel##_init_c, UP, (CS_PC_##SH CS_RI), (CS_A_##SH CS_RIA), ROOT, BYC))
#define CS_INIT_LIST(X) CS_COLL_TABLE(CS_ROW_INIT, X)

/* persist.c: remember a persistent collective's request (after a
 * successful _init; out of memory: it is not recorded), record its starts,
 * forget it at MPI_Request_free. */
void cs_persist_add(MPI_Request req, int coll, MPI_Comm comm, uint64_t bytes, int root,
                    void *ra) CS_HIDDEN;
int cs_w_Start(MPI_Request *req) CS_HIDDEN;
int cs_w_Startall(int n, MPI_Request reqs[]) CS_HIDDEN;
int cs_w_Request_free(MPI_Request *req) CS_HIDDEN;
/* MPI_Session_init: not recorded, one line says so (wrap_c.c) */
int cs_w_Session_init(MPI_Info info, MPI_Errhandler eh, MPI_Session *session) CS_HIDDEN;
#else
#define CS_INIT_LIST(X)
#endif

/* Out- and in-degree of comm's virtual topology (neighborhood collectives:
 * the length of their per-neighbour arrays); 0 without a topology. */
static inline void cs_topo_degrees(MPI_Comm comm, int *out, int *in)
{
    int status = MPI_UNDEFINED, n = 0, w = 0;
    *out = *in = 0;
    PMPI_Topo_test(comm, &status);
    if (status == MPI_CART) {
        PMPI_Cartdim_get(comm, &n);
        *out = *in = 2 * n;
    } else if (status == MPI_GRAPH) {
        int r = 0;
        PMPI_Comm_rank(comm, &r);
        PMPI_Graph_neighbors_count(comm, r, &n);
        *out = *in = n;
    } else if (status == MPI_DIST_GRAPH) {
        PMPI_Dist_graph_neighbors_count(comm, in, out, &w);
    }
}

/* The call site recorded for a call that reached a C entry point with
 * return address ra.  MPICH's Fortran bindings call the C functions, so ra
 * is inside MPICH's Fortran library; collsel's trampolines for them
 * (wrap_mpich_fortran.c) leave the application's return address in
 * cs_fortran_ra for the duration of the call. */
#ifdef MPICH_VERSION
extern __thread void *cs_fortran_ra CS_HIDDEN;
#define CS_SITE_RA(ra) (cs_fortran_ra ? cs_fortran_ra : (ra))
#else
#define CS_SITE_RA(ra) (ra)
#endif

/* The internal implementations (wrap_c.c). */
#define CS_W_PROTO(NAME, ID, PARAMS, ARGS, ROOT, BYTES, SEL, FN, KEY)                      \
    int cs_w_##NAME(void *ra, CS_UNPAREN PARAMS) CS_HIDDEN;
CS_WRAP_LIST(CS_W_PROTO)
CS_WRAP_LIST_C(CS_W_PROTO)
#undef CS_W_PROTO
#define CS_W_INIT_PROTO(NAME, ID, PARAMS, ARGS, ROOT, BYTES)                               \
    int cs_w_##NAME(void *ra, CS_UNPAREN PARAMS) CS_HIDDEN;
CS_INIT_LIST(CS_W_INIT_PROTO)
#undef CS_W_INIT_PROTO

/* The frees after which MPI may hand the handle out again (wrap_c.c; the
 * Fortran entry points call the same). */
int cs_w_Comm_free(MPI_Comm *comm) CS_HIDDEN;
int cs_w_Comm_disconnect(MPI_Comm *comm) CS_HIDDEN;
int cs_w_Type_free(MPI_Datatype *type) CS_HIDDEN;

#endif
