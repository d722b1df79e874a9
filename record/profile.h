/* collsel profiles: what an application's collectives looked like.
 *
 * In memory a profile is a list of cells, one per (collective, communicator
 * size, message-size bin), plus call sites and run metadata.  The same
 * serialisation is used on the wire (the tree merge at MPI_Finalize) and in
 * the file (versioned header + zstd payload + CRC-32, written atomically).
 * Pure C, no MPI: the CLI, collsel-replay and select/ link it too.
 *
 * Counting convention: every rank records its own calls, so a cell's
 * `rank_calls` is the sum over ranks; the number of collective operations
 * is rank_calls / comm_size (cs_cell_ops()).  Likewise t_total is the sum
 * over ranks of the time spent (seconds); the mean time per operation is
 * t_total / rank_calls.
 *
 * Message size = bytes one rank contributes (count x type size; for the v
 * variants the mean over ranks of the counts x type size).  Bins: bin 0 holds
 * 0 bytes; for b >= 1, bin = 1 + 4*floor(log2 b) + quarter-octave index, so
 * 1 B .. 2^40 B fit in CS_NBINS bins.  cs_bin_lo/hi give the edges.
 */
#ifndef COLLSEL_PROFILE_H
#define COLLSEL_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/colls.h"
#include "common/util.h"
#include "record/arrivals.h"
#include "record/explore.h"

/* Every collective we record.  Order is part of the file format: append
 * only (the neighborhood collectives came later: profiles without them
 * read as before).  Persistent collectives (MPI_Bcast_init ... MPI_Start)
 * count in the cells of their blocking form. */
#define CS_RCOLL_LIST(X)                                                  \
    X(BARRIER, "Barrier", 0) X(BCAST, "Bcast", 1) X(REDUCE, "Reduce", 1)  \
    X(ALLREDUCE, "Allreduce", 0) X(GATHER, "Gather", 1)                   \
    X(GATHERV, "Gatherv", 1) X(SCATTER, "Scatter", 1)                     \
    X(SCATTERV, "Scatterv", 1) X(ALLGATHER, "Allgather", 0)               \
    X(ALLGATHERV, "Allgatherv", 0) X(ALLTOALL, "Alltoall", 0)             \
    X(ALLTOALLV, "Alltoallv", 0) X(ALLTOALLW, "Alltoallw", 0)             \
    X(REDUCE_SCATTER, "Reduce_scatter", 0)                                \
    X(REDUCE_SCATTER_BLOCK, "Reduce_scatter_block", 0) X(SCAN, "Scan", 0) \
    X(EXSCAN, "Exscan", 0) X(IBARRIER, "Ibarrier", 0)                     \
    X(IBCAST, "Ibcast", 1) X(IREDUCE, "Ireduce", 1)                       \
    X(IALLREDUCE, "Iallreduce", 0) X(IGATHER, "Igather", 1)               \
    X(IGATHERV, "Igatherv", 1) X(ISCATTER, "Iscatter", 1)                 \
    X(ISCATTERV, "Iscatterv", 1) X(IALLGATHER, "Iallgather", 0)           \
    X(IALLGATHERV, "Iallgatherv", 0) X(IALLTOALL, "Ialltoall", 0)         \
    X(IALLTOALLV, "Ialltoallv", 0) X(IALLTOALLW, "Ialltoallw", 0)         \
    X(IREDUCE_SCATTER, "Ireduce_scatter", 0)                              \
    X(IREDUCE_SCATTER_BLOCK, "Ireduce_scatter_block", 0)                  \
    X(ISCAN, "Iscan", 0) X(IEXSCAN, "Iexscan", 0)                         \
    X(NEIGHBOR_ALLGATHER, "Neighbor_allgather", 0)                        \
    X(NEIGHBOR_ALLGATHERV, "Neighbor_allgatherv", 0)                      \
    X(NEIGHBOR_ALLTOALL, "Neighbor_alltoall", 0)                          \
    X(NEIGHBOR_ALLTOALLV, "Neighbor_alltoallv", 0)                        \
    X(NEIGHBOR_ALLTOALLW, "Neighbor_alltoallw", 0)                        \
    X(INEIGHBOR_ALLGATHER, "Ineighbor_allgather", 0)                      \
    X(INEIGHBOR_ALLGATHERV, "Ineighbor_allgatherv", 0)                    \
    X(INEIGHBOR_ALLTOALL, "Ineighbor_alltoall", 0)                        \
    X(INEIGHBOR_ALLTOALLV, "Ineighbor_alltoallv", 0)                      \
    X(INEIGHBOR_ALLTOALLW, "Ineighbor_alltoallw", 0)

#define CS_RCOLL_ENUM(id, name, rooted) CS_R_##id,
enum cs_rcoll { CS_RCOLL_LIST(CS_RCOLL_ENUM) CS_R_N };
#undef CS_RCOLL_ENUM

/* The recorded collectives whose size (the bytes one rank contributes) is
 * the same on every member of a call (not the v and w variants,
 * Reduce_scatter, the neighborhood ones): a bit per enum cs_rcoll. */
#define CS_RCOLL_UNIFORM                                                                   \
    ((1ull << CS_R_BARRIER) | (1ull << CS_R_BCAST) | (1ull << CS_R_REDUCE) |               \
     (1ull << CS_R_ALLREDUCE) | (1ull << CS_R_GATHER) | (1ull << CS_R_SCATTER) |           \
     (1ull << CS_R_ALLGATHER) | (1ull << CS_R_ALLTOALL) |                                  \
     (1ull << CS_R_REDUCE_SCATTER_BLOCK) | (1ull << CS_R_SCAN) | (1ull << CS_R_EXSCAN) |   \
     (1ull << CS_R_IBARRIER) | (1ull << CS_R_IBCAST) | (1ull << CS_R_IREDUCE) |            \
     (1ull << CS_R_IALLREDUCE) | (1ull << CS_R_IGATHER) | (1ull << CS_R_ISCATTER) |        \
     (1ull << CS_R_IALLGATHER) | (1ull << CS_R_IALLTOALL) |                                \
     (1ull << CS_R_IREDUCE_SCATTER_BLOCK) | (1ull << CS_R_ISCAN) | (1ull << CS_R_IEXSCAN))
_Static_assert(CS_R_N <= 64, "CS_RCOLL_UNIFORM is a 64-bit mask");

const char *cs_rcoll_name(int rcoll);      /* "Bcast" */
int cs_rcoll_rooted(int rcoll);            /* 1 for rooted collectives */
int cs_rcoll_from_name(const char *name);  /* case-insensitive, -1 if unknown */
/* The tuned collective (enum cs_coll) of a recorded one, -1 if collsel does
 * not replace it; and back. */
int cs_coll_of_rcoll(int rcoll);
int cs_rcoll_of_coll(int coll);

/* Message-size bins. */
#define CS_BIN_SUB 4                       /* sub-bins per octave */
#define CS_BIN_OCTAVES 41                  /* 2^0 .. 2^40 */
#define CS_NBINS (1 + CS_BIN_SUB * CS_BIN_OCTAVES)
int cs_bin_of(uint64_t bytes);             /* 0 .. CS_NBINS-1, clamps */
uint64_t cs_bin_lo(int bin);               /* smallest size in the bin */
uint64_t cs_bin_hi(int bin);               /* largest size in the bin */
/* "8 B", "[8 B, 10 B)", ">= 1 TiB": the sizes of a bin, for people, in a
 * profile folded to level fold (bound.c; 0: not folded). */
const char *cs_bin_range(char *buf, size_t len, int bin, uint32_t fold);

/* Root behaviour of a rooted collective within one cell. */
enum cs_root_mode {
    CS_ROOT_NONE = 0,   /* not a rooted collective / no calls */
    CS_ROOT_ZERO = 1,   /* always 0 */
    CS_ROOT_FIXED = 2,  /* always the same rank, not 0 (see root) */
    CS_ROOT_VARYING = 3 /* changes between calls */
};

#define CS_CELL_NSIZES 4 /* exact sizes kept per cell (most frequent) */

typedef struct cs_cell {
    uint32_t coll;      /* enum cs_rcoll */
    uint32_t comm_size;
    uint32_t bin;       /* cs_bin_of(bytes) */
    uint64_t rank_calls;
    double t_total, t_min, t_max; /* seconds; min/max over single calls */
    uint32_t root_mode; /* enum cs_root_mode */
    int32_t root;       /* the root when ZERO/FIXED; when VARYING the
                           smallest root seen (so that merging commutes) */
    uint32_t nsizes;    /* used entries of sizes[] */
    struct {
        uint64_t bytes, rank_calls;
    } sizes[CS_CELL_NSIZES]; /* exact sizes, most frequent first */
    uint64_t other_size_calls; /* rank_calls whose exact size was not kept */
} cs_cell;

/* Counts and times are sums over ranks and files; they saturate at these
 * bounds, far above any real job (a million ranks for thirty years), so
 * that merging never overflows; the reader rejects larger values as
 * damage. */
#define CS_COUNT_MAX ((uint64_t)1 << 56)
#define CS_TIME_MAX 1e15 /* seconds */
static inline uint64_t cs_count_add(uint64_t a, uint64_t b)
{
    return a >= CS_COUNT_MAX || b >= CS_COUNT_MAX - a ? CS_COUNT_MAX : a + b;
}
static inline double cs_time_add(double a, double b)
{
    double s = a + b;
    return s < CS_TIME_MAX ? s : CS_TIME_MAX;
}

static inline double cs_cell_ops(const cs_cell *c)
{
    return c->comm_size ? (double)c->rank_calls / c->comm_size : 0;
}

/* A call site: where in the application a collective was called from,
 * symbolised on the rank that saw it ("app+0x1234 main+0x56" style:
 * module, function, offset).  "other" sums what the bounded table dropped. */
typedef struct cs_site {
    uint32_t coll;
    char *where;
    uint64_t rank_calls;
    double t_total;
} cs_site;

typedef struct cs_meta {
    char *mpi_library;  /* MPI_Get_library_version, first line */
    char *cmdline;
    char *hostname0;    /* host of world rank 0 */
    uint32_t world_size, nnodes, ranks_per_node; /* max ranks on one node */
    int64_t start_time; /* unix seconds */
    double duration;    /* MPI_Init .. MPI_Finalize (or exit), seconds */
    char *selection;    /* what chose the methods: "tree PATH", "force SPEC";
                           NULL or "" natively or in a version 1 profile */
} cs_meta;

typedef struct cs_profile {
    cs_meta meta;
    uint32_t complete;     /* 1 when written at MPI_Finalize by rank 0 */
    uint32_t nranks;       /* ranks whose data is in here */
    cs_cell *cells;
    size_t ncells, cap_cells;
    cs_site *sites;
    size_t nsites, cap_sites;
    uint32_t npartial;     /* set by cs_profile_load: partial files merged
                              (not serialised) */
    struct cs_partial_info *partials; /* npartial entries, by rank (idem) */
    uint32_t fold;         /* folding level (cs_profile_bound), 0: none */
    uint64_t folded_cells; /* cells merged into coarser ones by folding */
    cs_arr arr;            /* arrivals (arrivals.h); arr.recorded 0: none */
    cs_xtab xtab;          /* methods measured in the application (explore.h);
                              xtab.k 0: none explored */
} cs_profile;

/* A partial file merged by cs_profile_load: whose, and how recent. */
typedef struct cs_partial_info {
    int32_t rank;
    double data_time; /* unix seconds when its data was taken (start + duration) */
} cs_partial_info;

/* Record one call into a cell, without allocating (the hot path of the
 * shim).  The cell must have been zeroed and its coll/comm_size/bin set.
 * Exact sizes: the first CS_CELL_NSIZES distinct sizes are counted exactly
 * (kept most frequent first), later new sizes go to other_size_calls.
 * root < 0 means "not rooted". */
void cs_cell_record(cs_cell *c, uint64_t bytes, int root, double seconds);
/* dst += src for two cells of the same key (no checks on the key). */
void cs_cell_merge(cs_cell *dst, const cs_cell *src);
/* Order of cells by (coll, comm_size, bin): <0, 0, >0. */
int cs_cell_key_cmp(const cs_cell *a, const cs_cell *b);
/* "none", "zero", "fixed", "varying". */
const char *cs_root_mode_name(int mode);

/* Cells are kept sorted by (coll, comm_size, bin) by cs_profile_add_cell;
 * fill p->cells only through it. */
void cs_profile_init(cs_profile *p);
void cs_profile_free(cs_profile *p);

/* Add one cell's worth of data (merging with an existing cell of the same
 * (coll, comm_size, bin): counts add, min/max combine, exact sizes merge
 * keeping the most frequent, root modes combine). */
int cs_profile_add_cell(cs_profile *p, const cs_cell *c);
int cs_profile_add_site(cs_profile *p, uint32_t coll, const char *where,
                        uint64_t rank_calls, double t_total);
/* dst += src (cells, sites, nranks; metadata fields kept from dst unless
 * empty there; complete = dst.complete && src.complete, an empty dst takes
 * src's).  Associative and commutative in counts, times (up to floating-point
 * rounding of sums) and root modes; the exact-size tables too while a cell
 * sees at most CS_CELL_NSIZES distinct sizes.  Profiles folded to
 * different levels meet at the higher one.  Linear in the cells of both. */
int cs_profile_merge(cs_profile *dst, const cs_profile *src);
/* Keep the hottest `max_sites` sites (by time), sum the rest (and earlier
 * "other" sites) into one "other" site per collective. */
void cs_profile_trim_sites(cs_profile *p, size_t max_sites);
/* Sort cells by (coll, comm_size, bin) and sites by time, descending. */
void cs_profile_sort(cs_profile *p);

/* Bounded profiles (bound.c).  A profile with very many distinct cells
 * (thousands of communicator sizes x message sizes) is folded, level by
 * level, until its file fits in max_bytes; counts and times stay exact,
 * only their resolution gets coarser:
 *   levels 1..7  message-size bins merged in groups of 1, 2, 4 .. 64
 *                octaves (4 << (level - 1) quarter-octave bins; the cell's
 *                bin is the group's first; 0 bytes stays apart);
 *   level 8      and communicator sizes merged into powers of two (the
 *                cell's size is the power: operations = rank calls / size
 *                become estimates);
 *   level 9      and no exact message sizes (all in other_size_calls), 8
 *                call sites;
 *   level 10     one cell per collective and 0 / non-0 bytes (size 1).
 * Call sites are always trimmed to the CS_BOUND_SITES hottest. */
#define CS_FOLD_MAX 10
#define CS_BOUND_SITES 64
/* The cell's key at a folding level (the cell is unchanged otherwise). */
void cs_fold_key(cs_cell *c, uint32_t level);
/* The largest message size a cell of bin `bin` holds at a level. */
uint64_t cs_fold_bin_hi(uint32_t bin, uint32_t level);
/* What the level merges, in words ("message sizes by 2 octaves, ..."). */
const char *cs_fold_describe(uint32_t level);
/* Fold p to `level` (no-op if p->fold >= level).  -1: out of memory. */
int cs_profile_fold(cs_profile *p, uint32_t level);
/* Fold p until its file is at most max_bytes (or the last level). */
int cs_profile_bound(cs_profile *p, size_t max_bytes, cs_err *e);

/* Serialisation (wire and file payload; uncompressed, no checksum). */
int cs_profile_serialize(const cs_profile *p, cs_buf *out);
int cs_profile_deserialize(cs_profile *p, const void *data, size_t n, cs_err *e);
/* ... of a payload of format version (1 .. CS_PROFILE_VERSION). */
int cs_profile_deserialize_v(cs_profile *p, const void *data, size_t n, uint32_t version,
                             cs_err *e);

/* Files: header (24 bytes, little endian)
 *   "COLLSELP" | u32 format version | u64 payload length | u32 CRC-32 of the
 *   payload
 * followed by the payload: the zstd-compressed serialisation.
 * Reading rejects empty, truncated, corrupted, foreign and newer-version
 * files with a message naming the file. */
#define CS_PROFILE_MAGIC "COLLSELP"
#define CS_PROFILE_VERSION 5u /* 2: meta.selection, folding level and count; 3: arrivals
                                 (versions 1 and 2 still read: arrivals "not recorded");
                                 4: the arrival cells' pair sums (3: "not recorded");
                                 5: their gap sums, the time between calls */
#define CS_PROFILE_HEADER 24
int cs_profile_write(const cs_profile *p, const char *path, cs_err *e);
int cs_profile_read(cs_profile *p, const char *path, cs_err *e);
/* Parse a complete file image held in memory (name is used in messages). */
int cs_profile_decode(cs_profile *p, const void *file, size_t n, const char *name,
                      cs_err *e);

/* Writing from a signal handler (or an exit path that cannot allocate):
 *  1. ahead of time (normal context), build the complete file image with
 *     cs_profile_encode() into a cs_buf (allocates; not signal-safe);
 *  2. in the handler, name the file with cs_profile_partial_path() and write
 *     the image with cs_profile_write_raw().
 * Both are async-signal-safe: no malloc, no stdio, only open/write/fsync/
 * close/rename/unlink/getpid.  write_raw writes a new "path.tmp.RANDOM"
 * (cs_file_replace: exclusive, never through a link) and renames it over
 * path; it returns 0, or -1 with errno set (nothing left behind). */
int cs_profile_encode(const cs_profile *p, cs_buf *out, cs_err *e);
int cs_profile_write_raw(const char *path, const void *file_bytes, size_t n);
/* Partial files of an incomplete run: "FILE.partial.RANK" (RANK decimal,
 * >= 0).  Returns 0, or -1 if buf is too small. */
int cs_profile_partial_path(char *buf, size_t len, const char *path, int rank);
/* The reader of profiles with their partial files (the entry point of
 * everything that reads a recorded run): load PATH if it exists, plus
 * every PATH.partial.RANK next to it (in rank order; each the newest
 * snapshot of that rank, or what it wrote when it ended), merged;
 * p->complete is 0 and p->npartial / p->partials say which ranks' files
 * were used and when their data was taken, if any partial file was used.
 * Fails if nothing is found, or naming the first file that cannot be read. */
int cs_profile_load(cs_profile *p, const char *path, cs_err *e);

#endif
