/* The method registry: one table per collective (bcast/registry.c,
 * reduce/registry.c, barrier/registry.c, allreduce/registry.c, alltoall/registry.c), read by everything that needs
 * method names through these functions. */
#include <string.h>

#include "allreduce/allreduce.h"
#include "alltoall/alltoall.h"
#include "barrier/barrier.h"
#include "bcast/bcast.h"
#include "coll.h"
#include "reduce/reduce.h"

void (*cs_coll_warn)(const char *fmt, ...);
#ifndef COLLSEL_SMPI
_Thread_local __attribute__((tls_model("initial-exec"))) const cs_method *cs_method_running;
#else
_Thread_local const cs_method *cs_method_running;
#endif

static const struct {
    const cs_method *table;
    const int *n;
} tables[CS_NCOLL] = {
    [CS_BCAST] = {cs_bcast_methods, &cs_bcast_nmethods},
    [CS_REDUCE] = {cs_reduce_methods, &cs_reduce_nmethods},
    [CS_BARRIER] = {cs_barrier_methods, &cs_barrier_nmethods},
    [CS_ALLREDUCE] = {cs_allreduce_methods, &cs_allreduce_nmethods},
    [CS_ALLTOALL] = {cs_alltoall_methods, &cs_alltoall_nmethods},
};

const cs_method *cs_methods(enum cs_coll c, int *n)
{
    if ((int)c < 0 || c >= CS_NCOLL) {
        *n = 0;
        return NULL;
    }
    *n = *tables[c].n;
    return tables[c].table;
}

int cs_method_index(enum cs_coll c, const char *name)
{
    int n;
    const cs_method *t = cs_methods(c, &n);
    for (int i = 0; name && i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return i;
    return -1;
}

const cs_method *cs_method_find(const char *name, enum cs_coll *coll, int *index)
{
    for (int c = 0; c < CS_NCOLL; c++) {
        int i = cs_method_index((enum cs_coll)c, name);
        if (i >= 0) {
            if (coll)
                *coll = (enum cs_coll)c;
            if (index)
                *index = i;
            return &tables[c].table[i];
        }
    }
    return NULL;
}

int cs_name_matches(const char *name, const char *list)
{
    if (!list)
        return 1;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        for (const char *q = name; n && (q = strchr(q, *p)); q++)
            if (!strncmp(q, p, n))
                return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

int cs_method_needs_node(const cs_method *m)
{
    if (!m)
        return 0;
    return !strncmp(m->algo, "shm", 3) || !strncmp(m->algo, "node", 4) ||
           cs_method_needs_node(m->part[0]) || cs_method_needs_node(m->part[1]);
}

/* the "node" family: algo "node" or "node.VARIANT" (node.dynamic) */
static int node_aware(const cs_method *m)
{
    return m && ((!strncmp(m->algo, "node", 4) && (m->algo[4] == '\0' || m->algo[4] == '.')) ||
                 node_aware(m->part[0]) || node_aware(m->part[1]));
}

int cs_method_shm_only(const cs_method *m)
{
    return cs_method_needs_node(m) && !node_aware(m);
}

int cs_method_applies(const cs_method *m, const cs_call *c)
{
    return !m->applies || m->applies(c, m) == 1;
}
