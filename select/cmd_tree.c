/* collsel tree show TREE: the decision functions as text, one line per
 * leaf (comm-size range, message-size range, methods best first, depth). */
#include <stdlib.h>
#include <string.h>

#include "cmd_util.h"

int cs_cmd_tree(int argc, char **argv);

static void usage(FILE *f)
{
    fprintf(f, "usage: collsel tree show TREE\n\n"
               "Prints each collective's decision function, one line per leaf: the\n"
               "communicator sizes and message sizes it answers (inclusive ranges;\n"
               "'+' = and above; sizes shown rounded to 0.1 KiB/MiB), its methods best\n"
               "first (the first one that applies to a call is used) and its depth in\n"
               "the quadtree.\n"
               "  --help   this text\n"
               "exit status: 0 ok, 2 bad input or usage\n");
}

static void show_coll(const cs_tree *t, int c)
{
    cs_tree_stats st;
    cs_leaf *lv;
    size_t nl;
    const uint32_t *cs;
    const uint64_t *ms;
    int ncs, nms;
    char b1[32], b2[32], rng[80];
    cs_tree_stats_get(t, c, &st);
    cs_tree_axes(t, c, &cs, &ncs, &ms, &nms);
    if (cs_tree_leaves(t, c, &lv, &nl) < 0)
        return;
    printf("%s: %u leaves (%zu answering), %u nodes, depth %u..%u, grid %d x %d, "
           "comm sizes %u..%u (%d), message sizes %s..%s (%d)\n",
           cs_coll_name(c), st.leaves, nl, st.nodes, st.min_depth, st.max_depth, 1 << st.k,
           1 << st.k, cs[0], cs[ncs - 1], ncs, cs_sel_size(b1, 32, ms[0]),
           cs_sel_size(b2, 32, ms[nms - 1]), nms);
    printf("  %-13s %-23s %-5s %s\n", "comm size", "message size", "depth", "methods");
    for (size_t l = 0; l < nl; l++) {
        char crng[32];
        uint32_t lo = lv[l].cs_lo ? lv[l].cs_lo : 1;
        if (lv[l].cs_hi == UINT32_MAX)
            snprintf(crng, sizeof crng, "%u+", lo);
        else if (lo == lv[l].cs_hi)
            snprintf(crng, sizeof crng, "%u", lo);
        else
            snprintf(crng, sizeof crng, "%u-%u", lo, lv[l].cs_hi);
        cs_fmt_bytes(b1, 32, (double)lv[l].ms_lo);
        if (lv[l].ms_hi == UINT64_MAX)
            snprintf(rng, sizeof rng, "%s+", b1);
        else if (lv[l].ms_lo == lv[l].ms_hi)
            snprintf(rng, sizeof rng, "%s", b1);
        else
            snprintf(rng, sizeof rng, "%s-%s", b1, cs_fmt_bytes(b2, 32, (double)lv[l].ms_hi));
        printf("  %-13s %-23s %-5d %s", crng, rng, lv[l].depth,
               cs_tree_method_name(t, c, lv[l].ids[0]));
        for (int i = 1; i < lv[l].n; i++)
            printf("%s%s", i == 1 ? " (then " : ", ", cs_tree_method_name(t, c, lv[l].ids[i]));
        printf("%s\n", lv[l].n > 1 ? ")" : "");
    }
    free(lv);
}

int cs_cmd_tree(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return CS_EXIT_OK;
        }
    if (argc != 3 || strcmp(argv[1], "show") != 0) {
        fprintf(stderr, "collsel tree: usage: collsel tree show TREE\n");
        return CS_EXIT_USAGE;
    }
    cs_tree *t;
    cs_err e;
    if (cs_tree_read(&t, argv[2], &e) < 0) {
        fprintf(stderr, "collsel tree: %s\n", e.msg);
        return CS_EXIT_USAGE;
    }
    uint32_t nodes, rpn;
    cs_tree_layout(t, &nodes, &rpn);
    char buf[64];
    if (nodes) /* (a tree tuned without a profile has none) */
        printf("tuned for %s\n", cs_layout_str(nodes, rpn, buf, sizeof buf));
    for (int c = 0; c < CS_NCOLL; c++)
        if (cs_tree_has(t, c))
            show_coll(t, c);
    cs_tree_free(t);
    return CS_EXIT_OK;
}
