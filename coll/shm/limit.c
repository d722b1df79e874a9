/* The memory limit of segments (COLLSEL_SHM_LIMIT): the bytes of segments
 * this process holds, counted when a segment is made and given back when
 * it is freed (see shm.h). */
#include "coll/shm/shm.h"

static size_t held, limit = (size_t)64 << 20; /* bytes of segments */

void cs_shm_set_limit(size_t bytes)
{
    __atomic_store_n(&limit, bytes, __ATOMIC_SEQ_CST);
}

size_t cs_shm_limit(void)
{
    return __atomic_load_n(&limit, __ATOMIC_SEQ_CST);
}

int cs_shm_reserve(size_t bytes)
{
    if (__atomic_fetch_add(&held, bytes, __ATOMIC_SEQ_CST) + bytes > cs_shm_limit()) {
        __atomic_fetch_sub(&held, bytes, __ATOMIC_SEQ_CST);
        return 0;
    }
    return 1;
}

void cs_shm_unreserve(size_t bytes)
{
    __atomic_fetch_sub(&held, bytes, __ATOMIC_SEQ_CST);
}
