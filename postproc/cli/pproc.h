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
  SP_EXIT_OK = 0,    /* success */
  SP_EXIT_DATA = 1,  /* bad input data: not HDF5, wrong layout, inconsistent arrays, empty selection */
  SP_EXIT_USAGE = 2, /* bad command line, including ranks the file does not have */
  SP_EXIT_IO = 3     /* missing or unreadable file, unwritable output, plotting failure, no display */
} sp_exit_t;

typedef enum sp_format { SP_FORMAT_PNG, SP_FORMAT_PDF, SP_FORMAT_SVG } sp_format_t;

/* --backend: how -o and --show draw (PLplot charts or report.html). */
typedef enum sp_backend { SP_BACKEND_PLPLOT, SP_BACKEND_HTML } sp_backend_t;

typedef enum sp_export { SP_EXPORT_NONE, SP_EXPORT_CSV, SP_EXPORT_CHROME } sp_export_t;

/* Keys of --sort-by; numbers sort descending, name and start ascending. */
typedef enum sp_sort {
  SP_SORT_START,
  SP_SORT_NAME,
  SP_SORT_CALLS,
  SP_SORT_TOTAL,
  SP_SORT_MEAN,
  SP_SORT_MIN,
  SP_SORT_MAX,
  SP_SORT_IMBALANCE
} sp_sort_t;

typedef struct sp_options {
  const char *file;      /* the profile to read */
  const char *outdir;    /* -o: directory for gantt_plot.<format>; NULL = none */
  int show;              /* --show: interactive window */
  const char **include;  /* --include patterns (point into argv) */
  size_t ninclude;
  const char **exclude;  /* --exclude patterns */
  size_t nexclude;
  const char **ranks;    /* --ranks words, parsed by the selection */
  size_t nranks;
  sp_format_t format;    /* --format */
  int width;             /* --width, pixels (points for pdf/svg) */
  int height;            /* --height, pixels; 0 = from the number of lanes */
  int summary;           /* --summary */
  sp_sort_t sort;        /* --sort-by */
  sp_export_t export_kind; /* --export */
  int list;              /* --list */
  sp_backend_t backend;  /* --backend */
  long html_exact;       /* --html-exact: intervals embedded exactly in report.html */
  const char *cmap;      /* --cmap: region colour map (palette.c); NULL = default */
  double start_time;     /* --start-time: chart window start, s since the first start (0) */
  double end_time;       /* --end-time: chart window end, s (> 0); 0 = the last end */
} sp_options_t;

/* One Gantt lane: a region on a rank that has it. */
typedef struct sp_lane {
  int region; /* reader region index */
  int rank;   /* reader rank index */
} sp_lane_t;

/* What the command line selected from the file. */
typedef struct sp_selection {
  sp_reader_t *reader;
  const char *file;
  int *regions;      /* selected region indices, in region order */
  int nregions;
  int *ranks;        /* selected rank indices, ascending */
  int nranks;
  sp_lane_t *lanes;  /* region-major, then rank */
  int nlanes;
  int64_t t0;        /* earliest first start over the lanes, ns; INT64_MAX if none */
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

/* text_safe.c: names from the file in every output. */
enum { SP_TEXT_PLAIN, SP_TEXT_CSV, SP_TEXT_JSON };
/* Length of the valid UTF-8 sequence at s (1 to 4), 0 if s[0] starts none. */
size_t sp_utf8_seq(const unsigned char *s);
/* Writes text to f, each byte outside valid UTF-8 as \xNN. PLAIN also
 * writes controls (newline, tab, DEL...) as \xNN; CSV doubles quotes (the
 * caller adds the enclosing ones); JSON escapes quotes, backslashes and
 * controls and writes \\xNN for a bad byte (the JSON text of \xNN). */
void sp_text_put(FILE *f, const char *text, int mode);

/* options.c */
int sp_options_parse(int argc, char **argv, sp_options_t *o);
void sp_usage_short(void);
void sp_help(void);
void sp_options_free(sp_options_t *o);

/* selection.c */
int sp_ranks_parse(const char *const *words, size_t nwords, sp_reader_t *r, int **out, int *n);
int sp_selection_build(const sp_options_t *o, sp_selection_t *sel);
void sp_selection_free(sp_selection_t *sel);

/* listing.c, summary.c, export.c, gantt.c */
int sp_list_print(const sp_selection_t *sel);
int sp_summary_print(const sp_selection_t *sel, sp_sort_t sort);
/* summary_likwid.c: the LIKWID table of --summary, regions in the given order;
 * prints nothing when the selected ranks have no LIKWID results. */
int sp_summary_likwid_print(const sp_selection_t *sel, const int *regions, int nregions);
int sp_export_write(const sp_selection_t *sel, sp_export_t kind);
int sp_gantt_render(const sp_selection_t *sel, const sp_options_t *o, int interactive);

#endif
