/* `collsel export TREE --format ompi-rules|mpich-json -o FILE`: the decision
 * trees as the tuning file of the MPI library itself.
 *
 * ompi-rules: Open MPI coll/tuned's classic dynamic rules file
 * (--mca coll_tuned_use_dynamic_rules 1 --mca
 * coll_tuned_dynamic_rules_filename FILE).  Numbers separated by blanks,
 * '#' comments to the end of the line:
 *   NCOLL, then per collective: ID (allreduce 2, alltoall 3, barrier 6, bcast 7,
 *   reduce 11),
 *   NCOMM, then per comm size: COMMSIZE NMSG, then per message size:
 *   MSGSIZE ALG FANINOUT SEGSIZE.
 * The rules of the largest listed comm size <= the communicator's size
 * apply, and in them the rule of the largest MSGSIZE <= the message size
 * (bytes = count x type size for bcast and reduce, 0 for barrier); the
 * first entries are for 0.  We emit an entry at each band's lower edge.
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
 * its default rule nested in place).  Methods without an exact counterpart
 * are listed on stdout.
 */
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collsel_config.h"
#include "render.h"

/* ---- method -> library algorithm ---------------------------------------- */

typedef struct xalg {
    int coll;
    const char *algo;   /* our algorithm family */
    int ompi;           /* Open MPI 4.1 coll_tuned algorithm id (0 = its own choice) */
    int ompi_exact;     /* 1 exact, 0 closest, 2 exact only for fan-out 4 (k-nomial radix),
                           3 exact only for fan-out 2 (Bruck's radix) */
    const char *mpich;  /* MPICH 4.0 MPIR algorithm, NULL = MPICH's own choice */
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
    int alg, fan, seg;       /* ompi */
    const char *mpich;       /* mpich (NULL = default subtree) */
} xrule;

typedef struct xband {
    uint32_t cs_lo, cs_hi;
    int n;
    xrule *r;
} xband;

static int same_rule(const xrule *a, const xrule *b, int ompi)
{
    return ompi ? a->alg == b->alg && a->fan == b->fan && a->seg == b->seg
                : (a->mpich == b->mpich || (a->mpich && b->mpich && !strcmp(a->mpich, b->mpich)));
}

/* Translate the bands of one collective, merging neighbours that became
 * identical.  Prints each method's mapping once (seen[] per tree id). */
static int translate(const cs_tree *t, const char *path, const cs_bands *bs, int ompi, xband *xb,
                     int *nxb, char *seen, cs_err *e)
{
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
            if (!x) {
                free(cur.r);
                return cs_fail(e, "%s: method '%s' has no counterpart in the %s table", path,
                               name, ompi ? "Open MPI" : "MPICH");
            }
            xrule xr = {b->runs[r].ms_lo, x->ompi, m.fanout, m.segsize, x->mpich};
            if (bs->coll == CS_ALLREDUCE && x->ompi == 4 && m.segsize > 0)
                xr.alg = 5; /* Open MPI's segmented ring */
            int exact = exact_for(ompi ? x->ompi_exact : x->mpich_exact, m.fanout);
            if (ompi && x->ompi_exact == 0 && x->ompi != 2)
                xr.fan = 0;
            if (!seen[b->runs[r].id]) {
                seen[b->runs[r].id] = 1;
                const char *why = x->ompi_exact == 2 ? why_knomial : x->why;
                if (ompi)
                    printf("  %-28s -> algorithm %d fan-in/out %d segsize %d%s%s\n", name,
                           xr.alg, xr.fan, xr.seg, exact ? "" : "\n      no exact counterpart: ",
                           exact ? "" : why);
                else
                    printf("  %-28s -> %s%s%s\n", name,
                           xr.mpich ? xr.mpich : "MPICH's default rules",
                           exact ? "" : "\n      no exact counterpart: ",
                           exact ? "" : x->why == why_shm || x->why == why_dynamic ? x->why
                                      : "MPICH 4.0 has no such blocking algorithm, closest taken");
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

static void emit_ompi(cs_buf *o, int coll, const xband *xb, int n)
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
        for (int r = 0; r < xb[i].n; r++)
            cs_buf_printf(o, "%llu %d %d %d\n", (unsigned long long)xb[i].r[r].ms_lo,
                          xb[i].r[r].alg, xb[i].r[r].fan, xb[i].r[r].seg);
    }
}

/* ---- MPICH ------------------------------------------------------------------ */

/* MPICH 4.0's default MPIR rules (from its built-in tuning JSON), used for
 * "native" regions, the intercommunicator branch and the collectives the
 * tree does not cover. */
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

static void emit_mpich_leaf(cs_buf *o, int coll, const xrule *r)
{
    if (!r->mpich) {
        cs_buf_printf(o, "%s", mpich_native[coll]);
    } else if (strstr(r->mpich, "reduce_scatter_gather") ||
               strstr(r->mpich, "reduce_scatter_allgather")) {
        /* Rabenseifner: commutative ops and count >= pof2 only; else the
         * algorithm MPICH itself falls back to */
        const char *safe = coll == CS_REDUCE ? "MPIR_Reduce_intra_binomial"
                                             : "MPIR_Allreduce_intra_recursive_doubling";
        cs_buf_printf(o, "{\"is_commutative=yes\": {\"count<pow2\": "
                         "{\"algorithm=%s\": {}}, "
                         "\"count=any\": {\"algorithm=%s\": {}}}, "
                         "\"is_commutative=no\": {\"algorithm=%s\": {}}}",
                      safe, r->mpich, safe);
    } else if (coll == CS_ALLTOALL) {
        /* only pairwise_sendrecv_replace takes MPI_IN_PLACE */
        cs_buf_printf(o, "{\"is_sendbuf_inplace=yes\": "
                         "{\"algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace\": {}}, "
                         "\"is_sendbuf_inplace=no\": {\"algorithm=%s\": {}}}",
                      r->mpich);
    } else {
        cs_buf_printf(o, "{\"algorithm=%s\": {}}", r->mpich);
    }
}

static void emit_mpich(cs_buf *o, int coll, const xband *xb, int n, int first)
{
    cs_buf_printf(o, "%s  \"collective=%s\": {\n    \"comm_type=intra\": {\n", first ? "" : ",\n",
                  cs_coll_name(coll));
    for (int i = 0; i < n; i++) {
        if (i + 1 < n)
            cs_buf_printf(o, "      \"comm_size<=%u\": ", xb[i].cs_hi);
        else
            cs_buf_printf(o, "      \"comm_size=any\": ");
        if (xb[i].n == 1) { /* one method for every size (always so for barrier) */
            emit_mpich_leaf(o, coll, &xb[i].r[0]);
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
            emit_mpich_leaf(o, coll, &xb[i].r[r]);
            cs_buf_printf(o, "%s\n", r + 1 < xb[i].n ? "," : "");
        }
        cs_buf_printf(o, "      }%s\n", i + 1 < n ? "," : "");
    }
    cs_buf_printf(o, "    },\n    \"comm_type=inter\": %s\n  }", mpich_inter[coll]);
}

/* MPICH reads the tuning file instead of its built-in rules, and asserts
 * when a collective finds no rule: copy the built-in entries (defaults: the
 * JSON read from libmpich by cs_mpich_defaults_load, whose shape that
 * checked) of every collective the tree does not cover.  Returns how many
 * entries were copied. */
static int emit_mpich_rest(cs_buf *o, const cs_tree *t, const char *defaults)
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
            cs_buf_printf(o, ",\n  %.*s: %.*s", (int)(end - key + 1), key, (int)(q - v + 1), v);
            copied++;
        }
        p = q; /* the next key follows the value */
    }
    return copied;
}

/* ---- command -------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f, "usage: collsel export TREE --format ompi-rules|mpich-json -o FILE\n"
               "                      [--mpich-lib PATH | --no-mpich-defaults]\n"
               "  ompi-rules   Open MPI coll/tuned dynamic rules file; use with\n"
               "               mpirun --mca coll_tuned_use_dynamic_rules 1\n"
               "                      --mca coll_tuned_dynamic_rules_filename FILE\n"
               "  mpich-json   MPICH collective selection JSON; use with\n"
               "               MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE\n"
               "               MPICH then ignores its built-in rules, so the file also\n"
               "               carries them for the collectives the tree does not cover,\n"
               "               read from the installed MPICH library at export time:\n"
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
    int ompi, no_defaults;
} xopts;

/* Parse and check the options; returns -1 (done: --help), 0, or 2 (bad). */
static int parse_args(int argc, char **argv, xopts *x)
{
    static const struct option lo[] = {{"output", required_argument, 0, 'o'},
                                        {"format", required_argument, 0, 'f'},
                                        {"mpich-lib", required_argument, 0, 'L'},
                                        {"no-mpich-defaults", no_argument, 0, 'N'},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
    const char *fmt = NULL;
    int c;
    memset(x, 0, sizeof *x);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:f:h", lo, NULL)) != -1) {
        switch (c) {
        case 'o': x->out = optarg; break;
        case 'f': fmt = optarg; break;
        case 'L': x->mpich_lib = optarg; break;
        case 'N': x->no_defaults = 1; break;
        case 'h': usage(stdout); return -1;
        default:
            fprintf(stderr, "collsel export: unknown or incomplete option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (optind + 1 != argc || !x->out || !fmt) {
        fprintf(stderr, "collsel export: need one TREE, --format and -o FILE\n");
        usage(stderr);
        return 2;
    }
    x->in = argv[optind];
    x->ompi = strcmp(fmt, "ompi-rules") == 0;
    if (!x->ompi && strcmp(fmt, "mpich-json") != 0) {
        fprintf(stderr, "collsel export: --format '%s' is not known (ompi-rules or mpich-json)\n", fmt);
        return 2;
    }
    if (x->ompi && (x->mpich_lib || x->no_defaults)) {
        fprintf(stderr, "collsel export: %s is for --format mpich-json only\n",
                x->mpich_lib ? "--mpich-lib" : "--no-mpich-defaults");
        return 2;
    }
    if (x->mpich_lib && x->no_defaults) {
        fprintf(stderr, "collsel export: --mpich-lib and --no-mpich-defaults exclude each other\n");
        return 2;
    }
    return 0;
}

/* Translate and emit the rules of one collective of t into o. */
static int emit_collective(cs_buf *o, const cs_tree *t, int coll, const xopts *x, int first,
                           cs_err *e)
{
    cs_bands bs;
    if (cs_bands_build(t, coll, &bs, e) < 0)
        return -1;
    xband *xb = calloc((size_t)bs.nbands, sizeof *xb);
    char *seen = calloc((size_t)cs_tree_nmethods(t, coll) + 1, 1);
    int nxb = 0, ok = xb && seen ? translate(t, x->in, &bs, x->ompi, xb, &nxb, seen, e)
                                 : cs_fail(e, "out of memory");
    if (ok == 0 && x->ompi)
        emit_ompi(o, coll, xb, nxb);
    else if (ok == 0)
        emit_mpich(o, coll, xb, nxb, first);
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
        int n = emit_mpich_rest(o, t, defaults);
        printf("MPICH's built-in rules of %d other collective%s copied from %s\n", n,
               n == 1 ? "" : "s", deffrom);
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
    int ncoll = 0, first = 1;
    char *defaults = NULL, deffrom[4096] = "";
    char *incopy = strdup(x.in);
    rc = 2;
    if (!incopy || cs_rfile_crc(x.in, &crc, &e) < 0)
        goto out;
    for (int coll = 0; coll < CS_NCOLL; coll++)
        ncoll += cs_tree_has(t, coll);
    if (ncoll == 0) {
        cs_fail(&e, "%s: the tree has no collective", x.in);
        goto out;
    }
    if (!x.ompi && !x.no_defaults)
        CS_CHECK(cs_mpich_defaults_load(x.mpich_lib, &defaults, deffrom, sizeof deffrom, &e));
    if (x.ompi)
        cs_buf_printf(&o, "# Open MPI coll/tuned dynamic rules, generated by collsel export %s\n"
                          "# from %s (crc32 %08x).  Use: --mca coll_tuned_use_dynamic_rules 1\n"
                          "# --mca coll_tuned_dynamic_rules_filename THIS_FILE\n"
                          "%-12d # number of collectives\n",
                      COLLSEL_VERSION, basename(incopy), (unsigned)crc, ncoll);
    else
        cs_buf_printf(&o, "{\n"); /* JSON has no comments: the stamp goes to stdout */
    printf("%s mapping of %s (crc32 %08x):\n", x.ompi ? "Open MPI" : "MPICH", x.in, (unsigned)crc);
    for (int coll = 0; coll < CS_NCOLL; coll++) {
        if (!cs_tree_has(t, coll))
            continue;
        CS_CHECK(emit_collective(&o, t, coll, &x, first, &e));
        first = 0;
    }
    if (!x.ompi) {
        emit_mpich_others(&o, t, &x, defaults, deffrom);
        cs_buf_printf(&o, "\n}\n");
    }
    rc = 1;
    if (o.oom)
        cs_fail(&e, "out of memory");
    else if (cs_write_file_atomic(x.out, o.p, o.n, &e) == 0) {
        printf("wrote %s\n", x.out);
        rc = 0;
    }
out:
    if (rc)
        fprintf(stderr, "collsel export: %s\n", e.msg);
    free(incopy);
    free(defaults);
    cs_buf_free(&o);
    cs_tree_free(t);
    return rc;
}
