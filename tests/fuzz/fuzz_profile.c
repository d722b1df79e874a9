/* fuzz_profile: the profile reader (record/format.c, record/file.c).
 * Input: a profile file image (cs_profile_decode: header, checksum, zstd,
 * payload), or 'P' followed by a bare payload (cs_profile_deserialize:
 * reached directly, since a mutated file image rarely passes the
 * checksum).  A profile the reader accepts must serialise, read back
 * identically, merge with itself (same cells, counts doubled up to their
 * bound), trim its
 * call sites and encode. */
#include "fuzz.h"

#include "record/profile.h"

static void roundtrip(const cs_profile *p)
{
    cs_buf a = {0}, b = {0};
    cs_profile q, m;
    cs_err e;
    FUZZ_ASSERT(cs_profile_serialize(p, &a) == 0, "serialise");
    int rc = cs_profile_deserialize(&q, a.p, a.n, &e);
    FUZZ_ASSERT(rc == 0, "an accepted profile does not read back: %s", e.msg);
    FUZZ_ASSERT(cs_profile_serialize(&q, &b) == 0, "serialise");
    FUZZ_ASSERT(a.n == b.n && !memcmp(a.p, b.p, a.n), "read back differs");
    cs_profile_init(&m);
    FUZZ_ASSERT(cs_profile_merge(&m, p) == 0 && cs_profile_merge(&m, &q) == 0, "merge");
    FUZZ_ASSERT(m.ncells == p->ncells, "merge with itself: %zu cells from %zu", m.ncells,
                p->ncells);
    for (size_t i = 0; i < m.ncells; i++)
        FUZZ_ASSERT(m.cells[i].rank_calls ==
                        cs_count_add(p->cells[i].rank_calls, p->cells[i].rank_calls),
                    "cell %zu: %llu calls merged with itself give %llu", i,
                    (unsigned long long)p->cells[i].rank_calls,
                    (unsigned long long)m.cells[i].rank_calls);
    cs_profile_sort(&m);
    cs_profile_trim_sites(&m, 3);
    cs_buf f = {0};
    FUZZ_ASSERT(cs_profile_encode(&m, &f, &e) == 0, "encode: %s", e.msg);
    cs_profile r;
    rc = cs_profile_decode(&r, f.p, f.n, "encoded", &e);
    FUZZ_ASSERT(rc == 0, "an encoded profile does not decode: %s", e.msg);
    cs_profile_free(&r);
    cs_buf_free(&f);
    cs_profile_free(&m);
    cs_profile_free(&q);
    cs_buf_free(&a);
    cs_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    cs_profile p;
    cs_err e = {{0}};
    int rc = n >= 1 && data[0] == 'P' ? cs_profile_deserialize(&p, data + 1, n - 1, &e)
                                      : cs_profile_decode(&p, data, n, "fuzz.prof", &e);
    if (rc < 0) {
        fuzz_check_err(&e);
        return 0;
    }
    roundtrip(&p);
    cs_profile_free(&p);
    return 0;
}
