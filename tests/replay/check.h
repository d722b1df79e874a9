/* The CHECK of the replay's MPI tests: counts a failure and names the rank,
 * the line and the condition; the test defines `fails` and `rank`. */
#ifndef COLLSEL_TESTS_REPLAY_CHECK_H
#define COLLSEL_TESTS_REPLAY_CHECK_H

#include <stdio.h>

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "rank %d: %s:%d: FAILED: %s\n", rank, __FILE__, __LINE__, #cond); \
            fails++;                                                                       \
        }                                                                                  \
    } while (0)

#endif
