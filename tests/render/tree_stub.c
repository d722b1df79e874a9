/* TEST-ONLY stand-in for select/tree.c (used while select's code had not
 * landed; never linked into collsel).  Text format:
 *   coll NAME
 *   methods NAME...
 *   axes CS,CS,... MS,MS,...
 *   leaf CS_LO CS_HI MS_LO MS_HI ID [ID...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../select/tree.h"

typedef struct scoll {
    int present, nm, nl, ncs, nms;
    char names[32][64];
    cs_leaf lv[256];
    uint16_t ids[256][8];
    uint32_t cs[64];
    uint64_t ms[64];
} scoll;
struct cs_tree {
    scoll c[CS_NCOLL];
};

int cs_tree_read(cs_tree **out, const char *path, cs_err *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cs_fail(e, "%s: cannot open", path);
    cs_tree *t = calloc(1, sizeof *t);
    char line[4096];
    scoll *c = NULL;
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        char *s = strtok(line, " \n");
        if (!s || s[0] == '#')
            continue;
        if (!strcmp(s, "coll")) {
            int k = cs_coll_from_name(strtok(NULL, " \n"));
            if (k < 0)
                goto bad;
            c = &t->c[k];
            c->present = 1;
        } else if (c && !strcmp(s, "methods")) {
            while ((s = strtok(NULL, " \n")))
                snprintf(c->names[c->nm++], 64, "%s", s);
        } else if (c && !strcmp(s, "axes")) {
            char *a = strtok(NULL, " \n"), *b = strtok(NULL, " \n");
            for (char *p = strtok(a, ","); p; p = strtok(NULL, ","))
                c->cs[c->ncs++] = (uint32_t)strtoul(p, NULL, 10);
            for (char *p = strtok(b, ","); p; p = strtok(NULL, ","))
                c->ms[c->nms++] = strtoull(p, NULL, 10);
        } else if (c && !strcmp(s, "leaf")) {
            cs_leaf *l = &c->lv[c->nl];
            l->cs_lo = (uint32_t)strtoul(strtok(NULL, " "), NULL, 10);
            l->cs_hi = (uint32_t)strtoul(strtok(NULL, " "), NULL, 10);
            l->ms_lo = strtoull(strtok(NULL, " "), NULL, 10);
            l->ms_hi = strtoull(strtok(NULL, " "), NULL, 10);
            while ((s = strtok(NULL, " \n")))
                c->ids[c->nl][l->n++] = (uint16_t)atoi(s);
            l->ids = c->ids[c->nl];
            c->nl++;
        } else
            goto bad;
    }
    fclose(f);
    *out = t;
    return 0;
bad:
    fclose(f);
    free(t);
    return cs_fail(e, "%s:%d: not a stub tree", path, ln);
}

void cs_tree_free(cs_tree *t) { free(t); }
int cs_tree_has(const cs_tree *t, int coll) { return t->c[coll].present; }
int cs_tree_nmethods(const cs_tree *t, int coll) { return t->c[coll].nm; }
const char *cs_tree_method_name(const cs_tree *t, int coll, int id)
{
    return id >= 0 && id < t->c[coll].nm ? t->c[coll].names[id] : NULL;
}

int cs_tree_decide(const cs_tree *t, int coll, uint32_t cs, uint64_t ms, const uint16_t **ids)
{
    const scoll *c = &t->c[coll];
    for (int i = 0; i < c->nl; i++)
        if (c->lv[i].cs_lo <= cs && cs <= c->lv[i].cs_hi && c->lv[i].ms_lo <= ms &&
            ms <= c->lv[i].ms_hi) {
            *ids = c->lv[i].ids;
            return c->lv[i].n;
        }
    return 0;
}

int cs_tree_axes(const cs_tree *t, int coll, const uint32_t **cs, int *ncs, const uint64_t **ms,
                 int *nms)
{
    *cs = t->c[coll].cs;
    *ncs = t->c[coll].ncs;
    *ms = t->c[coll].ms;
    *nms = t->c[coll].nms;
    return 0;
}

int cs_tree_leaves(const cs_tree *t, int coll, cs_leaf **leaves, size_t *n)
{
    const scoll *c = &t->c[coll];
    *leaves = malloc(sizeof(cs_leaf) * (c->nl ? c->nl : 1));
    memcpy(*leaves, c->lv, sizeof(cs_leaf) * c->nl);
    *n = c->nl;
    return 0;
}
