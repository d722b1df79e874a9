/* Random arrival orders for the tests of the dynamic methods: a delay of
 * this rank before a call (none half the time, else a spin of up to 40 us,
 * 1 in 64 a 200 us sleep), from a per-rank seed. */
#ifndef COLLSEL_TEST_ARRIVAL_H
#define COLLSEL_TEST_ARRIVAL_H

#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

static inline void test_arrival_delay(unsigned *seed)
{
    unsigned r = (unsigned)rand_r(seed);
    if (r % 2)
        return;
    if (r % 64 == 0) {
        usleep(200);
        return;
    }
    const double until = MPI_Wtime() + (double)(r / 2 % 40) * 1e-6;
    while (MPI_Wtime() < until)
        ;
}

#endif
