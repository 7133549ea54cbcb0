/* aggregate_blob.h - a snapshot (aggregate_snap.h) packed into a blob for
 * rank 0 or an .aggspill file, and read back, every count and index
 * checked (aggregate_blob.c). Never installed. */
#ifndef SP_AGGREGATE_BLOB_H
#define SP_AGGREGATE_BLOB_H

#include "aggregate_snap.h"

/* An .aggspill file (aggregate_recover.c): this head, then a blob of len
 * bytes (aggregate_blob.c). */
#define SP_AGGSPILL_MAGIC 0x31475053u /* "SPG1" */
typedef struct sp_aggspill_head {
  uint32_t magic, version;
  int64_t len; /* blob bytes following */
} sp_aggspill_head_t;

/* Frees what s holds and zeroes it. */
SP_HIDDEN void sp__agg_snap_free(sp_agg_snap_t *s);
SP_HIDDEN int sp__agg_snap_pack(const sp_agg_snap_t *s, char **blob, int64_t *len);
/* Appends the blob's snapshot to s, its names merged into s's by text.
 * After the rows and buckets the blob may hold (since the sources were
 * added; older .aggspill files end before it): int64 nopen, lost, then nnames x
 * (int64 line, uint32 len, bytes) of the regions' sources, len 0: none. A
 * blob whose counts, lengths or indices do not hold (damaged, or not one)
 * is refused whole with SP_EINVAL and s is left as it was; SP_ENOMEM. */
SP_HIDDEN int sp__agg_snap_unpack_into(sp_agg_snap_t *s, const char *blob, int64_t len);
/* The same for a whole .aggspill file's n bytes: SP_ESPILL when refused. */
SP_HIDDEN int sp__aggspill_parse(const char *buf, int64_t n, sp_agg_snap_t *s);
/* Grows *p (of *cap elements of size bytes) to hold need; SP_ENOMEM when
 * it cannot, or when need is beyond what a size_t can count. */
SP_HIDDEN int sp__agg_grow(void **p, int64_t *cap, int64_t need, size_t size);

#endif
