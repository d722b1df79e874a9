/* Persistent (MPI 4) and neighborhood collectives under the shim.
 *
 *   shim_persist EXPECT
 *
 * On MPI_COMM_WORLD: blocking MPI_Bcast and, with an MPI 4 library,
 * MPI_Bcast_init / Reduce_init / Barrier_init / Allreduce_init /
 * Allgather_init started with MPI_Start and MPI_Startall (each start is one
 * operation in the cell of the blocking collective); on a periodic 1-D
 * Cartesian communicator: every blocking neighborhood collective, a
 * non-blocking one and (MPI 4) a persistent one.  Results are checked.
 * Rank 0 writes what the profile must hold to EXPECT, one line per cell:
 * "COLLECTIVE COMM_SIZE BYTES OPS" (bytes by the profile's convention:
 * what one rank contributes; for the v/w neighborhood ones, the mean over
 * the out-neighbours); persist.sh compares it with `collsel show --csv`. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

#define CHECK(cond, ...)                                        \
    do {                                                        \
        if (!(cond)) {                                          \
            fprintf(stderr, "shim_persist: " __VA_ARGS__);      \
            fputc('\n', stderr);                                \
            failures++;                                         \
        }                                                       \
    } while (0)

static FILE *expect;

static void want(const char *coll, int size, int bytes, int ops)
{
    if (expect)
        fprintf(expect, "%s %d %d %d\n", coll, size, bytes, ops);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (rank == 0 && argc > 1 && !(expect = fopen(argv[1], "w"))) {
        perror(argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int x = 0;
    for (int i = 0; i < 3; i++) {
        x = rank == 0 ? 100 + i : -1;
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
        CHECK(x == 100 + i, "bcast %d: %d", i, x);
    }
    int bcasts = 3, nbgathers = 1;

    /* periodic ring: left and right neighbours */
    MPI_Comm ring;
    int periodic = 1, left = (rank + np - 1) % np, right = (rank + 1) % np;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &np, &periodic, 0, &ring);

#if MPI_VERSION >= 4
    MPI_Request r[5];
    double d = rank + 1, dsum = 0, dall = 0;
    int all[64];
    MPI_Bcast_init(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Reduce_init(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);
    MPI_Allreduce_init(&d, &dall, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]);
    MPI_Allgather_init(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[4]);
    for (int i = 0; i < 5; i++) {
        x = rank == 0 ? 200 + i : -1;
        MPI_Start(&r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        CHECK(x == 200 + i, "persistent bcast %d: %d", i, x);
    }
    bcasts += 5;
    for (int i = 0; i < 4; i++) {
        MPI_Startall(3, &r[1]);
        MPI_Status sts[3];
        MPI_Waitall(3, &r[1], sts);
        double want_sum = np * (np + 1) / 2.0;
        CHECK(dall == want_sum && (rank || dsum == want_sum), "persistent sums %g %g", dsum, dall);
    }
    MPI_Start(&r[4]);
    MPI_Wait(&r[4], MPI_STATUS_IGNORE);
    for (int i = 0; i < np && i < 64; i++)
        CHECK(all[i] == i, "persistent allgather [%d] = %d", i, all[i]);
    for (int i = 0; i < 5; i++)
        MPI_Request_free(&r[i]);
    /* many requests at once (the request table grows, and loses entries
     * from the middle of its runs): 150 barriers started together, every
     * other one freed, the rest started again; then 32 reduce requests of
     * another size, each started once */
    enum { NB = 150, NR = 32 };
    MPI_Request many[NB], red[NR];
    MPI_Status mst[NB];
    for (int i = 0; i < NB; i++)
        MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &many[i]);
    MPI_Startall(NB, many);
    MPI_Waitall(NB, many, mst);
    for (int i = 0; i < NB; i += 2)
        MPI_Request_free(&many[i]);
    for (int i = 1; i < NB; i += 2) {
        MPI_Start(&many[i]);
        MPI_Wait(&many[i], MPI_STATUS_IGNORE);
    }
    int one = 1, ones[NR];
    for (int i = 0; i < NR; i++) {
        MPI_Reduce_init(&one, &ones[i], 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                        &red[i]);
        MPI_Start(&red[i]);
        MPI_Wait(&red[i], MPI_STATUS_IGNORE);
        CHECK(rank || ones[i] == np, "persistent reduce %d: %d", i, ones[i]);
    }
    for (int i = 1; i < NB; i += 2)
        MPI_Request_free(&many[i]);
    for (int i = 0; i < NR; i++)
        MPI_Request_free(&red[i]);
    want("Reduce", np, 4, NR);

    want("Reduce", np, 8, 4);
    want("Barrier", np, 0, 4 + NB + NB / 2);
    want("Allreduce", np, 8, 4);
    want("Allgather", np, 4, 1);

    /* a persistent neighborhood collective */
    MPI_Request nr;
    int nb[2];
    MPI_Neighbor_allgather_init(&rank, 1, MPI_INT, nb, 1, MPI_INT, ring, MPI_INFO_NULL, &nr);
    for (int i = 0; i < 2; i++) {
        nb[0] = nb[1] = -1;
        MPI_Start(&nr);
        MPI_Wait(&nr, MPI_STATUS_IGNORE);
        CHECK(nb[0] == left && nb[1] == right, "persistent neighbor allgather %d %d", nb[0],
              nb[1]);
    }
    MPI_Request_free(&nr);
    nbgathers += 2;
#endif
    want("Bcast", np, 4, bcasts);

    /* blocking neighborhood collectives: neighbours are (left, right) */
    int nb2[2] = {-1, -1};
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, nb2, 1, MPI_INT, ring);
    CHECK(nb2[0] == left && nb2[1] == right, "neighbor allgather %d %d", nb2[0], nb2[1]);
    want("Neighbor_allgather", np, 4, nbgathers);

    int rc2[2] = {1, 1}, dis[2] = {0, 1}, gv[2] = {-1, -1};
    MPI_Neighbor_allgatherv(&rank, 1, MPI_INT, gv, rc2, dis, MPI_INT, ring);
    CHECK(gv[0] == left && gv[1] == right, "neighbor allgatherv %d %d", gv[0], gv[1]);
    want("Neighbor_allgatherv", np, 4, 1);

    /* alltoall: to the left neighbour 10*rank, to the right 10*rank + 1;
     * from the left we get its "right" block, from the right its "left" */
    int sa[2] = {10 * rank, 10 * rank + 1}, ra[2] = {-1, -1};
    for (int i = 0; i < 2; i++) {
        MPI_Neighbor_alltoall(sa, 1, MPI_INT, ra, 1, MPI_INT, ring);
        CHECK(ra[0] == 10 * left + 1 && ra[1] == 10 * right, "neighbor alltoall %d %d", ra[0],
              ra[1]);
    }
    want("Neighbor_alltoall", np, 4, 2);

    /* alltoallv: 1 int to the left, 2 to the right (mean 6 bytes); at 2
     * ranks both neighbours are one process, which blocks of it match
     * which is up to the library: 2 and 2 then */
    int d3 = np >= 3;
    int sv[4] = {rank, rank, rank, rank}, rv[4] = {-1, -1, -1, -1};
    int scnt[2] = {2 - d3, 2}, sdis[2] = {0, 2}, rcnt[2] = {2, 2 - d3}, rdis[2] = {0, 2};
    MPI_Neighbor_alltoallv(sv, scnt, sdis, MPI_INT, rv, rcnt, rdis, MPI_INT, ring);
    CHECK(rv[0] == left && rv[1] == left && rv[2] == right && (d3 || rv[3] == right),
          "neighbor alltoallv %d %d %d %d", rv[0], rv[1], rv[2], rv[3]);
    want("Neighbor_alltoallv", np, d3 ? 6 : 8, 1);

    /* alltoallw: an int to the left, a double to the right (mean 6 bytes;
     * at 2 ranks ints both ways) */
    struct {
        int i;
        double d;
    } sw = {rank, rank + 0.5}, rw = {-1, -1};
    int wc[2] = {1, 1};
    MPI_Aint off = (MPI_Aint)((char *)&sw.d - (char *)&sw);
    MPI_Aint wsd[2] = {0, d3 ? off : 0}, wrd[2] = {d3 ? off : 0, 0};
    MPI_Datatype st[2] = {MPI_INT, d3 ? MPI_DOUBLE : MPI_INT};
    MPI_Datatype rt[2] = {d3 ? MPI_DOUBLE : MPI_INT, MPI_INT};
    MPI_Neighbor_alltoallw(&sw, wc, wsd, st, &rw, wc, wrd, rt, ring);
    CHECK(d3 ? rw.d == left + 0.5 && rw.i == right : rw.i == left,
          "neighbor alltoallw %g %d", rw.d, rw.i);
    want("Neighbor_alltoallw", np, d3 ? 6 : 4, 1);

    MPI_Request ir;
    nb2[0] = nb2[1] = -1;
    MPI_Ineighbor_allgather(&rank, 1, MPI_INT, nb2, 1, MPI_INT, ring, &ir);
    MPI_Wait(&ir, MPI_STATUS_IGNORE);
    CHECK(nb2[0] == left && nb2[1] == right, "ineighbor allgather %d %d", nb2[0], nb2[1]);
    want("Ineighbor_allgather", np, 4, 1);

    MPI_Comm_free(&ring);
    if (expect)
        fclose(expect);
    int bad = 0;
    PMPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return bad ? 1 : 0;
}
