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
  int64_t bytes;      /* MPI call regions' bytes and peer (mpi_extra.h); -1 when not written */
  int64_t peer;
  int64_t tag; /* and their tag and communicator id; -1 when not written */
  int64_t comm;
} sp_region_offsets_t;

/* Creates path with fapl, the layout of all nplans plans, and returns in
 * offs[r] (where not NULL) the offsets of plans[r]'s datasets
 * (plans[r].nregions entries). Right after creating the file it takes the
 * disk space of the whole profile (raw data included) for it, so no later
 * write runs out of room. Closes the file so raw data can be written
 * directly; a file that failed is closed without further writes to it
 * (HDF5 1.10 would crash at exit otherwise). By the one process that
 * creates the file. */
SP_HIDDEN int sp__layout_create(hid_t fapl, const char *path, const sp_rank_plan_t *plans,
                                int nplans, sp_region_offsets_t *const *offs);

/* The same by every rank of par together (fapl for parallel HDF5, the
 * layout identical on every rank): rank 0 takes the disk space and all
 * agree on it through agree (sp__par_agree) before any metadata is
 * written. */
struct sp_par;
SP_HIDDEN int sp__layout_create_par(hid_t fapl, const char *path, const sp_rank_plan_t *plans,
                                    int nplans, sp_region_offsets_t *const *offs,
                                    struct sp_par *par, int (*agree)(struct sp_par *, int));

/* Checks that a file of the size the plans need could be written at path
 * (disk space, RLIMIT_FSIZE) before the file exists; the room is then
 * taken for real by sp__layout_create. */
SP_HIDDEN int sp__layout_reserve(const char *path, const sp_rank_plan_t *plans, int nplans);
/* OMP_NUM_THREADS's first value when a positive number, else recorded (at
 * least 1): /metadata@omp_num_threads, the reference tool's key. */
SP_HIDDEN int64_t sp__omp_num_threads(int32_t recorded);


#endif
