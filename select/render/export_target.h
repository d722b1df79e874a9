/* The MPI releases `collsel export` writes for (--target), what each of
 * them accepts, and which release is installed here.  The one list of
 * target names and of the names each target may be given (export_target.c);
 * export.c writes, the unit test export_targets checks every name the
 * export tables can produce against these lists. */
#ifndef CS_EXPORT_TARGET_H
#define CS_EXPORT_TARGET_H

#include <stddef.h>

#include "common/colls.h"

typedef enum { CS_XLIB_OMPI, CS_XLIB_MPICH } cs_xlib;

/* How a target's file is written. */
typedef enum {
    CS_XFILE_OMPI_CLASSIC, /* numbers; rules_version 1 (no header) or 2 */
    CS_XFILE_OMPI_JSON,    /* Open MPI 6.0 JSON rules (rule_file_version 3) */
    CS_XFILE_MPICH_JSON    /* MPICH's collective selection JSON */
} cs_xfile;

/* An MPICH algorithm renamed between releases: written as `to` with the
 * parameters `params` (the JSON members inside its object). */
typedef struct cs_xrename {
    const char *from, *to, *params;
} cs_xrename;

typedef struct cs_xtarget {
    const char *name;   /* --target NAME */
    cs_xlib lib;
    const char *format; /* the --format it belongs to */
    int ver[3];         /* the first release it is for */
    cs_xfile file;
    int rules_version;  /* Open MPI: 1, 2 (max-requests column), 3 (JSON) */
    const char *what;   /* one line for --help */
    /* Open MPI: coll_tuned's highest algorithm id per collective */
    int alg_max[CS_NCOLL];
    /* MPICH: the MPIR algorithms of the five collectives it knows (NULL
     * ended), the decision keys we may write (prefixes up to and with the
     * operator), names it does not know that another release's built-in
     * rules use, and the renames applied to everything written */
    const char *const *mpich_algs;
    const char *const *mpich_keys;
    const char *const *mpich_unknown;
    const cs_xrename *renames;
} cs_xtarget;

/* All targets, oldest first per library; *n set. */
const cs_xtarget *cs_xtargets(int *n);
/* The target called name, NULL if none. */
const cs_xtarget *cs_xtarget_find(const char *name);
/* "ompi-4.1, ompi-5.0, ..." into buf. */
void cs_xtarget_names(char *buf, size_t len);
/* The newest target of lib (of format, if not NULL) for release ver;
 * NULL if ver is older than every one. */
const cs_xtarget *cs_xtarget_for(cs_xlib lib, const char *format, const int ver[3]);
/* 1 if the MPICH target knows the algorithm name (after its renames). */
int cs_xtarget_mpich_knows(const cs_xtarget *t, const char *alg);
/* 1 if the MPICH target accepts the decision key (without its quotes). */
int cs_xtarget_mpich_key_ok(const cs_xtarget *t, const char *key, size_t len);
/* The name an MPICH target writes for alg (renamed or alg), params set to
 * its parameters ("" if none). */
const char *cs_xtarget_mpich_name(const cs_xtarget *t, const char *alg, const char **params);

/* The installed release of lib: 1 and ver/desc set ("Open MPI 4.1.4 (from
 * `ompi_info --version`)"), 0 if its tool is not there or says no
 * version.  COLLSEL_OMPI_INFO / COLLSEL_MPICHVERSION name other tools. */
int cs_mpi_installed(cs_xlib lib, int ver[3], char *desc, size_t len);
/* "Open MPI" / "MPICH" */
const char *cs_xlib_name(cs_xlib lib);

#endif
