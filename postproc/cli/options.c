/* options.c - command-line parsing and help of scope-profiler-pproc.
 *
 * Options follow the reference CLI: multi-valued options (--include,
 * --exclude, --ranks) take every following word up to the next one that
 * starts with '-', so the profile file is best given first. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts.h"
#include "exports.h"
#include "metric.h"
#include "palette.h"
#include "plots.h"
#include "pproc.h"
#include "summary_columns.h"

static const char sp_usage_text[] =
    "usage: " SP_PROG
    " FILE... [-o DIR] [--show] [--backend plplot|html]\n"
    "       [--include PAT...] [--exclude PAT...] [--ranks SPEC...]\n"
    "       [--format png|pdf|svg] [--width PX] [--height PX] [--start-time S]\n"
    "       [--end-time S] [--cmap NAME] [--plots NAME,...] [--metrics M,...]\n"
    "       [--export-data [--export-data-format csv|json] [--skip-plot-images]]\n"
    "       [--top-n N] [--min-duration S] [--x-field F] [--work-per-rank W...]\n"
    "       [--html-exact N]\n"
    "       [--summary [--by-thread] | --tree | --waits | --io | --values] [--sort-by KEY]\n"
    "       [--format text|tsv|csv|json] [--export ";
/* The usage after the --export words (exports.h). */
static const char sp_usage_text_end[] =
    "] [--list]\n"
    "       [-q|-v] [--no-clock-align] [--label L]... [--compare [--metric M]]\n"
    "       " SP_PROG
    " check BASE NEW --max-regression P% [--fail-on-new]\n"
    "           [--metric M]\n"
    "       " SP_PROG " merge [-f] [-o OUT.h5] SPILL_DIR_OR_FILE...\n";

/* The help before the option rows (sp_opt_rows). */
static const char sp_help_intro[] =
    "Draw a Gantt chart, a summary table, a call tree or an export of scope-profiler\n"
    "HDF5 files.\n"
    "\n";

/* The help after the option rows. */
static const char sp_help_outro[] =
    "\n"
    "Lanes are in call-tree order (a region at the path with most of its time,\n"
    "one dot per level of depth before its name), then rank, then thread (label\n"
    "'REGION rN tT'); one colour per region. Each pixel column of a lane is a bar\n"
    "as high as the share of that column's time the lane is busy (nested calls\n"
    "of a region count once), so a lane's inked area is its busy time: short\n"
    "calls are not widened to a pixel, and a region busy 1% of the run looks\n"
    "1% full. More lanes than pixel rows: a message points to the heat map.\n"
    "Labels: every lane is labelled 'REGION rN' while lanes are at least 12 px\n"
    "apart. With more lanes (e.g. 1024 ranks x 20 regions) labels thin out: the\n"
    "first lane of each region shows 'REGION rN' and every k-th lane after it 'rN',\n"
    "k chosen so labels stay 12 px apart; a region with fewer lanes than that may\n"
    "lose its label. Regions are told apart by colour, separator lines and the\n"
    "legend (at most 40 entries, then '+N more'). Names are cut at 24 characters.\n"
    "\n"
    "Exit status: 0 ok, 1 bad input data (not HDF5, truncated, wrong layout or\n"
    "types, inconsistent arrays, end before start, nothing to draw), 2 usage error\n"
    "(also a --ranks rank the file lacks, an invalid pattern or a file pattern\n"
    "matching nothing), 3 I/O or plotting failure (missing or unreadable FILE,\n"
    "FILE not a regular file or locked by a writer, unwritable output or full\n"
    "disk, no display for --show).\n";

static void sp_usage(FILE *f) {
  fputs(sp_usage_text, f);
  fputs(sp_export_names("|"), f);
  fputs(sp_usage_text_end, f);
}

void sp_usage_short(void) {
  sp_usage(stderr);
  fputs("Try '" SP_PROG " --help' for more information.\n", stderr);
}

static int sp_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sp_usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, SP_PROG ": ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  sp_usage_short();
  return SP_EXIT_USAGE;
}

/* Splits "--name=value" into name and value (value NULL without '='). */
static const char *sp_opt_split(const char *arg, char *name, size_t cap) {
  const char *eq = strchr(arg, '=');
  size_t len = eq && arg[1] == '-' ? (size_t)(eq - arg) : strlen(arg);
  if (len >= cap) len = cap - 1;
  memcpy(name, arg, len);
  name[len] = '\0';
  return eq && arg[1] == '-' ? eq + 1 : NULL;
}

/* Collects the words of a multi-valued option into *list. */
static int sp_opt_words(int argc, char **argv, int *i, const char *inl, const char ***list,
                        size_t *n, const char *name) {
  size_t add = inl ? 1 : 0;
  while (!inl && *i + 1 + (int)add < argc && argv[*i + 1 + add][0] != '-') add++;
  if (add == 0) return sp_usage_error("option %s needs at least one value", name);
  const char **l = realloc(*list, (*n + add) * sizeof *l);
  if (!l) return SP_EXIT_IO;
  *list = l;
  if (inl) {
    l[(*n)++] = inl;
  } else {
    for (size_t k = 0; k < add; k++) l[(*n)++] = argv[++*i];
  }
  return 0;
}

/* Value of a single-valued option: inline or the next word. */
static const char *sp_opt_value(int argc, char **argv, int *i, const char *inl) {
  if (inl) return inl;
  if (*i + 1 < argc) return argv[++*i];
  return NULL;
}

static int sp_parse_size(const char *v, int *out) {
  char *end;
  long x = v ? strtol(v, &end, 10) : -1;
  if (!v || *end || x < 0 || x > 20000) return -1;
  *out = (int)x;
  return 0;
}

/* Seconds >= 0, finite. */
static int sp_parse_seconds(const char *v, double *out) {
  char *end;
  double x = v ? strtod(v, &end) : -1.0;
  if (!v || end == v || *end || !(x >= 0.0) || x > 1e12) return -1;
  *out = x;
  return 0;
}

const char *const sp_dur_metric_names[SP_DUR_NMETRICS] = {"avg", "min", "max", "total"};

/* Comma-separated words of one option value into bits: --plots or --metrics. */
static int sp_parse_list(const char *v, int plots, unsigned *bits) {
  char word[64];
  while (v && *v) {
    size_t n = strcspn(v, ",");
    if (n == 0 || n >= sizeof word) return -1;
    memcpy(word, v, n);
    word[n] = '\0';
    v += n + (v[n] == ',');
    unsigned add = plots ? sp_plots_word(word) : 0;
    for (int k = 0; !plots && k < SP_DUR_NMETRICS; k++)
      if (!strcmp(word, sp_dur_metric_names[k])) add = 1u << k;
    if (!add) return -1;
    *bits |= add;
  }
  return 0;
}

/* --plots / --metrics: every following word (or one inline), each a comma list. */
static int sp_opt_list(int argc, char **argv, int *i, const char *inl, unsigned *bits,
                       const char *name) {
  int plots = !strcmp(name, "--plots");
  const char **words = NULL;
  size_t n = 0;
  int rc = sp_opt_words(argc, argv, i, inl, &words, &n, name);
  for (size_t k = 0; rc == 0 && k < n; k++)
    if (sp_parse_list(words[k], plots, bits) != 0)
      rc = plots ? sp_usage_error("%s: unknown chart in '%s' (expected %s, comma-separated)", name,
                                  words[k], sp_plots_names())
                 : sp_usage_error(
                       "%s: unknown metric in '%s' (expected avg, min, max, total, "
                       "comma-separated)",
                       name, words[k]);
  free(words);
  return rc;
}

static int sp_parse_choice(const char *v, const char *const *names, int n) {
  for (int k = 0; v && k < n; k++)
    if (strcmp(v, names[k]) == 0) return k;
  return -1;
}

_Static_assert(SP_SUM_NCOLS <= sizeof((sp_options_t *)0)->xcols / sizeof(int),
               "sp_options_t.xcols holds every named column once");

/* " bytes msgs source peak_rss_bytes": the named columns, for messages. */
static const char *sp_xcol_list(void) {
  static char list[256];
  size_t n = 0;
  for (int k = 0; k < SP_SUM_NCOLS && n < sizeof list; k++)
    n += (size_t)snprintf(list + n, sizeof list - n, " %s", sp_sum_col(k).name);
  return list;
}

/* --columns p50,p95,p99,bytes: percentiles (0..100) of the call durations,
 * at most 8, and the named columns of summary_columns.h. */
static int sp_parse_columns(const char *v, sp_options_t *o, const char *name) {
  static char buf[256]; /* the names point into it; one --columns per run */
  if (!v || strlen(v) >= sizeof buf)
    return sp_usage_error("%s needs a list such as p50,p95,p99", name);
  strcpy(buf, v);
  o->npcts = o->nxcols = o->nvcols = 0;
  for (char *w = strtok(buf, ","); w; w = strtok(NULL, ",")) {
    if (!strncmp(w, "value:", 6)) { /* the mean of a value per call (values_stats.c) */
      if (!w[6] || o->nvcols == 8)
        return sp_usage_error("%s: '%s': value:KEY needs a key (at most 8 such columns)", name, w);
      o->vcols[o->nvcols++] = w;
      continue;
    }
    int x = sp_sum_col_find(w), q = 0;
    while (x >= 0 && q < o->nxcols && o->xcols[q] != x) q++;
    if (x >= 0 && q == o->nxcols) o->xcols[o->nxcols++] = x; /* once each */
    if (x >= 0) continue;
    char *end;
    double p = w[0] == 'p' ? strtod(w + 1, &end) : -1;
    if (w[0] != 'p' || end == w + 1 || *end || p < 0 || p > 100 || o->npcts == 8)
      return sp_usage_error("%s: '%s' is not a percentile p0..p100 (at most 8) or a column of:%s",
                            name, w, sp_xcol_list());
    o->pct_names[o->npcts] = w;
    o->pcts[o->npcts++] = p;
  }
  return 0;
}

/* One option being parsed: its words, its name and its inline value. */
typedef struct sp_opt_ctx {
  int argc;
  char **argv;
  int *i;
  const char *inl; /* value after '=' (--name=value), or NULL */
  const char *name;
  sp_options_t *o;
} sp_opt_ctx_t;

/* The option's value: inline or the next word (NULL if none). */
static const char *sp_ctx_value(sp_opt_ctx_t *c) {
  return sp_opt_value(c->argc, c->argv, c->i, c->inl);
}

static int sp_opt_output(sp_opt_ctx_t *c) {
  sp_options_t *o = c->o;
  if (!(o->outdir = sp_ctx_value(c)) || !*o->outdir)
    return sp_usage_error("option %s needs a directory", c->name);
  o->outdir_given = 1;
  return 0;
}

static int sp_opt_format(sp_opt_ctx_t *c) {
  static const char *const formats[] = {"png", "pdf", "svg", "text", "tsv", "csv", "json"};
  int k = sp_parse_choice(sp_ctx_value(c), formats, 7);
  if (k < 0)
    return sp_usage_error(
        "%s expects png, pdf or svg (images), or text, tsv, csv or json "
        "(text outputs)",
        c->name);
  if (k < 3)
    c->o->format = (sp_format_t)k;
  else
    c->o->table = (sp_table_format_t)(k - 3);
  return 0;
}

static int sp_opt_size(sp_opt_ctx_t *c) {
  sp_options_t *o = c->o;
  int *dst = c->name[2] == 'w' ? &o->width : &o->height;
  int ok =
      sp_parse_size(sp_ctx_value(c), dst) == 0 && (*dst >= 64 || (dst == &o->height && *dst == 0));
  if (!ok) return sp_usage_error("%s expects a number of pixels between 64 and 20000", c->name);
  return 0;
}

static int sp_opt_backend(sp_opt_ctx_t *c) {
  static const char *const backends[] = {"plplot", "html"};
  int k = sp_parse_choice(sp_ctx_value(c), backends, 2);
  if (k < 0) return sp_usage_error("%s expects plplot or html", c->name);
  c->o->backend = (sp_backend_t)k;
  return 0;
}

static int sp_opt_html_exact(sp_opt_ctx_t *c) {
  const char *v = sp_ctx_value(c);
  char *end;
  long x = v ? strtol(v, &end, 10) : -1;
  if (!v || *end || x < 0 || x > 100000000L)
    return sp_usage_error("%s expects a number of intervals between 0 and 100000000", c->name);
  c->o->html_exact = x;
  return 0;
}

static int sp_opt_sort(sp_opt_ctx_t *c) {
  static const char *const sorts[] = {"start", "name", "calls",     "total", "mean",
                                      "min",   "max",  "imbalance", "self"};
  int k = sp_parse_choice(sp_ctx_value(c), sorts, 9);
  if (k < 0)
    return sp_usage_error(
        "%s expects start, name, calls, total, mean, min, max, imbalance "
        "or self",
        c->name);
  c->o->sort = (sp_sort_t)k;
  return 0;
}

static int sp_opt_export(sp_opt_ctx_t *c) {
  const sp_export_row_t *e = sp_export_find(sp_ctx_value(c));
  if (!e) return sp_usage_error("%s expects %s", c->name, sp_export_names(", "));
  if (e->available && !e->available())
    return sp_usage_error("--export %s: %s", e->name, e->missing);
  c->o->export_row = e;
  return 0;
}

static int sp_opt_time(sp_opt_ctx_t *c) {
  sp_options_t *o = c->o;
  double *dst = c->name[2] == 's' ? &o->start_time : &o->end_time;
  if (sp_parse_seconds(sp_ctx_value(c), dst) != 0 || (dst == &o->end_time && *dst <= 0))
    return sp_usage_error("%s expects seconds since the first start (a number >= 0)", c->name);
  return 0;
}

static int sp_opt_plots(sp_opt_ctx_t *c) {
  return sp_opt_list(c->argc, c->argv, c->i, c->inl, &c->o->plots, c->name);
}

static int sp_opt_metrics(sp_opt_ctx_t *c) {
  return sp_opt_list(c->argc, c->argv, c->i, c->inl, &c->o->metrics, c->name);
}

static int sp_opt_data_format(sp_opt_ctx_t *c) {
  static const char *const kinds[] = {"csv", "json"};
  int k = sp_parse_choice(sp_ctx_value(c), kinds, 2);
  if (k < 0) return sp_usage_error("%s expects csv or json", c->name);
  c->o->data_json = k;
  return 0;
}

static int sp_opt_top_n(sp_opt_ctx_t *c) {
  int n;
  if (sp_parse_size(sp_ctx_value(c), &n) != 0 || n < 1)
    return sp_usage_error("%s expects a number of regions between 1 and 20000", c->name);
  c->o->top_n = n;
  return 0;
}

static int sp_opt_x_field(sp_opt_ctx_t *c) {
  if (!(c->o->x_field = sp_ctx_value(c)) || !*c->o->x_field)
    return sp_usage_error(
        "option %s needs num_ranks, omp_num_threads, total_cores or another "
        "/metadata attribute",
        c->name);
  return 0;
}

static int sp_opt_min_duration(sp_opt_ctx_t *c) {
  if (sp_parse_seconds(sp_ctx_value(c), &c->o->min_duration) != 0)
    return sp_usage_error("%s expects seconds (a number >= 0)", c->name);
  return 0;
}

static int sp_opt_cmap(sp_opt_ctx_t *c) {
  const char *v = sp_ctx_value(c);
  if (!sp_palette_known(v)) return sp_usage_error("%s expects %s", c->name, sp_palette_names());
  c->o->cmap = v;
  return 0;
}

static int sp_opt_label(sp_opt_ctx_t *c) {
  sp_options_t *o = c->o;
  const char *v = sp_ctx_value(c);
  if (!v) return sp_usage_error("option %s needs a value", c->name);
  const char **l = realloc(o->labels, (o->nlabels + 1) * sizeof *l);
  if (!l) return SP_EXIT_IO;
  o->labels = l;
  o->labels[o->nlabels++] = v;
  return 0;
}

static int sp_opt_columns(sp_opt_ctx_t *c) {
  return sp_parse_columns(sp_ctx_value(c), c->o, c->name);
}

static int sp_opt_metric(sp_opt_ctx_t *c) {
  sp_metric_t m;
  if (sp_metric_parse(sp_ctx_value(c), &m) != 0)
    return sp_usage_error("%s expects %s", c->name, sp_metric_choices);
  c->o->metric = (int)m;
  c->o->metric_given = 1;
  return 0;
}

static int sp_opt_quiet(sp_opt_ctx_t *c) {
  (void)c;
  sp_msg_set_level(SP_QUIET);
  return 0;
}

static int sp_opt_verbose(sp_opt_ctx_t *c) {
  (void)c;
  sp_msg_set_level(SP_VERBOSE);
  return 0;
}

static int sp_opt_help(sp_opt_ctx_t *c) {
  (void)c;
  sp_help();
  return -1;
}

static int sp_opt_version(sp_opt_ctx_t *c) {
  (void)c;
  printf("%s %s\n", SP_PROG, sp_reader_version_string());
  return -1;
}

/* The options in the order of --help, one row each, with the headings and
 * notes between them as rows of their own. A switch sets the int at flag
 * to 1; a multi-valued option collects its words into the list at words
 * (count at count); any other option calls parse. A row with a name but
 * none of these is more help for an option parsed by another row (--format
 * of the images and of the text outputs). A row without a name is an
 * argument (arg, help) or a heading or note (help alone, printed as is). */
typedef struct sp_opt_row {
  const char *name;    /* "--output", or NULL */
  const char *alias;   /* "-o", or NULL */
  size_t flag;         /* offsetof an int of sp_options_t, or SP_OPT_NONE */
  size_t words, count; /* offsetof a const char ** list and its size_t count, or SP_OPT_NONE */
  int (*parse)(sp_opt_ctx_t *c);
  int early;                  /* looked for before any other option: --help, --version */
  const char *arg;            /* the value as --help shows it: "DIR" of "-o, --output DIR" */
  const char *help;           /* its text, wrapped at column 25 ('\n' breaks a line) */
  void (*help_rows)(FILE *f); /* the lines of a table after help: --plots, --export */
} sp_opt_row_t;
#define SP_OPT_NONE ((size_t)-1)
#define SP_OPT_SWITCH(n, field, help) \
  { n, NULL, offsetof(sp_options_t, field), SP_OPT_NONE, SP_OPT_NONE, NULL, 0, NULL, help, NULL }
#define SP_OPT_WORDS(n, a, list, cnt, arg, help)                                                \
  {                                                                                             \
    n, a, SP_OPT_NONE, offsetof(sp_options_t, list), offsetof(sp_options_t, cnt), NULL, 0, arg, \
        help, NULL                                                                              \
  }
#define SP_OPT_CALL(n, a, fn, arg, help) \
  { n, a, SP_OPT_NONE, SP_OPT_NONE, SP_OPT_NONE, fn, 0, arg, help, NULL }
#define SP_OPT_EARLY(n, a, fn, help) \
  { n, a, SP_OPT_NONE, SP_OPT_NONE, SP_OPT_NONE, fn, 1, NULL, help, NULL }
#define SP_OPT_TABLE(n, fn, arg, help, rows) \
  { n, NULL, SP_OPT_NONE, SP_OPT_NONE, SP_OPT_NONE, fn, 0, arg, help, rows }
#define SP_OPT_MORE(n, arg, help) \
  { n, NULL, SP_OPT_NONE, SP_OPT_NONE, SP_OPT_NONE, NULL, 0, arg, help, NULL }
#define SP_OPT_ARG(arg, help) \
  { NULL, NULL, SP_OPT_NONE, SP_OPT_NONE, SP_OPT_NONE, NULL, 0, arg, help, NULL }
#define SP_OPT_TEXT(text) \
  { NULL, NULL, SP_OPT_NONE, SP_OPT_NONE, SP_OPT_NONE, NULL, 0, NULL, text, NULL }

static const sp_opt_row_t sp_opt_rows[] = {
    SP_OPT_TEXT("Arguments:\n"),
    SP_OPT_ARG("FILE...",
               "profiles written by scope-profiler (profiling_data.h5) or by the reference "
               "tool (its schema 1 to 3, also the columnar and aggregate layouts and names "
               "stored as nested groups); a quoted pattern ('runs/*.h5') is expanded here: "
               "sorted, regular files, a file given twice read once; a pattern matching "
               "nothing is a usage error. Text outputs print one block per file ('== LABEL "
               "==' in text, a 'file' column in tsv/csv/json); charts that show files apart "
               "draw one panel per file, stacked, titled with its label"),
    SP_OPT_CALL("--label", NULL, sp_opt_label, "L",
                "name of a file in outputs, once per file in order (default: file name "
                "without extension; a repeated one gets ' (2)', ' (3)')"),
    SP_OPT_SWITCH("--compare", compare,
                  "one table over all files: per region (with --tree: per call path) the "
                  "seconds of each file and the ratio of each later file to the first; by "
                  "default each rank's time (summed over its threads), mean over the ranks, "
                  "so runs on different rank counts compare"),
    SP_OPT_CALL("--metric", NULL, sp_opt_metric, "M",
                "what --compare shows: rank_mean (default), rank_max (slowest rank), total "
                "(sum over ranks and threads), self (exclusive, mean per rank), calls (mean "
                "per rank) or mean (seconds per call); the header says"),
    SP_OPT_TEXT("\nCharts (the Gantt chart: one lane per region and rank, and per thread where a\n"
                "region ran on several threads of a rank):\n"),
    SP_OPT_CALL("--output", "-o", sp_opt_output, "DIR",
                "write the charts to DIR/<name>_plot.<format> (DIR is created if missing), "
                "DIR/region_statistics.json (the reference tool's schema: per file and region "
                "count, average, min, max, std (population), total duration in seconds over "
                "the calls of the selected ranks, and per_rank) and DIR/call_tree.json (nodes: "
                "path, calls, inclusive and exclusive seconds, per_rank; with several files "
                "under 'files')"),
    SP_OPT_TABLE("--plots", sp_opt_plots, "NAME,...",
                 "charts to write, comma-separated, or all; without --plots those marked *; "
                 "those marked + compare several files (with one file only when named); each "
                 "is DIR/<name>_plot.<format>:",
                 sp_plots_help),
    SP_OPT_CALL("--x-field", NULL, sp_opt_x_field, "F",
                "x of the scaling charts: num_ranks (default), omp_num_threads, total_cores "
                "or any /metadata attribute (not a number: categories in command-line order, "
                "the first the baseline, no speedup ideal); scaling_efficiency takes only the "
                "first three"),
    SP_OPT_WORDS("--work-per-rank", NULL, work_per_rank, nwork_per_rank, "W...",
                 "weak_scaling: the work per rank of each file, in order, in any unit (cells, "
                 "particles); checked to be equal (else exit 2: not a weak-scaling study), "
                 "shown in the title and weak_scaling_data's options; without it, the files' "
                 "/metadata work_per_rank when every file has the same one (said on stderr)"),
    SP_OPT_CALL("--top-n", NULL, sp_opt_top_n, "N",
                "region charts (durations, duration_timeseries, histogram, timeline_density, "
                "durations_data) show the N regions of largest self (exclusive) time in the "
                "first file, so kernels, not the wrappers around them"),
    SP_OPT_CALL("--min-duration", NULL, sp_opt_min_duration, "S",
                "leave calls shorter than S seconds out of durations, histogram and "
                "duration_timeseries (the time charts show every call)"),
    SP_OPT_CALL("--metrics", NULL, sp_opt_metrics, "M,...",
                "durations metrics: avg, min, max, total (default all; one metric writes "
                "durations_plot.<format>)"),
    SP_OPT_SWITCH("--export-data", export_data,
                  "also write the data behind the charts to DIR: gantt_data (file, rank, "
                  "region, start_seconds, end_seconds), flame_data (file, rank, region, depth, "
                  "start_seconds, end_seconds) and durations_data (file, region, metric, "
                  "value_seconds), with several files speedup_data (region, <x_field>, "
                  "speedup), weak_scaling_data (..., normalized_runtime) and "
                  "scaling_efficiency_data (..., efficiency) when "
                  "those charts are chosen; times in seconds since the selection's first start"),
    SP_OPT_CALL("--export-data-format", NULL, sp_opt_data_format, "csv|json",
                "csv (default) or json: {columns, data (one object per row), colors (region "
                "-> #rrggbb)}"),
    SP_OPT_SWITCH("--skip-plot-images", skip_images, "only the data files (needs --export-data)"),
    SP_OPT_SWITCH("--show", show, "open an interactive PLplot window (needs $DISPLAY)"),
    SP_OPT_CALL("--format", NULL, sp_opt_format, "FMT", "png (default), pdf or svg"),
    SP_OPT_CALL("--width", NULL, sp_opt_size, "PX",
                "image width in pixels (pdf/svg: points), default 1600"),
    SP_OPT_CALL("--height", NULL, sp_opt_size, "PX",
                "image height; default 16 px per lane, within 480..2400 (at least 220; 400 "
                "for the charts with names under the axis; duration_timeseries 120 + 90 per "
                "region panel and file, said on stderr when taller)"),
    SP_OPT_CALL("--start-time", NULL, sp_opt_time, "S",
                "draw only from S seconds since the first start"),
    SP_OPT_CALL("--end-time", NULL, sp_opt_time, "S",
                "draw only up to S seconds (default: the last end)"),
    SP_OPT_CALL("--cmap", NULL, sp_opt_cmap, "NAME",
                "region colours: tab10, tab20, viridis, plasma, Set3 (sampled evenly over the "
                "sorted region names) or many (distinct neighbours for any count); default "
                "tab10 up to 10 regions, tab20 up to 20, then many"),
    SP_OPT_TEXT("  With none of -o, --show, --summary, --tree, --export, --list: same as -o .\n"
                "\n"
                "Interactive report:\n"),
    SP_OPT_CALL("--backend", NULL, sp_opt_backend, "html",
                "-o DIR writes DIR/report.html instead: one self-contained file (no network) "
                "with the zoomable timeline of every region, rank and thread with a tooltip "
                "per bar, the call tree, load balance, rank comparison and hotspots tables, "
                "the flame chart, duration bars and, with several files, Speedup and Change "
                "(two files) or Weak scaling (three or more); large traces are embedded as "
                "busy fractions per time bin. With --show: opens it with xdg-open, or prints "
                "its path (-o . when no -o)."),
    SP_OPT_CALL("--html-exact", NULL, sp_opt_html_exact, "N",
                "intervals embedded exactly, smallest lanes first (default 1000000); the "
                "other lanes are binned, and up to N/8 of their calls embedded exactly in the "
                "time tiles (1/256 of the run) where they fit"),
    SP_OPT_MORE("--backend", "plplot", "the charts above (default)"),
    SP_OPT_TEXT("\nSelection (applies to every output):\n"),
    SP_OPT_WORDS("--include", "-i", include, ninclude, "PAT...",
                 "keep regions whose name matches a pattern"),
    SP_OPT_WORDS("--exclude", "-e", exclude, nexclude, "PAT...",
                 "drop regions whose name matches a pattern\n"
                 "PAT: POSIX extended regex matched at the start of the name (as Python "
                 "re.match): 'solver' keeps 'solver_step'"),
    SP_OPT_WORDS("--ranks", "-r", ranks, nranks, "SPEC...",
                 "ranks to keep: 0-3, 0,2,4-7 or several words (0 2 5-6)"),
    SP_OPT_TEXT("\nText outputs (on stdout, one at a time; redirect with >):\n"),
    SP_OPT_SWITCH("--summary", summary,
                  "per region over the selected ranks: calls, total_s and self_s (exclusive: "
                  "minus the calls nested in it), summed over ranks and threads (total_s of a "
                  "recursive region: its outermost calls); mean_s, min_s, max_s per call; "
                  "rank_mean_s, rank_max_s, max_rank of the per-rank totals (ranks without the "
                  "region count as 0); imbalance = (rank_max - rank_mean) / rank_max; % of the "
                  "roots' total; region. Name is the last column.\n"
                  "When the file has LIKWID results, a second table follows with one row per "
                  "region and event: ranks (that have it), calls and time_s (LIKWID's, summed "
                  "over ranks and threads), sum (over ranks and threads), rank_min and rank_max "
                  "(per-rank sums), event, region."),
    SP_OPT_SWITCH("--io", io,
                  "the files the run read and wrote (SCOPE_PROFILER_PROFILE_IO): a row per "
                  "(rank, file), then per file over the selected ranks (rank -): opens, reads, "
                  "writes, bytes_read, bytes_written, read_s, write_s, meta_s (time in those "
                  "calls), bandwidth_Bps ((bytes_read + bytes_written) / (read_s + write_s)), "
                  "slowest_rank and slowest_s (largest read_s + write_s + meta_s on the file), "
                  "ranks, file; exit 1 when the file has no I/O records"),
    SP_OPT_SWITCH("--by-thread", by_thread,
                  "--summary: one row per (region, thread), thread column"),
    SP_OPT_CALL("--columns", NULL, sp_opt_columns, "p50,p95",
                "--summary: add percentiles of the call durations after max_s (pN, N from 0 "
                "to 100, as numpy.percentile's linear default; holds one region's durations "
                "at a time) and named columns: bytes (MPI calls' bytes sent and received), "
                "msgs (MPI calls with a peer or bytes > 0), summed over ranks; \"-\" where no "
                "call has them; wait_s (seconds the region's MPI calls spent in the wait "
                "states of --waits, summed over ranks; \"-\" for other regions); source: the region's place in the source (file:line, from "
                "sp_region_at, SP_SCOPE, ...; - where unknown) and columns before region: "
                "peak_rss_bytes (highest RSS sampled during a call of the region; files of "
                "runs with SCOPE_PROFILER_SAMPLE_MS, else \"-\"); after the percentiles: "
                "io_bytes and io_s (bytes and time of the I/O calls, io:* and MPI_File_*, the "
                "region made directly, summed over ranks; an I/O region's own row: its own "
                "calls; SCOPE_PROFILER_PROFILE_IO; io_bytes \"-\" in profile mode)"
                "; value:KEY, before region: the mean of the value per call KEY (sp_call_set_int, "
                "sp_call_set_real; docs/values.md) over the calls that set it, \"-\" where none did"),
    SP_OPT_SWITCH("--tree", tree,
                  "the call tree rebuilt from the stamps, per rank and thread (a call's parent "
                  "is the innermost call that contains it; worker-thread calls are roots of "
                  "their thread, marked [threads]): calls, incl_s and excl_s (mean per rank), % "
                  "of the root, rank_min_s and rank_max_s of per-rank inclusive time, "
                  "max_rank, imbalance, worker_calls, depth, region (indented)"),
    SP_OPT_SWITCH("--waits", waits,
                  "wait states of the MPI calls (files recorded with "
                  "SCOPE_PROFILER_PROFILE_MPI=1 in trace mode; docs/wait-states.md): sends "
                  "paired with receives by communicator, source, destination and tag in "
                  "order, collectives by communicator and order; per call path and rank the "
                  "seconds of Late Sender, Late Receiver, Wait at N x N, Wait at Barrier, Late "
                  "Broadcast and Early Reduce, most first; then per wait state the causes: the "
                  "late partner's rank and the region it was in when the waiting started, "
                  "largest first. Calls that cannot be paired are counted on stderr, never "
                  "guessed. One file."),
    SP_OPT_SWITCH("--values", values,
                  "the values per call (sp_call_set*; docs/values.md) over the selected ranks, "
                  "per region and key: calls (that set it), sum, mean, min, max of numbers; of "
                  "strings one row per distinct value (value, count; the 20 most frequent, then "
                  "\"(N more)\"); kind, key, region. Profile-mode files: numbers per call path "
                  "summed; strings counted only"),
    SP_OPT_CALL("--sort-by", NULL, sp_opt_sort, "KEY",
                "start (default: first start; --tree: inclusive), name, calls, total, mean, "
                "min, max, imbalance or self (numbers descending; --tree sorts siblings)"),
    SP_OPT_MORE("--format", "FMT",
                "text (default: aligned, '#' notes), tsv, csv or json (an array of rows; "
                "--tree: call_tree.json; --waits: one object) for --summary, --tree, --waits, --io and --list"),
    SP_OPT_TABLE("--export", sp_opt_export, NULL, NULL, sp_exports_help),
    SP_OPT_SWITCH("--list", list,
                  "one line per (region, rank), regions by first start: lane rank intervals "
                  "region"),
    SP_OPT_TEXT("  Times are seconds since the first start in the selection.\n"
                "\n"
                "Clocks (every time-based output: chart, exports, --list):\n"),
    SP_OPT_SWITCH("--no-clock-align", no_clock_align,
                  "stamps as each node recorded them; by default each rank's stamps are put on "
                  "rank 0's clock with the offsets measured at setup and finalize (files "
                  "without them read as recorded). Durations and --summary are the same either "
                  "way. When ranks ran on several hosts, lanes are named rN@HOST."),
    SP_OPT_TEXT("Regression gate (" SP_PROG " check --help):\n"),
    SP_OPT_ARG("check BASE NEW --max-regression P% [--fail-on-new] [--metric M]",
               "exit 1 when a region of NEW is slower than in BASE by more than P percent (or, "
               "with --fail-on-new, is new); M as --compare's (default rank_mean; mean per "
               "call for codes that run a fixed time); regions under a noise floor (0.1% of "
               "the run, 100 us) not judged"),
    SP_OPT_TEXT("\nCrash recovery (" SP_PROG " merge --help):\n"),
    SP_OPT_ARG("merge [-f] [-o OUT.h5] SPILL...",
               "rebuild the profile (default profiling_data.h5) from the spill files of a run "
               "that died before sp_finalize (<file>.spill/ directories or *.spill files); "
               "serial, no MPI; -f replaces an existing OUT.h5"),
    SP_OPT_TEXT("\nOther:\n"),
    SP_OPT_CALL("--quiet", "-q", sp_opt_quiet, NULL, "only errors on stderr"),
    SP_OPT_CALL("--verbose", "-v", sp_opt_verbose, NULL, "also timings and details on stderr"),
    SP_OPT_EARLY("--help", "-h", sp_opt_help, "this help"),
    SP_OPT_EARLY("--version", "-V", sp_opt_version, "version"),
};
#define SP_OPT_NROWS (sizeof sp_opt_rows / sizeof sp_opt_rows[0])

/* The row's label at column 2 ("-o, --output DIR") or 6 ("--width PX"),
 * then its text from column 25. */
static void sp_opt_row_help(FILE *f, const sp_opt_row_t *r) {
  char label[128];
  if (!r->name)
    snprintf(label, sizeof label, "  %s", r->arg);
  else
    snprintf(label, sizeof label, "  %s%s%s%s%s", r->alias ? r->alias : "    ",
             r->alias ? ", " : "", r->name, r->arg ? " " : "", r->arg ? r->arg : "");
  sp_help_item(f, label, r->help);
}

void sp_help(void) {
  sp_usage(stdout);
  fputc('\n', stdout);
  fputs(sp_help_intro, stdout);
  for (size_t k = 0; k < SP_OPT_NROWS; k++) {
    const sp_opt_row_t *r = &sp_opt_rows[k];
    if (!r->name && !r->arg) {
      fputs(r->help, stdout); /* a heading or a note */
      continue;
    }
    /* An option without help shows its label alone, which the test
     * postproc.cli.options_help refuses. */
    if (r->help || !r->help_rows) sp_opt_row_help(stdout, r);
    if (r->help_rows) r->help_rows(stdout);
  }
  fputs(sp_help_outro, stdout);
}

/* Whether the parser accepts the row's option (not a heading, note,
 * argument or second help of an option). */
static int sp_opt_row_parses(const sp_opt_row_t *r) {
  return r->name && (r->flag != SP_OPT_NONE || r->words != SP_OPT_NONE || r->parse);
}

static int sp_parse_one(int argc, char **argv, int *i, sp_options_t *o) {
  char name[64];
  const char *arg = argv[*i];
  const char *inl = sp_opt_split(arg, name, sizeof name);
  for (size_t k = 0; k < SP_OPT_NROWS; k++) {
    const sp_opt_row_t *r = &sp_opt_rows[k];
    if (!sp_opt_row_parses(r) || r->early) continue;
    if (strcmp(name, r->name) != 0 && !(r->alias && strcmp(name, r->alias) == 0)) continue;
    char *base = (char *)o;
    if (r->flag != SP_OPT_NONE) {
      *(int *)(base + r->flag) = 1;
      return 0;
    }
    if (r->words != SP_OPT_NONE)
      return sp_opt_words(argc, argv, i, inl, (const char ***)(base + r->words),
                          (size_t *)(base + r->count), name);
    sp_opt_ctx_t c = {argc, argv, i, inl, name, o};
    return r->parse(&c);
  }
  return sp_usage_error("unknown option '%s'", arg);
}

/* Returns 0 to go on, -1 after --help/--version (exit 0), or an exit code. */
int sp_options_parse(int argc, char **argv, sp_options_t *o) {
  memset(o, 0, sizeof *o);
  o->width = 1600;
  o->html_exact = 1000000; /* SP_HTML_EXACT_MAX */
  /* --help and --version win over any other word, even a wrong one. */
  for (int i = 1; i < argc; i++)
    for (size_t k = 0; k < SP_OPT_NROWS; k++) {
      const sp_opt_row_t *r = &sp_opt_rows[k];
      if (!r->early || (strcmp(argv[i], r->name) && (!r->alias || strcmp(argv[i], r->alias))))
        continue;
      sp_opt_ctx_t c = {argc, argv, &i, NULL, argv[i], o};
      return r->parse(&c);
    }
  for (int i = 1; i < argc; i++) {
    int rc;
    if (argv[i][0] == '-' && argv[i][1] != '\0') {
      rc = sp_parse_one(argc, argv, &i, o);
    } else {
      const char **w = realloc(o->words, (o->nwords + 1) * sizeof *w);
      if (!w) return SP_EXIT_IO;
      o->words = w;
      o->words[o->nwords++] = argv[i];
      o->file = o->words[0];
      rc = 0;
    }
    if (rc) return rc;
  }
  if (!o->file) return sp_usage_error("%s", "no FILE given");
  if (o->end_time > 0 && o->end_time <= o->start_time)
    return sp_usage_error("--end-time %g is not after --start-time %g", o->end_time, o->start_time);
  if (o->export_data && !o->outdir)
    return sp_usage_error("%s", "--export-data needs -o DIR (the data files go beside the charts)");
  if (o->skip_images && !o->export_data)
    return sp_usage_error("%s",
                          "--skip-plot-images needs --export-data (nothing would be written)");
  if (o->waits && (o->list + o->summary + o->tree + o->io + o->values + o->compare + (o->export_row != NULL) > 0))
    return sp_usage_error("%s",
                          "--waits, --list, --summary, --tree, --io, --values and --export all write to stdout: "
                          "choose one");
  if (o->waits && o->nwords != 1) return sp_usage_error("%s", "--waits reads one file");
  if (o->list + o->summary + o->tree + o->io + o->values + o->compare + (o->export_row != NULL) > 1 &&
      !(o->compare && (o->summary || o->tree) && o->list + o->io + o->values + (o->export_row != NULL) == 0))
    return sp_usage_error("%s",
                          "--list, --summary, --tree, --io, --values and --export all write to stdout: "
                          "choose one");
  if (o->export_row && o->export_row->outdir && !o->outdir_given)
    return sp_usage_error("--export %s writes an archive: give -o DIR", o->export_row->name);
  if (o->compare && o->nwords < 2) return sp_usage_error("%s", "--compare needs two or more files");
  if (o->metric_given && !o->compare)
    return sp_usage_error("%s", "--metric applies to --compare (and to check)");
  if (o->by_thread && !o->summary) return sp_usage_error("%s", "--by-thread applies to --summary");
  if ((o->npcts || o->nxcols || o->nvcols) && !o->summary)
    return sp_usage_error("%s", "--columns applies to --summary");
  if (o->nwork_per_rank && !(o->plots & SP_PLOT_WEAK_SCALING))
    return sp_usage_error("%s",
                          "--work-per-rank applies to the weak_scaling chart: add it to --plots");
  /* --work-per-rank declares a weak-scaling study: the strong-scaling charts
   * (a fixed problem) would read it wrongly. Named ones are refused, those
   * of "all" left out with a word. */
  if (o->nwork_per_rank && (o->plots & (SP_PLOT_SPEEDUP_ASKED | SP_PLOT_EFFICIENCY_ASKED)))
    return sp_usage_error("%s",
                          "--work-per-rank declares a weak-scaling study: speedup and "
                          "scaling_efficiency are for a fixed problem size (strong "
                          "scaling); leave them out of --plots");
  if (o->nwork_per_rank && (o->plots & (SP_PLOT_SPEEDUP | SP_PLOT_SCALING_EFFICIENCY))) {
    o->plots &= ~(unsigned)(SP_PLOT_SPEEDUP | SP_PLOT_SCALING_EFFICIENCY);
    sp_msg(SP_NORMAL,
           "--work-per-rank declares a weak-scaling study: speedup and "
           "scaling_efficiency (strong scaling) are not drawn");
  }
  if ((o->plots & SP_PLOT_EFFICIENCY_ASKED) && o->x_field && strcmp(o->x_field, "num_ranks") &&
      strcmp(o->x_field, "omp_num_threads") && strcmp(o->x_field, "total_cores"))
    return sp_usage_error(
        "--plots scaling_efficiency needs --x-field num_ranks, omp_num_threads "
        "or total_cores (not %s): efficiency divides by the scale",
        o->x_field);
  if (!o->outdir && !o->show && !o->list && !o->summary && !o->tree && !o->io && !o->compare &&
      !o->export_row && !o->waits && !o->values)
    o->outdir = ".";
  return 0;
}

void sp_options_free(sp_options_t *o) {
  free(o->words);
  free(o->labels);
  free(o->include);
  free(o->exclude);
  free(o->ranks);
  free(o->work_per_rank);
}
