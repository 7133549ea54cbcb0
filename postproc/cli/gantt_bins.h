/* gantt_bins.h - merge the intervals of one lane into pixel-column runs. */
#ifndef SP_GANTT_BINS_H
#define SP_GANTT_BINS_H

#include <stdint.h>

/* Coverage of one lane at the resolution of the picture: intervals that
 * fall into the same pixel column become one bar, so drawing costs at most
 * one call per run of covered columns instead of one per interval. */
typedef struct sp_bins {
  int ncols;     /* pixel columns of the plot area */
  int64_t t0;    /* time of column 0's left edge, ns */
  double scale;  /* columns per ns */
  int64_t *diff; /* ncols + 1 difference counters (O(1) per interval) */
  int *runs;     /* 2 * nruns column indices: first, last (inclusive) */
  int nruns;
} sp_bins_t;

/* Prepares bins for ncols columns spanning [t0, t1]. Returns 0 or -1 (ENOMEM). */
int sp_bins_init(sp_bins_t *b, int ncols, int64_t t0, int64_t t1);
void sp_bins_free(sp_bins_t *b);
/* Clears the counters for the next lane. */
void sp_bins_reset(sp_bins_t *b);
/* Adds n intervals [start[i], end[i]]. */
void sp_bins_add(sp_bins_t *b, const int64_t *start, const int64_t *end, int64_t n);
/* Turns the counters into runs of covered columns (b->runs, b->nruns). */
void sp_bins_runs(sp_bins_t *b);

#endif
