/* `collsel export TREE [--target RELEASE | --format FORMAT] -o FILE`: the
 * decision trees as the tuning file of the MPI library itself, for one
 * release (the targets, what each accepts and how the installed one is
 * found: export_target.c).
 *
 * ompi-rules: Open MPI coll/tuned's classic dynamic rules file
 * (--mca coll_tuned_use_dynamic_rules 1 --mca
 * coll_tuned_dynamic_rules_filename FILE).  Numbers separated by blanks,
 * '#' comments to the end of the line:
 *   NCOLL, then per collective: ID (allreduce 2, alltoall 3, barrier 6, bcast 7,
 *   reduce 11),
 *   NCOMM, then per comm size: COMMSIZE NMSG, then per message size:
 *   MSGSIZE ALG FANINOUT SEGSIZE (ompi-5.0: "rule-file-version-2" first and
 *   a fifth number, MAXREQUESTS, on every rule).
 * The rules of the largest listed comm size <= the communicator's size
 * apply, and in them the rule of the largest MSGSIZE <= the message size
 * (bytes = count x type size for bcast and reduce, 0 for barrier); the
 * first entries are for 0.  We emit an entry at each band's lower edge.
 *
 * ompi-json (ompi-6.0): {"rule_file_version": 3, "module": "tuned",
 *   "collectives": {"bcast": [{"comm_size_min", "comm_size_max",
 *   "comm_rank_distribution": "any", "rules": [{"msg_size_min",
 *   "msg_size_max", "alg", "faninout", "seg_size", "reqs"}]}]}}, bounds
 *   inclusive, the last of each level open.
 *
 * mpich-json: MPICH's collective selection tree
 * (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE, MPIR level):
 *   {"collective=bcast": {"comm_type=intra": {"comm_size<=N": {
 *       "avg_msg_size<=M": {"algorithm=MPIR_Bcast_intra_binomial": {}}, ...,
 *       "avg_msg_size=any": {...}}, ..., "comm_size=any": {...}},
 *    "comm_type=inter": {MPICH's own inter algorithm}}, ...}
 * Every level ends with an "=any" entry, so every call finds a leaf.
 * Collectives the tree does not cover keep MPICH's defaults only if the
 * file lists them, so the file also carries MPICH's built-in rules for
 * them, read at run time from the installed libmpich (mpich_defaults.c;
 * --mpich-lib / COLLSEL_MPICH_LIB / the Debian paths).  Nothing of MPICH is
 * kept in this tree.  With --no-mpich-defaults the file has the tree's
 * collectives only, and MPICH aborts when the application calls another.
 *
 * Methods map to the closest algorithm of the library (tables below);
 * "native" maps to the library's own choice (Open MPI: algorithm 0; MPICH:
 * the installed library's own rules of the collective nested in place, or,
 * with --no-mpich-defaults, MPICH 4.0's from the table below).  Methods without an exact counterpart
 * are listed on stdout.
 */
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collsel_config.h"
#include "export_target.h"
#include "render.h"

/* ---- method -> library algorithm ---------------------------------------- */

typedef struct xalg {
    int coll;
    const char *algo;   /* our algorithm family */
    int ompi;           /* Open MPI 4.1 coll_tuned algorithm id (0 = its own choice) */
    int ompi_exact;     /* 1 exact, 0 closest, 2 exact only for fan-out 4 (k-nomial radix),
                           3 exact only for fan-out 2 (Bruck's radix) */
    const char *mpich;  /* MPICH 4.0 MPIR algorithm, NULL = MPICH's own choice (a
                           target writes it renamed: export_target.c) */
    int mpich_exact;    /* as ompi_exact */
    const char *why;    /* why Open MPI's counterpart is not exact */
} xalg;

static const char *const why_knomial =
    "Open MPI takes the radix from coll_tuned_bcast_algorithm_knomial_radix (default 4)";

static const char *const why_shm =
    "a shared-memory / node-aware method: the library's tuning file cannot name one; "
    "its own choice is kept";

static const char *const why_dynamic =
    "a dynamic method (the combining order or the leader follows the ranks' arrival): no "
    "native counterpart exists in either library; its own choice is kept";

/* Families are matched on the algorithm's first token, so "shm" covers
 * every shared-memory method ("shm.tree", "shm.ota", ...), "node" every
 * node-aware one, "reduce_bcast" every composed allreduce. */
static const xalg xalgs[] = {
    {CS_BCAST, "native", 0, 1, NULL, 1, NULL},
    {CS_BCAST, "linear", 1, 1, "MPIR_Bcast_intra_binomial", 0, NULL},
    {CS_BCAST, "chain", 2, 1, "MPIR_Bcast_intra_binomial", 0, NULL},
    {CS_BCAST, "pipeline", 3, 1, "MPIR_Bcast_intra_binomial", 0, NULL},
    {CS_BCAST, "splitbinary", 4, 1, "MPIR_Bcast_intra_binomial", 0, NULL},
    {CS_BCAST, "binary", 5, 1, "MPIR_Bcast_intra_binomial", 0, NULL},
    {CS_BCAST, "binomial", 6, 1, "MPIR_Bcast_intra_binomial", 1, NULL},
    {CS_BCAST, "knomial", 7, 2, "MPIR_Bcast_intra_binomial", 0, NULL},
    {CS_BCAST, "scatter_rdallgather", 8, 1, "MPIR_Bcast_intra_scatter_recursive_doubling_allgather", 1, NULL},
    {CS_BCAST, "scatter_ringallgather", 9, 1, "MPIR_Bcast_intra_scatter_ring_allgather", 1, NULL},
    {CS_REDUCE, "native", 0, 1, NULL, 1, NULL},
    {CS_REDUCE, "linear", 1, 1, "MPIR_Reduce_intra_binomial", 0, NULL},
    {CS_REDUCE, "chain", 2, 1, "MPIR_Reduce_intra_binomial", 0, NULL},
    {CS_REDUCE, "pipeline", 3, 1, "MPIR_Reduce_intra_binomial", 0, NULL},
    {CS_REDUCE, "binary", 4, 1, "MPIR_Reduce_intra_binomial", 0, NULL},
    {CS_REDUCE, "binomial", 5, 1, "MPIR_Reduce_intra_binomial", 1, NULL},
    {CS_REDUCE, "knomial", 5, 0, "MPIR_Reduce_intra_binomial", 0,
     "Open MPI has no k-nomial reduce; binomial is its k = 2 case"},
    {CS_REDUCE, "inorder_binary", 6, 1, "MPIR_Reduce_intra_binomial", 0, NULL},
    {CS_REDUCE, "rabenseifner", 7, 1, "MPIR_Reduce_intra_reduce_scatter_gather", 1, NULL},
    {CS_BARRIER, "native", 0, 1, NULL, 1, NULL},
    {CS_BARRIER, "linear", 1, 1, "MPIR_Barrier_intra_dissemination", 0, NULL},
    {CS_BARRIER, "double_ring", 2, 1, "MPIR_Barrier_intra_dissemination", 0, NULL},
    {CS_BARRIER, "recursive_doubling", 3, 1, "MPIR_Barrier_intra_dissemination", 0, NULL},
    {CS_BARRIER, "bruck", 4, 1, "MPIR_Barrier_intra_dissemination", 0, NULL},
    {CS_BARRIER, "dissemination", 4, 0, "MPIR_Barrier_intra_dissemination", 1,
     "Open MPI's Bruck barrier is the closest (a dissemination pattern)"},
    {CS_BARRIER, "two_proc", 5, 1, "MPIR_Barrier_intra_dissemination", 0, NULL},
    {CS_BARRIER, "tree", 6, 0, "MPIR_Barrier_intra_dissemination", 0,
     "Open MPI's tree barrier has a fixed shape, no fan-out"},
    /* Open MPI 4.1 allreduce: 1 basic linear, 2 nonoverlapping (reduce then
     * bcast), 3 recursive doubling, 4 ring, 5 segmented ring, 6 Rabenseifner;
     * MPICH 4.0 (MPIR, blocking): recursive doubling, reduce-scatter +
     * allgather (Rabenseifner), smp (node-aware) */
    {CS_ALLREDUCE, "native", 0, 1, NULL, 1, NULL},
    {CS_ALLREDUCE, "reduce_bcast", 2, 0, "MPIR_Allreduce_intra_recursive_doubling", 0,
     "Open MPI's nonoverlapping allreduce chooses its own reduce and bcast"},
    {CS_ALLREDUCE, "recursive_doubling", 3, 1, "MPIR_Allreduce_intra_recursive_doubling", 1, NULL},
    {CS_ALLREDUCE, "ring", 4, 1, "MPIR_Allreduce_intra_reduce_scatter_allgather", 0, NULL},
    {CS_ALLREDUCE, "rabenseifner", 6, 1, "MPIR_Allreduce_intra_reduce_scatter_allgather", 1,
     NULL},
    {CS_ALLREDUCE, "knomial", 3, 0, "MPIR_Allreduce_intra_recursive_doubling", 0,
     "Open MPI has no k-ary allreduce; recursive doubling is its k = 2 case"},
    {CS_ALLREDUCE, "linear", 1, 1, "MPIR_Allreduce_intra_recursive_doubling", 0, NULL},
    /* Open MPI 4.1 alltoall: 1 basic linear, 2 pairwise (rank + i), 3 modified
     * Bruck (radix 2), 4 linear with sync (its window is the MCA parameter
     * coll_tuned_alltoall_max_requests), 5 two procs; MPICH 4.0 (MPIR,
     * blocking): brucks (radix 2), scattered (batches), pairwise (XOR for a
     * power of two), pairwise_sendrecv_replace (the only one in place) */
    {CS_ALLTOALL, "native", 0, 1, NULL, 1, NULL},
    {CS_ALLTOALL, "linear", 1, 1, "MPIR_Alltoall_intra_scattered", 0, NULL},
    {CS_ALLTOALL, "linear_sync", 4, 0, "MPIR_Alltoall_intra_scattered", 0,
     "Open MPI takes the window from coll_tuned_alltoall_max_requests"},
    {CS_ALLTOALL, "pairwise", 2, 0, "MPIR_Alltoall_intra_pairwise", 1,
     "Open MPI's pairwise exchanges with rank + i and rank - i (collsel's ring)"},
    {CS_ALLTOALL, "ring", 2, 1, "MPIR_Alltoall_intra_pairwise", 0, NULL},
    {CS_ALLTOALL, "bruck", 3, 3, "MPIR_Alltoall_intra_brucks", 3,
     "Open MPI's modified Bruck has radix 2"},
    /* the whole algorithm name first: these are not their family */
    {CS_REDUCE, "shm.dynamic", 0, 0, NULL, 0, why_dynamic},
    {CS_ALLREDUCE, "shm.dynamic", 0, 0, NULL, 0, why_dynamic},
    {CS_BCAST, "node.dynamic", 0, 0, NULL, 0, why_dynamic},
    {CS_REDUCE, "node.dynamic", 0, 0, NULL, 0, why_dynamic},
    {CS_ALLREDUCE, "node.dynamic", 0, 0, NULL, 0, why_dynamic},
    {CS_BCAST, "shm", 0, 0, NULL, 0, why_shm},
    {CS_REDUCE, "shm", 0, 0, NULL, 0, why_shm},
    {CS_BARRIER, "shm", 0, 0, NULL, 0, why_shm},
    {CS_ALLREDUCE, "shm", 0, 0, NULL, 0, why_shm},
    {CS_BCAST, "node", 0, 0, NULL, 0, why_shm},
    {CS_REDUCE, "node", 0, 0, NULL, 0, why_shm},
    {CS_BARRIER, "node", 0, 0, NULL, 0, why_shm},
    {CS_ALLREDUCE, "node", 0, 0, "MPIR_Allreduce_intra_smp", 0, NULL},
    {CS_ALLTOALL, "shm", 0, 0, NULL, 0, why_shm},
    {CS_ALLTOALL, "node", 0, 0, NULL, 0, why_shm},
};

/* Is the mapping exact for a method of this fan-out (flag: ompi_exact or
 * mpich_exact)? */
static int exact_for(int flag, int fanout)
{
    return flag == 2 ? fanout == 4 : flag == 3 ? fanout == 2 : flag;
}

static const xalg *xalg_of(const char *name, cs_rmeth *m)
{
    if (cs_rmeth_parse(name, m) < 0)
        return NULL;
    for (size_t i = 0; i < sizeof xalgs / sizeof xalgs[0]; i++)
        if (xalgs[i].coll == m->coll && strcmp(xalgs[i].algo, m->algo) == 0)
            return &xalgs[i];
    size_t fam = strcspn(m->algo, ".");
    for (size_t i = 0; i < sizeof xalgs / sizeof xalgs[0]; i++)
        if (xalgs[i].coll == m->coll && strlen(xalgs[i].algo) == fam &&
            strncmp(xalgs[i].algo, m->algo, fam) == 0)
            return &xalgs[i];
    return NULL;
}

int cs_export_maps(const char *name)
{
    cs_rmeth m;
    return xalg_of(name, &m) != NULL;
}

/* One emitted rule: what the library is told to do from ms_lo up. */
typedef struct xrule {
    uint64_t ms_lo;
    int alg, fan, seg, req;  /* ompi (req: max requests, rules version 2 and 3) */
    const char *mpich;       /* mpich as the target names it (NULL = default subtree) */
    const char *params;      /* mpich: the algorithm's parameters ("" if none) */
} xrule;

typedef struct xband {
    uint32_t cs_lo, cs_hi;
    int n;
    xrule *r;
} xband;

static int same_rule(const xrule *a, const xrule *b, int ompi)
{
    return ompi ? a->alg == b->alg && a->fan == b->fan && a->seg == b->seg && a->req == b->req
                : (a->mpich == b->mpich || (a->mpich && b->mpich && !strcmp(a->mpich, b->mpich)));
}

/* One method as the target writes it (xr), or -1 and e set when the
 * target would not accept what the table gives (never written). */
static int map_rule(const cs_xtarget *tg, int coll, const char *name, const xalg *x,
                    const cs_rmeth *m, xrule *xr, cs_err *e)
{
    xr->alg = x->ompi;
    xr->fan = m->fanout;
    xr->seg = m->segsize;
    xr->req = 0;
    xr->mpich = NULL;
    xr->params = "";
    if (tg->lib == CS_XLIB_MPICH) {
        if (x->mpich) {
            xr->mpich = cs_xtarget_mpich_name(tg, x->mpich, &xr->params);
            if (!cs_xtarget_mpich_knows(tg, xr->mpich))
                return cs_fail(e, "%s maps to %s, which --target %s does not know: not written",
                               name, xr->mpich, tg->name);
        }
        return 0;
    }
    if (coll == CS_ALLREDUCE && x->ompi == 4 && m->segsize > 0)
        xr->alg = 5; /* Open MPI's segmented ring */
    if (x->ompi_exact == 0 && x->ompi != 2)
        xr->fan = 0;
    if (coll == CS_ALLTOALL && x->ompi == 4 && tg->rules_version >= 2) {
        xr->req = m->fanout; /* linear_sync's window: the rule's max requests */
        xr->fan = 0;
    }
    if (xr->alg < 0 || xr->alg > tg->alg_max[coll])
        return cs_fail(e, "%s maps to %s algorithm %d, which --target %s does not have: not "
                          "written", name, cs_coll_name(coll), xr->alg, tg->name);
    return 0;
}

/* Is the mapping of x exact for the target? */
static int exact_in(const cs_xtarget *tg, int coll, const xalg *x, const cs_rmeth *m)
{
    if (tg->lib == CS_XLIB_MPICH)
        return exact_for(x->mpich_exact, m->fanout);
    if (coll == CS_ALLTOALL && x->ompi == 4 && tg->rules_version >= 2)
        return 1; /* the window is the rule's max requests */
    return exact_for(x->ompi_exact, m->fanout);
}

/* Print how a method maps (once per method). */
static void print_mapping(const cs_xtarget *tg, int coll, const char *name, const xalg *x,
                          const cs_rmeth *m, const xrule *xr)
{
    int exact = exact_in(tg, coll, x, m);
    const char *no = exact ? "" : "\n      no exact counterpart: ";
    if (tg->lib == CS_XLIB_OMPI) {
        const char *why = x->ompi_exact == 2 ? why_knomial : x->why;
        printf("  %-28s -> algorithm %d fan-in/out %d segsize %d", name, xr->alg, xr->fan,
               xr->seg);
        if (tg->rules_version >= 2)
            printf(" max requests %d", xr->req);
        printf("%s%s\n", no, exact ? "" : why);
        return;
    }
    printf("  %-28s -> %s%s%s%s", name, xr->mpich ? xr->mpich : "MPICH's default rules",
           *xr->params ? " {" : "", xr->params, *xr->params ? "}" : "");
    if (!exact)
        printf("%s%s", no, x->why == why_shm || x->why == why_dynamic
                               ? x->why
                               : "MPICH has no such blocking algorithm, closest taken");
    printf("\n");
}

/* Translate the bands of one collective, merging neighbours that became
 * identical.  Prints each method's mapping once (seen[] per tree id). */
static int translate(const cs_tree *t, const char *path, const cs_bands *bs,
                     const cs_xtarget *tg, xband *xb, int *nxb, char *seen, cs_err *e)
{
    int ompi = tg->lib == CS_XLIB_OMPI;
    *nxb = 0;
    for (int i = 0; i < bs->nbands; i++) {
        const cs_band *b = &bs->b[i];
        xband cur = {b->cs_lo, b->cs_hi, 0, malloc((size_t)b->nruns * sizeof(xrule))};
        if (!cur.r)
            return cs_fail(e, "out of memory");
        for (int r = 0; r < b->nruns; r++) {
            const char *name = cs_tree_method_name(t, bs->coll, b->runs[r].id);
            cs_rmeth m;
            const xalg *x = xalg_of(name, &m);
            xrule xr = {b->runs[r].ms_lo, 0, 0, 0, 0, NULL, ""};
            if (!x || map_rule(tg, bs->coll, name, x, &m, &xr, e) < 0) {
                free(cur.r);
                if (!x)
                    cs_fail(e, "%s: method '%s' has no counterpart in the %s table", path, name,
                            cs_xlib_name(tg->lib));
                return -1;
            }
            if (!seen[b->runs[r].id]) {
                seen[b->runs[r].id] = 1;
                print_mapping(tg, bs->coll, name, x, &m, &xr);
            }
            if (cur.n && same_rule(&cur.r[cur.n - 1], &xr, ompi))
                continue;
            cur.r[cur.n++] = xr;
        }
        xband *prev = *nxb ? &xb[*nxb - 1] : NULL;
        int same = prev && prev->n == cur.n;
        for (int r = 0; same && r < cur.n; r++)
            same = prev->r[r].ms_lo == cur.r[r].ms_lo && same_rule(&prev->r[r], &cur.r[r], ompi);
        if (same) {
            prev->cs_hi = cur.cs_hi;
            free(cur.r);
        } else
            xb[(*nxb)++] = cur;
    }
    return 0;
}

/* ---- Open MPI ------------------------------------------------------------- */

/* Open MPI's collective ids (coll_base_functions.h order) */
static const int ompi_coll_id[CS_NCOLL] = {
    [CS_BCAST] = 7, [CS_REDUCE] = 11, [CS_BARRIER] = 6, [CS_ALLREDUCE] = 2, [CS_ALLTOALL] = 3};

static void emit_ompi(cs_buf *o, const cs_xtarget *tg, int coll, const xband *xb, int n)
{
    cs_buf_printf(o, "%-12d # collective id: %s\n", ompi_coll_id[coll], cs_coll_name(coll));
    cs_buf_printf(o, "%-12d # number of comm sizes\n", n);
    for (int i = 0; i < n; i++) {
        if (i + 1 < n)
            cs_buf_printf(o, "%-12u # comm size (rules for %u..%u ranks)\n", xb[i].cs_lo,
                          xb[i].cs_lo, xb[i].cs_hi);
        else
            cs_buf_printf(o, "%-12u # comm size (rules for %u ranks and more)\n", xb[i].cs_lo,
                          xb[i].cs_lo);
        cs_buf_printf(o, "%-12d # number of message sizes\n", xb[i].n);
        for (int r = 0; r < xb[i].n; r++) {
            const xrule *x = &xb[i].r[r];
            cs_buf_printf(o, "%llu %d %d %d", (unsigned long long)x->ms_lo, x->alg, x->fan,
                          x->seg);
            if (tg->rules_version >= 2) /* every rule has it: the reader peeks for a digit */
                cs_buf_printf(o, " %d", x->req);
            cs_buf_printf(o, "\n");
        }
    }
}

/* Open MPI 6.0's JSON rules of one collective: a comm-size rule per band,
 * in it a message-size rule per run, bounds inclusive. */
static void emit_ompi_json(cs_buf *o, int coll, const xband *xb, int n, int first)
{
    cs_buf_printf(o, "%s    \"%s\": [\n", first ? "" : ",\n", cs_coll_name(coll));
    for (int i = 0; i < n; i++) {
        cs_buf_printf(o, "      {\"comm_size_min\": %u, ", xb[i].cs_lo);
        if (i + 1 < n)
            cs_buf_printf(o, "\"comm_size_max\": %u, ", xb[i].cs_hi);
        cs_buf_printf(o, "\"comm_rank_distribution\": \"any\",\n       \"rules\": [\n");
        for (int r = 0; r < xb[i].n; r++) {
            const xrule *x = &xb[i].r[r];
            cs_buf_printf(o, "         {\"msg_size_min\": %llu, ", (unsigned long long)x->ms_lo);
            if (r + 1 < xb[i].n)
                cs_buf_printf(o, "\"msg_size_max\": %llu, ",
                              (unsigned long long)xb[i].r[r + 1].ms_lo - 1);
            cs_buf_printf(o, "\"alg\": %d, \"faninout\": %d, \"seg_size\": %d, \"reqs\": %d}%s\n",
                          x->alg, x->fan, x->seg, x->req, r + 1 < xb[i].n ? "," : "");
        }
        cs_buf_printf(o, "       ]}%s\n", i + 1 < n ? "," : "");
    }
    cs_buf_printf(o, "    ]");
}

/* ---- MPICH ------------------------------------------------------------------ */

/* MPICH 4.0's default MPIR rules (from its built-in tuning JSON), used for
 * "native" regions and the intercommunicator branch when the installed
 * library's own are not read (--no-mpich-defaults), renamed per target. */
static const char *const mpich_native[CS_NCOLL] = {
    "{\"comm_size<8\": {\"algorithm=MPIR_Bcast_intra_binomial\": {}}, "
    "\"comm_size=pow2\": {\"avg_msg_size<=12288\": {\"algorithm=MPIR_Bcast_intra_binomial\": {}}, "
    "\"avg_msg_size<=524288\": {\"algorithm=MPIR_Bcast_intra_scatter_recursive_doubling_allgather\": {}}, "
    "\"avg_msg_size=any\": {\"algorithm=MPIR_Bcast_intra_scatter_ring_allgather\": {}}}, "
    "\"comm_size=any\": {\"avg_msg_size<=12288\": {\"algorithm=MPIR_Bcast_intra_binomial\": {}}, "
    "\"avg_msg_size=any\": {\"algorithm=MPIR_Bcast_intra_scatter_ring_allgather\": {}}}}",
    "{\"avg_msg_size<=2048\": {\"algorithm=MPIR_Reduce_intra_binomial\": {}}, "
    "\"avg_msg_size=any\": {\"is_op_built_in=yes\": {\"count<pow2\": {\"algorithm=MPIR_Reduce_intra_binomial\": {}}, "
    "\"count=any\": {\"algorithm=MPIR_Reduce_intra_reduce_scatter_gather\": {}}}, "
    "\"is_op_built_in=no\": {\"algorithm=MPIR_Reduce_intra_binomial\": {}}}}",
    "{\"algorithm=MPIR_Barrier_intra_dissemination\": {}}",
    "{\"avg_msg_size<=0\": {\"is_commutative=yes\": {\"algorithm=MPIR_Allreduce_intra_smp\": {}}, "
    "\"is_commutative=no\": {\"algorithm=MPIR_Allreduce_intra_recursive_doubling\": {}}}, "
    "\"avg_msg_size<=8\": {\"algorithm=MPIR_Allreduce_intra_recursive_doubling\": {}}, "
    "\"avg_msg_size=any\": {\"is_op_built_in=no\": {\"algorithm=MPIR_Allreduce_intra_recursive_doubling\": {}}, "
    "\"is_op_built_in=yes\": {\"count<pow2\": {\"algorithm=MPIR_Allreduce_intra_recursive_doubling\": {}}, "
    "\"count=any\": {\"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather\": {}}}}}",
    "{\"is_sendbuf_inplace=yes\": {\"algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace\": {}}, "
    "\"is_sendbuf_inplace=no\": {\"comm_size<8\": {\"avg_msg_size<=32768\": "
    "{\"algorithm=MPIR_Alltoall_intra_scattered\": {}}, "
    "\"avg_msg_size=any\": {\"algorithm=MPIR_Alltoall_intra_pairwise\": {}}}, "
    "\"comm_size=any\": {\"avg_msg_size<=256\": {\"algorithm=MPIR_Alltoall_intra_brucks\": {}}, "
    "\"avg_msg_size<=32768\": {\"algorithm=MPIR_Alltoall_intra_scattered\": {}}, "
    "\"avg_msg_size=any\": {\"algorithm=MPIR_Alltoall_intra_pairwise\": {}}}}}",
};
static const char *const mpich_inter[CS_NCOLL] = {
    "{\"algorithm=MPIR_Bcast_inter_remote_send_local_bcast\": {}}",
    "{\"algorithm=MPIR_Reduce_inter_local_reduce_remote_send\": {}}",
    "{\"algorithm=MPIR_Barrier_inter_bcast\": {}}",
    "{\"algorithm=MPIR_Allreduce_inter_reduce_exchange_bcast\": {}}",
    "{\"algorithm=MPIR_Alltoall_inter_pairwise_exchange\": {}}",
};

/* Copy MPICH rules text to o as the target names them: every
 * "algorithm=FROM": {} of a renamed algorithm becomes "algorithm=TO":
 * {PARAMS}. */
static void put_mpich(cs_buf *o, const cs_xtarget *tg, const char *p, size_t n)
{
    const char *end = p + n;
    while (p < end) {
        const char *k = memmem(p, (size_t)(end - p), "\"algorithm=", 11);
        if (!k) {
            cs_buf_put(o, p, (size_t)(end - p));
            return;
        }
        const char *name = k + 11, *q = memchr(name, '"', (size_t)(end - name));
        if (!q) {
            cs_buf_put(o, p, (size_t)(end - p));
            return;
        }
        char alg[128];
        snprintf(alg, sizeof alg, "%.*s", (int)(q - name), name);
        const char *params, *to = cs_xtarget_mpich_name(tg, alg, &params);
        const char *v = q + 1; /* "algorithm=X" ws ':' ws '{' ws '}' */
        while (v < end && (*v == ' ' || *v == ':'))
            v++;
        const char *w = v < end && *v == '{' ? v + 1 : NULL;
        while (w && w < end && *w == ' ')
            w++;
        if (to == alg || !w || w >= end || *w != '}') {
            cs_buf_put(o, p, (size_t)(q + 1 - p));
            p = q + 1;
            continue;
        }
        cs_buf_put(o, p, (size_t)(k - p));
        cs_buf_printf(o, "\"algorithm=%s\": {%s}", to, params);
        p = w + 1;
    }
}

static void put_mpich_str(cs_buf *o, const cs_xtarget *tg, const char *s)
{
    put_mpich(o, tg, s, strlen(s));
}

/* The MPICH file being written: the target, the library's own rules (the
 * JSON read from libmpich, NULL without: then the table's), and the parts
 * of the output copied from them (offset pairs, checked as the library's). */
typedef struct xmpich {
    const cs_xtarget *tg;
    const char *defaults;
    cs_buf copied;
} xmpich;

/* The end of the JSON object at p (the byte after its '}'), NULL if it
 * does not close; the library's rules have no braces inside strings. */
static const char *obj_end(const char *p)
{
    int depth = 0;
    for (; *p; p++)
        if ((depth += *p == '{' ? 1 : *p == '}' ? -1 : 0) == 0)
            return p + 1;
    return NULL;
}

/* The value of member key of the object at p: its start, *len set; NULL if
 * there is none. */
static const char *json_member(const char *p, const char *key, size_t *len)
{
    size_t kl = strlen(key);
    if (!p || *p != '{')
        return NULL;
    for (p++;;) {
        p += strspn(p, " \t\r\n,");
        if (*p != '"')
            return NULL;
        const char *k = p + 1, *q = strchr(k, '"');
        if (!q)
            return NULL;
        const char *v = q + 1 + strspn(q + 1, " \t\r\n:");
        const char *end = *v == '{' ? obj_end(v) : NULL;
        if (!end)
            return NULL;
        if ((size_t)(q - k) == kl && strncmp(k, key, kl) == 0) {
            *len = (size_t)(end - v);
            return v;
        }
        p = end;
    }
}

/* The library's own rules of coll for branch ("comm_type=intra" or
 * "comm_type=inter") into o, renamed for the target; 0 if it has none
 * (then the table's). */
static int put_lib_rules(cs_buf *o, xmpich *xm, int coll, const char *branch)
{
    char key[64];
    size_t cl, bl;
    snprintf(key, sizeof key, "collective=%s", cs_coll_name(coll));
    const char *c = json_member(xm->defaults, key, &cl);
    const char *b = c ? json_member(c, branch, &bl) : NULL;
    if (!b)
        return 0;
    size_t range[2] = {o->n, 0};
    put_mpich(o, xm->tg, b, bl);
    range[1] = o->n;
    cs_buf_put(&xm->copied, range, sizeof range);
    return 1;
}

static void emit_mpich_leaf(cs_buf *o, xmpich *xm, int coll, const xrule *r)
{
    if (!r->mpich) {
        if (!put_lib_rules(o, xm, coll, "comm_type=intra"))
            put_mpich_str(o, xm->tg, mpich_native[coll]);
    } else if (strstr(r->mpich, "reduce_scatter_gather") ||
               strstr(r->mpich, "reduce_scatter_allgather")) {
        /* Rabenseifner: commutative ops and count >= pof2 only; else the
         * algorithm MPICH itself falls back to */
        const char *safe = coll == CS_REDUCE ? "MPIR_Reduce_intra_binomial"
                                             : "MPIR_Allreduce_intra_recursive_doubling";
        cs_buf_printf(o, "{\"is_commutative=yes\": {\"count<pow2\": "
                         "{\"algorithm=%s\": {}}, "
                         "\"count=any\": {\"algorithm=%s\": {%s}}}, "
                         "\"is_commutative=no\": {\"algorithm=%s\": {}}}",
                      safe, r->mpich, r->params, safe);
    } else if (coll == CS_ALLTOALL) {
        /* only pairwise_sendrecv_replace takes MPI_IN_PLACE */
        cs_buf_printf(o, "{\"is_sendbuf_inplace=yes\": "
                         "{\"algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace\": {}}, "
                         "\"is_sendbuf_inplace=no\": {\"algorithm=%s\": {%s}}}",
                      r->mpich, r->params);
    } else {
        cs_buf_printf(o, "{\"algorithm=%s\": {%s}}", r->mpich, r->params);
    }
}

static void emit_mpich(cs_buf *o, xmpich *xm, int coll, const xband *xb, int n, int first)
{
    cs_buf_printf(o, "%s  \"collective=%s\": {\n    \"comm_type=intra\": {\n", first ? "" : ",\n",
                  cs_coll_name(coll));
    for (int i = 0; i < n; i++) {
        if (i + 1 < n)
            cs_buf_printf(o, "      \"comm_size<=%u\": ", xb[i].cs_hi);
        else
            cs_buf_printf(o, "      \"comm_size=any\": ");
        if (xb[i].n == 1) { /* one method for every size (always so for barrier) */
            emit_mpich_leaf(o, xm, coll, &xb[i].r[0]);
            cs_buf_printf(o, "%s\n", i + 1 < n ? "," : "");
            continue;
        }
        cs_buf_printf(o, "{\n");
        for (int r = 0; r < xb[i].n; r++) {
            if (r + 1 < xb[i].n)
                cs_buf_printf(o, "        \"avg_msg_size<=%llu\": ",
                              (unsigned long long)xb[i].r[r + 1].ms_lo - 1);
            else
                cs_buf_printf(o, "        \"avg_msg_size=any\": ");
            emit_mpich_leaf(o, xm, coll, &xb[i].r[r]);
            cs_buf_printf(o, "%s\n", r + 1 < xb[i].n ? "," : "");
        }
        cs_buf_printf(o, "      }%s\n", i + 1 < n ? "," : "");
    }
    cs_buf_printf(o, "    },\n    \"comm_type=inter\": ");
    if (!put_lib_rules(o, xm, coll, "comm_type=inter"))
        put_mpich_str(o, xm->tg, mpich_inter[coll]);
    cs_buf_printf(o, "\n  }");
}

/* The first key of text[0..n) the target would reject: ours (the part
 * collsel writes) checks every key against the target's lists, else (the
 * library's rules copied) against the names the target does not know.
 * Returns 1 and key/klen set, or 0. */
static int mpich_rejects(const cs_xtarget *tg, const char *p, size_t n, int ours,
                         const char **key, size_t *klen)
{
    const char *end = p + n;
    while ((p = memchr(p, '"', (size_t)(end - p))) != NULL) {
        const char *k = p + 1, *q = memchr(k, '"', (size_t)(end - k));
        if (!q)
            return 0;
        const char *c = q + 1;
        while (c < end && (*c == ' ' || *c == '\n'))
            c++;
        p = q + 1;
        if (c >= end || *c != ':')
            continue;
        size_t len = (size_t)(q - k);
        int bad = 0;
        if (ours) {
            bad = !cs_xtarget_mpich_key_ok(tg, k, len);
            if (!bad && len > 10 && strncmp(k, "algorithm=", 10) == 0) {
                char alg[128];
                snprintf(alg, sizeof alg, "%.*s", (int)(len - 10), k + 10);
                bad = !cs_xtarget_mpich_knows(tg, alg);
            }
        }
        for (const char *const *u = tg->mpich_unknown; !bad && u && *u; u++) {
            size_t ul = strlen(*u);
            bad = (*u)[ul - 1] == '=' ? len >= ul && strncmp(k, *u, ul) == 0
                                     : len == ul && strncmp(k, *u, ul) == 0;
        }
        if (bad) {
            *key = k;
            *klen = len;
            return 1;
        }
    }
    return 0;
}

/* MPICH reads the tuning file instead of its built-in rules, and asserts
 * when a collective finds no rule: copy the built-in entries (defaults: the
 * JSON read from libmpich by cs_mpich_defaults_load, whose shape that
 * checked) of every collective the tree does not cover.  Returns how many
 * entries were copied. */
static int emit_mpich_rest(cs_buf *o, const cs_xtarget *tg, const cs_tree *t,
                           const char *defaults)
{
    int copied = 0;
    const char *p = strchr(defaults, '{');
    while (p && (p = strchr(p + 1, '"')) != NULL) {
        const char *key = p, *end = strchr(key + 1, '"');
        const char *v = end ? strchr(end, '{') : NULL;
        if (!v)
            return copied;
        int depth = 0;
        const char *q = v;
        do
            depth += *q == '{' ? 1 : *q == '}' ? -1 : 0;
        while (depth > 0 && *++q);
        if (!*q)
            return copied;
        int coll = -1;
        if (strncmp(key, "\"collective=", 12) == 0) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(end - key - 12), key + 12);
            coll = cs_coll_from_name(name);
        }
        if (coll < 0 || !cs_tree_has(t, coll)) {
            cs_buf_printf(o, ",\n  %.*s: ", (int)(end - key + 1), key);
            put_mpich(o, tg, v, (size_t)(q - v + 1));
            copied++;
        }
        p = q; /* the next key follows the value */
    }
    return copied;
}

/* ---- command -------------------------------------------------------------------- */

static void usage(FILE *f)
{
    int n;
    const cs_xtarget *tg = cs_xtargets(&n);
    fprintf(f, "usage: collsel export TREE [--target RELEASE | --format FORMAT] -o FILE\n"
               "                      [--mpich-lib PATH | --no-mpich-defaults]\n"
               "  --target RELEASE   the MPI release the file is for:\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "    %-10s %s\n", tg[i].name, tg[i].what);
    fprintf(f, "  --format FORMAT    ompi-rules (ompi-4.1 or ompi-5.0), ompi-json (ompi-6.0)\n"
               "                     or mpich-json (mpich-4.0 or mpich-4.1); the release\n"
               "                     within it follows the installed library\n"
               "  Without --target the target is the installed library's: its release\n"
               "  from `ompi_info --version` / `mpichversion -v` ($COLLSEL_OMPI_INFO /\n"
               "  $COLLSEL_MPICHVERSION name other tools); with both installed give\n"
               "  --target or --format; with neither, the oldest of the format.  The\n"
               "  export says what it found and took; a --target that is not the\n"
               "  installed release gets one line naming both, and the file is written\n"
               "  for the target.  A name the target would reject is never written.\n"
               "  Open MPI: mpirun --mca coll_tuned_use_dynamic_rules 1\n"
               "                    --mca coll_tuned_dynamic_rules_filename FILE\n"
               "    (coll/tuned only: Open MPI 5's coll/han, default across nodes,\n"
               "    does not read it)\n"
               "  MPICH: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE\n"
               "    MPICH then ignores its built-in rules, so the file also\n"
               "    carries them for the collectives the tree does not cover,\n"
               "    read from the installed MPICH library at export time:\n"
               "  --mpich-lib PATH     the MPICH library to read them from; else\n"
               "                       $COLLSEL_MPICH_LIB, else\n"
               "                       /usr/lib/x86_64-linux-gnu/libmpich.so.12 and\n"
               "                       /usr/lib/*/libmpich.so*  (not found: exit 2)\n"
               "  --no-mpich-defaults  write the tree's collectives only (MPICH aborts\n"
               "                       when the application calls any other one)\n"
               "  -o, --output FILE    the file to write (atomically)\n"
               "  --help               this text\n"
               "  Prints how each method of the tree maps to the library's algorithms\n"
               "  and which have no exact counterpart.\n");
}

/* The command line of `collsel export`. */
typedef struct xopts {
    const char *in, *out, *mpich_lib;
    const cs_xtarget *tg;
    int no_defaults;
} xopts;

static const char *const formats[] = {"ompi-rules", "ompi-json", "mpich-json"};

/* Choose the target: --target, else the installed library's release (of
 * --format's library, or the one installed).  Prints what it found and
 * took.  Returns 0 or 2 (bad). */
static int choose_target(const char *target, const char *fmt, xopts *x)
{
    char names[256], desc[2][160];
    int ver[2][3], have[2];
    cs_xtarget_names(names, sizeof names);
    if (target && !(x->tg = cs_xtarget_find(target))) {
        fprintf(stderr, "collsel export: --target '%s' is not known (valid: %s)\n", target,
                names);
        return 2;
    }
    int f = -1;
    for (int i = 0; fmt && i < 3; i++)
        if (strcmp(fmt, formats[i]) == 0)
            f = i;
    if (fmt && f < 0) {
        fprintf(stderr, "collsel export: --format '%s' is not known (ompi-rules, ompi-json or "
                        "mpich-json)\n", fmt);
        return 2;
    }
    if (x->tg && fmt && strcmp(x->tg->format, fmt) != 0) {
        fprintf(stderr, "collsel export: --target %s writes --format %s, not %s\n", x->tg->name,
                x->tg->format, fmt);
        return 2;
    }
    int lib = x->tg ? (int)x->tg->lib : f < 0 ? -1 : f < 2 ? CS_XLIB_OMPI : CS_XLIB_MPICH;
    for (int l = 0; l < 2; l++)
        have[l] = (lib < 0 || lib == l) && cs_mpi_installed((cs_xlib)l, ver[l], desc[l],
                                                             sizeof desc[l]);
    if (lib < 0 && have[0] && have[1]) {
        fprintf(stderr, "collsel export: %s and %s are both installed: give --target (%s) or "
                        "--format\n", desc[0], desc[1], names);
        return 2;
    }
    if (lib < 0 && !have[0] && !have[1]) {
        fprintf(stderr, "collsel export: no MPI library found (neither `ompi_info --version` "
                        "nor `mpichversion -v` answered): give --target (%s)\n", names);
        return 2;
    }
    if (lib < 0)
        lib = have[0] ? CS_XLIB_OMPI : CS_XLIB_MPICH;
    const cs_xtarget *inst = have[lib] ? cs_xtarget_for((cs_xlib)lib, fmt, ver[lib]) : NULL;
    if (x->tg) {
        const cs_xtarget *any = have[lib] ? cs_xtarget_for((cs_xlib)lib, NULL, ver[lib]) : NULL;
        if (!have[lib])
            printf("target %s (given; no %s installed here)\n", x->tg->name,
                   cs_xlib_name((cs_xlib)lib));
        else if (any != x->tg)
            fprintf(stderr, "collsel export: note: --target %s is for %s %d.%d.%d and later; the "
                            "installed library is %s, whose target is %s; the file is written "
                            "for %s\n", x->tg->name, cs_xlib_name(x->tg->lib), x->tg->ver[0],
                    x->tg->ver[1], x->tg->ver[2], desc[lib], any ? any->name : "none",
                    x->tg->name);
        else
            printf("target %s (given; installed: %s)\n", x->tg->name, desc[lib]);
        return 0;
    }
    if (inst) {
        x->tg = inst;
        printf("target %s (installed: %s)\n", inst->name, desc[lib]);
        return 0;
    }
    /* none installed, or older than every target: the oldest of the format */
    int n;
    const cs_xtarget *all = cs_xtargets(&n);
    for (int i = n - 1; i >= 0; i--)
        if ((int)all[i].lib == lib && (!fmt || strcmp(all[i].format, fmt) == 0))
            x->tg = &all[i];
    printf("target %s (%s%s)\n", x->tg->name, have[lib] ? desc[lib] : "no library installed",
           have[lib] ? " is older than every target" : "");
    return 0;
}

/* Open MPI 6.0's classic reader (coll_tuned_dynamic_file.c on main) takes a
 * comm size as the end of its rules, where 4.1 and 5.0 take it as their
 * start: a classic file for an installed 6.x gets one line. */
static void note_classic_on_6(const xopts *x)
{
    int ver[3];
    char desc[160];
    if (x->tg->file == CS_XFILE_OMPI_CLASSIC && cs_mpi_installed(CS_XLIB_OMPI, ver, desc,
                                                                 sizeof desc) && ver[0] >= 6)
        fprintf(stderr, "collsel export: note: %s reads classic rules with each comm size as "
                        "the end of its rules, not the start; --target ompi-6.0 writes its "
                        "JSON\n", desc);
}

/* Parse and check the options; returns -1 (done: --help), 0, or 2 (bad). */
static int parse_args(int argc, char **argv, xopts *x)
{
    static const struct option lo[] = {{"output", required_argument, 0, 'o'},
                                        {"format", required_argument, 0, 'f'},
                                        {"target", required_argument, 0, 'T'},
                                        {"mpich-lib", required_argument, 0, 'L'},
                                        {"no-mpich-defaults", no_argument, 0, 'N'},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
    const char *fmt = NULL, *target = NULL;
    int c;
    memset(x, 0, sizeof *x);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:f:h", lo, NULL)) != -1) {
        switch (c) {
        case 'o': x->out = optarg; break;
        case 'f': fmt = optarg; break;
        case 'T': target = optarg; break;
        case 'L': x->mpich_lib = optarg; break;
        case 'N': x->no_defaults = 1; break;
        case 'h': usage(stdout); return -1;
        default:
            fprintf(stderr, "collsel export: unknown or incomplete option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (optind + 1 != argc || !x->out) {
        fprintf(stderr, "collsel export: need one TREE and -o FILE\n");
        usage(stderr);
        return 2;
    }
    x->in = argv[optind];
    if (x->mpich_lib && x->no_defaults) {
        fprintf(stderr, "collsel export: --mpich-lib and --no-mpich-defaults exclude each other\n");
        return 2;
    }
    if (choose_target(target, fmt, x))
        return 2;
    note_classic_on_6(x);
    if (x->tg->lib == CS_XLIB_OMPI && (x->mpich_lib || x->no_defaults)) {
        fprintf(stderr, "collsel export: %s is for the MPICH targets only (this one: %s)\n",
                x->mpich_lib ? "--mpich-lib" : "--no-mpich-defaults", x->tg->name);
        return 2;
    }
    return 0;
}

/* Translate and emit the rules of one collective of t into o. */
static int emit_collective(cs_buf *o, const cs_tree *t, int coll, const xopts *x, xmpich *xm,
                           int first, cs_err *e)
{
    cs_bands bs;
    if (cs_bands_build(t, coll, &bs, e) < 0)
        return -1;
    xband *xb = calloc((size_t)bs.nbands, sizeof *xb);
    char *seen = calloc((size_t)cs_tree_nmethods(t, coll) + 1, 1);
    int nxb = 0, ok = xb && seen ? translate(t, x->in, &bs, x->tg, xb, &nxb, seen, e)
                                 : cs_fail(e, "out of memory");
    if (ok == 0 && x->tg->file == CS_XFILE_OMPI_CLASSIC)
        emit_ompi(o, x->tg, coll, xb, nxb);
    else if (ok == 0 && x->tg->file == CS_XFILE_OMPI_JSON)
        emit_ompi_json(o, coll, xb, nxb, first);
    else if (ok == 0)
        emit_mpich(o, xm, coll, xb, nxb, first);
    if (ok == 0)
        printf("%-8s %zu leaves -> %d comm-size rule%s\n", cs_coll_name(coll), bs.nleaves, nxb,
               nxb == 1 ? "" : "s");
    for (int i = 0; xb && i < nxb; i++)
        free(xb[i].r);
    free(xb);
    free(seen);
    cs_bands_free(&bs);
    return ok;
}

/* MPICH: the library's rules for the collectives the tree does not cover
 * (or, without them, the warning that MPICH will abort on those). */
static void emit_mpich_others(cs_buf *o, const cs_tree *t, const xopts *x, const char *defaults,
                              const char *deffrom)
{
    if (defaults) {
        int n = emit_mpich_rest(o, x->tg, t, defaults);
        printf("MPICH's built-in rules of %d other collective%s copied from %s\n", n,
               n == 1 ? "" : "s", deffrom);
        printf("native regions and intercommunicators: the rules of that library\n");
        return;
    }
    char covered[64] = "";
    for (int coll = 0; coll < CS_NCOLL; coll++)
        if (cs_tree_has(t, coll))
            snprintf(covered + strlen(covered), sizeof covered - strlen(covered), "%s%s",
                     *covered ? ", " : "", cs_coll_name(coll));
    fprintf(stderr, "collsel export: warning: --no-mpich-defaults: %s has rules for %s only; "
                    "MPICH aborts when the application calls any other collective with "
                    "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE set to it\n",
            x->out, covered);
}

/* The file's first lines: what it is, from what, how to use it. */
static void emit_head(cs_buf *o, const xopts *x, const char *base, uint32_t crc, int ncoll)
{
    if (x->tg->file == CS_XFILE_OMPI_CLASSIC) {
        if (x->tg->rules_version >= 2) /* the reader looks for it at the very start */
            cs_buf_printf(o, "rule-file-version-%d\n", x->tg->rules_version);
        cs_buf_printf(o, "# Open MPI coll/tuned dynamic rules (--target %s), generated by "
                         "collsel export %s\n"
                         "# from %s (crc32 %08x).  Use: --mca coll_tuned_use_dynamic_rules 1\n"
                         "# --mca coll_tuned_dynamic_rules_filename THIS_FILE\n"
                         "%-12d # number of collectives\n",
                      x->tg->name, COLLSEL_VERSION, base, (unsigned)crc, ncoll);
    } else if (x->tg->file == CS_XFILE_OMPI_JSON) {
        cs_buf_printf(o, "{\n  \"rule_file_version\": %d,\n  \"module\": \"tuned\",\n"
                         "  \"collectives\": {\n", x->tg->rules_version);
    } else {
        cs_buf_printf(o, "{\n"); /* JSON has no comments: the stamp goes to stdout */
    }
}

/* MPICH: fail (e) if the file would carry a key the target rejects.  The
 * first n_ours bytes are collsel's but for the parts xm copied from the
 * library; the rest is the library's rules of the other collectives. */
static int mpich_check(const xopts *x, const cs_buf *o, size_t n_ours, const xmpich *xm,
                       const char *deffrom, cs_err *e)
{
    const char *key, *p = (const char *)o->p;
    const size_t *cp = (const size_t *)xm->copied.p;
    size_t ncp = xm->copied.n / (2 * sizeof(size_t)), at = 0, len;
    for (size_t i = 0; i <= ncp; i++) { /* collsel's text: up to each copied part, and after */
        size_t end = i < ncp ? cp[2 * i] : n_ours;
        if (mpich_rejects(x->tg, p + at, end - at, 1, &key, &len))
            return cs_fail(e, "the export would write \"%.*s\", which --target %s does not "
                              "accept: not written", (int)len, key, x->tg->name);
        if (i < ncp)
            at = cp[2 * i + 1];
    }
    int bad = 0; /* the library's: the parts copied, the other collectives */
    for (size_t i = 0; i < ncp && !bad; i++)
        bad = mpich_rejects(x->tg, p + cp[2 * i], cp[2 * i + 1] - cp[2 * i], 0, &key, &len);
    if (!bad && !mpich_rejects(x->tg, p + n_ours, o->n - n_ours, 0, &key, &len))
        return 0;
    return cs_fail(e, "MPICH's built-in rules in %s use \"%.*s\", which --target %s does not "
                      "accept: not written; give that release's library with --mpich-lib, or "
                      "use --no-mpich-defaults", deffrom, (int)len, key, x->tg->name);
}

int cs_cmd_export(int argc, char **argv)
{
    xopts x;
    int rc = parse_args(argc, argv, &x);
    if (rc)
        return rc < 0 ? 0 : rc;
    cs_tree *t = NULL;
    if (cs_rtree_load("export", x.in, &t) < 0)
        return 2;
    cs_err e = {{0}};
    cs_buf o = {0};
    uint32_t crc = 0;
    int ncoll = 0, first = 1, mpich = x.tg->lib == CS_XLIB_MPICH;
    char *defaults = NULL, deffrom[4096] = "";
    char *incopy = strdup(x.in);
    xmpich xm = {x.tg, NULL, {0}};
    rc = 2;
    if (!incopy || cs_rfile_crc(x.in, &crc, &e) < 0)
        goto out;
    for (int coll = 0; coll < CS_NCOLL; coll++)
        ncoll += cs_tree_has(t, coll);
    if (ncoll == 0) {
        cs_fail(&e, "%s: the tree has no collective", x.in);
        goto out;
    }
    if (mpich && !x.no_defaults)
        CS_CHECK(cs_mpich_defaults_load(x.mpich_lib, &defaults, deffrom, sizeof deffrom, &e));
    xm.defaults = defaults;
    emit_head(&o, &x, basename(incopy), crc, ncoll);
    printf("%s mapping of %s (crc32 %08x):\n", cs_xlib_name(x.tg->lib), x.in, (unsigned)crc);
    for (int coll = 0; coll < CS_NCOLL; coll++) {
        if (!cs_tree_has(t, coll))
            continue;
        CS_CHECK(emit_collective(&o, t, coll, &x, &xm, first, &e));
        first = 0;
    }
    size_t n_ours = o.n;
    if (mpich) {
        emit_mpich_others(&o, t, &x, defaults, deffrom);
        cs_buf_printf(&o, "\n}\n");
    } else if (x.tg->file == CS_XFILE_OMPI_JSON)
        cs_buf_printf(&o, "\n  }\n}\n");
    rc = 1;
    if (o.oom || xm.copied.oom)
        cs_fail(&e, "out of memory");
    else if (mpich && mpich_check(&x, &o, n_ours, &xm, deffrom, &e) < 0)
        rc = 2;
    else if (cs_write_file_atomic(x.out, o.p, o.n, &e) == 0) {
        printf("wrote %s\n", x.out);
        rc = 0;
    }
out:
    if (rc)
        fprintf(stderr, "collsel export: %s\n", e.msg);
    free(incopy);
    free(defaults);
    cs_buf_free(&xm.copied);
    cs_buf_free(&o);
    cs_tree_free(t);
    return rc;
}

/* ---- the tables against the targets (unit test) --------------------------- */

int cs_export_table_check(const struct cs_xtarget *tg, FILE *f)
{
    int bad = 0;
    for (size_t i = 0; i < sizeof xalgs / sizeof xalgs[0]; i++) {
        const xalg *x = &xalgs[i];
        for (int v = 0; v < 4; v++) { /* fan-out 2 / 4, unsegmented / 1 KiB segments */
            cs_rmeth m = {x->coll, "", v & 1 ? 4 : 2, v & 2 ? 1024 : 0};
            snprintf(m.algo, sizeof m.algo, "%s", x->algo);
            char name[160];
            snprintf(name, sizeof name, "%s.%s", cs_coll_name(x->coll), x->algo);
            xrule xr = {0, 0, 0, 0, 0, NULL, ""};
            cs_err e = {{0}};
            if (map_rule(tg, x->coll, name, x, &m, &xr, &e) < 0) {
                fprintf(f, "%s: %s\n", tg->name, e.msg);
                bad++;
                continue;
            }
            if (tg->lib != CS_XLIB_MPICH)
                continue;
            cs_buf o = {0};
            xmpich xm = {tg, NULL, {0}};
            emit_mpich_leaf(&o, &xm, x->coll, &xr);
            const char *key;
            size_t len;
            if (mpich_rejects(tg, (const char *)o.p, o.n, 1, &key, &len)) {
                fprintf(f, "%s: %s writes \"%.*s\", not in the target's lists\n", tg->name, name,
                        (int)len, key);
                bad++;
            }
            cs_buf_free(&o);
        }
    }
    for (int c = 0; tg->lib == CS_XLIB_MPICH && c < CS_NCOLL; c++) {
        const char *key;
        size_t len;
        cs_buf o = {0};
        put_mpich_str(&o, tg, mpich_native[c]);
        put_mpich_str(&o, tg, mpich_inter[c]);
        if (mpich_rejects(tg, (const char *)o.p, o.n, 1, &key, &len)) {
            fprintf(f, "%s: MPICH's %s rules written with \"%.*s\", not in the target's lists\n",
                    tg->name, cs_coll_name(c), (int)len, key);
            bad++;
        }
        cs_buf_free(&o);
    }
    return bad;
}
