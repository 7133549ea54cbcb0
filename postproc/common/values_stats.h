/* values_stats.h - the values per call of a selection (values_stats.c):
 * the rows of --values and the means of --summary --columns value:KEY. */
#ifndef SP_VALUES_STATS_H
#define SP_VALUES_STATS_H

#include "pproc.h"

/* The --values table: calls, sum, mean, min, max, count, kind, key, value,
 * region. */
#define SP_VALUES_NCOLS 10
extern const sp_col_t sp_values_cols[SP_VALUES_NCOLS];

typedef void (*sp_values_row_fn)(void *ctx, const sp_cell_t *cells);

/* Calls row(ctx, cells) for each row of the --values table of sel (region
 * by region, keys by name; numbers one row, strings one per distinct value
 * shown); *nrows rows. Returns 0, or SP_EXIT_DATA / SP_EXIT_IO after a
 * message. */
int sp_values_rows(const sp_selection_t *sel, sp_values_row_fn row, void *ctx, int64_t *nrows);

/* The mean of each numeric key keys[q] over the calls of region g (on
 * thread, or all threads when -1) on the selected ranks that set it, in
 * mean[q]; have[q] 0 where no call set it (or it holds strings). Returns
 * 0, or SP_EXIT_DATA after a message. */
int sp_values_means(const sp_selection_t *sel, const char *const *keys, int nkeys, int g,
                    int thread, double *mean, int *have);

#endif
