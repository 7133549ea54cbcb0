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

/* Where a region is in the source (sp_region_at), by region id. */
typedef struct sp_agg_src {
  char *file;   /* NULL: none given */
  int64_t line; /* 0 when file is NULL */
} sp_agg_src_t;

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
} sp_agg_snap_t;

/* An .aggspill file (aggregate_recover.c): this head, then a blob of len
 * bytes (aggregate_blob.c). */
#define SP_AGGSPILL_MAGIC 0x31475053u /* "SPG1" */
typedef struct sp_aggspill_head {
  uint32_t magic, version;
  int64_t len; /* blob bytes following */
} sp_aggspill_head_t;

/* This process's aggregates now (every thread's current window). */
SP_HIDDEN int sp__agg_snap_take(sp_agg_snap_t *s, int32_t rank);
/* sp_report: the calls open on the calling thread count in s, each as one
 * call with its duration so far (its exclusive time less its open child's),
 * so that a report inside a region is whole (aggregate_open.c). */
SP_HIDDEN int sp__agg_snap_open_calls(sp_agg_snap_t *s);
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
