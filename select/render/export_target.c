/* The releases `collsel export` writes for (see export_target.h).
 *
 * Open MPI coll/tuned (ids: `ompi_info --param coll tuned --level 9`, the
 * same for our five collectives in 4.1.4 and 5.0.7): bcast 0-9, reduce 0-7,
 * barrier 0-6, allreduce 0-6, alltoall 0-5.
 *   ompi-4.1  classic rules file, four numbers a rule (4.1 and every later
 *             release read it);
 *   ompi-5.0  "rule-file-version-2" first, a fifth number a rule (alltoall's
 *             max requests; read from 5.0.7 on, open-mpi/ompi#12827: older
 *             5.0 releases take the header for a bad file);
 *   ompi-6.0  the JSON rules 6.0 reads through the same MCA parameter
 *             (rule_file_version 3, comm_size_min/max, comm_rank_distribution
 *             "any", msg_size_min/max, alg, faninout, seg_size, reqs).
 * MPICH (MPIR-level selection JSON):
 *   mpich-4.0 MPICH 4.0's names;
 *   mpich-4.1 4.1 renamed the dissemination barrier to
 *             MPIR_Barrier_intra_k_dissemination with a k parameter
 *             (pmodels/mpich 19ef1a33ca); 4.2.1 refuses the old name at
 *             MPI_Init.  Covers 4.2 (names checked against libmpich 4.2.1).
 */
#include "export_target.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPIR algorithms of bcast, reduce, barrier, allreduce, alltoall present in
 * both MPICH 4.0.2 and 4.2.1 (their built-in selection JSON) */
#define MPICH_COMMON_ALGS                                                                         \
    "MPIR_Bcast_intra_binomial", "MPIR_Bcast_intra_scatter_recursive_doubling_allgather",        \
        "MPIR_Bcast_intra_scatter_ring_allgather", "MPIR_Bcast_intra_smp",                        \
        "MPIR_Bcast_inter_remote_send_local_bcast", "MPIR_Reduce_intra_binomial",                 \
        "MPIR_Reduce_intra_reduce_scatter_gather", "MPIR_Reduce_intra_smp",                       \
        "MPIR_Reduce_inter_local_reduce_remote_send", "MPIR_Barrier_intra_smp",                   \
        "MPIR_Barrier_inter_bcast", "MPIR_Allreduce_intra_recursive_doubling",                    \
        "MPIR_Allreduce_intra_reduce_scatter_allgather", "MPIR_Allreduce_intra_smp",              \
        "MPIR_Allreduce_inter_reduce_exchange_bcast", "MPIR_Alltoall_intra_brucks",               \
        "MPIR_Alltoall_intra_scattered", "MPIR_Alltoall_intra_pairwise",                          \
        "MPIR_Alltoall_intra_pairwise_sendrecv_replace", "MPIR_Alltoall_inter_pairwise_exchange"

static const char *const mpich40_algs[] = {MPICH_COMMON_ALGS, "MPIR_Barrier_intra_dissemination",
                                           NULL};
static const char *const mpich41_algs[] = {MPICH_COMMON_ALGS, "MPIR_Barrier_intra_k_dissemination",
                                           NULL};

/* the decision keys the export writes (both releases read them) */
#define MPICH_COMMON_KEYS                                                                         \
    "collective=", "comm_type=intra", "comm_type=inter", "comm_size<=", "comm_size<",             \
        "comm_size=pow2", "comm_size=any", "avg_msg_size<=", "avg_msg_size=any", "count<pow2",    \
        "count=any", "is_commutative=yes", "is_commutative=no", "is_op_built_in=yes",             \
        "is_op_built_in=no", "is_sendbuf_inplace=yes", "is_sendbuf_inplace=no", "algorithm="

static const char *const mpich40_keys[] = {MPICH_COMMON_KEYS, NULL};
static const char *const mpich41_keys[] = {MPICH_COMMON_KEYS, "k=", NULL};

/* in 4.2.1's built-in rules, unknown to 4.0.2 (and the 4.1 parameter key) */
static const char *const mpich40_unknown[] = {
    "algorithm=MPIR_Allgather_intra_k_brucks", "algorithm=MPIR_Allgather_intra_recexch_doubling",
    "algorithm=MPIR_Allgather_intra_recexch_halving",
    "algorithm=MPIR_Allreduce_intra_k_reduce_scatter_allgather",
    "algorithm=MPIR_Allreduce_intra_recexch", "algorithm=MPIR_Allreduce_intra_ring",
    "algorithm=MPIR_Allreduce_intra_tree", "algorithm=MPIR_Alltoall_intra_k_brucks",
    "algorithm=MPIR_Barrier_intra_k_dissemination", "algorithm=MPIR_Barrier_intra_recexch",
    "algorithm=MPIR_Bcast_intra_pipelined_tree", "algorithm=MPIR_Bcast_intra_tree",
    "algorithm=MPIR_Ibarrier_intra_tsp_k_dissem", "k=", NULL};
static const char *const mpich41_unknown[] = {"algorithm=MPIR_Barrier_intra_dissemination", NULL};

static const cs_xrename mpich40_renames[] = {{NULL, NULL, NULL}};
static const cs_xrename mpich41_renames[] = {
    {"MPIR_Barrier_intra_dissemination", "MPIR_Barrier_intra_k_dissemination", "\"k=2\": {}"},
    {NULL, NULL, NULL}};

#define OMPI_ALGS {[CS_BCAST] = 9, [CS_REDUCE] = 7, [CS_BARRIER] = 6, [CS_ALLREDUCE] = 6,        \
                   [CS_ALLTOALL] = 5}

static const cs_xtarget targets[] = {
    {"ompi-4.1", CS_XLIB_OMPI, "ompi-rules", {4, 1, 0}, CS_XFILE_OMPI_CLASSIC, 1,
     "Open MPI 4.1 and later: classic coll/tuned rules file", OMPI_ALGS, NULL, NULL, NULL, NULL},
    {"ompi-5.0", CS_XLIB_OMPI, "ompi-rules", {5, 0, 7}, CS_XFILE_OMPI_CLASSIC, 2,
     "Open MPI 5.0.7 and later: rule-file-version-2 (alltoall max requests)", OMPI_ALGS, NULL,
     NULL, NULL, NULL},
    {"ompi-6.0", CS_XLIB_OMPI, "ompi-json", {6, 0, 0}, CS_XFILE_OMPI_JSON, 3,
     "Open MPI 6.0 and later: JSON rules (rule_file_version 3)", OMPI_ALGS, NULL, NULL, NULL,
     NULL},
    {"mpich-4.0", CS_XLIB_MPICH, "mpich-json", {4, 0, 0}, CS_XFILE_MPICH_JSON, 0,
     "MPICH 4.0: selection JSON with 4.0's algorithm names", {0}, mpich40_algs, mpich40_keys,
     mpich40_unknown, mpich40_renames},
    {"mpich-4.1", CS_XLIB_MPICH, "mpich-json", {4, 1, 0}, CS_XFILE_MPICH_JSON, 0,
     "MPICH 4.1 and later (4.2): 4.1's names (k_dissemination barrier, k=2)", {0}, mpich41_algs,
     mpich41_keys, mpich41_unknown, mpich41_renames},
};
#define NTARGETS ((int)(sizeof targets / sizeof targets[0]))

const cs_xtarget *cs_xtargets(int *n)
{
    *n = NTARGETS;
    return targets;
}

const cs_xtarget *cs_xtarget_find(const char *name)
{
    for (int i = 0; i < NTARGETS; i++)
        if (strcmp(targets[i].name, name) == 0)
            return &targets[i];
    return NULL;
}

void cs_xtarget_names(char *buf, size_t len)
{
    size_t n = 0;
    if (len)
        buf[0] = 0;
    for (int i = 0; i < NTARGETS && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", targets[i].name);
}

static int ver_cmp(const int a[3], const int b[3])
{
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

const cs_xtarget *cs_xtarget_for(cs_xlib lib, const char *format, const int ver[3])
{
    const cs_xtarget *best = NULL;
    for (int i = 0; i < NTARGETS; i++)
        if (targets[i].lib == lib && (!format || strcmp(targets[i].format, format) == 0) &&
            ver_cmp(targets[i].ver, ver) <= 0)
            best = &targets[i];
    return best;
}

const char *cs_xtarget_mpich_name(const cs_xtarget *t, const char *alg, const char **params)
{
    *params = "";
    for (const cs_xrename *r = t->renames; r && r->from; r++)
        if (strcmp(r->from, alg) == 0) {
            *params = r->params;
            return r->to;
        }
    return alg;
}

int cs_xtarget_mpich_knows(const cs_xtarget *t, const char *alg)
{
    for (const char *const *a = t->mpich_algs; a && *a; a++)
        if (strcmp(*a, alg) == 0)
            return 1;
    return 0;
}

int cs_xtarget_mpich_key_ok(const cs_xtarget *t, const char *key, size_t len)
{
    for (const char *const *k = t->mpich_keys; k && *k; k++) {
        size_t kl = strlen(*k);
        char last = (*k)[kl - 1];
        if (last == '=' || last == '<' ? len > kl && strncmp(key, *k, kl) == 0 &&
                                             (last != '<' || key[kl] != '=')
                                       : len == kl && strncmp(key, *k, kl) == 0)
            return 1;
    }
    return 0;
}

/* ---- the installed release --------------------------------------------- */

const char *cs_xlib_name(cs_xlib lib)
{
    return lib == CS_XLIB_OMPI ? "Open MPI" : "MPICH";
}

int cs_mpi_installed(cs_xlib lib, int ver[3], char *desc, size_t len)
{
    const char *env = lib == CS_XLIB_OMPI ? "COLLSEL_OMPI_INFO" : "COLLSEL_MPICHVERSION";
    const char *tool = getenv(env);
    if (!tool || !*tool)
        tool = lib == CS_XLIB_OMPI ? "ompi_info" : "mpichversion";
    const char *arg = lib == CS_XLIB_OMPI ? "--version" : "-v";
    const char *tag = lib == CS_XLIB_OMPI ? "Open MPI v" : "MPICH Version:";
    char cmd[1024], line[256];
    /* the tool's name goes to the shell quoted; one without quotes only */
    if (strchr(tool, '\'') || snprintf(cmd, sizeof cmd, "'%s' %s 2>/dev/null", tool, arg) >=
                                  (int)sizeof cmd)
        return 0;
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    int found = 0;
    while (!found && fgets(line, sizeof line, p)) {
        char *v = strstr(line, tag);
        if (!v)
            continue;
        v += strlen(tag);
        while (*v == ' ' || *v == '\t')
            v++;
        int n[3] = {0, 0, 0};
        char *end = v;
        for (int i = 0; i < 3 && isdigit((unsigned char)*end); i++) {
            n[i] = (int)strtol(end, &end, 10);
            if (*end == '.')
                end++;
        }
        if (end == v)
            continue;
        memcpy(ver, n, sizeof n);
        snprintf(desc, len, "%s %d.%d.%d (from `%s %s`)", cs_xlib_name(lib), n[0], n[1], n[2],
                 tool, arg);
        found = 1;
    }
    while (fgets(line, sizeof line, p))
        ;
    pclose(p);
    return found;
}
