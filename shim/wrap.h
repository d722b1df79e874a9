/* The intercepted collectives: ONE table, expanded by wrap_c.c into the
 * internal implementations cs_w_NAME(ra, ...) and the exported MPI_NAME
 * entry points, and used by wrap_fortran.c (whose entry points call the
 * same cs_w_NAME with the Fortran caller's return address, so every call is
 * counted once, where the application made it).
 *
 * Columns: NAME (MPI_NAME / PMPI_NAME), ID (CS_R_ID of profile.h), PARAMS,
 * ARGS, ROOT (CS_NOROOT if unrooted), BYTES: the bytes one rank contributes
 * (profile.h).  The helpers used in BYTES live in wrap_c.c:
 *   B(count, type)            count x type size
 *   RB(comm, root, a, b)      a at the root (MPI_ROOT on an intercomm), 0 on
 *                             MPI_PROC_NULL, b elsewhere (lazily: only the
 *                             significant arguments are read)
 *   NR(root, x)               0 on MPI_PROC_NULL, else x (Bcast, Reduce)
 *   VM(n, counts, type)       mean over n ranks of counts x type size
 *                             (rounded to nearest)
 *   WM(n, counts, types)      the same with one type per rank
 *   NP(comm)                  length of per-rank arrays: comm size, or the
 *                             remote group size on an intercommunicator
 *   NL(comm)                  local group size
 *   IP(buf)                   buf == MPI_IN_PLACE
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

/* X(NAME, ID, PARAMS, ARGS, ROOT, BYTES, SEL, FN): SEL is the enum cs_coll of a
 * collective that dispatch may replace and FN its dispatch function, or -1
 * and the PMPI function. */
#define CS_WRAP_LIST(X)                                                                    \
    X(Barrier, BARRIER, (MPI_Comm comm),                                                   \
      (comm), CS_NOROOT, 0, CS_BARRIER, cs_dispatch_barrier)                               \
    X(Bcast, BCAST, (void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm),      \
      (buf, count, dt, root, comm), root,                                                  \
      NR(root, B(count, dt)), CS_BCAST, cs_dispatch_bcast)                                 \
    X(Reduce, REDUCE, (CS_P_REDUCE),                                                       \
      (CS_A_REDUCE), root, NR(root, B(count, dt)), CS_REDUCE, cs_dispatch_reduce)          \
    X(Allreduce, ALLREDUCE, (CS_P_ALLREDUCE),                                              \
      (CS_A_ALLREDUCE), CS_NOROOT, B(count, dt), CS_ALLREDUCE, cs_dispatch_allreduce)      \
    X(Gather, GATHER, (CS_P_GATHER),                                                       \
      (CS_A_GATHER), root, CS_BY_GATHER, -1, PMPI_Gather)                                  \
    X(Gatherv, GATHERV, (CS_P_GATHERV),                                                    \
      (CS_A_GATHERV), root, CS_BY_GATHERV, -1, PMPI_Gatherv)                               \
    X(Scatter, SCATTER, (CS_P_GATHER),                                                     \
      (CS_A_GATHER), root, CS_BY_SCATTER, -1, PMPI_Scatter)                                \
    X(Scatterv, SCATTERV, (CS_P_SCATTERV),                                                 \
      (CS_A_SCATTERV), root, CS_BY_SCATTERV, -1, PMPI_Scatterv)                            \
    X(Allgather, ALLGATHER, (CS_P_ALLGATHER),                                              \
      (CS_A_ALLGATHER), CS_NOROOT, CS_BY_ALLGATHER, -1, PMPI_Allgather)                    \
    X(Allgatherv, ALLGATHERV, (CS_P_ALLGATHERV),                                           \
      (CS_A_ALLGATHERV), CS_NOROOT, CS_BY_ALLGATHERV, -1, PMPI_Allgatherv)                 \
    X(Alltoall, ALLTOALL, (CS_P_ALLGATHER),                                                \
      (CS_A_ALLGATHER), CS_NOROOT, CS_BY_ALLGATHER, -1, PMPI_Alltoall)                     \
    X(Alltoallv, ALLTOALLV, (CS_P_ALLTOALLV),                                              \
      (CS_A_ALLTOALLV), CS_NOROOT, CS_BY_ALLTOALLV, -1, PMPI_Alltoallv)                    \
    X(Alltoallw, ALLTOALLW, (CS_P_ALLTOALLW),                                              \
      (CS_A_ALLTOALLW), CS_NOROOT, CS_BY_ALLTOALLW, -1, PMPI_Alltoallw)                    \
    X(Reduce_scatter, REDUCE_SCATTER, (CS_P_RSCAT),                                        \
      (CS_A_RSCAT), CS_NOROOT, VM(NL(comm), rcounts, dt), -1, PMPI_Reduce_scatter)         \
    X(Reduce_scatter_block, REDUCE_SCATTER_BLOCK, (CS_P_RSCATB),                           \
      (CS_A_RSCATB), CS_NOROOT, B(rcount, dt), -1, PMPI_Reduce_scatter_block)              \
    X(Scan, SCAN, (CS_P_ALLREDUCE),                                                        \
      (CS_A_ALLREDUCE), CS_NOROOT, B(count, dt), -1, PMPI_Scan)                            \
    X(Exscan, EXSCAN, (CS_P_ALLREDUCE),                                                    \
      (CS_A_ALLREDUCE), CS_NOROOT, B(count, dt), -1, PMPI_Exscan)                          \
    X(Ibarrier, IBARRIER, (MPI_Comm comm CS_RQ),                                           \
      (comm CS_RQA), CS_NOROOT, 0, -1, PMPI_Ibarrier)                                      \
    X(Ibcast, IBCAST, (void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm CS_RQ),\
      (buf, count, dt, root, comm CS_RQA), root,                                           \
      NR(root, B(count, dt)), -1, PMPI_Ibcast)                                             \
    X(Ireduce, IREDUCE, (CS_P_REDUCE CS_RQ),                                               \
      (CS_A_REDUCE CS_RQA), root, NR(root, B(count, dt)), -1, PMPI_Ireduce)                \
    X(Iallreduce, IALLREDUCE, (CS_P_ALLREDUCE CS_RQ),                                      \
      (CS_A_ALLREDUCE CS_RQA), CS_NOROOT, B(count, dt), -1, PMPI_Iallreduce)               \
    X(Igather, IGATHER, (CS_P_GATHER CS_RQ),                                               \
      (CS_A_GATHER CS_RQA), root, CS_BY_GATHER, -1, PMPI_Igather)                          \
    X(Igatherv, IGATHERV, (CS_P_GATHERV CS_RQ),                                            \
      (CS_A_GATHERV CS_RQA), root, CS_BY_GATHERV, -1, PMPI_Igatherv)                       \
    X(Iscatter, ISCATTER, (CS_P_GATHER CS_RQ),                                             \
      (CS_A_GATHER CS_RQA), root, CS_BY_SCATTER, -1, PMPI_Iscatter)                        \
    X(Iscatterv, ISCATTERV, (CS_P_SCATTERV CS_RQ),                                         \
      (CS_A_SCATTERV CS_RQA), root, CS_BY_SCATTERV, -1, PMPI_Iscatterv)                    \
    X(Iallgather, IALLGATHER, (CS_P_ALLGATHER CS_RQ),                                      \
      (CS_A_ALLGATHER CS_RQA), CS_NOROOT, CS_BY_ALLGATHER, -1, PMPI_Iallgather)            \
    X(Iallgatherv, IALLGATHERV, (CS_P_ALLGATHERV CS_RQ),                                   \
      (CS_A_ALLGATHERV CS_RQA), CS_NOROOT, CS_BY_ALLGATHERV, -1, PMPI_Iallgatherv)         \
    X(Ialltoall, IALLTOALL, (CS_P_ALLGATHER CS_RQ),                                        \
      (CS_A_ALLGATHER CS_RQA), CS_NOROOT, CS_BY_ALLGATHER, -1, PMPI_Ialltoall)             \
    X(Ialltoallv, IALLTOALLV, (CS_P_ALLTOALLV CS_RQ),                                      \
      (CS_A_ALLTOALLV CS_RQA), CS_NOROOT, CS_BY_ALLTOALLV, -1, PMPI_Ialltoallv)            \
    X(Ialltoallw, IALLTOALLW, (CS_P_ALLTOALLW CS_RQ),                                      \
      (CS_A_ALLTOALLW CS_RQA), CS_NOROOT, CS_BY_ALLTOALLW, -1, PMPI_Ialltoallw)            \
    X(Ireduce_scatter, IREDUCE_SCATTER, (CS_P_RSCAT CS_RQ),                                \
      (CS_A_RSCAT CS_RQA), CS_NOROOT,                                                      \
      VM(NL(comm), rcounts, dt), -1, PMPI_Ireduce_scatter)                                 \
    X(Ireduce_scatter_block, IREDUCE_SCATTER_BLOCK, (CS_P_RSCATB CS_RQ),                   \
      (CS_A_RSCATB CS_RQA), CS_NOROOT, B(rcount, dt), -1, PMPI_Ireduce_scatter_block)      \
    X(Iscan, ISCAN, (CS_P_ALLREDUCE CS_RQ),                                                \
      (CS_A_ALLREDUCE CS_RQA), CS_NOROOT, B(count, dt), -1, PMPI_Iscan)                    \
    X(Iexscan, IEXSCAN, (CS_P_ALLREDUCE CS_RQ),                                            \
      (CS_A_ALLREDUCE CS_RQA), CS_NOROOT, B(count, dt), -1, PMPI_Iexscan)

/* MPI 4 large-count bindings (MPI_Bcast_c, ...: MPICH 4; Open MPI 4.1 has
 * none): the same collectives, recorded in the same cells (a large-count
 * call is the same collective; its size is what the rank contributes).
 * Counts are MPI_Count, displacements MPI_Aint; the helpers BC/VMC/WMC take
 * them.  Bcast_c and Reduce_c dispatch like Bcast and Reduce when the count
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
#define CS_WRAP_LIST_C(X)                                                                  \
    X(Bcast_c, BCAST, (void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm),\
      (buf, count, dt, root, comm), root,                                                  \
      NR(root, B(count, dt)), CS_BCAST, cs_dispatch_bcast_c)                               \
    X(Reduce_c, REDUCE, (CS_PC_REDUCE),                                                    \
      (CS_A_REDUCE), root, NR(root, B(count, dt)), CS_REDUCE, cs_dispatch_reduce_c)        \
    X(Allreduce_c, ALLREDUCE, (CS_PC_ALLREDUCE),                                           \
      (CS_A_ALLREDUCE), CS_NOROOT, B(count, dt), CS_ALLREDUCE, cs_dispatch_allreduce_c)    \
    X(Gather_c, GATHER, (CS_PC_GATHER),                                                    \
      (CS_A_GATHER), root, CS_BY_GATHER, -1, PMPI_Gather_c)                                \
    X(Gatherv_c, GATHERV, (CS_PC_GATHERV),                                                 \
      (CS_A_GATHERV), root, CS_BYC_GATHERV, -1, PMPI_Gatherv_c)                            \
    X(Scatter_c, SCATTER, (CS_PC_GATHER),                                                  \
      (CS_A_GATHER), root, CS_BY_SCATTER, -1, PMPI_Scatter_c)                              \
    X(Scatterv_c, SCATTERV, (CS_PC_SCATTERV),                                              \
      (CS_A_SCATTERV), root, CS_BYC_SCATTERV, -1, PMPI_Scatterv_c)                         \
    X(Allgather_c, ALLGATHER, (CS_PC_ALLGATHER),                                           \
      (CS_A_ALLGATHER), CS_NOROOT, CS_BY_ALLGATHER, -1, PMPI_Allgather_c)                  \
    X(Allgatherv_c, ALLGATHERV, (CS_PC_ALLGATHERV),                                        \
      (CS_A_ALLGATHERV), CS_NOROOT, CS_BYC_ALLGATHERV, -1, PMPI_Allgatherv_c)              \
    X(Alltoall_c, ALLTOALL, (CS_PC_ALLGATHER),                                             \
      (CS_A_ALLGATHER), CS_NOROOT, CS_BY_ALLGATHER, -1, PMPI_Alltoall_c)                   \
    X(Alltoallv_c, ALLTOALLV, (CS_PC_ALLTOALLV),                                           \
      (CS_A_ALLTOALLV), CS_NOROOT, CS_BYC_ALLTOALLV, -1, PMPI_Alltoallv_c)                 \
    X(Alltoallw_c, ALLTOALLW, (CS_PC_ALLTOALLW),                                           \
      (CS_A_ALLTOALLW), CS_NOROOT, CS_BYC_ALLTOALLW, -1, PMPI_Alltoallw_c)                 \
    X(Reduce_scatter_c, REDUCE_SCATTER, (CS_PC_RSCAT),                                     \
      (CS_A_RSCAT), CS_NOROOT, VMC(NL(comm), rcounts, dt), -1, PMPI_Reduce_scatter_c)      \
    X(Reduce_scatter_block_c, REDUCE_SCATTER_BLOCK, (CS_PC_RSCATB),                        \
      (CS_A_RSCATB), CS_NOROOT, B(rcount, dt), -1, PMPI_Reduce_scatter_block_c)            \
    X(Scan_c, SCAN, (CS_PC_ALLREDUCE),                                                     \
      (CS_A_ALLREDUCE), CS_NOROOT, B(count, dt), -1, PMPI_Scan_c)                          \
    X(Exscan_c, EXSCAN, (CS_PC_ALLREDUCE),                                                 \
      (CS_A_ALLREDUCE), CS_NOROOT, B(count, dt), -1, PMPI_Exscan_c)                        \
    X(Ibcast_c, IBCAST,                                                                    \
      (void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm CS_RQ),        \
      (buf, count, dt, root, comm CS_RQA), root,                                           \
      NR(root, B(count, dt)), -1, PMPI_Ibcast_c)                                           \
    X(Ireduce_c, IREDUCE, (CS_PC_REDUCE CS_RQ),                                            \
      (CS_A_REDUCE CS_RQA), root, NR(root, B(count, dt)), -1, PMPI_Ireduce_c)              \
    X(Iallreduce_c, IALLREDUCE, (CS_PC_ALLREDUCE CS_RQ),                                   \
      (CS_A_ALLREDUCE CS_RQA), CS_NOROOT, B(count, dt), -1, PMPI_Iallreduce_c)             \
    X(Igather_c, IGATHER, (CS_PC_GATHER CS_RQ),                                            \
      (CS_A_GATHER CS_RQA), root, CS_BY_GATHER, -1, PMPI_Igather_c)                        \
    X(Igatherv_c, IGATHERV, (CS_PC_GATHERV CS_RQ),                                         \
      (CS_A_GATHERV CS_RQA), root, CS_BYC_GATHERV, -1, PMPI_Igatherv_c)                    \
    X(Iscatter_c, ISCATTER, (CS_PC_GATHER CS_RQ),                                          \
      (CS_A_GATHER CS_RQA), root, CS_BY_SCATTER, -1, PMPI_Iscatter_c)                      \
    X(Iscatterv_c, ISCATTERV, (CS_PC_SCATTERV CS_RQ),                                      \
      (CS_A_SCATTERV CS_RQA), root, CS_BYC_SCATTERV, -1, PMPI_Iscatterv_c)                 \
    X(Iallgather_c, IALLGATHER, (CS_PC_ALLGATHER CS_RQ),                                   \
      (CS_A_ALLGATHER CS_RQA), CS_NOROOT, CS_BY_ALLGATHER, -1, PMPI_Iallgather_c)          \
    X(Iallgatherv_c, IALLGATHERV, (CS_PC_ALLGATHERV CS_RQ),                                \
      (CS_A_ALLGATHERV CS_RQA), CS_NOROOT, CS_BYC_ALLGATHERV, -1, PMPI_Iallgatherv_c)      \
    X(Ialltoall_c, IALLTOALL, (CS_PC_ALLGATHER CS_RQ),                                     \
      (CS_A_ALLGATHER CS_RQA), CS_NOROOT, CS_BY_ALLGATHER, -1, PMPI_Ialltoall_c)           \
    X(Ialltoallv_c, IALLTOALLV, (CS_PC_ALLTOALLV CS_RQ),                                   \
      (CS_A_ALLTOALLV CS_RQA), CS_NOROOT, CS_BYC_ALLTOALLV, -1, PMPI_Ialltoallv_c)         \
    X(Ialltoallw_c, IALLTOALLW, (CS_PC_ALLTOALLW CS_RQ),                                   \
      (CS_A_ALLTOALLW CS_RQA), CS_NOROOT, CS_BYC_ALLTOALLW, -1, PMPI_Ialltoallw_c)         \
    X(Ireduce_scatter_c, IREDUCE_SCATTER, (CS_PC_RSCAT CS_RQ),                             \
      (CS_A_RSCAT CS_RQA), CS_NOROOT, VMC(NL(comm), rcounts, dt), -1,                      \
      PMPI_Ireduce_scatter_c)                                                              \
    X(Ireduce_scatter_block_c, IREDUCE_SCATTER_BLOCK, (CS_PC_RSCATB CS_RQ),                \
      (CS_A_RSCATB CS_RQA), CS_NOROOT, B(rcount, dt), -1, PMPI_Ireduce_scatter_block_c)    \
    X(Iscan_c, ISCAN, (CS_PC_ALLREDUCE CS_RQ),                                             \
      (CS_A_ALLREDUCE CS_RQA), CS_NOROOT, B(count, dt), -1, PMPI_Iscan_c)                  \
    X(Iexscan_c, IEXSCAN, (CS_PC_ALLREDUCE CS_RQ),                                         \
      (CS_A_ALLREDUCE CS_RQA), CS_NOROOT, B(count, dt), -1, PMPI_Iexscan_c)
#else
#define CS_WRAP_LIST_C(X)
#endif

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
#define CS_W_PROTO(NAME, ID, PARAMS, ARGS, ROOT, BYTES, SEL, FN)                           \
    int cs_w_##NAME(void *ra, CS_UNPAREN PARAMS) CS_HIDDEN;
CS_WRAP_LIST(CS_W_PROTO)
CS_WRAP_LIST_C(CS_W_PROTO)
#undef CS_W_PROTO

/* The frees after which MPI may hand the handle out again (wrap_c.c; the
 * Fortran entry points call the same). */
int cs_w_Comm_free(MPI_Comm *comm) CS_HIDDEN;
int cs_w_Comm_disconnect(MPI_Comm *comm) CS_HIDDEN;
int cs_w_Type_free(MPI_Datatype *type) CS_HIDDEN;

#endif
