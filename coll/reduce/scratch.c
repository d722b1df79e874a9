/* Reduce temporaries: a small process-wide cache of scratch blocks.
 *
 * Allocating the temporaries of a large reduce afresh on every call costs
 * more than the reduce itself: glibc serves a 1 MiB block from the heap top
 * and trims it back on free, so every call page-faults the whole block in
 * again (measured at 4 ranks, 1 MiB: unsegmented methods 2.3 ms with
 * malloc/free per call, 0.56-0.88 ms with trimming disabled).  Freed blocks
 * are therefore kept, at most CACHE_SLOTS of them and CACHE_MAX bytes in
 * all, and handed out again to any request they are large enough for.
 * Thread-safe (one mutex; taken twice per temporary, never on a path that
 * waits for communication).  cs_reduce_scratch_release() frees the cache.
 */
#include <pthread.h>
#include <stdlib.h>

#include "reduce.h"

enum { CACHE_SLOTS = 8, HEADER = 64 }; /* header keeps blocks 64-byte aligned */
#define CACHE_MAX ((size_t)64 << 20)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *slot[CACHE_SLOTS]; /* cached blocks (header included) */
static size_t cached;           /* bytes held by slot[] */

static size_t cap_of(const char *block) { return *(const size_t *)block; }

/* A block of at least n usable bytes; returns the usable pointer. */
static char *scratch_get(size_t n)
{
    char *best = NULL;
    int bi = -1;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < CACHE_SLOTS; i++) /* smallest cached block that fits */
        if (slot[i] && cap_of(slot[i]) >= n && (!best || cap_of(slot[i]) < cap_of(best)))
            best = slot[i], bi = i;
    if (best) {
        slot[bi] = NULL;
        cached -= cap_of(best);
    }
    pthread_mutex_unlock(&lock);
    if (!best && (best = malloc(HEADER + n)) != NULL)
        *(size_t *)best = n;
    return best ? best + HEADER : NULL;
}

void cs_reduce_tmp_free(char *raw)
{
    if (!raw)
        return;
    char *block = raw - HEADER, *drop = block;
    const size_t cap = cap_of(block);
    int victim = -1; /* an empty slot, else the slot of the smallest block */
    pthread_mutex_lock(&lock);
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (!slot[i]) {
            victim = i;
            break;
        }
        if (victim < 0 || cap_of(slot[i]) < cap_of(slot[victim]))
            victim = i;
    }
    const size_t old = slot[victim] ? cap_of(slot[victim]) : 0;
    if (old < cap && cached - old + cap <= CACHE_MAX) { /* keep the larger block */
        drop = slot[victim];
        slot[victim] = block;
        cached += cap - old;
    }
    pthread_mutex_unlock(&lock);
    free(drop);
}

void cs_reduce_scratch_release(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < CACHE_SLOTS; i++) {
        free(slot[i]);
        slot[i] = NULL;
    }
    cached = 0;
    pthread_mutex_unlock(&lock);
}

char *cs_reduce_tmp(const cs_rtype *t, int n, char **raw)
{
    MPI_Aint span = (MPI_Aint)(n - 1) * t->extent; /* distance first..last element */
    MPI_Aint low = t->tlb + (span < 0 ? span : 0);
    *raw = scratch_get((size_t)(t->textent + (span < 0 ? -span : span)) + 1);
    return *raw ? *raw - low : NULL;
}
