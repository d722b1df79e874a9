/* LD_PRELOAD for the window test (tests/coll/shm/meson.build): shm_open
 * of collsel's names (/collsel.*) always fails (the MPI library's own go
 * through: MPICH's UCX needs them), so every shared-memory segment must come from MPI's window
 * (PMPI_Win_allocate_shared, segment.c's fallback).  At exit, a process in
 * which nobody tried shm_open exits with 3: the test would not have tested
 * the fallback. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int refused;

int shm_open(const char *name, int oflag, ...)
{
    if (!strncmp(name, "/collsel.", 9)) {
        __atomic_fetch_add(&refused, 1, __ATOMIC_SEQ_CST);
        errno = EACCES;
        return -1;
    }
    va_list ap;
    va_start(ap, oflag);
    mode_t mode = (mode_t)va_arg(ap, int);
    va_end(ap);
    int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT,
                                                                               "shm_open");
    return real ? real(name, oflag, mode) : (errno = ENOSYS, -1);
}

__attribute__((destructor)) static void check(void)
{
    if (__atomic_load_n(&refused, __ATOMIC_SEQ_CST) == 0) {
        fprintf(stderr, "noshm: shm_open was never called: the fallback was not tested\n");
        _exit(3);
    }
}
