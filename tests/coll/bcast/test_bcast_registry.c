/* Unit test of the bcast registry table (no MPI calls): exactly the method
 * names of the naming rules in coll/coll.h, entry 0 native, each
 * entry's fields agree with its name (family, radix, segment size), every
 * name unique, and the family functions are shared (one engine, thin
 * variants). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/bcast/bcast.h"

static int failures;
#define EXPECT(cond, ...)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            failures++;                                                        \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

static const cs_method *find(const char *name)
{
    const cs_method *hit = NULL;
    for (int i = 0; i < cs_bcast_nmethods; i++)
        if (!strcmp(cs_bcast_methods[i].name, name)) {
            EXPECT(!hit, "%s listed twice", name);
            hit = &cs_bcast_methods[i];
        }
    return hit;
}

int main(void)
{
    /* the expected names, spelled from the naming rules */
    static const struct { const char *fam, *algo; int k, segmented; } fams[] = {
        {"native", "native", 0, 0},          {"linear", "linear", 0, 0},
        {"chain.k2", "chain", 2, 1},         {"chain.k4", "chain", 4, 1},
        {"pipeline", "pipeline", 1, 1},      {"binary", "binary", 2, 1},
        {"splitbinary", "splitbinary", 2, 1}, {"binomial", "binomial", 2, 1},
        {"knomial.k3", "knomial", 3, 1},     {"knomial.k4", "knomial", 4, 1},
        {"knomial.k5", "knomial", 5, 1},     {"knomial.k6", "knomial", 6, 1},
        {"knomial.k7", "knomial", 7, 1},     {"knomial.k8", "knomial", 8, 1},
        {"scatter_rdallgather", "scatter_rdallgather", 0, 0},
        {"scatter_ringallgather", "scatter_ringallgather", 0, 0},
        {"shm.ota", "shm.ota", 0, 0},
        {"shm.tree.k1", "shm.tree", 1, 0}, {"shm.tree.k2", "shm.tree", 2, 0},
        {"shm.tree.k3", "shm.tree", 3, 0}, {"shm.tree.k4", "shm.tree", 4, 0},
        {"shm.cma", "shm.cma", 0, 0},      {"shm.ag", "shm.ag", 0, 0},
        {"node.binomial", "node", 2, 0}, {"node.knomial.k4", "node", 4, 0},
        {"node.scatter_ringallgather", "node", 0, 0},
        {"node.dynamic", "node.dynamic", 0, 0},
    };
    static const int segs_k[] = {0, 1, 8, 16, 32, 64, 128};
    int expected = 0;
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++)
        for (int s = 0; s < (fams[f].segmented ? 7 : 1); s++) {
            char name[96];
            if (segs_k[s])
                snprintf(name, sizeof name, "bcast.%s.seg%dk", fams[f].fam, segs_k[s]);
            else
                snprintf(name, sizeof name, "bcast.%s", fams[f].fam);
            expected++;
            const cs_method *m = find(name);
            EXPECT(m, "%s missing from cs_bcast_methods", name);
            if (!m)
                continue;
            EXPECT(m->coll == CS_BCAST, "%s: coll %d", name, m->coll);
            EXPECT(!strcmp(m->algo, fams[f].algo), "%s: algo %s, want %s", name, m->algo,
                   fams[f].algo);
            EXPECT(m->fanout == fams[f].k, "%s: fanout %d, want %d", name, m->fanout, fams[f].k);
            EXPECT(m->segsize == segs_k[s] * 1024, "%s: segsize %d", name, m->segsize);
            EXPECT(m->fn && m->desc && *m->desc, "%s: no function or description", name);
            /* scatter-allgather need bytes <= INT_MAX, shared memory one node;
             * everything else always applies */
            EXPECT(!m->applies == !(strstr(name, "scatter_") || strstr(name, ".shm.") ||
                                    strstr(name, ".node.")),
                   "%s: applies %p", name, (void *)m->applies);
        }
    EXPECT(cs_bcast_nmethods == expected, "table has %d methods, want %d", cs_bcast_nmethods,
           expected);
    EXPECT(!strcmp(cs_bcast_methods[0].name, "bcast.native"), "entry 0 is %s",
           cs_bcast_methods[0].name);
    /* one engine, thin variants: all segment sizes of a family share fn */
    const cs_method *a = find("bcast.knomial.k3"), *b = find("bcast.knomial.k8.seg64k");
    const cs_method *p = find("bcast.pipeline"), *ch = find("bcast.chain.k2.seg1k");
    EXPECT(a && b && a->fn == b->fn, "knomial variants use different functions");
    EXPECT(p && ch && p->fn == ch->fn, "pipeline is not chain with fanout 1");
    if (failures)
        return 1;
    printf("test_bcast_registry: %d methods ok\n", cs_bcast_nmethods);
    return 0;
}
