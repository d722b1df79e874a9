/* Communicators made, used with every shared-memory method and freed, in
 * a loop (tests/hang/leftovers.sh, hang-comms-memory).
 *   usage: churn DIR MODE N
 * Every rank writes its pid to DIR/pid.RANK, then makes N communicators
 * (N = 0: until killed), alternately a duplicate of the world and the
 * world split in two, runs every method of cs_method_shm_only on each
 * (the registry's, whatever methods it holds: each communicator gets its
 * own segment), checks the results, and frees it.  MODE:
 *   normal  MPI_Finalize at the end;
 *   abort   world rank 1 calls MPI_Abort(3) halfway (while the others are
 *           in the middle of making and using segments);
 *   memory  the process's resident memory, mappings and open files after
 *           the first 50 communicators and at the end: the end may not
 *           hold more than 4 MiB, one mapping or one file more (exit 1;
 *           a leaked segment of 2 ranks is ~270 KiB a communicator).
 * Exit 0 when every result was right. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll/coll.h"

#define N_ELEMS 1000 /* over the 56-byte inline payloads, within one slot */

static long resident_kib(void)
{
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2)
            res = 0;
        fclose(f);
    }
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    int n = 0, ch;
    while (f && (ch = getc(f)) != EOF)
        n += ch == '\n';
    if (f)
        fclose(f);
    return n;
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    while (d && readdir(d))
        n++;
    if (d)
        closedir(d);
    return n;
}

/* Run method m once on comm; 1 if the result was wrong or it failed. */
static int run(const cs_method *m, MPI_Comm comm, int it, int *buf, int *res)
{
    int rank, p, rc, root = it % 2;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    root %= p;
    cs_call c;
    for (int i = 0; i < N_ELEMS; i++)
        buf[i] = m->coll == CS_BCAST ? (rank == root ? it + i : -1) : rank + i;
    switch (m->coll) {
    case CS_BCAST: rc = cs_call_bcast(&c, buf, N_ELEMS, MPI_INT, root, comm); break;
    case CS_REDUCE:
        rc = cs_call_reduce(&c, buf, res, N_ELEMS, MPI_INT, MPI_SUM, root, comm);
        break;
    case CS_ALLREDUCE:
        rc = cs_call_allreduce(&c, buf, res, N_ELEMS, MPI_INT, MPI_SUM, comm);
        break;
    case CS_BARRIER: rc = cs_call_barrier(&c, comm); break;
    default: return 0; /* a collective this test does not know yet: not run */
    }
    if (rc != MPI_SUCCESS || !cs_method_applies(m, &c) || cs_method_run(m, &c) != MPI_SUCCESS)
        return 1;
    int wrong = 0;
    for (int i = 0; i < N_ELEMS && !wrong; i++) {
        if (m->coll == CS_BCAST)
            wrong = buf[i] != it + i;
        else if (m->coll == CS_ALLREDUCE || (m->coll == CS_REDUCE && rank == root))
            wrong = res[i] != p * (p - 1) / 2 + p * i;
    }
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wrank, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (argc < 4) {
        if (wrank == 0)
            fprintf(stderr, "usage: churn DIR normal|abort|memory N\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *mode = argv[2];
    long n = atol(argv[3]);
    char path[4096];
    snprintf(path, sizeof path, "%s/pid.%d", argv[1], wrank);
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int *buf = malloc(N_ELEMS * sizeof *buf), *res = malloc(N_ELEMS * sizeof *res);
    long rss0 = 0;
    int maps0 = 0, fds0 = 0;
    for (long it = 0; n == 0 || it < n; it++) {
        if (!strcmp(mode, "abort") && it == n / 2 && wrank == 1)
            MPI_Abort(MPI_COMM_WORLD, 3);
        if (!strcmp(mode, "memory") && it == 50) {
            rss0 = resident_kib();
            maps0 = count_lines("/proc/self/maps");
            fds0 = count_fds();
        }
        MPI_Comm comm;
        if (it % 2)
            MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &comm);
        else
            MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        for (int coll = 0; coll < CS_NCOLL; coll++) {
            int nm;
            const cs_method *t = cs_methods((enum cs_coll)coll, &nm);
            for (int k = 1; k < nm; k++)
                if (cs_method_shm_only(&t[k]))
                    bad += run(&t[k], comm, (int)it, buf, res);
        }
        MPI_Comm_free(&comm);
    }
    if (!strcmp(mode, "memory")) {
        long rss = resident_kib();
        int maps = count_lines("/proc/self/maps"), fds = count_fds();
        printf("churn rank %d: %ld communicators: resident %ld -> %ld KiB, mappings %d -> %d, "
               "open files %d -> %d\n", wrank, n, rss0, rss, maps0, maps, fds0, fds);
        if (rss - rss0 > 4096 || maps > maps0 + 1 || fds > fds0 + 1) {
            fprintf(stderr, "churn rank %d: FAILED: memory did not return to its level\n", wrank);
            bad++;
        }
    }
    free(buf);
    free(res);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("churn: %ld communicators, %d wrong\n", n, bad);
    MPI_Finalize();
    return bad != 0;
}
