/* export.c - --export csv and --export chrome-trace (exports.h), streamed lane by lane to stdout;
 * each lane read in chunks so memory stays flat in calls; chrome-trace adds the samples of RSS and
 * CPU time as counter events. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exports.h"

/* CSV field per RFC 4180: quoted only when it holds a comma, quote or newline. */
static void sp_csv_field(const char *s) {
  int quote = strpbrk(s, ",\"\r\n") != NULL;
  if (quote) putchar('"');
  sp_text_put(stdout, s, SP_TEXT_CSV);
  if (quote) putchar('"');
}

/* JSON string: valid UTF-8 passes through, the rest is escaped (text_safe.c). */
static void sp_json_string(const char *s) {
  putchar('"');
  sp_text_put(stdout, s, SP_TEXT_JSON);
  putchar('"');
}

static void sp_csv_lane(const sp_selection_t *sel, const sp_lane_t *ln,
                        const sp_reader_intervals_t *iv) {
  int rank = sp_reader_rank_id(sel->reader, ln->rank);
  const char *name = sp_reader_region_name(sel->reader, ln->region);
  for (int64_t i = 0; i < iv->n; i++) {
    printf("%d,", rank);
    sp_csv_field(name);
    printf(",%.9f,%.9f\n", 1e-9 * sp_ns_between(sel->t0, iv->start[i]),
           1e-9 * sp_ns_between(sel->t0, iv->end[i]));
  }
}

/* The values call e of a pair set (sp_call_set*), as the event's "args"
 * object; nothing when it set none. Non-finite reals, which JSON lacks,
 * as strings ("inf"). */
static void sp_chrome_args(const sp_reader_values_t *v, int64_t e) {
  int any = 0;
  for (int k = 0; v && k < v->nkeys; k++) {
    const sp_reader_value_key_t *c = &v->keys[k];
    if (!sp_reader_value_set(c, e)) continue;
    fputs(any++ ? "," : ",\"args\":{", stdout);
    sp_json_string(c->key);
    putchar(':');
    if (c->kind == SP_READER_VALUE_INT)
      printf("%lld", (long long)c->ints[e]);
    else if (c->kind == SP_READER_VALUE_REAL && isfinite(c->reals[e]))
      printf("%.17g", c->reals[e]);
    else if (c->kind == SP_READER_VALUE_REAL)
      printf("\"%s\"", c->reals[e] > 0 ? "inf" : "-inf");
    else
      sp_json_string(c->strings[e]);
  }
  if (any) putchar('}');
}

/* Complete ("X") events; timestamps in microseconds as the format wants,
 * from t0 (sp_chrome_origin); calls from at of the pair, whose values are v. */
static void sp_chrome_lane(const sp_selection_t *sel, int64_t t0, const sp_lane_t *ln,
                           const sp_reader_intervals_t *iv, const sp_reader_values_t *v, int64_t at,
                           int *first) {
  int rank = sp_reader_rank_id(sel->reader, ln->rank);
  const char *name = sp_reader_region_name(sel->reader, ln->region);
  for (int64_t i = 0; i < iv->n; i++) {
    fputs(*first ? "\n" : ",\n", stdout);
    *first = 0;
    fputs("{\"name\":", stdout);
    sp_json_string(name);
    printf(",\"cat\":\"region\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,\"tid\":%d",
           1e-3 * sp_ns_between(t0, iv->start[i]), 1e-3 * sp_ns_between(iv->start[i], iv->end[i]),
           rank, iv->thread_ids ? iv->thread_ids[i] : 0);
    if (v && v->present && at + i < v->n) sp_chrome_args(v, at + i);
    putchar('}');
  }
}

static void sp_chrome_begin(const sp_selection_t *sel, int *first) {
  printf("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"source\":");
  sp_json_string(sel->file);
  printf(",\"generator\":\"" SP_PROG " %s\"},\"traceEvents\":[", sp_reader_version_string());
  for (int j = 0; j < sel->nranks; j++) {
    int rank = sp_reader_rank_id(sel->reader, sel->ranks[j]);
    const char *host = sp_rank_host_shown(sel, sel->ranks[j]);
    printf("%s\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"rank %d",
           *first ? "" : ",", rank, rank);
    if (host) {
      putchar('@');
      sp_text_put(stdout, host, SP_TEXT_JSON);
    }
    printf("\"}}");
    *first = 0;
  }
}

/* The export's time 0: the first call of the selection, or the first
 * sample when one was taken before it (sampling starts at sp_setup), so
 * that no event has a negative ts. */
static int64_t sp_chrome_origin(const sp_selection_t *sel) {
  int64_t t0 = sel->t0;
  for (int j = 0; j < sel->nranks; j++) {
    sp_reader_samples_t s;
    if (sp_reader_samples_load(sel->reader, sel->ranks[j], &s) < 0) continue; /* said later */
    for (int64_t i = 0; i < s.n; i++)
      if (s.times[i] < t0) t0 = s.times[i];
    sp_reader_samples_free(&s);
  }
  return t0;
}

/* Counter ("C") events of the samples of SCOPE_PROFILER_SAMPLE_MS, per
 * rank: "RSS" in MB (10^6 bytes, as every output of the program) and
 * "CPU" in cores (the process's CPU time over the time since the previous
 * sample). Chrome and Perfetto draw each as a track of the rank's process. */
static int sp_chrome_samples(const sp_selection_t *sel, int64_t t0, int *first) {
  for (int j = 0; j < sel->nranks; j++) {
    sp_reader_samples_t s;
    int err = sp_reader_samples_load(sel->reader, sel->ranks[j], &s);
    if (err < 0) {
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
      return sp_exit_for_reader(err);
    }
    int rank = sp_reader_rank_id(sel->reader, sel->ranks[j]);
    for (int64_t i = 0; i < s.n; i++) {
      double ts = 1e-3 * sp_ns_between(t0, s.times[i]);
      printf(
          "%s\n{\"name\":\"RSS\",\"cat\":\"samples\",\"ph\":\"C\",\"ts\":%.3f,\"pid\":%d,"
          "\"args\":{\"MB\":%.3f}}",
          *first ? "" : ",", ts, rank, (double)s.rss_bytes[i] / 1e6);
      *first = 0;
      if (i == 0 || s.times[i] <= s.times[i - 1]) continue;
      double cores =
          (double)(s.cpu_ns[i] - s.cpu_ns[i - 1]) / (double)(s.times[i] - s.times[i - 1]);
      printf(
          ",\n{\"name\":\"CPU\",\"cat\":\"samples\",\"ph\":\"C\",\"ts\":%.3f,\"pid\":%d,"
          "\"args\":{\"cores\":%.3f}}",
          1e-3 * sp_ns_between(t0, s.times[i - 1]), rank, cores);
    }
    sp_reader_samples_free(&s);
  }
  return SP_EXIT_OK;
}

/* Intervals read at a time: memory stays flat in calls per lane. */
#define SP_EXPORT_CHUNK 65536

typedef struct sp_chunk_buf {
  int64_t start[SP_EXPORT_CHUNK], end[SP_EXPORT_CHUNK];
  int32_t thread[SP_EXPORT_CHUNK];
} sp_chunk_buf_t;

static void sp_lane_put(const sp_selection_t *sel, int i, int chrome, int64_t t0,
                        const sp_reader_intervals_t *iv, const sp_reader_values_t *v, int64_t at,
                        int *first) {
  if (!chrome)
    sp_csv_lane(sel, &sel->lanes[i], iv);
  else
    sp_chrome_lane(sel, t0, &sel->lanes[i], iv, v, at, first);
}

/* Lane i in chunks (sp_reader_read_range); the reference tool's
 * delta-encoded columns, which it refuses, whole (sp_reader_load).
 * Returns 0 or a negative reader error. */
static int64_t sp_lane_export_values(const sp_selection_t *sel, int i, int chrome, int64_t t0,
                                     sp_chunk_buf_t *b, const sp_reader_values_t *v, int *first) {
  const sp_lane_t *ln = &sel->lanes[i];
  for (int64_t at = 0;;) {
    int64_t n = sp_reader_read_range(sel->reader, ln->region, ln->rank, at, SP_EXPORT_CHUNK,
                                     b->start, b->end, b->thread);
    if (n == SP_READER_EINVAL && at == 0) break;
    if (n <= 0) return n;
    sp_reader_intervals_t iv = {.n = n, .start = b->start, .end = b->end, .thread_ids = b->thread};
    sp_lane_put(sel, i, chrome, t0, &iv, v, at, first);
    at += n;
  }
  sp_reader_intervals_t iv;
  int err = sp_reader_load(sel->reader, ln->region, ln->rank, &iv);
  if (err < 0) return err;
  sp_lane_put(sel, i, chrome, t0, &iv, v, 0, first);
  sp_reader_intervals_free(&iv);
  return 0;
}

/* Lane i; for chrome-trace with the values of its calls (the pair's, read
 * whole beside the chunks of stamps: 8 bytes per call and key). */
static int64_t sp_lane_export(const sp_selection_t *sel, int i, int chrome, int64_t t0,
                              sp_chunk_buf_t *b, int *first) {
  sp_reader_values_t v = {0};
  if (chrome) {
    int err = sp_reader_values_load(sel->reader, sel->lanes[i].region, sel->lanes[i].rank, &v);
    if (err < 0) return err;
  }
  int64_t rc = sp_lane_export_values(sel, i, chrome, t0, b, &v, first);
  sp_reader_values_free(&v);
  return rc;
}

/* Every lane of sel as CSV rows, or as Chrome-trace events and the samples. */
static int sp_export_lanes(const sp_selection_t *sel, int chrome) {
  int first = 1;
  int64_t t0 = chrome ? sp_chrome_origin(sel) : sel->t0;
  sp_chunk_buf_t *b = malloc(sizeof *b);
  if (!b) {
    sp_msg(SP_QUIET, "out of memory");
    return SP_EXIT_IO;
  }
  if (!chrome)
    printf("rank,region,start_s,end_s\n");
  else
    sp_chrome_begin(sel, &first);
  for (int i = 0; i < sel->nlanes; i++) {
    sp_progress("exporting lane", i, sel->nlanes);
    int64_t err = sp_lane_export(sel, i, chrome, t0, b, &first);
    if (err < 0) {
      sp_progress_done();
      free(b);
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
      return sp_exit_for_reader((int)err);
    }
  }
  free(b);
  sp_progress_done();
  if (chrome) {
    int rc = sp_chrome_samples(sel, t0, &first);
    printf("\n]}\n");
    return rc;
  }
  return SP_EXIT_OK;
}

int sp_export_csv(const sp_selection_t *sel) { return sp_export_lanes(sel, 0); }

int sp_export_chrome(const sp_selection_t *sel) { return sp_export_lanes(sel, 1); }
