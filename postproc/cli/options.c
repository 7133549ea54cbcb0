/* options.c - command-line parsing and help of scope-profiler-pproc.
 *
 * Options follow the reference CLI: multi-valued options (--include,
 * --exclude, --ranks) take every following word up to the next one that
 * starts with '-', so the profile file is best given first. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "palette.h"
#include "pproc.h"

static const char sp_usage_text[] =
    "usage: " SP_PROG " FILE [-o DIR] [--show] [--backend plplot|html] [--include PAT...]\n"
    "       [--exclude PAT...] [--ranks SPEC...] [--format png|pdf|svg] [--width PX]\n"
    "       [--height PX] [--start-time S] [--end-time S] [--cmap NAME]\n"
    "       [--summary [--sort-by KEY]] [--export csv|chrome-trace] [--list]\n"
    "       [--html-exact N] [-q|-v]\n"
    "       " SP_PROG " merge [-f] [-o OUT.h5] SPILL_DIR_OR_FILE...\n";

static const char sp_help_text[] =
    "Draw a Gantt chart, a summary table or an export of a scope-profiler HDF5 file.\n"
    "\n"
    "Arguments:\n"
    "  FILE                   profile written by scope-profiler (profiling_data.h5)\n"
    "\n"
    "Gantt chart (one lane per region and rank, and per thread where a region ran\n"
    "on several threads of a rank):\n"
    "  -o, --output DIR       write DIR/gantt_plot.<format> (DIR is created if missing)\n"
    "      --show             open an interactive PLplot window (needs $DISPLAY)\n"
    "      --format FMT       png (default), pdf or svg\n"
    "      --width PX         image width in pixels (points for pdf/svg), default 1600\n"
    "      --height PX        image height; default 16 px per lane, within 480..2400\n"
    "      --start-time S     draw only from S seconds since the first start\n"
    "      --end-time S       draw only up to S seconds (default: the last end)\n"
    "      --cmap NAME        region colours: tab10, tab20, viridis, plasma or Set3,\n"
    "                         sampled evenly over the sorted region names (default\n"
    "                         tab10 up to 10 regions, tab20 up to 20, then viridis)\n"
    "  With none of -o, --show, --summary, --export, --list: same as -o .\n"
    "\n"
    "Interactive report:\n"
    "      --backend html     -o DIR writes DIR/report.html instead: one self-contained\n"
    "                         file (no network) with the zoomable timeline of every\n"
    "                         region, rank and thread, a tooltip per bar and the\n"
    "                         duration bars; large traces are embedded as busy\n"
    "                         fractions per time bin. With --show: opens it with\n"
    "                         xdg-open, or prints its path (-o . when no -o).\n"
    "      --html-exact N     intervals embedded exactly, smallest lanes first\n"
    "                         (default 1000000); the other lanes are binned\n"
    "      --backend plplot   the charts above (default)\n"
    "\n"
    "Selection (applies to every output):\n"
    "  -i, --include PAT...   keep regions whose name matches a pattern\n"
    "  -e, --exclude PAT...   drop regions whose name matches a pattern\n"
    "                         PAT: POSIX extended regex matched at the start of the\n"
    "                         name (as Python re.match): 'solver' keeps 'solver_step'\n"
    "  -r, --ranks SPEC...    ranks to keep: 0-3, 0,2,4-7 or several words (0 2 5-6)\n"
    "\n"
    "Text outputs (on stdout, one at a time; redirect with >):\n"
    "      --summary          per region over the selected ranks: calls, total_s,\n"
    "                         mean_s, min_s, max_s (per call), imbalance, region.\n"
    "                         imbalance = (max - mean) / max of per-rank totals; ranks\n"
    "                         without the region count as 0. Name is the last column.\n"
    "                         When the file has LIKWID results, a second table follows\n"
    "                         with one row per region and event: ranks (that have\n"
    "                         it), calls and time_s (LIKWID's, summed over ranks and\n"
    "                         threads), sum (over ranks and threads), rank_min and\n"
    "                         rank_max (per-rank sums), event, region.\n"
    "      --sort-by KEY      start (default: first start), name, calls, total, mean,\n"
    "                         min, max or imbalance (numbers descending)\n"
    "      --export csv       one row per interval: rank,region,start_s,end_s\n"
    "      --export chrome-trace\n"
    "                         JSON for Perfetto / chrome://tracing (pid = rank,\n"
    "                         tid = thread)\n"
    "      --list             one line per lane, in chart order:\n"
    "                         lane rank intervals region\n"
    "  Times are seconds since the first start in the selection.\n"
    "\n"
    "Crash recovery (scope-profiler-pproc merge --help):\n"
    "  merge [-f] [-o OUT.h5] SPILL...\n"
    "                         rebuild the profile (default profiling_data.h5) from\n"
    "                         the spill files of a run that died before sp_finalize\n"
    "                         (<file>.spill/ directories or *.spill files); serial,\n"
    "                         no MPI; -f replaces an existing OUT.h5\n"
    "\n"
    "Other:\n"
    "  -q, --quiet            only errors on stderr\n"
    "  -v, --verbose          also timings and details on stderr\n"
    "  -h, --help             this help\n"
    "  -V, --version          version\n"
    "\n"
    "Lanes are ordered by region first start, then rank, then thread (label\n"
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
    "(also a --ranks rank the file lacks or an invalid pattern), 3 I/O or plotting\n"
    "failure (missing or unreadable FILE, FILE not a regular file or locked by a\n"
    "writer, unwritable output or full disk, no display for --show).\n";

void sp_usage_short(void) {
  fputs(sp_usage_text, stderr);
  fputs("Try '" SP_PROG " --help' for more information.\n", stderr);
}

void sp_help(void) {
  fputs(sp_usage_text, stdout);
  fputc('\n', stdout);
  fputs(sp_help_text, stdout);
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

static int sp_parse_choice(const char *v, const char *const *names, int n) {
  for (int k = 0; v && k < n; k++)
    if (strcmp(v, names[k]) == 0) return k;
  return -1;
}

static int sp_parse_one(int argc, char **argv, int *i, sp_options_t *o) {
  static const char *const formats[] = {"png", "pdf", "svg"};
  static const char *const exports[] = {"", "csv", "chrome-trace"};
  static const char *const sorts[] = {"start", "name", "calls", "total",
                                      "mean",  "min",  "max",   "imbalance"};
  char name[64];
  const char *arg = argv[*i];
  const char *inl = sp_opt_split(arg, name, sizeof name);
  if (!strcmp(name, "-o") || !strcmp(name, "--output")) {
    if (!(o->outdir = sp_opt_value(argc, argv, i, inl)) || !*o->outdir)
      return sp_usage_error("option %s needs a directory", name);
  } else if (!strcmp(name, "--show")) {
    o->show = 1;
  } else if (!strcmp(name, "-i") || !strcmp(name, "--include")) {
    return sp_opt_words(argc, argv, i, inl, &o->include, &o->ninclude, name);
  } else if (!strcmp(name, "-e") || !strcmp(name, "--exclude")) {
    return sp_opt_words(argc, argv, i, inl, &o->exclude, &o->nexclude, name);
  } else if (!strcmp(name, "-r") || !strcmp(name, "--ranks")) {
    return sp_opt_words(argc, argv, i, inl, &o->ranks, &o->nranks, name);
  } else if (!strcmp(name, "--format")) {
    int k = sp_parse_choice(sp_opt_value(argc, argv, i, inl), formats, 3);
    if (k < 0) return sp_usage_error("%s expects png, pdf or svg", name);
    o->format = (sp_format_t)k;
  } else if (!strcmp(name, "--width") || !strcmp(name, "--height")) {
    int *dst = name[2] == 'w' ? &o->width : &o->height;
    int ok = sp_parse_size(sp_opt_value(argc, argv, i, inl), dst) == 0 &&
             (*dst >= 64 || (dst == &o->height && *dst == 0));
    if (!ok) return sp_usage_error("%s expects a number of pixels between 64 and 20000", name);
  } else if (!strcmp(name, "--backend")) {
    static const char *const backends[] = {"plplot", "html"};
    int k = sp_parse_choice(sp_opt_value(argc, argv, i, inl), backends, 2);
    if (k < 0) return sp_usage_error("%s expects plplot or html", name);
    o->backend = (sp_backend_t)k;
  } else if (!strcmp(name, "--html-exact")) {
    const char *v = sp_opt_value(argc, argv, i, inl);
    char *end;
    long x = v ? strtol(v, &end, 10) : -1;
    if (!v || *end || x < 0 || x > 100000000L)
      return sp_usage_error("%s expects a number of intervals between 0 and 100000000", name);
    o->html_exact = x;
  } else if (!strcmp(name, "--summary")) {
    o->summary = 1;
  } else if (!strcmp(name, "--sort-by")) {
    int k = sp_parse_choice(sp_opt_value(argc, argv, i, inl), sorts, 8);
    if (k < 0)
      return sp_usage_error("%s expects start, name, calls, total, mean, min, max or imbalance",
                            name);
    o->sort = (sp_sort_t)k;
  } else if (!strcmp(name, "--export")) {
    int k = sp_parse_choice(sp_opt_value(argc, argv, i, inl), exports, 3);
    if (k <= 0) return sp_usage_error("%s expects csv or chrome-trace", name);
    o->export_kind = (sp_export_t)k;
  } else if (!strcmp(name, "--list")) {
    o->list = 1;
  } else if (!strcmp(name, "--start-time") || !strcmp(name, "--end-time")) {
    double *dst = name[2] == 's' ? &o->start_time : &o->end_time;
    if (sp_parse_seconds(sp_opt_value(argc, argv, i, inl), dst) != 0 ||
        (dst == &o->end_time && *dst <= 0))
      return sp_usage_error("%s expects seconds since the first start (a number >= 0)", name);
  } else if (!strcmp(name, "--cmap")) {
    const char *v = sp_opt_value(argc, argv, i, inl);
    if (!sp_palette_known(v)) return sp_usage_error("%s expects %s", name, sp_palette_names());
    o->cmap = v;
  } else if (!strcmp(name, "-q") || !strcmp(name, "--quiet")) {
    sp_msg_set_level(SP_QUIET);
  } else if (!strcmp(name, "-v") || !strcmp(name, "--verbose")) {
    sp_msg_set_level(SP_VERBOSE);
  } else {
    return sp_usage_error("unknown option '%s'", arg);
  }
  return 0;
}

/* Returns 0 to go on, -1 after --help/--version (exit 0), or an exit code. */
int sp_options_parse(int argc, char **argv, sp_options_t *o) {
  memset(o, 0, sizeof *o);
  o->width = 1600;
  o->html_exact = 1000000; /* SP_HTML_EXACT_MAX */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      sp_help();
      return -1;
    }
    if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
      printf("%s %s\n", SP_PROG, sp_reader_version_string());
      return -1;
    }
  }
  for (int i = 1; i < argc; i++) {
    int rc;
    if (argv[i][0] == '-' && argv[i][1] != '\0') {
      rc = sp_parse_one(argc, argv, &i, o);
    } else if (o->file) {
      rc = sp_usage_error("more than one FILE given ('%s')", argv[i]);
    } else {
      o->file = argv[i];
      rc = 0;
    }
    if (rc) return rc;
  }
  if (!o->file) return sp_usage_error("%s", "no FILE given");
  if (o->end_time > 0 && o->end_time <= o->start_time)
    return sp_usage_error("--end-time %g is not after --start-time %g", o->end_time,
                          o->start_time);
  if (o->list + o->summary + (o->export_kind != SP_EXPORT_NONE) > 1)
    return sp_usage_error("%s", "--list, --summary and --export all write to stdout: choose one");
  if (!o->outdir && !o->show && !o->list && !o->summary && o->export_kind == SP_EXPORT_NONE)
    o->outdir = ".";
  return 0;
}

void sp_options_free(sp_options_t *o) {
  free(o->include);
  free(o->exclude);
  free(o->ranks);
}
