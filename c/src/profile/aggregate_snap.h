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

/* Where a region is in the source (sp_region_at), by region id. */
typedef struct sp_agg_src {
  char *file;   /* NULL: none given */
  int64_t line; /* 0 when file is NULL */
} sp_agg_src_t;

/* One key's values in one call path (sp_call_set* in profile mode,
 * docs/values.md): the calls that set it, the sum, min and max of their
 * values; a string key's calls only (sum, min, max NaN). */
typedef struct sp_agg_val {
  int64_t row; /* row of a snapshot's rows, or path of a reduction (sp_red_t) */
  int64_t count;
  double sum, min, max;
  int32_t kind; /* SP_VKIND_* of the key (spill_format.h) */
  int32_t kix;  /* the key's number in its region (sp__agg_snap_take only) */
  char *key;
} sp_agg_val_t;

typedef struct sp_agg_snap {
  char **names; /* region names, by the rows' region ids */
  int64_t nnames;
  sp_agg_src_t *srcs; /* nsrcs entries (up to nnames), or NULL: no source */
  int64_t nsrcs;
  int64_t nopen; /* calls open at a report counted with their time so far */
  sp_agg_row_t *rows;
  int64_t nrows;
  sp_agg_bk_t *bks;
  int64_t nbks;
  int64_t lost;        /* calls not recorded (the file's metadata/events_lost) */
  int64_t *name_index; /* open addressing over names: id or -1 (unpack only) */
  int64_t name_slots;
  sp_agg_val_t *vals; /* values per call path and key (rows: this snapshot's) */
  int64_t nvals, vcap;
} sp_agg_snap_t;

/* x + y, held at the int64 bounds: real sums stay far below (1e5 ranks of
 * a day each are 8.6e18 ns), a damaged file's or peer's must not wrap. */
static inline int64_t sp__agg_add_sat(int64_t x, int64_t y) {
  int64_t z;
  return __builtin_add_overflow(x, y, &z) ? (y > 0 ? INT64_MAX : INT64_MIN) : z;
}

/* This process's aggregates now (every thread's current window). */
SP_HIDDEN int sp__agg_snap_take(sp_agg_snap_t *s, int32_t rank);

#endif
