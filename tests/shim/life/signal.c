/* An application that handles SIGTERM itself and survives it.
 *
 *   shim_signal PROFILE EXPECT plain|siginfo|resethand
 *
 * Installs, before MPI_Init, its own SIGTERM handler (sa_handler, or
 * sa_sigaction with SA_SIGINFO, or sa_handler with SA_RESETHAND) and its
 * own SIGALRM handler, and arms an alarm of its own (100 s).  Then:
 * collectives, raise(SIGTERM) on every rank, more collectives, MPI_Finalize.
 * Checks, on every rank, that
 *  - its handler ran exactly once, as installed (siginfo: si_signo is
 *    SIGTERM and the pid is ours);
 *  - the recording shim wrote a snapshot PROFILE.partial.RANK meanwhile;
 *  - no alarm of the shim is left pending, its own alarm still is (about
 *    100 s left), and SIGALRM still goes to its handler;
 *  - with SA_RESETHAND, SIGTERM is back to the default action afterwards,
 *    as the kernel would have left it.
 * Writes what it called to EXPECT.RANK (mix.c's format): the final profile
 * must hold every call, before and after the signal; exit status 1 on any
 * failed check.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/profile.h"

static volatile sig_atomic_t got_term, got_alrm, bad_info;

static void on_term(int sig) { got_term += sig == SIGTERM; }

static void on_term_info(int sig, siginfo_t *info, void *uc)
{
    (void)uc;
    got_term += sig == SIGTERM;
    if (!info || info->si_signo != SIGTERM || info->si_pid != getpid())
        bad_info = 1;
}

static void on_alrm(int sig) { got_alrm += sig == SIGALRM; }

static int failures;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (!(cond)) {                                     \
            fprintf(stderr, "shim_signal: rank %d: ", me); \
            fprintf(stderr, __VA_ARGS__);                  \
            fputc('\n', stderr);                           \
            failures++;                                    \
        }                                                  \
    } while (0)

int main(int argc, char **argv)
{
    const char *mode = argc > 3 ? argv[3] : "";
    if (argc < 4 || (strcmp(mode, "plain") && strcmp(mode, "siginfo") &&
                     strcmp(mode, "resethand"))) {
        fprintf(stderr, "usage: shim_signal PROFILE EXPECT plain|siginfo|resethand\n");
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    if (!strcmp(mode, "siginfo")) {
        sa.sa_sigaction = on_term_info;
        sa.sa_flags = SA_SIGINFO;
    } else {
        sa.sa_handler = on_term;
        sa.sa_flags = !strcmp(mode, "resethand") ? SA_RESETHAND : 0;
    }
    sigaction(SIGTERM, &sa, NULL);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alrm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);

    MPI_Init(&argc, &argv);
    int me = 0, np = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &np);
    alarm(100);

    double x[32] = {0}, y[32];
    for (int i = 0; i < 4; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Bcast(x, 32, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    char partial[4200];
    snprintf(partial, sizeof partial, "%s.partial.%d", argv[1], me);
    raise(SIGTERM);
    CHECK(got_term == 1, "the application's SIGTERM handler ran %d times, expected 1",
          (int)got_term);
    CHECK(!bad_info, "the SA_SIGINFO handler got a wrong siginfo_t");
    CHECK(access(partial, F_OK) == 0, "no snapshot %s after the signal", partial);
    unsigned left = alarm(0);
    CHECK(left >= 90 && left <= 100, "the application's alarm has %u s left, expected ~100",
          left);
    struct sigaction cur;
    sigaction(SIGALRM, NULL, &cur);
    CHECK(cur.sa_handler == on_alrm, "SIGALRM no longer goes to the application's handler");
    sigaction(SIGTERM, NULL, &cur);
    if (!strcmp(mode, "resethand"))
        CHECK(cur.sa_handler == SIG_DFL, "SA_RESETHAND: SIGTERM is not back to SIG_DFL");
    raise(SIGALRM);
    CHECK(got_alrm == 1, "the application's SIGALRM handler ran %d times", (int)got_alrm);

    /* recording goes on after the signal */
    for (int i = 0; i < 3; i++)
        MPI_Allreduce(x, y, 16, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(x, 32, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    char path[4200];
    snprintf(path, sizeof path, "%s.%d", argv[2], me);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    fprintf(f, "%d %d 0 -1 4\n", CS_R_BARRIER, np);
    fprintf(f, "%d %d %d 0 2\n", CS_R_BCAST, np, 32 * 8);
    fprintf(f, "%d %d %d -1 3\n", CS_R_ALLREDUCE, np, 16 * 8);
    fclose(f);
    MPI_Finalize();
    return failures != 0;
}
