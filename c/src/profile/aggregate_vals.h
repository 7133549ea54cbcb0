/* aggregate_vals.h - profile mode's values per call path and key
 * (sp_agg_val_t, aggregate_snap.h) as bytes, merged and sorted
 * (aggregate_vals.c): the snapshot's blob, the reduction's, the files.
 * Never installed. */
#ifndef SP_AGGREGATE_VALS_H
#define SP_AGGREGATE_VALS_H

#include "aggregate_snap.h"

/* Frees the keys and the array; *v NULL, *n 0. */
SP_HIDDEN void sp__agg_vals_drop(sp_agg_val_t **v, int64_t *n, int64_t *cap);
/* Bytes of n values as sp__agg_vals_pack writes them. */
SP_HIDDEN int64_t sp__agg_vals_bytes(const sp_agg_val_t *v, int64_t n);
/* Writes int64 n, then per value int64 row, count, float64 sum, min, max,
 * int32 kind, uint32 len, the key's bytes; returns the end. */
SP_HIDDEN char *sp__agg_vals_pack(char *p, const sp_agg_val_t *v, int64_t n);
/* Reads such bytes at *p (up to end) and appends them to *v, each row
 * plus base; a row outside [0, nrows), a key of 0 or more than 255 bytes,
 * a negative count: SP_EINVAL (nothing appended). SP_ENOMEM. */
SP_HIDDEN int sp__agg_vals_unpack(const char **p, const char *end, int64_t nrows, int64_t base,
                                  sp_agg_val_t **v, int64_t *n, int64_t *cap);
/* Appends n values of src, rows mapped through map (NULL: as they are),
 * keys copied. */
SP_HIDDEN int sp__agg_vals_append(sp_agg_val_t **v, int64_t *n, int64_t *cap,
                                  const sp_agg_val_t *src, int64_t nsrc, const int64_t *map);
/* Sorted by row and key, the values of one (row, key) merged into one:
 * counts and sums added, the min of the mins, the max of the maxes. */
SP_HIDDEN void sp__agg_vals_compact(sp_agg_val_t *v, int64_t *n);

#endif
