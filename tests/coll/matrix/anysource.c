/* Our collectives never match the application's messages.
 *
 * Every rank posts MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) on the user
 * communicator, then a collective runs on that same communicator; only
 * afterwards does each rank send the application's message to its right
 * neighbour.  The receive must still be pending after the collective, and
 * must then get exactly the application's message (source, tag, count,
 * payload); the collective's result must be right.
 *
 * Default: every method of the registry, run directly (cs_call +
 * cs_method_run) on MPI_COMM_WORLD, a 2-rank sub-communicator and
 * MPI_COMM_SELF.
 * --mpi: call MPI_Bcast / MPI_Reduce / MPI_Barrier instead (under
 * LD_PRELOAD=libcollsel.so with COLLSEL_FORCE, the forced methods run).
 * Both modes end with the three collectives on an intercommunicator, which
 * dispatch must leave to MPI.
 * Exit 0 if everything held, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"

#define N 13        /* collective payload (ints) */
#define APP_N 5     /* application message (ints) */
#define APP_TAG 42

static int failures, wrank;

static void fail(const char *what, const char *method, int size)
{
    if (failures++ < 10)
        fprintf(stderr, "FAIL %s on %d ranks (world rank %d): %s\n", method, size, wrank, what);
}

/* Run collective coll with method m (NULL: through MPI_*) on comm. */
static int collective(int coll, const cs_method *m, MPI_Comm comm, int *buf, int *res)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    cs_call c;
    int rc;
    if (coll == CS_BCAST) {
        int root = size - 1;
        for (int i = 0; i < N; i++)
            buf[i] = rank == root ? 1000 + i * 7 : -1;
        if (!m)
            return MPI_Bcast(buf, N, MPI_INT, root, comm);
        if ((rc = cs_call_bcast(&c, buf, N, MPI_INT, root, comm)) != MPI_SUCCESS)
            return rc;
    } else if (coll == CS_REDUCE) {
        for (int i = 0; i < N; i++)
            buf[i] = rank * 100 + i, res[i] = -1;
        if (!m)
            return MPI_Reduce(buf, res, N, MPI_INT, MPI_SUM, 0, comm);
        if ((rc = cs_call_reduce(&c, buf, res, N, MPI_INT, MPI_SUM, 0, comm)) != MPI_SUCCESS)
            return rc;
    } else if (coll == CS_ALLREDUCE) {
        for (int i = 0; i < N; i++)
            buf[i] = rank * 100 + i, res[i] = -1;
        if (!m)
            return MPI_Allreduce(buf, res, N, MPI_INT, MPI_SUM, comm);
        if ((rc = cs_call_allreduce(&c, buf, res, N, MPI_INT, MPI_SUM, comm)) != MPI_SUCCESS)
            return rc;
    } else {
        if (!m)
            return MPI_Barrier(comm);
        if ((rc = cs_call_barrier(&c, comm)) != MPI_SUCCESS)
            return rc;
    }
    if (!cs_method_applies(m, &c))
        return -1;
    return cs_method_run(m, &c);
}

static void one(int coll, const cs_method *m, MPI_Comm comm)
{
    int rank, size, buf[N], res[N], in[APP_N + 1], out[APP_N];
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const char *name = m ? m->name : cs_coll_name(coll);
    MPI_Request req;
    MPI_Irecv(in, APP_N + 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &req);
    int rc = collective(coll, m, comm, buf, res);
    if (rc == -1) { /* does not apply: every rank agrees; clean up */
        MPI_Cancel(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        return;
    }
    if (rc != MPI_SUCCESS)
        fail("the collective returned an error", name, size);
    int flag;
    MPI_Status st;
    MPI_Test(&req, &flag, &st);
    if (flag)
        fail("the application's ANY_SOURCE/ANY_TAG receive matched a collective message",
             name, size);
    /* Nobody sends the application's message before everyone has tested. */
    MPI_Barrier(comm);
    /* The collective's result. */
    for (int i = 0; i < N; i++) {
        if (coll == CS_BCAST && buf[i] != 1000 + i * 7) {
            fail("wrong bcast result", name, size);
            break;
        }
        if ((coll == CS_ALLREDUCE || (coll == CS_REDUCE && rank == 0)) &&
            res[i] != 100 * size * (size - 1) / 2 + size * i) {
            fail("wrong reduce result", name, size);
            break;
        }
    }
    /* Now the application's message, to the right neighbour. */
    for (int i = 0; i < APP_N; i++)
        out[i] = rank * 1000 + i;
    MPI_Send(out, APP_N, MPI_INT, (rank + 1) % size, APP_TAG, comm);
    if (!flag)
        MPI_Wait(&req, &st);
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    int left = (rank + size - 1) % size;
    if (st.MPI_SOURCE != left || st.MPI_TAG != APP_TAG || count != APP_N)
        fail("the application's message arrived with a wrong source/tag/count", name, size);
    else
        for (int i = 0; i < APP_N; i++)
            if (in[i] != left * 1000 + i) {
                fail("the application's message arrived corrupted", name, size);
                break;
            }
}

/* Intercommunicators are never ours (dispatch runs them native): bcast,
 * reduce and barrier between the two halves of the world still work. */
static void intercomm(void)
{
    int wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2)
        return;
    int half = wsize / 2, low = wrank < half, v[N], r[N];
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, low, wrank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 7, &inter);
    int lrank;
    MPI_Comm_rank(local, &lrank);
    /* bcast from low rank 0 to the high group */
    for (int i = 0; i < N; i++)
        v[i] = low && lrank == 0 ? 5 * i + 1 : -1;
    int root = low ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    if (MPI_Bcast(v, N, MPI_INT, root, inter) != MPI_SUCCESS)
        fail("intercommunicator bcast returned an error", "native", wsize);
    if (!low && v[N - 1] != 5 * (N - 1) + 1)
        fail("wrong intercommunicator bcast result", "native", wsize);
    /* reduce of the high group's ranks to low rank 0 */
    for (int i = 0; i < N; i++)
        v[i] = lrank + i, r[i] = -1;
    if (MPI_Reduce(v, r, N, MPI_INT, MPI_SUM, root, inter) != MPI_SUCCESS)
        fail("intercommunicator reduce returned an error", "native", wsize);
    int nhigh = wsize - half;
    if (low && lrank == 0 && r[1] != nhigh * (nhigh - 1) / 2 + nhigh)
        fail("wrong intercommunicator reduce result", "native", wsize);
    if (MPI_Barrier(inter) != MPI_SUCCESS)
        fail("intercommunicator barrier returned an error", "native", wsize);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int wsize, through_mpi = argc > 1 && !strcmp(argv[1], "--mpi"), tested = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, wrank < 2 ? 0 : MPI_UNDEFINED, wrank, &pair);
    /* MPI_COMM_SELF too: its state is freed at MPI_Finalize, together with
     * the hook that frees every private communicator. */
    MPI_Comm comms[3] = {MPI_COMM_WORLD, pair, MPI_COMM_SELF};
    for (int k = 0; k < 3; k++) {
        if (comms[k] == MPI_COMM_NULL || (k == 1 && wsize == 2))
            continue;
        for (int coll = 0; coll < CS_NCOLL; coll++) {
            if (through_mpi) {
                one(coll, NULL, comms[k]);
                tested++;
                continue;
            }
            int n;
            const cs_method *t = cs_methods((enum cs_coll)coll, &n);
            for (int i = 1; i < n; i++, tested++)
                one(coll, &t[i], comms[k]);
        }
    }
    if (pair != MPI_COMM_NULL)
        MPI_Comm_free(&pair);
    intercomm();
    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("anysource: %d collective runs per rank 0, %d failures\n", tested, total);
    MPI_Finalize();
    return total != 0;
}
