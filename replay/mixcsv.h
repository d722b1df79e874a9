/* The CSV of collsel-replay --mix (mix.c writes it), read back by the
 * names of its header, not by column positions: collsel autotune's report
 * reads it.  MPI-free. */
#ifndef COLLSEL_MIXCSV_H
#define COLLSEL_MIXCSV_H

#include "common/util.h"

typedef struct cs_mix_row {
    char coll[16], method[96], root[16];
    unsigned cs;                  /* comm_size */
    unsigned long long bytes;     /* msg_bytes */
    double ops, native, tuned;    /* ops, native_us, tuned_us */
    double lo, hi, ratio;         /* ratio_lo, ratio_hi, ratio */
    double recorded;              /* recorded_us (optional column; 0: absent or unknown): the
                                     application's own native completion per rank call */
} cs_mix_row;

/* recorded_us / native_us beyond CS_MIX_UNLIKE or below its inverse, at a
 * point with at least CS_MIX_UNLIKE_SHARE of the replayed points' recorded
 * completion (share, summed over ranks): the replay does not reproduce the application's
 * native calls there (collsel-replay --mix and autotune's report say so;
 * a point of a few calls is left out: its calls are first calls, set-up) */
#define CS_MIX_UNLIKE 1.5
#define CS_MIX_UNLIKE_SHARE 0.02
static inline int cs_mix_unlike(double recorded_us, double replay_us, double share)
{
    if (!(recorded_us > 0 && replay_us > 0)) /* not known, or not measured */
        return 0;
    double f = recorded_us / replay_us;
    return share >= CS_MIX_UNLIKE_SHARE &&
           (f > CS_MIX_UNLIKE || f < 1 / CS_MIX_UNLIKE);
}

/* Up to max point rows into rows (the number read), the `total` row into
 * *total, and (pred not NULL) the prediction rows under arrivals into
 * pred[0] ("completion") and pred[1] ("application"; native 0 when absent;
 * the "exits" row, the wait uneven exits cause, is skipped);
 * -1 when the file cannot be read or lacks a column (e says which). */
int cs_mix_read(const char *path, cs_mix_row *rows, int max, cs_mix_row *total, cs_mix_row *pred,
                cs_err *e);

#endif
