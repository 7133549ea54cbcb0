/* html_data.h - the state of the report's data passes (html_data.c), shared
 * with the streamed form of a rank's passes (html_stream.c) and the lane
 * writer below both (html_lanes.c). Internal to postproc/report. */
#ifndef SP_HTML_DATA_H
#define SP_HTML_DATA_H

#include "html.h"

typedef sp_html_span_t sp_span_t;

/* Per selected region: what the duration bars and the table show. */
typedef struct sp_rstat {
  int64_t calls, n;              /* num_calls and intervals, summed over ranks */
  double total, min, max;        /* durations, ns */
  double rk_min, rk_max, rk_sum; /* per-rank totals, ns */
  int rk_n;                      /* ranks that have the region */
} sp_rstat_t;

typedef struct sp_html_ctx {
  FILE *f;
  const sp_selection_t *sel; /* the lanes' ranks: the file's, or representative (dist) */
  const sp_selection_t *all; /* every selected rank: the regions' figures */
  const sp_html_dist_t *dist;
  int64_t t0;         /* first start, ns */
  double span;        /* last end - first start, ns (>= 1) */
  char *exact;        /* per selection lane: 1 = intervals embedded */
  int fine, nlevels;  /* finest bins, number of levels */
  double *occ;        /* fine busy fractions of one lane */
  unsigned char *lvl; /* one level's bytes */
  int *gpos;          /* reader region index -> position in sel->regions */
  sp_rstat_t *rs;     /* per position */
  sp_html_counts_t *c;
  int64_t exact_max;           /* intervals embedded exactly, at most */
  const char *cmap;            /* --cmap, NULL = the default */
  double start_time, end_time; /* --start-time, --end-time, s (0: not given) */
  int first_lane;              /* no comma before the next lane */
  sp_reader_tree_t *tree;      /* the call tree (written as "tree") */
  sp_html_paths_t *paths;      /* per-interval nodes of that tree */
  sp_html_tiles_t *tiles;      /* exact intervals of binned lanes per time tile */
  int32_t *lpaths;             /* one lane's distinct nodes */
  int nostamps;                /* an aggregate file: no lanes, stored figures */
  sp_html_balance_t *bal;      /* per (region, rank) times (html_balance.c) */
} sp_html_ctx_t;

/* html_lanes.c: spans by start, then end (the lanes' order). */
int sp_html_span_cmp(const void *a, const void *b);

/* html_lanes.c: writes one (region, rank, thread) lane (li: selection
 * lane, thread tid) from its m spans (sorted here); vals: the pair's
 * values per call (exact lanes). Returns 0 or SP_EXIT_IO. */
int sp_html_lane_out(sp_html_ctx_t *x, int li, int tid, sp_span_t *sp, int64_t m,
                     const sp_reader_values_t *vals);

/* html_lanes.c: adds the figures of selection lane li's pair (n intervals
 * of num_calls calls, durations summing to sum, shortest mn, longest mx)
 * to its region's statistics. */
void sp_html_stat_sums(sp_html_ctx_t *x, int li, int64_t n, int64_t num_calls, double sum,
                       double mn, double mx);

/* html_lanes.c: adds one busy block [s, e) of a lane (merged calls) to
 * occ (x->fine bins, then x->fine + 1 counters of fully covered bins);
 * returns its length, ns. */
double sp_html_occ_block(const sp_html_ctx_t *x, double *occ, int64_t s, int64_t e);

/* html_lanes.c: the prefix sums that finish occ (after its last block). */
void sp_html_occ_finish(const sp_html_ctx_t *x, double *occ);

/* html_lanes.c: the bytes of every occupancy level of finished occ, level
 * after level (SP_HTML_OCC_COARSE bins, then 4 times as many ...): into
 * lvl, sp_html_levels_size(x) bytes. */
size_t sp_html_levels_size(const sp_html_ctx_t *x);
void sp_html_levels_bytes(const sp_html_ctx_t *x, const double *occ, unsigned char *lvl);

/* html_lanes.c: writes ,"occ":[...] from sp_html_levels_bytes' bytes. */
void sp_html_levels_write(const sp_html_ctx_t *x, const unsigned char *lvl);

/* html_stream.c: passes 2 (tiles_pass 0) and 3 of the rank of selection
 * lanes lis[0..n-1] from the reader's merge of its calls
 * (sp_reader_merge_open), without loading its pairs: the same data as
 * html_data.c's loaded pass. Returns 0 or an sp_exit_t code after saying
 * why. */
int sp_html_rank_stream(sp_html_ctx_t *x, const int *lis, int n, int tiles_pass);

#endif
