/* chart_pick.h - which common regions the per-call charts show; never
 * installed. */
#ifndef SP_CHART_PICK_H
#define SP_CHART_PICK_H

#include "charts.h"

/* Up to max of the common regions for a chart of per-call figures (the
 * duration timeseries): those with two or more calls on some selected rank
 * of the first file (a single-call wrapper is one dot), the largest self
 * time in the first file first (the kernels, not the wrappers around them);
 * with none such, the largest self times of all. pick receives indices
 * into the common regions, in the charts' order. Says on stderr what was
 * left out. Returns the count (>= 0) or -SP_EXIT_* after printing why. */
int sp_charts_pick_per_call(const sp_charts_t *c, int max, int *pick, const char *chart);

#endif
