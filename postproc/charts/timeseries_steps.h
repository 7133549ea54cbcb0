/* timeseries_steps.h - one panel of the duration timeseries
 * (chart_timeseries.c): a region's calls as steps (the k-th call of a rank
 * in start order, ties in stored order), over the selected ranks, binned
 * per pixel column as they are read (timeseries_steps.c). A series of 32
 * bytes a step took 606 MiB at 1e7 calls on one rank (issue 47); the bins
 * take 32 bytes a column whatever the calls. */
#ifndef SP_TIMESERIES_STEPS_H
#define SP_TIMESERIES_STEPS_H

#include "pproc.h"

typedef struct sp_ts_bins {
  int64_t n; /* steps: the most calls of min_d or longer on one rank */
  int nb;    /* columns: n, or ncols when there are more steps */
  /* Per column b, over its steps [n * b / nb, n * (b + 1) / nb) of every
   * rank: the shortest and longest call (INFINITY and 0 without one),
   * seconds; their sum, rank after rank, each rank's in step order (one
   * rank: the old per-step series' sum exactly); calls summed. */
  double *lo, *hi, *sum;
  int64_t *cnt;
} sp_ts_bins_t;

/* Bins region g (reader index) over the ranks of sel into b for ncols
 * pixel columns; calls shorter than min_d seconds are no steps. Two passes
 * per pair: its calls counted in slices (the longest rank's steps set the
 * columns' bounds), then read in start order: a pair past the stream bound
 * (sp_reader_stream_calls) from the reader's merge by start, another loaded
 * and sorted; both give the same order, so the same bins. Returns 0 or an
 * sp_exit_t code after printing why; free b with sp_ts_bins_free either
 * way. */
int sp_ts_bins_build(const sp_selection_t *sel, int g, double min_d, int ncols, sp_ts_bins_t *b);
void sp_ts_bins_free(sp_ts_bins_t *b);

#endif
