/* export_data.c - --export-data: the data behind the charts, under -o DIR.
 *
 * Files and columns as the reference tool writes them:
 *   gantt_data      file,rank,region,start_seconds,end_seconds
 *                   (seconds since the file's first start, one row per call)
 *   flame_data      file,rank,region,depth,start_seconds,end_seconds
 *                   (the flame chart's ranks; depth as flame_calls.c gives it)
 *   durations_data  file,region,metric,value_seconds
 *                   (the regions common to all files, the chosen metrics;
 *                   with total also total_per_rank, the durations chart's
 *                   bar: per rank its busiest thread's outermost calls,
 *                   mean over the ranks)
 *   speedup_data    region,<x_field>,speedup (with several files)
 *   weak_scaling_data        region,<x_field>,normalized_runtime
 *   scaling_efficiency_data  region,<x_field>,efficiency
 *                   (with several files, when --plots names the chart or all;
 *                   not written, and said so, when no region has a value)
 * As .csv (a header line, RFC 4180 quoting) or .json: an object with
 * "columns", "data" (one object per row, keys the column names) and
 * "colors" (region name -> "#rrggbb", the charts' colours); the scaling
 * files add "options" (x_field, baseline, and work_per_rank when given),
 * as the reference tool does. Each file is written under a temporary name
 * and renamed when complete. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "charts.h"
#include "flame_calls.h"
#include "output_file.h"
#include "palette.h"

typedef struct sp_data_file {
  FILE *f;
  int json;
  int64_t rows;
  const char *const *cols;
  int ncols;
  char path[SP_PATH_MAX];
  char tmp[SP_PATH_MAX + 32];
  /* JSON "options" of the scaling files: x field, baseline x, work per rank. */
  const char *opt_field;    /* NULL = no "options" */
  const char *opt_baseline; /* x of the baseline, as text */
  int opt_numeric;          /* the baseline is a number */
  double opt_work;          /* --work-per-rank; 0 = not given */
} sp_data_file_t;

static int sp_data_open(sp_data_file_t *d, const sp_options_t *o, const char *name,
                        const char *const *cols, int ncols) {
  memset(d, 0, sizeof *d);
  d->json = o->data_json;
  d->cols = cols;
  d->ncols = ncols;
  int rc = sp_chart_path(o->outdir, name, d->json ? "json" : "csv", d->path);
  if (rc) return rc;
  if (sp_output_temp(d->path, d->tmp, sizeof d->tmp) != 0 || !(d->f = fopen(d->tmp, "w"))) {
    sp_msg(SP_QUIET, "cannot write %s: %s", d->path, strerror(errno));
    if (d->tmp[0]) remove(d->tmp);
    return SP_EXIT_IO;
  }
  if (d->json) {
    fputs("{\"columns\":[", d->f);
    for (int i = 0; i < ncols; i++) fprintf(d->f, "%s\"%s\"", i ? "," : "", cols[i]);
    fputs("],\n\"data\":[", d->f);
  } else {
    for (int i = 0; i < ncols; i++) fprintf(d->f, "%s%s", i ? "," : "", cols[i]);
    fputc('\n', d->f);
  }
  return 0;
}

/* A text field: CSV quoted when needed, JSON a string (text_safe.c). */
static void sp_data_text(FILE *f, int json, const char *s) {
  int quote = json || strpbrk(s, ",\"\r\n") != NULL;
  if (quote) fputc('"', f);
  sp_text_put(f, s, json ? SP_TEXT_JSON : SP_TEXT_CSV);
  if (quote) fputc('"', f);
}

/* Begins a row and writes its first key; fields after it with sp_data_key. */
static void sp_data_key(sp_data_file_t *d, int col) {
  if (col == 0) {
    if (d->json) fputs(d->rows ? ",\n{" : "\n{", d->f);
    d->rows++;
  } else {
    fputc(',', d->f);
  }
  if (d->json) fprintf(d->f, "\"%s\":", d->cols[col]);
}

static void sp_data_end_row(sp_data_file_t *d) { fputs(d->json ? "}" : "\n", d->f); }

/* Closes: the JSON tail with the colours, then sync and rename when rc is 0. */
static int sp_data_close(sp_data_file_t *d, const sp_charts_t *c, int rc) {
  if (rc == 0 && d->json) {
    fputs("\n],", d->f);
    if (d->opt_field) {
      fputs("\n\"options\":{\"x_field\":", d->f);
      sp_data_text(d->f, 1, d->opt_field);
      fputs(",\"baseline\":", d->f);
      if (d->opt_numeric)
        fputs(d->opt_baseline, d->f);
      else
        sp_data_text(d->f, 1, d->opt_baseline);
      if (d->opt_work > 0) fprintf(d->f, ",\"work_per_rank\":%.17g", d->opt_work);
      fputs("},", d->f);
    }
    fputs("\n\"colors\":{", d->f);
    for (int i = 0; i < c->o->ncolour_names; i++) {
      char hex[8];
      sp_palette_hex(c->rgb + 3 * i, hex);
      fputs(i ? ",\n" : "\n", d->f);
      sp_data_text(d->f, 1, c->o->colour_names[i]);
      fprintf(d->f, ":\"%s\"", hex);
    }
    fputs("\n}}\n", d->f);
  }
  int bad = fflush(d->f) != 0 || ferror(d->f) || fsync(fileno(d->f)) != 0;
  bad |= fclose(d->f) != 0;
  if (rc == 0 && bad) {
    sp_msg(SP_QUIET, "cannot write %s: %s", d->path, strerror(errno ? errno : EIO));
    rc = SP_EXIT_IO;
  }
  if (rc == 0 && rename(d->tmp, d->path) != 0) {
    sp_msg(SP_QUIET, "cannot write %s: %s", d->path, strerror(errno));
    rc = SP_EXIT_IO;
  }
  if (rc != 0)
    remove(d->tmp);
  else
    sp_msg(SP_NORMAL, "wrote %s", d->path);
  return rc;
}

/* gantt_data rows of n calls of one lane. */
static void sp_gantt_rows(sp_data_file_t *d, const char *label, int rank, const char *name,
                          int64_t t0, const int64_t *s, const int64_t *e, int64_t n) {
  for (int64_t k = 0; k < n; k++) {
    sp_data_key(d, 0);
    sp_data_text(d->f, d->json, label);
    sp_data_key(d, 1);
    fprintf(d->f, "%d", rank);
    sp_data_key(d, 2);
    sp_data_text(d->f, d->json, name);
    sp_data_key(d, 3);
    fprintf(d->f, "%.9f", 1e-9 * sp_ns_between(t0, s[k]));
    sp_data_key(d, 4);
    fprintf(d->f, "%.9f", 1e-9 * sp_ns_between(t0, e[k]));
    sp_data_end_row(d);
  }
}

/* Calls of a lane read at a time: gantt_data's memory stays flat in the
 * calls per lane (a lane loaded whole took 20 bytes a call, issue 47). */
enum { SP_GANTT_CHUNK = 65536 };

/* Lane i of sel in chunks (sp_reader_read_range, as --export csv); the
 * reference tool's delta-encoded columns, which it refuses, whole. */
static int sp_gantt_lane(sp_data_file_t *d, const sp_selection_t *sel, int i, const char *label,
                         int64_t *buf) {
  const sp_lane_t *ln = &sel->lanes[i];
  int rank = sp_reader_rank_id(sel->reader, ln->rank);
  const char *name = sp_reader_region_name(sel->reader, ln->region);
  int64_t *s = buf, *e = buf + SP_GANTT_CHUNK;
  for (int64_t at = 0;;) {
    int64_t n =
        sp_reader_read_range(sel->reader, ln->region, ln->rank, at, SP_GANTT_CHUNK, s, e, NULL);
    if (n == SP_READER_EINVAL && at == 0) break;
    if (n < 0) {
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
      return sp_exit_for_reader((int)n);
    }
    if (n == 0) return 0;
    sp_gantt_rows(d, label, rank, name, sel->t0, s, e, n);
    at += n;
  }
  sp_reader_intervals_t iv;
  int rc = sp_load_intervals(sel->reader, ln->region, ln->rank, &iv);
  if (rc != 0) return rc;
  sp_gantt_rows(d, label, rank, name, sel->t0, iv.start, iv.end, iv.n);
  sp_reader_intervals_free(&iv);
  return 0;
}

static int sp_gantt_data(const sp_charts_t *c) {
  static const char *const cols[] = {"file", "rank", "region", "start_seconds", "end_seconds"};
  sp_data_file_t d;
  int64_t *buf = malloc(2 * SP_GANTT_CHUNK * sizeof *buf);
  int rc = buf ? sp_data_open(&d, c->o, "gantt_data", cols, 5) : SP_EXIT_IO;
  if (!buf) {
    sp_msg(SP_QUIET, "out of memory");
    return rc;
  }
  for (int fi = 0; rc == 0 && fi < c->nfiles; fi++) {
    const sp_selection_t *sel = &c->sels[fi];
    for (int i = 0; rc == 0 && i < sel->nlanes; i++)
      rc = sp_gantt_lane(&d, sel, i, c->labels[fi], buf);
  }
  free(buf);
  return d.f ? sp_data_close(&d, c, rc) : rc;
}

static int sp_flame_data(const sp_charts_t *c) {
  static const char *const cols[] = {"file",  "rank",          "region",
                                     "depth", "start_seconds", "end_seconds"};
  sp_data_file_t d;
  int rc = sp_data_open(&d, c->o, "flame_data", cols, 6);
  for (int fi = 0; rc == 0 && fi < c->nfiles; fi++) {
    const sp_selection_t *sel = &c->sels[fi];
    const int *ranks;
    int nfr = sp_flame_ranks(sel, c->o, &ranks);
    for (int p = 0; rc == 0 && p < nfr; p++) {
      sp_flame_calls_t fc;
      rc = sp_flame_calls_load(sel, p, &fc);
      int rank = sp_reader_rank_id(sel->reader, ranks[p]);
      for (int64_t k = 0; rc == 0 && k < fc.n; k++) {
        const sp_flame_call_t *call = &fc.call[k];
        sp_data_key(&d, 0);
        sp_data_text(d.f, d.json, c->labels[fi]);
        sp_data_key(&d, 1);
        fprintf(d.f, "%d", rank);
        sp_data_key(&d, 2);
        sp_data_text(d.f, d.json, sp_reader_region_name(sel->reader, sel->regions[call->row]));
        sp_data_key(&d, 3);
        fprintf(d.f, "%d", (int)call->depth);
        sp_data_key(&d, 4);
        fprintf(d.f, "%.9f", 1e-9 * sp_ns_between(sel->t0, call->start));
        sp_data_key(&d, 5);
        fprintf(d.f, "%.9f", 1e-9 * sp_ns_between(sel->t0, call->end));
        sp_data_end_row(&d);
      }
      if (rc == 0) sp_flame_calls_free(&fc);
    }
  }
  return d.f ? sp_data_close(&d, c, rc) : rc;
}

static int sp_durations_data(const sp_charts_t *c) {
  static const char *const cols[] = {"file", "region", "metric", "value_seconds"};
  unsigned m = c->o->metrics ? c->o->metrics : (1u << SP_DUR_NMETRICS) - 1;
  sp_data_file_t d;
  int rc = sp_data_open(&d, c->o, "durations_data", cols, 4);
  for (int fi = 0; rc == 0 && fi < c->nfiles; fi++) {
    const sp_selection_t *sel = &c->sels[fi];
    for (int j = 0; j < c->ncommon; j++) {
      int row = c->common[(size_t)fi * c->ncommon + j];
      for (int k = 0; k < SP_DUR_NMETRICS; k++) {
        double v = sp_chart_stats_metric(&c->stats[fi], row, k);
        if (!(m & (1u << k)) || !isfinite(v)) continue;
        sp_data_key(&d, 0);
        sp_data_text(d.f, d.json, c->labels[fi]);
        sp_data_key(&d, 1);
        sp_data_text(d.f, d.json, sp_reader_region_name(sel->reader, sel->regions[row]));
        sp_data_key(&d, 2);
        sp_data_text(d.f, d.json, sp_dur_metric_names[k]);
        sp_data_key(&d, 3);
        fprintf(d.f, "%.9f", v);
        sp_data_end_row(&d);
      }
      double v = sp_chart_stats_rank_total(&c->stats[fi], row); /* the chart's total bar */
      if (!(m & (1u << SP_DUR_TOTAL)) || !isfinite(v)) continue;
      sp_data_key(&d, 0);
      sp_data_text(d.f, d.json, c->labels[fi]);
      sp_data_key(&d, 1);
      sp_data_text(d.f, d.json, sp_reader_region_name(sel->reader, sel->regions[row]));
      sp_data_key(&d, 2);
      sp_data_text(d.f, d.json, "total_per_rank");
      sp_data_key(&d, 3);
      fprintf(d.f, "%.9f", v);
      sp_data_end_row(&d);
    }
  }
  return d.f ? sp_data_close(&d, c, rc) : rc;
}

/* One scaling data file: region,<x_field>,<value> per common region and x. */
static int sp_scaling_data(const sp_charts_t *c, sp_scaling_kind_t kind, const char *name) {
  double work = 0;
  int rc = kind == SP_SCALING_WEAK ? sp_scaling_work(c, &work) : 0;
  if (rc) return rc;
  sp_speedup_t sp;
  rc = sp_speedup_compute(c, &sp);
  if (rc) return rc;
  if (kind == SP_SCALING_EFFICIENCY && !sp.numeric) {
    sp_msg(SP_QUIET, "%s: --x-field %s is not a number in every file", name, sp.field);
    sp_speedup_free(&sp);
    return SP_EXIT_DATA;
  }
  /* No region with a line: no file (not a header alone), as the reference tool. */
  if (!sp_scaling_any_line(c, &sp, kind)) {
    sp_msg(SP_QUIET, "%s: not written: no common region has a timed call at the baseline %s = %s",
           name, sp.field, sp.label);
    sp_speedup_free(&sp);
    return 0;
  }
  const char *cols[3] = {"region", sp.field, sp_scaling_column(kind)};
  sp_data_file_t d;
  rc = sp_data_open(&d, c->o, name, cols, 3);
  if (rc == 0 && kind != SP_SCALING_SPEEDUP) {
    d.opt_field = sp.field;
    d.opt_baseline = sp.label;
    d.opt_numeric = sp.numeric;
    d.opt_work = work;
  }
  const sp_selection_t *sel = &c->sels[0];
  for (int j = 0; rc == 0 && j < c->ncommon; j++)
    for (int g = 0; g < sp.ngroups; g++) {
      double v = sp_scaling_value(&sp, kind, j, g);
      if (!isfinite(v)) continue;
      sp_data_key(&d, 0);
      sp_data_text(d.f, d.json, sp_reader_region_name(sel->reader, sel->regions[c->common[j]]));
      sp_data_key(&d, 1);
      if (sp.numeric)
        fputs(sp.label + (size_t)g * 128, d.f);
      else
        sp_data_text(d.f, d.json, sp.label + (size_t)g * 128);
      sp_data_key(&d, 2);
      fprintf(d.f, "%.9f", v);
      sp_data_end_row(&d);
    }
  rc = d.f ? sp_data_close(&d, c, rc) : rc;
  sp_speedup_free(&sp);
  return rc;
}

int sp_export_data(const sp_charts_t *c) {
  int rc = sp_gantt_data(c);
  if (rc == 0) rc = sp_flame_data(c);
  if (rc == 0) rc = sp_durations_data(c);
  int several = c->nfiles > 1 && c->ncommon > 0;
  if (rc == 0 && several) rc = sp_scaling_data(c, SP_SCALING_SPEEDUP, "speedup_data");
  if (rc == 0 && several && (c->o->plots & SP_PLOT_WEAK_SCALING))
    rc = sp_scaling_data(c, SP_SCALING_WEAK, "weak_scaling_data");
  /* With "all", only for an x that is a scale (as the chart). */
  if (rc == 0 && several && (c->o->plots & SP_PLOT_SCALING_EFFICIENCY) &&
      ((c->o->plots & SP_PLOT_EFFICIENCY_ASKED) || sp_scaling_field_ok(c->o->x_field)))
    rc = sp_scaling_data(c, SP_SCALING_EFFICIENCY, "scaling_efficiency_data");
  return rc;
}
