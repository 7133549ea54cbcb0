/* aggregate_snap.h - one rank's aggregates as a flat snapshot, and the
 * merged table rank 0 writes (aggregate_snap.c, aggregate_file.c); the blob
 * the ranks send to rank 0 is aggregate_blob.h's. Never installed. */
#ifndef SP_AGGREGATE_SNAP_H
#define SP_AGGREGATE_SNAP_H

#include "aggregate.h"

/* One call path of one thread. */
typedef struct sp_agg_row {
  int32_t rank, thread, region, parent; /* parent: row of the enclosing path, -1 at the top */
  int32_t depth, unused;
  int64_t calls, incl, excl, min, max;
  double sumsq;
} sp_agg_row_t;

/* One nonzero histogram bucket of a row. */
typedef struct sp_agg_bk {
  int64_t row;
  int32_t bucket, unused;
  int64_t count;
} sp_agg_bk_t;

typedef struct sp_agg_snap {
  char **names; /* region names, by the rows' region ids */
  int64_t nnames;
  sp_agg_row_t *rows;
  int64_t nrows;
  sp_agg_bk_t *bks;
  int64_t nbks;
} sp_agg_snap_t;

/* This process's aggregates now (every thread's current window). */
SP_HIDDEN int sp__agg_snap_take(sp_agg_snap_t *s, int32_t rank);

#endif
