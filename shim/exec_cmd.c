/* `collsel exec`: run an application under the preload library.
 *
 *   collsel exec [--record F] [--tree F] [--force SPEC] [--verbose N] [--explore K]
 *                [--mpi FLAVOUR] -- APP ARGS
 *
 * Sets COLLSEL_RECORD / COLLSEL_TREE / COLLSEL_FORCE / COLLSEL_VERBOSE /
 * COLLSEL_EXPLORE,
 * prepends the preload library of the flavour matching APP's MPI library
 * (flavours.h) to LD_PRELOAD and execs APP, so that it works under any
 * launcher (mpirun -n 8 collsel exec --record app.prof -- ./app).  $COLLSEL_LIB
 * names the library outright.  A program whose MPI no installed flavour is
 * built for (or no MPI program) gets one line, from rank 0, and runs
 * without collsel.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/rankenv.h"
#include "common/util.h"
#include "shim/config.h"
#include "shim/flavours.h"

#define CMD "collsel exec: "

/* The options that set a variable of the preload library; their text is
 * the variable's (config.c). */
static const struct {
    const char *opt, *var, *arg;
} opts[] = {
    {"--record", "COLLSEL_RECORD", "FILE"},
    {"--tree", "COLLSEL_TREE", "FILE"},
    {"--force", "COLLSEL_FORCE", "SPEC"},
    {"--verbose", "COLLSEL_VERBOSE", "N"},
    {"--explore", "COLLSEL_EXPLORE", "K"},
    {"--explore-seed", "COLLSEL_EXPLORE_SEED", "N"},
};
#define NOPTS (sizeof opts / sizeof opts[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: collsel exec [OPTIONS] [--] APP [ARGS...]\n\n"
               "Run APP with the collsel preload library of APP's MPI library, e.g.\n"
               "  mpirun -n 8 collsel exec --record app.prof -- ./app\n\noptions:\n");
    for (size_t i = 0; i < NOPTS; i++) {
        char flag[32];
        snprintf(flag, sizeof flag, "%s %s", opts[i].opt, opts[i].arg);
        fprintf(f, "  %-15s sets %s: %s\n", flag, opts[i].var, cs_config_doc(opts[i].var));
    }
    fprintf(f, "  %-15s preload this flavour (openmpi, mpich) instead of reading APP's\n"
               "  %-15s dependencies\n",
            "--mpi FLAVOUR", "");
    fprintf(f, "  %-15s this text\n\n", "--help");
    fprintf(f, "Options may also be written --record=FILE.  The library is chosen by the MPI\n"
               "library APP loads (libmpi.so.40: libcollsel.so, Open MPI; libmpich.so.12:\n"
               "libcollsel-mpich.so, MPICH), among the flavours found next to the collsel\n"
               "executable (../shim in the build tree, ../%s installed); $COLLSEL_LIB names\n"
               "it outright.  A program with no MPI among its dependencies (python3 with\n"
               "mpi4py, a script) gets the flavour of the launcher that started it (Open MPI's\n"
               "mpirun, MPICH's hydra), if installed.  A program that uses no MPI under no\n"
               "such launcher, or an MPI no installed flavour is built for, gets one line\n"
               "saying so and runs without collsel.\n\n",
            COLLSEL_LIBDIR);
    cs_config_help(f);
}

/* The library to preload for prog into lib: 0; 1 when the program runs
 * without collsel (a line said why); -1 error (a line said it). */
static int find_lib(const char *prog, int flavour, char *lib, size_t len)
{
    const char *env = getenv("COLLSEL_LIB");
    if (env && *env) {
        if (access(env, R_OK) != 0 || !realpath(env, lib)) {
            fprintf(stderr, CMD "COLLSEL_LIB=%s: %s\n", env, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (flavour >= 0) {
        if (cs_flavour_lib(flavour, lib, len) == 0)
            return 0;
        fprintf(stderr, CMD "--mpi %s: libcollsel%s.so is not installed next to this collsel\n",
                cs_flavours[flavour].name, cs_flavours[flavour].suffix);
        return -1;
    }
    char why[2 * PATH_MAX];
    int f = cs_flavour_for(prog, why, sizeof why);
    if (f == -2) /* not found: execvp says so */
        return 1;
    if (f < 0) {
        if (cs_launcher_speaks())
            fprintf(stderr, CMD "%s; running it without collsel\n", why);
        return 1;
    }
    return cs_flavour_lib(f, lib, len) == 0 ? 0 : -1;
}

int cs_cmd_exec(int argc, char **argv)
{
    int i = 1, flavour = -1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        if (!strncmp(a, "--mpi", 5) && (a[5] == 0 || a[5] == '=')) {
            const char *v = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : "");
            if ((flavour = cs_flavour_by_name(v)) < 0) {
                fprintf(stderr, CMD "--mpi '%s' is not a flavour (accepted: openmpi, mpich)\n", v);
                return 2;
            }
            continue;
        }
        size_t k = 0;
        const char *val = NULL;
        for (; k < NOPTS; k++) {
            size_t ol = strlen(opts[k].opt);
            if (!strncmp(a, opts[k].opt, ol) && (a[ol] == 0 || a[ol] == '=')) {
                val = a[ol] == '=' ? a + ol + 1 : (i + 1 < argc ? argv[++i] : NULL);
                break;
            }
        }
        if (k == NOPTS) {
            fprintf(stderr, CMD "unknown option '%s' (collsel exec --help)\n", a);
            return 2;
        }
        if (!val || !*val) {
            fprintf(stderr, CMD "%s needs a value %s\n", opts[k].opt, opts[k].arg);
            return 2;
        }
        if (!strcmp(opts[k].opt, "--verbose") &&
            (strlen(val) != 1 || val[0] < '0' || val[0] > '3')) {
            fprintf(stderr, CMD "--verbose '%s' is not valid (accepted: 0..3)\n", val);
            return 2;
        }
        setenv(opts[k].var, val, 1);
    }
    if (i >= argc) {
        fprintf(stderr, CMD "no application given\n");
        usage(stderr);
        return 2;
    }
    char lib[PATH_MAX];
    int k = find_lib(argv[i], flavour, lib, sizeof lib);
    if (k < 0)
        return 1;
    if (k > 0)
        goto run;
    const char *old = getenv("LD_PRELOAD");
    size_t n = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *pre = malloc(n);
    if (!pre) {
        fprintf(stderr, CMD "out of memory\n");
        return 1;
    }
    snprintf(pre, n, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
    setenv("LD_PRELOAD", pre, 1);
    free(pre);
run:
    execvp(argv[i], argv + i);
    fprintf(stderr, CMD "cannot run %s: %s\n", argv[i], strerror(errno));
    return 1;
}
