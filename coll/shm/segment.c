/* The shared-memory segment of a communicator: its creation (POSIX shared
 * memory, else an MPI window), the agreement of its ranks, and its free
 * (see shm.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "coll/shm/shm.h"

void cs_shm_free(cs_shm *s)
{
    if (!s)
        return;
    if (s->win != MPI_WIN_NULL)
        PMPI_Win_free(&s->win);
    if (s->map)
        munmap(s->map, s->map_bytes);
    if (s->counted)
        cs_shm_unreserve(CS_SHM_RANK_BYTES);
    free(s->r);
    free(s->seen);
    free(s);
}

/* A name for a new object: /collsel.PID.SERIAL.RANDOM (the random part:
 * another user cannot plant the names we will try). */
static void seg_name(char *name)
{
    static unsigned serial;
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        r = (uint64_t)t.tv_nsec * 0x9E3779B97F4A7C15u ^ (uint64_t)(uintptr_t)&t;
    }
    snprintf(name, 64, "/collsel.%ld.%u.%016llx", (long)getpid(), __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED),
             (unsigned long long)r);
}

/* The object rank 0 named is the one it made: ours (our user), a regular
 * object of exactly the segment's size, open to no one else. */
static int seg_ours(int fd, size_t bytes)
{
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_uid == geteuid() && S_ISREG(st.st_mode) &&
           (st.st_mode & 077) == 0 && (size_t)st.st_size == bytes;
}

/* Unlink the object at name if it is still the one we made (made: its
 * identity; someone may have replaced it, and theirs is not ours to
 * remove). */
static void seg_unlink(const char *name, const struct stat *made)
{
    struct stat now;
    int fd = shm_open(name, O_RDONLY | O_NOFOLLOW, 0);
    if (fd < 0)
        return;
    int same = fstat(fd, &now) == 0 && now.st_dev == made->st_dev && now.st_ino == made->st_ino;
    close(fd);
    if (same)
        shm_unlink(name);
}

/* Objects of ours that a killed run left: an object lives under its name
 * only while a segment is being made (rank 0 unlinks it once every rank
 * has it), so a name whose creator (the PID in "/collsel.PID.*") no longer
 * exists was left by a job killed in that moment (SIGKILL, or the
 * launcher's kill after another rank died).  Removed by the first segment
 * this process makes (rank 0 only; our user's objects only). */
static void seg_sweep(void)
{
    static int swept;
    if (__atomic_exchange_n(&swept, 1, __ATOMIC_RELAXED))
        return;
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        long pid = 0;
        struct stat st;
        if (sscanf(e->d_name, "collsel.%ld.", &pid) != 1 || pid <= 0 || pid == (long)getpid() ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != geteuid() ||
            !S_ISREG(st.st_mode) || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char name[300];
        snprintf(name, sizeof name, "/%s", e->d_name);
        shm_unlink(name);
    }
    if (d)
        closedir(d);
}

/* The segment as one POSIX shared-memory object: rank 0 creates it (each
 * rank's part page-aligned, so each rank's first touch places its pages)
 * under a new name, never opening one that exists (O_EXCL: an object
 * someone else made, or one a crashed run left, is passed over for the
 * next name; after 4 names, MPI's window), its name goes out in one bcast
 * (empty: rank 0 could not, or did not want to), every rank maps it once
 * it has checked that the object is the one rank 0 made (seg_ours).
 * Returns 1 when this rank mapped it (s->r set), 0 when it did not, -1
 * when no name came (nothing to undo); *name (64 bytes) and *made (rank 0:
 * the object's identity) are for the unlink.  Collective over c->pcomm. */
static int seg_posix(cs_shm *s, const cs_call *c, int want, char *name, struct stat *made)
{
    long pg = sysconf(_SC_PAGESIZE);
    size_t page = pg > 0 ? (size_t)pg : 4096;
    size_t part = (CS_SHM_RANK_BYTES + page - 1) / page * page, bytes = part * (size_t)c->size;
    int fd = -1;
    memset(name, 0, 64);
    if (c->rank == 0 && want) {
        seg_sweep();
        for (int k = 0; k < 4 && fd < 0; k++) {
            seg_name(name);
            fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW, 0600);
        }
        if (fd >= 0 && (fstat(fd, made) != 0 || ftruncate(fd, (off_t)bytes) != 0)) {
            close(fd);
            shm_unlink(name); /* (just made: fstat fails only if the kernel is broken) */
            fd = -1;
        }
        if (fd < 0)
            memset(name, 0, 64);
    }
    if (PMPI_Bcast(name, 64, MPI_CHAR, 0, c->pcomm) != MPI_SUCCESS || !name[0]) {
        if (fd >= 0) { /* the bcast failed here only */
            close(fd);
            seg_unlink(name, made);
        }
        return -1;
    }
    if (c->rank != 0 && want) {
        fd = shm_open(name, O_RDWR | O_NOFOLLOW, 0);
        if (fd >= 0 && !seg_ours(fd, bytes)) { /* replaced since: not ours */
            close(fd);
            fd = -1;
        }
    }
    void *m = fd >= 0 ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (fd >= 0)
        close(fd);
    if (m == MAP_FAILED)
        return 0;
    s->map = m;
    s->map_bytes = bytes;
    for (int i = 0; i < c->size; i++)
        s->r[i] = (cs_shm_rank *)((char *)m + part * (size_t)i);
    return 1;
}

/* The segment from MPI (PMPI_Win_allocate_shared over c->pcomm), where
 * POSIX shared memory failed.  Returns 1 when this rank has it (s->r set).
 * Collective over c->pcomm; a rank with want = 0 asks for 0 bytes. */
static int seg_window(cs_shm *s, const cs_call *c, int want)
{
    void *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    MPI_Info info = MPI_INFO_NULL;
    if (PMPI_Info_create(&info) == MPI_SUCCESS)
        PMPI_Info_set(info, "alloc_shared_noncontig", "true");
    /* one line more than a rank's part: the MPI library may place a part
     * anywhere; it is aligned to a cache line here (the same offset within
     * a page in every process that maps it) */
    int rc = PMPI_Win_allocate_shared(want ? (MPI_Aint)(CS_SHM_RANK_BYTES + CS_SHM_LINE) : 0, 1,
                                      info, c->pcomm, &base, &win);
    if (win != MPI_WIN_NULL) /* errors come back to us, as on the private comm */
        PMPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    s->win = win;
    if (info != MPI_INFO_NULL)
        PMPI_Info_free(&info);
    int ok = want && rc == MPI_SUCCESS;
    for (int i = 0; ok && i < c->size; i++) {
        MPI_Aint sz;
        int du;
        void *p = NULL;
        ok = PMPI_Win_shared_query(s->win, i, &sz, &du, &p) == MPI_SUCCESS && p &&
             sz >= (MPI_Aint)(CS_SHM_RANK_BYTES + CS_SHM_LINE);
        if (ok)
            s->r[i] = (cs_shm_rank *)(((uintptr_t)p + CS_SHM_LINE - 1) &
                                      ~(uintptr_t)(CS_SHM_LINE - 1));
    }
    return ok;
}

/* Zero our flags (the data slots need nothing) and say where the CMA probe
 * is; then agree (allreduce: also the point after which every rank's flags
 * are zero).  Returns the agreement. */
static int seg_agree(cs_shm *s, const cs_call *c, int ok, const uint64_t *probe)
{
    if (ok) {
        cs_shm_rank *me = s->r[c->rank];
        memset(me, 0, offsetof(cs_shm_rank, slot));
        me->cma.addr = (uint64_t)(uintptr_t)probe;
        me->cma.pid = (int64_t)getpid();
        int w = -1;
        PMPI_Comm_rank(MPI_COMM_WORLD, &w);
        me->cma.world = w;
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof set, &set) == 0)
            for (int i = 0; i < CPU_SETSIZE && i < 64 * 16; i++)
                if (CPU_ISSET(i, &set))
                    me->cpus[i / 64] |= (uint64_t)1 << (i % 64);
    }
    int all = 0;
    if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->pcomm) != MPI_SUCCESS)
        all = 0;
    return all;
}

/* What the stuck-wait report calls the communicator: its name, else its
 * handle (a debugger finds it by that). */
static void comm_name(const cs_call *c, char *out, size_t n)
{
    char name[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    if (c->comm != MPI_COMM_NULL)
        PMPI_Comm_get_name(c->comm, name, &len);
    if (len > 0 && name[0])
        snprintf(out, n, "%s", name);
    else
        snprintf(out, n, "communicator %#llx (unnamed)",
                 (unsigned long long)(uintptr_t)c->comm);
}

/* Make the segment (collective over pcomm); NULL on failure, the same on
 * every rank. */
static cs_shm *shm_make(const cs_call *c)
{
    cs_shm *s = calloc(1, sizeof *s);
    int ok = s != NULL;
    if (s) {
        s->win = MPI_WIN_NULL;
        s->p = c->size;
        s->rank = c->rank;
        s->spin = cs_shm_spin_for(c->size, 0);
        comm_name(c, s->comm, sizeof s->comm);
        s->r = calloc((size_t)c->size, sizeof *s->r);
        s->seen = calloc((size_t)c->size, sizeof *s->seen);
        ok = s->r != NULL && s->seen != NULL;
    }
    if (ok)
        ok = s->counted = cs_shm_reserve(CS_SHM_RANK_BYTES);
    static uint64_t probe = CS_SHM_PROBE; /* what a peer reads to test CMA */
    cs_shm dummy = {.win = MPI_WIN_NULL};        /* a rank without memory takes part too */
    cs_shm *t = s ? s : &dummy;
    char name[64];
    struct stat made;
    int mapped = seg_posix(t, c, ok, name, &made), all = 0;
    if (mapped >= 0) {
        all = seg_agree(t, c, mapped, &probe);
        if (c->rank == 0) /* every rank has mapped it, or given up */
            seg_unlink(name, &made);
        if (!all && t->map) {
            munmap(t->map, t->map_bytes);
            t->map = NULL;
        }
    }
    if (mapped < 0) /* rank 0 made no object (every rank knows it): MPI's window */
        all = seg_agree(t, c, seg_window(t, c, ok), &probe);
    if (!s && dummy.win != MPI_WIN_NULL)
        PMPI_Win_free(&dummy.win);
    if (!all) {
        cs_shm_free(s);
        return NULL;
    }
    /* single copy between processes: can this rank read its neighbour's
     * memory (same user, ptrace policy, no seccomp filter; alone: nothing to
     * read, yes)?  All must; the
     * verdicts meet in the segment (no MPI call). */
    int cma = c->size == 1 || cs_shm_peek(s, (c->rank + 1) % c->size, &probe, &(uint64_t){0});
    cs_shm_set(&s->r[c->rank]->can_read, 1 + (uint64_t)cma);
    s->cma = 1;
    uint64_t cpus[16] = {0};
    for (int i = 0; i < c->size; i++) {
        cs_shm_wait(s, &s->r[i]->can_read, 1);
        s->cma &= __atomic_load_n(&s->r[i]->can_read.v, __ATOMIC_ACQUIRE) == 2;
        for (int k = 0; k < 16; k++) /* (written before can_read) */
            cpus[k] |= s->r[i]->cpus[k];
    }
    /* the spin rule, now that the processors the ranks may use are known */
    int ncpus = 0;
    for (int k = 0; k < 16; k++)
        ncpus += __builtin_popcountll(cpus[k]);
    s->spin = cs_shm_spin_for(c->size, ncpus);
    return s;
}

static unsigned long made_count;
static int64_t made_ns;

unsigned long cs_shm_segments_made(double *seconds)
{
    if (seconds)
        *seconds = 1e-9 * (double)__atomic_load_n(&made_ns, __ATOMIC_RELAXED);
    return __atomic_load_n(&made_count, __ATOMIC_RELAXED);
}

cs_shm *cs_shm_get(const cs_call *c)
{
    cs_comm_state *st = c->st;
    if (st->shm) {
        ((cs_shm *)st->shm)->calls++;
        return st->shm;
    }
    if (st->shm_failed)
        return NULL;
    /* the ranks meet first, so that the making's time (exploring charges it
     * to the segment) holds no wait for a late rank: that wait is the
     * call's, whatever its method (collective: every rank is here) */
    PMPI_Barrier(c->pcomm);
    const int64_t t0 = cs_shm_now_ns();
    st->shm = shm_make(c);
    if (st->shm) {
        ((cs_shm *)st->shm)->calls = 1;
        __atomic_fetch_add(&made_ns, cs_shm_now_ns() - t0, __ATOMIC_RELAXED);
        __atomic_fetch_add(&made_count, 1, __ATOMIC_RELAXED);
    }
    if (!st->shm) {
        st->shm_failed = 1;
        if (cs_coll_warn && c->rank == 0)
            cs_coll_warn("communicator of %d ranks: no shared-memory segment (%zu bytes per "
                         "rank: out of memory, or over COLLSEL_SHM_LIMIT=%zu MiB on some "
                         "rank); the MPI library's collective runs instead of its "
                         "shared-memory methods", c->size, (size_t)CS_SHM_RANK_BYTES,
                         cs_shm_limit() >> 20);
    }
    return st->shm;
}
