/* Selection: COLLSEL_FORCE and COLLSEL_TREE, and the
 * per-call choice of a method for MPI_Bcast / MPI_Reduce / MPI_Barrier /
 * MPI_Allreduce / MPI_Alltoall.
 *
 * At MPI_Init (cs_dispatch_init): COLLSEL_FORCE ("bcast=NAME,reduce=NAME,
 * barrier=NAME,allreduce=NAME,alltoall=NAME", any subset; NAME with or without the "bcast." prefix) is
 * parsed against the registry (force.c); COLLSEL_TREE is read and its method names are
 * mapped to registry indices once.  A bad entry gets one line from world
 * rank 0 and leaves that collective (a bad tree file: every collective the
 * tree would have driven) native.
 *
 * Per call: the decision depends only on values identical on every rank of
 * the call (communicator size, total bytes, root, count, op commutativity),
 * so every rank runs the same method.  FORCE first; else the tree's ranked
 * candidates, the first that is known and applies; else native.  A method
 * that does not apply never runs: native does.  Intercommunicators,
 * MPI_COMM_NULL and arguments MPI would reject (bad root, negative count,
 * bad datatype or op) go to the native call, which reports them the MPI
 * way.  Errors of our methods go through the communicator's error handler,
 * as MPI's own errors would.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "select/pick.h"
#include "shim.h"

int cs_sel_active[CS_NCOLL];

static struct {
    int node;   /* 1: a method it may run needs the node split (attach first) */
    int force;  /* registry index forced by COLLSEL_FORCE, or -1 */
    int *map;   /* tree-local method id -> registry index (-1: unknown) */
    int nmap;   /* 0: the tree does not drive this collective */
} sel[CS_NCOLL];
static cs_tree *tree;

/* Does every leaf of collective coll's tree answer native (the first of
 * its methods this build has is COLL.native, registry index 0)?  Then
 * dispatch could only ever run native. */
static int all_native(int coll, const int *map)
{
    cs_leaf *lv = NULL;
    size_t nl = 0;
    if (cs_tree_leaves(tree, coll, &lv, &nl) < 0)
        return 0;
    int native = 1;
    for (size_t i = 0; i < nl && native; i++) {
        int first = -1;
        for (int k = 0; k < lv[i].n && first < 0; k++)
            first = map[lv[i].ids[k]];
        native = first <= 0; /* native, or nothing known: native too */
    }
    free(lv);
    return native;
}

/* Map collective coll's tree method names to registry indices. */
static void map_tree(int coll)
{
    const char *cn = cs_coll_name(coll);
    int n, *map = cs_pick_map(tree, coll, &n);
    if (!map) {
        cs_log(0, 1, "COLLSEL_TREE=%s: out of memory; %s stays native", cs_cfg.tree, cn);
        return;
    }
    if (n <= 0) {
        free(map);
        return;
    }
    int known = 0;
    cs_buf unknown = {0};
    for (int i = 0; i < n; i++) {
        const char *name = cs_tree_method_name(tree, coll, i);
        if (map[i] >= 0)
            known++;
        else
            cs_buf_printf(&unknown, " %s", name ? name : "(none)");
    }
    cs_buf_u8(&unknown, 0);
    const char *list = unknown.p && !unknown.oom ? (const char *)unknown.p : "";
    if (known == 0) {
        cs_log(0, 1, "COLLSEL_TREE=%s: none of the %s methods of the tree exists in this "
                     "build (%.300s); %s stays native", cs_cfg.tree, cn, list, cn);
        free(map);
    } else if (all_native(coll, map) && cs_cfg.explore == 0) {
        /* the MPI library's own choice everywhere: leave the collective
         * alone (no per-call cost at all) */
        cs_log(1, 1, "COLLSEL_TREE=%s: the tree keeps native %s everywhere; %s is not "
                     "intercepted", cs_cfg.tree, cn, cn);
        free(map);
    } else {
        if (known < n)
            cs_log(1, 1, "COLLSEL_TREE=%s: %s methods not in this build, treated as "
                         "unavailable:%.400s", cs_cfg.tree, cn, list);
        sel[coll].map = map;
        sel[coll].nmap = n;
    }
    cs_buf_free(&unknown);
}

/* Every rank must select alike, or our methods would meet native calls
 * and hang: compare a signature of each collective's selection (forced
 * method, or CRC of the tree file) over MPI_COMM_WORLD; where the ranks
 * differ (environment or tree files differing between nodes), that
 * collective stays native everywhere. */
static void agree(void)
{
    uint32_t tree_crc = 0, sig[2 * CS_NCOLL], all[2 * CS_NCOLL];
    void *data;
    size_t n;
    cs_err e;
    if (tree && cs_read_file(cs_cfg.tree, &data, &n, &e) == 0) {
        tree_crc = cs_crc32(0, data, n) | 1;
        free(data);
    }
    for (int c = 0; c < CS_NCOLL; c++) {
        uint32_t v = 0;
        if (sel[c].force >= 0)
            v = 0x80000000u | (uint32_t)sel[c].force;
        else if (cs_sel_active[c])
            v = tree_crc ^ (uint32_t)c ^ ((uint32_t)cs_cfg.explore << 20) ^
                (cs_cfg.explore ? (uint32_t)cs_cfg.explore_seed * 0x9E3779B1u : 0);
        sig[c] = v;                 /* max of v */
        sig[CS_NCOLL + c] = ~v;     /* max of ~v = ~(min of v) */
    }
    if (PMPI_Allreduce(sig, all, 2 * CS_NCOLL, MPI_UINT32_T, MPI_MAX, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        memcpy(all, sig, sizeof all);
    for (int c = 0; c < CS_NCOLL; c++) {
        if (all[c] == ~all[CS_NCOLL + c])
            continue;
        cs_sel_active[c] = 0;
        cs_log(0, 1, "COLLSEL_FORCE/COLLSEL_TREE: the ranks disagree about %s (different "
                     "values, tree files or COLLSEL_EXPLORE / COLLSEL_EXPLORE_SEED); %s stays "
                     "native", cs_coll_name(c), cs_coll_name(c));
    }
}

int cs_dispatch_init(void)
{
    int force[CS_NCOLL];
    cs_force_parse(cs_cfg.force, force);
    for (int c = 0; c < CS_NCOLL; c++)
        sel[c].force = force[c];
    if (cs_cfg.tree) {
        cs_err e = {{0}};
        if (cs_tree_read(&tree, cs_cfg.tree, &e) < 0) {
            cs_log(0, 1, "COLLSEL_TREE=%s: %s; the tree is not used (collectives stay native "
                         "unless forced%s)", cs_cfg.tree, e.msg,
                   cs_cfg.explore ? "; nothing to explore" : "");
            tree = NULL;
        }
    }
    for (int c = 0; tree && c < CS_NCOLL; c++)
        map_tree(c);
    /* a tree is used on the layout it was tuned for only (every rank takes
     * part: one that read no tree as well).  A tree that drives nothing
     * (native everywhere: what autotune --verify can leave) asks for no
     * layout: the node split it costs at MPI_Init is then spared, and
     * with it any trace it leaves on the application's first calls. */
    uint32_t tn = 0, tr = 0;
    int drives = 0;
    for (int c = 0; c < CS_NCOLL; c++)
        drives |= sel[c].nmap > 0;
    if (tree && drives)
        cs_tree_layout(tree, &tn, &tr);
    int want = tn > 0, any = 0, nodes = 0, rpn = 0;
    if (PMPI_Allreduce(&want, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        any = 0;
    if (any)
        cs_run_layout(MPI_COMM_WORLD, &nodes, &rpn);
    if (tn && (tn != (uint32_t)nodes || tr != (uint32_t)rpn)) {
        char a[64], b[64];
        cs_log(0, 1, "COLLSEL_TREE=%s: tuned for %s, this run is %s; the tree is not used "
                     "(collectives stay native unless forced%s)", cs_cfg.tree,
               cs_layout_str(tn, tr, a, sizeof a), cs_layout_str((uint32_t)nodes, (uint32_t)rpn, b,
                                                                 sizeof b),
               cs_cfg.explore ? "; nothing to explore" : "");
        for (int c = 0; c < CS_NCOLL; c++) {
            free(sel[c].map);
            sel[c].map = NULL;
            sel[c].nmap = 0;
        }
        cs_tree_free(tree);
        tree = NULL;
    }
    if (cs_cfg.explore > 0 && !tree) {
        if (!cs_cfg.tree) /* (an unusable tree's one line said it) */
            cs_log(0, 1, "COLLSEL_EXPLORE=%d: needs a tree (COLLSEL_TREE: its leaves' candidates "
                         "are what is tried); not exploring", cs_cfg.explore);
        cs_cfg.explore = 0;
    } else if (cs_cfg.explore > 0 && !cs_cfg.record) {
        cs_log(0, 1, "COLLSEL_EXPLORE=%d without COLLSEL_RECORD: methods are drawn per call but "
                     "their times are not kept (collsel exec --record FILE)", cs_cfg.explore);
    }
    for (int c = 0; c < CS_NCOLL; c++) {
        int n;
        const cs_method *t = cs_methods((enum cs_coll)c, &n);
        cs_sel_active[c] = sel[c].force > 0 || (sel[c].force < 0 && sel[c].nmap > 0);
        sel[c].node = sel[c].force > 0 && cs_method_needs_node(&t[sel[c].force]);
        for (int i = 0; sel[c].force < 0 && i < sel[c].nmap; i++)
            sel[c].node |= sel[c].map[i] > 0 && cs_method_needs_node(&t[sel[c].map[i]]);
    }
    agree(); /* on every rank, configured or not: a rank without COLLSEL_FORCE or
                COLLSEL_TREE must still take part, or the others would hang */
    for (int c = 0; c < CS_NCOLL; c++) {
        if (sel[c].force > 0 && cs_sel_active[c]) {
            int n;
            cs_log(1, 1, "%s forced to %s", cs_coll_name(c),
                   cs_methods((enum cs_coll)c, &n)[sel[c].force].name);
        } else if (cs_sel_active[c]) {
            cs_log(1, 1, "%s selected by the tree %s", cs_coll_name(c), cs_cfg.tree);
        }
    }
    return 0;
}

void cs_dispatch_finalize(void)
{
    for (int c = 0; c < CS_NCOLL; c++) {
        cs_sel_active[c] = 0;
        free(sel[c].map);
        sel[c].map = NULL;
        sel[c].nmap = 0;
    }
    cs_tree_free(tree);
    tree = NULL;
}

/* The method for call c: a registry index, 0 = native.  *why: for the log. */
static int choose(const cs_call *c, const cs_method *t, const char **why)
{
    int f = sel[c->coll].force;
    if (f > 0) {
        *why = cs_method_applies(&t[f], c) ? "forced" : "forced method does not apply";
        return cs_method_applies(&t[f], c) ? f : 0;
    }
    if (sel[c->coll].nmap > 0) {
        int pos, idx = cs_pick(tree, sel[c->coll].map, sel[c->coll].nmap, c, c->bytes, &pos);
        *why = pos < 0 ? "tree: no candidate applies"
                       : pos == 0 ? "tree" : "tree, next best applicable";
        return idx;
    }
    *why = "not selected";
    return 0;
}

/* COLLSEL_VERBOSE=2: each (communicator, collective, log2 bytes bin) once,
 * from the communicator's rank 0. */
static void log_decision(const cs_call *c, const cs_method *m, const char *why)
{
    if (cs_cfg.verbose < 2 || c->rank != 0)
        return;
    int bin = 0;
    for (size_t b = c->bytes; b && bin < 63; b >>= 1)
        bin++;
    unsigned long long bit = 1ull << bin;
    if (c->st->logged_bins[c->coll] & bit)
        return;
    c->st->logged_bins[c->coll] |= bit;
    c->st->logged = 1;
    if (!cs_coll_sized(c->coll))
        cs_log(2, 0, "comm 0x%x size %d: barrier -> %s (%s)", (unsigned)PMPI_Comm_c2f(c->comm),
               c->size, m->name, why);
    else
        cs_log(2, 0, "comm 0x%x size %d: %s %zu B -> %s (%s)", (unsigned)PMPI_Comm_c2f(c->comm),
               c->size, cs_coll_name(c->coll), c->bytes, m->name, why);
}

/* The warm-up of a communicator (COLLSEL_SHM_WARMUP=N): until its N-th
 * selected call, or until its calls moved N x 16 KiB, the tree's
 * shared-memory and node-aware methods do not apply (st->shm_cold; the
 * next candidate runs; run() makes no private duplicate for them then).
 * Making a segment costs 0.3-3 ms (README); a communicator that is split,
 * used a few times and freed would pay that for microseconds of gain.  Forced methods run at once.  The counts are
 * the same on every rank (every rank makes the same calls), so is the
 * decision; when the warm-up ends, the cached decisions are taken (and
 * logged) again. */
static void warm_up(cs_call *c)
{
    cs_comm_state *st = c->st;
    unsigned long long n = (unsigned long long)cs_cfg.shm_warmup;
    int was = st->calls >= n || st->bytes >= (n << 14);
    st->calls++;
    st->bytes += c->bytes;
    int warm = st->calls >= n || st->bytes >= (n << 14);
    st->shm_cold = sel[c->coll].force <= 0 && !warm;
    if (warm && !was)
        for (int k = 0; k < CS_NCOLL; k++) {
            st->last[k].valid = 0;
            st->logged_bins[k] = 0;
        }
}

/* COLLSEL_VERBOSE=3: every explored call's draw, from every rank, with
 * what names the call on every rank alike (the communicator's call number,
 * size, and the world rank of its rank 0): the ranks must agree, without a
 * message (tests/shim/calls/explore.sh compares them). */
static void log_draw(const cs_call *c, const cs_method *m)
{
    MPI_Group g, w;
    int zero = 0, lead = -1;
    if (PMPI_Comm_group(c->comm, &g) == MPI_SUCCESS) {
        if (PMPI_Comm_group(MPI_COMM_WORLD, &w) == MPI_SUCCESS) {
            PMPI_Group_translate_ranks(g, 1, &zero, w, &lead);
            PMPI_Group_free(&w);
        }
        PMPI_Group_free(&g);
    }
    cs_log(3, 0, "rank %d: explored call %llu on the %d ranks led by world rank %d: %s",
           cs_world_rank, c->st->calls, c->size, lead, m->name);
}

/* A call explored (COLLSEL_EXPLORE): the method drawn (registry index;
 * -1: not explored), when it started, and the segments made before it
 * (their count and time). */
typedef struct xcall {
    int idx;
    double t0;
    unsigned long made;
    double made_s;
} xcall;

/* The end of a dispatched call: an explored one's time is noted; where it
 * made a segment, the making's time is noted as the segment's instead
 * (the call, a first one, is not a method's time; the segment's is what
 * the tree weighs against the calls).  The first call at its point in
 * this process goes to its method's first-call slot (without the making
 * of a segment: that is the segment's), and counts as the method's first
 * call there (not counted as its time).  The count is the process's: with
 * threads calling collectives at once, a segment another thread made in
 * the meantime is charged here (tuning runs; the call is then not a
 * method's time either way). */
static int explored(const cs_call *c, const xcall *x, int rc)
{
    if (x->idx < 0)
        return rc;
    double s, t = cs_explore_clock() - x->t0;
    const uint32_t p = (uint32_t)c->size;
    const int first = cs_explore_point_first(c->coll, p, c->bytes);
    if (cs_shm_segments_made(&s) != x->made) {
        cs_explore_note(c->coll, p, c->bytes, CS_EXPLORE_SEGMENT, s - x->made_s);
        t -= s - x->made_s;
        cs_explore_first(c->coll, p, c->bytes, x->idx, first ? -1 : t);
    } else if (first) {
        cs_explore_first(c->coll, p, c->bytes, x->idx, -1);
    } else {
        cs_explore_note(c->coll, p, c->bytes, x->idx, t);
    }
    if (first)
        cs_explore_note(c->coll, p, c->bytes, CS_EXPLORE_FIRST + x->idx, t);
    return rc;
}

/* Choose and run for a call that passed the checks; -1: run native (then
 * timed by the caller when x->idx >= 0: native was drawn). */
static int run(cs_call *c, xcall *x)
{
    int n;
    const cs_method *t = cs_methods(c->coll, &n);
    const char *why = "cached";
    int idx, commute = cs_coll_reduces(c->coll) ? c->commute : 1;
    int root = cs_coll_rooted(c->coll) ? c->root : 0;
    struct cs_decision *d = &c->st->last[c->coll];
    if (c->size < 2 && sel[c->coll].force <= 0)
        return -1; /* one rank: native (cs_pick), without a private communicator */
    warm_up(c);
    const int exploring = cs_cfg.explore > 0 && sel[c->coll].force < 0 && sel[c->coll].nmap > 0;
    /* exploring, a call that would make the duplicate and the split draws
     * first (below): native drawn, it runs as in a native run (no
     * duplicate, no receive buffer prepared in the meeting before it) */
    const int unsplit = sel[c->coll].node && c->pcomm == MPI_COMM_NULL && !c->st->shm_cold;
    if (unsplit && !exploring) {
        /* the node split comes with the private duplicate: make it before
         * deciding (collective; every rank gets here at the same call).
         * Not during the warm-up, when no shared-memory or node-aware
         * method applies anyway: a communicator used a few times pays
         * neither (the duplicate and the split: 25-75 us at 2 ranks) unless
         * a point-to-point method runs on it */
        int rc = cs_call_attach(c);
        if (rc != MPI_SUCCESS)
            return -1;
    }
    if (exploring) {
        /* exploring: one of the leaf's first candidates or native, drawn
         * by the communicator's call count (the same on every rank); on a
         * communicator without its split yet, every candidate is taken as
         * applying, and one drawn that does not once it is made runs native
         * (timed from here: the duplicate, the split and the meeting are
         * the call's, as they are in a run with the tree) */
        int cand[CS_EXPLORE_MAX + 1];
        int n = cs_pick_ranked(tree, sel[c->coll].map, sel[c->coll].nmap, c, c->bytes, cand,
                               cs_cfg.explore, !unsplit);
        idx = cs_explore_draw(c->st->calls, (uint64_t)cs_cfg.explore_seed, cand, n);
        if (cs_cfg.verbose >= 3)
            log_draw(c, &t[idx]);
        x->made = cs_shm_segments_made(&x->made_s);
        x->t0 = cs_explore_clock();
        x->idx = idx;
        if (unsplit && idx != 0) {
            if (cs_call_attach(c) != MPI_SUCCESS) {
                x->idx = 0;
                return -1;
            }
            if (!cs_method_applies(&t[idx], c))
                x->idx = idx = 0;
        }
    } else if (d->valid && d->bytes == c->bytes && d->root == root && d->count == c->count &&
        d->commute == commute) {
        idx = d->idx; /* same inputs, same decision (and already logged) */
    } else {
        idx = choose(c, t, &why);
        log_decision(c, &t[idx], why);
        *d = (struct cs_decision){.valid = 1, .root = root, .count = c->count, .commute = commute,
                          .idx = idx, .bytes = c->bytes};
    }
    if (idx == 0)
        return -1;
    int rc = cs_call_attach(c);
    if (rc == MPI_SUCCESS)
        rc = cs_method_run(&t[idx], c);
    if (rc != MPI_SUCCESS)
        PMPI_Comm_call_errhandler(c->comm, rc);
    return rc;
}

/* Alltoall: this rank's receive block holds as many bytes as its send
 * block (type signatures are the application's to match; a rank whose own
 * sizes differ, a mistake MPI reports, runs natively, and so do its peers
 * only if they see it too: the library's own error is the best answer). */
static int recv_matches(const cs_call *c)
{
    MPI_Count sz;
    return PMPI_Type_size_x(c->rdt, &sz) == MPI_SUCCESS && sz >= 0 &&
           (size_t)sz * (size_t)c->rcount == c->bytes;
}

int cs_dispatch_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    cs_call c;
    xcall x = {-1, 0, 0, 0};
    if (comm != MPI_COMM_NULL && dt != MPI_DATATYPE_NULL &&
        cs_call_bcast_local(&c, buf, count, dt, root, comm) == 0 &&
        !c.st->is_inter && root >= 0 && root < c.size) {
        int rc = run(&c, &x);
        if (rc >= 0)
            return explored(&c, &x, rc);
    }
    return explored(&c, &x, PMPI_Bcast(buf, count, dt, root, comm));
}

int cs_dispatch_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                       MPI_Op op, int root, MPI_Comm comm)
{
    cs_call c;
    xcall x = {-1, 0, 0, 0};
    if (comm != MPI_COMM_NULL && op != MPI_OP_NULL && dt != MPI_DATATYPE_NULL &&
        cs_call_reduce_local(&c, sendbuf, recvbuf, count, dt, op, root, comm) == 0 &&
        !c.st->is_inter && root >= 0 && root < c.size) {
        c.reorder_fp = cs_cfg.reorder_fp;
        int rc = run(&c, &x);
        if (rc >= 0)
            return explored(&c, &x, rc);
    }
    return explored(&c, &x, PMPI_Reduce(sendbuf, recvbuf, count, dt, op, root, comm));
}

int cs_dispatch_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                          MPI_Op op, MPI_Comm comm)
{
    cs_call c;
    xcall x = {-1, 0, 0, 0};
    if (comm != MPI_COMM_NULL && op != MPI_OP_NULL && dt != MPI_DATATYPE_NULL &&
        cs_call_allreduce_local(&c, sendbuf, recvbuf, count, dt, op, comm) == 0 &&
        !c.st->is_inter) {
        c.reorder_fp = cs_cfg.reorder_fp;
        int rc = run(&c, &x);
        if (rc >= 0)
            return explored(&c, &x, rc);
    }
    return explored(&c, &x, PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm));
}

int cs_dispatch_alltoall(const void *sendbuf, int scount, MPI_Datatype sdt, void *recvbuf,
                         int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    cs_call c;
    xcall x = {-1, 0, 0, 0};
    if (comm != MPI_COMM_NULL && rdt != MPI_DATATYPE_NULL &&
        (sendbuf == MPI_IN_PLACE || sdt != MPI_DATATYPE_NULL) &&
        cs_call_alltoall_local(&c, sendbuf, scount, sdt, recvbuf, rcount, rdt, comm) == 0 &&
        !c.st->is_inter && rcount >= 0 && recv_matches(&c)) {
        int rc = run(&c, &x);
        if (rc >= 0)
            return explored(&c, &x, rc);
    }
    return explored(&c, &x, PMPI_Alltoall(sendbuf, scount, sdt, recvbuf, rcount, rdt, comm));
}

int cs_dispatch_barrier(MPI_Comm comm)
{
    cs_call c;
    xcall x = {-1, 0, 0, 0};
    if (comm != MPI_COMM_NULL && cs_call_barrier_local(&c, comm) == 0 && !c.st->is_inter) {
        int rc = run(&c, &x);
        if (rc >= 0)
            return explored(&c, &x, rc);
    }
    return explored(&c, &x, PMPI_Barrier(comm));
}
