/* The arrival parts of `collsel show` (show_arr.c): wait and completion
 * per collective and per cell, what is estimated, in text, CSV and JSON. */
#ifndef COLLSEL_SHOW_ARR_H
#define COLLSEL_SHOW_ARR_H

#include <stdio.h>

#include "profile.h"

/* Wait and completion summed over cells of collective coll (all: -1):
 * seconds, and the time of the cells that have arrivals (covered). */
typedef struct cs_arr_sum {
    double wait, compl, covered, total;
    double induced; /* of wait: caused by the previous calls' uneven exits
                       (cs_arr_induced; 0 where the pairs were not recorded) */
} cs_arr_sum;
void cs_arr_sum_of(const cs_profile *p, int coll, cs_arr_sum *s);

/* Text: the first lines (how much any method could remove at most), the
 * quality line (what is estimated), the per-cell table of the hottest
 * cells (idx: cells by time, k of them). */
void cs_show_arr_headline(FILE *f, const cs_profile *p);
void cs_show_arr_quality(FILE *f, const cs_profile *p);
void cs_show_arr_cells(FILE *f, const cs_profile *p, const size_t *idx, size_t k);
/* "  81.2%  18.8%" (or "      -       -") after a row of the collectives. */
void cs_show_arr_shares(FILE *f, const cs_arr_sum *s);

/* CSV: "# arrival...: " lines; the header's extra columns; a cell's. */
void cs_show_arr_csv_meta(FILE *f, const cs_profile *p);
extern const char cs_show_arr_csv_header[];
void cs_show_arr_csv_cell(FILE *f, const cs_profile *p, const cs_cell *c);

/* A JSON string; a time in us, ms or s (show.c). */
void cs_json_str(FILE *f, const char *v);
const char *cs_show_fmt_time(char *buf, size_t len, double s);

/* JSON: the meta's "arrivals" member; a collective's and a cell's fields
 * (each starts with ", "). */
void cs_show_arr_json_meta(FILE *f, const cs_profile *p);
void cs_show_arr_json_sum(FILE *f, const cs_arr_sum *s);
void cs_show_arr_json_cell(FILE *f, const cs_profile *p, const cs_cell *c);

#endif
