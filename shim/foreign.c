/* The preload library in a process whose MPI library is not the one it
 * was built for (libcollsel.so, built for Open MPI, preloaded by hand into
 * an MPICH program, or the other way round).  Nothing of collsel may run
 * there: its handles and constants are the other library's (MPICH's
 * MPI_COMM_WORLD is an integer, Open MPI's a pointer), so the first call
 * with one fails deep inside MPI_Init with an error that points nowhere
 * near collsel.
 *
 * At load time, before the program's main, the library that the process's
 * PMPI_Init comes from (the program's own MPI: the loader binds to it
 * first) is asked for Open MPI's MPI_COMM_WORLD object; if the answer
 * differs from what this library was built for, one line (from rank 0)
 * names both, and the program is started again, as it was (same pid,
 * arguments and environment), without this library in LD_PRELOAD: still
 * before its main, so nothing of it has run, and then nothing of collsel
 * is in the process (the wrappers could not even pass the calls on: an
 * Open MPI handle is a pointer, MPICH's a 32-bit integer).  If that
 * cannot be done (the loader was started by hand, exec fails, or this is
 * already the second start), cs_foreign_mpi keeps collsel off: MPI_Init
 * does not start it, every wrapper stays the one-branch pass-through to
 * PMPI (enough for an MPICH program under the Open MPI build).
 * collsel exec preloads the matching flavour instead (shim/flavours.h).
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/rankenv.h"
#include "collsel_config.h"
#include "shim.h"

int cs_foreign_mpi;

static const char *title(int ompi) { return ompi ? "Open MPI" : "MPICH"; }

#define REEXEC_MARK "COLLSEL_FOREIGN_RESTART"

/* LD_PRELOAD without the entries that are this library (by real path). */
static int drop_self(const char *self)
{
    const char *pre = getenv("LD_PRELOAD");
    char me[PATH_MAX], *out;
    if (!pre || !realpath(self, me) || !(out = malloc(strlen(pre) + 1)))
        return -1;
    out[0] = 0;
    int dropped = 0;
    for (const char *p = pre; *p;) {
        size_t n = strcspn(p, ": ");
        char one[PATH_MAX], real[PATH_MAX];
        if (n > 0 && n < sizeof one) {
            memcpy(one, p, n);
            one[n] = 0;
            if (realpath(one, real) && !strcmp(real, me))
                dropped = 1;
            else
                strcat(strcat(out, out[0] ? ":" : ""), one);
        }
        p += n + (p[n] != 0);
    }
    if (dropped)
        setenv("LD_PRELOAD", out, 1);
    free(out);
    return dropped ? 0 : -1;
}

/* Start the program again without this library; returns only if that failed. */
static void restart_without(const char *self, char **argv)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || !argv || getenv(REEXEC_MARK))
        return;
    exe[n] = 0;
    if (!strncmp(basename(exe), "ld-", 3)) /* the loader run by hand: not the program */
        return;
    if (drop_self(self) < 0)
        return;
    setenv(REEXEC_MARK, "1", 1);
    execv(exe, argv);
}

/* glibc passes the program's arguments to the functions of .init_array. */
__attribute__((constructor)) static void check_mpi_library(int argc, char **argv, char **envp)
{
    (void)argc, (void)envp;
    if (getenv(REEXEC_MARK)) { /* a restarted program: leave no trace */
        unsetenv(REEXEC_MARK);
        return;
    }
    Dl_info proc, self;
    void *init = dlsym(RTLD_DEFAULT, "PMPI_Init");
    if (!init || !dladdr(init, &proc) || !proc.dli_fname)
        return;
    void *h = dlopen(proc.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return;
    int ompi = dlsym(h, "ompi_mpi_comm_world") != NULL;
    dlclose(h);
    int built_ompi = !strcmp(COLLSEL_MPI_FLAVOUR, "openmpi");
    if (ompi == built_ompi)
        return;
    cs_foreign_mpi = 1;
    if (!dladdr((void *)check_mpi_library, &self) || !self.dli_fname)
        self.dli_fname = "libcollsel";
    if (cs_launcher_speaks())
        fprintf(stderr,
                "collsel: %s is built for %s, but this program runs %s (%s): collsel is off "
                "for this run (collsel exec preloads the matching flavour)\n",
                self.dli_fname, title(built_ompi), title(ompi), proc.dli_fname);
    restart_without(self.dli_fname, argv);
}
