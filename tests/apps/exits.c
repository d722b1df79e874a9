/* exits_app: the smallest application whose waiting is made by uneven
 * exits.  Every rank does the same work (a spin of WORK microseconds), then
 * MPI_Bcast of BYTES from rank 0, the same work again, then an MPI_Allreduce
 * of 8 bytes, STEPS times.  The work is even, so any wait at the allreduce
 * is the bcast letting its ranks go at different times (a root that leaves
 * first arrives first); how long depends on the bcast's method.  The results
 * are checked (exit 1 if wrong); rank 0 prints the checksum.
 *
 *   exits_app [--bytes N] [--steps K] [--work US]   (65536, 2000, 30)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void spin(double us)
{
    double until = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < until)
        ;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long bytes = 65536, steps = 2000;
    double work = 30;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--bytes"))
            bytes = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--steps"))
            steps = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--work"))
            work = atof(argv[i + 1]);
    }
    if (bytes < 1 || bytes > (1L << 30) || steps < 1 || work < 0) {
        if (me == 0)
            fprintf(stderr, "exits_app: --bytes 1..2^30, --steps >= 1, --work >= 0\n");
        MPI_Finalize();
        return 2;
    }
    unsigned char *buf = malloc((size_t)bytes);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    long sum = 0;
    for (long s = 0; s < steps; s++) {
        for (long k = 0; k < bytes; k++)
            buf[k] = me == 0 ? (unsigned char)(s + k) : 0;
        spin(work);
        MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        bad |= buf[0] != (unsigned char)s || buf[bytes - 1] != (unsigned char)(s + bytes - 1);
        spin(work);
        long v = me + s, r = 0;
        MPI_Allreduce(&v, &r, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        bad |= r != (long)np * (np - 1) / 2 + (long)np * s;
        sum += r;
    }
    if (bad)
        fprintf(stderr, "exits_app: rank %d: wrong results\n", me);
    if (me == 0)
        printf("exits_app: %d ranks, %ld steps of %ld bytes, checksum %ld\n", np, steps, bytes, sum);
    free(buf);
    MPI_Finalize();
    return bad;
}
