/* fuzz_mpich_defaults: `collsel export --format mpich-json` reads MPICH's
 * built-in selection rules out of a library file (--mpich-lib PATH,
 * select/render/mpich_defaults.c): the scan for NUL-terminated JSON
 * strings and their shape check.  Input: the library file's bytes. */
#include "fuzz.h"

#include "select/render/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char path[300], from[300];
    fuzz_path(path, sizeof path, "libmpich.so");
    fuzz_write(path, data, n);
    char *json = NULL;
    cs_err e = {{0}};
    if (cs_mpich_defaults_load(path, &json, from, sizeof from, &e) < 0) {
        fuzz_check_err(&e);
        return 0;
    }
    FUZZ_ASSERT(json && !strncmp(json, "{\"collective=bcast\":", 20), "rules '%.40s'",
                json ? json : "(null)");
    free(json);
    return 0;
}
