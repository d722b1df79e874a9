/* Every method of every registry can be exported: `collsel export` maps it
 * to an Open MPI and an MPICH algorithm (exact, closest, or the library's
 * own choice for the families it cannot name).  The registry is the one
 * list of methods; this test keeps the export tables in step with it (a
 * new family without a mapping fails here, not in a user's export). */
#include <stdio.h>

#include "coll/coll.h"
#include "select/render/render.h"

int main(void)
{
    int bad = 0, total = 0;
    for (int c = 0; c < CS_NCOLL; c++) {
        int n;
        const cs_method *t = cs_methods((enum cs_coll)c, &n);
        for (int i = 0; i < n; i++, total++)
            if (!cs_export_maps(t[i].name)) {
                fprintf(stderr, "FAIL: %s has no row in select/render/export.c's table\n",
                        t[i].name);
                bad++;
            }
    }
    printf("export_families: %d methods, %d without a mapping\n", total, bad);
    return bad != 0;
}
