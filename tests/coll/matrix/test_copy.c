/* cs_copy (coll/copy.c) copies exactly what memcpy copies, for every
 * relative offset of source and destination in a page (the pieces it cuts
 * for a destination 1-32 bytes ahead) and sizes around its thresholds; the
 * bytes around the destination stay untouched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"

int main(void)
{
    static const size_t sizes[] = {0, 1, 63, 2047, 2048, 2049, 4095, 24576, 24577,
                                   300001, 524287, 524288, 600000};
    const size_t max = 600000 + 8192;
    /* page-aligned: the relative offset of a case is exactly d */
    unsigned char *src = aligned_alloc(4096, max), *a = aligned_alloc(4096, max),
                  *b = aligned_alloc(4096, max);
    if (!src || !a || !b)
        return 1;
    for (size_t i = 0; i < max; i++)
        src[i] = (unsigned char)(i * 131 + (i >> 9));
    int bad = 0, cases = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int so = 0; so < 64; so += 7)
            for (int d = 0; d < 48; d++) {
                const size_t n = sizes[k], doff = (size_t)(so + d);
                memset(a, 0xA5, n + doff + 64);
                memset(b, 0xA5, n + doff + 64);
                cs_copy(a + doff, src + so, n);
                memcpy(b + doff, src + so, n);
                cases++;
                if (memcmp(a, b, n + doff + 64) != 0 && bad++ < 5)
                    fprintf(stderr, "FAIL: %zu bytes, source +%d, destination +%zu\n", n, so,
                            doff);
            }
    printf("test_copy: %d cases, %d wrong\n", cases, bad);
    free(src);
    free(a);
    free(b);
    return bad != 0;
}
