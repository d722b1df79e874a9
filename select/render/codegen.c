/* `collsel codegen TREE -o FILE.c [--prefix NAME]`: the decision trees as a
 * self-contained C file.
 *
 * Per collective present: `int NAME_COLL(int comm_size, size_t msg_bytes)`
 * returning the tree-local method index (the leaf's first candidate), the
 * method names as a static const table beside it, and
 * `const char *NAME_COLL_method(int index)`.  The code is an if-chain over
 * communicator-size bands, each a chain of message-size thresholds (bands
 * and runs of the same method merged, see render.h), so it usually needs
 * fewer comparisons than the tree has leaves.  Sizes outside the measured
 * range follow the nearest boundary rule, as cs_tree_decide() does; a
 * negative comm_size is treated as the smallest.
 *
 * The output is stamped with the tool, version, input file name (base name)
 * and its CRC-32 and nothing time-dependent: the same tree gives the same
 * bytes.
 */
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collsel_config.h"
#include "render.h"

static int valid_ident(const char *s)
{
    if (!s || !*s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_') ||
        strlen(s) >= 64)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
}

static size_t count_lines(const cs_buf *b, size_t from)
{
    size_t n = 0;
    for (size_t i = from; i < b->n; i++)
        n += b->p[i] == '\n';
    return n;
}

static void emit_runs(cs_buf *o, const cs_tree *t, int coll, const cs_band *b, const char *ind)
{
    for (int r = 0; r + 1 < b->nruns; r++)
        cs_buf_printf(o, "%sif (msg_bytes < %lluu)\n%s    return %d; /* %s */\n", ind,
                      (unsigned long long)b->runs[r + 1].ms_lo, ind, b->runs[r].id,
                      cs_tree_method_name(t, coll, b->runs[r].id));
    const cs_run *last = &b->runs[b->nruns - 1];
    cs_buf_printf(o, "%sreturn %d; /* %s */\n", ind, last->id,
                  cs_tree_method_name(t, coll, last->id));
}

/* One collective: the method table, the decision function, the name
 * lookup.  Returns the number of comparisons emitted. */
size_t cs_codegen_coll(cs_buf *o, const cs_tree *t, int coll, const cs_bands *bs,
                       const char *prefix)
{
    const char *cn = cs_coll_name(coll);
    int nm = cs_tree_nmethods(t, coll);
    size_t tests = 0;
    size_t nt = cs_bands_tests(bs);
    cs_buf_printf(o, "\n/* %s: %zu leaves -> %d comm-size band%s, %zu comparison%s */\n", cn,
                  bs->nleaves, bs->nbands, bs->nbands == 1 ? "" : "s", nt, nt == 1 ? "" : "s");
    cs_buf_printf(o, "static const char *const %s_%s_methods[%d] = {\n", prefix, cn, nm);
    for (int m = 0; m < nm; m++)
        cs_buf_printf(o, "    \"%s\", /* %d */\n", cs_tree_method_name(t, coll, m), m);
    cs_buf_printf(o, "};\n\n");
    cs_buf_printf(o, "int %s_%s(int comm_size, size_t msg_bytes)\n{\n", prefix, cn);
    int any_ms = 0;
    for (int i = 0; i < bs->nbands; i++)
        any_ms |= bs->b[i].nruns > 1;
    if (bs->nbands == 1 || bs->b[0].cs_hi >= (uint32_t)INT_MAX)
        cs_buf_printf(o, "    (void)comm_size;\n");
    if (!any_ms)
        cs_buf_printf(o, "    (void)msg_bytes;\n");
    for (int i = 0; i < bs->nbands; i++) {
        const cs_band *b = &bs->b[i];
        int last = i + 1 == bs->nbands || b->cs_hi >= (uint32_t)INT_MAX;
        if (b->nruns == 1 && !last) {
            cs_buf_printf(o, "    if (comm_size < %u)\n        return %d; /* %s */\n",
                          b->cs_hi + 1, b->runs[0].id,
                          cs_tree_method_name(t, coll, b->runs[0].id));
        } else if (!last) {
            cs_buf_printf(o, "    if (comm_size < %u) {\n", b->cs_hi + 1);
            emit_runs(o, t, coll, b, "        ");
            cs_buf_printf(o, "    }\n");
        } else {
            emit_runs(o, t, coll, b, "    ");
        }
        tests += (size_t)(b->nruns - 1) + !last;
        if (last)
            break;
    }
    cs_buf_printf(o, "}\n\n");
    cs_buf_printf(o, "const char *%s_%s_method(int index)\n{\n"
                     "    return index >= 0 && index < %d ? %s_%s_methods[index] : 0;\n}\n",
                  prefix, cn, nm, prefix, cn);
    return tests;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: collsel codegen TREE -o FILE.c [--prefix NAME]\n"
               "  Writes a self-contained C file with, per collective in TREE,\n"
               "  int NAME_bcast(int comm_size, size_t msg_bytes) (and _reduce, _barrier,\n"
               "  _allreduce) returning the index of the chosen method in the\n"
               "  static table NAME_COLL_methods[] (also NAME_COLL_method(i)).\n"
               "  --prefix NAME   function name prefix (C identifier; default collsel_decide)\n"
               "  -o, --output FILE.c  output file (written atomically)\n"
               "  --help          this text\n"
               "Prints per collective: leaves of the tree, bands, comparisons, lines.\n");
}

int cs_cmd_codegen(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"prefix", required_argument, 0, 'p'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *out = NULL, *prefix = "collsel_decide";
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:p:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'p': prefix = optarg; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "collsel codegen: unknown or incomplete option '%s'\n",
                    argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (optind + 1 != argc || !out) {
        fprintf(stderr, "collsel codegen: need exactly one TREE and -o FILE.c\n");
        usage(stderr);
        return 2;
    }
    if (!valid_ident(prefix)) {
        fprintf(stderr, "collsel codegen: --prefix '%s' is not a C identifier "
                        "(letters, digits, _; not starting with a digit; < 64 chars)\n", prefix);
        return 2;
    }
    const char *in = argv[optind];
    cs_tree *t = NULL;
    if (cs_rtree_load("codegen", in, &t) < 0)
        return 2;
    cs_err e = {{0}};
    uint32_t crc = 0;
    int rc = 2;
    cs_buf o = {0};
    char *incopy = strdup(in);
    if (!incopy || cs_rfile_crc(in, &crc, &e) < 0)
        goto out;
    cs_buf_printf(&o, "/* Generated by collsel codegen %s from %s (crc32 %08x).\n"
                      " * Do not edit: regenerate with\n"
                      " *   collsel codegen %s --prefix %s -o FILE.c\n"
                      " * %s_COLL(comm_size, msg_bytes) returns the index of the chosen\n"
                      " * method in %s_COLL_methods[]; msg_bytes is count x type size. */\n"
                      "#include <stddef.h>\n",
                  COLLSEL_VERSION, basename(incopy), (unsigned)crc, basename(incopy), prefix,
                  prefix, prefix);
    int any = 0;
    for (int coll = 0; coll < CS_NCOLL; coll++) {
        if (!cs_tree_has(t, coll))
            continue;
        cs_bands bs;
        CS_CHECK(cs_bands_build(t, coll, &bs, &e));
        size_t from = o.n;
        size_t tests = cs_codegen_coll(&o, t, coll, &bs, prefix);
        printf("%-8s %4zu leaves -> %3d bands, %4zu comparisons, %4zu lines\n",
               cs_coll_name(coll), bs.nleaves, bs.nbands, tests, count_lines(&o, from));
        cs_bands_free(&bs);
        any = 1;
    }
    if (!any) {
        cs_fail(&e, "%s: the tree has no collective", in);
        goto out;
    }
    if (o.oom) {
        cs_fail(&e, "out of memory");
        rc = 1;
        goto out;
    }
    rc = 1;
    CS_CHECK(cs_write_file_atomic(out, o.p, o.n, &e));
    printf("wrote %s (%zu lines)\n", out, count_lines(&o, 0));
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "collsel codegen: %s\n", e.msg);
    free(incopy);
    cs_buf_free(&o);
    cs_tree_free(t);
    return rc;
}
