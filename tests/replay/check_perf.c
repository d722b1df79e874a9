/* Test checker: a perf table written by collsel-replay holds exactly the
 * expected points, each with native and every method that applies there,
 * and sane times.
 *   check_perf PERF.csv POINT...   POINT = COLL:COMM_SIZE:BYTES (BYTES as
 *   measured: reduce sizes are multiples of 8; barrier 0)
 * A method is required where it applies for every root and is not a
 * segmented variant with segment >= message; it is allowed where it
 * applies for some root.  Runs under mpirun with 1 rank (the registry's
 * applies() may use MPI). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/perf.h"
#include "coll/coll.h"

static int fails;
#define FAIL(...) (fprintf(stderr, "check_perf: " __VA_ARGS__), fputc('\n', stderr), fails++)

static void fake_call(cs_call *c, int coll, unsigned cs, unsigned long long bytes, int root)
{
    /* the replay ran on one machine: every communicator is one node */
    static cs_comm_state st = {.node_local = 1};
    memset(c, 0, sizeof *c);
    c->st = &st;
    c->coll = (enum cs_coll)coll;
    c->size = (int)cs;
    c->rank = 0;
    c->root = root;
    c->comm = c->pcomm = MPI_COMM_NULL;
    c->bytes = (size_t)bytes;
    if (coll == CS_BCAST) {
        c->dt = MPI_BYTE;
        c->count = (int)bytes;
    } else if (coll == CS_REDUCE || coll == CS_ALLREDUCE) {
        c->dt = MPI_DOUBLE;
        c->count = (int)(bytes / 8);
        c->op = MPI_SUM;
        c->commute = 1;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cs_perf t;
    cs_err e;
    cs_perf_init(&t);
    if (argc < 3 || cs_perf_read(&t, argv[1], &e) < 0) {
        fprintf(stderr, "check_perf: %s\n", argc < 3 ? "usage: check_perf PERF POINT..." : e.msg);
        MPI_Finalize();
        return 1;
    }
    char *used = calloc(t.n ? t.n : 1, 1);
    for (int a = 2; a < argc; a++) {
        char cname[16];
        unsigned cs;
        unsigned long long bytes;
        int coll;
        if (sscanf(argv[a], "%15[^:]:%u:%llu", cname, &cs, &bytes) != 3 ||
            (coll = cs_coll_from_name(cname)) < 0) {
            FAIL("bad point '%s'", argv[a]);
            continue;
        }
        int nm;
        const cs_method *tab = cs_methods((enum cs_coll)coll, &nm);
        for (int i = 0; i < nm; i++) {
            int all = 1, some = 0;
            for (unsigned r = 0; r < cs; r++) {
                cs_call c;
                fake_call(&c, coll, cs, bytes, (int)r);
                int ok = cs_method_applies(&tab[i], &c);
                all &= ok;
                some |= ok;
            }
            int seg = tab[i].segsize; /* a composed method: its steps' segments */
            for (int k = 0; k < 2 && !seg && tab[i].part[k]; k++)
                seg = tab[i].part[k]->segsize;
            if (seg > 0 && (unsigned long long)seg >= bytes)
                all = some = 0;
            size_t found = 0;
            for (size_t k = 0; k < t.n; k++) {
                const cs_perf_row *r = &t.rows[k];
                if (r->coll != coll || r->comm_size != cs || r->msg_bytes != bytes ||
                    strcmp(r->method, tab[i].name))
                    continue;
                found++;
                used[k] = 1;
                if (!(r->median_us > 0 && r->min_us > 0 && r->min_us <= r->median_us &&
                      r->median_us <= r->max_us && r->reps >= 1))
                    FAIL("%s: bad times median %g min %g max %g reps %u", argv[a], r->median_us,
                         r->min_us, r->max_us, r->reps);
            }
            if (found > 1)
                FAIL("%s: %s measured %zu times", argv[a], tab[i].name, found);
            if ((i == 0 || all) && !found)
                FAIL("%s: %s applies but was not measured", argv[a], tab[i].name);
            if (i > 0 && !some && found)
                FAIL("%s: %s does not apply (or is redundant) but was measured", argv[a],
                     tab[i].name);
        }
    }
    /* COLL.segment (collsel-replay measures a segment's one-time cost once
     * per collective and communicator size where a shared-memory method
     * was measured): exactly one such row there, bytes 0, a sane time */
    for (size_t k = 0; k < t.n; k++) {
        const cs_perf_row *r = &t.rows[k];
        if (!used[k] || !strstr(r->method, ".shm"))
            continue;
        char want[64];
        snprintf(want, sizeof want, "%s.segment", cs_coll_name(r->coll));
        size_t found = 0;
        for (size_t q = 0; q < t.n; q++) {
            const cs_perf_row *s = &t.rows[q];
            if (s->coll != r->coll || s->comm_size != r->comm_size || strcmp(s->method, want))
                continue;
            found++;
            if (s->msg_bytes != 0 || !(s->median_us >= 0) || s->median_us > 1e7)
                FAIL("%s at %u ranks: bad row (bytes %llu, %g us)", want, s->comm_size,
                     (unsigned long long)s->msg_bytes, s->median_us);
            used[q] = 2;
        }
        if (found != 1 && used[k] == 1)
            FAIL("%s at %u ranks: %zu rows, expected 1 (%s was measured)", want, r->comm_size,
                 found, r->method);
    }
    for (size_t k = 0; k < t.n; k++)
        if (!used[k])
            FAIL("unexpected row: %s,%u,%llu,%s", cs_coll_name(t.rows[k].coll),
                 t.rows[k].comm_size, (unsigned long long)t.rows[k].msg_bytes, t.rows[k].method);
    if (!fails)
        printf("check_perf: %s: %zu rows, %d points, all as expected\n", argv[1], t.n, argc - 2);
    free(used);
    cs_perf_free(&t);
    MPI_Finalize();
    return fails ? 1 : 0;
}
