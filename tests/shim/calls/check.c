/* shim_check PROFILE EXPECT --ranks N [--site TEXT] [--partial]
 *            [--at-least COLL COMM_SIZE BYTES CALLS]
 *
 * Compares a recorded profile with the log of what the test program called
 * (EXPECT: "COLL COMM_SIZE BYTES ROOT RANK_CALLS" lines, see mix.c; COLL is
 * the enum cs_rcoll number or the name, "Bcast"):
 *  - the same cells (collective, communicator size, size bin), no more, no
 *    fewer, with exactly the expected rank_calls;
 *  - exact sizes: with <= CS_CELL_NSIZES distinct sizes in a cell, exactly
 *    those sizes with exactly their counts; always most frequent first, and
 *    with the "other" count adding up to the cell's calls;
 *  - root modes (zero / fixed with the root / varying) of rooted collectives;
 *  - nranks, complete, world size; times consistent (0 <= min <= max <=
 *    total);
 *  - call sites: per collective the site counts add up to the cell counts,
 *    and with --site some site names TEXT (e.g. the calling function).
 * --partial: PROFILE is loaded with its partial files and must be marked
 * incomplete; only the ranks that wrote are compared (EXPECT must then list
 * only what those ranks did).
 * --at-least: the cell of that call (a program that went on calling until
 * it was killed) holds at least CALLS rank calls; it is not compared
 * otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/profile.h"

#define MAXC (1 << 15)
#define MAXS 16
#define HASH (1 << 17) /* power of two, > 2 * MAXC */

typedef struct xcell {
    uint32_t coll, comm_size, bin;
    uint64_t calls;
    int nsizes;
    uint64_t sz[MAXS], szcalls[MAXS];
    int nroots, root0, varying;
    int matched;
} xcell;

static xcell xs[MAXC];
static int nx, errors, fold;
static int xhash[HASH]; /* index + 1 into xs, 0: empty */

#define FAIL(...)                                   \
    do {                                            \
        fprintf(stderr, "shim_check: " __VA_ARGS__); \
        fputc('\n', stderr);                        \
        errors++;                                   \
    } while (0)

static int *xslot(uint32_t coll, uint32_t cs, uint32_t bin)
{
    uint32_t h = (coll * 0x9E3779B1u ^ cs * 0x85EBCA77u ^ bin * 0xC2B2AE3Du) & (HASH - 1);
    for (;; h = (h + 1) & (HASH - 1)) {
        int i = xhash[h] - 1;
        if (i < 0 || (xs[i].coll == coll && xs[i].comm_size == cs && xs[i].bin == bin))
            return &xhash[h];
    }
}

static xcell *xfind(uint32_t coll, uint32_t cs, uint32_t bin)
{
    int i = *xslot(coll, cs, bin) - 1;
    return i >= 0 ? &xs[i] : NULL;
}

/* The expected cell of (coll, cs, bin), made if new; NULL when full. */
static xcell *xget(uint32_t coll, uint32_t cs, uint32_t bin)
{
    int *slot = xslot(coll, cs, bin);
    if (*slot)
        return &xs[*slot - 1];
    if (nx == MAXC)
        return NULL;
    xcell *x = &xs[nx++];
    memset(x, 0, sizeof *x);
    x->coll = coll;
    x->comm_size = cs;
    x->bin = bin;
    *slot = nx;
    return x;
}

/* A profile folded to a level (record/bound.c): the expected cells folded
 * the same way (calls, sizes and roots of merged cells combined). */
static void fold_expect(uint32_t level)
{
    static xcell old[MAXC];
    int n = nx;
    memcpy(old, xs, sizeof(xcell) * (size_t)n);
    memset(xhash, 0, sizeof xhash);
    nx = 0;
    for (int i = 0; i < n; i++) {
        cs_cell c;
        memset(&c, 0, sizeof c);
        c.coll = old[i].coll;
        c.comm_size = old[i].comm_size;
        c.bin = old[i].bin;
        cs_fold_key(&c, level);
        xcell *x = xget(c.coll, c.comm_size, c.bin);
        x->calls += old[i].calls;
        for (int k = 0; k < old[i].nsizes; k++) {
            int j;
            for (j = 0; j < x->nsizes && x->sz[j] != old[i].sz[k]; j++)
                ;
            if (j == x->nsizes && j < MAXS)
                x->sz[x->nsizes++] = old[i].sz[k];
            else if (j == x->nsizes)
                x->nsizes = MAXS + 1; /* too many to compare */
            if (j < MAXS)
                x->szcalls[j] += old[i].szcalls[k];
        }
        if (old[i].nroots) {
            if (x->nroots == 0)
                x->root0 = old[i].root0;
            x->varying |= old[i].varying || old[i].root0 != x->root0;
            x->nroots += old[i].nroots;
        }
    }
}

static int read_expect(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    int coll, root;
    unsigned cs;
    unsigned long long bytes, calls;
    char name[64];
    while (fscanf(f, "%63s %u %llu %d %llu", name, &cs, &bytes, &root, &calls) == 5) {
        /* the collective by number (enum cs_rcoll) or by name ("Bcast") */
        coll = name[0] >= '0' && name[0] <= '9' ? atoi(name) : cs_rcoll_from_name(name);
        if (coll < 0 || coll >= CS_R_N) {
            fprintf(stderr, "shim_check: %s: unknown collective '%s'\n", path, name);
            fclose(f);
            return -1;
        }
        uint32_t bin = (uint32_t)cs_bin_of(bytes);
        xcell *x = xget((uint32_t)coll, cs, bin);
        if (!x) {
            fclose(f);
            return -1;
        }
        x->calls += calls;
        int i;
        for (i = 0; i < x->nsizes && x->sz[i] != bytes; i++)
            ;
        if (i == x->nsizes && i < MAXS)
            x->sz[x->nsizes++] = bytes;
        if (i < MAXS)
            x->szcalls[i] += calls;
        if (root >= 0) {
            if (x->nroots++ == 0)
                x->root0 = root;
            else if (root != x->root0)
                x->varying = 1;
        }
    }
    fclose(f);
    return 0;
}

static struct {
    int on;
    uint32_t coll, comm_size, bin;
    unsigned long long calls;
} least;

static void check_cell(const cs_cell *c)
{
    const char *name = cs_rcoll_name((int)c->coll);
    if (least.on && c->coll == least.coll && c->comm_size == least.comm_size &&
        c->bin == least.bin) {
        least.on = 2;
        if (c->rank_calls < least.calls)
            FAIL("%s comm_size %u bin %u: %llu rank calls recorded, at least %llu made", name,
                 c->comm_size, c->bin, (unsigned long long)c->rank_calls, least.calls);
        return;
    }
    xcell *x = xfind(c->coll, c->comm_size, c->bin);
    if (!x) {
        FAIL("unexpected cell %s comm_size %u bin %u (%llu rank calls)", name, c->comm_size,
             c->bin, (unsigned long long)c->rank_calls);
        return;
    }
    x->matched = 1;
    if (c->rank_calls != x->calls)
        FAIL("%s comm_size %u bin %u: %llu rank calls recorded, %llu made", name, c->comm_size,
             c->bin, (unsigned long long)c->rank_calls, (unsigned long long)x->calls);
    uint64_t in_sizes = c->other_size_calls;
    for (uint32_t i = 0; i < c->nsizes; i++)
        in_sizes += c->sizes[i].rank_calls;
    if (in_sizes != c->rank_calls)
        FAIL("%s comm_size %u bin %u: exact sizes + other count %llu, rank calls %llu", name,
             c->comm_size, c->bin, (unsigned long long)in_sizes,
             (unsigned long long)c->rank_calls);
    for (uint32_t i = 1; i < c->nsizes; i++)
        if (c->sizes[i].rank_calls > c->sizes[i - 1].rank_calls)
            FAIL("%s comm_size %u bin %u: exact sizes not most frequent first", name,
                 c->comm_size, c->bin);
    if (x->nsizes <= CS_CELL_NSIZES && fold < 9) { /* 9: exact sizes folded away */
        if (c->nsizes != (uint32_t)x->nsizes || c->other_size_calls != 0)
            FAIL("%s comm_size %u bin %u: %u exact sizes (+%llu other), expected %d", name,
                 c->comm_size, c->bin, c->nsizes, (unsigned long long)c->other_size_calls,
                 x->nsizes);
        for (int i = 0; i < x->nsizes; i++) {
            uint32_t j;
            for (j = 0; j < c->nsizes && c->sizes[j].bytes != x->sz[i]; j++)
                ;
            if (j == c->nsizes)
                FAIL("%s comm_size %u: size %llu B missing", name, c->comm_size,
                     (unsigned long long)x->sz[i]);
            else if (c->sizes[j].rank_calls != x->szcalls[i])
                FAIL("%s comm_size %u size %llu B: %llu calls recorded, %llu made", name,
                     c->comm_size, (unsigned long long)x->sz[i],
                     (unsigned long long)c->sizes[j].rank_calls,
                     (unsigned long long)x->szcalls[i]);
        }
    }
    if (x->nroots > 0) {
        uint32_t want = x->varying ? CS_ROOT_VARYING : x->root0 == 0 ? CS_ROOT_ZERO : CS_ROOT_FIXED;
        if (c->root_mode != want || (want == CS_ROOT_FIXED && c->root != x->root0))
            FAIL("%s comm_size %u bin %u: root mode %s root %d, expected %s root %d", name,
                 c->comm_size, c->bin, cs_root_mode_name((int)c->root_mode), c->root,
                 cs_root_mode_name((int)want), x->root0);
    }
    if (!(c->t_min >= 0 && c->t_min <= c->t_max && c->t_max <= c->t_total * (1 + 1e-9)))
        FAIL("%s comm_size %u bin %u: times inconsistent (min %g max %g total %g)", name,
             c->comm_size, c->bin, c->t_min, c->t_max, c->t_total);
}

int main(int argc, char **argv)
{
    const char *site = NULL;
    int ranks = -1, partial = 0;
    if (argc < 3) {
        fprintf(stderr, "usage: shim_check PROFILE EXPECT --ranks N [--site TEXT] [--partial]\n");
        return 2;
    }
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--site") && i + 1 < argc)
            site = argv[++i];
        else if (!strcmp(argv[i], "--ranks") && i + 1 < argc)
            ranks = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--partial"))
            partial = 1;
        else if (!strcmp(argv[i], "--at-least") && i + 4 < argc) {
            int c = cs_rcoll_from_name(argv[i + 1]);
            least.on = c >= 0;
            least.coll = (uint32_t)c;
            least.comm_size = (uint32_t)atoi(argv[i + 2]);
            least.bin = (uint32_t)cs_bin_of(strtoull(argv[i + 3], NULL, 10));
            least.calls = strtoull(argv[i + 4], NULL, 10);
            i += 4;
        }
        else {
            fprintf(stderr, "shim_check: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    cs_profile p;
    cs_err e;
    if ((partial ? cs_profile_load(&p, argv[1], &e) : cs_profile_read(&p, argv[1], &e)) < 0) {
        fprintf(stderr, "shim_check: %s\n", e.msg);
        return 1;
    }
    if (read_expect(argv[2]) < 0)
        return 1;
    fold = (int)p.fold;
    if (fold)
        fold_expect(p.fold);

    if (partial ? p.complete != 0 : p.complete != 1)
        FAIL("complete = %u, expected %d", p.complete, !partial);
    if (ranks >= 0 && p.nranks != (uint32_t)ranks)
        FAIL("nranks = %u, expected %d", p.nranks, ranks);
    if (!partial && ranks >= 0 && p.meta.world_size != (uint32_t)ranks)
        FAIL("world_size = %u, expected %d", p.meta.world_size, ranks);
    if (!p.meta.mpi_library || !*p.meta.mpi_library)
        FAIL("no MPI library in the metadata");
    if (!p.meta.cmdline || !strstr(p.meta.cmdline, "shim_"))
        FAIL("command line '%s' does not name the test program", p.meta.cmdline);
    if (p.meta.nnodes < 1 || p.meta.ranks_per_node < 1)
        FAIL("nodes %u, ranks per node %u", p.meta.nnodes, p.meta.ranks_per_node);

    uint64_t cell_calls[CS_R_N] = {0}, site_calls[CS_R_N] = {0}, total = 0;
    for (size_t i = 0; i < p.ncells; i++) {
        check_cell(&p.cells[i]);
        if (p.cells[i].coll < CS_R_N)
            cell_calls[p.cells[i].coll] += p.cells[i].rank_calls;
        total += p.cells[i].rank_calls;
    }
    for (int i = 0; i < nx; i++)
        if (!xs[i].matched)
            FAIL("missing cell %s comm_size %u bin %u (%llu rank calls made)",
                 cs_rcoll_name((int)xs[i].coll), xs[i].comm_size, xs[i].bin,
                 (unsigned long long)xs[i].calls);
    if (least.on == 1)
        FAIL("no cell %s comm_size %u bin %u (at least %llu rank calls made)",
             cs_rcoll_name((int)least.coll), least.comm_size, least.bin, least.calls);
    int site_found = 0;
    for (size_t i = 0; i < p.nsites; i++) {
        if (p.sites[i].coll < CS_R_N)
            site_calls[p.sites[i].coll] += p.sites[i].rank_calls;
        if (site && p.sites[i].where && strstr(p.sites[i].where, site))
            site_found = 1;
    }
    for (int k = 0; k < CS_R_N; k++)
        if (site_calls[k] != cell_calls[k])
            FAIL("%s: call sites count %llu calls, cells %llu", cs_rcoll_name(k),
                 (unsigned long long)site_calls[k], (unsigned long long)cell_calls[k]);
    if (site && !site_found) {
        FAIL("no call site names '%s'; sites are:", site);
        for (size_t i = 0; i < p.nsites && i < 10; i++)
            fprintf(stderr, "  %s\n", p.sites[i].where);
    }
    if (errors) {
        fprintf(stderr, "shim_check: %d mismatches in %s\n", errors, argv[1]);
        return 1;
    }
    printf("shim_check: %s OK: %zu cells, %llu rank calls, %zu sites, %u ranks\n", argv[1],
           p.ncells, (unsigned long long)total, p.nsites, p.nranks);
    cs_profile_free(&p);
    return 0;
}
