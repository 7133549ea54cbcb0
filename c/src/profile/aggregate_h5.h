/* aggregate_h5.h - the aggregate file's HDF5 layout (aggregate_h5.c).
 * Never installed. */
#ifndef SP_AGGREGATE_H5_H
#define SP_AGGREGATE_H5_H

#include "aggregate_red_table.h"

/* Writes s into the new HDF5 file at path (serial). */
SP_HIDDEN int sp__agg_h5_write(const char *path, const sp_agg_snap_t *s, int mpi_size);

/* The reduced file at path: the head and the sums of the kept rows (view:
 * under t's names), then sp__agg_h5_reduced's groups. */
SP_HIDDEN int sp__agg_h5_write_reduced(const char *path, const sp_agg_snap_t *view, int mpi_size,
                                       const sp_red_t *t, const int64_t *paths, int k);

#endif
