/* plan.h - what each rank will write at finalize, and where its data is. */
#ifndef SP_PLAN_H
#define SP_PLAN_H

#include "sp_internal.h"
#include "spill_read.h"

/* One region of one rank, as every rank must know it to create the layout. */
typedef struct sp_plan_region {
  char *name; /* raw region name, NUL-terminated */
  uint32_t len;
  /* 1: a thread other than thread 0 recorded events, so thread_ids is
   * written (without it readers take every event as thread 0's) */
  int32_t thread_ids;
  /* 1: an MPI call region with bytes and peer per event (mpi_extra.h) */
  int32_t mpi_extra;
  int64_t nevents; /* int64 stamps per dataset; 0 in count-only mode */
  int64_t ncalls;  /* num_calls attribute */
  /* source_file / source_lineno attributes (sp_region_at); NULL: none.
   * Owned as name is. */
  char *src_file;
  int64_t src_line;
} sp_plan_region_t;

typedef struct sp_rank_plan {
  int32_t rank;
  int32_t nthreads;   /* threads that recorded anything */
  int32_t time_trace; /* datasets exist */
  int32_t clock_tsc;  /* stamps were read from the TSC */
  int32_t recovered;  /* rebuilt from spill files after the run died */
  int32_t nregions;
  int64_t events_lost; /* dropped for lack of memory or disk */
  int64_t wall_time;   /* seconds since the epoch at finalize */
  /* CLOCK_MONOTONIC ns at which TRACE_MAX_MB truncated the trace, 0 if it
   * did not: the rank<N> attribute trace_truncated_at */
  int64_t trace_truncated_at;
  char host[64];
  /* clock offsets to rank 0: [0] after setup, [1] at finalize; written
   * as rank<N> attributes where valid (docs/design.md "Clock alignment") */
  sp_clock_offset_t clock[2];
  sp_plan_region_t *regions;
  sp_meta_list_t meta; /* this rank's run metadata (sp_metadata_set); owned */
  /* The communicators its MPI calls named (mpi_extra.h): ncomms sizes,
   * then their members' world ranks one after the other; owned */
  int32_t ncomms;
  int32_t *comm_sizes;
  int64_t ncomm_members;
  int32_t *comm_members;
} sp_rank_plan_t;

/* This rank's view: its plan plus where each region's events are. */
typedef struct sp_local {
  sp_rank_plan_t plan;
  int32_t *handles;      /* plan region i -> handle */
  sp_spill_file_t spill; /* fd < 0 when nothing was spilled */
  sp_thread_t **threads; /* by thread index; NULL entries when recovering */
  int32_t nthreads;
  const sp_calib_t *calib; /* ticks -> ns for this rank's events */
} sp_local_t;

SP_HIDDEN int sp__local_build(sp_local_t *l, int rank);
SP_HIDDEN void sp__local_free(sp_local_t *l);

/* Serialises a plan for MPI_Allgatherv; *blob is malloc'd. */
SP_HIDDEN int sp__plan_pack(const sp_rank_plan_t *p, char **blob, int64_t *len);
/* Reads a packed plan; names point into a malloc'd copy owned by p. */
SP_HIDDEN int sp__plan_unpack(const char *blob, int64_t len, sp_rank_plan_t *p);
SP_HIDDEN void sp__plan_free(sp_rank_plan_t *p);

#endif
