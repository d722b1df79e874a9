/* Shared pieces of the select commands: see cmd_util.h. */
#include "cmd_util.h"
#include "select/penalty.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int cs_sel_load(const char *cmd, const char *perf_path, const char *prof_path, cs_perf *perf,
                cs_profile **prof)
{
    cs_err e;
    *prof = NULL;
    cs_perf_init(perf);
    if (cs_perf_read(perf, perf_path, &e) < 0) {
        fprintf(stderr, "collsel %s: %s\n", cmd, e.msg);
        cs_perf_free(perf);
        return -1;
    }
    if (!prof_path)
        return 0;
    cs_profile *p = malloc(sizeof *p);
    if (!p || cs_profile_load(p, prof_path, &e) < 0) {
        fprintf(stderr, "collsel %s: %s\n", cmd, p ? e.msg : "out of memory");
        free(p);
        cs_perf_free(perf);
        return -1;
    }
    *prof = p;
    return 0;
}

void cs_sel_free_profile(cs_profile *prof)
{
    if (prof)
        cs_profile_free(prof);
    free(prof);
}

int cs_sel_int(const char *s, long lo, long hi, long *v)
{
    char *end;
    errno = 0;
    *v = strtol(s, &end, 10);
    return (!*s || *end || errno || *v < lo || *v > hi) ? -1 : 0;
}

int cs_sel_num(const char *s, double lo, double hi, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return (!*s || *end || errno || !(*v >= lo && *v <= hi)) ? -1 : 0;
}

const char *cs_sel_size(char *buf, size_t len, uint64_t bytes)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, len, "%llu %s", (unsigned long long)bytes, unit[u]);
    return buf;
}

void cs_sel_print_pen(FILE *f, const char *label, const cs_pen_stats *s, int weighted)
{
    size_t n = weighted ? s->nweighted : s->npoints;
    if (!n) {
        fprintf(f, "  %-18s no %s points\n", label, weighted ? "weighted" : "measured");
        return;
    }
    fprintf(f, "  %-18s min %.1f%%  max %.1f%%  mean %.2f%%  median %.1f%%  (%zu points)\n", label,
            100 * (weighted ? s->wmin : s->min), 100 * (weighted ? s->wmax : s->max),
            100 * (weighted ? s->wmean : s->mean), 100 * (weighted ? s->wmedian : s->median), n);
}

void cs_sel_print_native(FILE *f, const cs_pen_stats *s, int weighted)
{
    const char *label = weighted ? "vs native weighted" : "vs native uniform";
    size_t n = weighted ? s->nwnat : s->nnat;
    if (!n) {
        fprintf(f, "  %-18s no %s points with native measured\n", label,
                weighted ? "weighted" : "measured");
        return;
    }
    fprintf(f, "  %-18s mean %.2f%%  max %.1f%%  (%zu points", label,
            100 * (weighted ? s->nat_wmean : s->nat_mean),
            100 * (weighted ? s->nat_wmax : s->nat_max), n);
    if (!weighted)
        fprintf(f, ", %zu more than %g%% slower", s->nslower, 100 * CS_PEN_SLOWER);
    fprintf(f, ")\n");
}

void cs_sel_json_native(FILE *f, const cs_pen_stats *s, int weighted)
{
    fprintf(f, "\"vs_native\":{\"points\":%zu,\"mean\":%.6g,\"max\":%.6g,\"slower_5pct\":%zu",
            s->nnat, s->nat_mean, s->nat_max, s->nslower);
    if (weighted)
        fprintf(f, ",\"weighted_points\":%zu,\"weighted_mean\":%.6g,\"weighted_max\":%.6g",
                s->nwnat, s->nat_wmean, s->nat_wmax);
    fputc('}', f);
}
