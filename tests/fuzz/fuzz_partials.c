/* fuzz_partials: loading a profile with its partial files and merging them
 * (cs_profile_load), then `collsel show` in its three formats and
 * `collsel show --compare` of the profile with itself.
 * Input: parts separated by the line "@@part@@": the first part is the
 * profile FILE (absent when empty), each further part starts with a line
 * naming its file's suffix S (FILE.S: "partial.3", "spawn.12", anything
 * without '/') followed by the file's bytes. */
#include "fuzz.h"

#include "record/profile.h"

int cs_cmd_show(int argc, char **argv);

#define SEP "\n@@part@@\n"
#define MAX_PARTS 16

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (!freopen("/dev/null", "w", stdout))
        abort();
    return 0;
}

static const uint8_t *find(const uint8_t *p, const uint8_t *end, const char *s)
{
    size_t k = strlen(s);
    for (; p + k <= end; p++)
        if (!memcmp(p, s, k))
            return p;
    return end;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char path[300], part[700];
    fuzz_clean();
    fuzz_path(path, sizeof path, "app.prof");
    const uint8_t *p = data, *end = data + n;
    for (int k = 0; k < MAX_PARTS && p <= end; k++) {
        const uint8_t *q = find(p, end, SEP);
        if (k == 0) {
            if (q > p)
                fuzz_write(path, p, (size_t)(q - p));
        } else {
            const uint8_t *nl = memchr(p, '\n', (size_t)(q - p));
            size_t sl = nl ? (size_t)(nl - p) : 0;
            if (nl && sl > 0 && sl < 64 && !memchr(p, '/', sl) && !memchr(p, 0, sl)) {
                snprintf(part, sizeof part, "%s.%.*s", path, (int)sl, (const char *)p);
                fuzz_write(part, nl + 1, (size_t)(q - nl - 1));
            }
        }
        if (q == end)
            break;
        p = q + strlen(SEP);
    }
    cs_profile prof;
    cs_err e = {{0}};
    if (cs_profile_load(&prof, path, &e) < 0)
        fuzz_check_err(&e);
    else
        cs_profile_free(&prof);
    static const char *fmt[] = {"--top", "--csv", "--json"};
    for (int f = 0; f < 3; f++) {
        char *argv[] = {"show", path, (char *)fmt[f], "3", NULL};
        int rc = cs_cmd_show(f ? 3 : 4, argv);
        FUZZ_ASSERT(rc == 0 || rc == 2, "collsel show %s: exit code %d", fmt[f], rc);
    }
    char *cmp[] = {"show", "--compare", path, path, NULL};
    int rc = cs_cmd_show(4, cmp);
    FUZZ_ASSERT(rc == 0 || rc == 2, "collsel show --compare: exit code %d", rc);
    return 0;
}
