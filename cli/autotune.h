/* collsel autotune (autotune.c): its options, shared by the process
 * runner (autotune_run.c) and the report (autotune_report.c). */
#ifndef COLLSEL_AUTOTUNE_H
#define COLLSEL_AUTOTUNE_H

#include <limits.h>
#include <stdio.h>

#include "record/profile.h"

#define CMD "collsel autotune: "
#define MAX_ARGS 64

typedef struct at_opts {
    char *launcher[MAX_ARGS];
    int nlauncher;
    int nranks;          /* -n, or 0 */
    double budget;
    const char *tree;
    const char *dir;
    const char *grid;    /* --grid: more points to measure (for maps) */
    int resume;
    char **app;          /* APP ARGS, NULL-terminated */
    int flavour;
    const char *mpi;     /* --mpi FLAVOUR, or NULL */
    char self[PATH_MAX], replay[PATH_MAX];
    char prof[PATH_MAX + 16], perf[PATH_MAX + 16], mix[PATH_MAX + 16], log[PATH_MAX + 16];
    double t0;
    double check_budget; /* seconds of step 4 */
    int explore;         /* --explore K: steps 5 and 6 (0: none) */
    int verify;          /* --verify N: paired runs after the tree is built (0: none;
                            not given: AT_VERIFY_DEFAULT) */
    int prove;           /* more ranks on the node than cores: --verify keeps a
                            collective's methods only where the pairs show their gain
                            (autotune_rule.h) */
    uint32_t ranks_per_node; /* with prove: the recording's, and */
    long cores;              /* this machine's cores */
    int nsteps;          /* 4, 6 with --explore, one more with --verify */
    double xhalf;        /* the explored expectation's 95 % half width between runs, or -1 */
    char xprof[PATH_MAX + 16], xperf[PATH_MAX + 16], xtext[PATH_MAX + 16],
        xtune[PATH_MAX + 16], /* explored.csv with the replay's segment rows */
        rtree[PATH_MAX + 16], utree[PATH_MAX + 16];
} at_opts;

/* autotune_run.c: programs under the launcher.  at_in_path: prog can be
 * run (a path, or found in PATH); at_default_launcher: the flavour's own
 * mpirun -n N (2: none found, a line said so); at_split_launcher: --launcher
 * CMD into words (2: empty or too long); at_build_argv: launcher + words
 * (+ APP ARGS when app) into argv; at_run: run argv, stdout and stderr to
 * files when given (its exit status, 128+signal, 127: could not start);
 * at_print_cmd: argv as a shell would read it; at_tail: the last lines of a
 * log on stderr, indented. */
int at_in_path(const char *prog);
int at_default_launcher(at_opts *o);
int at_split_launcher(at_opts *o, const char *s);
void at_build_argv(const at_opts *o, char **argv, char *const *words, int app);
int at_run(char *const *argv, const char *out, const char *err);
void at_print_cmd(FILE *f, char *const *argv);
void at_tail(const char *path, int lines);

/* autotune.c: a step's progress line ([k/n time] what, about LEFT s left
 * if > 0); at_stopped: 1 after Ctrl-C (and says how to resume), else 0. */
void at_step(const at_opts *o, int k, const char *what, double left);
int at_stopped(const at_opts *o, const char *what);
/* autotune.c, with --explore: what the tree makes of the exploring runs'
 * collective time (one line, "the tree built on them, ..."). */
void at_tree_expect(const at_opts *o);

/* autotune_verify.c: perf table in, written to out, without the rows of
 * the collectives strip[c] marks (NULL: none) but their native and
 * segment rows, and with the segment rows (COLL.segment: a shared-memory
 * segment's one-time cost) of table seg added (NULL: none).  0, or -1
 * (said on stderr). */
int at_perf_select(const char *in, const char *out, const int *strip, const char *seg);

/* autotune_verify.c (--verify N): N alternating native / tuned runs of the
 * application, each recorded; per collective the median of tuned / native
 * collective time with its 95 % interval; a collective measured slower
 * beyond that interval is made native in the tree (collsel tune again, on
 * the same times without its methods; the tree before kept as
 * DIR/unverified.tree).  0, or an exit status. */
int at_verify(at_opts *o);

/* autotune_report.c: the profile's shares, the mix's points, the gain per
 * collective and the command that runs the application with the tree. */
void at_report(at_opts *o, const cs_profile *prof);

#endif
