/* Reading the CSV of collsel-replay --mix: see mixcsv.h. */
#include "replay/mixcsv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_COLL, C_CS, C_BYTES, C_ROOT, C_OPS, C_NATIVE, C_TUNED, C_METHOD, C_LO, C_HI, C_RATIO,
       C_N };
static const char *const names[C_N] = {"collective", "comm_size", "msg_bytes", "root_mode",
                                       "ops", "native_us", "tuned_us", "method",
                                       "ratio_lo", "ratio_hi", "ratio"};

#define MAXF 32

/* Split line at commas in place (the mix has no quoted fields). */
static int fields(char *line, char **f)
{
    int k = 0;
    line[strcspn(line, "\r\n")] = 0;
    for (char *p = line; k < MAXF;) {
        f[k++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = 0, p = c + 1;
    }
    return k;
}

int cs_mix_read(const char *path, cs_mix_row *rows, int max, cs_mix_row *total, cs_mix_row *pred,
                cs_err *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cs_fail(e, "%s: cannot read", path);
    char line[1024], *fld[MAXF];
    int col[C_N], have = 0, n = 0, crec = -1; /* crec: recorded_us, optional */
    while (fgets(line, sizeof line, f)) {
        int k = fields(line, fld);
        if (!have) { /* the header names the columns */
            for (int c = 0; c < C_N; c++) {
                col[c] = -1;
                for (int j = 0; j < k; j++)
                    if (!strcmp(fld[j], names[c]))
                        col[c] = j;
                if (col[c] < 0) {
                    fclose(f);
                    return cs_fail(e, "%s: no column %s", path, names[c]);
                }
            }
            for (int j = 0; j < k; j++)
                if (!strcmp(fld[j], "recorded_us"))
                    crec = j;
            have = 1;
            continue;
        }
        int need = 0;
        for (int c = 0; c < C_N; c++)
            need = col[c] > need ? col[c] : need;
        if (k <= need)
            continue;
        cs_mix_row r;
        memset(&r, 0, sizeof r);
        snprintf(r.coll, sizeof r.coll, "%.15s", fld[col[C_COLL]]);
        r.cs = (unsigned)strtoul(fld[col[C_CS]], NULL, 10);
        r.bytes = strtoull(fld[col[C_BYTES]], NULL, 10);
        snprintf(r.root, sizeof r.root, "%.15s", fld[col[C_ROOT]]);
        r.ops = atof(fld[col[C_OPS]]), r.native = atof(fld[col[C_NATIVE]]);
        r.tuned = atof(fld[col[C_TUNED]]);
        snprintf(r.method, sizeof r.method, "%.95s", fld[col[C_METHOD]]);
        r.lo = atof(fld[col[C_LO]]), r.hi = atof(fld[col[C_HI]]), r.ratio = atof(fld[col[C_RATIO]]);
        r.recorded = crec >= 0 && crec < k ? atof(fld[crec]) : 0;
        if (!strcmp(r.coll, "total"))
            *total = r;
        else if (!strcmp(r.coll, "completion") || !strcmp(r.coll, "application")) {
            if (pred)
                pred[r.coll[0] == 'a'] = r;
        } else if (!strcmp(r.coll, "exits")) {
            continue; /* the wait uneven exits cause (apptime.sh reads it) */
        } else if (n < max)
            rows[n++] = r;
    }
    fclose(f);
    if (!have)
        return cs_fail(e, "%s: empty (no header)", path);
    return n;
}
