/* aggregate_h5_reduced.h - the groups of an aggregate file reduced across
 * ranks (aggregate_h5_reduced.c). Never installed. */
#ifndef SP_AGGREGATE_H5_REDUCED_H
#define SP_AGGREGATE_H5_REDUCED_H

#include <hdf5.h>

#include "aggregate_red_table.h"

/* The reduced file's own groups (reduced_paths, its histograms, kept_ranks,
 * kept_paths and theirs) into the open file f; kept: the kept rows, their
 * region ids the table's names; paths[i]: kept row i's path. */
SP_HIDDEN int sp__agg_h5_reduced(hid_t f, const sp_red_t *t, const sp_agg_snap_t *kept,
                                 const int64_t *paths, int k);

/* group/ of n values per call path (call_path_values/, or the reduced
 * file's reduced_path_values/ with rowname "paths") in the open file f. */
SP_HIDDEN int sp__agg_h5_values(hid_t f, const char *group, const char *rowname,
                                const sp_agg_val_t *v, int64_t n);

#endif
