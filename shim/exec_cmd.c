/* `collsel exec`: run an application under the preload library.
 *
 *   collsel exec [--record F] [--tree F] [--force SPEC] [--verbose N] -- APP ARGS
 *
 * Sets COLLSEL_RECORD / COLLSEL_TREE / COLLSEL_FORCE / COLLSEL_VERBOSE,
 * prepends libcollsel.so to LD_PRELOAD and execs APP, so that it works under
 * any launcher (mpirun -n 8 collsel exec --record app.prof -- ./app).
 * The library is found at $COLLSEL_LIB, else next to this executable:
 * ../shim/libcollsel.so (build tree), ../LIBDIR/libcollsel.so (installed).
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/util.h"

#ifndef COLLSEL_LIBDIR
#define COLLSEL_LIBDIR "lib"
#endif

#define CMD "collsel exec: "

static const struct {
    const char *opt, *var, *arg, *doc;
} opts[] = {
    {"--record", "COLLSEL_RECORD", "FILE", "record the collective distribution into FILE"},
    {"--tree", "COLLSEL_TREE", "FILE", "select Bcast/Reduce/Barrier methods from this tree"},
    {"--force", "COLLSEL_FORCE", "SPEC", "force methods: bcast=NAME,reduce=NAME,barrier=NAME"},
    {"--verbose", "COLLSEL_VERBOSE", "N", "0 silent .. 3 debug (messages on stderr)"},
};
#define NOPTS (sizeof opts / sizeof opts[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: collsel exec [OPTIONS] [--] APP [ARGS...]\n\n"
               "Run APP with the collsel preload library (libcollsel.so), e.g.\n"
               "  mpirun -n 8 collsel exec --record app.prof -- ./app\n\noptions:\n");
    for (size_t i = 0; i < NOPTS; i++) {
        char flag[32];
        snprintf(flag, sizeof flag, "%s %s", opts[i].opt, opts[i].arg);
        fprintf(f, "  %-15s %s (sets %s)\n", flag, opts[i].doc, opts[i].var);
    }
    fprintf(f, "  %-15s this text\n\n", "--help");
    fprintf(f, "Options may also be written --record=FILE.  "
               "The library is $COLLSEL_LIB if set, else\n"
               "found next to the collsel executable (../shim/libcollsel.so in the build\n"
               "tree, ../%s/libcollsel.so installed).\n",
            COLLSEL_LIBDIR);
}

static int file_ok(const char *p) { return access(p, R_OK) == 0; }

/* Path of libcollsel.so into lib (absolute), or -1 with a message. */
static int find_lib(char *lib, size_t len)
{
    const char *env = getenv("COLLSEL_LIB");
    if (env && *env) {
        if (!file_ok(env) || !realpath(env, lib)) {
            fprintf(stderr, CMD "COLLSEL_LIB=%s: %s\n", env, strerror(errno));
            return -1;
        }
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        fprintf(stderr, CMD "cannot read /proc/self/exe: %s (set COLLSEL_LIB)\n",
                strerror(errno));
        return -1;
    }
    exe[n] = 0;
    const char *dir = dirname(exe);
    const char *rel[] = {"../shim", "../" COLLSEL_LIBDIR, "../lib", "../lib64"};
    char cand[PATH_MAX + 64];
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        if (i == 1 && COLLSEL_LIBDIR[0] == '/') /* an absolute libdir */
            snprintf(cand, sizeof cand, "%s/libcollsel.so", COLLSEL_LIBDIR);
        else
            snprintf(cand, sizeof cand, "%s/%s/libcollsel.so", dir, rel[i]);
        if (file_ok(cand) && realpath(cand, lib))
            return 0;
    }
    (void)len;
    fprintf(stderr,
            CMD "libcollsel.so not found in %s/../shim or %s/../%s (set COLLSEL_LIB to its path)\n",
            dir, dir, COLLSEL_LIBDIR);
    return -1;
}

int cs_cmd_exec(int argc, char **argv)
{
    int i = 1;
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
    if (find_lib(lib, sizeof lib) < 0)
        return 1;
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
    execvp(argv[i], argv + i);
    fprintf(stderr, CMD "cannot run %s: %s\n", argv[i], strerror(errno));
    return 1;
}
