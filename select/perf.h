/* Performance tables: the measured time of each method at each
 * (collective, communicator size, message size) point.
 *
 * File format (CSV, readable by any tool):
 *   # collsel perf v1                       <- magic + version
 *   collective,comm_size,msg_bytes,method,median_us,min_us,max_us,reps
 *   bcast,4,8,bcast.binomial,3.21,3.02,5.10,200
 *   ...
 *   # end rows=N crc32=XXXXXXXX             <- CRC-32 of all bytes before this line
 * A file that starts with the magic must end with a matching trailer
 * (truncation and corruption are detected).  A plain CSV without the magic
 * line (hand-made tables) is accepted if its header and rows are valid:
 * columns in any order, unknown ones ignored, min_us/max_us default to
 * median_us and reps to 1; other lines starting with '#' are comments.
 * Rows: known collective, comm_size >= 1, msg_bytes >= 0, times finite and
 * >= 0, method starting with "COLLECTIVE.".  Every error names the file and
 * the line.  Files may be zstd-compressed (detected by the zstd magic
 * number); cs_perf_write compresses when the path ends in ".zst".  When a
 * table has several rows for one (point, method), the last one counts.
 */
#ifndef COLLSEL_PERF_H
#define COLLSEL_PERF_H

#include <stddef.h>
#include <stdint.h>

#include "common/util.h"

#define CS_METHOD_NAME_MAX 64

typedef struct cs_perf_row {
    int coll;            /* enum cs_coll (common/colls.h) */
    uint32_t comm_size;
    uint64_t msg_bytes;
    char method[CS_METHOD_NAME_MAX]; /* "bcast.binomial"; starts with the collective */
    double median_us, min_us, max_us;
    uint32_t reps;
} cs_perf_row;

typedef struct cs_perf {
    cs_perf_row *rows;
    size_t n, cap;
} cs_perf;

void cs_perf_init(cs_perf *t);
void cs_perf_free(cs_perf *t);
int cs_perf_add(cs_perf *t, const cs_perf_row *r);
int cs_perf_read(cs_perf *t, const char *path, cs_err *e);
/* Writes atomically with magic and trailer. */
int cs_perf_write(const cs_perf *t, const char *path, cs_err *e);
/* Append-friendly variant for long measurements: rewrite the whole file
 * atomically after each point so an interrupted run keeps what it measured
 * (same as cs_perf_write; named for intent). */
#define cs_perf_checkpoint cs_perf_write

#endif
