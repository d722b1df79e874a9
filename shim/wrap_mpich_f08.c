/* MPICH 4's `use mpi_f08` bindings (libmpichfort): those with a choice
 * buffer (mpi_bcast_f08ts_, ...) and all of the mpif.h / `use mpi` ones
 * call the C MPI_* functions, which the C wrappers catch; but those without
 * a buffer call PMPI_* directly (checked by disassembly of MPICH 4.0.2):
 * MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Barrier, MPI_Ibarrier,
 * MPI_Comm_free, MPI_Comm_disconnect, MPI_Type_free, MPI_Abort.  Without
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

#include "wrap.h"

#define CS_EXPORT __attribute__((visibility("default")))
#define CS_RA __builtin_return_address(0)

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

CS_EXPORT void mpi_abort_f08_(MPI_Fint *comm, MPI_Fint *code, MPI_Fint *ierr)
{
    cs_life_abort();
    int rc = PMPI_Abort(PMPI_Comm_f2c(*comm), *code);
    if (ierr)
        *ierr = rc;
}
