/* The MPI flavours of collsel and the MPI library of a program (see
 * flavours.h).  No MPI here: `collsel` runs before the program does. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flavours.h"

const cs_flavour cs_flavours[] = {
    {"openmpi", "Open MPI", ""},
    {"mpich", "MPICH", "-mpich"},
};
const int cs_nflavours = sizeof cs_flavours / sizeof cs_flavours[0];

int cs_flavour_by_name(const char *name)
{
    for (int f = 0; f < cs_nflavours; f++)
        if (!strcmp(name, cs_flavours[f].name))
            return f;
    return -1;
}

/* The directory of this executable, or -1. */
static int exe_dir(char *dir, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = 0;
    snprintf(dir, len, "%s", dirname(exe));
    return 0;
}

/* The first of dir/rel[i]/file that exists, made absolute into path. */
static int first_of(const char *dir, const char *const *rel, int nrel, const char *file,
                    char *path, size_t len)
{
    char cand[2 * PATH_MAX];
    for (int i = 0; i < nrel; i++) {
        if (rel[i][0] == '/')
            snprintf(cand, sizeof cand, "%s/%s", rel[i], file);
        else
            snprintf(cand, sizeof cand, "%s/%s/%s", dir, rel[i], file);
        char real[PATH_MAX];
        if (access(cand, R_OK) == 0 && realpath(cand, real) && strlen(real) < len) {
            strcpy(path, real);
            return 0;
        }
    }
    return -1;
}

int cs_flavour_lib(int f, char *path, size_t len)
{
    static const char *const rel[] = {"../shim", COLLSEL_LIBDIR[0] == '/' ? COLLSEL_LIBDIR : "../" COLLSEL_LIBDIR,
                                      "../lib", "../lib64"};
    char dir[PATH_MAX], file[64];
    if (exe_dir(dir, sizeof dir) < 0)
        return -1;
    snprintf(file, sizeof file, "libcollsel%s.so", cs_flavours[f].suffix);
    return first_of(dir, rel, 4, file, path, len);
}

int cs_flavour_tool(int f, const char *tool, char *path, size_t len)
{
    static const char *const rel[] = {"../replay", "."};
    char dir[PATH_MAX], file[128];
    if (exe_dir(dir, sizeof dir) < 0)
        return -1;
    snprintf(file, sizeof file, "%s%s", tool, cs_flavours[f].suffix);
    if (first_of(dir, rel, 2, file, path, len) < 0)
        return -1;
    return access(path, X_OK) == 0 ? 0 : -1;
}

/* The ELF interpreter (dynamic loader) of path: 1 and its path, 0 for an
 * ELF file without one (static, or a shared library), -1 not ELF ("#!"
 * scripts: 2), -3 unreadable. */
static int elf_interp(const char *path, char *interp, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -3;
    unsigned char id[EI_NIDENT];
    int rc = -1;
    if (pread(fd, id, sizeof id, 0) != (ssize_t)sizeof id)
        goto out;
    if (id[0] == '#' && id[1] == '!') {
        rc = 2;
        goto out;
    }
    if (memcmp(id, ELFMAG, SELFMAG) != 0 || (id[EI_CLASS] != ELFCLASS64 && id[EI_CLASS] != ELFCLASS32))
        goto out;
    int is64 = id[EI_CLASS] == ELFCLASS64;
    Elf64_Ehdr h64;
    Elf32_Ehdr h32;
    uint64_t phoff;
    unsigned phnum, phentsize;
    if (is64) {
        if (pread(fd, &h64, sizeof h64, 0) != (ssize_t)sizeof h64)
            goto out;
        phoff = h64.e_phoff, phnum = h64.e_phnum, phentsize = h64.e_phentsize;
    } else {
        if (pread(fd, &h32, sizeof h32, 0) != (ssize_t)sizeof h32)
            goto out;
        phoff = h32.e_phoff, phnum = h32.e_phnum, phentsize = h32.e_phentsize;
    }
    rc = 0;
    for (unsigned i = 0; i < phnum && i < 256; i++) {
        uint64_t type, off, size;
        if (is64) {
            Elf64_Phdr p;
            if (pread(fd, &p, sizeof p, (off_t)(phoff + (uint64_t)i * phentsize)) != (ssize_t)sizeof p)
                break;
            type = p.p_type, off = p.p_offset, size = p.p_filesz;
        } else {
            Elf32_Phdr p;
            if (pread(fd, &p, sizeof p, (off_t)(phoff + (uint64_t)i * phentsize)) != (ssize_t)sizeof p)
                break;
            type = p.p_type, off = p.p_offset, size = p.p_filesz;
        }
        if (type != PT_INTERP)
            continue;
        if (size == 0 || size >= len || pread(fd, interp, size, (off_t)off) != (ssize_t)size)
            break;
        interp[size] = 0;
        rc = 1;
        break;
    }
out:
    close(fd);
    return rc;
}

static int is_mpi_soname(const char *s)
{
    return !strncmp(s, "libmpi.so", 9) || !strncmp(s, "libmpich.so", 11);
}

/* Run the loader on path in trace mode (no code of path runs) and find the
 * MPI library among what it would load.  1 found, 0 not, -1 failed. */
static int trace_mpi(const char *interp, const char *path, char *soname, size_t sn, char *where,
                     size_t wn)
{
    int fds[2];
    if (pipe(fds) < 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0)
            dup2(nul, 2);
        close(fds[0]);
        unsetenv("LD_PRELOAD");
        setenv("LD_TRACE_LOADED_OBJECTS", "1", 1);
        execl(interp, interp, path, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char out[65536];
    size_t n = 0;
    ssize_t r;
    while ((r = read(fds[0], out + n, sizeof out - 1 - n)) > 0 || (r < 0 && errno == EINTR))
        n += r > 0 ? (size_t)r : 0;
    close(fds[0]);
    out[n] = 0;
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        line += strspn(line, " \t");
        char name[256], res[PATH_MAX];
        res[0] = 0;
        if (sscanf(line, "%255s => %4095s", name, res) < 1 || !is_mpi_soname(name))
            continue;
        snprintf(soname, sn, "%s", name);
        snprintf(where, wn, "%s", res[0] && res[0] != '(' ? res : "not found");
        return 1;
    }
    return 0;
}

int cs_mpi_of(const char *path, char *soname, size_t sn, char *where, size_t wn, char *why,
              size_t yn)
{
    char interp[PATH_MAX];
    int k = elf_interp(path, interp, sizeof interp);
    if (k == -3) {
        snprintf(why, yn, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    if (k == 2) {
        snprintf(why, yn, "%s is a script: the MPI library it will start cannot be read", path);
        return 0;
    }
    if (k < 0) {
        snprintf(why, yn, "%s is not an ELF program", path);
        return 0;
    }
    if (k == 0) { /* no interpreter: a shared library (use ours) or a static program */
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        int lib = strstr(base, ".so") != NULL;
        if (!lib || elf_interp("/proc/self/exe", interp, sizeof interp) != 1) {
            snprintf(why, yn, "%s is statically linked: no library can be preloaded into it", path);
            return 0;
        }
    }
    int t = trace_mpi(interp, path, soname, sn, where, wn);
    if (t < 0) {
        snprintf(why, yn, "the loader (%s) could not list the dependencies of %s", interp, path);
        return -1;
    }
    if (t == 0)
        snprintf(why, yn, "%s does not load an MPI library (no libmpi.so or libmpich.so among "
                          "its dependencies)",
                 path);
    return t;
}

/* prog as execvp would find it, into path; -1 if not found. */
static int find_program(const char *prog, char *path, size_t len)
{
    if (strchr(prog, '/'))
        return snprintf(path, len, "%s", prog) < (int)len && access(prog, X_OK) == 0 ? 0 : -1;
    const char *p = getenv("PATH");
    if (!p || !*p)
        p = "/usr/local/bin:/usr/bin:/bin";
    while (*p) {
        size_t n = strcspn(p, ":");
        if (snprintf(path, len, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", prog) < (int)len &&
            access(path, X_OK) == 0)
            return 0;
        p += n + (p[n] == ':');
    }
    return -1;
}

/* The installed flavour whose launcher started this process, read from
 * the environment it gives its processes (Open MPI's mpirun:
 * OMPI_COMM_WORLD_SIZE; MPICH's hydra: PMI_SIZE; Slurm's srun: the MPI
 * plugin it loaded, SLURM_MPI_TYPE: pmix, pmix_v4 ... for Open MPI, whose
 * Debian build speaks PMIx and not PMI-2; pmi2 for MPICH, which also sees
 * PMI_SIZE), or -1. */
static int launcher_flavour(void)
{
    const char *slurm = getenv("SLURM_MPI_TYPE");
    const char *name = getenv("OMPI_COMM_WORLD_SIZE")        ? "openmpi"
                       : getenv("PMI_SIZE")                  ? "mpich"
                       : slurm && !strncmp(slurm, "pmix", 4) ? "openmpi"
                       : slurm && !strcmp(slurm, "pmi2")     ? "mpich"
                                                             : NULL;
    char lib[PATH_MAX];
    int f = name ? cs_flavour_by_name(name) : -1;
    return f >= 0 && cs_flavour_lib(f, lib, sizeof lib) == 0 ? f : -1;
}

int cs_flavour_for(const char *prog, char *why, size_t yn)
{
    char path[PATH_MAX], soname[256], where[PATH_MAX];
    if (find_program(prog, path, sizeof path) < 0)
        return -2;
    int k = cs_mpi_of(path, soname, sizeof soname, where, sizeof where, why, yn);
    if (k == 0) { /* an interpreter or a script may load MPI later (mpi4py):
                     the flavour of the launcher that started it */
        int f = launcher_flavour();
        return f >= 0 ? f : -3;
    }
    if (k < 0)
        return -1;
    char seen[512] = "";
    for (int f = 0; f < cs_nflavours; f++) {
        char lib[PATH_MAX], ls[256], lw[PATH_MAX], ly[PATH_MAX + 128];
        if (cs_flavour_lib(f, lib, sizeof lib) < 0)
            continue;
        if (cs_mpi_of(lib, ls, sizeof ls, lw, sizeof lw, ly, sizeof ly) <= 0)
            continue;
        if (!strcmp(ls, soname))
            return f;
        size_t o = strlen(seen);
        snprintf(seen + o, sizeof seen - o, "%s%s for %s", o ? ", " : "",
                 cs_flavours[f].name, ls);
    }
    snprintf(why, yn, "%s uses %s (%s), for which no collsel flavour is installed (%s)", path,
             soname, where, seen[0] ? seen : "none found next to collsel");
    return -1;
}

int cs_flavour_of_launcher(const char *prog)
{
    char path[PATH_MAX], real[PATH_MAX];
    if (find_program(prog, path, sizeof path) < 0 || !realpath(path, real))
        return -1;
    const char *base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
    int f = strstr(base, "openmpi") || !strcmp(base, "orterun") || !strcmp(base, "prterun")
                ? cs_flavour_by_name("openmpi")
            : strstr(base, "mpich") || strstr(base, "hydra") ? cs_flavour_by_name("mpich")
                                                               : -1;
    char lib[PATH_MAX];
    return f >= 0 && cs_flavour_lib(f, lib, sizeof lib) == 0 ? f : -1;
}

void cs_flavours_print(FILE *out)
{
    int any = 0;
    for (int f = 0; f < cs_nflavours; f++) {
        char lib[PATH_MAX], so[256], where[PATH_MAX], why[PATH_MAX + 128];
        if (cs_flavour_lib(f, lib, sizeof lib) < 0)
            continue;
        int k = cs_mpi_of(lib, so, sizeof so, where, sizeof where, why, sizeof why);
        fprintf(out, "flavour %-8s %s (%s: %s)\n", cs_flavours[f].name, lib, cs_flavours[f].title,
                k > 0 ? so : "its MPI library was not found");
        any = 1;
    }
    if (!any)
        fprintf(out, "no flavour installed next to this collsel (libcollsel.so, "
                     "libcollsel-mpich.so)\n");
}
