/* Configuration of the preload library: ONE table of the COLLSEL_*
 * environment variables, read once at MPI_Init / MPI_Init_thread into
 * cs_cfg.  Unknown COLLSEL_* names and invalid values get one line on
 * stderr from world rank 0; the run then goes on as if they were unset.
 */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/config.h"

extern char **environ;

cs_config cs_cfg;
int cs_world_rank = -1;

enum cs_var_kind { CS_V_PATH, CS_V_STR, CS_V_INT, CS_V_SECONDS, CS_V_REAL, CS_V_TOOL };

static const struct cs_var {
    const char *name;
    enum cs_var_kind kind;
    const char *def;  /* default, as text (NULL: unset) */
    int lo, hi;       /* accepted range of CS_V_INT and CS_V_SECONDS; CS_V_REAL: -hi..hi */
    size_t off;       /* field of cs_config (not for CS_V_TOOL) */
    const char *arg;  /* the value, as the help shows it */
    const char *doc;
} cs_vars[] = {
    {"COLLSEL_RECORD", CS_V_PATH, NULL, 0, 0, offsetof(cs_config, record), "FILE",
     "record the collective distribution of this run into FILE"},
    {"COLLSEL_RECORD_INTERVAL", CS_V_SECONDS, "60", 0, 1 << 24,
     offsetof(cs_config, record_interval), "SECONDS",
     "seconds between snapshots of each rank's recorded data to FILE.partial.RANK (kept if the "
     "job is killed; fractions accepted, at least 0.01); 0: none"},
    {"COLLSEL_RECORD_MAX_KIB", CS_V_INT, "64", 1, 1 << 20, offsetof(cs_config, record_max_kib), "KIB",
     "bound of the profile and partial files in KiB: beyond it cells are folded into coarser "
     "ones (counts and times stay exact; collsel show says so)"},
    {"COLLSEL_TREE", CS_V_PATH, NULL, 0, 0, offsetof(cs_config, tree), "FILE",
     "select methods for the collectives collsel replaces from this decision tree file"},
    {"COLLSEL_FORCE", CS_V_STR, NULL, 0, 0, offsetof(cs_config, force), "COLL=NAME,...",
     "force one method per collective, e.g. bcast=NAME,reduce=NAME (collsel methods lists "
     "the names)"},
    {"COLLSEL_SHM_LIMIT", CS_V_INT, "64", 0, 1 << 20, offsetof(cs_config, shm_limit_mib), "MIB",
     "MiB of shared memory this process may give to shared-memory collectives (about 135 "
     "KiB per communicator that uses them; 0: none)"},
    {"COLLSEL_SHM_WARMUP", CS_V_INT, "32", 0, 1 << 30, offsetof(cs_config, shm_warmup), "N",
     "a communicator gets shared-memory and node-aware methods from its N-th selected call "
     "on, or once its calls moved N x 16 KiB (a segment costs 0.3-3 ms to make: a "
     "communicator used a few times would lose); 0: at once"},
    {"COLLSEL_EXPLORE", CS_V_INT, "0", 0, 8, offsetof(cs_config, explore), "K",
     "with COLLSEL_TREE: measure methods inside the application: each call of a collective "
     "the tree drives runs one of its leaf's first K applicable candidates or native, drawn "
     "per call (the same on every rank), and with COLLSEL_RECORD the profile keeps each "
     "method's time per call (collsel show --explored; its CSV is a perf table for collsel "
     "tune); 0: off"},
    {"COLLSEL_EXPLORE_SEED", CS_V_INT, "0", 0, 1 << 30, offsetof(cs_config, explore_seed), "N",
     "with COLLSEL_EXPLORE: which calls run which method (the draw hashes the call's number "
     "on its communicator with N; every rank must have the same N, or exploring stops). "
     "Runs with different N give a call position (the first calls, which meet the startup's "
     "skew; a step's first allreduce) a different method each time, so that the positions' "
     "own costs fall on every method (collsel autotune numbers its exploring runs)"},
    {"COLLSEL_SHM_PREPARE", CS_V_INT, "1", 0, 1, offsetof(cs_config, shm_prepare), "N",
     "1: a rank that waits in a call of 64 KiB or more maps the pages of its receive buffer "
     "that the kernel has not mapped yet (a buffer just allocated faults on every page at the "
     "first write: 0.63 ms per 2 MiB measured here), so that the call's copy does not; the "
     "contents are untouched; 0: off"},
    {"COLLSEL_SHM_STUCK", CS_V_SECONDS, "10", 0, 1 << 24, offsetof(cs_config, shm_stuck), "SECONDS",
     "seconds one wait of a shared-memory method may take before it is reported (at "
     "COLLSEL_VERBOSE >= 1, one line: the method, the communicator, the call's number on it, "
     "the rank waited for and its process state; the wait goes on); 0: never"},
    {"COLLSEL_NODE_SIZE", CS_V_INT, "0", 0, 1 << 20, offsetof(cs_config, node_size), "N",
     "cut every node into virtual nodes of N ranks (testing node-aware methods on one "
     "machine); 0: real nodes"},
    {"COLLSEL_REORDER_FP", CS_V_INT, "0", 0, 1, offsetof(cs_config, reorder_fp), "N",
     "1: the dynamic reductions (reduce/allreduce .shm.dynamic and .node.dynamic) may combine "
     "floating-point sums and products in the order ranks arrive (the last bits then vary "
     "from run to run, every rank of an allreduce still gets the same bits); 0: rank order"},
    {"COLLSEL_CLOCK_SHIFT", CS_V_REAL, "0", 0, 1 << 30, offsetof(cs_config, clock_shift), "S",
     "testing the arrival clocks: node k's clock reads S x k seconds ahead (k: the node's index, "
     "virtual nodes of COLLSEL_NODE_SIZE too); the offsets estimated at MPI_Init remove it, an "
     "offset beyond 2^56 ns makes the clocks not comparable"},
    {"COLLSEL_VERBOSE", CS_V_INT, "0", 0, 3, offsetof(cs_config, verbose), "0..3",
     "0 silent; 1 summary at init/finalize; 2 per-communicator decisions; 3 debug"},
    /* variables of the tools, not read here (but not unknown either) */
    {"COLLSEL_MACHINE_RANKS", CS_V_TOOL, NULL, 0, 0, 0, "N",
     "ranks of the job on this machine, set by tools/cluster.sh's launch lines (its nodes "
     "share the machine's processors): the shared-memory waits yield when N > processors"},
    {"COLLSEL_LIB", CS_V_TOOL, NULL, 0, 0, 0, "FILE", "path of libcollsel.so for `collsel exec`"},
    {"COLLSEL_MPICH_LIB", CS_V_TOOL, NULL, 0, 0, 0, "FILE", "MPICH library for `collsel map`"},
    {"COLLSEL_BUILD", CS_V_TOOL, NULL, 0, 0, 0, "DIR", "build directory of tools/pipeline.sh"},
    {"COLLSEL_OUT", CS_V_TOOL, NULL, 0, 0, 0, "DIR", "output directory of tools/pipeline.sh"},
};
#define CS_NVARS (sizeof cs_vars / sizeof cs_vars[0])

const char *cs_config_doc(const char *name)
{
    for (size_t i = 0; name && i < CS_NVARS; i++)
        if (!strcmp(cs_vars[i].name, name))
            return cs_vars[i].doc;
    return NULL;
}

/* s at indent, wrapped before column 79. */
static void wrap(FILE *f, const char *s, int indent)
{
    while (*s) {
        int n = (int)strlen(s), room = 79 - indent;
        if (n > room) {
            n = room;
            while (n > 0 && s[n] != ' ')
                n--;
            if (n == 0)
                n = room;
        }
        fprintf(f, "%*s%.*s\n", indent, "", n, s);
        s += n;
        while (*s == ' ')
            s++;
    }
}

void cs_config_help(FILE *f)
{
    fprintf(f, "environment of the preload library (set directly, or by collsel exec):\n");
    for (size_t i = 0; i < CS_NVARS; i++) {
        const struct cs_var *v = &cs_vars[i];
        if (v->kind == CS_V_TOOL)
            continue;
        char line[512];
        snprintf(line, sizeof line, "%s%s%s%s", v->doc, v->def ? " (default " : "",
                 v->def ? v->def : "", v->def ? ")" : "");
        fprintf(f, "  %s=%s\n", v->name, v->arg);
        wrap(f, line, 6);
    }
}

void cs_log(int level, int rank0only, const char *fmt, ...)
{
    if (level > cs_cfg.verbose || (rank0only && cs_world_rank > 0))
        return;
    char line[1024];
    int n = snprintf(line, sizeof line, "collsel: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
}

static int parse_int(const char *s, int *v)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || *end || x < INT_MIN || x > INT_MAX)
        return -1;
    *v = (int)x;
    return 0;
}

static void set_var(const struct cs_var *v, const char *val)
{
    char *field = (char *)&cs_cfg + v->off;
    switch (v->kind) {
    case CS_V_PATH:
    case CS_V_STR:
        *(const char **)field = val && *val ? val : NULL;
        break;
    case CS_V_INT: {
        int x = 0;
        if (val && (parse_int(val, &x) < 0 || x < v->lo || x > v->hi)) {
            cs_log(0, 1, "%s='%s' is not valid (accepted: an integer %d..%d); using %s", v->name,
                   val, v->lo, v->hi, v->def);
            val = NULL;
        }
        if (!val)
            parse_int(v->def, &x);
        *(int *)field = x;
        break;
    }
    case CS_V_SECONDS: {
        char *end = NULL;
        double x = val ? strtod(val, &end) : 0;
        if (val && (end == val || *end || !(x == 0 || (x >= 0.01 && x <= v->hi)))) {
            cs_log(0, 1, "%s='%s' is not valid (accepted: 0, or seconds from 0.01 to %d); "
                   "using %s", v->name, val, v->hi, v->def);
            val = NULL;
        }
        if (!val)
            x = strtod(v->def, NULL);
        *(double *)field = x;
        break;
    }
    case CS_V_REAL: {
        char *end = NULL;
        double x = val ? strtod(val, &end) : 0;
        if (val && (end == val || *end || !(x >= -v->hi && x <= v->hi))) {
            cs_log(0, 1, "%s='%s' is not valid (accepted: a number from -%d to %d); using %s",
                   v->name, val, v->hi, v->hi, v->def);
            val = NULL;
        }
        if (!val)
            x = strtod(v->def, NULL);
        *(double *)field = x;
        break;
    }
    case CS_V_TOOL:
        break;
    }
}

void cs_config_load(void)
{
    memset(&cs_cfg, 0, sizeof cs_cfg);
    for (size_t i = 0; i < CS_NVARS; i++)
        set_var(&cs_vars[i], getenv(cs_vars[i].name));
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "COLLSEL_", 8) != 0)
            continue;
        size_t len = strcspn(*e, "=");
        int known = 0;
        for (size_t i = 0; i < CS_NVARS && !known; i++)
            known = strlen(cs_vars[i].name) == len && !strncmp(cs_vars[i].name, *e, len);
        if (known)
            continue;
        char names[256] = "";
        for (size_t i = 0; i < CS_NVARS; i++)
            if (cs_vars[i].kind != CS_V_TOOL)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                         i ? ", " : "", cs_vars[i].name);
        cs_log(0, 1, "unknown environment variable %.*s ignored (accepted: %s)", (int)len, *e,
               names);
    }
}
