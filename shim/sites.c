/* Call-site symbolisation, done once per site (never on the hot path: at
 * the end of the run and in the snapshots, remembered per return address)
 * and without needing -g: the module from dladdr(), the
 * function from libunwind's get_proc_name accessor (which reads the ELF
 * symbol table, so static functions have names too) or else dladdr's
 * dynamic symbol; with neither, module + offset only.
 *
 * libunwind gives the nearest function symbol below the address whether
 * or not it reaches that far: in a stripped program (only .dynsym left) a
 * call in a static function would be named after whichever exported
 * function precedes it.  The dynamic symbol's size settles it: a name that
 * is a dynamic symbol not covering the address is dropped (glibc's dladdr
 * already checks sizes).  A name found only in .symtab (no size to check)
 * is kept.
 *
 * Format: "MODULE+0xOFF FUNCTION+0xOFF", MODULE being the file's basename
 * and both offsets those of the return address (the instruction after the
 * call), so the string is the same on every rank (independent of where the
 * module was loaded) and sites merge across ranks.
 */
#include <dlfcn.h>
#include <link.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "rec.h"

/* libunwind named FN, starting OFF bytes below LOOK: true if FN is a
 * dynamic symbol at that address whose size does not reach LOOK. */
static int symbol_too_short(uintptr_t look, const char *fn, uintptr_t off)
{
    Dl_info start;
    const ElfW(Sym) *sym = NULL;
    memset(&start, 0, sizeof start);
    if (off > look || !dladdr1((void *)(look - off), &start, (void **)&sym, RTLD_DL_SYMENT))
        return 0;
    return start.dli_sname && (uintptr_t)start.dli_saddr == look - off && sym &&
           sym->st_size != 0 && off >= sym->st_size && !strcmp(start.dli_sname, fn);
}

static void site_name(void *ra, char *buf, size_t len)
{
    Dl_info info;
    memset(&info, 0, sizeof info);
    /* Look up the call instruction itself (ra - 1): a call that ends a
     * function would otherwise name the next one. */
    uintptr_t ip = (uintptr_t)ra;
    uintptr_t look = ip ? ip - 1 : ip;
    if (!ra || !dladdr((void *)look, &info) || !info.dli_fname) {
        snprintf(buf, len, "?+%#lx", (unsigned long)ip);
        return;
    }
    char mod[256];
    const char *slash = strrchr(info.dli_fname, '/');
    snprintf(mod, sizeof mod, "%s", slash ? slash + 1 : info.dli_fname);
    if (!*mod) {
        /* the main program shows up with an empty name on some systems */
        char exe[512];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = 0;
        snprintf(mod, sizeof mod, "%s", n > 0 ? basename(exe) : "?");
    }
    unsigned long moff = (unsigned long)(ip - (uintptr_t)info.dli_fbase);

    /* dladdr names a dynamic symbol only if it covers the address (glibc
     * checks the size); libunwind names the nearest symbol below it. */
    char fn[256];
    unw_word_t off = 0;
    unw_accessors_t *acc = unw_get_accessors(unw_local_addr_space);
    fn[0] = 0;
    if (acc && acc->get_proc_name &&
        acc->get_proc_name(unw_local_addr_space, (unw_word_t)look, fn, sizeof fn, &off, NULL) ==
            0 &&
        fn[0] && !symbol_too_short(look, fn, (uintptr_t)off)) {
        snprintf(buf, len, "%s+%#lx %s+%#lx", mod, moff, fn, (unsigned long)off + 1);
    } else if (info.dli_sname && info.dli_saddr) {
        snprintf(buf, len, "%s+%#lx %s+%#lx", mod, moff, info.dli_sname,
                 (unsigned long)(ip - (uintptr_t)info.dli_saddr));
    } else {
        snprintf(buf, len, "%s+%#lx", mod, moff);
    }
}

/* The names found so far, by return address: libunwind's get_proc_name
 * reads /proc/self/maps at every call (some milliseconds in an MPI
 * process's hundreds of mappings), and each snapshot names every site
 * again: at 64 ranks on 2 cores with a snapshot a second, that made a run
 * 8.6x slower than native.  A site's code stays where it is while the
 * program runs (a module unloaded and another loaded at the same address
 * would keep the old name: programs that dlclose code they collected from
 * are not supported).  Open addressing, at most SITE_MEMO - 1 entries;
 * beyond that, names are found again each time. */
#define SITE_MEMO 4096
#define SITE_NAME_MAX 512
static struct {
    void *ra;
    char *name;
} memo[SITE_MEMO];
static size_t memo_n;
static pthread_mutex_t memo_mu = PTHREAD_MUTEX_INITIALIZER;

void cs_site_name(void *ra, char *buf, size_t len)
{
    size_t h = ((uintptr_t)ra >> 2) * 0x9E3779B97F4A7C15u % SITE_MEMO;
    /* held elsewhere (the snapshot thread, or this thread interrupted by
     * SIGTERM's handler, which writes the partial file): no memo, no wait */
    if (pthread_mutex_trylock(&memo_mu) != 0) {
        site_name(ra, buf, len);
        return;
    }
    for (size_t k = 0; k < SITE_MEMO && memo[h].name; k++, h = (h + 1) % SITE_MEMO)
        if (memo[h].ra == ra) {
            snprintf(buf, len, "%s", memo[h].name);
            pthread_mutex_unlock(&memo_mu);
            return;
        }
    char name[SITE_NAME_MAX];
    site_name(ra, name, sizeof name);
    if (!memo[h].name && memo_n + 1 < SITE_MEMO && (memo[h].name = strdup(name))) {
        memo[h].ra = ra;
        memo_n++;
    }
    pthread_mutex_unlock(&memo_mu);
    snprintf(buf, len, "%s", name);
}
