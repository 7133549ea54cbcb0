/* par.h - what finalize needs from MPI, behind a small interface.
 *
 * par->active is 0 in a build without MPI, when MPI was never initialised
 * (a serial run of an MPI build) and after MPI_Finalize; finalize then
 * writes serially as rank 0. */
#ifndef SP_PAR_H
#define SP_PAR_H

#include <hdf5.h>

#include "sp_internal.h"

typedef struct sp_block {
  int64_t file_off; /* where in the file */
  int64_t mem_off;  /* where in the round buffer */
  int64_t len;      /* bytes */
} sp_block_t;

typedef struct sp_par {
  int active; /* MPI usable: collective finalize over the communicator */
  int rank;
  int size;
  int ranks_per_cpu; /* the most ranks sharing a CPU on any node (same on all ranks,
                      * 1 without MPI): above 1 waiting ranks sleep instead of
                      * spinning (mpi_polite.c) */
  int any_active;    /* some rank records (sp__state.cfg.profiling_activated): 0 or 1
                      * as the arrival told every rank, -1 unknown */
  void *impl;        /* mpi_glue.c's communicator and file */
} sp_par_t;

/* The collective operations of the library, which every rank must call
 * in the same order (the arrival message carries which, mpi_arrival.c). */
typedef enum sp_par_op { SP_PAR_FINALIZE = 1, SP_PAR_REPORT = 2 } sp_par_op_t;

/* Begins one collective operation op over the session's communicator: a
 * bounded wait for every rank to begin the same one (mpi_arrival.c), then
 * a communicator of its own. 0, SP_ETIMEDOUT (ranks missing), SP_EMPI (a
 * rank began another operation, or MPI failed), SP_ENOMEM. */
SP_HIDDEN int sp__par_begin(sp_par_t *p, sp_par_op_t op);
/* sp_setup: the operations of the new session are numbered from 1. */
SP_HIDDEN void sp__par_session_begin(void);
/* Ends it. keep: the same on every rank, nonzero only where every rank
 * agreed that the operation succeeded (nothing of it is left in flight):
 * its communicator serves the next operation (mpi_glue.h, the spare). */
SP_HIDDEN void sp__par_end(sp_par_t *p, int keep);
/* This rank's clock offset to rank 0 (clock_offset.c), collective, bounded
 * by the finalize timeout; offset 0 without MPI. 0, or SP_ETIMEDOUT /
 * SP_EMPI with out->valid 0 when no exchange completed. */
SP_HIDDEN int sp__par_clock_offset(sp_par_t *p, sp_clock_offset_t *out);
/* Gathers every rank's blob; *all holds them back to back, offs[r] where
 * rank r's starts and offs[size] the total. Caller frees both. */
SP_HIDDEN int sp__par_allgather(sp_par_t *p, const char *blob, int64_t len, char **all,
                                int64_t **offs);
/* The same, received by rank 0 only (the others get offs, not the blobs). */
SP_HIDDEN int sp__par_gather_root(sp_par_t *p, const char *blob, int64_t len, char **all,
                                  int64_t **offs);
/* File access list for parallel HDF5 with collective metadata. */
SP_HIDDEN hid_t sp__par_fapl(sp_par_t *p);
/* Rank 0 sends by_rank[r] (plans[r].nregions offsets) to each rank r,
 * which receives its own into mine (nmine entries). Collective. */
struct sp_region_offsets;
struct sp_rank_plan;
SP_HIDDEN int sp__par_scatter_offsets(sp_par_t *p, const struct sp_rank_plan *plans,
                                      struct sp_region_offsets *const *by_rank,
                                      struct sp_region_offsets *mine, int32_t nmine);
SP_HIDDEN int sp__par_raw_open(sp_par_t *p, const char *path);
/* One collective write round: blocks of buf (n may be 0). *any_active is
 * set to whether any rank passed active=1; when none did nothing is written. */
SP_HIDDEN int sp__par_raw_round(sp_par_t *p, sp_block_t *blocks, int n, const char *buf, int active,
                                int *any_active);
SP_HIDDEN int sp__par_raw_close(sp_par_t *p);
/* Writes blocks of buf at their offsets, this rank alone (independent). */
SP_HIDDEN int sp__par_raw_write_at(sp_par_t *p, const sp_block_t *blocks, int n, const char *buf);
/* Rank 0's blob (*buf, *len; len -1: rank 0 failed) to every rank: the
 * others get a malloc'd copy in *buf (NULL when rank 0 failed, then
 * SP_EMPI). Collective. */
SP_HIDDEN int sp__par_bcast(sp_par_t *p, char **buf, int64_t *len);
/* sp__par_bcast, and with it rank r's k values each[r * k .. + k) from
 * rank 0 into mine on rank r (rank 0's own too; zeros where each is NULL
 * on rank 0); k <= 8. Where ranks share cores a waiting rank wakes once
 * for both, and rank 0 does not wait for the last one: it hands its *buf
 * (malloc'd) over in every case (NULL after), and its sends complete in
 * sp__par_late_finish or sp__par_end. Collective. */
SP_HIDDEN int sp__par_bcast_each(sp_par_t *p, char **buf, int64_t *len, const int64_t *each, int k,
                                 int64_t *mine);
/* Rank 0: waits (asleep where ranks share cores) until the sends of the
 * last sp__par_bcast_each are complete; 0 or SP_EMPI. Nothing to do
 * elsewhere. */
SP_HIDDEN int sp__par_late_finish(sp_par_t *p);
/* A transfer list for parallel HDF5's collective writes (H5FD_MPIO_COLLECTIVE);
 * the default one without MPI. */
SP_HIDDEN hid_t sp__par_dxpl(sp_par_t *p);

/* Point to point for profile mode's reduction (aggregate_reduce.c): a blob
 * of len bytes to rank `to` (len -1: the sender failed, no bytes), and the
 * one from rank `from` (malloc'ed into *blob, *len -1 when it failed).
 * Waiting ranks sleep where ranks share cores. Tags apart per phase. */
SP_HIDDEN int sp__par_send_blob(sp_par_t *p, int to, int tag, const char *blob, int64_t len);
SP_HIDDEN int sp__par_recv_blob(sp_par_t *p, int from, int tag, char **blob, int64_t *len);
/* The first nonzero rc of any rank (collective); rc when not active. */
SP_HIDDEN int sp__par_agree(sp_par_t *p, int rc);
/* sp__par_agree, and where that is 0, root_then(arg)'s status on rank 0,
 * which every rank returns: rank 0's next piece of work rides in the
 * agreement's answer, where ranks share cores one exchange instead of two
 * (finalize.c's publish). Collective; root_then runs on rank 0 only. */
SP_HIDDEN int sp__par_agree_then(sp_par_t *p, int rc, int (*root_then)(void *), void *arg);

#endif
