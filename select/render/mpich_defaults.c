/* MPICH's built-in MPIR-level collective selection rules, read at run time
 * from the installed MPICH library (see render.h).  Nothing of MPICH is
 * kept in this tree: libmpich carries the rules it uses when
 * MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE is unset as NUL-terminated JSON
 * strings in its read-only data, and we take the MPIR-level one from there.
 *
 * libmpich (4.x) holds several selection JSONs that all start with
 * {"collective=bcast":{"comm_type=intra":  -- the CH4 level (algorithms
 * MPIDI_*), the compositions (keys "composition=MPIDI_..."), and the MPIR
 * level (algorithms MPIR_*), which is the level an exported file replaces.
 * A candidate is taken if it is a whole string (NUL-terminated), has the
 * shape of a selection tree (nested objects with string keys, braces
 * balanced, ending with '}') and all its algorithms are MPIR_ ones.
 */
#include "render.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char json_start[] = "{\"collective=bcast\":{\"comm_type=intra\":";

/* ---- shape check ---------------------------------------------------------- */

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* A JSON string at p (no control characters); returns the byte after it. */
static const char *scan_string(const char *p, const char *end)
{
    if (p >= end || *p != '"')
        return NULL;
    for (p++; p < end; p++) {
        if (*p == '"')
            return p + 1;
        if (*p == '\\' && ++p >= end)
            return NULL;
        if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
            return NULL;
    }
    return NULL;
}

/* The selection-tree grammar: object := '{' [string ':' object {',' string
 * ':' object}] '}'.  Returns the byte after the object, NULL if not one. */
static const char *scan_object(const char *p, const char *end, int depth)
{
    if (depth > 64 || p >= end || *p != '{')
        return NULL;
    p = skip_ws(p + 1, end);
    if (p < end && *p == '}')
        return p + 1;
    for (;;) {
        if (!(p = scan_string(p, end)))
            return NULL;
        p = skip_ws(p, end);
        if (p >= end || *p != ':')
            return NULL;
        if (!(p = scan_object(skip_ws(p + 1, end), end, depth + 1)))
            return NULL;
        p = skip_ws(p, end);
        if (p < end && *p == '}')
            return p + 1;
        if (p >= end || *p != ',')
            return NULL;
        p = skip_ws(p + 1, end);
    }
}

/* The string s[0..n) is MPICH's MPIR-level rule set. */
static int plausible(const char *s, size_t n)
{
    if (n < sizeof json_start || s[n - 1] != '}' || scan_object(s, s + n, 0) != s + n)
        return 0;
    return memmem(s, n, "\"algorithm=MPIR_", 16) && !memmem(s, n, "\"algorithm=MPIDI", 16) &&
           !memmem(s, n, "\"composition=", 13);
}

/* ---- one file --------------------------------------------------------------- */

/* Look for the rules in the file at path.  Returns 1 (found, *json set),
 * 0 (readable, no rules; why says what was seen) or -1 (unreadable, e). */
static int scan_file(const char *path, char **json, char *why, size_t whylen, cs_err *e)
{
    void *data;
    size_t n;
    if (cs_read_file(path, &data, &n, e) < 0)
        return -1;
    const char *p = data, *end = p + n;
    int cands = 0;
    *json = NULL;
    while ((p = memmem(p, (size_t)(end - p), json_start, sizeof json_start - 1)) != NULL) {
        const char *z = memchr(p, 0, (size_t)(end - p));
        if (!z)
            break;
        cands++;
        if (plausible(p, (size_t)(z - p))) {
            *json = strndup(p, (size_t)(z - p));
            free(data);
            if (!*json)
                return cs_fail(e, "out of memory");
            return 1;
        }
        p++;
    }
    free(data);
    if (cands)
        snprintf(why, whylen, "%d selection JSON%s starting %s, none of them MPICH's MPIR-level rules",
                 cands, cands == 1 ? "" : "s", json_start);
    else
        snprintf(why, whylen, "no NUL-terminated JSON string starting %s", json_start);
    return 0;
}

/* ---- search ------------------------------------------------------------------- */

#define DEBIAN_LIB "/usr/lib/x86_64-linux-gnu/libmpich.so.12"
#define DEBIAN_GLOB "/usr/lib/*/libmpich.so*"

static void set_from(char *from, size_t fromlen, const char *path)
{
    if (from && fromlen)
        snprintf(from, fromlen, "%s", path);
}

int cs_mpich_defaults_load(const char *lib, char **json, char *from, size_t fromlen, cs_err *e)
{
    char why[160];
    *json = NULL;
    const char *how = "--mpich-lib";
    if (!lib && (lib = getenv("COLLSEL_MPICH_LIB")) != NULL) {
        how = "COLLSEL_MPICH_LIB";
        if (!*lib)
            return cs_fail(e, "COLLSEL_MPICH_LIB is set but empty; set it to MPICH's library "
                              "(libmpich.so), or use --no-mpich-defaults");
    }
    if (lib) { /* named by the user: that file or nothing */
        cs_err fe = {{0}};
        int r = scan_file(lib, json, why, sizeof why, &fe);
        if (r < 0)
            return cs_fail(e, "cannot read MPICH's built-in selection rules: %s %s; give MPICH's "
                              "library (libmpich.so), or use --no-mpich-defaults",
                           how, fe.msg);
        if (r == 0)
            return cs_fail(e, "%s %s: %s -- is it MPICH's libmpich.so?  Give the library, or "
                              "use --no-mpich-defaults",
                           how, lib, why);
        set_from(from, fromlen, lib);
        return 0;
    }

    /* the usual places: the Debian/Ubuntu x86-64 library, any multiarch one */
    glob_t g = {0};
    int gr = glob(DEBIAN_GLOB, 0, NULL, &g);
    size_t ncand = 1 + (gr == 0 ? g.gl_pathc : 0);
    struct stat *seen = calloc(ncand, sizeof *seen);
    cs_buf tried = {0};
    int nseen = 0, found = 0;
    if (!seen) {
        globfree(&g);
        return cs_fail(e, "out of memory");
    }
    for (size_t i = 0; i < ncand && !found; i++) {
        const char *path = i == 0 ? DEBIAN_LIB : g.gl_pathv[i - 1];
        struct stat st;
        if (stat(path, &st) < 0) {
            if (i == 0)
                cs_buf_printf(&tried, "%s (%s)", path, strerror(errno));
            continue;
        }
        int dup = 0; /* the same file under another name (symbolic links) */
        for (int k = 0; k < nseen && !dup; k++)
            dup = seen[k].st_dev == st.st_dev && seen[k].st_ino == st.st_ino;
        if (dup)
            continue;
        seen[nseen++] = st;
        cs_err fe = {{0}};
        int r = S_ISREG(st.st_mode) ? scan_file(path, json, why, sizeof why, &fe) : 0;
        if (r > 0) {
            set_from(from, fromlen, path);
            found = 1;
        } else if (r < 0 && strstr(fe.msg, "out of memory")) {
            cs_fail(e, "%s", fe.msg);
            found = -1;
        } else
            cs_buf_printf(&tried, "%s%s (%s)", tried.n ? ", " : "", path,
                          r < 0 ? fe.msg : S_ISREG(st.st_mode) ? "no MPIR selection JSON in it"
                                                                : "not a regular file");
    }
    if (gr != 0)
        cs_buf_printf(&tried, "%s%s (no match)", tried.n ? ", " : "", DEBIAN_GLOB);
    globfree(&g);
    free(seen);
    if (!found)
        cs_fail(e, "MPICH's built-in selection rules not found: COLLSEL_MPICH_LIB unset; searched "
                   "%.*s%s.  Give MPICH's library with --mpich-lib PATH or COLLSEL_MPICH_LIB=PATH, "
                   "or export only the tree's collectives with --no-mpich-defaults",
                tried.oom ? 0 : (int)(tried.n < 250 ? tried.n : 250),
                tried.oom ? "" : (const char *)tried.p, tried.oom || tried.n > 250 ? "..." : "");
    cs_buf_free(&tried);
    return found > 0 ? 0 : -1;
}
