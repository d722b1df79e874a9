/* COLLSEL_FORCE ("bcast=NAME,reduce=NAME,barrier=NAME,allreduce=NAME", any
 * subset; NAME with or without the "bcast." prefix), parsed against the
 * registry.  No MPI call: the fuzz target tests/fuzz/fuzz_env.c runs it
 * without MPI_Init.  A bad item gets one line from world rank 0 (naming the
 * variable, the item and what is accepted) and is ignored; an unknown
 * method leaves its collective native.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "shim.h"

/* One line on stderr from world rank 0, however long (the list of valid
 * method names does not fit cs_log's line). */
static void say(const char *text)
{
    if (cs_world_rank <= 0)
        fprintf(stderr, "collsel: %s\n", text);
}

/* Append the valid method names of coll to b, compactly: the unsegmented
 * names, then the segmented families as "BASE.segNk" with the sizes, when
 * every family has every size (else each segmented name in full). */
static void list_methods(cs_buf *b, int coll)
{
    int n, sizes[16], nsizes = 0, nseg = 0;
    const cs_method *t = cs_methods((enum cs_coll)coll, &n);
    for (int i = 0; i < n; i++) {
        if (t[i].segsize == 0) {
            cs_buf_printf(b, " %s", t[i].name);
            continue;
        }
        nseg++;
        int k = 0;
        while (k < nsizes && sizes[k] != t[i].segsize)
            k++;
        if (k == nsizes && nsizes < 16)
            sizes[nsizes++] = t[i].segsize;
    }
    if (nseg == 0)
        return;
    cs_buf bases = {0};
    int nbases = 0, product = 1;
    for (int i = 0; i < n; i++) {
        const char *suffix = t[i].segsize ? strstr(t[i].name, ".seg") : NULL;
        if (!suffix)
            continue;
        product &= t[i].segsize % 1024 == 0;
        if (t[i].segsize == sizes[0]) {
            cs_buf_printf(&bases, " %.*s", (int)(suffix - t[i].name), t[i].name);
            nbases++;
        }
    }
    cs_buf_u8(&bases, 0);
    if (product && nbases * nsizes == nseg && !bases.oom) {
        cs_buf_printf(b, "; segmented: BASE.segNk, N =");
        for (int k = 0; k < nsizes; k++)
            cs_buf_printf(b, " %d", sizes[k] / 1024);
        cs_buf_printf(b, ", BASE =%s", (const char *)bases.p);
    } else {
        for (int i = 0; i < n; i++)
            if (t[i].segsize)
                cs_buf_printf(b, " %s", t[i].name);
    }
    cs_buf_free(&bases);
}

/* "COLLSEL_FORCE: unknown bcast method 'x'; ..." with the valid names. */
static void bad_method(const char *spec, int coll, const char *name)
{
    cs_buf b = {0};
    cs_buf_printf(&b, "COLLSEL_FORCE='%s': unknown %s method '%s'; %s stays native "
                      "(accepted:", spec, cs_coll_name(coll), name, cs_coll_name(coll));
    list_methods(&b, coll);
    cs_buf_printf(&b, "; `collsel methods` lists them)");
    cs_buf_u8(&b, 0);
    say(b.oom ? "COLLSEL_FORCE: unknown method (out of memory listing the valid ones)"
              : (const char *)b.p);
    cs_buf_free(&b);
}

/* s without leading and trailing blanks (in place). */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = 0;
    return s;
}

/* One "COLL=NAME" item of COLLSEL_FORCE (len bytes at s; blanks around
 * COLL and NAME are ignored). */
static void force_item(const char *spec, const char *s, size_t len, int force[CS_NCOLL])
{
    char buf[256];
    if (len >= sizeof buf) {
        cs_log(0, 1, "COLLSEL_FORCE: item '%.40s...' too long; ignored", s);
        return;
    }
    memcpy(buf, s, len);
    buf[len] = 0;
    char *item = trim(buf), *eq = strchr(item, '=');
    if (!*item)
        return;
    if (!eq) {
        cs_log(0, 1, "COLLSEL_FORCE='%s': '%s' is not COLL=METHOD (COLL: %s); ignored",
               spec, item, cs_coll_names());
        return;
    }
    *eq = 0;
    const char *cname = trim(item), *name = trim(eq + 1);
    int coll = cs_coll_from_name(cname);
    if (coll < 0) {
        cs_log(0, 1, "COLLSEL_FORCE='%s': unknown collective '%s' (accepted: %s); ignored",
               spec, cname, cs_coll_names());
        return;
    }
    int idx = cs_method_index((enum cs_coll)coll, name);
    if (idx < 0) { /* short form: "binomial" for "bcast.binomial" */
        char full[300];
        snprintf(full, sizeof full, "%s.%s", cname, name);
        idx = cs_method_index((enum cs_coll)coll, full);
    }
    if (idx < 0) {
        force[coll] = 0;
        bad_method(spec, coll, name);
        return;
    }
    force[coll] = idx;
}

void cs_force_parse(const char *spec, int force[CS_NCOLL])
{
    for (int c = 0; c < CS_NCOLL; c++)
        force[c] = -1;
    if (!spec)
        return;
    for (const char *s = spec, *end;; s = end + 1) {
        end = strchr(s, ',');
        force_item(spec, s, end ? (size_t)(end - s) : strlen(s), force);
        if (!end)
            break;
    }
}
