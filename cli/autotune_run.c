/* collsel autotune: the programs it runs under the launcher (see
 * autotune.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/autotune.h"
#include "shim/flavours.h"

int at_in_path(const char *prog)
{
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0;
    const char *p = getenv("PATH");
    char cand[PATH_MAX];
    for (; p && *p;) {
        size_t n = strcspn(p, ":");
        snprintf(cand, sizeof cand, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", prog);
        if (access(cand, X_OK) == 0)
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

/* The launcher for -n N: the flavour's own mpirun.  Open MPI (4's ORTE and
 * 5's PRRTE alike) refuses more ranks than cores unless told to
 * oversubscribe, and 5 refuses to bind them to cores unless overload is
 * allowed; ranks that share a core must yield when idle, or a busy-polling
 * one starves its peer.  MPICH's hydra oversubscribes by itself. */
int at_default_launcher(at_opts *o)
{
    static char *const ompi_over[] = {"--oversubscribe", "--bind-to", "core:overload-allowed",
                                      "--mca", "mpi_yield_when_idle", "1"};
    static const char *const ompi[] = {"mpirun.openmpi", "mpirun", "mpiexec"};
    static const char *const mpich[] = {"mpirun.mpich", "mpiexec.hydra", "mpiexec.mpich",
                                        "mpiexec"};
    const char *const *c = !strcmp(cs_flavours[o->flavour].name, "mpich") ? mpich : ompi;
    int nc = c == mpich ? 4 : 3;
    static char n[16];
    snprintf(n, sizeof n, "%d", o->nranks ? o->nranks : 2);
    for (int i = 0; i < nc; i++)
        if (at_in_path(c[i])) {
            o->launcher[0] = (char *)c[i], o->launcher[1] = "-n", o->launcher[2] = n;
            o->nlauncher = 3;
            long cores = sysconf(_SC_NPROCESSORS_ONLN);
            if (c == ompi && cores > 0 && (o->nranks ? o->nranks : 2) > cores)
                for (size_t k = 0; k < sizeof ompi_over / sizeof ompi_over[0]; k++)
                    o->launcher[o->nlauncher++] = ompi_over[k];
            return 0;
        }
    fprintf(stderr, CMD "no mpirun of %s found (tried %s ...): give --launcher\n",
            cs_flavours[o->flavour].title, c[0]);
    return 2;
}

void at_print_cmd(FILE *f, char *const *argv)
{
    for (int i = 0; argv[i]; i++) {
        const char *a = argv[i];
        int plain = *a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                    "0123456789-_./=:,+@%") == strlen(a);
        fprintf(f, plain ? "%s%s" : "%s'%s'", i ? " " : "", a);
    }
}

/* Run argv (stdout/stderr to files when given); its exit status, 128+sig
 * for a signal, 127 if it could not start. */
int at_run(char *const *argv, const char *out, const char *err)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return 127;
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        if (out) {
            int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd >= 0)
                dup2(fd, 1), close(fd);
        }
        if (err) {
            int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd >= 0)
                dup2(fd, 2), close(fd);
        }
        execvp(argv[0], argv);
        fprintf(stderr, CMD "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 127;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* launcher + words + (APP ARGS when app) */
void at_build_argv(const at_opts *o, char **argv, char *const *words, int app)
{
    int n = 0;
    for (int i = 0; i < o->nlauncher; i++)
        argv[n++] = o->launcher[i];
    for (int i = 0; words[i]; i++)
        argv[n++] = words[i];
    for (int i = 0; app && o->app[i] && n < 2 * MAX_ARGS - 1; i++)
        argv[n++] = o->app[i];
    argv[n] = NULL;
}

/* The last lines of a log, indented (what a failed step said). */
void at_tail(const char *path, int lines)
{
    FILE *f = fopen(path, "r");
    char ring[8][256];
    int n = 0;
    if (!f)
        return;
    while (n < 1000000 && fgets(ring[n % 8], sizeof ring[0], f))
        n++;
    fclose(f);
    for (int i = n > lines ? n - lines : 0; i < n; i++)
        fprintf(stderr, "    | %s%s", ring[i % 8], strchr(ring[i % 8], '\n') ? "" : "\n");
}

int at_split_launcher(at_opts *o, const char *s)
{
    char *copy = strdup(s);
    if (!copy)
        return 2;
    o->nlauncher = 0;
    for (char *w = strtok(copy, " \t"); w; w = strtok(NULL, " \t")) {
        if (o->nlauncher >= MAX_ARGS - 16) {
            fprintf(stderr, CMD "--launcher: too many words\n");
            return 2;
        }
        o->launcher[o->nlauncher++] = w;
    }
    if (o->nlauncher == 0) {
        fprintf(stderr, CMD "--launcher is empty\n");
        return 2;
    }
    return 0;
}
