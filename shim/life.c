/* The recording run's life cycle: set-up at MPI_Init (configuration, a
 * private duplicate of MPI_COMM_WORLD, metadata), the one merge at
 * MPI_Finalize, and the partial files of runs that never get there.
 *
 * Merge: every rank builds its profile from its thread tables; a binomial
 * tree reduction (PMPI_Send/PMPI_Recv of serialised profiles on the private
 * communicator, ceil(log2 P) rounds, each rank sends exactly once) brings
 * them to rank 0, which writes COLLSEL_RECORD (cs_profile_write: atomic,
 * checksummed, compressed).
 *
 * Incomplete runs: exit() without MPI_Finalize (atexit), MPI_Abort (its
 * wrapper) and SIGTERM/SIGINT (a handler that writes, then re-raises with
 * the default action) make each rank write what it has to
 * COLLSEL_RECORD.partial.RANK with complete = 0 (temporary file + rename,
 * no fsync: the launcher follows SIGTERM with SIGKILL within a second or
 * so).  These paths make no MPI call; the signal path is best-effort (it
 * allocates), so it arms alarm() first: a write that cannot finish never
 * hangs the process.  A signal the application handles itself only writes
 * a snapshot and hands over to the application's handler: recording and
 * the final merge go on as if nothing had happened.
 *
 * Runs that end without any of these (SIGKILL, the out-of-memory killer, a
 * hang ended by the batch system): every COLLSEL_RECORD_INTERVAL seconds a
 * helper thread (snap.c) writes the rank's data so far to the same partial
 * file, without MPI and without stopping the recording threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "coll/coll.h"
#include "coll/shm/shm.h"
#include "rec.h"

#define CS_MAX_SITES 64 /* call sites kept per run */
#define CS_TAG_MERGE 7301

static MPI_Comm pcomm = MPI_COMM_NULL;
static cs_meta meta;          /* this rank's metadata (strings owned here) */
static uint64_t tick0;
static double wall0;
static int done;              /* profile written (final or partial): claim with atomics */
static int snap_renaming;     /* a periodic snapshot is being renamed into place */
static struct sigaction old_act[2];
static const int sigs[2] = {SIGTERM, SIGINT};

static double sec_per_tick(void)
{
#if defined(__x86_64__) || defined(__i386__)
    double dt = cs_now() - wall0;
    while (dt < 0.01) /* short runs: calibrate the TSC over at least 10 ms */
        dt = cs_now() - wall0;
    uint64_t dk = cs_ticks() - tick0;
    return dk ? dt / (double)dk : 0;
#else
    return 1e-9;
#endif
}

static char *dupstr(const char *s) { return strdup(s ? s : ""); }

static void meta_copy(cs_meta *m)
{
    *m = meta;
    m->mpi_library = dupstr(meta.mpi_library);
    m->cmdline = dupstr(meta.cmdline);
    m->hostname0 = dupstr(meta.hostname0);
    m->selection = dupstr(meta.selection);
    m->duration = cs_now() - wall0;
}

/* This rank's profile (nranks 1). */
static int build_local(cs_profile *p, int complete)
{
    cs_profile_init(p);
    int rc = cs_rec_build(p, sec_per_tick());
    if (cs_arr_build(p, 0) < 0 || cs_explore_build(p) < 0)
        rc = -1;
    meta_copy(&p->meta);
    p->nranks = 1;
    p->complete = (uint32_t)complete;
    return rc;
}

/* A profile file's bound (COLLSEL_RECORD_MAX_KIB): fold p until it fits. */
static void bound(cs_profile *p)
{
    cs_err e;
    uint32_t fold = p->fold;
    if (cs_profile_bound(p, (size_t)cs_cfg.record_max_kib << 10, &e) < 0)
        cs_log(0, 0, "rank %d: %s", cs_world_rank, e.msg);
    else if (p->fold > fold)
        cs_log(1, 0, "rank %d: profile folded to level %u (%s) to fit in %d KiB", cs_world_rank,
               p->fold, cs_fold_describe(p->fold), cs_cfg.record_max_kib);
}

static void read_cmdline(char *buf, size_t len)
{
    buf[0] = 0;
    int fd = open("/proc/self/cmdline", O_RDONLY);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0)
        return;
    while (n > 0 && buf[n - 1] == 0)
        n--;
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == 0)
            buf[i] = ' ';
    buf[n] = 0;
}

void cs_run_layout(MPI_Comm comm, int *nodes, int *ranks_per_node)
{
    int lr = 0, ls = 1;
    MPI_Comm node;
    if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        PMPI_Comm_rank(node, &lr);
        PMPI_Comm_size(node, &ls);
        PMPI_Comm_free(&node);
    }
    if (cs_cfg.node_size > 0 && cs_cfg.node_size < ls) /* virtual nodes (COLLSEL_NODE_SIZE) */
        ls = cs_cfg.node_size;
    int leader = lr % ls == 0;
    *nodes = *ranks_per_node = 0;
    PMPI_Allreduce(&leader, nodes, 1, MPI_INT, MPI_SUM, comm);
    PMPI_Allreduce(&ls, ranks_per_node, 1, MPI_INT, MPI_MAX, comm);
}

static void fill_meta(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int len = 0, ws = 0;
    PMPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = 0;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    char cmd[4096];
    read_cmdline(cmd, sizeof cmd);
    PMPI_Comm_size(MPI_COMM_WORLD, &ws);

    int nnodes = 0, per_node = 0;
    cs_run_layout(pcomm, &nnodes, &per_node);

    meta.mpi_library = dupstr(lib);
    meta.cmdline = dupstr(cmd);
    meta.hostname0 = dupstr(host);
    meta.world_size = (uint32_t)ws;
    meta.nnodes = (uint32_t)nnodes;
    meta.ranks_per_node = (uint32_t)per_node;
    meta.start_time = (int64_t)time(NULL);
}

/* Write p to path (a new temporary file + rename, cs_file_replace)
 * without fsync: an incomplete run is being killed (mpirun sends SIGKILL
 * soon after SIGTERM), and on a busy machine fsync can take longer than
 * that. */
static int write_fast(const cs_profile *p, const char *path, cs_err *e)
{
    cs_buf b = {0};
    int rc = -1;
    if (cs_profile_encode(p, &b, e) < 0)
        goto out;
    if (cs_file_replace(path, b.p, b.n, CS_FILE_NOSYNC) < 0) {
        cs_fail(e, "%s: %s", path, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    cs_buf_free(&b);
    return rc;
}

/* Write this rank's profile so far to COLLSEL_RECORD.partial.RANK.  final:
 * the run is ending here (exit, MPI_Abort, a fatal signal): recording
 * stops and the merge at MPI_Finalize will not happen.  Otherwise a
 * snapshot (a signal the application handles itself and may survive):
 * recording goes on, and a later MPI_Finalize still merges everything (rank
 * 0 then removes the snapshots, see remove_partials). */
static pid_t owner; /* the MPI process (a child it forks is not a rank) */

static void write_partial(int final)
{
    /* A child forked after MPI_Init (a helper process, Python's
     * multiprocessing, ...) inherits the atexit hook and the signal
     * handlers; its exit must not leave partial files for the rank. */
    if (getpid() != owner)
        return;
    if (final) {
        if (__atomic_exchange_n(&done, 1, __ATOMIC_SEQ_CST))
            return;
        cs_rec_on = 0;
        /* a periodic snapshot being renamed into place must not land over
         * what we are about to write */
        for (int i = 0; i < 500 && __atomic_load_n(&snap_renaming, __ATOMIC_SEQ_CST); i++)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    } else if (__atomic_load_n(&done, __ATOMIC_SEQ_CST)) {
        return;
    }
    cs_profile p;
    cs_err e;
    char path[4096];
    double t0 = cs_now();
    build_local(&p, 0);
    bound(&p);
    if (cs_profile_partial_path(path, sizeof path, cs_cfg.record, cs_world_rank) < 0)
        cs_log(0, 0, "rank %d: cannot write the partial profile: path %s too long",
               cs_world_rank, cs_cfg.record);
    else if (write_fast(&p, path, &e) < 0)
        cs_log(0, 0, "rank %d: cannot write the partial profile: %s", cs_world_rank, e.msg);
    else if (final)
        cs_log(1, 0, "rank %d: run incomplete, partial profile in %s (%.1f ms)", cs_world_rank,
               path, 1e3 * (cs_now() - t0));
    else
        cs_log(1, 0, "rank %d: signal handled by the application, profile so far in %s",
               cs_world_rank, path);
    cs_profile_free(&p);
}

static void on_exit_hook(void) { write_partial(1); }

/* The periodic snapshot (snap.c's thread, every COLLSEL_RECORD_INTERVAL):
 * this rank's data so far, collected without stopping the recording
 * threads, to COLLSEL_RECORD.partial.RANK (a new temporary file, fsync,
 * rename: a reader sees the previous snapshot or this one, whole).  Once
 * the run ends (done: the final merge or a final partial file) it writes
 * nothing, and snap_renaming keeps its rename from landing after a final
 * partial file. */
static void snapshot(void)
{
    char path[4096], tmp[4200];
    cs_profile p;
    cs_buf b = {0};
    cs_err e;
    if (__atomic_load_n(&done, __ATOMIC_SEQ_CST) ||
        cs_profile_partial_path(path, sizeof path, cs_cfg.record, cs_world_rank) < 0)
        return;
    double t0 = cs_now();
    cs_profile_init(&p);
    int rc = cs_snap_collect(&p, sec_per_tick());
    if (cs_arr_build(&p, 1) < 0 || cs_explore_build(&p) < 0)
        rc = -1;
    meta_copy(&p.meta);
    p.nranks = 1;
    bound(&p);
    if (rc < 0 || cs_profile_encode(&p, &b, &e) < 0) {
        cs_log(1, 0, "rank %d: snapshot skipped (out of memory)", cs_world_rank);
        goto out;
    }
    int fd = cs_tmp_create(path, tmp, sizeof tmp);
    if (fd < 0 || cs_write_all(fd, b.p, b.n) < 0 || fsync(fd) < 0) {
        cs_log(1, 0, "rank %d: snapshot not written: %s: %s", cs_world_rank, fd < 0 ? path : tmp,
               strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        goto out;
    }
    close(fd);
    __atomic_store_n(&snap_renaming, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&done, __ATOMIC_SEQ_CST) || rename(tmp, path) != 0)
        unlink(tmp);
    __atomic_store_n(&snap_renaming, 0, __ATOMIC_SEQ_CST);
    cs_log(3, 0, "rank %d: snapshot in %s (%.1f ms)", cs_world_rank, path,
           1e3 * (cs_now() - t0));
out:
    cs_buf_free(&b);
    cs_profile_free(&p);
}

/* A rank that the launcher's daemon (its parent) ends with SIGTERM stays
 * alive a little after writing its partial file.  Open MPI 5's daemon
 * (PRRTE's odls) sends SIGCONT, sleeps 250 ms, SIGTERM, sleeps 250 ms, then
 * SIGKILL to every rank of the node; each sleep ends early on a SIGCHLD.
 * The first rank to die at once would cut the second sleep, and a rank the
 * scheduler had not yet run (an oversubscribed core) was killed before its
 * handler wrote anything: 1 rank of 3 lost in 2 runs of 14 here.
 * Waiting up to LINGER_S lets every rank of the node write first; the
 * SIGKILL that follows ends the wait.  Open MPI 4's daemon waits 1 s
 * (odls_base_sigkill_timeout) after SIGTERM.  Async-signal-safe. */
#define LINGER_S 0.5
static void linger(void)
{
    struct timespec ts = {0, (long)(LINGER_S * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* SIGTERM/SIGINT.  Where the application has no handler of its own the
 * process is about to die: write the partial profile (under alarm(), so a
 * write that cannot finish never keeps it alive) and re-raise with the
 * default action.  Where it has one, it may well survive (a "stop
 * cleanly" flag): write a snapshot, put SIGALRM and any pending alarm of
 * the application back as they were, and call its handler as the kernel
 * would have (sa_sigaction with the same siginfo, or sa_handler). */
static void on_signal(int sig, siginfo_t *info, void *uctx)
{
    int saved_errno = errno;
    struct sigaction *old = NULL;
    for (int i = 0; i < 2; i++)
        if (sigs[i] == sig)
            old = &old_act[i];
    int app = old && ((old->sa_flags & SA_SIGINFO) ? old->sa_sigaction != NULL
                                                   : old->sa_handler != SIG_DFL &&
                                                         old->sa_handler != SIG_IGN);
    struct sigaction dfl, alrm_old;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGALRM, &dfl, &alrm_old);
    unsigned left = alarm(3);
    write_partial(!app);
    if (!app) {
        if (sig == SIGTERM && info && info->si_code == SI_USER && info->si_pid == getppid())
            linger();
        sigaction(sig, &dfl, NULL);
        raise(sig); /* delivered with the default action when we return */
        return;
    }
    alarm(0);
    sigaction(SIGALRM, &alrm_old, NULL);
    if (left)
        alarm(left);
    if (old->sa_flags & SA_RESETHAND) /* one-shot handler: the next one is fatal */
        sigaction(sig, &dfl, NULL);
    errno = saved_errno;
    if (old->sa_flags & SA_SIGINFO)
        old->sa_sigaction(sig, info, uctx);
    else
        old->sa_handler(sig);
}

/* Probe the directory by creating (and removing) a file: as root, access()
 * says yes even where a write will fail (read-only file system).  The
 * probe is a temporary file of cs_tmp_create (a new random name, never
 * through a link: a file planted under a predictable name could turn
 * recording off).  In a directory with the sticky bit (/tmp), a profile
 * that belongs to another user cannot be replaced at the end: refused now,
 * not after the run. */
static int check_dir(const char *path, cs_err *e)
{
    struct stat st, dst;
    if (cs_check_writable_dir(path, e) < 0)
        return -1;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) /* rename() could not replace it */
        return cs_fail(e, "%s: exists and is not a regular file (%s)", path,
                       S_ISDIR(st.st_mode) ? "a directory" : "a special file");
    char probe[4200], dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir] = 0;
    else
        snprintf(dir, sizeof dir, ".");
    if (lstat(path, &st) == 0 && st.st_uid != geteuid() && geteuid() != 0 &&
        stat(dir, &dst) == 0 && (dst.st_mode & S_ISVTX))
        return cs_fail(e, "%s: belongs to another user (uid %ld) in a directory with the sticky "
                       "bit: it could not be replaced", path, (long)st.st_uid);
    int fd = cs_tmp_create(path, probe, sizeof probe);
    if (fd < 0)
        return cs_fail(e, "%s: cannot create files there: %s", path, strerror(errno));
    close(fd);
    unlink(probe);
    return 0;
}

/* Record or not: every rank or none (the merge at MPI_Finalize is
 * collective).  One PMPI_Allreduce on MPI_COMM_WORLD, made by every rank
 * whatever its environment (we are inside MPI_Init: no message of the
 * application can be in flight), so that COLLSEL_RECORD set on some ranks
 * only, or a directory some rank cannot write, turns recording off
 * everywhere with one line, instead of a hang at the merge. */
/* A job started by MPI_Comm_spawn inherits COLLSEL_RECORD: it would write
 * the same file as its parent job, and the last writer would win.  It
 * records into FILE.spawn.PID instead (PID: its world rank 0's process id,
 * the same on all of its ranks), next to the parent's profile. */
static void spawned_job_path(void)
{
    static char path[4200];
    MPI_Comm parent = MPI_COMM_NULL;
    if (!cs_cfg.record || PMPI_Comm_get_parent(&parent) != MPI_SUCCESS ||
        parent == MPI_COMM_NULL)
        return;
    long id = (long)getpid();
    PMPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (snprintf(path, sizeof path, "%s.spawn.%ld", cs_cfg.record, id) >= (int)sizeof path)
        return; /* too long: the check of the directory will say so */
    cs_log(1, 1, "spawned job: its profile goes to %s", path);
    cs_cfg.record = path;
}

static int record_agree(void)
{
    cs_err e;
    int size = 0, want = cs_cfg.record != NULL;
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    int bad = want && check_dir(cs_cfg.record, &e) < 0;
    int in[3] = {want, -want, bad ? cs_world_rank : size}, out[3] = {0, 0, size};
    PMPI_Allreduce(in, out, 3, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (out[0] == 0 && out[1] == -1) {
        cs_log(0, 1, "COLLSEL_RECORD is set on some ranks only; recording is off");
        return 0;
    }
    if (!want)
        return 0;
    if (out[2] < size) { /* the lowest rank that cannot write says why */
        if (out[2] == cs_world_rank)
            cs_log(0, 0, "COLLSEL_RECORD=%s; recording is off", e.msg);
        return 0;
    }
    return 1;
}

/* Files next to COLLSEL_RECORD (FILE + suffix, a glob), removed by world
 * rank 0.  Partial files: at MPI_Init those of an earlier run that did not
 * finish (`collsel show`
 * would merge them into this run's profile; the other ranks wait for rank
 * 0 in the PMPI_Comm_dup that follows, so a partial file can only come from
 * this run), and once the final profile is written the snapshots this run
 * wrote on signals it survived (their calls are in the profile).  Spawned
 * jobs' profiles (FILE.spawn.PID) of an earlier run, at MPI_Init. */
static void remove_next_to(const char *suffix, const char *why)
{
    char pattern[4200];
    if (cs_world_rank != 0 ||
        snprintf(pattern, sizeof pattern, "%s%s", cs_cfg.record, suffix) >= (int)sizeof pattern)
        return;
    glob_t g;
    if (glob(pattern, GLOB_NOSORT | GLOB_NOESCAPE, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc; i++)
        if (unlink(g.gl_pathv[i]) == 0)
            cs_log(1, 1, "removed %s, %s", g.gl_pathv[i], why);
    globfree(&g);
}

static void record_init(void)
{
    spawned_job_path();
    if (!record_agree())
        return;
    remove_next_to(".partial.*", "left by an earlier incomplete run");
    /* this run's FILE replaces the earlier one: so do its spawned jobs' */
    remove_next_to(".spawn.*", "a spawned job's profile of an earlier run");
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &pcomm) != MPI_SUCCESS) {
        cs_log(0, 1, "cannot duplicate MPI_COMM_WORLD; recording is off");
        pcomm = MPI_COMM_NULL;
        return;
    }
    fill_meta();
    cs_arr_init(pcomm);
    tick0 = cs_ticks();
    wall0 = cs_now();
    owner = getpid();
    atexit(on_exit_hook);
    for (int i = 0; i < 2; i++) {
        sigaction(sigs[i], NULL, &old_act[i]);
        if (!(old_act[i].sa_flags & SA_SIGINFO) && old_act[i].sa_handler == SIG_IGN)
            continue; /* ignored stays ignored */
        /* the application's mask and flags (SA_RESTART, SA_ONSTACK, ...), so
         * that its handler runs as it asked for */
        struct sigaction sa = old_act[i];
        sa.sa_sigaction = on_signal;
        sa.sa_flags = (old_act[i].sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
        sigaction(sigs[i], &sa, NULL);
    }
    cs_rec_on = 1;
    if (cs_snap_start(cs_cfg.record_interval, snapshot) < 0)
        cs_log(0, 1, "cannot start the snapshot thread; COLLSEL_RECORD_INTERVAL ignored");
    cs_log(1, 1, "recording into %s (%u ranks on %u node(s)), snapshots every %g s",
           cs_cfg.record, meta.world_size, meta.nnodes, cs_cfg.record_interval);
}

static void record_finalize(void);

/* The end of the run: the merge, then dispatch is switched off. */
static void finalize_work(void)
{
    record_finalize();
    cs_dispatch_finalize();
    cs_hook_on = 0;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI is still
 * fully usable, in the reverse order of their setting (MPI-2.2 and later;
 * Open MPI and MPICH do).  Ours is set inside MPI_Init, before the
 * application can set any: its delete callback runs after every callback
 * of the application, whose collectives (libraries clean up there) are
 * therefore still recorded and dispatched.  Where it cannot be set, the
 * MPI_Finalize wrapper does the work before PMPI_Finalize instead. */
static int self_key = MPI_KEYVAL_INVALID;
static int self_hooked;

static int self_delete(MPI_Comm comm, int key, void *attr, void *extra)
{
    (void)comm, (void)key, (void)attr, (void)extra;
    finalize_work();
    return MPI_SUCCESS;
}

static void hook_self(void)
{
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &self_key, NULL) !=
        MPI_SUCCESS)
        return;
    self_hooked = PMPI_Comm_set_attr(MPI_COMM_SELF, self_key, NULL) == MPI_SUCCESS;
}

/* The algorithms' set-up warnings (coll.h): one line at COLLSEL_VERBOSE >= 1. */
static void coll_warn(const char *fmt, ...)
{
    if (cs_cfg.verbose < 1)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    cs_log(1, 0, "%s", line);
}

int cs_life_init(int provided)
{
    static int started; /* once, whichever entry point (C or Fortran) saw MPI start */
    (void)provided;
    if (started++ || cs_foreign_mpi) /* another MPI's process: collsel stays off */
        return 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &cs_world_rank);
    cs_config_load();
    cs_shm_set_node_size(cs_cfg.node_size);
    cs_shm_set_limit((size_t)cs_cfg.shm_limit_mib << 20);
    cs_shm_set_stuck(cs_cfg.shm_stuck);
    cs_shm_set_prepare(cs_cfg.shm_prepare);
    cs_coll_warn = coll_warn;
    record_init();
    cs_dispatch_init();
    int selecting = 0;
    for (int c = 0; c < CS_NCOLL; c++)
        selecting |= cs_sel_active[c];
    if (selecting) { /* the profile says what chose the methods */
        char sel[4096];
        snprintf(sel, sizeof sel, "%s %s", cs_cfg.force ? "force" : "tree",
                 cs_cfg.force ? cs_cfg.force : cs_cfg.tree ? cs_cfg.tree : "");
        meta.selection = strdup(sel);
    }
    cs_hook_on = cs_rec_on || selecting;
    if (selecting)
        cs_comm_states_init(); /* its MPI_COMM_SELF attribute first: deleted last */
    if (cs_hook_on)
        hook_self();
    return 0;
}

/* Receive child src's profile and merge it into p. */
static void merge_from(cs_profile *p, int src)
{
    MPI_Status st;
    int n = 0;
    PMPI_Probe(src, CS_TAG_MERGE, pcomm, &st);
    PMPI_Get_count(&st, MPI_BYTE, &n);
    void *data = malloc(n > 0 ? (size_t)n : 1);
    PMPI_Recv(data, data ? n : 0, MPI_BYTE, src, CS_TAG_MERGE, pcomm, MPI_STATUS_IGNORE);
    cs_profile q;
    cs_err e;
    cs_profile_init(&q);
    if (!data || n == 0)
        cs_log(0, 0, "rank %d: the profile of rank %d's subtree is missing (out of memory)",
               cs_world_rank, src);
    else if (cs_profile_deserialize(&q, data, (size_t)n, &e) < 0)
        cs_log(0, 0, "rank %d: bad profile from rank %d: %s", cs_world_rank, src, e.msg);
    else if (cs_profile_merge(p, &q) < 0)
        cs_log(0, 0, "rank %d: merging rank %d's profile failed (out of memory)", cs_world_rank,
               src);
    cs_profile_free(&q);
    free(data);
}

static void record_finalize(void)
{
    if (!cs_rec_on)
        return;
    cs_snap_stop();
    if (__atomic_exchange_n(&done, 1, __ATOMIC_SEQ_CST))
        return;
    cs_rec_on = 0;
    cs_arr_finalize(pcomm);
    cs_profile p;
    build_local(&p, 1);
    uint64_t calls = 0;
    for (size_t i = 0; i < p.ncells; i++)
        calls += p.cells[i].rank_calls;
    cs_log(3, 0, "rank %d: %llu calls in %zu cells, %zu call sites", cs_world_rank,
           (unsigned long long)calls, p.ncells, p.nsites);
    cs_profile_trim_sites(&p, CS_MAX_SITES);

    double t0 = cs_now();
    int rank = 0, size = 1;
    PMPI_Comm_rank(pcomm, &rank);
    PMPI_Comm_size(pcomm, &size);
    for (int mask = 1; mask < size; mask <<= 1) {
        if (rank & mask) {
            cs_buf b = {0};
            cs_profile_serialize(&p, &b);
            int n = b.oom || b.n > (size_t)INT32_MAX ? 0 : (int)b.n;
            /* synchronous: the send may not stay buffered in this rank
             * while it goes on into MPI_Finalize (MPICH over UCX/TCP on
             * tools/cluster.sh's nodes: the parent's probe waited for ever
             * while this rank sat in the launcher's final barrier) */
            PMPI_Ssend(b.p, n, MPI_BYTE, rank - mask, CS_TAG_MERGE, pcomm);
            cs_buf_free(&b);
            break;
        }
        if (rank + mask < size)
            merge_from(&p, rank + mask);
    }
    if (rank == 0) {
        cs_err e;
        p.complete = p.nranks == (uint32_t)size;
        if (cs_arr_finish(&p.arr) < 0) /* every rank is in: what did not match never will */
            cs_log(0, 0, "rank 0: out of memory matching the arrivals; some are left out");
        cs_profile_trim_sites(&p, CS_MAX_SITES);
        cs_profile_sort(&p);
        size_t merged_cells = p.ncells;
        double t1 = cs_now();
        bound(&p);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        cs_log(1, 1, "merge of %d ranks: %zu cells, %.1f ms; bound: %zu cells, %.1f ms; peak "
               "memory of rank 0 %.1f MiB", size, merged_cells, 1e3 * (t1 - t0), p.ncells,
               1e3 * (cs_now() - t1), (double)ru.ru_maxrss / 1024);
        if (cs_profile_write(&p, cs_cfg.record, &e) < 0) {
            cs_log(0, 0, "cannot write the profile: %s", e.msg);
        } else {
            calls = 0;
            for (size_t i = 0; i < p.ncells; i++)
                calls += p.cells[i].rank_calls;
            cs_log(1, 1, "wrote %s: %llu calls (summed over %u ranks) in %zu cells, %zu sites",
                   cs_cfg.record, (unsigned long long)calls, p.nranks, p.ncells, p.nsites);
            if (p.complete)
                remove_next_to(".partial.*", "a snapshot of this run (its calls are in the profile)");
        }
    }
    cs_profile_free(&p);
    PMPI_Comm_free(&pcomm);
}

int cs_life_finalize(void)
{
    if (!self_hooked) /* else in PMPI_Finalize: self_delete */
        finalize_work();
    return 0;
}

void cs_life_abort(void)
{
    if (cs_rec_on)
        write_partial(1);
}
