/* LD_PRELOAD probe for the export tests: what the MPI library itself runs.
 *
 * Open MPI: coll/tuned (a module of its own in 4.1, inside libmpi in 5.0)
 * calls the algorithms of coll/base (ompi_coll_base_bcast_intra_pipeline,
 * ...) through the dynamic linker, so a function of the same name here is
 * called instead: it prints its name and its tuning argument (segment
 * size, fan-out, max requests) and calls the library's.
 * MPICH hides its algorithms; ch4:ucx sends through libucp (with
 * MPIR_CVAR_NOLOCAL=1 also between ranks of a node), so ucp_tag_send_nbx
 * and ucp_tag_send_sync_nbx print each message's size: the run's sequence
 * of sizes is compared with that of a run where MPICH is told the
 * algorithm by its CVAR.
 * Only between MPI_Pcontrol(1) and MPI_Pcontrol(0) (the probed call), on
 * stderr: "collsel-probe rank R: ..."; rank from OMPI_COMM_WORLD_RANK /
 * PMI_RANK.
 *
 * The wrappers forward 12 integer-class arguments: on x86-64 (System V)
 * a function of up to 12 pointer/integer arguments reads the same values
 * from the same registers and stack slots (the test is skipped on other
 * machines). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static int on;

int PMPI_Pcontrol(const int level, ...);
int MPI_Pcontrol(const int level, ...)
{
    on = level;
    return PMPI_Pcontrol(level);
}

static const char *rank(void)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r)
        r = getenv("PMI_RANK");
    return r ? r : "?";
}

typedef long (*fn12)(long, long, long, long, long, long, long, long, long, long, long, long);

static fn12 real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "collsel-probe: %s not found in the MPI library\n", name);
        abort();
    }
    return (fn12)f;
}

/* NAME wraps the library's NAME; ARG: the 1-based argument printed (its
 * tuning parameter), 0 for none. */
#define WRAP(name, arg, what)                                                                      \
    long name(long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8, long a9,   \
              long a10, long a11, long a12);                                                       \
    long name(long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8, long a9,   \
              long a10, long a11, long a12)                                                        \
    {                                                                                              \
        static fn12 f;                                                                             \
        long a[] = {0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12};                         \
        if (!f)                                                                                    \
            f = real(#name);                                                                       \
        if (on && arg)                                                                             \
            fprintf(stderr, "collsel-probe rank %s: %s %s %d\n", rank(), #name, what,              \
                    (int)a[arg]);                                                                  \
        else if (on)                                                                               \
            fprintf(stderr, "collsel-probe rank %s: %s\n", rank(), #name);                         \
        return f(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12);                               \
    }

/* Open MPI 4.1 / 5.0 coll/base (ompi/mca/coll/base/coll_base_functions.h) */
WRAP(ompi_coll_base_bcast_intra_basic_linear, 0, "")
WRAP(ompi_coll_base_bcast_intra_chain, 7, "segsize")
WRAP(ompi_coll_base_bcast_intra_pipeline, 7, "segsize")
WRAP(ompi_coll_base_bcast_intra_split_bintree, 7, "segsize")
WRAP(ompi_coll_base_bcast_intra_bintree, 7, "segsize")
WRAP(ompi_coll_base_bcast_intra_binomial, 7, "segsize")
WRAP(ompi_coll_base_bcast_intra_knomial, 7, "segsize")
WRAP(ompi_coll_base_bcast_intra_scatter_allgather, 7, "segsize")
WRAP(ompi_coll_base_bcast_intra_scatter_allgather_ring, 7, "segsize")
WRAP(ompi_coll_base_reduce_intra_basic_linear, 0, "")
WRAP(ompi_coll_base_reduce_intra_chain, 9, "segsize")
WRAP(ompi_coll_base_reduce_intra_pipeline, 9, "segsize")
WRAP(ompi_coll_base_reduce_intra_binary, 9, "segsize")
WRAP(ompi_coll_base_reduce_intra_binomial, 9, "segsize")
WRAP(ompi_coll_base_reduce_intra_in_order_binary, 9, "segsize")
WRAP(ompi_coll_base_reduce_intra_redscat_gather, 0, "")
WRAP(ompi_coll_base_barrier_intra_basic_linear, 0, "")
WRAP(ompi_coll_base_barrier_intra_doublering, 0, "")
WRAP(ompi_coll_base_barrier_intra_recursivedoubling, 0, "")
WRAP(ompi_coll_base_barrier_intra_bruck, 0, "")
WRAP(ompi_coll_base_barrier_intra_two_procs, 0, "")
WRAP(ompi_coll_base_barrier_intra_tree, 0, "")
WRAP(ompi_coll_base_allreduce_intra_basic_linear, 0, "")
WRAP(ompi_coll_base_allreduce_intra_nonoverlapping, 0, "")
WRAP(ompi_coll_base_allreduce_intra_recursivedoubling, 0, "")
WRAP(ompi_coll_base_allreduce_intra_ring, 0, "")
WRAP(ompi_coll_base_allreduce_intra_ring_segmented, 8, "segsize")
WRAP(ompi_coll_base_allreduce_intra_redscat_allgather, 0, "")
WRAP(ompi_coll_base_alltoall_intra_basic_linear, 0, "")
WRAP(ompi_coll_base_alltoall_intra_pairwise, 0, "")
WRAP(ompi_coll_base_alltoall_intra_bruck, 0, "")
WRAP(ompi_coll_base_alltoall_intra_linear_sync, 9, "max_requests")
WRAP(ompi_coll_base_alltoall_intra_two_procs, 0, "")

/* MPICH ch4:ucx: ucp_tag_send_nbx(ep, buffer, count, tag, param), count in
 * bytes for MPICH's contiguous data */
WRAP(ucp_tag_send_nbx, 3, "bytes")
WRAP(ucp_tag_send_sync_nbx, 3, "bytes")
