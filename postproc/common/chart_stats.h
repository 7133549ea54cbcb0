/* chart_stats.h - per (region, rank) duration figures behind the bar charts
 * and the heat map, read once per selection. */
#ifndef SP_CHART_STATS_H
#define SP_CHART_STATS_H

#include "pproc.h"

typedef struct sp_cell_stats {
  int64_t n;    /* intervals (calls with stamps) */
  double total; /* sum of durations, ns */
  double min;   /* shortest call, ns (0 when n == 0) */
  double max;   /* longest call, ns */
  double busiest; /* the rank's time in the region on its busiest thread, outermost calls
                   * only (recursion not counted twice), ns; aggregate files: total */
  double outer;   /* the rank's time in the region summed over its threads, outermost calls
                   * only (the rule of --summary and the report's Load balance), ns;
                   * aggregate files: total */
  /* The reference tool's aggregate files (no stamps): the SP_READER_AGG_*
   * figures (TOTAL, MIN, MAX) the file does not store for this pair, which
   * are unknown, never 0; 0 for files with stamps. */
  unsigned unknown;
} sp_cell_stats_t;

typedef struct sp_chart_stats {
  int nregions, nranks;  /* as in the selection */
  sp_cell_stats_t *cell; /* nregions x nranks, cell[g * nranks + k] for
                          * sel->regions[g] on sel->ranks[k] */
  int aggregate;         /* some cell holds a pair's stored figures (no stamps) */
  /* Figures of some ranks standing for more (representative ranks,
   * rank_pick.h): per region row the total over all of them (ns), and
   * how many; NULL and 0 otherwise. */
  double *all_total;
  int all_nranks;
} sp_chart_stats_t;

/* Reads every selected pair once; calls shorter than min_duration seconds
 * are left out. A pair without stamps in an aggregate file takes its stored
 * count, total, min and max (sp_reader_aggregate); with min_duration, only
 * where the stored min and max tell which calls pass (all or none), else the
 * pair is left out and said so. Returns an sp_exit_t code after printing why. */
int sp_chart_stats_build(const sp_selection_t *sel, double min_duration, sp_chart_stats_t *st);
void sp_chart_stats_free(sp_chart_stats_t *st);

/* Metric SP_DUR_* of region row g over all selected ranks, in seconds
 * (the reference tool's rule: mean, min, max and total over the calls of
 * the selected ranks); NaN when the region has no timed call, or when a
 * rank with calls does not store the figure (aggregate files). */
double sp_chart_stats_metric(const sp_chart_stats_t *st, int g, int metric);

/* The durations chart's total of region row g: per selected rank the time
 * on its busiest thread (outermost calls), mean over the selected ranks (a
 * rank without the region counts 0), seconds: never more than the ranks'
 * mean wall time, however many threads run the region. NaN as above. */
double sp_chart_stats_rank_total(const sp_chart_stats_t *st, int g);

/* The SP_READER_AGG_* bit a metric SP_DUR_* needs (mean: the total). */
unsigned sp_chart_stats_need(int metric);

/* 0 when some rank with calls of region row g does not store the figure
 * metric SP_DUR_* needs (aggregate files), else 1. */
int sp_chart_stats_stored(const sp_chart_stats_t *st, int g, int metric);

/* 1 when some selected pair of sel is in an aggregate file (no stamps). */
int sp_selection_no_stamps(const sp_selection_t *sel);

/* Regions common to all nfiles selections, by name, in the first file's
 * order: *ncommon of them; (*rows)[f * ncommon + j] is the row (index into
 * sels[f].regions) of common region j in file f. Returns 0 or SP_EXIT_IO. */
int sp_common_regions(const sp_selection_t *sels, int nfiles, int **rows, int *ncommon);

/* self_time.c: the self (exclusive) time, ns summed over the selected ranks
 * and threads, of the n regions sel->regions[rows[j]] into self[j], from the
 * call tree (0 for a region without a node: e.g. no stamps). Returns 0 or an
 * sp_exit_t code after printing why. */
int sp_self_times(const sp_selection_t *sel, const int *rows, int n, double *self);

/* outer_calls.c: outer[i] = 1 when call i of iv is outermost on its thread
 * (no call of iv on the same thread encloses it), else 0: the calls a
 * region's total counts, so that recursion is not counted twice. n bytes
 * in outer; sorts a copy (24 bytes a call) unless the calls are on one
 * thread one after another. Returns 0 or SP_EXIT_IO. */
int sp_outer_calls(const sp_reader_intervals_t *iv, unsigned char *outer);

/* outer_calls.c: 1 when every call of region g on rank index k (n
 * intervals) is outermost, as sp_outer_calls would find, read in chunks
 * (bounded memory); 0 when some may not be (or the read failed, or more
 * than 1024 threads: the caller loads the pair and asks sp_outer_calls),
 * SP_EXIT_IO without memory. */
int sp_outer_all_read(sp_reader_t *r, int g, int k, int64_t n);

/* outer_calls.c: the outermost calls of region g on rank index k (n
 * intervals; tids: the pair has thread ids) as bits (call i outermost:
 * bit i % 8 of (*out)[i / 8]; n / 8 + 1 bytes, the caller frees), the
 * same as sp_outer_calls, read in chunks without sorting, when each
 * thread's calls are stored in sp_outer_calls' order (start, then the
 * longest first: the core's, a thread's calls as they start): a call is
 * enclosed when the latest end of the calls before it on its thread passes
 * its start and reaches its end; or else, read backwards, when they are
 * stored with strictly increasing ends (as they end): then only a call
 * stored after it can enclose it, and one does exactly when it starts no
 * later. Returns 1 with *out, 0 when the pair is in neither order (or more
 * than 1024 threads, or a read failed: the caller loads the pair and asks
 * sp_outer_calls), SP_EXIT_IO without memory. Memory: n / 8 bytes and
 * fixed chunks (recursion streamed, issue 47). */
int sp_outer_bits_read(sp_reader_t *r, int g, int k, int64_t n, int tids, unsigned char **out);

/* What every chart of a run shares: the files, their labels, their figures. */
typedef struct sp_charts {
  const sp_selection_t *sels; /* one per file */
  const char *const *labels;  /* one per file: the file column of the data */
  int nfiles;
  sp_chart_stats_t *stats; /* one per file */
  int *common;             /* rows of the regions common to all files (sp_common_regions) */
  int ncommon;
  unsigned char *rgb;        /* colour of each name of o->colour_names (3 bytes each) */
  unsigned char *common_rgb; /* colour of each common region */
  const sp_options_t *o;
} sp_charts_t;

#endif
