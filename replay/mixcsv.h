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
} cs_mix_row;

/* Up to max point rows into rows (the number read), the `total` row into
 * *total, and (pred not NULL) the prediction rows under arrivals into
 * pred[0] ("completion") and pred[1] ("application"; native 0 when absent;
 * the "exits" row, the wait uneven exits cause, is skipped);
 * -1 when the file cannot be read or lacks a column (e says which). */
int cs_mix_read(const char *path, cs_mix_row *rows, int max, cs_mix_row *total, cs_mix_row *pred,
                cs_err *e);

#endif
