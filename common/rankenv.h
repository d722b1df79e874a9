/* The rank a launcher gives a process, read from its environment before
 * MPI starts (Open MPI / PMIx, MPICH's hydra / PMI, Slurm), so that a
 * message about the whole job is printed once, by rank 0.  -1: no launcher
 * said (a process started by hand: it speaks for itself). */
#ifndef COLLSEL_RANKENV_H
#define COLLSEL_RANKENV_H

#include <stdlib.h>

static inline int cs_launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                       "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v);
    }
    return -1;
}

/* 1 where a job-wide message is printed: rank 0, or no launcher. */
static inline int cs_launcher_speaks(void)
{
    return cs_launcher_rank() <= 0;
}

#endif
