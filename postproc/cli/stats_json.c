/* stats_json.c - region_statistics.json, the reference tool's schema:
 *
 *   {"units": {"durations": "seconds"},
 *    "filters": {"include": [..] | null, "exclude": [..] | null, "ranks": [..] | null},
 *    "common_regions": [names],
 *    "files": [{"label", "file_path", "num_ranks", "total_time_seconds",
 *               "region_statistics": {NAME: {STATS..., "per_rank": {"<rank>": {STATS...}}}}}]}
 *
 * STATS: count, average_duration_seconds, min_duration_seconds,
 * max_duration_seconds, first_duration_seconds, last_duration_seconds,
 * std_duration_seconds (population), total_duration_seconds; over the calls
 * of the selected ranks together; count 0 and null values without calls.
 * per_rank lists the selected ranks that have the region. common_regions:
 * with one file its regions, with several the first file's regions that
 * every file has (in the first file's order). The figures come from the
 * call trees' per-(region, rank) durations (SP_READER_TREE_DURATIONS), so
 * both JSON files cost one read of the data. The reference tool's
 * aggregate files hold no stamps: there count is the call count and
 * total/average/min/max come from the figures every counted rank stores
 * (sp_reader_aggregate), null where one does not; first and last are
 * null; std comes from the sums of squares of this tool's profile-mode
 * files (sp_reader_aggregate_moments: every call path and thread of every
 * counted rank added up), null for files without them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pproc.h"

/* Statistics of several ranks' durations, merged with Chan's formula. */
typedef sp_reader_durations_t sp_acc_t;

static void sp_acc_init(sp_acc_t *a) {
  memset(a, 0, sizeof *a);
  a->first_start = INT64_MAX;
  a->last_end = INT64_MIN;
}

static void sp_acc_merge(sp_acc_t *a, const sp_acc_t *b) {
  if (b->n == 0) return;
  if (a->n == 0) {
    *a = *b;
    return;
  }
  double n = (double)(a->n + b->n), delta = b->mean - a->mean;
  a->m2 += b->m2 + delta * delta * (double)a->n * (double)b->n / n;
  a->mean += delta * (double)b->n / n;
  a->n += b->n;
  a->total += b->total;
  if (b->min < a->min) a->min = b->min;
  if (b->max > a->max) a->max = b->max;
  if (b->first_start < a->first_start) {
    a->first_start = b->first_start;
    a->first = b->first;
  }
  if (b->last_end > a->last_end) {
    a->last_end = b->last_end;
    a->last = b->last;
  }
}

static void sp_acc_json(FILE *f, const sp_acc_t *a) {
  fprintf(f, "\"count\":%lld", (long long)a->n);
  if (a->n == 0) {
    fputs(
        ",\"average_duration_seconds\":null,\"min_duration_seconds\":null,"
        "\"max_duration_seconds\":null,\"first_duration_seconds\":null,"
        "\"last_duration_seconds\":null,\"std_duration_seconds\":null,"
        "\"total_duration_seconds\":null",
        f);
    return;
  }
  fprintf(f, ",\"average_duration_seconds\":%.15g,\"min_duration_seconds\":", 1e-9 * a->mean);
  sp_json_put_seconds(f, a->min);
  fputs(",\"max_duration_seconds\":", f);
  sp_json_put_seconds(f, a->max);
  fputs(",\"first_duration_seconds\":", f);
  sp_json_put_seconds(f, a->first);
  fputs(",\"last_duration_seconds\":", f);
  sp_json_put_seconds(f, a->last);
  fprintf(f, ",\"std_duration_seconds\":%.15g", 1e-9 * sqrt(a->m2 / (double)a->n));
  fprintf(f, ",\"total_duration_seconds\":%.15g", 1e-9 * a->total);
}

/* The aggregate layout's figures of one region over ranks. */
typedef struct sp_agg_acc {
  int pairs;     /* pairs merged */
  unsigned have; /* SP_READER_AGG_* that every one of them stores */
  int64_t calls, min, max;
  double total; /* ns */
  int sq_pairs; /* of those, pairs with sums of squares (sq_*, over their calls) */
  int64_t sq_calls;
  double sq_sum, sq_sumsq; /* ns, ns^2 */
} sp_agg_acc_t;

/* The pair's sums of squares, when its file has them. */
static void sp_agg_merge_moments(sp_agg_acc_t *a, const sp_selection_t *sel, int g, int k) {
  sp_reader_moments_t m;
  if (sp_reader_aggregate_moments(sel->reader, g, k, &m) != 1) return;
  a->sq_pairs++;
  a->sq_calls += m.calls;
  a->sq_sum += m.sum;
  a->sq_sumsq += m.sum_squares;
}

static void sp_agg_merge(sp_agg_acc_t *a, const sp_reader_aggregate_t *b) {
  if (!b->present) return;
  a->have = a->pairs++ ? a->have & b->have : b->have;
  a->calls += b->calls;
  a->total += (double)b->total;
  if (b->calls == 0) return; /* no call: min and max say nothing */
  if (b->have & SP_READER_AGG_MIN)
    a->min = a->calls == b->calls || b->min < a->min ? b->min : a->min;
  if (b->have & SP_READER_AGG_MAX)
    a->max = a->calls == b->calls || b->max > a->max ? b->max : a->max;
}

static void sp_put_or_null(FILE *f, const char *key, int known, double seconds) {
  fprintf(f, ",\"%s\":", key);
  if (known)
    fprintf(f, "%.15g", seconds);
  else
    fputs("null", f);
}

static void sp_agg_json(FILE *f, const sp_agg_acc_t *a) {
  int calls = a->calls > 0, tot = (a->have & SP_READER_AGG_TOTAL) != 0;
  fprintf(f, "\"count\":%lld", (long long)a->calls);
  sp_put_or_null(f, "average_duration_seconds", tot && calls,
                 calls ? 1e-9 * a->total / (double)a->calls : 0);
  sp_put_or_null(f, "min_duration_seconds", calls && (a->have & SP_READER_AGG_MIN),
                 1e-9 * (double)a->min);
  sp_put_or_null(f, "max_duration_seconds", calls && (a->have & SP_READER_AGG_MAX),
                 1e-9 * (double)a->max);
  fputs(",\"first_duration_seconds\":null,\"last_duration_seconds\":null", f);
  /* Known when every pair with calls has its sums of squares. */
  int64_t with_calls = a->calls - a->sq_calls;
  double var = 0;
  if (a->sq_calls > 0) {
    double n = (double)a->sq_calls, mean = a->sq_sum / n;
    var = a->sq_sumsq / n - mean * mean;
  }
  sp_put_or_null(f, "std_duration_seconds", calls && with_calls == 0,
                 1e-9 * sqrt(var > 0 ? var : 0));
  sp_put_or_null(f, "total_duration_seconds", tot, 1e-9 * a->total);
}

/* One region of one file: the statistics over the selected ranks, then per rank. */
static int sp_region_json(FILE *f, const sp_selection_t *sel, const sp_reader_tree_t *t, int g,
                          sp_acc_t *per, int64_t span[2]) {
  sp_acc_t all;
  sp_acc_init(&all);
  sp_agg_acc_t agg;
  memset(&agg, 0, sizeof agg);
  for (int j = 0; j < sel->nranks; j++) {
    if (sp_reader_tree_durations(t, g, j, &per[j]) < 0) return SP_EXIT_IO;
    sp_acc_merge(&all, &per[j]);
    sp_reader_aggregate_t ag = {0, 0, 0, 0, 0, 0, 0};
    if (per[j].n == 0) sp_reader_aggregate(sel->reader, g, sel->ranks[j], &ag);
    sp_agg_merge(&agg, &ag);
    if (ag.present) sp_agg_merge_moments(&agg, sel, g, sel->ranks[j]);
  }
  if (all.n && all.first_start < span[0]) span[0] = all.first_start;
  if (all.n && all.last_end > span[1]) span[1] = all.last_end;
  sp_json_put_string(f, sp_reader_region_name(sel->reader, g));
  fputs(":{", f);
  if (all.n == 0 && agg.pairs)
    sp_agg_json(f, &agg);
  else
    sp_acc_json(f, &all);
  fputs(",\"per_rank\":{", f);
  int first = 1;
  for (int j = 0; j < sel->nranks; j++) {
    sp_reader_info_t info;
    sp_reader_info(sel->reader, g, sel->ranks[j], &info);
    if (!info.present) continue;
    fprintf(f, "%s\"%d\":{", first ? "" : ",", sp_reader_rank_id(sel->reader, sel->ranks[j]));
    sp_reader_aggregate_t ag = {0, 0, 0, 0, 0, 0, 0};
    if (per[j].n == 0) sp_reader_aggregate(sel->reader, g, sel->ranks[j], &ag);
    sp_agg_acc_t one;
    memset(&one, 0, sizeof one);
    sp_agg_merge(&one, &ag);
    if (ag.present) sp_agg_merge_moments(&one, sel, g, sel->ranks[j]);
    if (one.pairs)
      sp_agg_json(f, &one);
    else
      sp_acc_json(f, &per[j]);
    fputc('}', f);
    first = 0;
  }
  fputs("}}", f);
  return 0;
}

static int sp_file_json(FILE *f, const sp_selection_t *sel, const sp_reader_tree_t *t,
                        const char *label) {
  sp_acc_t *per = calloc((size_t)(sel->nranks ? sel->nranks : 1), sizeof *per);
  if (!per) return SP_EXIT_IO;
  char *abs = sp_path_absolute(sel->file);
  fputs("{\"label\":", f);
  sp_json_put_string(f, label);
  fputs(",\"file_path\":", f);
  sp_json_put_string(f, abs ? abs : sel->file);
  free(abs);
  fprintf(f, ",\"num_ranks\":%d,\"region_statistics\":{", sp_reader_num_ranks(sel->reader));
  int64_t span[2] = {INT64_MAX, INT64_MIN};
  int rc = 0;
  for (int i = 0; rc == 0 && i < sel->nregions; i++) {
    if (i) fputs(",\n", f);
    rc = sp_region_json(f, sel, t, sel->regions[i], per, span);
  }
  fputs("},\"total_time_seconds\":", f);
  if (span[1] >= span[0])
    fprintf(f, "%.15g}", 1e-9 * sp_ns_between(span[0], span[1]));
  else
    fputs("null}", f);
  free(per);
  return rc;
}

static void sp_string_list(FILE *f, const char *const *v, size_t n) {
  if (n == 0) {
    fputs("null", f);
    return;
  }
  fputc('[', f);
  for (size_t i = 0; i < n; i++) {
    if (i) fputc(',', f);
    sp_json_put_string(f, v[i]);
  }
  fputc(']', f);
}

/* Is region name in every file's selection? */
static int sp_in_all(const sp_selection_t *sels, int nfiles, const char *name) {
  for (int k = 1; k < nfiles; k++) {
    int found = 0;
    for (int i = 0; !found && i < sels[k].nregions; i++)
      found = strcmp(sp_reader_region_name(sels[k].reader, sels[k].regions[i]), name) == 0;
    if (!found) return 0;
  }
  return 1;
}

int sp_stats_json_write(FILE *f, const sp_selection_t *sels, sp_reader_tree_t *const *trees,
                        const char *const *labels, int nfiles, const sp_options_t *o) {
  fputs("{\"units\":{\"durations\":\"seconds\"},\"filters\":{\"include\":", f);
  sp_string_list(f, o->include, o->ninclude);
  fputs(",\"exclude\":", f);
  sp_string_list(f, o->exclude, o->nexclude);
  fputs(",\"ranks\":", f);
  if (o->nranks == 0) {
    fputs("null", f);
  } else {
    fputc('[', f);
    for (int j = 0; j < sels[0].nranks; j++)
      fprintf(f, "%s%d", j ? "," : "", sp_reader_rank_id(sels[0].reader, sels[0].ranks[j]));
    fputc(']', f);
  }
  fputs("},\n\"common_regions\":[", f);
  int first = 1;
  for (int i = 0; i < sels[0].nregions; i++) {
    const char *name = sp_reader_region_name(sels[0].reader, sels[0].regions[i]);
    if (!sp_in_all(sels, nfiles, name)) continue;
    if (!first) fputc(',', f);
    sp_json_put_string(f, name);
    first = 0;
  }
  fputs("],\n\"files\":[", f);
  int rc = 0;
  for (int k = 0; rc == 0 && k < nfiles; k++) {
    fputs(k ? ",\n" : "\n", f);
    rc = sp_file_json(f, &sels[k], trees[k], labels[k]);
  }
  fputs("\n]}\n", f);
  return rc;
}

int sp_json_outputs(const sp_selection_t *sels, const char *const *labels, int nfiles,
                    const sp_options_t *o) {
  /* The chart's limit on DIR (gantt.c), checked first so that a too long
   * name gets the same message whichever output meets it first. */
  if (strlen(o->outdir) + sizeof "/gantt_plot.svg" > 4096) {
    sp_msg(SP_QUIET, "output directory name too long (%zu bytes, at most %zu)", strlen(o->outdir),
           4096 - sizeof "/gantt_plot.svg");
    return SP_EXIT_IO;
  }
  sp_reader_tree_t **trees = calloc((size_t)(nfiles ? nfiles : 1), sizeof *trees);
  int rc = trees ? 0 : SP_EXIT_IO;
  for (int k = 0; rc == 0 && k < nfiles; k++)
    rc = sp_tree_build(&sels[k], SP_READER_TREE_DURATIONS, &trees[k]);
  sp_outfile_t of = {NULL, NULL, NULL};
  if (rc == 0) rc = sp_outfile_open(&of, o->outdir, "region_statistics.json");
  if (rc == 0) rc = sp_stats_json_write(of.f, sels, trees, labels, nfiles, o);
  rc = sp_outfile_close(&of, rc);
  if (rc == 0) rc = sp_outfile_open(&of, o->outdir, "call_tree.json");
  if (rc == 0) rc = sp_tree_json_files(of.f, sels, trees, labels, nfiles);
  rc = sp_outfile_close(&of, rc);
  for (int k = 0; trees && k < nfiles; k++) sp_reader_tree_free(trees[k]);
  free(trees);
  return rc;
}
