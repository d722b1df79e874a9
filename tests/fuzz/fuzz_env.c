/* fuzz_env: the preload library's environment parsers, without MPI: the
 * COLLSEL_* table (shim/config.c: integers, paths, unknown names) and
 * COLLSEL_FORCE against the method registry (shim/force.c).
 * Input: lines NAME=VALUE; the environment is cleared and set from them
 * (a line without '=' is appended to COLLSEL_FORCE's value, to reach long
 * specs).  Every integer must end within its range. */
#include "fuzz.h"

#include "coll/coll.h"

#include "shim/rec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char *text = malloc(n + 1), *force = NULL;
    memcpy(text, data, n);
    text[n] = 0;
    clearenv();
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        char *eq = strchr(line, '=');
        if (eq && eq > line) {
            *eq = 0;
            setenv(line, eq + 1, 1);
        } else if (*line) {
            size_t k = force ? strlen(force) : 0;
            force = realloc(force, k + strlen(line) + 1);
            strcpy(force + k, line);
        }
    }
    if (force)
        setenv("COLLSEL_FORCE", force, 1);
    cs_config_load();
    FUZZ_ASSERT(cs_cfg.verbose >= 0 && cs_cfg.verbose <= 3, "verbose %d", cs_cfg.verbose);
    FUZZ_ASSERT(cs_cfg.shm_limit_mib >= 0, "shm limit %d", cs_cfg.shm_limit_mib);
    FUZZ_ASSERT(cs_cfg.node_size >= 0, "node size %d", cs_cfg.node_size);
    int f[CS_NCOLL];
    cs_force_parse(cs_cfg.force, f);
    for (int c = 0; c < CS_NCOLL; c++) {
        int nm;
        cs_methods((enum cs_coll)c, &nm);
        FUZZ_ASSERT(f[c] >= -1 && f[c] < nm, "%s forced to index %d of %d", cs_coll_name(c),
                    f[c], nm);
    }
    clearenv();
    free(force);
    free(text);
    return 0;
}
