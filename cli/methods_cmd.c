/* `collsel methods [--csv]`: every method of the registry (name,
 * collective, algorithm, segment size, fan-out, description).  Reads the
 * tables without their code (cs_registry_names, coll/meson.build): no MPI
 * library is linked. */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "coll/coll.h"

int cs_cmd_methods(int argc, char **argv);

static const char usage[] =
    "usage: collsel methods [--csv]\n"
    "\n"
    "List every method collsel can run, per collective, from the registry: the\n"
    "names accepted by COLLSEL_FORCE, tree files and collsel-replay --methods.\n"
    "Entry COLL.native is the MPI library's own call.\n"
    "\n"
    "  --csv    machine-readable: name,collective,algorithm,segsize,fanout,description\n"
    "           (segsize in bytes, 0 = unsegmented; fanout 0 = not applicable)\n"
    "  --help   this text\n";

/* A CSV field: quoted when it holds a comma, a quote or a newline. */
static void csv_field(const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

int cs_cmd_methods(int argc, char **argv)
{
    int csv = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--csv")) {
            csv = 1;
        } else {
            fprintf(stderr, "collsel methods: unknown argument '%s' (accepted: --csv, --help)\n",
                    argv[i]);
            return 2;
        }
    }
    if (csv)
        puts("name,collective,algorithm,segsize,fanout,description");
    else
        printf("%-32s %-8s %-22s %8s %6s  %s\n", "NAME", "COLL", "ALGORITHM", "SEGMENT",
               "FANOUT", "DESCRIPTION");
    int total = 0;
    for (int c = 0; c < CS_NCOLL; c++) {
        int n;
        const cs_method *t = cs_methods((enum cs_coll)c, &n);
        for (int i = 0; i < n; i++, total++) {
            const cs_method *m = &t[i];
            if (csv) {
                printf("%s,%s,", m->name, cs_coll_name(c));
                csv_field(m->algo ? m->algo : "");
                printf(",%d,%d,", m->segsize, m->fanout);
                csv_field(m->desc ? m->desc : "");
                putchar('\n');
                continue;
            }
            char seg[32] = "-", fan[16] = "-";
            if (m->segsize > 0)
                cs_fmt_bytes(seg, sizeof seg, m->segsize);
            if (m->fanout > 0)
                snprintf(fan, sizeof fan, "%d", m->fanout);
            printf("%-32s %-8s %-22s %8s %6s  %s\n", m->name, cs_coll_name(c),
                   m->algo ? m->algo : "", seg, fan, m->desc ? m->desc : "");
        }
    }
    if (!csv)
        printf("(%d methods)\n", total);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "collsel methods: cannot write the output\n");
        return 1;
    }
    return 0;
}
