/* Every name `collsel export` can write for a target is one that target
 * knows (select/render/export_target.c's lists: the single source), for
 * every row of the export tables; and the lists agree with the MPICH
 * library installed here, if any: every algorithm the list of its
 * release's target names is in the library, no name the target is said
 * not to know is used by the library's own rules.  COLLSEL_MPICH_LIB
 * names another library (then COLLSEL_MPICHVERSION its mpichversion). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/render/export_target.h"
#include "select/render/render.h"

/* The installed MPICH library against its release's target's lists. */
static int check_installed(void)
{
    const char *lib = getenv("COLLSEL_MPICH_LIB");
    int ver[3];
    char desc[160];
    if (!lib)
        lib = "/usr/lib/x86_64-linux-gnu/libmpich.so.12";
    void *data;
    size_t n;
    cs_err e = {{0}};
    if (!cs_mpi_installed(CS_XLIB_MPICH, ver, desc, sizeof desc) ||
        cs_read_file(lib, &data, &n, &e) < 0) {
        printf("export_targets: no MPICH installed (%s): its lists not checked\n", lib);
        return 0;
    }
    const cs_xtarget *t = cs_xtarget_for(CS_XLIB_MPICH, NULL, ver);
    int bad = 0;
    for (const char *const *a = t->mpich_algs; *a; a++) {
        char key[160];
        snprintf(key, sizeof key, "algorithm=%s\"", *a);
        if (!memmem(data, n, key, strlen(key))) {
            fprintf(stderr, "FAIL: %s lists %s, which %s (%s) does not use\n", t->name, *a, lib,
                    desc);
            bad++;
        }
    }
    for (const char *const *u = t->mpich_unknown; *u; u++) {
        char key[160];
        snprintf(key, sizeof key, "\"%s%s", *u, (*u)[strlen(*u) - 1] == '=' ? "" : "\"");
        if (memmem(data, n, key, strlen(key))) {
            fprintf(stderr, "FAIL: %s says %s is unknown, but %s (%s) uses it\n", t->name, *u,
                    lib, desc);
            bad++;
        }
    }
    printf("export_targets: %s (%s): %s's lists checked against it\n", lib, desc, t->name);
    free(data);
    return bad;
}

int main(void)
{
    int n, bad = 0;
    const cs_xtarget *t = cs_xtargets(&n);
    for (int i = 0; i < n; i++) {
        int b = cs_export_table_check(&t[i], stderr);
        printf("export_targets: %-10s %d name%s the target would reject\n", t[i].name, b,
               b == 1 ? "" : "s");
        bad += b;
    }
    bad += check_installed();
    return bad != 0;
}
