/* The points collsel-replay works on: (collective, communicator size,
 * message size, root behaviour), from a profile's cells of the collectives
 * collsel replaces (each exact size of a cell is a point, weighted by its recorded
 * operations) and/or from a grid.  Pure C, no MPI. */
#ifndef COLLSEL_REPLAY_POINTS_H
#define COLLSEL_REPLAY_POINTS_H

#include <stddef.h>
#include <stdint.h>

#include "common/colls.h"
#include "record/profile.h"
#include "spec.h"

typedef struct cs_point {
    int coll;           /* enum cs_coll */
    uint32_t comm_size;
    uint64_t bytes;     /* message size (reduce: already rounded, see op.h) */
    int root_mode;      /* enum cs_root_mode (grid points: CS_ROOT_ZERO) */
    int root;
    double ops;         /* the profile's operations at this point; 0 for grid points */
    /* arrivals (profiles that recorded them): the point's share of its
     * cell's time, summed over ranks, in seconds, split into wait and
     * completion (record/arrivals.h); without arrival data for the cell
     * (arr = 0) compl_s = t_s, wait_s = 0 (all of it taken as changeable) */
    double t_s, wait_s, compl_s;
    int arr;
    /* its uneven exits (profiles of format 4; 0 otherwise): the wait they
     * add at the next calls on the communicator and the ranks' lags behind
     * the last exit, both seconds summed over ranks (record/arrivals.h) */
    double causes_s, lag_s;
    /* the application's time between calls before this point's calls
     * (cs_arr_gap: a rank's mean since it left its previous call on the
     * communicator, seconds; -1: not recorded) */
    double gap_s;
    double *late;       /* the cell's recorded lateness vectors, nvec x vranks seconds
                           (owned; NULL: none): what --arrivals recorded draws from */
    uint32_t nvec, vranks;
} cs_point;

typedef struct cs_points {
    cs_point *p;
    size_t n, cap;
    double t_all;       /* the profile's time in every collective (tuned or not), seconds
                           summed over ranks */
    int arr;            /* the profile recorded arrivals */
} cs_points;

/* colls[c] != 0 selects collective c.  Copies the cells' arrival data
 * (prof need not outlive pts). */
int cs_points_add_profile(cs_points *pts, const cs_profile *prof, const int colls[CS_NCOLL],
                          cs_err *e);
int cs_points_add_grid(cs_points *pts, const cs_replay_grid *g, const int colls[CS_NCOLL], cs_err *e);
/* Sort by (coll, comm_size, bytes) and merge points with the same key
 * (operations add; differing roots become CS_ROOT_VARYING; a grid point
 * takes the root behaviour of a profile point). */
void cs_points_merge(cs_points *pts);
void cs_points_free(cs_points *pts);

#endif
