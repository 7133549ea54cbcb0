/* aggregate_values.h - values per call path in profile mode, their slow
 * path (aggregate_values.c; the fast path is aggregate.h's
 * sp__agg_val_fast). Never installed. */
#ifndef SP_AGGREGATE_VALUES_H
#define SP_AGGREGATE_VALUES_H

#include "aggregate.h"

/* Value x of key k for the innermost call of t (at depth d), making the
 * path's block where it is missing: 0, or SP_ENOMEM. A call that profile
 * mode does not record (path cap, memory) keeps no value: 0. */
SP_HIDDEN int sp__agg_val_set(sp_thread_t *t, int32_t d, int32_t k, double x);

#endif
