/* select/render: what the picture, code-generation and export commands
 * share (internal to select/render, hidden).
 *
 *  - input detection: a file given to `collsel map` is a decision tree or a
 *    performance table, told apart by content (CSV header / perf magic,
 *    possibly zstd-compressed, vs anything else = tree);
 *  - method names parsed into (collective, algorithm, fan-out, segment):
 *    the name format COLL.ALGO[.kN][.segNk] is the stable contract of
 *    coll/coll.h, so no MPI registry is needed here;
 *  - "bands": a tree's leaves flattened into communicator-size bands, each
 *    a sorted list of message-size runs of one method, neighbours with the
 *    same method merged and identical neighbouring bands merged.  Codegen
 *    turns bands into if-chains, the exports into rule tables.
 */
#ifndef COLLSEL_RENDER_H
#define COLLSEL_RENDER_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "common/util.h"
#include "select/perf.h"
#include "select/tree.h"

/* ---- input ---------------------------------------------------------- */

enum cs_rkind { CS_RIN_TREE = 1, CS_RIN_PERF = 2 };

/* Kind of the file at path by content (reads the head; decompresses zstd).
 * Returns CS_RIN_TREE / CS_RIN_PERF, or -1 with e filled (unreadable). */
int cs_rinput_kind(const char *path, cs_err *e);

/* CRC-32 of a whole file (for the generated-file stamps). */
int cs_rfile_crc(const char *path, uint32_t *crc, cs_err *e);

/* ---- methods -------------------------------------------------------- */

typedef struct cs_rmeth {
    int coll;        /* enum cs_coll, -1 if the prefix is unknown */
    char algo[96];   /* "knomial", "scatter_rdallgather", "native", "shm.tree":
                        every token that is not .kN / .segNk (the first
                        token is the family) */
    int fanout;      /* from .kN, 0 = none */
    int segsize;     /* bytes, from .segNk, 0 = unsegmented */
} cs_rmeth;

/* Parse "bcast.knomial.k4.seg8k" (COLL.ALGO[.QUALIFIER...][.kN][.segNk]:
 * the first kN / segNk set fanout / segsize, any other token after the
 * collective is part of algo).  Returns 0, or -1 for an unknown collective
 * or no algorithm. */
int cs_rmeth_parse(const char *name, cs_rmeth *m);

/* 1 if `collsel export` maps method name to an algorithm of Open MPI and
 * of MPICH (exact, closest, or the library's own choice); 0 if it has no
 * row for the name's family (export would refuse a tree that uses it).
 * The test export_families walks every registry method through it. */
int cs_export_maps(const char *name);

/* The unit test export_targets: every rule the export tables can give,
 * mapped and written for target tg (export_target.h) and checked as the
 * export checks its output; each problem printed to f.  Returns their
 * number. */
struct cs_xtarget;
int cs_export_table_check(const struct cs_xtarget *tg, FILE *f);

/* ---- bands ---------------------------------------------------------- */

typedef struct cs_run {
    uint64_t ms_lo; /* first message size of the run; it ends where the next starts */
    int id;         /* tree-local method id (the leaf's first candidate) */
} cs_run;

typedef struct cs_band {
    uint32_t cs_lo, cs_hi; /* communicator sizes, inclusive */
    int nruns;
    cs_run *runs;          /* runs[0].ms_lo == 0, ascending */
} cs_band;

typedef struct cs_bands {
    int coll;
    size_t nleaves;   /* leaves of the tree */
    int nbands;
    cs_band *b;       /* b[0].cs_lo == 0, last cs_hi == UINT32_MAX */
} cs_bands;

/* Flatten collective coll of t.  Fails (naming the collective) if the
 * leaves do not tile the plane. */
int cs_bands_build(const cs_tree *t, int coll, cs_bands *out, cs_err *e);
void cs_bands_free(cs_bands *b);
/* Comparisons of the if-chain: (nbands - 1) + sum (nruns - 1). */
size_t cs_bands_tests(const cs_bands *b);
/* The band's method at message size ms. */
int cs_band_method(const cs_band *b, uint64_t ms);

/* Append collective coll's generated C (method table, decision function,
 * name lookup; codegen.c) to o; returns the comparisons emitted. */
size_t cs_codegen_coll(cs_buf *o, const cs_tree *t, int coll, const cs_bands *bs,
                       const char *prefix);

/* ---- curves (collsel compare) ------------------------------------------ */

#define CS_CURVE_MAXPTS 64
typedef struct cs_cseries {
    char name[48];
    int n;
    double x[CS_CURVE_MAXPTS], y[CS_CURVE_MAXPTS];
} cs_cseries;

typedef struct cs_cpanel {
    char title[96], ylabel[64];
    int ns;
    cs_cseries s[8];
} cs_cpanel;

/* Draw the panels side by side into path (PNG, atomically): y against x on
 * a log2 x axis, one colour per series (index), points joined in x order.
 * Only built with cairo (curve_png.c); NULL otherwise. */
int cs_curve_draw(const cs_cpanel *p, int np, const char *path, cs_err *e) __attribute__((weak));

/* MPICH's built-in MPIR-level selection rules (the JSON text libmpich
 * uses when MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE is unset), read at run
 * time from the installed library (mpich_defaults.c).  lib: the file to
 * read (--mpich-lib), or NULL for $COLLSEL_MPICH_LIB, else the usual Debian
 * paths /usr/lib/x86_64-linux-gnu/libmpich.so.12 and
 * /usr/lib/MULTIARCH/libmpich.so*.
 * On success *json is a malloc'd NUL-terminated copy and from (fromlen
 * bytes, may be NULL) names the file read.  Returns 0, or -1 with e naming
 * what was searched. */
int cs_mpich_defaults_load(const char *lib, char **json, char *from, size_t fromlen, cs_err *e);

/* ---- CLI helpers ------------------------------------------------------ */

/* Read a tree named on the command line; on failure prints
 * "collsel CMD: MESSAGE" and returns -1. */
int cs_rtree_load(const char *cmd, const char *path, cs_tree **t);

#endif
