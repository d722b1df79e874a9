/* Arrivals of the recorded calls (record/arrivals.h for the data model):
 * the communicators' states (call numbers, keys, rings), the clock, and
 * the pending records handed to the profile.
 *
 * Communicator key: a hash of the members' world ranks in communicator
 * rank order and of how many communicators with the same members this
 * process had seen before (members create communicators in the same
 * order, so every member computes the same key, without any message).
 *
 * Clock: the hot path reads ticks (rec.h); they are mapped to
 * CLOCK_MONOTONIC, which every process of a node shares, by two
 * calibration points (MPI_Init, and the moment the profile is built), each
 * a clock_gettime between two tick reads (the closest pair of 5).  The
 * error within a node is that of the two points: tens of ns.
 * Across nodes each node's offset to world rank 0's node is estimated at
 * MPI_Init and MPI_Finalize: the node's leader sends to rank 0 PP_ROUNDS
 * times, rank 0 answers with its clock; offset = rank 0's time - the
 * midpoint of the round trip, from the fastest round (Cristian 1989).
 * Between the two the offset moves linearly (drift).  The remaining error
 * is at most half the fastest round trip (the asymmetry of the two
 * directions) plus any non-linear drift, and clock_err reports the first
 * part (max over nodes).  A drift counts only beyond what the two
 * estimates' errors explain.  A partial file (a job killed before
 * MPI_Finalize) has the MPI_Init offsets only: the drift since then adds
 * to its error (typically some us per second of run on NTP-disciplined
 * clocks).  Clocks that cannot be compared (a clock that went backwards
 * during the measurement, an offset beyond CLOCK_HUGE_NS, a fastest
 * round trip above CLOCK_RTT_MAX_NS, a drift above DRIFT_MAX): one line,
 * and wait and completion are taken within nodes (CS_ARR_CLOCK_NODE).
 */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rec.h"

#define CS_ACOMMS 256                     /* communicator states per process */
#define PP_ROUNDS 32
#define PP_TAG 7302
#define CLOCK_HUGE_NS ((int64_t)1 << 56)  /* about 2.3 years */
#define CLOCK_RTT_MAX_NS 20000000         /* 20 ms: an error bound of 10 ms */
#define DRIFT_MAX 1e-3                    /* 1000 ppm */

static cs_acomm *slots[CS_ACOMMS]; /* append-only, published with release */
static size_t nslots;              /* under mu */
static cs_acomm off_state = {.off = 1, .level = CS_ARR_LEVEL0};
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uint64_t hash, count;
} occ[CS_ACOMMS]; /* communicators seen per membership (under mu) */
static size_t nocc;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ---- communicator states ------------------------------------------------- */

static cs_acomm *find(uintptr_t h)
{
    for (size_t i = 0; i < CS_ACOMMS; i++) {
        cs_acomm *a = __atomic_load_n(&slots[i], __ATOMIC_ACQUIRE);
        if (!a)
            return NULL;
        if (__atomic_load_n(&a->handle, __ATOMIC_RELAXED) == h)
            return a;
    }
    return NULL;
}

/* The key of comm (caller holds mu). */
static uint64_t comm_key(MPI_Comm comm, int size)
{
    MPI_Group g, wg;
    uint64_t h = 0xcbf29ce484222325ull;
    int *r = malloc(2 * (size_t)size * sizeof *r);
    if (r && PMPI_Comm_group(comm, &g) == MPI_SUCCESS) {
        PMPI_Comm_group(MPI_COMM_WORLD, &wg);
        for (int i = 0; i < size; i++)
            r[i] = i;
        PMPI_Group_translate_ranks(g, size, r, wg, r + size);
        for (int i = 0; i < size; i++)
            h = (h ^ (uint32_t)r[size + i]) * 0x100000001b3ull;
        PMPI_Group_free(&g);
        PMPI_Group_free(&wg);
    }
    free(r);
    size_t i;
    for (i = 0; i < nocc && occ[i].hash != h; i++)
        ;
    if (i == nocc && nocc < CS_ACOMMS)
        occ[nocc++] = (__typeof__(occ[0])){h, 0};
    uint64_t n = i < nocc ? occ[i].count++ : 0;
    return mix64(h ^ mix64(n + 1));
}

/* Per thread, the last states found (valid while no handle was freed,
 * rec.h's generation: a freed handle may name a new communicator). */
#define TL_AC 8 /* power of two */
static __thread struct {
    uintptr_t h;
    unsigned gen;
    cs_acomm *a;
} tl_ac[TL_AC] __attribute__((tls_model("initial-exec")));

static cs_acomm *remember(uintptr_t h, unsigned gen, cs_acomm *a)
{
    __typeof__(tl_ac[0]) *e = &tl_ac[((h >> 4) ^ (h >> 11)) & (TL_AC - 1)];
    e->h = h;
    e->gen = gen;
    e->a = a;
    return a;
}

cs_acomm *cs_arr_comm(MPI_Comm comm)
{
    uintptr_t h = (uintptr_t)comm;
    unsigned gen = __atomic_load_n(&cs_handle_gen, __ATOMIC_RELAXED);
    __typeof__(tl_ac[0]) *e = &tl_ac[((h >> 4) ^ (h >> 11)) & (TL_AC - 1)];
    if (e->a && e->h == h && e->gen == gen)
        return e->a;
    cs_acomm *a = find(h);
    if (a)
        return remember(h, gen, a);
    int inter = 0, size = 0, rank = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return remember(h, gen, &off_state); /* arrivals of two groups: not tracked */
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
    pthread_mutex_lock(&mu);
    if ((a = find(h)) == NULL && nslots < CS_ACOMMS && (a = calloc(1, sizeof *a)) != NULL) {
        a->key = comm_key(comm, size);
        a->level = CS_ARR_LEVEL0;
        a->size = (uint32_t)size;
        a->rank = (uint32_t)rank;
        a->handle = h;
        __atomic_store_n(&slots[nslots++], a, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&mu);
    return remember(h, gen, a ? a : &off_state);
}

void cs_arr_thin(cs_acomm *a)
{
    __atomic_store_n(&a->tgen, a->tgen + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    uint32_t k = 0, lv = a->level + 1;
    for (uint32_t i = 0; i < a->n; i++) {
        const cs_arr_ent *e = &a->ent[i];
        if (e->first || cs_arr_level(a->key, e->seq) >= lv)
            a->ent[k++] = *e;
    }
    a->dropped += a->n - k;
    a->level = lv;
    __atomic_store_n(&a->n, k, __ATOMIC_RELAXED);
    __atomic_store_n(&a->tgen, a->tgen + 1, __ATOMIC_RELEASE);
}

void cs_arr_comm_freed(MPI_Comm comm)
{
    pthread_mutex_lock(&mu);
    cs_acomm *a = find((uintptr_t)comm);
    if (a)
        __atomic_store_n(&a->handle, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&mu);
}

/* ---- clock --------------------------------------------------------------- */

static uint64_t tick_a;  /* calibration point at MPI_Init: ticks ... */
static int64_t mono_a;   /* ... and CLOCK_MONOTONIC ns at the same moment */
static int64_t shift;    /* COLLSEL_CLOCK_SHIFT x the node's index (testing) */
static uint32_t node_id; /* world rank of the node's leader */
static uint32_t mode = CS_ARR_CLOCK_GLOBAL;
static int64_t off_i, off_f, t_i, t_f; /* offsets to rank 0 and when (local ns) */
static int64_t rtt_i;                  /* this node's fastest round trip at MPI_Init */
static int have_f;
static int64_t rtt_max; /* fastest round trip, max over nodes (ns) */

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void calibrate(uint64_t *tick, int64_t *mono)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = cs_ticks();
        int64_t m = mono_ns();
        uint64_t b = cs_ticks();
        if (b - a < best) {
            best = b - a;
            *tick = a + (b - a) / 2;
            *mono = m;
        }
    }
}

static int64_t local_now(void)
{
    return mono_ns() + shift;
}

static const char *why_text(int why)
{
    switch (why) {
    case 1: return "a clock went backwards during the measurement";
    case 2: return "offset beyond 2^56 ns";
    case 3: return "round trips above 20 ms";
    case 4: return "drift above 1000 ppm between MPI_Init and MPI_Finalize";
    default: return "?";
    }
}

/* The node split of pcomm (COLLSEL_NODE_SIZE's virtual nodes too). */
static MPI_Comm node_comm(MPI_Comm pcomm, int rank)
{
    MPI_Comm node = MPI_COMM_NULL, v;
    int nrank = 0, nsize = 1;
    if (PMPI_Comm_split_type(pcomm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) !=
        MPI_SUCCESS)
        PMPI_Comm_split(pcomm, rank, 0, &node); /* alone */
    PMPI_Comm_rank(node, &nrank);
    PMPI_Comm_size(node, &nsize);
    if (cs_cfg.node_size > 0 && cs_cfg.node_size < nsize &&
        PMPI_Comm_split(node, nrank / cs_cfg.node_size, nrank, &v) == MPI_SUCCESS) {
        PMPI_Comm_free(&node);
        node = v;
    }
    return node;
}

/* The node and the nodes' leaders, made at MPI_Init, freed after the
 * measurement at MPI_Finalize (no communicator is made there). */
static MPI_Comm node = MPI_COMM_NULL, leaders = MPI_COMM_NULL;

/* Measure this node's offset to world rank 0's: off (ns, add to a local
 * time), the fastest round trip, and why it cannot be used (0: it can).
 * Collective over pcomm.  first: also make the communicators, set node_id
 * and shift. */
static void measure(MPI_Comm pcomm, int first, int64_t *off, int64_t *rtt, int *why)
{
    int rank = 0, nrank = 0, lrank = 0, lsize = 1;
    PMPI_Comm_rank(pcomm, &rank);
    if (first) {
        node = node_comm(pcomm, rank);
        PMPI_Comm_rank(node, &nrank);
        PMPI_Comm_split(pcomm, nrank == 0 ? 0 : MPI_UNDEFINED, rank, &leaders);
    }
    if (leaders != MPI_COMM_NULL) {
        PMPI_Comm_rank(leaders, &lrank);
        PMPI_Comm_size(leaders, &lsize);
    }
    long long id[2] = {rank, lrank}; /* the leader's world rank and index */
    PMPI_Bcast(id, 2, MPI_LONG_LONG, 0, node);
    if (first) {
        node_id = (uint32_t)id[0];
        shift = (int64_t)(cs_cfg.clock_shift * 1e9 * (double)id[1]);
    }
    long long res[3] = {0, 0, 0}; /* offset, round trip, why */
    if (leaders != MPI_COMM_NULL && lrank == 0) {
        for (int l = 1; l < lsize; l++)
            for (int k = 0; k < PP_ROUNDS; k++) {
                long long t;
                PMPI_Recv(NULL, 0, MPI_BYTE, l, PP_TAG, leaders, MPI_STATUS_IGNORE);
                t = local_now();
                PMPI_Send(&t, 1, MPI_LONG_LONG, l, PP_TAG, leaders);
            }
    } else if (leaders != MPI_COMM_NULL) {
        long long best = LLONG_MAX, last_b = LLONG_MIN, last_c = LLONG_MIN, b;
        for (int k = 0; k < PP_ROUNDS; k++) {
            long long a = local_now();
            PMPI_Send(NULL, 0, MPI_BYTE, 0, PP_TAG, leaders);
            PMPI_Recv(&b, 1, MPI_LONG_LONG, 0, PP_TAG, leaders, MPI_STATUS_IGNORE);
            long long c = local_now();
            if (c < a || a < last_c || b < last_b)
                res[2] = 1;
            if (c - a < best) {
                best = c - a;
                res[0] = b - (a + (c - a) / 2);
            }
            last_b = b;
            last_c = c;
        }
        res[1] = best;
        if (!res[2] && (res[0] > CLOCK_HUGE_NS || res[0] < -CLOCK_HUGE_NS))
            res[2] = 2;
        if (!res[2] && best > CLOCK_RTT_MAX_NS)
            res[2] = 3;
    }
    PMPI_Bcast(res, 3, MPI_LONG_LONG, 0, node);
    *off = res[0];
    *rtt = res[1];
    *why = (int)res[2];
}

/* Agree on the clocks: the worst node's reason (one line from rank 0). */
static void agree(MPI_Comm pcomm, int why, int64_t rtt, const char *when)
{
    int rank = 0, in[2], out[2];
    PMPI_Comm_rank(pcomm, &rank);
    in[0] = why;
    in[1] = why ? rank : INT_MAX;
    PMPI_Allreduce(&in[0], &out[0], 1, MPI_INT, MPI_MAX, pcomm);
    PMPI_Allreduce(&in[1], &out[1], 1, MPI_INT, MPI_MIN, pcomm);
    long long r = rtt, rmax = 0;
    PMPI_Allreduce(&r, &rmax, 1, MPI_LONG_LONG, MPI_MAX, pcomm);
    if (rmax > rtt_max)
        rtt_max = rmax;
    if (out[0] && mode == CS_ARR_CLOCK_GLOBAL) {
        mode = CS_ARR_CLOCK_NODE;
        cs_log(0, 1, "clocks of the nodes cannot be compared at %s (node of rank %d: %s); "
               "wait and completion are reported within nodes only", when, out[1],
               why_text(out[0]));
    }
}

void cs_arr_init(MPI_Comm pcomm)
{
    int64_t rtt;
    int why;
    calibrate(&tick_a, &mono_a);
    measure(pcomm, 1, &off_i, &rtt, &why);
    rtt_i = rtt;
    t_i = local_now();
    agree(pcomm, why, rtt, "MPI_Init");
}

void cs_arr_finalize(MPI_Comm pcomm)
{
    int64_t rtt;
    int why;
    measure(pcomm, 0, &off_f, &rtt, &why);
    t_f = local_now();
    if (!why && t_f > t_i) { /* the drift beyond what the two estimates' errors explain */
        double d = fabs((double)(off_f - off_i)) - 0.5 * (double)(rtt_i + rtt);
        if (d > DRIFT_MAX * (double)(t_f - t_i))
            why = 4;
    }
    have_f = !why;
    agree(pcomm, why, rtt, "MPI_Finalize");
    if (leaders != MPI_COMM_NULL)
        PMPI_Comm_free(&leaders);
    if (node != MPI_COMM_NULL)
        PMPI_Comm_free(&node);
}

/* Ticks to the job clock (ns). */
static int64_t job_ns(uint64_t t, double ns_per_tick)
{
    int64_t local = mono_a + (int64_t)((double)(int64_t)(t - tick_a) * ns_per_tick) + shift;
    if (mode == CS_ARR_CLOCK_NODE)
        return local;
    if (have_f && t_f > t_i)
        return local + off_i +
               (int64_t)((double)(off_f - off_i) * ((double)(local - t_i) / (double)(t_f - t_i)));
    return local + off_i;
}

/* ---- the profile's records ------------------------------------------------ */

/* A consistent copy of a's entries into buf (n of them), or -1. */
static int copy_ring(const cs_acomm *a, cs_arr_ent *buf, uint32_t *n)
{
    for (int tries = 0; tries < 1000; tries++) {
        unsigned g = __atomic_load_n(&a->tgen, __ATOMIC_ACQUIRE);
        if (g & 1)
            continue;
        *n = __atomic_load_n(&a->n, __ATOMIC_ACQUIRE);
        memcpy(buf, a->ent, *n * sizeof *buf);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&a->tgen, __ATOMIC_RELAXED) == g)
            return 0;
    }
    return -1;
}

int cs_arr_build(cs_profile *p, int snapshot)
{
    (void)snapshot; /* the same copy either way: the owner never waits */
    uint64_t tick_b = 0;
    int64_t mono_b = 0;
    calibrate(&tick_b, &mono_b);
    double nspt = tick_b != tick_a ? (double)(mono_b - mono_a) / (double)(int64_t)(tick_b - tick_a)
                                   : 1.0;
    cs_arr *arr = &p->arr;
    arr->recorded = 1;
    arr->pairs = arr->gaps = 1;
    arr->clock = mode;
    arr->clock_err = mode == CS_ARR_CLOCK_GLOBAL ? 0.5e-9 * (double)rtt_max : 0;
    arr->untracked += __atomic_load_n(&off_state.seq, __ATOMIC_RELAXED);
    cs_arr_ent *buf = malloc(CS_ARR_RING * sizeof *buf);
    if (!buf)
        return -1;
    void *last_ra = NULL;
    char where[512] = "";
    int rc = 0;
    for (size_t i = 0; i < CS_ACOMMS && rc == 0; i++) {
        cs_acomm *a = __atomic_load_n(&slots[i], __ATOMIC_ACQUIRE);
        uint32_t n = 0;
        if (!a)
            break;
        uint32_t level = __atomic_load_n(&a->level, __ATOMIC_RELAXED);
        arr->dropped += __atomic_load_n(&a->dropped, __ATOMIC_RELAXED);
        if (copy_ring(a, buf, &n) < 0) {
            cs_log(3, 0, "rank %d: a communicator's arrivals changed during the snapshot",
                   cs_world_rank);
            continue;
        }
        if (level > arr->level)
            arr->level = level;
        for (uint32_t k = 0; k < n && rc == 0; k++) {
            const cs_arr_ent *e = &buf[k];
            if (e->ra != last_ra || !where[0]) {
                cs_site_name(e->ra, where, sizeof where);
                last_ra = e->ra;
            }
            cs_arr_rec r = {a->key, e->seq, job_ns(e->t0, nspt), job_ns(e->t1, nspt),
                            a->size, a->rank, (uint32_t)cs_world_rank, node_id,
                            e->coll, e->bin, 0, e->first ? 0 : level};
            if (r.exit < r.entry)
                r.exit = r.entry;
            if (r.entry < -((int64_t)1 << 62) || r.exit > ((int64_t)1 << 62))
                continue; /* a clock shifted beyond the format's range (testing) */
            rc = cs_arr_add_rec(arr, &r, where);
        }
    }
    free(buf);
    return rc < 0 ? -1 : cs_arr_match(arr);
}
