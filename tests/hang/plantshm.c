/* LD_PRELOAD for hang-shm-names (names.sh): objects planted at the names
 * collsel's segments use, as another user or a crashed run would leave
 * them.  PLANT_SHM says where:
 *   first    before every rank-0 create (O_CREAT | O_EXCL) of a /collsel.*
 *            name that is the first try of its segment, an object of
 *            4096 bytes holding "planted" is made at that name: the create
 *            must fail and the next name be taken;
 *   all      the same before every create: every try fails, the segment
 *            must come from MPI's window;
 *   replace  before a rank other than 0 (of the world) opens the name rank
 *            0 sent, the object is replaced by a planted one: that rank
 *            must refuse it, and rank 0 must not remove it.
 * Every planted name is appended to PLANT_LOG (one line "planted NAME"),
 * every create that went through as "created NAME".  A process in which
 * nothing was planted exits with 3 (the test would not have tested it). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int planted;

/* This process's world rank, from the launcher (-1: unknown). */
static int world_rank(void)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r)
        r = getenv("PMI_RANK");
    return r ? atoi(r) : -1;
}
static int tries; /* creates since the last one that went through */

typedef int (*shm_open_fn)(const char *, int, ...);

static void logline(const char *what, const char *name)
{
    const char *path = getenv("PLANT_LOG");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (f) {
        fprintf(f, "%s %s\n", what, name);
        fclose(f);
    }
}

static void plant(shm_open_fn real, const char *name)
{
    int fd = real(name, O_CREAT | O_EXCL | O_RDWR, 0644);
    if (fd < 0)
        return;
    if (ftruncate(fd, 4096) == 0 && write(fd, "planted", 7) == 7) {
        __atomic_fetch_add(&planted, 1, __ATOMIC_RELAXED);
        logline("planted", name);
    }
    close(fd);
}

int shm_open(const char *name, int oflag, ...)
{
    va_list ap;
    va_start(ap, oflag);
    mode_t mode = (mode_t)va_arg(ap, int);
    va_end(ap);
    shm_open_fn real = (shm_open_fn)dlsym(RTLD_NEXT, "shm_open");
    if (!real)
        return errno = ENOSYS, -1;
    const char *how = getenv("PLANT_SHM");
    if (how && !strncmp(name, "/collsel.", 9)) {
        int create = (oflag & O_CREAT) != 0;
        if (create && (!strcmp(how, "all") || (!strcmp(how, "first") && __atomic_load_n(&tries, __ATOMIC_RELAXED) == 0)))
            plant(real, name);
        int (*unlink_obj)(const char *) = (int (*)(const char *))dlsym(RTLD_NEXT, "shm_unlink");
        if (!create && !strcmp(how, "replace") && world_rank() > 0 && unlink_obj &&
            unlink_obj(name) == 0)
            plant(real, name);
        int fd = real(name, oflag, mode);
        if (create) {
            if (fd >= 0) {
                __atomic_store_n(&tries, 0, __ATOMIC_RELAXED);
                logline("created", name);
            } else {
                __atomic_fetch_add(&tries, 1, __ATOMIC_RELAXED);
            }
        }
        return fd;
    }
    return real(name, oflag, mode);
}

__attribute__((destructor)) static void check(void)
{
    const char *how = getenv("PLANT_SHM");
    int rank0_only = how && strcmp(how, "replace"); /* creates happen on rank 0 only */
    int is0 = world_rank() == 0;
    if (how && __atomic_load_n(&planted, __ATOMIC_RELAXED) == 0 && (rank0_only ? is0 : !is0)) {
        fprintf(stderr, "plantshm: nothing was planted: the test did not test it\n");
        _exit(3);
    }
}
