/* gantt_bins.c - per-lane pixel-column coverage with a difference array. */
#include <stdlib.h>
#include <string.h>

#include "gantt_bins.h"
#include "pproc.h"

int sp_bins_init(sp_bins_t *b, int ncols, int64_t t0, int64_t t1) {
  memset(b, 0, sizeof *b);
  b->ncols = ncols > 0 ? ncols : 1;
  b->t0 = t0;
  b->scale = t1 > t0 ? (double)b->ncols / sp_ns_between(t0, t1) : 0.0;
  b->diff = calloc((size_t)b->ncols + 1, sizeof *b->diff);
  b->runs = malloc(((size_t)b->ncols + 1) * sizeof *b->runs);
  return b->diff && b->runs ? 0 : -1;
}

void sp_bins_free(sp_bins_t *b) {
  free(b->diff);
  free(b->runs);
  memset(b, 0, sizeof *b);
}

void sp_bins_reset(sp_bins_t *b) {
  memset(b->diff, 0, ((size_t)b->ncols + 1) * sizeof *b->diff);
  b->nruns = 0;
}

static int sp_column(const sp_bins_t *b, int64_t t) {
  double c = sp_ns_between(b->t0, t) * b->scale;
  if (c < 0) return 0;
  if (c >= b->ncols) return b->ncols - 1;
  return (int)c;
}

void sp_bins_add(sp_bins_t *b, const int64_t *start, const int64_t *end, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    b->diff[sp_column(b, start[i])]++;
    b->diff[sp_column(b, end[i]) + 1]--;
  }
}

void sp_bins_runs(sp_bins_t *b) {
  int64_t cover = 0;
  int open = -1;
  b->nruns = 0;
  for (int c = 0; c <= b->ncols; c++) {
    cover += c < b->ncols ? b->diff[c] : 0;
    int on = c < b->ncols && cover > 0;
    if (on && open < 0) open = c;
    if (!on && open >= 0) {
      b->runs[2 * b->nruns] = open;
      b->runs[2 * b->nruns + 1] = c - 1;
      b->nruns++;
      open = -1;
    }
  }
}
