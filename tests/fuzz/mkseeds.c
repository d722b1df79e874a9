/* mkseeds OUTDIR FILE...: the fuzz targets' seed corpora from the files the
 * tests use and make.  Each FILE goes by content to OUTDIR/TARGET/:
 *   profile ("COLLSELP")  profile/ (as is, and 'P' + its bare payload),
 *                         partials/ (as is, and as a profile with partial
 *                         files and a spawned job's file);
 *   tree ("COLLSELT")     tree/ (as is, and its bare payload);
 *   anything else         perf/ (as is when small, and when it reads as a
 *                         table, its first rows written by collsel: magic,
 *                         trailer, and zstd).
 * env/ and mpich_defaults/ get a few inputs of their own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "record/profile.h"
#include "select/perf.h"

static const char *out;

static void put(const char *target, const char *name, const char *suffix, const void *a,
                size_t na, const void *b, size_t nb)
{
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/%s", out, target);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/%s%s", dir, name, suffix);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(a, 1, na, f) != na || (nb && fwrite(b, 1, nb, f) != nb) || fclose(f)) {
        perror(path);
        exit(1);
    }
}

static void text(const char *target, const char *name, const char *s)
{
    put(target, name, "", s, strlen(s), NULL, 0);
}

static void profile(const char *name, const unsigned char *d, size_t n)
{
    put("profile", name, "", d, n, NULL, 0);
    cs_profile p;
    cs_err e;
    if (cs_profile_decode(&p, d, n, name, &e) == 0) {
        cs_buf b = {0};
        cs_buf_u8(&b, 'P');
        cs_profile_serialize(&p, &b);
        put("profile", name, ".payload", b.p, b.n, NULL, 0);
        cs_buf_free(&b);
        cs_profile_free(&p);
    }
    put("partials", name, "", d, n, NULL, 0);
    cs_buf b = {0};
    cs_buf_put(&b, d, n);
    static const char *parts[] = {"partial.0", "partial.3", "spawn.77"};
    for (int k = 0; k < 3; k++) {
        cs_buf_printf(&b, "\n@@part@@\n%s\n", parts[k]);
        cs_buf_put(&b, d, n);
    }
    put("partials", name, ".parts", b.p, b.n, NULL, 0);
    cs_buf_free(&b);
}

/* Tables: small ones as they are; of each, its first PERF_ROWS rows as
 * collsel writes them (plain, and zstd-compressed). */
#define PERF_ROWS 48
static void perf(const char *name, const char *path, const unsigned char *d, size_t n)
{
    if (n <= 16384)
        put("perf", name, "", d, n, NULL, 0);
    cs_perf t;
    cs_err e;
    cs_perf_init(&t);
    if (cs_perf_read(&t, path, &e) == 0 && t.n > 0) {
        if (t.n > PERF_ROWS)
            t.n = PERF_ROWS;
        char o[4200];
        snprintf(o, sizeof o, "%s/perf/%s.magic.csv", out, name);
        cs_perf_write(&t, o, &e);
        snprintf(o, sizeof o, "%s/perf/%s.csv.zst", out, name);
        cs_perf_write(&t, o, &e);
    }
    cs_perf_free(&t);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: mkseeds OUTDIR FILE...\n");
        return 2;
    }
    out = argv[1];
    mkdir(out, 0755);
    for (int i = 2; i < argc; i++) {
        void *data;
        size_t n;
        cs_err e;
        if (cs_read_file(argv[i], &data, &n, &e) < 0) {
            fprintf(stderr, "mkseeds: %s\n", e.msg);
            return 1;
        }
        const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        if (n >= 8 && !memcmp(data, "COLLSELP", 8)) {
            profile(name, data, n);
        } else if (n >= 20 && !memcmp(data, "COLLSELT", 8)) {
            put("tree", name, "", data, n, NULL, 0);
            put("tree", name, ".payload", (char *)data + 20, n - 20, NULL, 0);
        } else {
            perf(name, argv[i], data, n);
        }
        free(data);
    }
    text("env", "all", "COLLSEL_RECORD=/tmp/x.prof\nCOLLSEL_TREE=t.tree\nCOLLSEL_VERBOSE=2\n"
                       "COLLSEL_SHM_LIMIT=64\nCOLLSEL_NODE_SIZE=2\n"
                       "COLLSEL_FORCE=bcast=binomial,reduce=reduce.rabenseifner,"
                       "barrier=shm.counter,allreduce=ring.seg64k\n");
    text("env", "bad", "COLLSEL_VERBOSE=9\nCOLLSEL_SHM_LIMIT=-1\nCOLLSEL_NODE_SIZE=x\n"
                       "COLLSEL_BOGUS=1\nCOLLSEL_FORCE=bcast=nope, gather=linear,reduce\n");
    text("env", "long", "COLLSEL_FORCE=bcast= pipeline.seg8k ,allreduce=reduce_bcast.binomial-"
                        "binomial,,=,bcast=\n");
    static const char lib[] =
        "\x7f" "ELF\0\0garbage\0{\"collective=bcast\":{\"comm_type=intra\":{\"comm_size<=8\":"
        "{\"MPIR_Bcast_intra_binomial\":{}},\"comm_size=any\":{\"MPIR_Bcast_intra_scatter_"
        "recursive_doubling_allgather\":{}}}},\"collective=reduce\":{\"comm_type=intra\":"
        "{\"MPIR_Reduce_intra_binomial\":{}}}}\0tail";
    put("mpich_defaults", "lib", "", lib, sizeof lib - 1, NULL, 0);
    return 0;
}
