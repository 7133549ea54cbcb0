/* gantt_bins.h - the busy fraction of one lane in each pixel column. */
#ifndef SP_GANTT_BINS_H
#define SP_GANTT_BINS_H

#include <stdint.h>

/* Occupancy of one lane at the resolution of the picture: for each pixel
 * column of the window, the fraction of its time the lane is busy (the
 * union of its intervals; nested calls of one region count once). Adding
 * an interval costs O(1) whatever its length (two partial end columns and
 * a difference counter for the full columns between), so binning costs
 * O(intervals + columns) per lane and drawing O(columns). */
typedef struct sp_bins {
  int ncols;        /* pixel columns of the window */
  int64_t w0, w1;   /* window [w0, w1], ns */
  double col_ns;    /* ns per column */
  double *part;     /* ncols: covered fraction of partly covered columns */
  int64_t *full;    /* ncols + 1 difference counters of fully covered columns */
  double *frac;     /* ncols: busy fraction in [0, 1] after sp_bins_finish */
  int64_t *scratch; /* 2 * cap stamps, for lanes whose starts are not sorted */
  int64_t cap;
} sp_bins_t;

/* Prepares bins for ncols columns spanning the window [w0, w1], w1 > w0.
 * Returns 0 or -1 (ENOMEM). */
int sp_bins_init(sp_bins_t *b, int ncols, int64_t w0, int64_t w1);
void sp_bins_free(sp_bins_t *b);
/* Clears the counters for the next lane. */
void sp_bins_reset(sp_bins_t *b);
/* Adds the lane's n intervals (once per lane, after sp_bins_reset) [start[i], end[i]] whose thread
 * id is thread (all of them when tids is NULL or thread is -1). Returns 0 or -1 (ENOMEM). */
int sp_bins_add(sp_bins_t *b, const int64_t *start, const int64_t *end, const int32_t *tids,
                int64_t thread, int64_t n);
/* sp_bins_add over a lane given in slices (memory flat in its calls): st
 * starts as SP_BINS_FEED after sp_bins_reset, then each slice in order.
 * Returns 1 once the lane's starts are out of order (its bins are then not
 * its union: the caller loads the lane and calls sp_bins_add), else 0. */
typedef struct sp_bins_feed {
  int64_t reach, last;
  int unsorted;
} sp_bins_feed_t;
#define SP_BINS_FEED ((sp_bins_feed_t){INT64_MIN, INT64_MIN, 0})
int sp_bins_feed(sp_bins_t *b, sp_bins_feed_t *st, const int64_t *start, const int64_t *end,
                 const int32_t *tids, int64_t thread, int64_t n);
/* Fills b->frac; returns the lane's busy time in the window, in columns. */
double sp_bins_finish(sp_bins_t *b);

#endif
