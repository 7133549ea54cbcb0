/* html.h - the interactive report (--backend html): one self-contained report.html. */
#ifndef SP_HTML_H
#define SP_HTML_H

#include <stdio.h>

#include "chart_stats.h"
#include "pproc.h"
#include "rank_pick.h"

/* Budgets that keep report.html small whatever the trace (see postproc/README.md). */
#define SP_HTML_EXACT_MAX 1000000 /* default of --html-exact: intervals embedded exactly */
#define SP_HTML_OCC_BYTES 6000000 /* occupancy bytes over all binned lanes and levels */
#define SP_HTML_OCC_COARSE 256    /* bins of the coarsest occupancy level */
#define SP_HTML_OCC_FINE 16384    /* bins of the finest level, at most */
#define SP_HTML_TILES 256         /* time tiles of binned lanes' exact calls (a multiple of 64) */
#define SP_HTML_TILE_SHARE 8      /* tiles hold up to --html-exact / this many intervals */

/* What the data part of a report holds, for messages and the benchmark. */
typedef struct sp_html_counts {
  int64_t intervals; /* intervals read */
  int64_t exact;     /* of those, embedded exactly */
  int lanes;         /* (region, rank, thread) lanes */
  int binned_lanes;  /* lanes embedded as occupancy only */
  int fine_bins;     /* bins of the finest occupancy level (0: no binned lane) */
  int64_t tiled;     /* intervals of binned lanes embedded exactly in time tiles */
  int tiles;         /* (lane, tile) pairs embedded, with intervals */
} sp_html_counts_t;

/* html_dist.c: the representative ranks of a file of many (below). */
typedef struct sp_html_dist sp_html_dist_t;

/* One call of a lane: start and end (ns), its call path (tree node) and
 * its position in its pair (for its values per call). */
typedef struct sp_html_span {
  int64_t s, e;
  int32_t node;
  int64_t idx;
} sp_html_span_t;

/* html_values.c: the values per call of an exact lane's m spans (sorted)
 * as ,"vals":{"key":[value or null per span],...}; nothing when none of
 * them set one. */
void sp_html_lane_values(FILE *f, const sp_reader_values_t *v, const sp_html_span_t *sp, int64_t m);

/* html_paths.c: the distinct nodes of the m spans, ascending, into
 * paths[0..*np-1] (paths holds m + 1). */
void sp_html_lane_paths(const sp_html_span_t *sp, int64_t m, int32_t *paths, int *np);

/* Position of node in paths[0..np-1] (ascending), 0 if absent. */
int sp_html_path_index(const int32_t *paths, int np, int32_t node);

/* html_tiles.c: exact intervals of binned lanes per time tile. Pass 2
 * counts the calls of each binned lane that overlap each tile; the plan
 * takes whole tiles, then (lane, tile) pairs, fewest calls first, while
 * they fit the budget; pass 3 writes them. */
typedef struct sp_html_tiles sp_html_tiles_t;

/* t0: first start (ns), span: ns, budget: intervals. NULL when out of memory. */
sp_html_tiles_t *sp_html_tiles_new(int64_t t0, double span, int64_t budget);
void sp_html_tiles_free(sp_html_tiles_t *t);

/* Records binned output lane number lane (pair li, thread tid; multi: it
 * has several call paths) and the tile counts of its m sorted spans.
 * Returns 0 or SP_EXIT_IO. */
int sp_html_tiles_count(sp_html_tiles_t *t, int lane, int li, int tid, int multi,
                        const sp_html_span_t *sp, int64_t m);

/* The same from the lane's tile counts, each call added by
 * sp_html_tiles_span (a lane streamed call by call, html_stream.c). */
void sp_html_tiles_span(const sp_html_tiles_t *t, uint16_t *cnt, int64_t s, int64_t e);
int sp_html_tiles_add(sp_html_tiles_t *t, int lane, int li, int tid, int multi,
                      const uint16_t *cnt);

/* Pass 3 of a streamed lane: the record of pair li, thread tid when it
 * has chosen tiles (else -1); whether call [s, e] overlaps one of them;
 * writing its tiles from the m sorted spans that do (at least) and the
 * lane's np distinct nodes (ascending), as sp_html_tiles_lane. */
int sp_html_tiles_find(const sp_html_tiles_t *t, int li, int tid);
int sp_html_tiles_hit(const sp_html_tiles_t *t, int i, int64_t s, int64_t e);
void sp_html_tiles_write(sp_html_tiles_t *t, FILE *f, int i, const sp_html_span_t *sp, int64_t m,
                         const int32_t *paths, int np, sp_html_counts_t *c);

/* Writes the tiles without calls of the lane counted last, as
 * SP_HTML_TILES / 4 hex digits (bit k of the number: tile k). */
void sp_html_tiles_empty(const sp_html_tiles_t *t, FILE *f);

/* Chooses the tiles; returns 1 when any pair has a chosen tile. */
int sp_html_tiles_plan(sp_html_tiles_t *t);

/* 1 when pair li has a lane with chosen tiles and several call paths
 * (multi of sp_html_tiles_count: its tiles need each call's node). */
int sp_html_tiles_multi(const sp_html_tiles_t *t, int li);

/* 1 when pair li has a lane with chosen tiles (after the plan). */
int sp_html_tiles_wanted(const sp_html_tiles_t *t, int li);

/* Writes the tiles entry of pair li, thread tid (nothing when it has no
 * chosen tile) from its m sorted spans; adds to c->tiled and c->tiles. */
void sp_html_tiles_lane(sp_html_tiles_t *t, FILE *f, int li, int tid, const sp_html_span_t *sp,
                        int64_t m, sp_html_counts_t *c);

/* html_data.c: writes the report's data as one JSON object to f (text
 * safe inside <script>: '<', '>' and '&' are escaped) for the first of
 * nfiles selections (the others feed report_runs.js), embedding at most
 * o->html_exact intervals exactly, colours from o->cmap; with d active the
 * lanes and per-rank sections of d's view, the regions' figures and "dist"
 * over all ranks (html_dist.c). Returns an sp_exit_t
 * code after printing why on failure; fills *c. */
int sp_html_data_write(FILE *f, const sp_selection_t *sels, int nfiles, const char *const *labels,
                       const sp_options_t *o, const sp_html_dist_t *d, sp_html_counts_t *c);

/* Writes s as a JSON string that is also safe inside <script> (html_data.c). */
void sp_html_json_str(FILE *f, const char *s);

/* Writes the n bytes of b in base64, padded (html_data.c). */
void sp_html_base64(FILE *f, const unsigned char *b, size_t n);

/* html_files.c: with nfiles >= 2, writes ',"files":[...]': per file its
 * label (labels[k], or the file name when labels is NULL), its x axes
 * (selected ranks, nodes, threads, cores), /metadata work_per_rank, and per
 * region the stamped calls, their summed duration (Speedup) and
 * --compare's rank_mean (Change, Weak scaling; docs/report-data.md).
 * Nothing for one file. Returns an sp_exit_t code. */
int sp_html_files_write(FILE *f, const sp_selection_t *sels, int nfiles, const char *const *labels);

/* html_run.c: ,"run":{...}: the file's ranks, hosts and the library's own
 * /metadata keys, and the selection (files, --ranks, --include, --exclude,
 * --html-exact) for the Run metadata section. Returns an sp_exit_t code. */
int sp_html_run_write(FILE *f, const sp_selection_t *sels, int nfiles, const char *const *labels,
                      const sp_options_t *o);

/* html_samples.c: ,"samples":[...] when a selected rank has samples of
 * SCOPE_PROFILER_SAMPLE_MS, times relative to t0 (ns). Returns 0. */
int sp_html_samples_write(FILE *f, const sp_selection_t *sel, int64_t t0);

/* html_waits.c: ,"waits":{...} (docs/report-data.md) when the file's MPI
 * calls have tags and communicators (the wait states, docs/wait-states.md);
 * stamps relative to t0 (ns). Returns an sp_exit_t code after saying why. */
int sp_html_waits_write(FILE *f, const sp_selection_t *sel, int64_t t0);

/* html_io.c: ,"io":{...} when a selected rank has I/O records
 * (SCOPE_PROFILER_PROFILE_IO): files, ranks and the regions' I/O through
 * the report's tree t (gpos: reader region index to position). Returns an
 * sp_exit_t code. */
int sp_html_io_write(FILE *f, const sp_selection_t *sel, const sp_reader_tree_t *t,
                     const int *gpos);

/* html_tree.c: builds the call tree of the selection (sp_reader_tree_build,
 * flags 0) into *t. Returns an sp_exit_t code after printing why. */
int sp_html_tree_build(const sp_selection_t *sel, sp_reader_tree_t **t);

/* html_tree.c: writes ',"tree":[...]', the nodes of t, node regions as
 * positions in sel->regions (gpos maps reader region index to position). */
void sp_html_tree_write(FILE *f, const sp_reader_tree_t *t, const int *gpos);

/* html_paths.c: per-interval call paths (nodes of the report's tree). */
typedef struct sp_html_paths sp_html_paths_t;

/* A lookup of tree t's nodes by (parent, region) and r's name order.
 * Returns 0 or SP_EXIT_IO (out of memory; *out = NULL). */
int sp_html_paths_new(sp_html_paths_t **out, const sp_reader_tree_t *t, sp_reader_t *r);
void sp_html_paths_free(sp_html_paths_t *p);

/* For the npairs loaded pairs iv[q] of rank index k (region regions[q], a
 * reader index; every selected region of the rank), fills node[q][i]
 * with the tree node of interval i of pair q (-1 if the tree has none).
 * Returns 0 or SP_EXIT_IO (out of memory). */
int sp_html_paths_rank(const sp_html_paths_t *p, int k, const sp_reader_intervals_t *iv,
                       const int *regions, int npairs, int32_t **node);

/* The tree node of region g (a reader index) under node parent (-1: a
 * root), -1 when the tree has none: the step of the sweep above, for a
 * caller that sweeps the rank's calls itself (html_stream.c). */
int sp_html_paths_node(const sp_html_paths_t *p, int parent, int g);

/* Region g's position in name order: the sweep's tie-break of calls with
 * equal stamps. */
int sp_html_paths_key(const sp_html_paths_t *p, int g);

/* 1 when the file's call ids define the tree (the sweep does not apply). */
int sp_html_paths_ids(const sp_html_paths_t *p);

/* html_balance.c: per region and selected rank the rank's time
 * (outermost calls summed over threads, as --summary) and per region the
 * calls in the first and last third of the run, written as "balance" for
 * the Load balance, Rank comparison and Hotspots sections. */
typedef struct sp_html_balance sp_html_balance_t;

/* t0: first start (ns), span: ns. NULL when out of memory. */
sp_html_balance_t *sp_html_balance_new(const sp_selection_t *sel, int64_t t0, double span);
void sp_html_balance_free(sp_html_balance_t *b);

/* Adds one loaded pair: region position pos in sel->regions, reader rank
 * index rank. Returns 0 or SP_EXIT_IO (out of memory). */
int sp_html_balance_pair(sp_html_balance_t *b, int pos, int rank, const sp_reader_intervals_t *iv);

/* The same for n calls of such a pair, in any order and any number of
 * pieces (html_stream.c): outer[i] 1 when call i is outermost on its
 * thread (sp_outer_calls' rule); tids NULL: thread 0. */
int sp_html_balance_calls(sp_html_balance_t *b, int pos, int rank, const int64_t *s,
                          const int64_t *e, const int32_t *tids, const unsigned char *outer,
                          int64_t n);

/* An aggregate file: the stored totals per (region, rank), no thirds. */
void sp_html_balance_agg(sp_html_balance_t *b);

/* Writes ',"balance":{...}' (docs/report-data.md). */
void sp_html_balance_write(FILE *f, const sp_html_balance_t *b);

/* html_dist.c: more selected ranks than fit (SP_RANKS_FIT) and no --ranks:
 * the sections that show ranks one by one show the representative ranks
 * (rank_pick.h, the view), and "dist" the distribution over all. */
struct sp_html_dist {
  int active;                /* 0: every rank is shown, nothing else is set */
  const sp_selection_t *all; /* the file's selection */
  sp_selection_t view;       /* on the representative ranks */
  sp_chart_stats_t st;       /* per (region, rank) of all: totals, calls, min, max */
  sp_rank_pick_t pick;
  char caption[1024]; /* sp_rank_pick_text */
};

/* Fills *d (inactive when every rank fits or --ranks chose; then nothing
 * is read). Says on stderr which ranks stand for the others. Returns an
 * sp_exit_t code. */
int sp_html_dist_build(const sp_selection_t *sel, const sp_options_t *o, sp_html_dist_t *d);
void sp_html_dist_free(sp_html_dist_t *d);

/* Writes ',"dist":{...}' (docs/report-data.md) when d is active. Returns
 * an sp_exit_t code. */
int sp_html_dist_write(FILE *f, const sp_html_dist_t *d);

/* html_report.c: writes DIR/report.html (DIR = o->outdir, "." when NULL)
 * through a temporary file; with o->show opens it (xdg-open) or prints
 * its path. The timeline shows sels[0]; with nfiles >= 2 the page adds
 * the sections comparing the runs. Returns an sp_exit_t code. */
int sp_html_render(const sp_selection_t *sels, int nfiles, const char *const *labels,
                   const sp_options_t *o, sp_html_counts_t *c);

/* report_assets.c, generated at build time from postproc/report/ by
 * postproc/report/embed.cmake: the viewer's files, NUL-terminated. */
extern const unsigned char sp_report_template[];
extern const unsigned char sp_report_css[];
extern const unsigned char sp_report_js[];

#endif
