/* The COLLSEL_* environment variables (config.c): one table, MPI-free, so
 * that the command line prints the same documentation (collsel --help,
 * collsel exec --help) that the preload library reads its settings from. */
#ifndef COLLSEL_CONFIG_H
#define COLLSEL_CONFIG_H

#include <stdio.h>

#include "common/util.h"

/* Configuration, filled once by cs_config_load() at MPI_Init from the
 * environment (one table of {name, default, doc}; unknown COLLSEL_*
 * variables and invalid values get one line on stderr from rank 0). */
typedef struct cs_config {
    const char *record; /* COLLSEL_RECORD: profile path, or NULL */
    const char *tree;   /* COLLSEL_TREE: tree path, or NULL */
    const char *force;  /* COLLSEL_FORCE: raw spec, or NULL (parsed by dispatch) */
    int verbose;        /* COLLSEL_VERBOSE 0..3 */
    int node_size;      /* COLLSEL_NODE_SIZE: virtual node size, 0 = real nodes */
    int reorder_fp;     /* COLLSEL_REORDER_FP: 1 = floating point may be combined in
                           arrival order (the dynamic reductions) */
    int shm_limit_mib;  /* COLLSEL_SHM_LIMIT: MiB of segments per process */
    int shm_warmup;     /* COLLSEL_SHM_WARMUP: calls before shared memory */
    int explore;        /* COLLSEL_EXPLORE: candidates per tree leaf tried in the
                           application (shim/explore.c), 0: none */
    int explore_seed;   /* COLLSEL_EXPLORE_SEED: which calls get which candidate */
    int shm_prepare;    /* COLLSEL_SHM_PREPARE: 1 = a waiting rank maps its
                           receive buffer's missing pages (shm/prepare.c) */
    double shm_stuck;   /* COLLSEL_SHM_STUCK: seconds of one shared-memory wait
                           before it is reported (0: never) */
    double record_interval; /* COLLSEL_RECORD_INTERVAL: seconds between
                               snapshots to the partial files, 0 = none */
    int record_max_kib;  /* COLLSEL_RECORD_MAX_KIB: bound of a profile file */
    double clock_shift;  /* COLLSEL_CLOCK_SHIFT: seconds x node index added to
                            a node's clock (testing the offset estimate) */
} cs_config;
extern cs_config cs_cfg CS_HIDDEN;

void cs_config_load(void) CS_HIDDEN;

/* World rank (valid after MPI_Init; -1 before). */
extern int cs_world_rank CS_HIDDEN;

/* Print "collsel: ..." on stderr if verbose >= level; rank0only limits it
 * to world rank 0.  Warnings about bad input use level 0 (always shown). */
void cs_log(int level, int rank0only, const char *fmt, ...) CS_HIDDEN CS_PRINTF(3, 4);

/* The documentation of the table: cs_config_doc, the line of one variable
 * (NULL: not in the table); cs_config_help, the environment section of a
 * help text (the preload library's variables, one line each with the
 * accepted values and the default). */
const char *cs_config_doc(const char *name) CS_HIDDEN;
void cs_config_help(FILE *f) CS_HIDDEN;

#endif
