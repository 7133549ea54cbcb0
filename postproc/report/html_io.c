/* html_io.c - the I/O section's data in report.html (docs/report-data.md,
 * "io"): the files summed over the selected ranks (the largest
 * SP_HTML_IO_FILES by time), per rank totals (every rank up to
 * SP_HTML_IO_RANKS ranks; past that the slowest SP_HTML_IO_SLOWEST and the
 * distribution: min, quartiles, max), and per region the bytes and time of
 * the I/O calls it made (io_attrib.c, as --summary --columns io_bytes,io_s).
 * Nothing when no selected rank has I/O records. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdlib.h>
#include <string.h>

#include "html.h"

#define SP_HTML_IO_FILES 100
#define SP_HTML_IO_RANKS 64
#define SP_HTML_IO_SLOWEST 16

typedef struct sp_html_io_file {
  char *name;
  int64_t v[SP_READER_IO_NCOLS];
  int slow_rank, ranks;
  int64_t slow_ns;
} sp_html_io_file_t;

typedef struct sp_html_io_rank {
  int rank, files;
  int64_t br, bw, rs, ws, ms;
} sp_html_io_rank_t;

typedef struct sp_html_io {
  sp_html_io_rank_t *ranks; /* by selected rank; rank -1: no records */
  int nranks, at;
  sp_html_io_file_t *files;
  int nfiles, cap;
  int oom;
} sp_html_io_t;

static void sp_html_io_rank_row(void *ctx, int rank, const int64_t *v, const char *name) {
  sp_html_io_t *x = ctx;
  (void)name;
  int j = x->at;
  while (j < x->nranks && x->ranks[j].rank != rank) j++; /* ranks come in order */
  if (j == x->nranks) return;
  x->at = j;
  sp_html_io_rank_t *r = &x->ranks[j];
  r->files++;
  r->br += v[SP_READER_IO_BYTES_READ];
  r->bw += v[SP_READER_IO_BYTES_WRITTEN];
  r->rs += v[SP_READER_IO_READ_NS];
  r->ws += v[SP_READER_IO_WRITE_NS];
  r->ms += v[SP_READER_IO_META_NS];
}

static void sp_html_io_file_row(void *ctx, const int64_t *v, const char *name, int slow_rank,
                                int64_t slow_ns, int ranks) {
  sp_html_io_t *x = ctx;
  if (x->nfiles == x->cap) {
    int cap = x->cap ? 2 * x->cap : 64;
    sp_html_io_file_t *p = realloc(x->files, (size_t)cap * sizeof *p);
    if (!p) {
      x->oom = 1;
      return;
    }
    x->files = p;
    x->cap = cap;
  }
  sp_html_io_file_t *f = &x->files[x->nfiles];
  f->name = strdup(name);
  if (!f->name) {
    x->oom = 1;
    return;
  }
  memcpy(f->v, v, sizeof f->v);
  f->slow_rank = slow_rank;
  f->slow_ns = slow_ns;
  f->ranks = ranks;
  x->nfiles++;
}

static int64_t sp_html_io_busy(const int64_t *v) {
  return v[SP_READER_IO_READ_NS] + v[SP_READER_IO_WRITE_NS] + v[SP_READER_IO_META_NS];
}

static int sp_html_io_file_cmp(const void *a, const void *b) {
  int64_t x = sp_html_io_busy(((const sp_html_io_file_t *)a)->v);
  int64_t y = sp_html_io_busy(((const sp_html_io_file_t *)b)->v);
  if (x != y) return x > y ? -1 : 1;
  return strcmp(((const sp_html_io_file_t *)a)->name, ((const sp_html_io_file_t *)b)->name);
}

static int64_t sp_html_io_rank_busy(const sp_html_io_rank_t *r) { return r->rs + r->ws + r->ms; }

static int sp_html_io_rank_cmp(const void *a, const void *b) {
  const sp_html_io_rank_t *x = a, *y = b;
  int64_t u = sp_html_io_rank_busy(x), v = sp_html_io_rank_busy(y);
  if (u != v) return u > v ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

static int sp_i64_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* "key":[min, q1, median, q3, max] of v[0..n) (sorted here; nearest rank). */
static void sp_html_io_quantiles(FILE *f, const char *key, int64_t *v, int n) {
  qsort(v, (size_t)n, sizeof *v, sp_i64_cmp);
  fprintf(f, "\"%s\":[", key);
  for (int q = 0; q <= 4; q++)
    fprintf(f, "%s%lld", q ? "," : "", (long long)v[(int64_t)(n - 1) * q / 4]);
  fputs("]", f);
}

static void sp_html_io_ranks(FILE *f, sp_html_io_t *x) {
  int n = 0;
  for (int j = 0; j < x->nranks; j++)
    if (x->ranks[j].files > 0) x->ranks[n++] = x->ranks[j];
  if (n > SP_HTML_IO_RANKS) {
    int64_t *v = malloc((size_t)n * sizeof *v);
    if (v) {
      fprintf(f, ",\"dist\":{\"n\":%d,", n);
      for (int j = 0; j < n; j++) v[j] = x->ranks[j].br + x->ranks[j].bw;
      sp_html_io_quantiles(f, "bytes", v, n);
      fputc(',', f);
      for (int j = 0; j < n; j++) v[j] = sp_html_io_rank_busy(&x->ranks[j]);
      sp_html_io_quantiles(f, "ns", v, n);
      fputs("}", f);
      free(v);
    }
    qsort(x->ranks, (size_t)n, sizeof *x->ranks, sp_html_io_rank_cmp);
    n = SP_HTML_IO_SLOWEST;
  }
  fputs(",\"ranks\":[", f);
  for (int j = 0; j < n; j++) {
    const sp_html_io_rank_t *r = &x->ranks[j];
    fprintf(f,
            "%s\n{\"r\":%d,\"nf\":%d,\"br\":%lld,\"bw\":%lld,\"rs\":%lld,\"ws\":%lld,\"ms\":%lld}",
            j ? "," : "", r->rank, r->files, (long long)r->br, (long long)r->bw, (long long)r->rs,
            (long long)r->ws, (long long)r->ms);
  }
  fputs("]", f);
}

static void sp_html_io_files(FILE *f, sp_html_io_t *x) {
  qsort(x->files, (size_t)x->nfiles, sizeof *x->files, sp_html_io_file_cmp);
  int n = x->nfiles < SP_HTML_IO_FILES ? x->nfiles : SP_HTML_IO_FILES;
  fprintf(f, ",\n\"io\":{\"nfiles\":%d,\"files\":[", x->nfiles);
  for (int i = 0; i < n; i++) {
    const int64_t *v = x->files[i].v;
    fprintf(f, "%s\n{\"f\":", i ? "," : "");
    sp_html_json_str(f, x->files[i].name);
    fprintf(f,
            ",\"opens\":%lld,\"reads\":%lld,\"writes\":%lld,\"br\":%lld,\"bw\":%lld,"
            "\"rs\":%lld,\"ws\":%lld,\"ms\":%lld,\"slow\":%d,\"slow_ns\":%lld,\"nr\":%d}",
            (long long)v[SP_READER_IO_OPENS], (long long)v[SP_READER_IO_READS],
            (long long)v[SP_READER_IO_WRITES], (long long)v[SP_READER_IO_BYTES_READ],
            (long long)v[SP_READER_IO_BYTES_WRITTEN], (long long)v[SP_READER_IO_READ_NS],
            (long long)v[SP_READER_IO_WRITE_NS], (long long)v[SP_READER_IO_META_NS],
            x->files[i].slow_rank, (long long)x->files[i].slow_ns, x->files[i].ranks);
  }
  fputs("]", f);
}

/* Per selected region that made I/O calls: its position, bytes (when
 * known) and time. */
static int sp_html_io_regions(FILE *f, const sp_selection_t *sel, const sp_reader_tree_t *t,
                              const int *gpos) {
  sp_io_attrib_t *a = NULL;
  int rc = sp_io_attrib_build(sel, t, 0, 1, &a), first = 1;
  fputs(",\"regions\":[", f);
  for (int i = 0; rc == 0 && i < sel->nregions; i++) {
    int64_t b, ns;
    int have = sp_io_attrib_get(a, sel->regions[i], -1, &b, &ns);
    if (!have) continue;
    fprintf(f, "%s\n{\"g\":%d", first ? "" : ",", gpos[sel->regions[i]]);
    if (have & 1) fprintf(f, ",\"b\":%lld", (long long)b);
    fprintf(f, ",\"ns\":%lld}", (long long)ns);
    first = 0;
  }
  fputs("]", f);
  sp_io_attrib_free(a);
  return rc;
}

int sp_html_io_write(FILE *f, const sp_selection_t *sel, const sp_reader_tree_t *t,
                     const int *gpos) {
  sp_html_io_t x;
  memset(&x, 0, sizeof x);
  x.nranks = sel->nranks;
  x.ranks = calloc((size_t)(sel->nranks ? sel->nranks : 1), sizeof *x.ranks);
  if (!x.ranks) return SP_EXIT_IO;
  for (int j = 0; j < sel->nranks; j++)
    x.ranks[j].rank = sp_reader_rank_id(sel->reader, sel->ranks[j]);
  static const sp_io_visit_t visit = {NULL, sp_html_io_rank_row, sp_html_io_file_row};
  int found = 0, rc = sp_io_files_walk(sel, &visit, &x, &found);
  if (rc == 0 && x.oom) rc = SP_EXIT_IO;
  if (rc == 0 && found) {
    sp_html_io_files(f, &x);
    sp_html_io_ranks(f, &x);
    rc = sp_html_io_regions(f, sel, t, gpos);
    fputs("}", f);
  }
  for (int i = 0; i < x.nfiles; i++) free(x.files[i].name);
  free(x.files);
  free(x.ranks);
  return rc;
}
