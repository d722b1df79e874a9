/* The memory limit of segments (COLLSEL_SHM_LIMIT): the bytes of segments
 * this process holds, counted when a segment is made and given back when
 * it is freed (see shm.h). */
#include "coll/shm/shm.h"

static _Atomic size_t held, limit = (size_t)64 << 20; /* bytes of segments */

void cs_shm_set_limit(size_t bytes)
{
    limit = bytes;
}

size_t cs_shm_limit(void)
{
    return limit;
}

int cs_shm_reserve(size_t bytes)
{
    if (atomic_fetch_add(&held, bytes) + bytes > limit) {
        atomic_fetch_sub(&held, bytes);
        return 0;
    }
    return 1;
}

void cs_shm_unreserve(size_t bytes)
{
    atomic_fetch_sub(&held, bytes);
}
