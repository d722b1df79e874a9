/* Profile serialisation and files (see profile.h for the layout).
 *
 * Payload (uncompressed, little endian), format version 2:
 *   meta:  str mpi_library, str cmdline, str hostname0,
 *          u32 world_size, u32 nnodes, u32 ranks_per_node,
 *          u64 start_time (two's complement), f64 duration
 *   u32 complete, u32 nranks
 *   u64 ncells, then per cell (strictly increasing (coll, comm_size, bin)):
 *          u32 coll, u32 comm_size, u32 bin, u64 rank_calls,
 *          f64 t_total, f64 t_min, f64 t_max, u32 root_mode, u32 root,
 *          u32 nsizes, nsizes x (u64 bytes, u64 rank_calls), u64 other
 *   u64 nsites, then per site: u32 coll, str where, u64 rank_calls, f64 t_total
 *   str selection (version 2: the tree or forced methods of the run),
 *   u32 fold (version 2: 0..CS_FOLD_MAX), u64 folded_cells (bound.c)
 *   arrivals (version 3, arrivals.c): u32 recorded, and if 1: u32 clock,
 *          f64 clock_err, u32 level, u64 dropped, untracked, unmatched,
 *          vec_dropped; u64 nsites, str each; u64 nrecs, per record u64
 *          comm, seq, entry, exit, u32 comm_size, comm_rank, world_rank,
 *          node, coll, bin, site, wexp; u64 ncells, per cell (sorted like
 *          the cells) u32 coll, comm_size, bin, u64 entries, f64 n, wait,
 *          compl, u64 nops, f64 ops, spread, u32 nh + nh x (u32 bin, f64),
 *          u32 nlate + (u32 rank, f64 ops) each, f64 late_other, u32
 *          nsites + (str, f64 wait) each, f64 site_other_wait, u32 nvec,
 *          nvec x f64 priority, nvec x comm_size x u32 lateness (ns),
 *          and (version 4) f64 npair, pwait, swait, nprev,
 *          induced, lag, and (version 5) f64 gap, ngap
 *   explored methods (version 5, explore.c): u32 k, u64 dropped, u64 n,
 *          per entry u32 coll, comm_size, u64 bytes, str method, u64 calls,
 *          f64 t, t2
 * (A version 1 payload ends after the sites, a version 2 one after
 * folded_cells; a version 3 one has no pair sums, a version 4 one no gap
 * sums.)
 * Nothing may follow.  Every count is checked against the bytes left, so a
 * corrupted count cannot make the reader allocate or loop absurdly.
 */
#include "profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CELL_MIN_BYTES (3 * 4 + 8 + 3 * 8 + 3 * 4 + 8)
#define TIME_OK(t) ((t) >= 0 && (t) <= CS_TIME_MAX) /* false for NaN (profile.h) */
#define SITE_MIN_BYTES (4 + 4 + 8 + 8)

int cs_profile_serialize(const cs_profile *p, cs_buf *out)
{
    const cs_meta *m = &p->meta;
    cs_buf_str(out, m->mpi_library);
    cs_buf_str(out, m->cmdline);
    cs_buf_str(out, m->hostname0);
    cs_buf_u32(out, m->world_size);
    cs_buf_u32(out, m->nnodes);
    cs_buf_u32(out, m->ranks_per_node);
    cs_buf_u64(out, (uint64_t)m->start_time);
    cs_buf_f64(out, m->duration);
    cs_buf_u32(out, p->complete);
    cs_buf_u32(out, p->nranks);
    cs_buf_u64(out, p->ncells);
    for (size_t i = 0; i < p->ncells; i++) {
        const cs_cell *c = &p->cells[i];
        cs_buf_u32(out, c->coll);
        cs_buf_u32(out, c->comm_size);
        cs_buf_u32(out, c->bin);
        cs_buf_u64(out, c->rank_calls);
        cs_buf_f64(out, c->t_total);
        cs_buf_f64(out, c->t_min);
        cs_buf_f64(out, c->t_max);
        cs_buf_u32(out, c->root_mode);
        cs_buf_u32(out, (uint32_t)c->root);
        uint32_t ns = c->nsizes < CS_CELL_NSIZES ? c->nsizes : CS_CELL_NSIZES;
        cs_buf_u32(out, ns);
        for (uint32_t k = 0; k < ns; k++) {
            cs_buf_u64(out, c->sizes[k].bytes);
            cs_buf_u64(out, c->sizes[k].rank_calls);
        }
        cs_buf_u64(out, c->other_size_calls);
    }
    cs_buf_u64(out, p->nsites);
    for (size_t i = 0; i < p->nsites; i++) {
        const cs_site *s = &p->sites[i];
        cs_buf_u32(out, s->coll);
        cs_buf_str(out, s->where);
        cs_buf_u64(out, s->rank_calls);
        cs_buf_f64(out, s->t_total);
    }
    cs_buf_str(out, m->selection ? m->selection : "");
    cs_buf_u32(out, p->fold);
    cs_buf_u64(out, p->folded_cells);
    cs_arr_serialize(&p->arr, out);
    cs_xtab_serialize(&p->xtab, out);
    return out->oom ? -1 : 0;
}

static int rd_cell(cs_rd *r, cs_cell *c, cs_err *e)
{
    uint32_t root;
    memset(c, 0, sizeof *c);
    cs_rd_u32(r, &c->coll);
    cs_rd_u32(r, &c->comm_size);
    cs_rd_u32(r, &c->bin);
    cs_rd_u64(r, &c->rank_calls);
    cs_rd_f64(r, &c->t_total);
    cs_rd_f64(r, &c->t_min);
    cs_rd_f64(r, &c->t_max);
    cs_rd_u32(r, &c->root_mode);
    cs_rd_u32(r, &root);
    cs_rd_u32(r, &c->nsizes);
    c->root = (int32_t)root;
    if (r->bad)
        return cs_fail(e, "cell data cut short at byte %zu", r->off);
    if (c->coll >= CS_R_N)
        return cs_fail(e, "cell has collective %u (this reads 0..%d)", c->coll, CS_R_N - 1);
    if (c->bin >= CS_NBINS)
        return cs_fail(e, "cell has size bin %u (this reads 0..%d)", c->bin, CS_NBINS - 1);
    if (c->comm_size == 0)
        return cs_fail(e, "cell has communicator size 0");
    if (c->root_mode > CS_ROOT_VARYING)
        return cs_fail(e, "cell has root mode %u (0..3)", c->root_mode);
    if (c->nsizes > CS_CELL_NSIZES)
        return cs_fail(e, "cell has %u exact sizes (at most %d)", c->nsizes, CS_CELL_NSIZES);
    if (!TIME_OK(c->t_total) || !TIME_OK(c->t_min) || !TIME_OK(c->t_max))
        return cs_fail(e, "cell has a time that is negative, not a number or absurd");
    for (uint32_t k = 0; k < c->nsizes; k++) {
        cs_rd_u64(r, &c->sizes[k].bytes);
        cs_rd_u64(r, &c->sizes[k].rank_calls);
    }
    cs_rd_u64(r, &c->other_size_calls);
    if (r->bad)
        return cs_fail(e, "cell data cut short at byte %zu", r->off);
    int big = c->rank_calls > CS_COUNT_MAX || c->other_size_calls > CS_COUNT_MAX;
    for (uint32_t k = 0; k < c->nsizes; k++)
        big |= c->sizes[k].rank_calls > CS_COUNT_MAX;
    if (big)
        return cs_fail(e, "cell has an absurd call count (above 2^56)");
    return 0;
}

int cs_profile_deserialize(cs_profile *p, const void *data, size_t n, cs_err *e)
{
    return cs_profile_deserialize_v(p, data, n, CS_PROFILE_VERSION, e);
}

int cs_profile_deserialize_v(cs_profile *p, const void *data, size_t n, uint32_t version,
                             cs_err *e)
{
    cs_rd r = {data, n, 0, 0};
    uint64_t start, count;
    cs_profile_init(p);
    cs_meta *m = &p->meta;
    cs_rd_str(&r, &m->mpi_library);
    cs_rd_str(&r, &m->cmdline);
    cs_rd_str(&r, &m->hostname0);
    cs_rd_u32(&r, &m->world_size);
    cs_rd_u32(&r, &m->nnodes);
    cs_rd_u32(&r, &m->ranks_per_node);
    cs_rd_u64(&r, &start);
    cs_rd_f64(&r, &m->duration);
    cs_rd_u32(&r, &p->complete);
    cs_rd_u32(&r, &p->nranks);
    m->start_time = (int64_t)start;
    if (cs_rd_u64(&r, &count) < 0) {
        cs_fail(e, "metadata cut short at byte %zu", r.off);
        goto out;
    }
    if (count > (r.n - r.off) / CELL_MIN_BYTES) {
        cs_fail(e, "absurd cell count %llu for %zu bytes of data", (unsigned long long)count,
                r.n - r.off);
        goto out;
    }
    for (uint64_t i = 0; i < count; i++) {
        cs_cell c;
        CS_CHECK(rd_cell(&r, &c, e));
        if (p->ncells && cs_cell_key_cmp(&p->cells[p->ncells - 1], &c) >= 0) {
            cs_fail(e, "cell %llu is out of order or repeated", (unsigned long long)i);
            goto out;
        }
        if (cs_profile_add_cell(p, &c) < 0) {
            cs_fail(e, "out of memory reading %llu cells", (unsigned long long)count);
            goto out;
        }
    }
    if (cs_rd_u64(&r, &count) < 0 || count > (r.n - r.off) / SITE_MIN_BYTES) {
        cs_fail(e, r.bad ? "data cut short before the call sites"
                         : "absurd call-site count %llu", (unsigned long long)count);
        goto out;
    }
    p->sites = count ? calloc(count, sizeof *p->sites) : NULL;
    if (count && !p->sites) {
        cs_fail(e, "out of memory reading %llu call sites", (unsigned long long)count);
        goto out;
    }
    p->cap_sites = count;
    for (uint64_t i = 0; i < count; i++) {
        cs_site *s = &p->sites[p->nsites];
        cs_rd_u32(&r, &s->coll);
        cs_rd_str(&r, &s->where);
        cs_rd_u64(&r, &s->rank_calls);
        cs_rd_f64(&r, &s->t_total);
        if (s->where)
            p->nsites++;
        if (r.bad) {
            cs_fail(e, "call site %llu cut short", (unsigned long long)i);
            goto out;
        }
        if (s->coll >= CS_R_N || !TIME_OK(s->t_total) || s->rank_calls > CS_COUNT_MAX) {
            cs_fail(e, "call site %llu has collective %u, time %g or %llu calls",
                    (unsigned long long)i, s->coll, s->t_total,
                    (unsigned long long)s->rank_calls);
            goto out;
        }
    }
    if (version >= 2) { /* version 1 ends before them: no selection, fold 0 */
        if (cs_rd_str(&r, &m->selection) < 0) {
            cs_fail(e, "the selection field is cut short");
            goto out;
        }
        cs_rd_u32(&r, &p->fold);
        cs_rd_u64(&r, &p->folded_cells);
        if (r.bad) {
            cs_fail(e, "folding data cut short");
            goto out;
        }
    }
    if (p->fold > CS_FOLD_MAX) {
        cs_fail(e, "folding level %u (0..%d)", p->fold, CS_FOLD_MAX);
        goto out;
    }
    if (version >= 3 && cs_arr_deserialize(&p->arr, &r, version, e) < 0)
        goto out; /* version 1 and 2: arrivals not recorded (arr zeroed) */
    p->arr.fold = p->fold;
    if (version >= 5 && cs_xtab_deserialize(&p->xtab, &r, e) < 0)
        goto out;
    if (r.off != r.n) {
        cs_fail(e, "%zu unexpected bytes after the data", r.n - r.off);
        goto out;
    }
    return 0;
out:
    cs_profile_free(p);
    return -1;
}
