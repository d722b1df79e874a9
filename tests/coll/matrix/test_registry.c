/* The registry: names follow the naming rule and are unique, entry 0 is
 * native, parameters agree with the name, look-ups agree with the tables.
 * Pure table checks: MPI is linked but never initialised. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"

static int errors;
#define CHECK(cond, ...)                          \
    do {                                          \
        if (!(cond)) {                            \
            fprintf(stderr, "FAIL: " __VA_ARGS__); \
            fputc('\n', stderr);                  \
            errors++;                             \
        }                                         \
    } while (0)

/* The suffixes of the naming rule COLL.ALGO[.kN][.segNk]. */
static void check_name(const cs_method *m, const char *coll)
{
    size_t cl = strlen(coll);
    CHECK(!strncmp(m->name, coll, cl) && m->name[cl] == '.', "%s: not prefixed '%s.'", m->name,
          coll);
    const char *rest = m->name + cl + 1;
    size_t al = strlen(m->algo);
    CHECK(!strncmp(rest, m->algo, al) && (rest[al] == 0 || rest[al] == '.'),
          "%s: algorithm '%s' is not the name's second part", m->name, m->algo);
    const char *seg = strstr(rest, ".seg");
    if (m->segsize > 0) {
        char want[32];
        snprintf(want, sizeof want, ".seg%dk", m->segsize / 1024);
        int ok = m->segsize % 1024 == 0 && seg && !strcmp(seg, want);
        int kib = m->segsize / 1024;
        ok = ok && (kib == 1 || kib == 8 || kib == 16 || kib == 32 || kib == 64 || kib == 128);
        CHECK(ok, "%s: segsize %d does not match the name (want suffix %s)", m->name,
              m->segsize, want);
    } else {
        CHECK(!seg, "%s: .seg suffix but segsize 0", m->name);
    }
    const char *k = strstr(rest, ".k"); /* the ".kN" token, not ".knomial" */
    while (k && !(k[2] >= '0' && k[2] <= '9'))
        k = strstr(k + 2, ".k");
    if (k) {
        int n = atoi(k + 2);
        CHECK(n == m->fanout, "%s: name says k%d, fanout is %d", m->name, n, m->fanout);
    }
}

int main(void)
{
    int total = 0;
    for (int c = 0; c < CS_NCOLL; c++) {
        const char *cn = cs_coll_name(c);
        int n;
        const cs_method *t = cs_methods((enum cs_coll)c, &n);
        CHECK(t && n >= 2, "%s: table missing or only native (n = %d)", cn, n);
        if (!t)
            continue;
        char native[32];
        snprintf(native, sizeof native, "%s.native", cn);
        CHECK(!strcmp(t[0].name, native) && !t[0].applies, "%s: entry 0 is %s, not %s", cn,
              t[0].name, native);
        for (int i = 0; i < n; i++, total++) {
            const cs_method *m = &t[i];
            CHECK((int)m->coll == c, "%s: coll %d in the %s table", m->name, m->coll, cn);
            CHECK(m->fn && m->algo && m->desc && m->desc[0], "%s: missing fn/algo/desc", m->name);
            check_name(m, cn);
            CHECK(cs_method_index((enum cs_coll)c, m->name) == i, "%s: index is not %d", m->name,
                  i);
            enum cs_coll fc = CS_NCOLL;
            int fi = -1;
            CHECK(cs_method_find(m->name, &fc, &fi) == m && (int)fc == c && fi == i,
                  "%s: cs_method_find disagrees", m->name);
            for (int c2 = 0; c2 < CS_NCOLL; c2++) {
                int n2;
                const cs_method *t2 = cs_methods((enum cs_coll)c2, &n2);
                for (int j = 0; j < n2; j++)
                    CHECK(&t2[j] == m || strcmp(t2[j].name, m->name), "%s: name not unique",
                          m->name);
            }
        }
    }
    CHECK(cs_method_index(CS_BCAST, "bcast.nonexistent") == -1, "unknown name has an index");
    CHECK(cs_method_index(CS_BCAST, "barrier.linear") == -1, "barrier name found in bcast");
    CHECK(cs_method_find("nonsense", NULL, NULL) == NULL, "cs_method_find('nonsense')");
    int n;
    CHECK(cs_methods(CS_NCOLL, &n) == NULL && n == 0, "cs_methods(out of range)");

    /* applies(): native always; barrier.two_proc only on 2 ranks. */
    cs_call c = {.coll = CS_BARRIER, .size = 3, .count = 0};
    const cs_method *tp = cs_method_find("barrier.two_proc", NULL, NULL);
    CHECK(tp != NULL, "barrier.two_proc missing");
    if (tp) {
        CHECK(!cs_method_applies(tp, &c), "two_proc applies to 3 ranks");
        c.size = 2;
        CHECK(cs_method_applies(tp, &c), "two_proc does not apply to 2 ranks");
    }
    CHECK(cs_method_applies(&cs_methods(CS_BARRIER, &n)[0], &c), "native does not apply");
    printf("registry: %d methods checked, %d errors\n", total, errors);
    return errors != 0;
}
