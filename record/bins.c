/* Recorded collective names and message-size bins (see profile.h).
 *
 * Bins: bin 0 holds 0 bytes.  A size b >= 1 with k = floor(log2 b) lies in
 * the octave [2^k, 2^(k+1)), split linearly into CS_BIN_SUB = 4 quarters
 * starting at 2^k * (1, 1.25, 1.5, 1.75):
 *   bin = 1 + 4k + q,  q = floor((b - 2^k) * 4 / 2^k).
 * Octaves 0 and 1 hold only 1, 2 and 3 (bins 1, 5 and 7); the other bins of
 * those octaves are empty (cs_bin_hi < cs_bin_lo).  Sizes of 2^41 bytes and
 * more are clamped into the last bin, whose upper edge is UINT64_MAX.
 */
#include "profile.h"

#include <strings.h>

static const struct {
    const char *name;
    int rooted;
} rcolls[CS_R_N] = {
#define CS_RCOLL_ROW(id, name, rooted) {name, rooted},
    CS_RCOLL_LIST(CS_RCOLL_ROW)
#undef CS_RCOLL_ROW
};

const char *cs_rcoll_name(int rcoll)
{
    return rcoll >= 0 && rcoll < CS_R_N ? rcolls[rcoll].name : "?";
}

int cs_rcoll_rooted(int rcoll)
{
    return rcoll >= 0 && rcoll < CS_R_N ? rcolls[rcoll].rooted : 0;
}

/* The tuned collective and its recorded twin share their ID (CS_BCAST is
 * recorded as CS_R_BCAST): one row in common/colls.h makes both. */
int cs_coll_of_rcoll(int rcoll)
{
    switch (rcoll) {
#define CS_COLL_CASE(id, name, rooted, reduces, sized) \
    case CS_R_##id: return CS_##id;
        CS_COLL_LIST(CS_COLL_CASE)
#undef CS_COLL_CASE
    default: return -1;
    }
}

int cs_rcoll_of_coll(int coll)
{
    static const int rcoll[CS_NCOLL] = {
#define CS_COLL_RCOLL(id, name, rooted, reduces, sized) CS_R_##id,
        CS_COLL_LIST(CS_COLL_RCOLL)
#undef CS_COLL_RCOLL
    };
    return coll >= 0 && coll < CS_NCOLL ? rcoll[coll] : -1;
}

int cs_rcoll_from_name(const char *name)
{
    for (int i = 0; name && i < CS_R_N; i++)
        if (strcasecmp(name, rcolls[i].name) == 0)
            return i;
    return -1;
}

int cs_bin_of(uint64_t bytes)
{
    if (bytes == 0)
        return 0;
    int k = 63 - __builtin_clzll(bytes);
    if (k >= CS_BIN_OCTAVES)
        return CS_NBINS - 1;
    uint64_t off = bytes - ((uint64_t)1 << k); /* < 2^k */
    int q = (int)(k >= 2 ? off >> (k - 2) : off << (2 - k));
    return 1 + CS_BIN_SUB * k + q;
}

/* Exact lower edge 2^k * (4 + q) / 4, rounded up to a whole byte. */
uint64_t cs_bin_lo(int bin)
{
    if (bin <= 0)
        return 0;
    if (bin >= CS_NBINS)
        return UINT64_MAX;
    int k = (bin - 1) / CS_BIN_SUB, q = (bin - 1) % CS_BIN_SUB;
    uint64_t base = (uint64_t)1 << k;
    if (k >= 2)
        return base + (uint64_t)q * (base >> 2);
    return (base * (uint64_t)(4 + q) + 3) / 4;
}

uint64_t cs_bin_hi(int bin)
{
    if (bin < 0)
        return 0;
    if (bin >= CS_NBINS - 1)
        return UINT64_MAX;
    return cs_bin_lo(bin + 1) - 1;
}

const char *cs_bin_range(char *buf, size_t len, int bin, uint32_t fold)
{
    char a[32], b[32];
    uint64_t lo = cs_bin_lo(bin), hi = cs_fold_bin_hi((uint32_t)bin, fold);
    if (lo == hi)
        snprintf(buf, len, "%s", cs_fmt_bytes(a, sizeof a, (double)lo));
    else if (hi == UINT64_MAX)
        snprintf(buf, len, ">= %s", cs_fmt_bytes(a, sizeof a, (double)lo));
    else /* half-open: [lo, hi + 1) */
        snprintf(buf, len, "[%s, %s)", cs_fmt_bytes(a, sizeof a, (double)lo),
                 cs_fmt_bytes(b, sizeof b, (double)hi + 1));
    return buf;
}
