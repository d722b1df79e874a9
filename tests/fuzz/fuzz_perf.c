/* fuzz_perf: performance tables (select/perf.c): CSV with or without the
 * magic line and checksummed trailer, zstd-compressed or not, and the
 * decision maps built from them (select/map.c).
 * Input: the file's bytes.  A table the reader accepts must write (plain
 * and compressed) and read back with the same rows, and every collective
 * in it must build a map (small tables only: the map is cs x ms x
 * methods). */
#include "fuzz.h"

#include "select/map.h"
#include "select/render/render.h"

static void same_rows(const cs_perf *a, const cs_perf *b)
{
    FUZZ_ASSERT(a->n == b->n, "%zu rows read back as %zu", a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        const cs_perf_row *x = &a->rows[i], *y = &b->rows[i];
        FUZZ_ASSERT(x->coll == y->coll && x->comm_size == y->comm_size &&
                        x->msg_bytes == y->msg_bytes && !strcmp(x->method, y->method) &&
                        x->reps == y->reps,
                    "row %zu differs after writing and reading back", i);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char path[300], back[300], zback[300];
    fuzz_path(path, sizeof path, "in.csv");
    fuzz_path(back, sizeof back, "back.csv");
    fuzz_path(zback, sizeof zback, "back.csv.zst");
    fuzz_write(path, data, n);
    cs_err e = {{0}};
    int kind = cs_rinput_kind(path, &e);
    FUZZ_ASSERT(kind == CS_RIN_TREE || kind == CS_RIN_PERF, "input kind %d", kind);
    cs_perf t, b, z;
    cs_perf_init(&t);
    cs_perf_init(&b);
    cs_perf_init(&z);
    if (cs_perf_read(&t, path, &e) < 0) {
        fuzz_check_err(&e);
        FUZZ_ASSERT(t.n == 0, "a rejected table left %zu rows", t.n);
        goto out;
    }
    FUZZ_ASSERT(cs_perf_write(&t, back, &e) == 0, "write: %s", e.msg);
    FUZZ_ASSERT(cs_perf_read(&b, back, &e) == 0, "an accepted table does not read back: %s",
                e.msg);
    same_rows(&t, &b);
    FUZZ_ASSERT(cs_perf_write(&t, zback, &e) == 0, "write: %s", e.msg);
    FUZZ_ASSERT(cs_perf_read(&z, zback, &e) == 0,
                "an accepted table does not read back compressed: %s", e.msg);
    same_rows(&t, &z);
    if (t.n <= 256)
        for (int c = 0; c < CS_NCOLL; c++) {
            cs_map m;
            if (cs_map_build(&m, &t, c, NULL, &e) == 0) {
                for (int i = 0; i < m.ncs; i++)
                    for (int j = 0; j < m.nms; j++)
                        cs_map_decide(&m, i, j);
                cs_map_free(&m);
            } else {
                fuzz_check_err(&e);
            }
        }
out:
    cs_perf_free(&t);
    cs_perf_free(&b);
    cs_perf_free(&z);
    return 0;
}
