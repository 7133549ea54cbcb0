/* aggregate_reduce.h - profile mode reduced across ranks
 * (SCOPE_PROFILER_REDUCE, docs/profile-mode.md "Reduced across ranks"):
 * per call path the min, max, mean and standard deviation over the ranks,
 * the merged histogram, and per region the k ranks of largest and smallest
 * total kept whole (aggregate_reduce.c, aggregate_red_table.c, written by
 * aggregate_h5_reduced.c). Never installed. */
#ifndef SP_AGGREGATE_REDUCE_H
#define SP_AGGREGATE_REDUCE_H

#include "aggregate_red_table.h"
#include "out_temp.h"

struct sp_par;

/* From this many ranks on, REDUCE=auto reduces. */
#define SP_REDUCE_AUTO_RANKS 1024

/* Whether this operation reduces: SCOPE_PROFILER_REDUCE=1, or auto from
 * SP_REDUCE_AUTO_RANKS ranks. */
SP_HIDDEN int sp__agg_reduce_on(const struct sp_par *par);
/* The reduction of every rank's mine (rc: this rank's failure so far; every
 * rank takes part all the same), the kept ranks' rows sent to rank 0,
 * which writes the file at path. Collective; the agreed status. */
SP_HIDDEN int sp__agg_reduce_write(struct sp_par *par, int rc, const sp_agg_snap_t *mine,
                                   const char *path, const sp_out_id_t *was);

#endif
