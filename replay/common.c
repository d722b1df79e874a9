/* collsel-replay helpers shared by both modes: the communicators of the
 * first ranks of the world, sleeping waits, terminal detection, durations.
 * See replay.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "replay.h"

static MPI_Comm *comms; /* comms[s]: first s world ranks; index 0 unused */
static char *made;      /* made[s]: the split for size s was done */
static int ncomms;

MPI_Comm cs_replay_comm(int size)
{
    int wsize;
    PMPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (size < 1 || size > wsize)
        return MPI_COMM_NULL;
    if (!comms) {
        comms = calloc((size_t)wsize + 1, sizeof *comms);
        made = calloc((size_t)wsize + 1, 1);
        if (!comms || !made)
            PMPI_Abort(MPI_COMM_WORLD, 1); /* ranks would disagree on the splits */
        for (int i = 0; i <= wsize; i++)
            comms[i] = MPI_COMM_NULL;
        ncomms = wsize + 1;
    }
    if (!made[size]) { /* every world rank gets here once per size */
        int rank;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (PMPI_Comm_split(MPI_COMM_WORLD, rank < size ? 0 : MPI_UNDEFINED, rank,
                            &comms[size]) != MPI_SUCCESS)
            comms[size] = MPI_COMM_NULL;
        made[size] = 1;
    }
    return comms[size];
}

void cs_replay_comms_free(void)
{
    for (int i = 0; i < ncomms; i++)
        if (comms[i] != MPI_COMM_NULL)
            PMPI_Comm_free(&comms[i]);
    free(comms);
    free(made);
    comms = NULL;
    made = NULL;
    ncomms = 0;
}

int cs_replay_wait(MPI_Request *req, int idle)
{
    if (!idle)
        return PMPI_Wait(req, MPI_STATUS_IGNORE);
    int done = 0, rc;
    const struct timespec nap = {0, 200000}; /* a variable: SMPI makes nanosleep a macro */
    while ((rc = PMPI_Test(req, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done)
        nanosleep(&nap, NULL);
    return rc;
}

/* Is our stderr, or that of the launcher that forwards it (mpirun pipes the
 * ranks' stderr; Open MPI gives their stdout a pty even when the user
 * redirects it, so isatty(1) says nothing), a terminal?  Looks at fd 2 of
 * up to 4 ancestors in /proc (Linux); no /proc: only isatty(2). */
int cs_replay_stderr_is_terminal(void)
{
    if (isatty(2))
        return 1;
    pid_t pid = getppid();
    for (int up = 0; up < 4 && pid > 1; up++) {
        char path[64], link[64], stat[512];
        snprintf(path, sizeof path, "/proc/%d/fd/2", (int)pid);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n > 0) {
            link[n] = 0;
            if (!strncmp(link, "/dev/pts/", 9) || !strncmp(link, "/dev/tty", 8))
                return 1;
        }
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        size_t len = f ? fread(stat, 1, sizeof stat - 1, f) : 0;
        if (f)
            fclose(f);
        stat[len] = 0;
        char *rp = strrchr(stat, ')'); /* "pid (comm) state ppid ..." */
        int ppid;
        if (!rp || sscanf(rp + 1, " %*c %d", &ppid) != 1)
            break;
        pid = ppid;
    }
    return 0;
}

const char *cs_fmt_secs(char *buf, size_t len, double s)
{
    if (s < 0)
        s = 0;
    if (s < 60)
        snprintf(buf, len, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
    return buf;
}
