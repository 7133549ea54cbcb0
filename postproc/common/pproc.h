/* pproc.h - types shared by the parts of scope-profiler-pproc; never installed. */
#ifndef SP_PPROC_H
#define SP_PPROC_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "scope_profiler_reader.h"

#define SP_PROG "scope-profiler-pproc"

/* to - from in ns as a double, without the signed overflow of subtracting
 * stamps that lie more than INT64_MAX apart (damaged or foreign files). */
static inline double sp_ns_between(int64_t from, int64_t to) {
  return to >= from ? (double)((uint64_t)to - (uint64_t)from)
                    : -(double)((uint64_t)from - (uint64_t)to);
}

/* a + b, saturated at INT64_MIN / INT64_MAX instead of overflowing (sums of
 * durations or call counts from a damaged file); counts each saturation
 * in *clamped. */
static inline int64_t sp_add_sat(int64_t a, int64_t b, int64_t *clamped) {
  int64_t sum;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  ++*clamped;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

/* Exit codes: the documented contract for job scripts. */
typedef enum sp_exit {
  SP_EXIT_OK = 0, /* success */
  SP_EXIT_DATA =
      1, /* bad input data: not HDF5, wrong layout, inconsistent arrays, empty selection */
  SP_EXIT_USAGE = 2, /* bad command line, including ranks the file does not have */
  SP_EXIT_IO = 3 /* missing or unreadable file, unwritable output, plotting failure, no display */
} sp_exit_t;

typedef enum sp_format { SP_FORMAT_PNG, SP_FORMAT_PDF, SP_FORMAT_SVG } sp_format_t;

/* --backend: how -o and --show draw (PLplot charts or report.html). */
typedef enum sp_backend { SP_BACKEND_PLPLOT, SP_BACKEND_HTML } sp_backend_t;

/* A row of cli/exports.h's table of --export formats. */
struct sp_export_row;

/* Keys of --sort-by; numbers sort descending, name and start ascending. */
typedef enum sp_sort {
  SP_SORT_START,
  SP_SORT_NAME,
  SP_SORT_CALLS,
  SP_SORT_TOTAL,
  SP_SORT_MEAN,
  SP_SORT_MIN,
  SP_SORT_MAX,
  SP_SORT_IMBALANCE,
  SP_SORT_SELF
} sp_sort_t;

/* Charts of --plots (bits); each writes <name>_plot.<format> under -o DIR. Which
 * are drawn by default, need statistics or several files: cli/plots.c's table. */
typedef enum sp_plot {
  SP_PLOT_GANTT = 1u << 0,
  SP_PLOT_DURATIONS = 1u << 1,
  SP_PLOT_RANK_HEATMAP = 1u << 2,
  SP_PLOT_FLAME = 1u << 3,
  SP_PLOT_SPEEDUP = 1u << 4,
  SP_PLOT_TIMESERIES = 1u << 5,
  SP_PLOT_HISTOGRAM = 1u << 6,
  SP_PLOT_DENSITY = 1u << 7,
  SP_PLOT_SPEEDUP_ASKED = 1u << 8, /* "speedup" named in --plots (not only via "all") */
  SP_PLOT_FLAME_GRAPH = 1u << 9,
  SP_PLOT_WEAK_SCALING = 1u << 10,       /* weak_scaling: mean / baseline mean, ideal 1 */
  SP_PLOT_SCALING_EFFICIENCY = 1u << 11, /* scaling_efficiency: speedup / (x / smallest x) */
  SP_PLOT_WEAK_ASKED = 1u << 12,         /* "weak_scaling" named in --plots */
  SP_PLOT_EFFICIENCY_ASKED = 1u << 13    /* "scaling_efficiency" named in --plots */
} sp_plot_t;
/* Metrics of the duration charts (--metrics), in this order. */
enum { SP_DUR_AVG, SP_DUR_MIN, SP_DUR_MAX, SP_DUR_TOTAL, SP_DUR_NMETRICS };
extern const char *const sp_dur_metric_names[SP_DUR_NMETRICS];
/* --format for the text outputs (tables). */
typedef enum sp_table_format {
  SP_TABLE_TEXT,
  SP_TABLE_TSV,
  SP_TABLE_CSV,
  SP_TABLE_JSON
} sp_table_format_t;

typedef struct sp_options {
  const char *file;   /* the profile to read (one of words, after expansion) */
  const char **words; /* FILE words as given (paths or quoted patterns) */
  size_t nwords;
  const char **labels; /* --label, one per file in order */
  size_t nlabels;
  int compare;          /* --compare: one table over all files */
  const char *outdir;   /* -o: directory for gantt_plot.<format>; NULL = none */
  int outdir_given;     /* -o given (not the default "."): also the JSON files */
  int show;             /* --show: interactive window */
  const char **include; /* --include patterns (point into argv) */
  size_t ninclude;
  const char **exclude; /* --exclude patterns */
  size_t nexclude;
  const char **ranks; /* --ranks words, parsed by the selection */
  size_t nranks;
  sp_format_t format;                     /* --format */
  int width;                              /* --width, pixels (points for pdf/svg) */
  int height;                             /* --height, pixels; 0 = from the number of lanes */
  int summary;                            /* --summary */
  sp_sort_t sort;                         /* --sort-by */
  const struct sp_export_row *export_row; /* --export, NULL without */
  int list;                               /* --list */
  sp_backend_t backend;                   /* --backend */
  long html_exact;     /* --html-exact: intervals embedded exactly in report.html */
  const char *cmap;    /* --cmap: region colour map (palette.c); NULL = default */
  double start_time;   /* --start-time: chart window start, s since the first start (0) */
  double end_time;     /* --end-time: chart window end, s (> 0); 0 = the last end */
  unsigned plots;      /* --plots: sp_plot_t bits; 0 = the default charts (plots.c) */
  unsigned metrics;    /* --metrics: 1 << SP_DUR_*; 0 = all four */
  int export_data;     /* --export-data: the data behind the charts under -o DIR */
  int data_json;       /* --export-data-format json (else csv) */
  int skip_images;     /* --skip-plot-images: only the data files */
  int top_n;           /* --top-n: region charts show the N largest by self time; 0 = all */
  double min_duration; /* --min-duration: calls shorter (s) left out of the duration charts */
  const char *x_field; /* --x-field of speedup: num_ranks or a /metadata attribute */
  const char **work_per_rank; /* --work-per-rank words (numbers, one per file; checked
                               * equal by the weak_scaling chart) */
  size_t nwork_per_rank;
  const char *const *colour_names; /* palette domain: selected regions of all files
                                    * (set by charts_run.c; NULL = each chart's own) */
  int ncolour_names;
  int no_clock_align;       /* --no-clock-align: stamps as recorded on each node */
  int tree;                 /* --tree */
  int io;                   /* --io: the files the run read and wrote (io_table.c) */
  int by_thread;            /* --by-thread: --summary rows per (region, thread) */
  sp_table_format_t table;  /* --format text|tsv|csv|json of the text outputs */
  double pcts[8];           /* --columns p50,p95,...: percentiles of call durations */
  const char *pct_names[8]; /* their column names as given ("p50") */
  int npcts;
  int xcols[8]; /* --columns names other than percentiles: columns of summary_columns.h's
                 * table (SP_SUM_COL_*), in the order given, each once */
  int nxcols;
  int metric;       /* --metric: sp_metric_t of metric.h (0: rank_mean) */
  int metric_given; /* --metric on the command line */
  int waits;        /* --waits: the MPI wait states (cli/waits_print.c) */
  int values;           /* --values: the values per call per region and key (values_stats.c) */
  const char *vcols[8]; /* --columns value:KEY, as given (the key after "value:") */
  int nvcols;
} sp_options_t;

/* One Gantt lane: a region on a rank that has it. */
typedef struct sp_lane {
  int region; /* reader region index */
  int rank;   /* reader rank index */
} sp_lane_t;

/* The call-tree order of a selection's regions (tree_order.c), kept from
 * the first tree built for the selection so later charts need not build
 * another; valid only for the regions and ranks (values) it was computed for. */
typedef struct sp_tree_order {
  int *regions, *ranks; /* copies of the selection's arrays it was computed for */
  int nregions, nranks;
  int *pos, *depth; /* per selected region (sp_tree_region_order); NULL until kept */
} sp_tree_order_t;

/* What the command line selected from the file. */
typedef struct sp_selection {
  sp_reader_t *reader;
  const char *file;
  int *regions; /* selected region indices, in region order */
  int nregions;
  int *ranks; /* selected rank indices, ascending */
  int nranks;
  sp_lane_t *lanes; /* region-major, then rank */
  int nlanes;
  int64_t t0;             /* earliest first start over the lanes, ns; INT64_MAX if none */
  sp_tree_order_t *order; /* owned cache, filled through const selections; may be NULL */
  const char *caption;    /* representative ranks drawn (rank_pick.h), else NULL */
  int view;               /* 1: a view of another selection's reader (sp_selection_view) */
} sp_selection_t;

/* messages.c */
enum { SP_QUIET = 0, SP_NORMAL = 1, SP_VERBOSE = 2 };
void sp_msg_set_level(int level);
int sp_msg_level(void);
/* Prints "scope-profiler-pproc: ..." to stderr when level <= the current level. */
void sp_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Progress line on a terminal only: "what i/n", rewritten in place. */
void sp_progress(const char *what, int64_t i, int64_t n);
void sp_progress_done(void);
double sp_now(void);
/* Exit code for a reader error. */
int sp_exit_for_reader(int err);
/* sp_reader_load of region g on rank index k; when it fails, says the
 * reader's message (SP_QUIET) and returns sp_exit_for_reader's code, else 0. */
int sp_load_intervals(sp_reader_t *r, int g, int k, sp_reader_intervals_t *iv);

/* text_safe.c: names from the file in every output. */
enum { SP_TEXT_PLAIN, SP_TEXT_CSV, SP_TEXT_JSON };
/* Length of the valid UTF-8 sequence at s (1 to 4), 0 if s[0] starts none. */
size_t sp_utf8_seq(const unsigned char *s);
/* Writes text to f, each byte outside valid UTF-8 as \xNN. PLAIN also
 * writes controls (newline, tab, DEL...) as \xNN; CSV doubles quotes (the
 * caller adds the enclosing ones); JSON escapes quotes, backslashes and
 * controls and writes \\xNN for a bad byte (the JSON text of \xNN). */
void sp_text_put(FILE *f, const char *text, int mode);

/* run_info.c: the program's /metadata keys (not the library's own) and the
 * regions' source locations. */
int sp_run_meta_is_own(const char *key);
/* Entry i of /metadata as text when it is a key of the program's; 0 otherwise. */
int sp_run_meta_get(sp_reader_t *r, int i, char *key, size_t kcap, char *val, size_t vcap);
/* "# run metadata: key = value; ..." lines (keys cut at 64 bytes, values at 70), or nothing. */
void sp_run_meta_note(sp_reader_t *r, FILE *f);
/* "file:line" of region g into out; 0 when it has none. */
int sp_region_source_text(sp_reader_t *r, int g, char *out, size_t cap);
/* Copies text into out with PLplot's escape character '#' doubled, cut
 * at max_chars characters (UTF-8 aware) with "..." appended; bytes that
 * are not UTF-8 become \xNN, controls a blank (text_safe.c). cap >= 8. */
void sp_plot_text(const char *text, char *out, size_t cap, int max_chars);

/* options.c */
int sp_options_parse(int argc, char **argv, sp_options_t *o);
void sp_usage_short(void);
void sp_help(void);
void sp_options_free(sp_options_t *o);

/* selection.c */
int sp_ranks_parse(const char *const *words, size_t nwords, sp_reader_t *r, int **out, int *n);
int sp_selection_build(const sp_options_t *o, sp_selection_t *sel);
void sp_selection_free(sp_selection_t *sel);
/* A selection of sel's regions on the ranks ranks[0..n-1] (ascending rank
 * indices) sharing sel's reader, which sp_selection_free leaves open;
 * caption is kept as a pointer. Returns 0 or SP_EXIT_IO. */
int sp_selection_view(const sp_selection_t *sel, const int *ranks, int n, const char *caption,
                      sp_selection_t *out);
/* The host of rank index k when the file's ranks span several hosts, else
 * NULL: lanes are then named rN@HOST. */
const char *sp_rank_host_shown(const sp_selection_t *sel, int k);
/* The end (exclusive) of the block of selected ranks from j0 that holds
 * about SP_RANK_BLOCK_CALLS calls of the selected regions, sized on rank j0.
 * Outputs that go region by region over every rank go block by block
 * instead (regions over the block's ranks): a columnar file keeps its calls
 * rank after rank, and the reader's page cache (reader_colcache.c, 16 MiB
 * a column) then reads each page once, not once per region (issue 47). */
#define SP_RANK_BLOCK_CALLS ((int64_t)1 << 18)
int sp_rank_block_end(const sp_selection_t *sel, int j0);

/* table.c: rows of a text output in the chosen format. */
typedef enum sp_col_kind {
  SP_COL_INT,   /* int64 */
  SP_COL_SEC,   /* seconds, 9 decimals */
  SP_COL_RATIO, /* 0..1, 4 decimals */
  SP_COL_PCT,   /* percent, 2 decimals */
  SP_COL_STR,   /* text */
  SP_COL_NUM    /* a number: %.10g in text, %.17g in tsv, csv and json */
} sp_col_kind_t;
typedef struct sp_col {
  const char *name;
  sp_col_kind_t kind;
  int width; /* text format: right-aligned width (the last column is not padded) */
} sp_col_t;
typedef struct sp_cell {
  int missing; /* "-" in text, tsv and csv; null in json */
  int64_t i;
  double d;
  const char *s;
} sp_cell_t;
typedef struct sp_table {
  sp_table_format_t fmt;
  const sp_col_t *cols;
  int ncols;
  int64_t nrows;
} sp_table_t;
/* note: '#' lines printed above the header in the text format only. */
void sp_table_begin(sp_table_t *t, sp_table_format_t fmt, const sp_col_t *cols, int ncols,
                    const char *note);
void sp_table_row(sp_table_t *t, const sp_cell_t *cells);
void sp_table_end(sp_table_t *t);
/* A JSON string literal of s on stdout. */
void sp_json_put_string(FILE *f, const char *s);
/* ns as a JSON number of seconds, exact (at most nine decimals). */
void sp_json_put_seconds(FILE *f, int64_t ns);

/* table.c, several files: rows of file k of nfiles carry its label (a
 * "file" column in tsv, csv and json; a heading line in text), and the
 * header / JSON brackets are printed once. nfiles 1: no file column. */
void sp_table_set_file(int k, int nfiles, const char *label);

/* inputs.c: FILE words to files (patterns expanded, duplicates dropped) and labels. */
typedef struct sp_inputs {
  char **files;  /* paths */
  char **real;   /* their real paths (NULL if unresolvable) */
  char **labels; /* one per file */
  int n;
} sp_inputs_t;
int sp_inputs_expand(const char *const *words, size_t nwords, sp_inputs_t *in);
void sp_inputs_free(sp_inputs_t *in);

/* outdir.c: DIR/name written via DIR/name.tmp and renamed when complete. */
typedef struct sp_outfile {
  FILE *f;
  char *path, *tmp;
} sp_outfile_t;
int sp_outfile_open(sp_outfile_t *of, const char *dir, const char *name);
/* Closes, renames into place when rc is 0 (else removes); returns rc or SP_EXIT_IO. */
int sp_outfile_close(sp_outfile_t *of, int rc);
char *sp_path_absolute(const char *path); /* realpath, malloc'd; NULL on failure */

/* stats_json.c: region_statistics.json over the files. */
int sp_stats_json_write(FILE *f, const sp_selection_t *sels, sp_reader_tree_t *const *trees,
                        const char *const *labels, int nfiles, const sp_options_t *o);
/* Both JSON files under o->outdir from one tree per file (one read of the data). */
int sp_json_outputs(const sp_selection_t *sels, const char *const *labels, int nfiles,
                    const sp_options_t *o);

/* tree.c: --tree; tree_json.c: call_tree.json (also --tree --format json). */
int sp_tree_print(const sp_selection_t *sel, const sp_options_t *o);
int sp_tree_build(const sp_selection_t *sel, unsigned flags, sp_reader_tree_t **out);
/* tree_order.c: keeps the region order of tree t, built for sel with
 * flags, in sel->order (sp_tree_build calls it); frees a kept order. */
void sp_tree_order_note(const sp_selection_t *sel, const sp_reader_tree_t *t, unsigned flags);
void sp_tree_order_free(sp_tree_order_t *c);
/* Call-tree order of the selected regions: pos[i] and depth[i] for
 * sel->regions[i], from the first call path (depth-first, children by
 * inclusive time) that ends in it; regions without one follow in
 * selection order at depth 0. Costs one read of the selection (the tree)
 * unless a tree was built for it already (tree_order.c keeps the order).
 * Returns an sp_exit_t code. */
int sp_tree_region_order(const sp_selection_t *sel, int *pos, int *depth);
/* One file's call tree as a JSON object. */
void sp_tree_json_write(FILE *f, const sp_selection_t *sel, const sp_reader_tree_t *t,
                        const char *label);
/* call_tree.json of several files: {"units", "files": [one object per file]};
 * of one file: that file's object. trees: one per file, or NULL to build them. */
int sp_tree_json_files(FILE *f, const sp_selection_t *sels, sp_reader_tree_t *const *trees,
                       const char *const *labels, int nfiles);

/* figures.c (common: the report's Change section uses them too): per selected
 * region (in selection order) what --compare and check compare. */
typedef struct sp_figure {
  const char *name; /* owned by the reader */
  int timed;        /* 1 if it has intervals (or an aggregate file's total and self) */
  int64_t calls;    /* sum of num_calls */
  int64_t n;        /* intervals */
  double total;     /* ns, summed over ranks and threads, outermost calls (recursion once) */
  double self;      /* ns, exclusive (call tree) */
  double mean;      /* ns per call */
  int nranks;       /* selected ranks (each counts, with or without the region) */
  double rank_mean; /* ns, mean over the selected ranks of each rank's sum over threads */
  double rank_max;  /* ns, the largest of those per-rank sums */
} sp_figure_t;
int sp_figures_compute(const sp_selection_t *sel, sp_figure_t **out, int *n);
/* The same, and *wall: the run's wall time on thread 0 summed over the
 * selected ranks, ns (sp_metric_wall). */
int sp_figures_compute_wall(const sp_selection_t *sel, sp_figure_t **out, int *n, double *wall);
/* The wall time of the run on thread 0 summed over the selected ranks (ns):
 * the inclusive time of the roots no worker thread called, or of all roots
 * when every root ran on a worker. The denominator of every %: a share of
 * it is a share of the ranks' wall time, and the outermost region is 100%. */
double sp_metric_wall(const sp_reader_tree_t *t);

/* compare.c: --compare; check.c: the check subcommand. */
int sp_compare_print(const sp_selection_t *sels, const char *const *labels, int nfiles,
                     const sp_options_t *o);
int sp_check_main(int argc, char **argv);

/* listing.c, summary.c, export.c (the Gantt chart: gantt.h) */
int sp_list_print(const sp_selection_t *sel, sp_table_format_t fmt);
int sp_summary_print(const sp_selection_t *sel, const sp_options_t *o);
/* common/waits_print.c: --waits. */
int sp_waits_print(const sp_selection_t *sel, const sp_options_t *o);
/* listing.c: --io, the I/O records per (rank, file) and per file. */
int sp_io_print(const sp_selection_t *sel, const sp_options_t *o);
/* io_files.c: walks the I/O records of the selected ranks: begin once
 * before the first row, rank_row per (rank, file) (v: the
 * SP_READER_IO_* columns), then file_row per file over the ranks, by name
 * (slow_rank, slow_ns: largest read + write + meta ns; ranks: ranks with
 * the file). Callbacks may be NULL. *found: 1 when a rank had records.
 * Returns 0 or SP_EXIT_* (said). */
typedef struct sp_io_visit {
  void (*begin)(void *ctx);
  void (*rank_row)(void *ctx, int rank, const int64_t *v, const char *name);
  void (*file_row)(void *ctx, const int64_t *v, const char *name, int slow_rank, int64_t slow_ns,
                   int ranks);
} sp_io_visit_t;
int sp_io_files_walk(const sp_selection_t *sel, const sp_io_visit_t *visit, void *ctx, int *found);
/* io_attrib.c: the bytes and time of the I/O calls each region made
 * (docs/io.md, "Reading the records"), per (region, thread) (thread
 * ignored unless by_thread): time from the call tree t (built with
 * SP_READER_TREE_BY_THREAD), bytes per call rank by rank with want_bytes.
 * Returns 0 or SP_EXIT_*. */
typedef struct sp_io_attrib sp_io_attrib_t;
int sp_io_attrib_build(const sp_selection_t *sel, const sp_reader_tree_t *t, int by_thread,
                       int want_bytes, sp_io_attrib_t **out);
/* The figures of (region, thread): *bytes, *ns; returns bits 1 (bytes
 * known) and 2 (time known), 0 when the region made no I/O call. */
int sp_io_attrib_get(const sp_io_attrib_t *x, int region, int thread, int64_t *bytes, int64_t *ns);
void sp_io_attrib_free(sp_io_attrib_t *x);
/* 1 when name is an I/O call region (io:*, MPI_File_*). */
int sp_io_region(const char *name);
/* cli/summary_columns.c: --values, per region and key the values per call. */
int sp_values_print(const sp_selection_t *sel, const sp_options_t *o);
/* common/summary_reduced.c: --summary (tree 0) and --tree (1) of a file reduced across
 * ranks; -1 when the file is not one (then the usual tables). */
int sp_reduced_print(const sp_selection_t *sel, const sp_options_t *o, int tree);
/* summary_likwid.c: the LIKWID table of --summary, regions in the given order;
 * prints nothing when the selected ranks have no LIKWID results. */
int sp_summary_likwid_print(const sp_selection_t *sel, const int *regions, int nregions);

#endif
