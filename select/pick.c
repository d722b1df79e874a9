/* Picking a method from a decision tree: see pick.h. */
#include "select/pick.h"

#include <stdlib.h>

int *cs_pick_map(const cs_tree *t, int coll, int *n)
{
    *n = cs_tree_has(t, coll) ? cs_tree_nmethods(t, coll) : 0;
    if (*n < 0)
        *n = 0;
    int *map = malloc(sizeof *map * (size_t)(*n > 0 ? *n : 1));
    for (int i = 0; map && i < *n; i++) {
        const char *name = cs_tree_method_name(t, coll, i);
        map[i] = name ? cs_method_index((enum cs_coll)coll, name) : -1;
    }
    return map;
}

int cs_pick_ranked(const cs_tree *t, const int *map, int nmap, const cs_call *c, uint64_t bytes,
                   int *out, int k, int check)
{
    int nm, m = 0, native = 0;
    const cs_method *tab = cs_methods(c->coll, &nm);
    const uint16_t *ids;
    int n = t && nmap > 0 && c->size > 1
                ? cs_tree_decide(t, c->coll, (uint32_t)c->size, bytes, &ids) : 0;
    for (int i = 0; i < n && m < k; i++) {
        int idx = ids[i] < nmap ? map[ids[i]] : -1;
        if (idx == 0 || (idx > 0 && idx < nm && (!check || cs_method_applies(&tab[idx], c)))) {
            int dup = 0;
            for (int j = 0; j < m; j++)
                dup |= out[j] == idx;
            if (!dup) {
                out[m++] = idx;
                native |= idx == 0;
            }
        }
    }
    if (!native)
        out[m++] = 0;
    return m;
}

int cs_pick(const cs_tree *t, const int *map, int nmap, const cs_call *c, uint64_t bytes,
            int *pos)
{
    int nm;
    const cs_method *tab = cs_methods(c->coll, &nm);
    const uint16_t *ids;
    /* one rank: the library's answer is a local copy at most, which no
     * method beats; running one would only add its dispatch */
    int n = t && nmap > 0 && c->size > 1
                ? cs_tree_decide(t, c->coll, (uint32_t)c->size, bytes, &ids) : 0;
    for (int i = 0; i < n; i++) {
        int idx = ids[i] < nmap ? map[ids[i]] : -1;
        if (idx == 0 || (idx > 0 && idx < nm && cs_method_applies(&tab[idx], c))) {
            *pos = i;
            return idx;
        }
    }
    *pos = -1;
    return 0;
}
