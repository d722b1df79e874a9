/* Bounded profiles: folding cells into coarser ones until the file fits
 * (see profile.h for the levels).  Counts and times are never dropped:
 * cells with the same folded key are merged with cs_cell_merge (counts
 * add, min/max combine, the most frequent exact sizes stay, the rest go to
 * other_size_calls), so every total of the profile stays what it was.
 */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

/* Quarter-octave bins per group at a level (1: no grouping). */
static uint32_t bin_group(uint32_t level)
{
    if (level == 0)
        return 1;
    return 4u << (level > 7 ? 6 : level - 1);
}

void cs_fold_key(cs_cell *c, uint32_t level)
{
    uint32_t g = bin_group(level);
    if (c->bin > 0)
        c->bin = 1 + (c->bin - 1) / g * g;
    if (level >= 8 && c->comm_size > 0) {
        uint32_t pw = 1;
        while (pw <= c->comm_size / 2)
            pw <<= 1;
        c->comm_size = pw;
    }
    if (level >= 9) {
        for (uint32_t i = 0; i < c->nsizes; i++)
            c->other_size_calls += c->sizes[i].rank_calls;
        c->nsizes = 0;
    }
    if (level >= 10)
        c->comm_size = 1;
}

uint64_t cs_fold_bin_hi(uint32_t bin, uint32_t level)
{
    uint32_t g = bin_group(level);
    uint32_t last = bin == 0 ? 0 : bin + g - 1;
    return cs_bin_hi((int)(last < CS_NBINS ? last : CS_NBINS - 1));
}

const char *cs_fold_describe(uint32_t level)
{
    static const char *what[CS_FOLD_MAX + 1] = {
        "nothing",
        "message sizes by octaves",
        "message sizes by 2 octaves",
        "message sizes by 4 octaves",
        "message sizes by 8 octaves",
        "message sizes by 16 octaves",
        "message sizes by 32 octaves",
        "all non-zero message sizes together",
        "all non-zero message sizes together, communicator sizes by powers of two "
        "(operations estimated)",
        "all non-zero message sizes together, communicator sizes by powers of two "
        "(operations estimated), no exact sizes, 8 call sites",
        "one cell per collective (0 and non-0 bytes), communicator size 1 "
        "(operations = rank calls)",
    };
    return level <= CS_FOLD_MAX ? what[level] : "?";
}

static int cell_cmp(const void *a, const void *b)
{
    return cs_cell_key_cmp(a, b);
}

int cs_profile_fold(cs_profile *p, uint32_t level)
{
    if (level > CS_FOLD_MAX)
        level = CS_FOLD_MAX;
    if (level <= p->fold)
        return 0;
    for (size_t i = 0; i < p->ncells; i++)
        cs_fold_key(&p->cells[i], level);
    if (p->ncells)
        qsort(p->cells, p->ncells, sizeof *p->cells, cell_cmp);
    size_t k = 0; /* merge runs of equal keys, in place */
    for (size_t i = 0; i < p->ncells; i++) {
        if (k > 0 && cs_cell_key_cmp(&p->cells[k - 1], &p->cells[i]) == 0) {
            cs_cell_merge(&p->cells[k - 1], &p->cells[i]);
            continue;
        }
        if (k != i)
            p->cells[k] = p->cells[i];
        k++;
    }
    p->folded_cells += p->ncells - k;
    p->ncells = k;
    p->fold = level;
    if (cs_arr_fold(&p->arr, level) < 0)
        return -1;
    if (level >= 9)
        cs_profile_trim_sites(p, 8);
    return 0;
}

int cs_profile_bound(cs_profile *p, size_t max_bytes, cs_err *e)
{
    cs_profile_trim_sites(p, CS_BOUND_SITES);
    for (;;) {
        cs_buf b = {0};
        if (cs_profile_encode(p, &b, e) < 0)
            return -1;
        size_t n = b.n;
        cs_buf_free(&b);
        if (n <= max_bytes)
            return 0;
        /* arrivals first: their vectors and pending records are samples,
         * smaller ones keep every total */
        if (cs_arr_shrink(&p->arr) == 0)
            continue;
        if (p->fold >= CS_FOLD_MAX)
            return 0;
        if (cs_profile_fold(p, p->fold + 1) < 0)
            return cs_fail(e, "out of memory folding a profile of %zu cells", p->ncells);
    }
}
