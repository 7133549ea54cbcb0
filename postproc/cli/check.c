/* check.c - "scope-profiler-pproc check BASE NEW --max-regression P%":
 * a regression gate for CI jobs. Per region (by name) the metric of NEW is
 * compared with BASE (metric.h: by default each rank's time, mean over the
 * ranks); a region slower by more than P percent fails the check (exit 1),
 * as does, with --fail-on-new, a region BASE lacks. Regions under the
 * noise floor in BASE (a share of the run's wall time per rank, or an
 * absolute time per rank) are shown but never judged. The table of every
 * region goes to stdout, the failures to stderr.
 *
 * Selection options (--include, --exclude, --ranks) and --format are those
 * of the report command and apply to both files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metric.h"
#include "pproc.h"

/* The default noise floor: a region of BASE under 0.1% of the run or
 * under 100 us per rank is not judged (a microsecond setup region varies
 * by tens of percent between two runs of the same program). */
#define SP_CHECK_MIN_SHARE 0.1
#define SP_CHECK_MIN_SECONDS 1e-4

typedef struct sp_check {
  double max_regression; /* percent */
  double min_seconds;    /* regions below this per rank in BASE are not judged */
  double min_share;      /* nor those below this percentage of the run */
  double floor_ns;       /* the floor of this BASE: the larger of both, ns per rank */
  int fail_on_new;
  sp_metric_t metric;
} sp_check_t;

static const char sp_check_usage[] =
    "usage: " SP_PROG
    " check BASE NEW --max-regression P[%] [--fail-on-new]\n"
    "       [--metric rank_mean|rank_max|total|self|calls|mean] [--min-seconds S]\n"
    "       [--min-share P%] [--include PAT...] [--exclude PAT...] [--ranks SPEC...]\n"
    "       [--format text|tsv|csv|json] [-q]\n";

static const char sp_check_help[] =
    "Compare NEW with BASE per region and fail (exit 1) when a region got slower.\n"
    "\n"
    "  --max-regression P    allowed slowdown in percent (5% or 5): a region fails\n"
    "                        when NEW > BASE x (1 + P/100) (slower); it is faster\n"
    "                        when NEW < BASE x (1 - P/100), else ok\n"
    "  --metric M            rank_mean (default: each rank's time summed over its\n"
    "                        threads, mean over the selected ranks), rank_max\n"
    "                        (slowest rank), total (summed over ranks and\n"
    "                        threads), self (exclusive, mean per rank), calls\n"
    "                        (mean per rank) or mean (seconds per call). For\n"
    "                        codes that run for a fixed time (a number of steps\n"
    "                        that depends on the speed) use mean: the other\n"
    "                        metrics compare different amounts of work\n"
    "  --fail-on-new         also fail on regions BASE does not have\n"
    "  --min-seconds S       noise floor: do not judge regions below S seconds\n"
    "                        per rank in BASE (default 0.0001)\n"
    "  --min-share P         nor regions below P percent of BASE's wall time per\n"
    "                        rank (default 0.1%); 0 and 0 judge every region\n"
    "Output: base_s new_s (base_calls new_calls with --metric calls) change_%\n"
    "status region; status ok, slower, faster, new,\n"
    "gone, untimed or noise (under the floor, not judged); the header says the\n"
    "metric and the floor. Exit status: 0 no regression, 1 regression (or bad\n"
    "input data), 2 usage error, 3 I/O failure.\n";

static int sp_check_usage_error(const char *msg, const char *arg) {
  fprintf(stderr, SP_PROG ": check: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
  fputs(sp_check_usage, stderr);
  return SP_EXIT_USAGE;
}

/* Takes the check options out of argv; the rest is left for sp_options_parse. */
static int sp_check_args(int argc, char **argv, sp_check_t *c, char **rest, int *nrest) {
  int have_max = 0;
  *nrest = 0;
  rest[(*nrest)++] = argv[0];
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    char *end;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(sp_check_usage, stdout);
      fputc('\n', stdout);
      fputs(sp_check_help, stdout);
      return -1;
    } else if (!strcmp(a, "--max-regression")) {
      c->max_regression = v ? strtod(v, &end) : -1;
      if (!v || end == v || (*end && strcmp(end, "%")) || c->max_regression < 0)
        return sp_check_usage_error("--max-regression expects a percentage such as 5%, got",
                                    v ? v : "nothing");
      have_max = 1;
      i++;
    } else if (!strcmp(a, "--min-seconds")) {
      c->min_seconds = v ? strtod(v, &end) : -1;
      if (!v || end == v || *end || c->min_seconds < 0)
        return sp_check_usage_error("--min-seconds expects seconds, got", v ? v : "nothing");
      i++;
    } else if (!strcmp(a, "--min-share")) {
      c->min_share = v ? strtod(v, &end) : -1;
      if (!v || end == v || (*end && strcmp(end, "%")) || c->min_share < 0 || c->min_share > 100)
        return sp_check_usage_error("--min-share expects a percentage such as 0.1%, got",
                                    v ? v : "nothing");
      i++;
    } else if (!strcmp(a, "--metric")) {
      if (sp_metric_parse(v, &c->metric) != 0)
        return sp_check_usage_error("--metric expects rank_mean, rank_max, total, self, calls or "
                                    "mean, got",
                                    v ? v : "nothing");
      i++;
    } else if (!strcmp(a, "--fail-on-new")) {
      c->fail_on_new = 1;
    } else {
      rest[(*nrest)++] = argv[i];
    }
  }
  if (!have_max) return sp_check_usage_error("--max-regression is required", NULL);
  return 0;
}

static const sp_figure_t *sp_figure_find(const sp_figure_t *v, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(v[i].name, name) == 0) return &v[i];
  return NULL;
}

/* One row; returns 1 when the row fails the check. */
static int sp_check_row(sp_table_t *tb, const sp_check_t *c, const sp_figure_t *b,
                        const sp_figure_t *n, const char *name) {
  sp_cell_t cell[5];
  memset(cell, 0, sizeof cell);
  double bv = b && b->timed ? sp_metric_of_figure(b, c->metric) : -1;
  double nv = n && n->timed ? sp_metric_of_figure(n, c->metric) : -1;
  double scale = sp_metric_is_count(c->metric) ? 1.0 : 1e-9;
  cell[0] = (sp_cell_t){bv < 0, 0, scale * bv, NULL};
  cell[1] = (sp_cell_t){nv < 0, 0, scale * nv, NULL};
  cell[2] = (sp_cell_t){bv <= 0 || nv<0, 0, bv> 0 ? 100.0 * (nv / bv - 1.0) : 0, NULL};
  const char *status = "ok";
  int fail = 0;
  if (!b) {
    status = "new";
    fail = c->fail_on_new;
  } else if (!n) {
    status = "gone";
  } else if (bv < 0 || nv < 0) {
    status = "untimed";
  } else if (b->rank_mean < c->floor_ns) {
    status = "noise"; /* under the floor: shown, never judged */
  } else if (bv > 0 && nv > bv * (1.0 + c->max_regression / 100.0)) {
    status = "slower";
    fail = 1;
  } else if (nv < bv * (1.0 - c->max_regression / 100.0)) {
    /* The same band both ways: a change within +-P is "ok", so the two
     * windows of one run, or two runs of one build, that differ by noise
     * are not called faster any more than slower. */
    status = "faster";
  }
  cell[3].s = status;
  cell[4].s = name;
  sp_table_row(tb, cell);
  if (fail && b)
    sp_msg(SP_QUIET, "check: %s: %.2f%% slower (%.9f -> %.9f %s)", name, cell[2].d, scale * bv,
           scale * nv, scale == 1.0 ? "calls" : "s");
  else if (fail)
    sp_msg(SP_QUIET, "check: %s: new region (not in BASE)", name);
  return fail;
}

/* Leaves out the regions without a call: an aggregate file may name a
 * region registered but never entered, which the trace of the same run
 * does not hold; it is no "new" region, nor a "gone" one. */
static int sp_figures_called(sp_figure_t *v, int n) {
  int m = 0;
  for (int i = 0; i < n; i++)
    if (v[i].calls > 0) v[m++] = v[i];
  return m;
}

static int sp_check_run(const sp_selection_t *sels, sp_check_t *c, const sp_options_t *o) {
  /* A count (--metric calls) is no time: its columns say so. */
  int count = sp_metric_is_count(c->metric);
  const sp_col_t cols[] = {{count ? "base_calls" : "base_s", count ? SP_COL_RATIO : SP_COL_SEC, 14},
                           {count ? "new_calls" : "new_s", count ? SP_COL_RATIO : SP_COL_SEC, 14},
                           {"change_%", SP_COL_PCT, 9},
                           {"status", SP_COL_STR, 7},
                           {"region", SP_COL_STR, 0}};
  sp_figure_t *fb = NULL, *fn = NULL;
  int nb = 0, nn = 0;
  double wall = 0;
  int rc = sp_figures_compute_wall(&sels[0], &fb, &nb, &wall);
  if (rc == 0) rc = sp_figures_compute(&sels[1], &fn, &nn);
  if (rc == 0) {
    nb = sp_figures_called(fb, nb);
    nn = sp_figures_called(fn, nn);
  }
  int failed = 0;
  if (rc == 0) {
    char note[768], rb[256], rn[256];
    double rank_wall = sels[0].nranks ? wall / sels[0].nranks : 0.0;
    double by_share = rank_wall * c->min_share / 100.0;
    c->floor_ns = 1e9 * c->min_seconds > by_share ? 1e9 * c->min_seconds : by_share;
    sp_metric_rule(c->metric, sels[0].nranks, rb, sizeof rb);
    sp_metric_rule(c->metric, sels[1].nranks, rn, sizeof rn);
    snprintf(note, sizeof note,
             "# metric %s; allowed regression %g%%\n# BASE: %s\n# NEW: %s\n"
             "# noise floor: regions under %g%% of BASE's wall time per rank (%.9f s) or under "
             "%g s per rank in BASE are not judged (status noise)",
             sp_metric_name(c->metric), c->max_regression, rb, rn, c->min_share,
             1e-9 * by_share, c->min_seconds);
    sp_table_t tb;
    sp_table_begin(&tb, o->table, cols, 5, note);
    for (int i = 0; i < nn; i++)
      failed += sp_check_row(&tb, c, sp_figure_find(fb, nb, fn[i].name), &fn[i], fn[i].name);
    for (int i = 0; i < nb; i++)
      if (!sp_figure_find(fn, nn, fb[i].name))
        failed += sp_check_row(&tb, c, &fb[i], NULL, fb[i].name);
    sp_table_end(&tb);
  }
  free(fb);
  free(fn);
  if (rc == 0 && failed) {
    sp_msg(SP_QUIET, "check failed: %d region%s over the limit", failed, failed == 1 ? "" : "s");
    rc = SP_EXIT_DATA;
  }
  return rc;
}

int sp_check_main(int argc, char **argv) {
  sp_check_t c = {0, SP_CHECK_MIN_SECONDS, SP_CHECK_MIN_SHARE, 0, 0, SP_METRIC_RANK_MEAN};
  char **rest = malloc((size_t)(argc + 1) * sizeof *rest);
  int nrest = 0;
  if (!rest) return SP_EXIT_IO;
  int rc = sp_check_args(argc, argv, &c, rest, &nrest);
  sp_options_t o;
  memset(&o, 0, sizeof o);
  if (rc == 0) rc = sp_options_parse(nrest, rest, &o);
  if (rc == 0 && (o.nwords != 2 || o.list || o.summary || o.tree || o.compare || o.outdir_given ||
                  o.show || o.export_row))
    rc = sp_check_usage_error("expects BASE NEW and only selection and --format options", NULL);
  sp_selection_t sels[2];
  memset(sels, 0, sizeof sels);
  for (int k = 0; rc == 0 && k < 2; k++) {
    sp_options_t one = o;
    one.file = o.words[k];
    rc = sp_selection_build(&one, &sels[k]);
  }
  if (rc == 0) rc = sp_check_run(sels, &c, &o);
  if (rc == 0 && fflush(stdout) != 0) rc = SP_EXIT_IO;
  sp_selection_free(&sels[0]);
  sp_selection_free(&sels[1]);
  sp_options_free(&o);
  free(rest);
  return rc < 0 ? SP_EXIT_OK : rc;
}
