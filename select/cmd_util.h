/* Shared pieces of the select commands (tune, tree, penalty): input
 * loading with the CLI's error convention, number formatting, penalty
 * lines. */
#ifndef COLLSEL_CMD_UTIL_H
#define COLLSEL_CMD_UTIL_H

#include <stdio.h>

#include "quadtree.h"
#include "select/penalty.h"

/* Exit codes of every command. */
enum { CS_EXIT_OK = 0, CS_EXIT_FAIL = 1, CS_EXIT_USAGE = 2 };

/* Load the perf table (required) and the profile (prof_path may be NULL:
 * *prof stays NULL).  On error prints "collsel CMD: message" and returns
 * -1. */
int cs_sel_load(const char *cmd, const char *perf_path, const char *prof_path, cs_perf *perf,
                cs_profile **prof);
void cs_sel_free_profile(cs_profile *prof);

/* Parse a whole decimal integer / number; -1 if malformed or out of
 * [lo, hi]. */
int cs_sel_int(const char *s, long lo, long hi, long *v);
int cs_sel_num(const char *s, double lo, double hi, double *v);

/* Exact human size: "64 KiB" when a whole number of KiB/MiB/GiB, else
 * "1448 B".  buf >= 32 bytes. */
const char *cs_sel_size(char *buf, size_t len, uint64_t bytes);

/* "min 0.0% max 12.5% mean 3.1% median 0.0% (45 points)" */
void cs_sel_print_pen(FILE *f, const char *label, const cs_pen_stats *s, int weighted);
/* Against native: "  vs native uniform  mean -3.10%  max 4.2%  (45 points, 1 more than 5%
 * slower)"; weighted: the weighted mean and max. */
void cs_sel_print_native(FILE *f, const cs_pen_stats *s, int weighted);
/* The same as JSON members: "vs_native":{...} */
void cs_sel_json_native(FILE *f, const cs_pen_stats *s, int weighted);

#endif
