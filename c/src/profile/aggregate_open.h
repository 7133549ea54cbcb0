/* aggregate_open.h - the calls open at sp_report, counted in its file
 * (aggregate_open.c). Never installed. */
#ifndef SP_AGGREGATE_OPEN_H
#define SP_AGGREGATE_OPEN_H

#include "aggregate_snap.h"

/* sp_report: the calls open on the calling thread count in s, each as one
 * call with its duration so far (its exclusive time less its open child's),
 * so that a report inside a region is whole (aggregate_open.c). */
SP_HIDDEN int sp__agg_snap_open_calls(sp_agg_snap_t *s);

#endif
