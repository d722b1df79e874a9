/* MPICH's Fortran bindings (libmpichfort).
 *
 * 1. Call sites.  Its mpif.h / `use mpi` bindings and its `use mpi_f08`
 * ones with a choice buffer call the C MPI_* functions, so the C wrappers
 * count them, but their return address is inside libmpichfort.  For every
 * collective, each Fortran name MPICH exports (mpi_bcast, mpi_bcast_,
 * mpi_bcast__, MPI_BCAST, mpi_bcast_f08ts_, mpi_bcast_f08ts_large_) gets a
 * trampoline here: it puts the application's return address in the
 * thread's cs_fortran_ra (wrap.h), calls MPICH's own procedure (dlsym
 * RTLD_NEXT) with the arguments unchanged, and restores cs_fortran_ra.
 * MPICH does all of the Fortran work (handles, MPI_IN_PLACE/MPI_BOTTOM,
 * descriptors); every argument of these procedures is passed by address,
 * so a trampoline only needs their number (the standard's Fortran
 * signatures, ierror included; +1 for the request of a non-blocking one).
 *
 * 2. MPICH 4's `use mpi_f08` bindings (libmpichfort): those with a choice
 * buffer (mpi_bcast_f08ts_, ...) and all of the mpif.h / `use mpi` ones
 * call the C MPI_* functions, which the C wrappers catch; but those without
 * a buffer call PMPI_* directly (checked by disassembly of MPICH 4.0.2):
 * MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Barrier, MPI_Ibarrier,
 * MPI_Comm_free, MPI_Comm_disconnect, MPI_Type_free, MPI_Abort, of MPI 4's
 * persistent collectives MPI_Barrier_init, MPI_Start, MPI_Startall,
 * MPI_Request_free, and MPI_Session_init.  Without
 * these entry points an f08 program was neither recorded nor dispatched
 * (MPI started behind our back) and its barriers were lost.
 *
 * Init/Init_thread/Finalize call MPICH's own procedure (dlsym RTLD_NEXT:
 * the Fortran library is loaded after us) and start / finish collsel as the
 * C MPI_Init / MPI_Finalize do; the others call the same internal
 * cs_w_NAME() as the C entry points, with the Fortran caller's return
 * address.  Arguments as MPICH passes them (bind(C)): TYPE(MPI_Comm) etc.
 * by address (one INTEGER handle), the optional ierror NULL when absent.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "wrap.h"

#define CS_EXPORT __attribute__((visibility("default")))
#define CS_RA __builtin_return_address(0)

__thread void *cs_fortran_ra __attribute__((tls_model("initial-exec")));

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPICH passes Fortran handles as int");

typedef void (*init_f08_fn)(int *ierr);
typedef void (*init_thread_f08_fn)(int *required, int *provided, int *ierr);
typedef void (*finalize_f08_fn)(int *ierr);

static void *next_symbol(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

CS_EXPORT void mpi_init_f08_(int *ierr)
{
    init_f08_fn real = (init_f08_fn)next_symbol("mpi_init_f08_");
    int rc, flag = 0;
    if (real) {
        real(ierr);
    } else {
        rc = PMPI_Init(NULL, NULL);
        if (ierr)
            *ierr = rc;
    }
    PMPI_Initialized(&flag);
    if (flag)
        cs_life_init(MPI_THREAD_SINGLE);
}

CS_EXPORT void mpi_init_thread_f08_(int *required, int *provided, int *ierr)
{
    init_thread_f08_fn real = (init_thread_f08_fn)next_symbol("mpi_init_thread_f08_");
    int rc, flag = 0, got = MPI_THREAD_SINGLE;
    if (real) {
        real(required, provided, ierr);
    } else {
        rc = PMPI_Init_thread(NULL, NULL, *required, provided);
        if (ierr)
            *ierr = rc;
    }
    PMPI_Initialized(&flag);
    if (flag) {
        PMPI_Query_thread(&got);
        cs_life_init(got);
    }
}

CS_EXPORT void mpi_finalize_f08_(int *ierr)
{
    finalize_f08_fn real = (finalize_f08_fn)next_symbol("mpi_finalize_f08_");
    cs_life_finalize();
    if (real) {
        real(ierr);
    } else {
        int rc = PMPI_Finalize();
        if (ierr)
            *ierr = rc;
    }
}

CS_EXPORT void mpi_barrier_f08_(MPI_Fint *comm, MPI_Fint *ierr)
{
    int rc = cs_w_Barrier(CS_RA, PMPI_Comm_f2c(*comm));
    if (ierr)
        *ierr = rc;
}

CS_EXPORT void mpi_ibarrier_f08_(MPI_Fint *comm, MPI_Fint *freq, MPI_Fint *ierr)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = cs_w_Ibarrier(CS_RA, PMPI_Comm_f2c(*comm), &req);
    if (rc == MPI_SUCCESS)
        *freq = PMPI_Request_c2f(req);
    if (ierr)
        *ierr = rc;
}

/* The frees go through the C wrappers' free (the handle caches, wrap_c.c). */
#define CS_F08_FREE(name, CT, Camel, f2c, c2f)                                             \
    CS_EXPORT void name(MPI_Fint *h, MPI_Fint *ierr)                                       \
    {                                                                                      \
        CT c = f2c(*h);                                                                    \
        int rc = cs_w_##Camel(&c);                                                         \
        if (rc == MPI_SUCCESS)                                                             \
            *h = c2f(c);                                                                   \
        if (ierr)                                                                          \
            *ierr = rc;                                                                    \
    }
CS_F08_FREE(mpi_comm_free_f08_, MPI_Comm, Comm_free, PMPI_Comm_f2c, PMPI_Comm_c2f)
CS_F08_FREE(mpi_comm_disconnect_f08_, MPI_Comm, Comm_disconnect, PMPI_Comm_f2c, PMPI_Comm_c2f)
CS_F08_FREE(mpi_type_free_f08_, MPI_Datatype, Type_free, PMPI_Type_f2c, PMPI_Type_c2f)

#ifdef CS_HAVE_PERSISTENT
/* Persistent collectives: MPI_Barrier_init (no buffer) and the routines
 * of their requests call PMPI directly too. */
CS_F08_FREE(mpi_request_free_f08_, MPI_Request, Request_free, PMPI_Request_f2c,
            PMPI_Request_c2f)

CS_EXPORT void mpi_barrier_init_f08_(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *freq,
                                     MPI_Fint *ierr)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = cs_w_Barrier_init(CS_RA, PMPI_Comm_f2c(*comm), PMPI_Info_f2c(*info), &req);
    if (rc == MPI_SUCCESS)
        *freq = PMPI_Request_c2f(req);
    if (ierr)
        *ierr = rc;
}

CS_EXPORT void mpi_start_f08_(MPI_Fint *freq, MPI_Fint *ierr)
{
    MPI_Request req = PMPI_Request_f2c(*freq);
    int rc = cs_w_Start(&req);
    if (rc == MPI_SUCCESS)
        *freq = PMPI_Request_c2f(req);
    if (ierr)
        *ierr = rc;
}

CS_EXPORT void mpi_session_init_f08_(MPI_Fint *info, MPI_Fint *eh, MPI_Fint *fsession,
                                     MPI_Fint *ierr)
{
    MPI_Session s = MPI_SESSION_NULL;
    int rc = cs_w_Session_init(PMPI_Info_f2c(*info), PMPI_Errhandler_f2c(*eh), &s);
    if (rc == MPI_SUCCESS)
        *fsession = PMPI_Session_c2f(s);
    if (ierr)
        *ierr = rc;
}

CS_EXPORT void mpi_startall_f08_(MPI_Fint *count, MPI_Fint freqs[], MPI_Fint *ierr)
{
    int n = *count, rc;
    MPI_Request stack[64], *reqs = n > 64 ? malloc((size_t)n * sizeof *reqs) : stack;
    if (!reqs) {
        rc = MPI_ERR_NO_MEM;
    } else {
        for (int i = 0; i < n; i++)
            reqs[i] = PMPI_Request_f2c(freqs[i]);
        rc = cs_w_Startall(n, reqs);
        for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
            freqs[i] = PMPI_Request_c2f(reqs[i]);
        if (reqs != stack)
            free(reqs);
    }
    if (ierr)
        *ierr = rc;
}
#endif

CS_EXPORT void mpi_abort_f08_(MPI_Fint *comm, MPI_Fint *code, MPI_Fint *ierr)
{
    cs_life_abort();
    int rc = PMPI_Abort(PMPI_Comm_f2c(*comm), *code);
    if (ierr)
        *ierr = rc;
}

/* ---- 1. call-site trampolines ------------------------------------------ */

static void *next_or_die(const char *name)
{
    void *f = next_symbol(name);
    if (!f) { /* only reachable if MPICH lacks a name the program was linked to */
        fprintf(stderr, "collsel: %s: not found in the MPI library\n", name);
        abort();
    }
    return f;
}

#define CS_P1 void *a1
#define CS_P2 CS_P1, void *a2
#define CS_P3 CS_P2, void *a3
#define CS_P4 CS_P3, void *a4
#define CS_P5 CS_P4, void *a5
#define CS_P6 CS_P5, void *a6
#define CS_P7 CS_P6, void *a7
#define CS_P8 CS_P7, void *a8
#define CS_P9 CS_P8, void *a9
#define CS_P10 CS_P9, void *a10
#define CS_P11 CS_P10, void *a11
#define CS_P12 CS_P11, void *a12
#define CS_A1 a1
#define CS_A2 CS_A1, a2
#define CS_A3 CS_A2, a3
#define CS_A4 CS_A3, a4
#define CS_A5 CS_A4, a5
#define CS_A6 CS_A5, a6
#define CS_A7 CS_A6, a7
#define CS_A8 CS_A7, a8
#define CS_A9 CS_A8, a9
#define CS_A10 CS_A9, a10
#define CS_A11 CS_A10, a11
#define CS_A12 CS_A11, a12

#define CS_TRAMP(sym, N)                                                                   \
    CS_EXPORT void sym(CS_P##N)                                                            \
    {                                                                                      \
        typedef void (*fn_t)(CS_P##N);                                                     \
        static fn_t real;                                                                  \
        fn_t f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);                                 \
        if (!f) {                                                                          \
            f = (fn_t)next_or_die(#sym);                                                   \
            __atomic_store_n(&real, f, __ATOMIC_RELEASE);                                  \
        }                                                                                  \
        void *saved = cs_fortran_ra;                                                       \
        cs_fortran_ra = CS_RA;                                                             \
        f(CS_A##N);                                                                        \
        cs_fortran_ra = saved;                                                             \
    }

/* mpif.h / `use mpi` names (MPI_BARRIER's f08 form is wrapped below) */
#define CS_TRAMP_F77(lower, UPPER, N)                                                      \
    CS_TRAMP(lower, N) CS_TRAMP(lower##_, N) CS_TRAMP(lower##__, N) CS_TRAMP(UPPER, N)
/* ... and the f08 names of a routine with a choice buffer */
#define CS_TRAMP_ALL(lower, UPPER, N)                                                      \
    CS_TRAMP_F77(lower, UPPER, N) CS_TRAMP(lower##_f08ts_, N) CS_TRAMP(lower##_f08ts_large_, N)

/* Arguments of the Fortran routine of each shape of wrap.h's table
 * (ierr included), blocking and non-blocking (+ request). */
#define CS_NF_BCAST 6
#define CS_NFI_BCAST 7
#define CS_NF_REDUCE 8
#define CS_NFI_REDUCE 9
#define CS_NF_ALLREDUCE 7
#define CS_NFI_ALLREDUCE 8
#define CS_NF_GATHER 9
#define CS_NFI_GATHER 10
#define CS_NF_GATHERV 10
#define CS_NFI_GATHERV 11
#define CS_NF_SCATTERV 10
#define CS_NFI_SCATTERV 11
#define CS_NF_ALLGATHER 8
#define CS_NFI_ALLGATHER 9
#define CS_NF_ALLGATHERV 9
#define CS_NFI_ALLGATHERV 10
#define CS_NF_ALLTOALLV 10
#define CS_NFI_ALLTOALLV 11
#define CS_NF_ALLTOALLW 10
#define CS_NFI_ALLTOALLW 11
#define CS_NF_RSCAT 7
#define CS_NFI_RSCAT 8
#define CS_NF_RSCATB 7
#define CS_NFI_RSCATB 8
#define CS_NF_NALLTOALLW 10
#define CS_NFI_NALLTOALLW 11
/* persistent (_init): + info and request */
#define CS_NFP_BCAST 8
#define CS_NFP_REDUCE 10
#define CS_NFP_ALLREDUCE 9
#define CS_NFP_GATHER 11
#define CS_NFP_GATHERV 12
#define CS_NFP_SCATTERV 12
#define CS_NFP_ALLGATHER 10
#define CS_NFP_ALLGATHERV 11
#define CS_NFP_ALLTOALLV 12
#define CS_NFP_ALLTOALLW 12
#define CS_NFP_RSCAT 9
#define CS_NFP_RSCATB 9
#define CS_NFP_NALLTOALLW 12

/* Barrier has no buffer: no f08 trampolines (its f08 routine is wrapped
 * below); every other row of the table gets all of its names. */
CS_TRAMP_F77(mpi_barrier, MPI_BARRIER, 2)
CS_TRAMP_F77(mpi_ibarrier, MPI_IBARRIER, 3)
#define CS_TROW(X, Camel, low, UP, SH, ROOT, BY, BYC, SEL, FN, FNC, BUF, FORT)              \
    CS_IF_##BUF(CS_TRAMP_ALL(mpi_##low, MPI_##UP, CS_NF_##SH)                              \
                CS_TRAMP_ALL(mpi_i##low, MPI_I##UP, CS_NFI_##SH))
CS_COLL_TABLE(CS_TROW, _)

#ifdef CS_HAVE_PERSISTENT
/* Persistent collectives: the _init routines (info and request: the
 * non-blocking count + 1) record the call site of their starts. */
CS_TRAMP_F77(mpi_barrier_init, MPI_BARRIER_INIT, 4)
#define CS_TROW_INIT(X, Camel, low, UP, SH, ROOT, BY, BYC, SEL, FN, FNC, BUF, FORT)         \
    CS_IF_##BUF(CS_TRAMP_ALL(mpi_##low##_init, MPI_##UP##_INIT, CS_NFP_##SH))
CS_COLL_TABLE(CS_TROW_INIT, _)
#endif
