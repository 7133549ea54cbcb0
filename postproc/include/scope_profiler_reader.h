/*
 * scope_profiler_reader.h - read scope-profiler HDF5 files from C.
 *
 * Introduction
 * ------------
 * The equivalent of the reference ProfilingH5Reader. A profile file holds
 *
 *     rank<N>/regions/<link name>/start_times   int64 ns (CLOCK_MONOTONIC)
 *     rank<N>/regions/<link name>/end_times     int64 ns
 *
 * optionally thread_ids (int32) beside them, and the attributes "name"
 * (original region name) and "num_calls" (int64) on each region group;
 * and, when LIKWID measured, hardware-counter results under rank<N>/likwid
 * (see "LIKWID hardware counters" below).
 *
 * sp_reader_open() reads only the structure (groups, attributes, dataset
 * shapes and types, and the first start of every region on every rank), so
 * opening a large file is cheap. The interval arrays of one (region, rank)
 * pair are read on demand with sp_reader_load() and released with
 * sp_reader_intervals_free(): a program that processes one pair at a time
 * needs memory for the largest pair, not for the file.
 *
 * Simple use:
 *
 *     char msg[512];
 *     sp_reader_t *r;
 *     if (sp_reader_open("profiling_data.h5", &r, msg, sizeof msg) < 0) {
 *       fprintf(stderr, "%s\n", msg);
 *       return 1;
 *     }
 *     for (int g = 0; g < sp_reader_num_regions(r); g++)
 *       for (int k = 0; k < sp_reader_num_ranks(r); k++) {
 *         sp_reader_intervals_t iv;
 *         sp_reader_stats_t st;
 *         if (sp_reader_load(r, g, k, &iv) < 0) { puts(sp_reader_errmsg(r)); continue; }
 *         sp_reader_stats_compute(&iv, &st);
 *         printf("%s rank %d: %lld calls\n", sp_reader_region_name(r, g),
 *                sp_reader_rank_id(r, k), (long long)st.num_calls);
 *         sp_reader_intervals_free(&iv);
 *       }
 *     sp_reader_close(r);
 *
 * Indices: regions are numbered 0..sp_reader_num_regions()-1 in the order
 * of their first start time over all ranks (regions without any interval
 * last, by name); ranks are numbered 0..sp_reader_num_ranks()-1 in
 * increasing rank id (the N of rank<N>; ids may have gaps).
 *
 * Errors: functions that can fail return 0 or a negative SP_READER_E* code
 * and keep a one-line explanation that sp_reader_errmsg() returns.
 * The library never prints, exits or aborts, and silences the HDF5 error
 * stack only for the duration of its own calls.
 *
 * Threads: a reader object must be used by one thread at a time; distinct
 * readers may be used concurrently only with a thread-safe HDF5 build.
 */
#ifndef SCOPE_PROFILER_READER_H
#define SCOPE_PROFILER_READER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SP_READER_STATIC_DEFINE)
#define SP_READER_EXPORT
#elif defined(SP_READER_BUILDING_LIBRARY)
#define SP_READER_EXPORT __attribute__((visibility("default")))
#else
#define SP_READER_EXPORT
#endif

/* ===================================================================== */
/*  Version                                                              */
/* ===================================================================== */

/* The reader is released with the core: the same version, generated from the
 * project's (CMake project(VERSION)). */
#include "scope_profiler_version.h"
#define SP_READER_VERSION_MAJOR SP_VERSION_MAJOR
#define SP_READER_VERSION_MINOR SP_VERSION_MINOR
#define SP_READER_VERSION_PATCH SP_VERSION_PATCH
#define SP_READER_VERSION_NUMBER \
  (SP_READER_VERSION_MAJOR * 10000 + SP_READER_VERSION_MINOR * 100 + SP_READER_VERSION_PATCH)
#define SP_READER_VERSION_STRING SP_VERSION_STRING

/* Newest file layout version (root attribute scope_profiler_schema) read.
 * Files without the attribute (written by the reference tool) are read too,
 * and so are the reference tool's later layouts: schema 2 and 3 with
 * storage_layout "columnar" (region_table, rank_region_index and events
 * columns; see reader_columnar.c), and names with '/' that it stored as
 * nested groups (rank0/regions/solver/rhs is the region "solver/rhs"). */
#define SP_READER_SCHEMA_MAX 3

/** Runtime version: SP_READER_VERSION_NUMBER of the library linked. */
SP_READER_EXPORT unsigned sp_reader_version_number(void);
/** Runtime version as "MAJOR.MINOR.PATCH"; a static string. */
SP_READER_EXPORT const char *sp_reader_version_string(void);

/* ===================================================================== */
/*  Errors                                                               */
/* ===================================================================== */

/* X-macro: one list generates the enum, sp_reader_strerror() and
 * sp_reader_err_name(). */
#define SP_READER_ERRNO_MAP(XX)                                     \
  XX(EINVAL, -1, "invalid argument")                                \
  XX(ENOMEM, -2, "out of memory")                                   \
  XX(EIO, -3, "file missing or unreadable")                         \
  XX(ENOTHDF5, -4, "not an HDF5 file, or truncated or damaged")     \
  XX(ELAYOUT, -5, "file does not follow the scope-profiler layout") \
  XX(EDATA, -6, "inconsistent interval data")                       \
  XX(EHDF5, -7, "HDF5 read failed")                                 \
  XX(EPATTERN, -8, "invalid regular expression")                    \
  XX(ESCHEMA, -9, "file layout version newer than this reader")     \
  XX(EORDER, -10, "calls out of order (an unscanned merge: scan instead)")

typedef enum sp_reader_errno {
#define SP_READER__XX(name, value, text) SP_READER_##name = value,
  SP_READER_ERRNO_MAP(SP_READER__XX)
#undef SP_READER__XX
      SP_READER_OK = 0
} sp_reader_errno_t;

/** Text for an SP_READER_E* code ("success" for 0); never NULL. Thread-safe. */
SP_READER_EXPORT const char *sp_reader_strerror(int err);
/** Name of a code ("SP_READER_EDATA"); "SP_READER_OK" for 0,
 *  "SP_READER_UNKNOWN" otherwise. Thread-safe. */
SP_READER_EXPORT const char *sp_reader_err_name(int err);

/* ===================================================================== */
/*  Opening a file                                                       */
/* ===================================================================== */

typedef struct sp_reader sp_reader_t;

/**
 * Opens path read-only, serially (the default file access list, also with a
 * parallel HDF5: no MPI needed), and reads its structure. Only root groups
 * named rank<digits> (no leading zeros) are ranks; other objects are
 * ignored. A rank group without "regions" has no regions.
 *
 * Checked here, from metadata only: at least one rank group; schema version
 * not newer than SP_READER_SCHEMA_MAX; per region, either both
 * start_times and end_times or neither (count-only mode), both 1-D signed
 * 64-bit integers of the same length, thread_ids (if present) a 1-D
 * integer array of that length.
 *
 * out:    receives the reader (NULL on failure).
 * errbuf: if not NULL, receives a one-line explanation on failure
 *         (truncated to errcap bytes, always NUL-terminated).
 * Returns 0, SP_READER_EIO (missing or unreadable), SP_READER_ENOTHDF5,
 * SP_READER_ELAYOUT, SP_READER_ESCHEMA, SP_READER_EHDF5 or
 * SP_READER_ENOMEM.
 * Cost: one small read per region and rank (its first start; for regions
 * recorded by several threads, a chunked scan of start_times).
 */
SP_READER_EXPORT int sp_reader_open(const char *path, sp_reader_t **out, char *errbuf,
                                    size_t errcap);

/** Closes the file and frees the reader; NULL is ignored. */
SP_READER_EXPORT void sp_reader_close(sp_reader_t *r);

/** Explanation of the last failure on r ("" if none); valid until the next
 *  call on r. */
SP_READER_EXPORT const char *sp_reader_errmsg(const sp_reader_t *r);

/** Schema version from the root attribute, or 0 when the file has none. */
SP_READER_EXPORT int sp_reader_schema(const sp_reader_t *r);

/* ===================================================================== */
/*  Ranks and regions                                                    */
/* ===================================================================== */

/** Number of rank groups in the file (>= 1). */
SP_READER_EXPORT int sp_reader_num_ranks(const sp_reader_t *r);

/** Rank id (the N of rank<N>) of rank index k, or -1 if k is out of range. */
SP_READER_EXPORT int sp_reader_rank_id(const sp_reader_t *r, int k);

/** Rank index of rank id, or -1 if the file has no rank<id>. */
SP_READER_EXPORT int sp_reader_rank_index(const sp_reader_t *r, int id);

/** Number of distinct regions over all ranks. */
SP_READER_EXPORT int sp_reader_num_regions(const sp_reader_t *r);

/** Name of region g: the "name" attribute, else the decoded link name.
 *  NUL-terminated UTF-8 owned by r; NULL if g is out of range. */
SP_READER_EXPORT const char *sp_reader_region_name(const sp_reader_t *r, int g);

/** Earliest start (ns) of region g over all ranks; INT64_MAX when it has no
 *  interval. */
SP_READER_EXPORT int64_t sp_reader_region_first_start(const sp_reader_t *r, int g);

/**
 * Selects regions by name, as the reference get_regions(include, exclude):
 * each pattern is a POSIX extended regular expression matched at the start
 * of the name (like Python re.match: "solver" matches "solver_step").
 * A region is kept when include is empty or any include pattern matches,
 * and no exclude pattern matches.
 *
 * regions: receives the kept region indices in region order; must have room
 *          for sp_reader_num_regions(r) entries.
 * count:   receives the number kept (may be 0).
 * Returns 0, SP_READER_EPATTERN (message names the bad pattern) or
 * SP_READER_ENOMEM.
 */
SP_READER_EXPORT int sp_reader_filter(sp_reader_t *r, const char *const *include, size_t ninclude,
                                      const char *const *exclude, size_t nexclude, int *regions,
                                      int *count);

/** What the file says about region g on rank index k, without reading
 *  interval data. */
typedef struct sp_reader_info {
  int present;           /**< 1 if rank k has region g */
  int has_times;         /**< 1 if start/end arrays exist (0: count-only mode) */
  int has_thread_ids;    /**< 1 if a thread_ids array exists */
  int64_t num_calls;     /**< num_calls attribute; the interval count if absent */
  int64_t num_intervals; /**< length of start_times (0 without arrays) */
  int64_t first_start;   /**< earliest start in ns; INT64_MAX without intervals */
} sp_reader_info_t;

/** Fills *info for region g on rank index k. Returns 0 or SP_READER_EINVAL. */
SP_READER_EXPORT int sp_reader_info(const sp_reader_t *r, int g, int k, sp_reader_info_t *info);

/** Which figures sp_reader_aggregate_t holds (bits of .have). */
enum {
  SP_READER_AGG_TOTAL = 1u,    /**< total */
  SP_READER_AGG_MIN = 2u,      /**< min */
  SP_READER_AGG_MAX = 4u,      /**< max */
  SP_READER_AGG_EXCLUSIVE = 8u /**< exclusive */
};

/** What the reference tool's aggregate layout (@storage_layout
 *  "aggregate": no stamps) stores for one (region, rank) pair besides its
 *  call count. A figure whose bit is not in .have is unknown, never 0. */
typedef struct sp_reader_aggregate {
  int present;       /**< 1 when the pair is in an aggregate file (its calls are known) */
  unsigned have;     /**< SP_READER_AGG_* bits; 0 for every other layout */
  int64_t calls;     /**< num_calls of the pair (as sp_reader_info) */
  int64_t total;     /**< ns, sum of the calls' durations */
  int64_t min, max;  /**< ns, shortest and longest call (unknown without calls) */
  int64_t exclusive; /**< ns, total minus the time spent in the calls' children */
} sp_reader_aggregate_t;

/** Fills *out for region g on rank index k (present = have = 0 where the
 *  pair is absent or the file stores stamps). Returns 0 or SP_READER_EINVAL. */
SP_READER_EXPORT int sp_reader_aggregate(const sp_reader_t *r, int g, int k,
                                         sp_reader_aggregate_t *out);

/** Buckets of the duration histograms of scope-profiler's aggregate files
 *  (profile mode; docs/profile-mode.md "The file"). */
#define SP_READER_AGG_NBUCKETS 1312

/** Adds the duration histogram of region g on rank index k (summed over
 *  its call paths and threads) into counts[SP_READER_AGG_NBUCKETS].
 *  Returns the calls added: 0 for every other file, an aggregate file
 *  without histograms (the reference tool's) or damaged ones; or
 *  SP_READER_EINVAL. */
SP_READER_EXPORT int64_t sp_reader_aggregate_hist(const sp_reader_t *r, int g, int k,
                                                  uint64_t *counts);
/** Sums over the calls of one (region, rank) pair of scope-profiler's
 *  aggregate files, from call_paths/{counts, inclusives, sum_squares}: the
 *  pair's call paths and threads added together. Population variance:
 *  sum_squares / calls - (sum / calls)^2. */
typedef struct sp_reader_moments {
  int64_t calls;      /**< calls */
  double sum;         /**< ns, sum of their durations */
  double sum_squares; /**< ns^2, sum of their squares */
} sp_reader_moments_t;

/** Fills *out for region g on rank index k. Returns 1 when the file stores
 *  them and the pair has calls, 0 otherwise (every other file, the
 *  reference tool's aggregate files, damaged columns: *out zeroed), or
 *  SP_READER_EINVAL. */
SP_READER_EXPORT int sp_reader_aggregate_moments(const sp_reader_t *r, int g, int k,
                                                 sp_reader_moments_t *out);
/** A profile-mode file reduced across ranks (SCOPE_PROFILER_REDUCE;
 *  docs/profile-mode.md, "Reduced across ranks"): per call path, over the
 *  ranks where it has a finished call, figure f (0 calls, 1 inclusive ns,
 *  2 exclusive ns) as min, max, sum, mean, std (population) and the ranks
 *  of the min and the max. Its rank_region_index, which the other calls
 *  read, holds only the kept ranks (the k of largest and smallest total per
 *  region). Arrays of npaths entries; parent: the enclosing path, -1 at
 *  the top (always before its children). */
typedef struct sp_reader_reduced {
  int64_t npaths;
  int64_t mpi_size; /**< ranks of the job */
  int64_t keep;     /**< k */
  int32_t *region;  /**< region id (sp_reader_region_name) */
  int64_t *parent;
  int32_t *depth;
  int32_t *rank_counts; /**< ranks with a finished call of the path */
  int64_t *min[3], *max[3], *sum[3];
  double *mean[3], *std[3];
  int32_t *min_rank[3], *max_rank[3]; /**< -1: no rank had a call */
} sp_reader_reduced_t;

/** Loads *out: 1 for a reduced file, 0 for every other file (*out zeroed),
 *  SP_READER_ELAYOUT when its reduced_paths do not hold together (the
 *  message in sp_reader_errmsg), SP_READER_EINVAL. Free with
 *  sp_reader_reduced_free. */
SP_READER_EXPORT int sp_reader_reduced(sp_reader_t *r, sp_reader_reduced_t *out);
SP_READER_EXPORT void sp_reader_reduced_free(sp_reader_reduced_t *out);

/** The value that stands for bucket b (its midpoint, within 1.6 % of every
 *  duration in it), ns; -1 for a bucket out of range. */
SP_READER_EXPORT int64_t sp_reader_aggregate_bucket_mid(int b);
/** Percentile p (0..100) of a histogram: the midpoint of the bucket where
 *  the cumulative count reaches ceil(p/100 n) (numpy's inverted_cdf, to
 *  1.6 %); -1 when empty. */
SP_READER_EXPORT int64_t sp_reader_aggregate_percentile(const uint64_t *counts, double p);

/* ===================================================================== */
/*  Interval data                                                        */
/* ===================================================================== */

/** Intervals of one (region, rank) pair; arrays owned by the caller after
 *  sp_reader_load() and released by sp_reader_intervals_free(). */
typedef struct sp_reader_intervals {
  int64_t n;           /**< number of intervals */
  int64_t num_calls;   /**< num_calls attribute (n if absent) */
  int64_t *start;      /**< n start stamps, ns */
  int64_t *end;        /**< n end stamps, ns; end[i] >= start[i] */
  int32_t *thread_ids; /**< n thread ids, or NULL when one thread recorded */
  /** The reference tool's columnar files may number the calls: n call ids
   *  (unique within the rank) and the id of each call's enclosing call (-1
   *  for none); both NULL when the file has no such columns. Where they
   *  exist they define the call tree (sp_reader_tree_build()). */
  int64_t *call_ids;
  int64_t *parent_ids;
} sp_reader_intervals_t;

/**
 * Reads the arrays of region g on rank index k into *out and checks every
 * interval ends at or after its start. A pair that does not exist or has no
 * arrays gives n = 0 and NULL arrays (not an error).
 * Returns 0, SP_READER_EINVAL, SP_READER_EDATA (message gives the first bad
 * interval), SP_READER_EHDF5 (e.g. truncated file) or SP_READER_ENOMEM; on
 * failure *out holds no memory.
 * Cost: 16 bytes per interval (20 with thread ids, 16 more with call ids).
 */
SP_READER_EXPORT int sp_reader_load(sp_reader_t *r, int g, int k, sp_reader_intervals_t *out);

/** Frees the arrays of iv and zeroes it; NULL is ignored. */
SP_READER_EXPORT void sp_reader_intervals_free(sp_reader_intervals_t *iv);

/**
 * Reads intervals [first, first + count) of region g on rank index k into
 * the caller's arrays (each with room for count elements), checked and
 * aligned as sp_reader_load() does: a program streams a pair of any length
 * in memory of its choosing. thread_ids may be NULL (not read); a pair
 * recorded by one thread gives 0s there.
 * Returns the intervals read (fewer than count at the pair's end; 0 past it
 * or for a pair without arrays), or SP_READER_EINVAL (also for the
 * reference tool's delta-encoded columns, which sp_reader_load() reads
 * whole), SP_READER_EDATA or SP_READER_EHDF5.
 * Cost: the slice's bytes; no allocation.
 */
SP_READER_EXPORT int64_t sp_reader_read_range(sp_reader_t *r, int g, int k, int64_t first,
                                              int64_t count, int64_t *start, int64_t *end,
                                              int32_t *thread_ids);

/** One call streamed by sp_reader_merge_next(). */
typedef struct sp_reader_call {
  int64_t start, end; /**< ns, as sp_reader_load() gives them */
  int32_t thread;     /**< thread id (0 without thread ids) */
  int32_t key;        /**< the tie-break key of its region (keys[slot]) */
  int slot;           /**< its region's position in regions[] of the open */
  int64_t index;      /**< its position in the pair's arrays */
} sp_reader_call_t;

typedef struct sp_reader_merge sp_reader_merge_t;

/**
 * Streams the calls of regions[0..n-1] (reader region indices) on rank
 * index k in time order: by thread, then start, then end descending (an
 * enclosing call before the calls it holds), then keys[slot] (NULL: the
 * slot), then slot, then index. The order of the call tree's sweep and of
 * the OTF2 export.
 * Memory is bounded, not the rank's calls: each pair is read twice in
 * chunks (sp_reader_read_range), a first pass cutting it into sorted runs
 * and the merge holding a chunk per run (at most about 10 MB for all runs
 * together). A pair out of order in more than 64 places (one region
 * recursing, threads interleaved call by call) and the reference tool's
 * delta-encoded columns are loaded whole and sorted: memory for that pair.
 * out: receives the merge (NULL on failure); close it with
 * sp_reader_merge_close(). Returns 0, SP_READER_EINVAL, SP_READER_ENOMEM
 * or an error of the read (message in sp_reader_errmsg(r)). Not
 * thread-safe against other users of r.
 */
SP_READER_EXPORT int sp_reader_merge_open(sp_reader_t *r, int k, const int *regions,
                                          const int32_t *keys, int n, sp_reader_merge_t **out);

/** Flag of sp_reader_merge_open_flags(): no first pass. */
#define SP_READER_MERGE_UNSCANNED 1u

/**
 * sp_reader_merge_open() with flags (0: the same). SP_READER_MERGE_UNSCANNED
 * skips the first pass (a read of every call): each pair is taken as one
 * sorted run, as the core writes it unless a region recursed on a thread,
 * and each chunk is checked as it is read. A pair out of order in its
 * first 16,384 calls (read at the open) is scanned as without the flag;
 * one out of order further on makes sp_reader_merge_next() and
 * sp_reader_merge_next_n() return SP_READER_EORDER: calls of that pair
 * stored further on may belong before calls already given, so the caller
 * drops what it was given and opens the merge again without the flag.
 * Without SP_READER_EORDER the calls given are those of
 * sp_reader_merge_open(), in the same order.
 */
SP_READER_EXPORT int sp_reader_merge_open_flags(sp_reader_t *r, int k, const int *regions,
                                                const int32_t *keys, int n, unsigned flags,
                                                sp_reader_merge_t **out);

/**
 * As sp_reader_merge_open(), in the order of start over all threads (ties:
 * the longer call first, then keys[slot], slot, index; thread ignored):
 * the order in which the calls cover time whatever thread ran them (the
 * charts' busy time of a region on a rank, the k-th call of a pair).
 * The same memory (a pair's core-written threads are its sorted runs).
 */
SP_READER_EXPORT int sp_reader_merge_open_by_start(sp_reader_t *r, int k, const int *regions,
                                                   const int32_t *keys, int n,
                                                   sp_reader_merge_t **out);

/** The next call into *c: returns 1, 0 after the last one, or a negative
 *  SP_READER_E* code (the file changed or is damaged; message in
 *  sp_reader_errmsg()). */
SP_READER_EXPORT int sp_reader_merge_next(sp_reader_merge_t *m, sp_reader_call_t *c);

/** The next calls, at most cap, into c[0..): returns how many (0 after the
 *  last one) or a negative SP_READER_E* code, as sp_reader_merge_next()
 *  one at a time (the same order; cheaper per call for long streams). */
SP_READER_EXPORT int64_t sp_reader_merge_next_n(sp_reader_merge_t *m, sp_reader_call_t *c,
                                                int64_t cap);

/** Frees the merge; NULL is ignored. */
SP_READER_EXPORT void sp_reader_merge_close(sp_reader_merge_t *m);

/** Calls above which the call tree sweeps a rank straight from the merge
 *  (and scope-profiler-pproc --summary reads a pair in chunks) instead of
 *  loading it: SP_READER_STREAM_DEFAULT, or the number in the environment
 *  variable SCOPE_PROFILER_READER_STREAM (0 streams every rank: the same
 *  figures, to compare the two ways). */
#define SP_READER_STREAM_DEFAULT ((int64_t)1 << 18)
SP_READER_EXPORT int64_t sp_reader_stream_calls(void);

/**
 * Earliest start and latest end (ns) of region g on rank index k, scanning
 * the arrays in bounded chunks (ends need not be sorted: nested calls).
 * Both are INT64_MAX / INT64_MIN when the pair has no interval.
 * Returns 0, SP_READER_EINVAL, SP_READER_EHDF5 or SP_READER_ENOMEM.
 */
SP_READER_EXPORT int sp_reader_extent(sp_reader_t *r, int g, int k, int64_t *first_start,
                                      int64_t *last_end);

/** Duration statistics of a set of intervals, in ns. */
typedef struct sp_reader_stats {
  int64_t num_calls; /**< num_calls of the pair */
  int64_t n;         /**< intervals measured */
  int64_t total;     /**< sum of durations, ns */
  double mean;       /**< total / n, ns (0 when n == 0) */
  int64_t min;       /**< shortest duration, ns (0 when n == 0) */
  int64_t max;       /**< longest duration, ns (0 when n == 0) */
} sp_reader_stats_t;

/** Computes *st from iv (total, average, min, max duration). Never fails
 *  for loaded data; returns SP_READER_EINVAL for NULL arguments. */
SP_READER_EXPORT int sp_reader_stats_compute(const sp_reader_intervals_t *iv,
                                             sp_reader_stats_t *st);

/**
 * Per-region sums over every rank, in one pass over the file rank after
 * rank (a columnar file is read once, not once per region): for each region
 * g of the reader (arrays of sp_reader_num_regions(r) elements; any may be
 * NULL), pairs[g] the ranks that have the region, calls[g] their num_calls
 * summed, intervals[g] their intervals, total[g] the sum of every interval's
 * duration in ns, as sp_reader_stats_compute's total summed over the ranks
 * (saturated at INT64_MAX). An aggregate file's stored totals are not
 * added (sp_reader_aggregate gives them). Cost: one sp_reader_load of every
 * pair. Returns 0, SP_READER_EINVAL, or the first error of a load (the
 * message set, the sums incomplete).
 */
SP_READER_EXPORT int sp_reader_region_sums(sp_reader_t *r, int64_t *pairs, int64_t *calls,
                                           int64_t *intervals, int64_t *total);

/* ===================================================================== */
/*  Clocks of several nodes                                              */
/* ===================================================================== */

/* Stamps are each node's CLOCK_MONOTONIC, which counts from that node's
 * boot. The core measures every rank's offset to rank 0's clock after setup
 * and at finalize (rank<N> attributes clock_offset_ns, clock_offset_at_ns,
 * clock_offset_error_ns, and clock_offset_end_ns, clock_offset_end_at_ns,
 * clock_offset_end_error_ns). By default the reader puts every stamp it
 * returns (sp_reader_load, sp_reader_extent, first starts) on rank 0's
 * clock: t - offset(t), the offset interpolated linearly between the two
 * measurements (constant with one). Each interval moves as a whole by the
 * offset at its start, so durations are exactly as recorded. Files without
 * the attributes read as recorded. Region order is fixed at open, by the
 * aligned first starts. */

/** One rank's clock measurements, in the order taken (n = 0: none). */
typedef struct sp_reader_clock {
  int n;                /**< measurements: 0, 1 or 2 */
  int64_t offset_ns[2]; /**< this rank's clock minus rank 0's, ns */
  int64_t at_ns[2];     /**< when, on this rank's clock, ns */
  int64_t error_ns[2];  /**< error bound (half the best round trip), ns */
} sp_reader_clock_t;

/** on = 1 (the default): stamps on rank 0's clock; 0: stamps as recorded.
 *  Returns 0 or SP_READER_EINVAL. Not thread-safe against readers of r. */
SP_READER_EXPORT int sp_reader_set_clock_align(sp_reader_t *r, int on);

/** 1 when stamps are being moved (aligning is on and some rank has
 *  offsets), else 0. */
SP_READER_EXPORT int sp_reader_clock_aligned(const sp_reader_t *r);

/** Stamp t of rank index k on rank 0's clock (t itself when aligning is off
 *  or the rank has no offsets): for callers reading stamps themselves. */
SP_READER_EXPORT int64_t sp_reader_time_align(const sp_reader_t *r, int k, int64_t t);

/** The clock measurements of rank index k. Returns 0 or SP_READER_EINVAL. */
SP_READER_EXPORT int sp_reader_rank_clock(const sp_reader_t *r, int k, sp_reader_clock_t *out);

/** Hostname attribute of rank index k (owned by r), or NULL if absent. */
SP_READER_EXPORT const char *sp_reader_rank_host(const sp_reader_t *r, int k);

/** Number of distinct hostnames over the ranks (0 when none is recorded). */
SP_READER_EXPORT int sp_reader_num_hosts(const sp_reader_t *r);

/* ===================================================================== */
/*  Call tree                                                            */
/* ===================================================================== */

/*
 * The files store flat intervals per (region, rank); the nesting is rebuilt
 * from the stamps. Per rank and thread, calls are sorted by start
 * ascending, then end descending, then region name ascending (the order of
 * calls with identical stamps is otherwise unknowable), and a call's parent
 * is the innermost call before it in that order, on the same rank and
 * thread, that contains it (parent.start <= start and end <= parent.end).
 * Calls are aggregated by call path: the names from the root, so recursion
 * gives repeated names (main/fib/fib). A call on a worker thread (thread
 * id != 0) is a root of that thread's tree and is never counted in a
 * thread-0 parent's time; with several threads the sums over threads can
 * exceed the wall time of the parent.
 *
 * Files of the reference tool that number their calls (call_ids and
 * parent_ids in sp_reader_intervals_t) give each call the parent their ids
 * name instead (the call of the same rank with that id; none, a missing id
 * or a cycle: a root); the ids of the rank's unselected regions are then
 * read too, for the links through them. Ids dense per rank (the reference
 * tool's: 0 .. n-1 in start order, a parent's id below its children's)
 * are indexed by id and linked in one pass, one selected region loaded at
 * a time (about 16 bytes per call of the rank, 20 with thread ids); other
 * ids (sparse, repeated, a parent after its child) are hashed, with every
 * selected region of the rank loaded at once.
 *
 * Regions without stamps (count-only mode) are roots with calls only.
 * Only the selected regions take part: a call whose parent region is not
 * selected nests under its nearest selected ancestor.
 *
 * Times are ns. Definitions over the selected ranks (a rank without a call
 * on the path counts as 0):
 *   inclusive  sum of the durations of the path's calls
 *   exclusive  inclusive minus the inclusive time of the calls directly
 *              under them (negative only if calls overlap without nesting)
 *   rank_min / rank_mean / rank_max   of the per-rank inclusive times
 *   max_rank   rank id holding rank_max (the lowest id on ties)
 *   imbalance  (rank_max - rank_mean) / rank_max, 0..1 (0 when rank_max is
 *              0): the fraction of the slowest rank's time the others idle
 *              in the mean; as --summary's imbalance
 *   share      inclusive / inclusive of the path's root, 0..1
 *
 * Cost: the selected regions of one rank are held at a time (their arrays,
 * 16-20 bytes per interval; with one thread and starts in order the calls
 * are ordered in blocks of about 1024, else 48 more bytes per interval for
 * the calls and a merge buffer), so memory follows the largest rank, not
 * the file; a rank with more timed calls than sp_reader_stream_calls() is
 * swept from sp_reader_merge_open() instead (memory bounded, about 20 MB,
 * whatever its calls; the same figures; files with call ids excepted;
 * with SP_READER_TREE_DURATIONS each pair is then read once more in slices);
 * plus 24 bytes per node and selected rank for the per-rank figures. CPU: where calls repeat a pattern (a step with the same calls
 * nested the same way), each repeat after the first is checked and summed
 * straight from the arrays, so the tree costs little more than reading;
 * calls that do not repeat are swept one by one, a few times the read
 * (docs/performance.md, "the call tree and the -o DIR JSON files").
 */

typedef struct sp_reader_tree sp_reader_tree_t;

/** Flags of sp_reader_tree_build(). */
enum {
  /** Keep threads apart: the thread id is part of the path, so a region
   *  gets one node per (call path, thread); node.thread says which. */
  SP_READER_TREE_BY_THREAD = 1,
  /** Also keep the duration statistics of every (region, selected rank)
   *  pair, from the same read (sp_reader_tree_durations()). */
  SP_READER_TREE_DURATIONS = 2,
  /** Totals only, for a caller that needs the nodes and not the ranks
   *  (the charts' region order): the figures of every selected rank are
   *  summed into one column, so the tree's memory follows its nodes, not
   *  nodes x ranks; node.nranks, rank_min, rank_mean, rank_max and
   *  imbalance are 0, max_rank -1, sp_reader_tree_num_ranks() 0. A
   *  per-rank file's stamps are read in slices and merged (memory per
   *  selected region, not per call) where each (region, rank) pair's calls
   *  come in start order; other files are built as without the flag.
   *  Not with SP_READER_TREE_DURATIONS. */
  SP_READER_TREE_TOTALS = 4
};

/** One call path. Nodes are numbered in depth-first order, children by
 *  inclusive time descending (ties by name), so node 0 is the largest root
 *  and a parent comes before its children. */
typedef struct sp_reader_tree_node {
  int parent;           /**< parent node, -1 for a root */
  int first_child;      /**< first child, -1 for a leaf */
  int next_sibling;     /**< next sibling (or next root), -1 if last */
  int region;           /**< reader region index of the path's last name */
  int depth;            /**< 0 for a root */
  int thread;           /**< thread id with SP_READER_TREE_BY_THREAD, else -1 */
  int timed;            /**< 1 if stamps were recorded (0: count-only calls) */
  int nranks;           /**< selected ranks with at least one call here */
  int64_t calls;        /**< calls over the selected ranks and threads */
  int64_t worker_calls; /**< of those, calls on threads other than 0 */
  int64_t inclusive;    /**< ns, summed over ranks and threads */
  int64_t exclusive;    /**< ns, summed over ranks and threads */
  double rank_min;      /**< ns, smallest per-rank inclusive time */
  double rank_mean;     /**< ns, mean per-rank inclusive time */
  double rank_max;      /**< ns, largest per-rank inclusive time */
  int max_rank;         /**< rank id holding rank_max */
  double imbalance;     /**< (rank_max - rank_mean) / rank_max */
  double share;         /**< inclusive / inclusive of the root, 0..1 */
} sp_reader_tree_node_t;

/** The figures of one node on one selected rank. */
typedef struct sp_reader_tree_rank {
  int rank;          /**< rank id */
  int64_t calls;     /**< calls on this rank (all threads) */
  int64_t inclusive; /**< ns */
  int64_t exclusive; /**< ns */
} sp_reader_tree_rank_t;

/**
 * Builds the call tree of the regions regions[0..nregions-1] on the rank
 * indices ranks[0..nranks-1] (both as sp_reader_filter() and
 * sp_reader_rank_index() give them; NULL with a count of -1 selects all).
 * flags: 0, or SP_READER_TREE_BY_THREAD and/or SP_READER_TREE_DURATIONS
 * (or SP_READER_TREE_TOTALS).
 * out: receives the tree (NULL on failure); free it with
 * sp_reader_tree_free(). The tree does not refer to r after the build, but
 * node.region is an index of r.
 * Returns 0, SP_READER_EINVAL, SP_READER_ENOMEM or any error of
 * sp_reader_load() (message in sp_reader_errmsg(r)).
 */
SP_READER_EXPORT int sp_reader_tree_build(sp_reader_t *r, const int *regions, int nregions,
                                          const int *ranks, int nranks, unsigned flags,
                                          sp_reader_tree_t **out);

/** 1 when the file numbers its calls (the reference tool's columnar files
 *  with call_ids and parent_ids, see sp_reader_intervals_t): the call tree
 *  then follows the ids, not the stamps. 0 otherwise or for NULL. */
SP_READER_EXPORT int sp_reader_has_call_ids(const sp_reader_t *r);

/**
 * Each call's parent by the file's call ids, linked as
 * sp_reader_tree_build() links them, for callers that need a per-call
 * record (the HTML report's call path of every interval).
 * iv[0..n-1]: pairs of rank index k loaded with sp_reader_load(), of the
 * distinct regions regions[0..n-1] (the selected ones). Their calls are
 * numbered in order: pair 0's calls 0..iv[0].n-1, then pair 1's, and so on.
 * parent: receives, for every call c in that numbering, the number of its
 * nearest ancestor among these calls (the call with its parent id, or
 * through unselected regions, that one's, and so on), or -1 for a root
 * (no parent id, an id no call has, a cycle). The rank's other regions
 * are loaded here for the links through them.
 * Returns 0, SP_READER_EINVAL (bad argument, or the file has no call ids:
 * sp_reader_has_call_ids()), SP_READER_ENOMEM.
 * Cost: about 16 bytes per call of the rank with dense ids (see "Call
 * tree"), about 70 with others, besides the ids of the other regions
 * (16 bytes per call). Not thread-safe against other users of r.
 */
SP_READER_EXPORT int sp_reader_call_parents(sp_reader_t *r, int k, const sp_reader_intervals_t *iv,
                                            const int *regions, int n, int64_t *parent);

/** Frees the tree; NULL is ignored. */
SP_READER_EXPORT void sp_reader_tree_free(sp_reader_tree_t *t);

/** Number of nodes (call paths); 0 when nothing was selected. */
SP_READER_EXPORT int sp_reader_tree_num_nodes(const sp_reader_tree_t *t);

/** Node i (0 <= i < num_nodes), owned by t; NULL if out of range. */
SP_READER_EXPORT const sp_reader_tree_node_t *sp_reader_tree_node(const sp_reader_tree_t *t, int i);

/** Number of selected ranks, the j of sp_reader_tree_rank(). */
SP_READER_EXPORT int sp_reader_tree_num_ranks(const sp_reader_tree_t *t);

/** Fills *out with node i on the j-th selected rank (ascending rank id).
 *  Returns 0 or SP_READER_EINVAL. */
SP_READER_EXPORT int sp_reader_tree_rank(const sp_reader_tree_t *t, int i, int j,
                                         sp_reader_tree_rank_t *out);

/** Duration statistics of one (region, rank) pair, in ns. */
typedef struct sp_reader_durations {
  int64_t n;           /**< calls with stamps */
  double total;        /**< sum of durations */
  double mean;         /**< total / n (0 when n is 0) */
  double m2;           /**< sum of squared deviations from mean: variance = m2 / n */
  int64_t min, max;    /**< shortest and longest duration (0 when n is 0) */
  int64_t first_start; /**< start of the earliest call (INT64_MAX when n is 0) */
  int64_t first;       /**< its duration */
  int64_t last_end;    /**< end of the latest-ending call (INT64_MIN when n is 0) */
  int64_t last;        /**< its duration */
} sp_reader_durations_t;

/** Fills *out for region g (a reader region index) on the j-th selected
 *  rank; needs a tree built with SP_READER_TREE_DURATIONS. Regions that were
 *  not selected or not on the rank give n = 0. Returns 0 or SP_READER_EINVAL.
 *  Cost: the tree keeps 80 bytes per region of the file and selected rank. */
SP_READER_EXPORT int sp_reader_tree_durations(const sp_reader_tree_t *t, int g, int j,
                                              sp_reader_durations_t *out);

/** Sum of the inclusive time of all roots, ns (the run's time summed over
 *  ranks and threads; with SP_READER_TREE_BY_THREAD the same). */
SP_READER_EXPORT int64_t sp_reader_tree_roots_inclusive(const sp_reader_tree_t *t);

/* ===================================================================== */
/*  LIKWID hardware counters (optional)                                  */
/* ===================================================================== */

/* Written by the core only when LIKWID measured (likwid-perfctr -m):
 *
 *   rank<N>/likwid                      attribute "group" (string)
 *   rank<N>/likwid/regions/<link name>  attributes "name", "tag"
 *     cpus int32[T]  counts int64[T]  times float64[T] (seconds)
 *     events float64[T][E]  event_names string[E]
 *
 * T = threads (CPUs) that ran the region, E = events of the group. The
 * link name is the one of rank<N>/regions/<link name>. */

/** Number of ranks with LIKWID results; 0 when the file has none. */
SP_READER_EXPORT int sp_reader_likwid_num_ranks(const sp_reader_t *r);

/** LIKWID group measured on rank index k (e.g. "FLOPS_DP"; "" if the
 *  attribute is missing), or NULL when rank k has no LIKWID results or k is
 *  out of range. Owned by r. */
SP_READER_EXPORT const char *sp_reader_likwid_group(const sp_reader_t *r, int k);

/** LIKWID results of one (region, rank) pair; arrays owned by the caller
 *  after sp_reader_likwid_load(), released by sp_reader_likwid_free(). */
typedef struct sp_reader_likwid {
  int present;        /**< 1 if rank k has LIKWID results for region g */
  int nthreads;       /**< T: threads (CPUs) that ran the region */
  int nevents;        /**< E: events of the group */
  char **event_names; /**< E names (UTF-8) */
  int32_t *cpus;      /**< T hardware thread ids */
  int64_t *counts;    /**< T calls counted by LIKWID */
  double *times;      /**< T seconds measured by LIKWID */
  double *events;     /**< T x E counter values: events[t * nevents + e] */
} sp_reader_likwid_t;

/**
 * Reads the LIKWID results of region g on rank index k into *out. When the
 * pair has none (LIKWID did not measure, or not this region) returns 0 with
 * out->present = 0 and no arrays: absence is not an error.
 * Returns 0, SP_READER_EINVAL, SP_READER_ELAYOUT (wrong shapes or types),
 * SP_READER_EHDF5 or SP_READER_ENOMEM; on failure *out holds no memory.
 */
SP_READER_EXPORT int sp_reader_likwid_load(sp_reader_t *r, int g, int k, sp_reader_likwid_t *out);

/** Frees the arrays of lw and zeroes it; NULL is ignored. */
SP_READER_EXPORT void sp_reader_likwid_free(sp_reader_likwid_t *lw);

/* ===================================================================== */
/*  MPI calls' bytes and peers (SCOPE_PROFILER_PROFILE_MPI)              */
/* ===================================================================== */

/** Bytes and peer of each call of an MPI call region on one rank, in the
 *  order of its intervals; arrays owned by the caller after
 *  sp_reader_mpi_load(), released by sp_reader_mpi_free(). */
typedef struct sp_reader_mpi {
  int present;    /**< 1 if the pair has the bytes and peer datasets */
  int64_t n;      /**< calls (the pair's intervals) */
  int64_t *bytes; /**< n payload sizes, bytes (-1: not known) */
  int32_t *peer;  /**< n partner ranks (-1: none, several, or a collective) */
  /** n tags (-1: none or not known) and n communicator ids of rank<N>/mpi
   *  (-1: not known); both NULL in files recorded before tags (issue 50). */
  int32_t *tag;
  int32_t *comm;
} sp_reader_mpi_t;

/**
 * Reads rank<N>/regions/<name>/bytes and /peer of region g on rank index k
 * into *out (columnar: the pair's slice of events/mpi_bytes, mpi_peers,
 * mpi_tags, mpi_comms). A pair without them (not an MPI call, an older
 * file, an aggregate file) gives 0 with out->present = 0: absence is not
 * an error.
 * Returns 0, SP_READER_EINVAL, SP_READER_ELAYOUT (a length other than the
 * intervals', a non-integer type), SP_READER_EHDF5 or SP_READER_ENOMEM; on
 * failure *out holds no memory.
 */
SP_READER_EXPORT int sp_reader_mpi_load(sp_reader_t *r, int g, int k, sp_reader_mpi_t *out);

/** As sp_reader_mpi_load() without the bytes (out->bytes NULL): the peer,
 *  tag and comm that pair the calls (the wait states), a fifth less to
 *  read. */
SP_READER_EXPORT int sp_reader_mpi_load_ids(sp_reader_t *r, int g, int k, sp_reader_mpi_t *out);

/** Frees the arrays of m and zeroes it; NULL is ignored. */
SP_READER_EXPORT void sp_reader_mpi_free(sp_reader_mpi_t *m);

/** Bytes and peer of calls [first, first + count) of region g on rank
 *  index k into the caller's arrays (count elements each), as
 *  sp_reader_mpi_load() reads them whole: for reading a long pair in
 *  chunks. Returns how many were read, 0 when the pair has no bytes and
 *  peer datasets (or first is past its end), or SP_READER_EINVAL,
 *  SP_READER_ELAYOUT, SP_READER_EHDF5. */
SP_READER_EXPORT int64_t sp_reader_mpi_read_range(sp_reader_t *r, int g, int k, int64_t first,
                                                  int64_t count, int64_t *bytes, int32_t *peer);

/** The communicators of one rank (rank<N>/mpi): id c has sizes[c] members,
 *  their world ranks members[offsets[c] .. offsets[c] + sizes[c]) in the
 *  communicator's rank order (size 0: an id the rank is not a member of).
 *  Arrays owned by the caller, released by sp_reader_mpi_comms_free(). */
typedef struct sp_reader_mpi_comms {
  int present;      /**< 1 if the rank has the table */
  int n;            /**< ids */
  int32_t *sizes;   /**< n sizes */
  int64_t *offsets; /**< n offsets into members */
  int32_t *members; /**< the sum of sizes world ranks */
} sp_reader_mpi_comms_t;

/** Reads rank<N>/mpi's comm_sizes and comm_members of rank index k (a
 *  columnar file: the rank's rows of mpi_comms/); a rank
 *  without them gives 0 with out->present = 0. Returns 0, SP_READER_EINVAL,
 *  SP_READER_ELAYOUT (lengths that disagree), SP_READER_EHDF5 or
 *  SP_READER_ENOMEM; on failure *out holds no memory. */
SP_READER_EXPORT int sp_reader_mpi_comms(sp_reader_t *r, int k, sp_reader_mpi_comms_t *out);

/** Frees the arrays of c and zeroes it; NULL is ignored. */
SP_READER_EXPORT void sp_reader_mpi_comms_free(sp_reader_mpi_comms_t *c);

/** The requests one rank's waits and tests completed (rank<N>/mpi/completions,
 *  or the rank's rows of a columnar file's mpi_completions/): per row the
 *  completing call and the posting call (MPI_Irecv, MPI_Isend & co.,
 *  MPI_Start/Startall), each as a region (the reader's region index, -1
 *  when not a region of the file) and its index among that region's
 *  calls on the thread (-1: not recorded). Arrays owned by the caller,
 *  released by sp_reader_mpi_done_free(). */
typedef struct sp_reader_mpi_done {
  int present;          /**< 1 if the rank has the table */
  int64_t n;            /**< rows */
  int32_t *wait_region; /**< the completing call's region */
  int64_t *wait_call;   /**< its index on thread */
  int32_t *thread;      /**< the completing call's thread */
  int32_t *post_region; /**< the posting call's region */
  int64_t *post_call;   /**< its index on post_thread */
  int32_t *post_thread;
  int32_t *peer;  /**< receive: the status' source; send: the destination (rank in comm), -1 */
  int32_t *tag;   /**< receive: the status' tag; send: its tag; -1 */
  int32_t *comm;  /**< the communicator's id (as sp_reader_mpi_comms() numbers them) */
  int32_t *send;  /**< 1: a send, 0: a receive */
  int64_t *bytes; /**< receive: from the status; send: as sent */
  int32_t *i32;   /**< (the int32 columns' storage) */
} sp_reader_mpi_done_t;

/** Reads the completions of rank index k; a rank without them gives 0 with
 *  out->present = 0. Returns 0, SP_READER_EINVAL, SP_READER_ELAYOUT,
 *  SP_READER_EHDF5 or SP_READER_ENOMEM; on failure *out holds no memory. */
SP_READER_EXPORT int sp_reader_mpi_done(sp_reader_t *r, int k, sp_reader_mpi_done_t *out);

/** As sp_reader_mpi_done() without the bytes (out->bytes NULL): what pairs
 *  the messages (the wait states). */
SP_READER_EXPORT int sp_reader_mpi_done_ids(sp_reader_t *r, int k, sp_reader_mpi_done_t *out);

/** Frees the arrays of d and zeroes it; NULL is ignored. */
SP_READER_EXPORT void sp_reader_mpi_done_free(sp_reader_mpi_done_t *d);

/* ===================================================================== */
/*  I/O records (SCOPE_PROFILER_PROFILE_IO, docs/io.md)                  */
/* ===================================================================== */

/* Per rank, one row per file (rank<N>/io/files/, or the rank's rows of a
 * columnar file's io_files/); per call of an I/O call region (io:write,
 * MPI_File_write_at, ...), its bytes and the row of its file. */

/** Buckets of a file's access-size histogram (size_hist). */
#define SP_READER_IO_NBINS 10

/** The int64 columns of a file record, in this order (XX(id, name)). */
/* clang-format off */
#define SP_READER_IO_COLUMNS(XX) \
  XX(OPENS, "opens") \
  XX(READS, "reads") \
  XX(WRITES, "writes") \
  XX(SEEKS, "seeks") \
  XX(SYNCS, "syncs") \
  XX(META_OPS, "meta_ops") \
  XX(BYTES_READ, "bytes_read") \
  XX(BYTES_WRITTEN, "bytes_written") \
  XX(MAX_OFFSET, "max_offset") \
  XX(READ_NS, "read_ns") \
  XX(WRITE_NS, "write_ns") \
  XX(META_NS, "meta_ns") \
  XX(FIRST_NS, "first_ns") \
  XX(LAST_NS, "last_ns") \
  XX(SLOWEST_NS, "slowest_ns") \
  XX(SLOWEST_START_NS, "slowest_start_ns") \
  XX(MMAPS, "mmaps")
/* clang-format on */

/** Index of each int64 column in sp_reader_io_files_t.v: SP_READER_IO_OPENS, ... */
enum {
#define SP__IOXX(id, name) SP_READER_IO_##id,
  SP_READER_IO_COLUMNS(SP__IOXX)
#undef SP__IOXX
      SP_READER_IO_NCOLS
};

/** The file records of one rank; arrays owned by the caller after
 *  sp_reader_io_files_load(), released by sp_reader_io_files_free(). */
typedef struct sp_reader_io_files {
  int present;                           /**< 1 if the rank has file records */
  int64_t n;                             /**< F: files of the rank */
  char **names;                          /**< F paths as the program gave them (UTF-8) */
  char **slowest_ops;                    /**< F region names of each file's slowest call */
  int32_t *apis;                         /**< F bit masks: 1 POSIX, 2 stdio, 4 MPI-IO */
  int64_t *v[SP_READER_IO_NCOLS];        /**< F values of each column (SP_READER_IO_*) */
  int64_t *size_hist;                    /**< F x SP_READER_IO_NBINS accesses per size bucket */
  int64_t size_bins[SP_READER_IO_NBINS]; /**< bucket upper bounds (exclusive), bytes */
} sp_reader_io_files_t;

/** Name of int64 column c as stored ("opens", ...), or NULL out of range. */
SP_READER_EXPORT const char *sp_reader_io_column_name(int c);

/**
 * Reads the file records of rank index k into *out (in every layout: the
 * per-rank trace, the profile-mode aggregate file's rank<N>/io, the
 * columnar io_files/ rows of that rank, found by bisection). A rank
 * without records gives 0 with out->present = 0. Memory: that rank's
 * files only (about 200 bytes and the two strings per file).
 * Returns 0, SP_READER_EINVAL, SP_READER_ELAYOUT (a missing column, a
 * length other than the names'), SP_READER_EHDF5 or SP_READER_ENOMEM; on
 * failure *out holds no memory.
 */
SP_READER_EXPORT int sp_reader_io_files_load(sp_reader_t *r, int k, sp_reader_io_files_t *out);

/** Frees the arrays of f and zeroes it; NULL is ignored. */
SP_READER_EXPORT void sp_reader_io_files_free(sp_reader_io_files_t *f);

/** Bytes and file of each call of an I/O call region on one rank, in the
 *  order of its intervals; released by sp_reader_io_calls_free(). */
typedef struct sp_reader_io_calls {
  int present;       /**< 1 if the pair has them */
  int64_t n;         /**< calls (the pair's intervals) */
  int64_t *bytes;    /**< n bytes moved as the program saw them (0: metadata, -1: error) */
  int32_t *file_ids; /**< n rows of the rank's file records (-1: unknown, not an I/O call) */
} sp_reader_io_calls_t;

/**
 * Reads the bytes and file ids of the calls of region g on rank index k
 * (rank<N>/regions/<name>/{bytes,file_ids}, or, for a region io:* or
 * MPI_File_*, the pair's slice of a columnar file's events/mpi_bytes and
 * events/mpi_peers, which hold the file ids there). A pair without them (not
 * an I/O call, a profile-mode file, an older file) gives 0 with
 * out->present = 0. Returns 0, SP_READER_EINVAL, SP_READER_ELAYOUT,
 * SP_READER_EHDF5 or SP_READER_ENOMEM; on failure *out holds no memory.
 */
SP_READER_EXPORT int sp_reader_io_calls_load(sp_reader_t *r, int g, int k,
                                             sp_reader_io_calls_t *out);

/** Frees the arrays of c and zeroes it; NULL is ignored. */
SP_READER_EXPORT void sp_reader_io_calls_free(sp_reader_io_calls_t *c);

/* ===================================================================== */
/*  Values per call (sp_call_set_int, sp_call_set_real, sp_call_set)     */
/* ===================================================================== */

/* Written in trace mode (docs/values.md):
 *
 *   rank<N>/regions/<link>/call_values/<key link>   one value per call, in the
 *     order of start_times: int64 (INT64_MIN: the call did not set the key),
 *     float64 (NaN) or UTF-8 strings (""); attribute "key";
 *     call_values@values_lost (int64): values not stored
 *
 * or, in the columnar layout, call_values/<key link> at the root with one
 * value per event. In profile mode, per call path and numeric key:
 * call_path_values/{rows, keys, counts, sums, minimums, maximums}; in a
 * file reduced across ranks reduced_path_values/ with paths in place of
 * rows (rows of reduced_paths). */

/** Kinds of a key's values. */
enum { SP_READER_VALUE_INT = 1, SP_READER_VALUE_REAL = 2, SP_READER_VALUE_STRING = 3 };

/** One key's values on the calls of a pair: the array of its kind holds n
 *  values (the others are NULL), a call without the key INT64_MIN, NaN or
 *  "" (sp_reader_value_set()). */
typedef struct sp_reader_value_key {
  char *key;      /**< the key (UTF-8) */
  int kind;       /**< SP_READER_VALUE_* */
  int64_t *ints;  /**< n values (SP_READER_VALUE_INT) */
  double *reals;  /**< n values (SP_READER_VALUE_REAL) */
  char **strings; /**< n strings, never NULL (SP_READER_VALUE_STRING) */
} sp_reader_value_key_t;

/** The values of one (region, rank) pair; owned by the caller after
 *  sp_reader_values_load(), released by sp_reader_values_free(). */
typedef struct sp_reader_values {
  int present;                 /**< 1 if the pair stores values */
  int64_t n;                   /**< calls: value e belongs to interval e of sp_reader_load() */
  int nkeys;                   /**< keys set by at least one call of the pair */
  sp_reader_value_key_t *keys; /**< nkeys keys, in link name order */
  int64_t lost;                /**< values the recording could not store (the pair's
                                *   values_lost; 0 in the columnar layout, which keeps
                                *   only the file's total) */
} sp_reader_values_t;

/**
 * Reads the values of region g on rank index k into *out. A pair without
 * values (most files; count-only and aggregate files) gives 0 with
 * out->present = 0: absence is not an error.
 * Returns 0, SP_READER_EINVAL, SP_READER_ELAYOUT (a length other than the
 * calls'), SP_READER_EHDF5 or SP_READER_ENOMEM; on failure *out holds no
 * memory. Cost: 8 bytes per call and key (strings: their bytes too); a
 * program going pair by pair needs memory for the largest pair only.
 */
SP_READER_EXPORT int sp_reader_values_load(sp_reader_t *r, int g, int k, sp_reader_values_t *out);

/** Frees the arrays of v and zeroes it; NULL is ignored. */
SP_READER_EXPORT void sp_reader_values_free(sp_reader_values_t *v);

/** 1 when call e of the key holds a value, else 0. */
SP_READER_EXPORT int sp_reader_value_set(const sp_reader_value_key_t *c, int64_t e);

/** Profile mode's values per call path: n rows, each a (call path, key)
 *  with the calls that set it and the sum, smallest and largest value
 *  (NaN for string keys, which are counted only). In a file reduced
 *  across ranks (SCOPE_PROFILER_REDUCE=1) the rows are per reduced call
 *  path over every rank: counts and sums summed, the smallest minimum and
 *  the largest maximum; rank and thread are -1. */
typedef struct sp_reader_path_values {
  int64_t n;
  int64_t *row;    /**< row of the call path table (call_paths, or reduced_paths) */
  int32_t *region; /**< its region (reader region index; -1: not in the file's regions) */
  int32_t *rank;   /**< its rank id (-1: reduced, every rank) */
  int32_t *thread; /**< its thread (-1: reduced) */
  char **keys;     /**< the key */
  int64_t *counts; /**< calls that set it */
  double *sums, *mins, *maxs;
  int reduced;          /**< 1: rows of reduced_path_values (a reduced file) */
  int64_t npaths;       /**< rows of the call path table */
  int64_t *path_parent; /**< npaths: each path's parent row, -1 for an outermost call */
  int32_t *path_region; /**< npaths: each path's region (reader index, -1: none) */
} sp_reader_path_values_t;

/** Loads the values per call path of a profile-mode file into *out
 *  (call_path_values, or a reduced file's reduced_path_values): returns 1
 *  when it has some, 0 otherwise (*out zeroed), SP_READER_ELAYOUT (columns
 *  of unequal lengths, a row naming no call path, a call path table out of
 *  range), SP_READER_EHDF5 or SP_READER_EINVAL. Free with
 *  sp_reader_path_values_free(). */
SP_READER_EXPORT int sp_reader_path_values_load(sp_reader_t *r, sp_reader_path_values_t *out);
SP_READER_EXPORT void sp_reader_path_values_free(sp_reader_path_values_t *pv);

/* ===================================================================== */
/*  Samples of RSS and CPU time (optional)                               */
/* ===================================================================== */

/* Written by the core when SCOPE_PROFILER_SAMPLE_MS was set:
 *
 *   rank<N>/samples      attribute period_ns (int64)
 *     times int64[S] (ns, the stamps' clock)  rss_bytes int64[S]  cpu_ns int64[S]
 *   rank<N>              attribute peak_rss_bytes (int64)
 *
 * or, in a columnar file, every rank's in samples/{times,rss_bytes,cpu_ns},
 * rank N's at [samples/offsets[N], + samples/counts[N]), with
 * samples/period_ns[N] (0: not sampled) and rank_info/peak_rss_bytes[N].
 * cpu_ns is the process's CPU time (all threads) since it started. */

/** The samples of one rank; arrays owned by the caller after
 *  sp_reader_samples_load(), released by sp_reader_samples_free(). */
typedef struct sp_reader_samples {
  int present;            /**< 1 if the rank has samples */
  int64_t n;              /**< S: samples */
  int64_t period_ns;      /**< the sampling period (0 if not stored) */
  int64_t peak_rss_bytes; /**< rank<N>@peak_rss_bytes, -1 if absent */
  int64_t *times;         /**< S times, ns, on rank 0's clock when aligning */
  int64_t *rss_bytes;     /**< S resident set sizes, bytes */
  int64_t *cpu_ns;        /**< S CPU times of the process, ns */
} sp_reader_samples_t;

/**
 * Reads the samples of rank index k into *out. A rank without samples
 * gives 0 with out->present = 0 and no arrays: absence is not an error.
 * Returns 0, SP_READER_EINVAL, SP_READER_ELAYOUT (wrong shapes or types),
 * SP_READER_EHDF5 or SP_READER_ENOMEM; on failure *out holds no memory.
 * Cost: 24 bytes per sample.
 */
SP_READER_EXPORT int sp_reader_samples_load(sp_reader_t *r, int k, sp_reader_samples_t *out);

/** Frees the arrays of s and zeroes it; NULL is ignored. */
SP_READER_EXPORT void sp_reader_samples_free(sp_reader_samples_t *s);

/* ===================================================================== */
/*  Run metadata                                                         */
/* ===================================================================== */

/**
 * Writes the scalar attribute name of the file's /metadata group into out
 * (cap bytes, always NUL-terminated, cut when longer) as text: integers in
 * decimal, floats in the shortest %.Ng (N <= 17) that reads back exactly,
 * strings as stored. The core writes mpi_size, omp_num_threads,
 * total_cores, hostname, timestamp and more, the program its own
 * (sp_metadata_set); the reference tool its own keys.
 * Returns 0, or SP_READER_EINVAL when the file has no such readable
 * attribute (message in sp_reader_errmsg()). Cost: a few metadata reads.
 */
SP_READER_EXPORT int sp_reader_metadata(sp_reader_t *r, const char *name, char *out, size_t cap);

/** Kinds of a /metadata attribute (sp_reader_metadata_entry()). */
enum {
  SP_READER_META_OTHER = 0,  /**< not a scalar number or string (array, compound) */
  SP_READER_META_INT = 1,    /**< integer: value in decimal */
  SP_READER_META_FLOAT = 2,  /**< floating point: shortest %.Ng (N <= 17) that reads back */
  SP_READER_META_STRING = 3  /**< string: value as stored */
};

/** Number of attributes of the file's /metadata group (0 when it has none).
 *  With sp_reader_metadata_entry(), lists them all (the Python reader's
 *  reader.metadata). Cost: a few metadata reads. */
SP_READER_EXPORT int sp_reader_metadata_count(sp_reader_t *r);

/**
 * The i-th attribute of /metadata (0 <= i < sp_reader_metadata_count(), in
 * name order): its name into name (namecap bytes), its value as text into
 * value (valcap bytes, as sp_reader_metadata(), cut when longer) and its
 * SP_READER_META_* kind into *kind. An attribute that is not a scalar
 * number or string gives its name, value "" and SP_READER_META_OTHER.
 * Returns 0, or SP_READER_EINVAL (bad argument, no such attribute, or a
 * name longer than namecap - 1; message in sp_reader_errmsg()).
 */
SP_READER_EXPORT int sp_reader_metadata_entry(sp_reader_t *r, int i, char *name, size_t namecap,
                                              char *value, size_t valcap, int *kind);

/**
 * Where in the source region g is: its groups' attributes source_file and
 * source_lineno (written by sp_region_at and the bindings' SP_SCOPE,
 * SP_FUNCTION, Fortran sp_region(file=, line=); the reference tool writes
 * the same), from the first rank that has the region. Writes the file
 * into file (cap bytes, cut when longer) and the line into *line (0 when
 * the file lacks it). Returns 1 when found, 0 when the region has none
 * (also in the columnar layouts), SP_READER_EINVAL for a bad argument or
 * SP_READER_ENOMEM. Cost: a few metadata reads, once per region (kept).
 */
SP_READER_EXPORT int sp_reader_region_source(sp_reader_t *r, int g, char *file, size_t cap,
                                             int64_t *line);

/* ===================================================================== */
/*  Helpers                                                              */
/* ===================================================================== */

/**
 * Decodes an HDF5 link name written by the core ("%2F" -> '/', "%25" ->
 * '%', "%2E" -> '.', any %XX -> that byte) into out (cap bytes, always
 * NUL-terminated when cap > 0). Malformed escapes are kept as they are.
 * Returns the decoded length (which may exceed cap - 1: then truncated).
 */
SP_READER_EXPORT size_t sp_reader_name_decode(const char *link, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* SCOPE_PROFILER_READER_H */
