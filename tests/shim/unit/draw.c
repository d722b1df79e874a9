/* The draw of an explored call (shim/explore.c, cs_explore_draw), without
 * MPI: every rank of a communicator must run the method drawn for the
 * call, and the ranks send no message to agree on it, so
 *  - the draw depends on its inputs only: the same (call, seed, candidates)
 *    give the same candidate in every process, whatever its world rank (the
 *    rank a process has of its own, cs_world_rank, set here to 0..7) and
 *    whatever it drew before;
 *  - it returns one of the candidates, and over 64 n consecutive calls each
 *    of n candidates (n = 1..9) comes at least 1/(2n) of the time, also
 *    for calls taken every 2nd, 3rd or 4th (an application calling other
 *    collectives in between);
 *  - another seed draws another sequence.
 * Exit 0 when all hold, 1 otherwise (each failure named). */
#include <stdint.h>
#include <stdio.h>

#include "shim/shim.h"

static int fails;

#define NCALLS 4096

int main(void)
{
    const int cand[] = {7, 0, 12, 3, 5, 40, 9, 21, 2};
    static int ref[NCALLS];
    const uint64_t seeds[] = {0, 1, 7, 12345, 1u << 30};
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        for (int n = 1; n <= 9; n++) {
            cs_world_rank = 0;
            for (int k = 0; k < NCALLS; k++)
                ref[k] = cs_explore_draw((uint64_t)k, seeds[s], cand, n);
            for (int r = 1; r < 8; r++) { /* "another rank": the same draws */
                cs_world_rank = r;
                for (int k = NCALLS - 1; k >= 0; k--) { /* and in another order */
                    int d = cs_explore_draw((uint64_t)k, seeds[s], cand, n);
                    if (d != ref[k] && fails++ < 10)
                        fprintf(stderr, "draw: FAIL seed %llu n %d call %d: %d at world rank "
                                "0, %d at world rank %d\n", (unsigned long long)seeds[s], n,
                                k, ref[k], d, r);
                }
            }
            for (int stride = 1; stride <= 4; stride++) {
                int seen[9] = {0}, bad = 0;
                for (int k = 0; k < 64 * n; k++) {
                    int d = ref[k * stride], j = 0;
                    while (j < n && cand[j] != d)
                        j++;
                    if (j == n)
                        bad = 1;
                    else
                        seen[j]++;
                }
                for (int j = 0; j < n; j++)
                    if ((bad || 2 * n * seen[j] < 64 * n) && fails++ < 10)
                        fprintf(stderr, "draw: FAIL seed %llu n %d every %d calls: candidate "
                                "%d drawn %d times of %d%s\n", (unsigned long long)seeds[s], n,
                                stride, cand[j], seen[j], 64 * n,
                                bad ? " (and a value that is no candidate)" : "");
            }
        }
    }
    int differ = 0;
    for (int k = 0; k < 64; k++)
        differ +=
            cs_explore_draw((uint64_t)k, 0, cand, 4) != cs_explore_draw((uint64_t)k, 7, cand, 4);
    if (differ < 16 && fails++ < 10)
        fprintf(stderr, "draw: FAIL seeds 0 and 7 draw the same for %d of 64 calls\n", 64 - differ);
    printf("draw: %s\n", fails ? "FAILED" : "the same on every rank, every candidate drawn");
    return fails ? 1 : 0;
}
