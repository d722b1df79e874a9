/* Unit test: message-size bins (every edge) and recorded collective names. */
#include "testprof.h"

static void check_bin(uint64_t bytes, int want)
{
    int got = cs_bin_of(bytes);
    T_CHECK(got == want, "cs_bin_of(%llu) = %d, want %d", (unsigned long long)bytes, got, want);
}

/* Independent reference: the last non-empty bin whose lower edge is <= b. */
static int ref_bin(uint64_t b)
{
    int best = 0;
    for (int i = 0; i < CS_NBINS; i++)
        if (cs_bin_lo(i) <= cs_bin_hi(i) && cs_bin_lo(i) <= b)
            best = i;
    return best;
}

int main(void)
{
    /* the small sizes, one by one */
    check_bin(0, 0);
    check_bin(1, 1);
    check_bin(2, 5);
    check_bin(3, 7);
    check_bin(4, 9);
    check_bin(5, 10);
    check_bin(6, 11);
    check_bin(7, 12);
    check_bin(8, 13);
    check_bin(9, 13);
    check_bin(10, 14);
    check_bin(11, 14);
    check_bin(12, 15);
    check_bin(14, 16);
    check_bin(15, 16);
    check_bin(16, 17);
    T_CHECK(cs_bin_lo(0) == 0 && cs_bin_hi(0) == 0, "bin 0 is [%llu, %llu]",
            (unsigned long long)cs_bin_lo(0), (unsigned long long)cs_bin_hi(0));

    /* powers of two and their neighbours, quarter-octave edges */
    for (int k = 0; k <= 40; k++) {
        uint64_t p = (uint64_t)1 << k;
        check_bin(p, 1 + 4 * k);
        T_CHECK(cs_bin_lo(1 + 4 * k) == p, "lo(bin of 2^%d) = %llu", k,
                (unsigned long long)cs_bin_lo(1 + 4 * k));
        if (k >= 1)
            check_bin(p - 1, k == 1 ? 1 : k == 2 ? 7 : 4 * k);
        if (k >= 3)
            check_bin(p + 1, 1 + 4 * k);
        if (k >= 2) {
            for (int q = 1; q < 4; q++) {
                uint64_t edge = p + (uint64_t)q * (p / 4);
                check_bin(edge, 1 + 4 * k + q);
                check_bin(edge - 1, 4 * k + q);
                T_CHECK(cs_bin_lo(1 + 4 * k + q) == edge && cs_bin_hi(4 * k + q) == edge - 1,
                        "edges around %llu", (unsigned long long)edge);
            }
        }
    }
    check_bin((uint64_t)1 << 31, 125);
    check_bin(((uint64_t)1 << 31) - 1, 124);
    check_bin(((uint64_t)1 << 31) + 1, 125);
    check_bin(3ull << 30, 1 + 4 * 31 + 2); /* 1.5 x 2^31 */

    /* clamping at the top */
    check_bin(((uint64_t)1 << 41) - 1, CS_NBINS - 1);
    check_bin((uint64_t)1 << 41, CS_NBINS - 1);
    check_bin((uint64_t)1 << 63, CS_NBINS - 1);
    check_bin(UINT64_MAX, CS_NBINS - 1);
    T_CHECK(cs_bin_hi(CS_NBINS - 1) == UINT64_MAX, "top bin is open-ended");
    T_CHECK(CS_NBINS == 165, "CS_NBINS = %d", CS_NBINS);

    /* every bin: contiguous edges, both edges in the bin, neighbours out */
    int empty = 0;
    for (int b = 0; b < CS_NBINS; b++) {
        uint64_t lo = cs_bin_lo(b), hi = cs_bin_hi(b);
        if (b + 1 < CS_NBINS)
            T_CHECK(cs_bin_lo(b + 1) == hi + 1, "bins %d/%d not contiguous", b, b + 1);
        if (hi < lo) {
            empty++;
            T_CHECK(b == 2 || b == 3 || b == 4 || b == 6 || b == 8, "bin %d empty", b);
            continue;
        }
        check_bin(lo, b);
        check_bin(hi, b);
        if (b > 0)
            T_CHECK(cs_bin_of(lo - 1) < b, "below bin %d", b);
        if (b + 1 < CS_NBINS)
            T_CHECK(cs_bin_of(hi + 1) > b, "above bin %d", b);
    }
    T_CHECK(empty == 5, "%d empty bins, want 5 (2, 3, 4, 6, 8)", empty);

    /* random sizes against the reference */
    for (int i = 0; i < 20000; i++) {
        int shift = (int)t_below(64);
        uint64_t b = t_rand() >> shift;
        check_bin(b, ref_bin(b));
    }

    /* names */
    T_CHECK(strcmp(cs_rcoll_name(CS_R_BCAST), "Bcast") == 0, "%s", cs_rcoll_name(CS_R_BCAST));
    T_CHECK(strcmp(cs_rcoll_name(CS_R_IEXSCAN), "Iexscan") == 0, "last name");
    T_CHECK(cs_rcoll_from_name("bcast") == CS_R_BCAST, "case-insensitive");
    T_CHECK(cs_rcoll_from_name("REDUCE_SCATTER_BLOCK") == CS_R_REDUCE_SCATTER_BLOCK, "long name");
    T_CHECK(cs_rcoll_from_name("Bcas") == -1 && cs_rcoll_from_name(NULL) == -1, "unknown");
    T_CHECK(cs_rcoll_rooted(CS_R_REDUCE) && cs_rcoll_rooted(CS_R_ISCATTERV) &&
                !cs_rcoll_rooted(CS_R_ALLREDUCE) && !cs_rcoll_rooted(CS_R_BARRIER),
            "rooted flags");
    for (int c = 0; c < CS_R_N; c++)
        T_CHECK(cs_rcoll_from_name(cs_rcoll_name(c)) == c, "round trip %d", c);
    T_CHECK(strcmp(cs_rcoll_name(CS_R_N), "?") == 0 && strcmp(cs_rcoll_name(-1), "?") == 0,
            "out of range");

    if (t_failures)
        fprintf(stderr, "test_bins: %d failures\n", t_failures);
    return t_failures != 0;
}
