/* One replayed collective operation: see op.h. */
#include "op.h"

#include <stdlib.h>
#include <string.h>

#include "record/profile.h"
#include "select/pick.h"

uint64_t cs_rop_bytes(enum cs_coll coll, uint64_t bytes)
{
    switch (coll) {
    case CS_BCAST: return bytes;
    case CS_REDUCE:
    case CS_ALLREDUCE: return bytes < 12 ? 8 : (bytes + 4) / 8 * 8;
    default: return 0;
    }
}

int cs_rop_init(cs_rop *op, enum cs_coll coll, MPI_Comm comm, uint64_t bytes, int root_mode,
                int root)
{
    memset(op, 0, sizeof *op);
    op->coll = coll;
    op->comm = comm;
    op->root_mode = root_mode;
    op->root = root < 0 ? 0 : root;
    op->decide_bytes = bytes;
    uint64_t n = cs_rop_bytes(coll, bytes);
    if (n > INT32_MAX)
        return MPI_ERR_COUNT;
    int reduces = cs_coll_reduces(coll);
    if (cs_coll_sized(coll)) {
        op->buf = malloc(n ? n : 1);
        op->sbuf = reduces ? malloc(n) : NULL;
        if (!op->buf || (reduces && !op->sbuf)) {
            cs_rop_free(op);
            return MPI_ERR_NO_MEM;
        }
        memset(op->buf, 0x5a, n ? n : 1);
    }
    int rc;
    if (coll == CS_BCAST) {
        rc = cs_call_bcast(&op->call, op->buf, (int)n, MPI_BYTE, 0, comm);
    } else if (reduces) {
        double *s = op->sbuf;
        for (uint64_t k = 0; k < n / 8; k++)
            s[k] = 1.0 + (double)(k % 7);
        rc = coll == CS_REDUCE ? cs_call_reduce(&op->call, op->sbuf, op->buf, (int)(n / 8),
                                                MPI_DOUBLE, MPI_SUM, 0, comm)
                               : cs_call_allreduce(&op->call, op->sbuf, op->buf, (int)(n / 8),
                                                   MPI_DOUBLE, MPI_SUM, comm);
    } else {
        rc = cs_call_barrier(&op->call, comm);
    }
    if (rc != MPI_SUCCESS)
        cs_rop_free(op);
    return rc;
}

void cs_rop_free(cs_rop *op)
{
    free(op->buf);
    free(op->sbuf);
    free(op->picks);
    op->buf = op->sbuf = NULL;
    op->picks = NULL;
}

int cs_rop_root(const cs_rop *op, long i)
{
    int size = op->call.size > 0 ? op->call.size : 1;
    switch (op->root_mode) {
    case CS_ROOT_FIXED: return op->root % size;
    case CS_ROOT_VARYING: return (int)(i % size);
    default: return 0;
    }
}

int cs_rop_applies(cs_rop *op, const cs_method *m)
{
    int nroots = op->root_mode == CS_ROOT_VARYING ? op->call.size : 1, ok = 1;
    for (int i = 0; i < nroots && ok; i++) {
        op->call.root = cs_rop_root(op, i);
        ok = cs_method_applies(m, &op->call);
    }
    op->call.root = cs_rop_root(op, 0);
    return ok;
}

int cs_rop_redundant(const cs_rop *op, const cs_method *m)
{
    /* a composed method is segmented through its steps (reduce_bcast.R-B
     * with 64 KiB segments is the unsegmented pair below 64 KiB) */
    int seg = m->segsize;
    for (int i = 0; i < 2 && !seg && m->part[i]; i++)
        seg = m->part[i]->segsize;
    return seg > 0 && (uint64_t)seg >= op->call.bytes;
}

int cs_rop_run(void *arg, long i)
{
    cs_rop *op = arg;
    op->call.root = cs_rop_root(op, i);
    return cs_method_run(op->m, &op->call);
}

/* The tree's decision for the current op->call (root set): the shim's. */
static const cs_method *decide(cs_rop *op)
{
    int nm, pos;
    const cs_method *tab = cs_methods(op->coll, &nm);
    return &tab[cs_pick(op->tree, op->tree_map, op->tree_nmap, &op->call, op->decide_bytes,
                        &pos)];
}

int cs_rop_set_tree(cs_rop *op, const struct cs_tree *tree, const int *map, int nmap)
{
    op->tree = tree;
    op->tree_map = map;
    op->tree_nmap = nmap;
    free(op->picks);
    int size = op->call.size > 0 ? op->call.size : 1;
    op->picks = calloc((size_t)size, sizeof *op->picks);
    if (!op->picks)
        return -1;
    int nroots = op->root_mode == CS_ROOT_VARYING ? size : 1;
    for (int i = 0; i < nroots; i++) {
        op->call.root = cs_rop_root(op, i);
        op->picks[op->call.root] = decide(op);
    }
    op->call.root = cs_rop_root(op, 0);
    return 0;
}

const cs_method *cs_rop_tree_pick(cs_rop *op, long i)
{
    op->call.root = cs_rop_root(op, i);
    const cs_method *m = op->picks ? op->picks[op->call.root] : NULL;
    return m ? m : decide(op);
}

int cs_rop_run_tree(void *arg, long i)
{
    cs_rop *op = arg;
    const cs_method *m = cs_rop_tree_pick(op, i);
    return cs_method_run(m, &op->call);
}

int cs_rop_run_with(void *arg, long i)
{
    cs_rop_with *w = arg;
    if (!w->m)
        return cs_rop_run_tree(w->op, i);
    w->op->call.root = cs_rop_root(w->op, i);
    return cs_method_run(w->m, &w->op->call);
}
