/* layout.h - creating the documented HDF5 layout for every rank's plan. */
#ifndef SP_LAYOUT_H
#define SP_LAYOUT_H

#include <hdf5.h>

#include "plan.h"

/* File offsets of one region's raw data on the writing rank. */
typedef struct sp_region_offsets {
  int64_t start_times; /* -1 when the dataset has no storage (0 events) */
  int64_t end_times;
  int64_t thread_ids; /* -1 when not written */
} sp_region_offsets_t;

/* Creates path with fapl, the layout of all nplans plans (identical on
 * every rank: with MPI this is collective), and returns in offs[r] (where
 * not NULL) the offsets of plans[r]'s datasets (plans[r].nregions
 * entries). Closes the file so raw data can be written directly. */
SP_HIDDEN int sp__layout_create(hid_t fapl, const char *path, const sp_rank_plan_t *plans,
                                int nplans, sp_region_offsets_t *const *offs);

/* Checks that a file of the size the plans need can be written at path
 * (disk space, RLIMIT_FSIZE) before HDF5 is asked to write it. */
SP_HIDDEN int sp__layout_reserve(const char *path, const sp_rank_plan_t *plans, int nplans);

SP_HIDDEN size_t sp__link_name_encode(const char *name, size_t len, char *out, size_t cap);

#endif
