/* collsel-replay helpers shared by both modes: the points' groups of
 * world ranks (cs_replay_comm), sleeping waits, terminal detection, durations.
 * See replay.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "replay.h"

static cs_replay_group *groups; /* groups[2 * s + alone]; index 0, 1 unused */
static char *made;              /* made[2 * s + alone]: the split was done */
static int ngroups;

cs_replay_group cs_replay_comm(int size, int alone)
{
    cs_replay_group none = {MPI_COMM_NULL, MPI_COMM_NULL, 0};
    int wsize, rank;
    PMPI_Comm_size(MPI_COMM_WORLD, &wsize);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (size < 1 || size > wsize)
        return none;
    if (!groups) {
        ngroups = 2 * (wsize + 1);
        groups = calloc((size_t)ngroups, sizeof *groups);
        made = calloc((size_t)ngroups, 1);
        if (!groups || !made)
            PMPI_Abort(MPI_COMM_WORLD, 1); /* ranks would disagree on the splits */
        for (int i = 0; i < ngroups; i++)
            groups[i] = none;
    }
    int k = 2 * size + (alone != 0);
    if (!made[k]) { /* every world rank gets here once per (size, alone) */
        cs_replay_group *g = &groups[k];
        g->groups = alone ? 1 : wsize / size;
        int in = rank < g->groups * size;
        if (PMPI_Comm_split(MPI_COMM_WORLD, in ? rank / size : MPI_UNDEFINED, rank, &g->comm) !=
            MPI_SUCCESS)
            g->comm = MPI_COMM_NULL;
        if (g->groups == 1) {
            g->sync = g->comm;
        } else if (PMPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, rank, &g->sync) !=
                   MPI_SUCCESS) {
            g->sync = MPI_COMM_NULL;
        }
        if ((g->comm == MPI_COMM_NULL) != (g->sync == MPI_COMM_NULL)) /* a failed split */
            PMPI_Abort(MPI_COMM_WORLD, 1);
        made[k] = 1;
    }
    return groups[k];
}

void cs_replay_comms_free(void)
{
    for (int i = 0; i < ngroups; i++) {
        if (groups[i].sync != groups[i].comm && groups[i].sync != MPI_COMM_NULL)
            PMPI_Comm_free(&groups[i].sync);
        if (groups[i].comm != MPI_COMM_NULL)
            PMPI_Comm_free(&groups[i].comm);
    }
    free(groups);
    free(made);
    groups = NULL;
    made = NULL;
    ngroups = 0;
}

int cs_replay_wait(MPI_Request *req, int idle)
{
    if (!idle)
        return PMPI_Wait(req, MPI_STATUS_IGNORE);
    int done = 0, rc;
#ifdef COLLSEL_SMPI
    /* simulated naps cost no wall time, but every poll of every idle rank
     * is a simulation event: nap long (a 4-rank column of the papers' grid
     * at 64 simulated ranks: 11.0 -> 9.9 s) */
    const struct timespec nap = {0, 20000000};
#else
    const struct timespec nap = {0, 200000}; /* a variable: SMPI makes nanosleep a macro */
#endif
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
