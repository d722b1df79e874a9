/* Handle reuse after a free whose attribute delete callback runs
 * collectives on the object being freed.
 *
 *   shim_reuse EXPECT
 *
 * Each iteration: comm A = MPI_Comm_split(world) (size = world), with an
 * application attribute whose delete callback runs MPI_Bcast, MPI_Reduce and
 * MPI_Barrier on A (the comm being freed) and checks the results; A is used
 * first so that every cache of the shim knows it; A is freed; then comm B of a
 * different size (halves of world, or a duplicate of MPI_COMM_SELF) is made,
 * hoping MPI hands out A's handle again, and B is used and checked.  The same
 * for a datatype: T (contiguous ints) with an attribute whose delete callback
 * broadcasts with T (on MPI_COMM_SELF), freed, then T2 of another size.  Every other
 * pair of iterations frees through the Fortran binding (mpi_comm_free_,
 * mpi_type_free_, looked up at run time: the shim's own Fortran wrappers under
 * Open MPI), when there is one.
 *
 * Run under the shim with COLLSEL_FORCE naming our methods: a stale
 * per-communicator state (wrong rank/size/private communicator) gives wrong
 * results here; a stale size in the recording caches gives cells of the
 * wrong communicator size or bytes, which shim_check finds in the profile
 * (EXPECT: what each rank called, as in mix.c, written by rank 0).
 *
 * Exit status: 0 if every result was right; 1 otherwise; 3 if a collective
 * did not complete in time (mismatched methods hang).
 */
#include <dlfcn.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/profile.h"

#define ITERS 16
#define MAXLOG 256
#define NOROOT (-1)
#define N 4

typedef struct ent {
    int32_t coll, root;
    uint32_t comm_size, pad;
    uint64_t bytes, calls;
} ent;

static ent logv[MAXLOG];
static int nlog, me, np, errors, iter;

/* One call, as the profile should count it (mix.c's convention). */
static void ex(int coll, MPI_Comm comm, uint64_t bytes, int root)
{
    int n, i;
    PMPI_Comm_size(comm, &n);
    for (i = 0; i < nlog; i++)
        if (logv[i].coll == coll && logv[i].comm_size == (uint32_t)n && logv[i].bytes == bytes &&
            logv[i].root == root)
            break;
    if (i == nlog) {
        if (nlog == MAXLOG) {
            fprintf(stderr, "shim_reuse: log full\n");
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        logv[i] = (ent){.coll = coll, .root = root, .comm_size = (uint32_t)n, .bytes = bytes};
        nlog++;
    }
    logv[i].calls++;
}

#define FAIL(...)                                                                          \
    do {                                                                                   \
        fprintf(stderr, "shim_reuse: rank %d iteration %d: ", me, iter);                   \
        fprintf(stderr, __VA_ARGS__);                                                      \
        fputc('\n', stderr);                                                               \
        errors++;                                                                          \
    } while (0)

/* MPI_Bcast, MPI_Reduce (root 0, and the last rank) and MPI_Barrier on comm,
 * results compared with the native PMPI calls. */
static __attribute__((noinline)) void exercise(MPI_Comm comm, const char *what)
{
    int n, r;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &r);
    for (int root = 0; root < n; root += n > 1 ? n - 1 : 1) {
        int a[N], b[N], s[N];
        for (int i = 0; i < N; i++)
            a[i] = b[i] = r == root ? 1000 * iter + 100 * me + 10 * root + i : -1;
        MPI_Bcast(a, N, MPI_INT, root, comm);
        ex(CS_R_BCAST, comm, sizeof a, root);
        PMPI_Bcast(b, N, MPI_INT, root, comm);
        if (memcmp(a, b, sizeof a))
            FAIL("%s (size %d, rank %d): MPI_Bcast root %d gave %d, expected %d", what, n, r,
                 root, a[0], b[0]);

        for (int i = 0; i < N; i++) {
            s[i] = (me + 1) * (i + 1) + iter;
            a[i] = b[i] = -1;
        }
        MPI_Reduce(s, a, N, MPI_INT, MPI_SUM, root, comm);
        ex(CS_R_REDUCE, comm, sizeof s, root);
        PMPI_Reduce(s, b, N, MPI_INT, MPI_SUM, root, comm);
        if (r == root && memcmp(a, b, sizeof a))
            FAIL("%s (size %d, rank %d): MPI_Reduce root %d gave %d, expected %d", what, n, r,
                 root, a[0], b[0]);
    }
    MPI_Barrier(comm);
    ex(CS_R_BARRIER, comm, 0, NOROOT);
}

/* A broadcast of count 1 of datatype t (contiguous ints) on comm, checked
 * against the native call. */
static __attribute__((noinline)) void exercise_type(MPI_Datatype t, MPI_Comm comm,
                                                    const char *what)
{
    int sz, a[16], b[16];
    PMPI_Type_size(t, &sz);
    for (int i = 0; i < 16; i++)
        a[i] = b[i] = me == 0 ? 7 * iter + i : -1;
    MPI_Bcast(a, 1, t, 0, comm);
    ex(CS_R_BCAST, comm, (uint64_t)sz, 0);
    PMPI_Bcast(b, 1, t, 0, comm);
    if (memcmp(a, b, sizeof a))
        FAIL("%s: MPI_Bcast of %d bytes gave %d, expected %d", what, sz, a[0], b[0]);
}

static int comm_deleted, type_deleted;

static int comm_del(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)key, (void)val, (void)extra;
    comm_deleted++;
    exercise(comm, "delete callback");
    return MPI_SUCCESS;
}

static int type_del(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)key, (void)val, (void)extra;
    type_deleted++;
    /* on MPI_COMM_SELF: Open MPI runs this callback when the datatype is
     * destroyed, and a point-to-point transfer of t from here would destroy it
     * again when it completes (the callback would recurse) */
    exercise_type(t, MPI_COMM_SELF, "type delete callback");
    return MPI_SUCCESS;
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "shim_reuse: timed out (a collective hangs: ranks disagree "
                              "about the communicator)\n";
    if (write(2, msg, sizeof msg - 1) < 0) {
    }
    _exit(3);
}

typedef void (*ffree_fn)(MPI_Fint *, MPI_Fint *);

static int same(const void *a, const void *b, size_t n)
{
    return memcmp(a, b, n) == 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: shim_reuse EXPECT\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &np);
    signal(SIGALRM, on_alarm);
    alarm(30);

    /* the Fortran frees, if this process has them (under Open MPI: the
     * shim's wrappers, preloaded) */
    ffree_fn f_comm_free = (ffree_fn)dlsym(RTLD_DEFAULT, "mpi_comm_free_");
    ffree_fn f_type_free = (ffree_fn)dlsym(RTLD_DEFAULT, "mpi_type_free_");

    int ckey, tkey;
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_del, &ckey, NULL);
    PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_del, &tkey, NULL);

    int reused_comm = 0, reused_type = 0, fortran = 0;
    for (iter = 0; iter < ITERS; iter++) {
        int use_f = iter % 4 >= 2 && f_comm_free && f_type_free;
        fortran += use_f;

        /* A: the size of world; the application's attribute set before our
         * first call on A in even iterations (so deleted after the shim's
         * own, if MPI deletes in reverse order), after it in odd ones */
        MPI_Comm a, b;
        PMPI_Comm_split(MPI_COMM_WORLD, 0, me, &a);
        if (iter % 2 == 0)
            PMPI_Comm_set_attr(a, ckey, NULL);
        exercise(a, "comm A");
        if (iter % 2 == 1)
            PMPI_Comm_set_attr(a, ckey, NULL);
        exercise(a, "comm A");
        MPI_Comm old = a;
        int before = comm_deleted;
        if (use_f) {
            MPI_Fint fa = PMPI_Comm_c2f(a), ierr = 0;
            f_comm_free(&fa, &ierr);
            if (ierr != MPI_SUCCESS)
                FAIL("mpi_comm_free: error %d", (int)ierr);
        } else {
            MPI_Comm_free(&a);
        }
        if (comm_deleted != before + 1)
            FAIL("the delete callback of A did not run");

        /* B: another size (world 2: always size 1) */
        if (iter % 4 == 0 || iter % 4 == 3)
            PMPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &b);
        else
            PMPI_Comm_dup(MPI_COMM_SELF, &b);
        reused_comm += same(&b, &old, sizeof b);
        exercise(b, "comm B");
        exercise(b, "comm B");
        MPI_Comm_free(&b);

        /* the same for a datatype */
        MPI_Datatype t, t2;
        PMPI_Type_contiguous(3, MPI_INT, &t);
        PMPI_Type_commit(&t);
        PMPI_Type_set_attr(t, tkey, NULL);
        exercise_type(t, MPI_COMM_WORLD, "type T");
        MPI_Datatype told = t;
        before = type_deleted;
        if (use_f) {
            MPI_Fint ft = PMPI_Type_c2f(t), ierr = 0;
            f_type_free(&ft, &ierr);
            if (ierr != MPI_SUCCESS)
                FAIL("mpi_type_free: error %d", (int)ierr);
        } else {
            MPI_Type_free(&t);
        }
        if (type_deleted != before + 1)
            FAIL("the delete callback of T did not run");
        PMPI_Type_contiguous(5 + iter % 3, MPI_INT, &t2);
        PMPI_Type_commit(&t2);
        reused_type += same(&t2, &told, sizeof t2);
        exercise_type(t2, MPI_COMM_WORLD, "type T2");
        exercise_type(t2, MPI_COMM_WORLD, "type T2");
        MPI_Type_free(&t2);
    }
    alarm(0);
    PMPI_Comm_free_keyval(&ckey);
    PMPI_Type_free_keyval(&tkey);
    printf("shim_reuse: rank %d: %d of %d communicator handles reused, %d of %d datatype "
           "handles, %d iterations freed through the Fortran binding\n",
           me, reused_comm, ITERS, reused_type, ITERS, fortran);

    /* every rank's log at rank 0 (PMPI: not recorded) */
    int nbytes = nlog * (int)sizeof(ent), total = 0;
    int *counts = malloc(sizeof(int) * (size_t)np), *displs = malloc(sizeof(int) * (size_t)np);
    PMPI_Gather(&nbytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == 0)
        for (int i = 0; i < np; i++) {
            displs[i] = total;
            total += counts[i];
        }
    ent *all = malloc(total > 0 ? (size_t)total : 1);
    PMPI_Gatherv(logv, nbytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (me == 0) {
        FILE *f = fopen(argv[1], "w");
        if (!f) {
            perror(argv[1]);
            errors++;
        } else {
            for (size_t i = 0; i < (size_t)total / sizeof(ent); i++)
                fprintf(f, "%d %u %llu %d %llu\n", all[i].coll, all[i].comm_size,
                        (unsigned long long)all[i].bytes, all[i].root,
                        (unsigned long long)all[i].calls);
            fclose(f);
        }
    }
    free(all);
    free(counts);
    free(displs);
    int errs = 0;
    PMPI_Allreduce(&errors, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return errs ? 1 : 0;
}
