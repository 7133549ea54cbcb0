/* aggregate_snap.h - one rank's aggregates as a flat snapshot, the blob the
 * ranks send to rank 0, and the merged table rank 0 writes (aggregate_snap.c,
 * aggregate_file.c). Never installed. */
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

/* An .aggspill file (aggregate_recover.c): this head; from version 2 its
 * writer (sp_aggspill_run_t); then a blob of len bytes (aggregate_blob.c).
 * Version 1 files (no writer) are still read. */
#define SP_AGGSPILL_MAGIC 0x31475053u /* "SPG1" */
#define SP_AGGSPILL_VERSION 2u
typedef struct sp_aggspill_head {
  uint32_t magic, version;
  int64_t len; /* blob bytes following */
} sp_aggspill_head_t;
typedef struct sp_aggspill_run {
  uint64_t run_id;   /* sp_state_t.run_id: runs without MPI rank are told apart by it */
  int64_t wall_time; /* when written, seconds since the epoch */
  int64_t pid;
  int32_t rank; /* MPI rank, -1 without one */
  int32_t size; /* MPI size, 1 without MPI */
} sp_aggspill_run_t;

/* This process's aggregates now (every thread's current window). */
SP_HIDDEN int sp__agg_snap_take(sp_agg_snap_t *s, int32_t rank);
SP_HIDDEN void sp__agg_snap_free(sp_agg_snap_t *s);
SP_HIDDEN int sp__agg_snap_pack(const sp_agg_snap_t *s, char **blob, int64_t *len);
/* Appends the blob's snapshot to s, its names merged into s's by text. A
 * blob whose counts, lengths or indices do not hold (damaged, or not one)
 * is refused whole with SP_EINVAL and s is left as it was; SP_ENOMEM. */
SP_HIDDEN int sp__agg_snap_unpack_into(sp_agg_snap_t *s, const char *blob, int64_t len);
/* The head of a whole .aggspill file's n bytes: its writer in *run (all 0
 * and rank -1 for version 1) and where the blob starts in *blob_at; 0 or
 * SP_ESPILL (not one, a newer version, a length that does not match). */
SP_HIDDEN int sp__aggspill_head(const char *buf, int64_t n, sp_aggspill_run_t *run,
                                int64_t *blob_at);
/* Head and blob of such a file into s (run: its writer, may be NULL):
 * SP_ESPILL when refused, s then unchanged; SP_ENOMEM. */
SP_HIDDEN int sp__aggspill_parse(const char *buf, int64_t n, sp_agg_snap_t *s,
                                 sp_aggspill_run_t *run);
/* Grows *p (of *cap elements of size bytes) to hold need; SP_ENOMEM when
 * it cannot, or when need is beyond what a size_t can count. */
SP_HIDDEN int sp__agg_grow(void **p, int64_t *cap, int64_t need, size_t size);

#endif
