/* Arrivals (record/arrivals.c): the split of one operation into wait and
 * completion, spread, late rank and lateness vector by hand; a rank that
 * leaves before the last arrival; merges in any order giving the same
 * cells; duplicates and incomplete operations counted, not used; the file
 * round trip; folding and shrinking; clocks compared within nodes only. */
#include <math.h>

#include "testprof.h"

static cs_arr_rec rec(uint64_t comm, uint64_t seq, uint32_t size, uint32_t rank, int64_t entry,
                      int64_t exit, uint32_t node, uint32_t wexp)
{
    cs_arr_rec r = {comm, seq, entry, exit, size, rank, 100 + rank, node,
                    CS_R_ALLREDUCE, (uint32_t)cs_bin_of(8), 0, wexp};
    return r;
}

static const cs_arr_cell *allreduce_cell(const cs_profile *p, uint32_t size)
{
    return cs_arr_find(p, CS_R_ALLREDUCE, size, (uint32_t)cs_bin_of(8));
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-12 + 1e-9 * fabs(b);
}

/* One operation of 3 ranks by hand: entries 0, 10, 30 us, exits 40, 45,
 * 50 us: last arrival 30 us, wait 30 + 20 + 0 us, completion 10 + 15 + 20
 * us, spread 30 us, late world rank 102, vector (0, 10000, 30000) ns. */
static void test_one_op(void)
{
    cs_profile p;
    cs_profile_init(&p);
    int64_t en[3] = {0, 10000, 30000}, ex[3] = {40000, 45000, 50000};
    for (uint32_t r = 0; r < 3; r++) {
        cs_arr_rec x = rec(7, 0, 3, r, en[r], ex[r], 0, 0);
        T_CHECK(cs_arr_add_rec(&p.arr, &x, "app+0x10 main+0x1") == 0, "add");
        T_CHECK(cs_arr_match(&p.arr) == 0, "match");
        T_CHECK(r == 2 || allreduce_cell(&p, 3) == NULL, "operation reduced before all ranks");
    }
    const cs_arr_cell *a = allreduce_cell(&p, 3);
    T_CHECK(a && a->entries == 3 && a->nops == 1 && p.arr.nrecs == 0, "not reduced");
    if (a) {
        T_CHECK(near(a->wait, 50e-6) && near(a->compl, 45e-6), "wait %g compl %g", a->wait,
                a->compl);
        T_CHECK(near(a->spread, 30e-6) && a->nlate == 1 && a->late[0].rank == 102,
                "spread %g late %d", a->spread, a->nlate ? a->late[0].rank : -1);
        T_CHECK(a->nvec == 1 && cs_arr_vec(a, 0)[0] == 0 && cs_arr_vec(a, 0)[1] == 10000 &&
                    cs_arr_vec(a, 0)[2] == 30000, "lateness vector");
        T_CHECK(a->nsites == 1 && !strcmp(a->sites[0].where, "app+0x10 main+0x1") &&
                    near(a->sites[0].wait, 50e-6), "call site");
        double q = cs_arr_spread_q(a, 0.5);
        T_CHECK(q >= 28e-6 && q <= 33e-6, "spread p50 %g", q);
    }
    /* the split scaled to a cell's recorded time */
    cs_cell c = {.coll = CS_R_ALLREDUCE, .comm_size = 3, .bin = (uint32_t)cs_bin_of(8),
                 .rank_calls = 3, .t_total = 1.9};
    double w, k;
    T_CHECK(cs_arr_split(&p, &c, &w, &k) == 0 && near(w, 1.0) && near(k, 0.9), "split %g %g", w,
            k);
    c.comm_size = 4;
    T_CHECK(cs_arr_split(&p, &c, &w, &k) < 0 && w == 0 && k == 0, "a cell without arrivals");
    cs_profile_free(&p);
}

/* A rank that leaves before the last arrival (a bcast's root): its wait
 * ends when it leaves, its completion is 0; wait + completion = exit -
 * entry for every rank. */
static void test_early_exit(void)
{
    cs_profile p;
    cs_profile_init(&p);
    cs_arr_rec x = rec(1, 5, 2, 0, 0, 10000, 0, 0), y = rec(1, 5, 2, 1, 100000, 120000, 0, 0);
    cs_arr_add_rec(&p.arr, &x, NULL);
    cs_arr_add_rec(&p.arr, &y, NULL);
    cs_arr_match(&p.arr);
    const cs_arr_cell *a = allreduce_cell(&p, 2);
    T_CHECK(a && near(a->wait, 10e-6) && near(a->compl, 20e-6), "early exit: wait %g compl %g",
            a ? a->wait : -1, a ? a->compl : -1);
    cs_profile_free(&p);
}

/* Pairs (an operation and the one before it on the communicator), by hand.
 * Op 0 (a bcast of 64 KiB): rank 0 leaves at 100 us, rank 1 at 160 us.
 * Op 1 (an allreduce): both worked 30 us since, so rank 0 arrives at 130,
 * rank 1 at 190; both leave at 200.  Rank 0's 60 us wait there is op 0's
 * uneven exit: had op 0 let both go at 160, both arrive at 190 and nobody
 * waits; their completion (10 us after the last arrival) stays.  Op 2, a
 * third call 1 ms later with no pair gap (seq 3: not op 1's successor),
 * pairs with nothing.  The pair sums survive the file round trip; a
 * version 3 payload has none ("not recorded"). */
static void test_pairs(void)
{
    cs_profile p;
    cs_profile_init(&p);
    cs_arr_rec b0 = rec(9, 0, 2, 0, 0, 100000, 0, 0), b1 = rec(9, 0, 2, 1, 0, 160000, 0, 0);
    b0.coll = b1.coll = CS_R_BCAST;
    b0.bin = b1.bin = (uint32_t)cs_bin_of(65536);
    cs_arr_rec a0 = rec(9, 1, 2, 0, 130000, 200000, 0, 0), a1 = rec(9, 1, 2, 1, 190000, 200000, 0, 0);
    cs_arr_rec c0 = rec(9, 3, 2, 0, 1200000, 1210000, 0, 0), c1 = rec(9, 3, 2, 1, 1200000, 1210000, 0, 0);
    cs_arr_rec *all[6] = {&a1, &b0, &c0, &a0, &c1, &b1}; /* any order */
    for (int i = 0; i < 6; i++)
        cs_arr_add_rec(&p.arr, all[i], NULL);
    T_CHECK(cs_arr_match(&p.arr) == 0 && p.arr.pairs, "match");
    const cs_arr_cell *a = allreduce_cell(&p, 2);
    const cs_arr_cell *b = cs_arr_find(&p, CS_R_BCAST, 2, (uint32_t)cs_bin_of(65536));
    T_CHECK(a && b, "cells");
    if (a && b) {
        T_CHECK(a->npair == 1 && near(a->pwait, 60e-6) && near(a->swait, 0) && a->nprev == 0,
                "successor: %g pairs, wait %g, had the bcast released together %g", a->npair,
                a->pwait, a->swait);
        T_CHECK(near(cs_arr_gap(&p, a), 30e-6) && cs_arr_gap(&p, b) < 0,
                "between the calls: each rank 30 us after it left the bcast (%g); the bcast "
                "has no predecessor (%g)", cs_arr_gap(&p, a), cs_arr_gap(&p, b));
        T_CHECK(b->nprev == 1 && near(b->induced, 60e-6) && near(b->lag, 60e-6) && b->npair == 0,
                "predecessor: %g, induced %g, lag %g", b->nprev,
                b->induced, b->lag);
        /* cells recorded 10 000 x as long as measured (the allreduces: 60 us
         * of wait and 10 + 10 us of completion, then 10 + 10 us; the bcast
         * 100 + 160 us) */
        cs_cell ca = {.coll = CS_R_ALLREDUCE, .comm_size = 2, .bin = (uint32_t)cs_bin_of(8),
                      .rank_calls = 4, .t_total = 1.0};
        cs_cell cb = {.coll = CS_R_BCAST, .comm_size = 2, .bin = (uint32_t)cs_bin_of(65536),
                      .rank_calls = 2, .t_total = 2.6};
        double caused, causes, lag;
        T_CHECK(cs_arr_induced(&p, &ca, &caused, &causes, &lag) == 0 && near(caused, 0.6) &&
                    causes == 0 && lag == 0,
                "the allreduce's wait (0.6 s) is all the bcast's exits: %g", caused);
        T_CHECK(cs_arr_induced(&p, &cb, &caused, &causes, &lag) == 0 && caused == 0 &&
                    near(causes, 0.6) && near(lag, 0.6),
                "the bcast causes %g s of wait, lags %g s", causes, lag);
    }
    /* round trip; version 3 drops the sums */
    cs_buf buf = {0};
    cs_profile q;
    cs_err e;
    T_CHECK(cs_profile_serialize(&p, &buf) == 0, "serialize");
    T_CHECK(cs_profile_deserialize(&q, buf.p, buf.n, &e) == 0, "deserialize: %s", e.msg);
    const cs_arr_cell *qb = cs_arr_find(&q, CS_R_BCAST, 2, (uint32_t)cs_bin_of(65536));
    T_CHECK(q.arr.pairs && qb && qb->nprev == 1 && near(qb->induced, 60e-6), "pairs kept");
    const cs_arr_cell *qa = allreduce_cell(&q, 2);
    T_CHECK(q.arr.gaps && near(cs_arr_gap(&q, qa), 30e-6), "gap kept: %g", cs_arr_gap(&q, qa));
    q.arr.gaps = 0; /* what a version 4 file reads as */
    T_CHECK(cs_arr_gap(&q, qa) < 0, "no gap in a version 4 profile");
    cs_cell cb = {.coll = CS_R_BCAST, .comm_size = 2, .bin = (uint32_t)cs_bin_of(65536),
                  .rank_calls = 2, .t_total = 2.6};
    double caused, causes;
    T_CHECK(cs_arr_induced(&q, &cb, &caused, &causes, NULL) == 0, "pairs read");
    q.arr.pairs = 0; /* what a version 3 file reads as */
    T_CHECK(cs_arr_induced(&q, &cb, &caused, &causes, NULL) < 0 && caused == 0 && causes == 0,
            "pairs of a version 3 profile");
    cs_profile_free(&q);
    cs_buf_free(&buf);
    cs_profile_free(&p);
}

/* Rank r's records of a random run: 3 communicators (sizes 4, 2, 2), ops
 * with random arrivals; some thinned (wexp 3), some missing on one rank. */
static void rank_profile(cs_profile *p, uint32_t r)
{
    cs_profile_init(p);
    p->nranks = 1;
    t_rng = 12345; /* the same run seen by every rank */
    for (uint64_t op = 0; op < 300; op++) {
        uint64_t comm = 1 + t_below(3);
        uint32_t size = comm == 1 ? 4 : 2, first = comm == 3 ? 2 : 0;
        int64_t base = (int64_t)op * 1000000;
        uint32_t wexp = op < 40 ? 0 : 3;
        int missing = op % 97 == 50;
        for (uint32_t k = 0; k < size; k++) {
            int64_t en = base + (int64_t)t_below(50000), ex = base + 60000 + (int64_t)t_below(9000);
            if (first + k == r && !(missing && k == 1)) {
                cs_arr_rec x = rec(comm, op, size, k, en, ex, (first + k) / 2, wexp);
                x.world_rank = first + k;
                cs_arr_add_rec(&p->arr, &x, k == 0 ? "site A" : "site B");
            }
        }
    }
    cs_arr_match(&p->arr);
}

static void cells_eq(const cs_arr *x, const cs_arr *y, const char *what)
{
    T_CHECK(x->ncells == y->ncells && x->nrecs == y->nrecs && x->unmatched == y->unmatched,
            "%s: %zu/%zu cells, %zu/%zu pending, %llu/%llu unmatched", what, x->ncells, y->ncells,
            x->nrecs, y->nrecs, (unsigned long long)x->unmatched,
            (unsigned long long)y->unmatched);
    for (size_t i = 0; i < x->ncells && i < y->ncells; i++) {
        const cs_arr_cell *a = &x->cells[i], *b = &y->cells[i];
        T_CHECK(a->entries == b->entries && a->nops == b->nops && near(a->wait, b->wait) &&
                    near(a->compl, b->compl) && near(a->spread, b->spread) &&
                    near(a->ops, b->ops) && a->nvec == b->nvec && a->nlate == b->nlate,
                "%s: cell %zu differs", what, i);
        for (uint32_t k = 0; k < a->nlate && k < b->nlate; k++)
            T_CHECK(a->late[k].rank == b->late[k].rank && near(a->late[k].ops, b->late[k].ops),
                    "%s: cell %zu late rank %u", what, i, k);
        double pa = 0, pb = 0;
        for (uint32_t k = 0; k < a->nvec && k < b->nvec; k++)
            pa += a->prio[k], pb += b->prio[k];
        T_CHECK(near(pa, pb), "%s: cell %zu keeps other vectors", what, i);
    }
}

static void test_merge_orders(void)
{
    cs_profile r[4], lin, rev, tree, t2;
    for (uint32_t k = 0; k < 4; k++)
        rank_profile(&r[k], k);
    T_CHECK(r[0].arr.nrecs > 0 && r[0].arr.ncells == 0, "one rank matched nothing on its own");
    cs_profile_init(&lin);
    cs_profile_init(&rev);
    for (int k = 0; k < 4; k++) {
        cs_profile_merge(&lin, &r[k]);
        cs_profile_merge(&rev, &r[3 - k]);
    }
    cs_profile_init(&tree); /* (0 + 1) + (2 + 3), as the binomial merge */
    cs_profile_init(&t2);
    cs_profile_merge(&tree, &r[0]);
    cs_profile_merge(&tree, &r[1]);
    cs_profile_merge(&t2, &r[2]);
    cs_profile_merge(&t2, &r[3]);
    cs_profile_merge(&tree, &t2);
    cs_arr_match(&lin.arr);
    cs_arr_match(&rev.arr);
    cs_arr_match(&tree.arr);
    T_CHECK(lin.arr.ncells > 0, "nothing matched");
    cells_eq(&lin.arr, &rev.arr, "reverse order");
    cells_eq(&lin.arr, &tree.arr, "tree order");
    T_CHECK(lin.arr.nrecs > 0, "the operations missing a rank's record are pending");
    /* every rank entry matched is in exactly one cell: entries + pending = records */
    uint64_t ent = 0, recs = 0;
    for (size_t i = 0; i < lin.arr.ncells; i++)
        ent += lin.arr.cells[i].entries;
    for (int k = 0; k < 4; k++)
        recs += r[k].arr.nrecs;
    T_CHECK(ent + lin.arr.nrecs == recs, "%llu entries + %zu pending != %llu records",
            (unsigned long long)ent, lin.arr.nrecs, (unsigned long long)recs);
    size_t pend = lin.arr.nrecs;
    cs_arr_finish(&lin.arr);
    T_CHECK(lin.arr.nrecs == 0 && lin.arr.unmatched == pend, "finish: unmatched %llu",
            (unsigned long long)lin.arr.unmatched);
    /* a rank's file merged twice: its records counted once, duplicates unmatched */
    cs_profile_merge(&rev, &r[2]);
    cs_arr_match(&rev.arr);
    T_CHECK(rev.arr.unmatched > 0, "duplicates not noticed");
    for (size_t i = 0; i < rev.arr.ncells && i < tree.arr.ncells; i++)
        T_CHECK(rev.arr.cells[i].entries == tree.arr.cells[i].entries, "duplicates counted");

    /* file round trip, with pending records and vectors */
    cs_buf b = {0};
    cs_profile q;
    cs_err e;
    T_CHECK(cs_profile_serialize(&tree, &b) == 0, "serialize");
    T_CHECK(cs_profile_deserialize(&q, b.p, b.n, &e) == 0, "deserialize: %s", e.msg);
    cells_eq(&tree.arr, &q.arr, "round trip");
    T_CHECK(q.arr.nsites == tree.arr.nsites && q.arr.recorded == 1, "round trip sites");
    /* truncated anywhere inside the arrivals: rejected */
    size_t bad = 0;
    for (size_t cut = b.n - 1; cut > b.n - 400 && cut > 0; cut -= 7) {
        cs_profile z;
        if (cs_profile_deserialize(&z, b.p, cut, &e) == 0) {
            bad++;
            cs_profile_free(&z);
        }
    }
    T_CHECK(bad == 0, "%zu truncated payloads read", bad);
    cs_buf_free(&b);
    cs_profile_free(&q);

    /* folding to communicator sizes in powers of two: 4 and 2 stay (no
     * vector dropped); level 10 (size 1): vectors dropped, sums kept */
    double w0 = 0;
    uint64_t vec = 0;
    for (size_t i = 0; i < tree.arr.ncells; i++)
        w0 += tree.arr.cells[i].wait, vec += tree.arr.cells[i].nvec;
    cs_profile_fold(&tree, 10);
    double w1 = 0;
    uint64_t vec1 = 0;
    for (size_t i = 0; i < tree.arr.ncells; i++)
        w1 += tree.arr.cells[i].wait, vec1 += tree.arr.cells[i].nvec;
    T_CHECK(near(w0, w1) && vec1 == 0 && tree.arr.vec_dropped == vec && tree.arr.ncells == 1,
            "fold: wait %g -> %g, %llu vectors left, %llu dropped, %zu cells", w0, w1,
            (unsigned long long)vec1, (unsigned long long)tree.arr.vec_dropped,
            tree.arr.ncells);

    /* shrinking: vectors halved first, then pending records thinned */
    uint32_t most = 0;
    for (size_t i = 0; i < lin.arr.ncells; i++)
        most = lin.arr.cells[i].nvec > most ? lin.arr.cells[i].nvec : most;
    T_CHECK(most > 1 && cs_arr_shrink(&lin.arr) == 0, "shrink vectors");
    for (size_t i = 0; i < lin.arr.ncells; i++)
        T_CHECK(lin.arr.cells[i].nvec <= most / 2, "vectors not halved");
    size_t n0 = r[1].arr.nrecs;
    while (cs_arr_shrink(&r[1].arr) == 0 && r[1].arr.nrecs == n0)
        ;
    T_CHECK(r[1].arr.nrecs < n0 && r[1].arr.dropped == n0 - r[1].arr.nrecs,
            "thinning: %zu -> %zu records, %llu dropped", n0, r[1].arr.nrecs,
            (unsigned long long)r[1].arr.dropped);
    for (size_t i = 0; i < r[1].arr.nrecs; i++)
        T_CHECK(r[1].arr.recs[i].wexp == 0 ||
                    cs_arr_level(r[1].arr.recs[i].comm, r[1].arr.recs[i].seq) >=
                        r[1].arr.recs[i].wexp, "a record kept below its level");
    /* shrinking ends, with every vector and pending record gone, the sums kept */
    cs_profile_merge(&lin, &r[0]);
    cs_arr_match(&lin.arr);
    double wl = 0;
    for (size_t i = 0; i < lin.arr.ncells; i++)
        wl += lin.arr.cells[i].wait;
    int steps = 0;
    while (steps < 200 && cs_arr_shrink(&lin.arr) == 0)
        steps++;
    uint64_t left = lin.arr.nrecs;
    double wl2 = 0;
    for (size_t i = 0; i < lin.arr.ncells; i++)
        left += lin.arr.cells[i].nvec, wl2 += lin.arr.cells[i].wait;
    T_CHECK(steps < 200 && left == 0 && near(wl, wl2), "shrink: %d steps, %llu left", steps,
            (unsigned long long)left);
    for (int k = 0; k < 4; k++)
        cs_profile_free(&r[k]);
    cs_profile_free(&lin);
    cs_profile_free(&rev);
    cs_profile_free(&tree);
    cs_profile_free(&t2);
}

/* Clocks not comparable: 2 nodes of 2 ranks whose clocks are an hour
 * apart; the wait is within each node. */
static void test_node_clocks(void)
{
    cs_profile p;
    cs_profile_init(&p);
    p.arr.clock = CS_ARR_CLOCK_NODE;
    int64_t hour = 3600000000000;
    int64_t en[4] = {0, 10000, hour, hour + 4000};
    for (uint32_t r = 0; r < 4; r++) {
        cs_arr_rec x = rec(3, 0, 4, r, en[r], en[r] + 20000, r / 2, 0);
        cs_arr_add_rec(&p.arr, &x, NULL);
    }
    p.arr.clock = CS_ARR_CLOCK_NODE;
    cs_arr_match(&p.arr);
    const cs_arr_cell *a = allreduce_cell(&p, 4);
    T_CHECK(a && near(a->wait, 14e-6) && a->nops == 0 && a->nvec == 0,
            "within nodes: wait %g (expected 10 + 4 us), %llu ops", a ? a->wait : -1,
            a ? (unsigned long long)a->nops : 0ull);
    cs_profile_free(&p);
}

/* More operations than vectors kept: CS_ARR_VECS kept, heavier ones more
 * likely (priority u / weight). */
static void test_vectors_bounded(void)
{
    cs_profile p;
    cs_profile_init(&p);
    for (uint64_t op = 0; op < 1000; op++)
        for (uint32_t r = 0; r < 2; r++) {
            cs_arr_rec x = rec(9, op, 2, r, (int64_t)(op * 1000 + r * 7), (int64_t)op * 1000 + 500,
                               0, op < 500 ? 0 : 6);
            cs_arr_add_rec(&p.arr, &x, NULL);
        }
    cs_arr_match(&p.arr);
    const cs_arr_cell *a = allreduce_cell(&p, 2);
    T_CHECK(a && a->nvec == CS_ARR_VECS, "vectors kept: %u", a ? a->nvec : 0);
    T_CHECK(a && near(a->ops, 500 + 500 * 64.0) && near(a->n, 2 * (500 + 500 * 64.0)),
            "weighted operations %g", a ? a->ops : -1);
    cs_profile_free(&p);
}

int main(void)
{
    test_one_op();
    test_early_exit();
    test_pairs();
    test_merge_orders();
    test_node_clocks();
    test_vectors_bounded();
    if (t_failures)
        fprintf(stderr, "test_arrivals: %d failures\n", t_failures);
    return t_failures ? 1 : 0;
}
