/* aggregate_blob.h - a snapshot (aggregate_snap.h) packed into a blob, the
 * bytes the ranks send to rank 0 and an .aggspill file holds, and read back
 * with every count and index checked (aggregate_blob.c). Never installed. */
#ifndef SP_AGGREGATE_BLOB_H
#define SP_AGGREGATE_BLOB_H

#include "aggregate_snap.h"

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

/* Frees what s holds and zeroes it. */
SP_HIDDEN void sp__agg_snap_free(sp_agg_snap_t *s);
/* The blob of s (malloc'ed, *len bytes); SP_ENOMEM. */
SP_HIDDEN int sp__agg_snap_pack(const sp_agg_snap_t *s, char **blob, int64_t *len);
/* Appends the blob's snapshot to s, its names merged into s's by text.
 * After the rows and buckets the blob may hold (since the sources were
 * added; older .aggspill files end before it): int64 nopen, lost, then
 * nnames x (int64 line, uint32 len, bytes) of the regions' sources, len 0:
 * none. A blob whose counts, lengths or indices do not hold (damaged, or
 * not one) is refused whole with SP_EINVAL and s is left as it was;
 * SP_ENOMEM. */
SP_HIDDEN int sp__agg_snap_unpack_into(sp_agg_snap_t *s, const char *blob, int64_t len);
/* Head and blob of such a file into s (run: its writer, may be NULL):
 * SP_ESPILL when refused, s then unchanged; SP_ENOMEM. */
SP_HIDDEN int sp__aggspill_parse(const char *buf, int64_t n, sp_agg_snap_t *s,
                                 sp_aggspill_run_t *run);
/* Grows *p (of *cap elements of size bytes) to hold need; SP_ENOMEM when
 * it cannot, or when need is beyond what a size_t can count. */
SP_HIDDEN int sp__agg_grow(void **p, int64_t *cap, int64_t need, size_t size);

#endif
