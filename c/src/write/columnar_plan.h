/* columnar_plan.h - the trace file in the reference tool's columnar layout.
 *
 * The layout (schema 3, @storage_layout = "columnar") has a fixed number of
 * HDF5 objects whatever the number of ranks: one table of region names,
 * one index row per (rank, region) pair and one column per event field,
 * each rank's rows and events one contiguous slice (docs/design.md, "The
 * columnar layout"). columnar_plan.c gathers this rank's part, and
 * columnar_write.c (columnar_write.h) writes every rank's part together. */
#ifndef SP_COLUMNAR_PLAN_H
#define SP_COLUMNAR_PLAN_H

#include "par.h"
#include "plan.h"

/* SCOPE_PROFILER_LAYOUT's values are sp_config's SP_LAYOUT_* (scope_profiler.h);
 * with both, the columnar file is file_path followed by this: */
#define SP_COLUMNAR_SUFFIX ".columnar.h5"
/* From this many ranks on, auto writes the columnar layout. */
#define SP_COLUMNAR_RANKS 1024

/* The counts each rank sends rank 0 and rank 0 sums: pairs, events,
 * ranks with MPI call regions, the caller's flag; the first SP_COL_PLACE
 * of them place a rank's rows and events in the columns. */
enum { SP_COL_COUNTS = 4, SP_COL_PLACE = 2 };

/* This rank's part of the file. Event arrays hold the events of pair p at
 * [first[p], first[p] + count[p]), in the order of the rank<N> layout
 * (thread by thread, each in recorded order). */
typedef struct sp_col_local {
  int64_t npairs;     /* this rank's regions */
  int64_t nevents;    /* this rank's events */
  uint32_t *gid;      /* [npairs] index into the name table */
  uint64_t *first;    /* [npairs] first event of the pair, from 0 on this rank */
  uint64_t *count;    /* [npairs] events */
  int64_t *ncalls;    /* [npairs] the num_calls of the rank<N> layout */
  int64_t *start;     /* [nevents] ns; the columns live in one mapping */
  int64_t *end;       /* [nevents] ns */
  int32_t *tid;       /* [nevents] */
  int64_t *bytes;     /* [nevents] MPI call regions' bytes, -1 elsewhere */
  int32_t *peer;      /* [nevents] MPI call regions' peer, -1 elsewhere */
  int32_t *tag;       /* [nevents] MPI call regions' tag, -1 elsewhere */
  int32_t *comm;      /* [nevents] MPI call regions' communicator id, -1 elsewhere */
  int64_t *call_id;   /* [nevents] unique within the rank */
  int64_t *parent_id; /* [nevents] the enclosing call's id, -1 for none */
  int any_mpi;        /* some pair has bytes and peers */
  void *map;          /* the columns start..comm */
  size_t map_len;
  /* The name table, the same on every rank: sorted and distinct, so a
   * region id orders as its name does. */
  char **names;
  int64_t nnames;
  size_t name_max; /* longest name + 1 */
  char *gathered;  /* the table rank 0 sent: the names point into it */
  int64_t table_len;
  /* Rank 0 only, from the first exchange: the counts summed over the
   * ranks, each rank's place (SP_COL_PLACE sums of the ranks below it),
   * and every rank's extras (columnar_extras.h), rank r's at
   * xall[xat[r] .. xat[r + 1]). */
  int64_t total[SP_COL_COUNTS];
  int64_t *before_all;
  char *xall;
  int64_t *xat;
  /* From the table: rank 0's host and time, totals over ranks. */
  char host0[64];
  int64_t wall_time0, events_lost, clock_tsc0;
  int32_t max_threads;
  int32_t borrowed; /* names belong to another's table (recovery) */
} sp_col_local_t;

/* Begins l's part: its counts (npairs, nevents, first, count, ncalls,
 * any_mpi), then every rank's head, names and extras (xblob, xlen bytes:
 * sp__columnar_extras_pack's) gathered on rank 0, which makes the name
 * table, the sums and places (total, before_all) and its own regions'
 * ids. flag: a number of this rank's summed into total[3]. Collective;
 * on failure a rank still takes part. The others take the table from
 * rank 0 (columnar_write.c sends it before the file's offsets) with
 * sp__col_table_take (table: malloc'd, kept by c), which gives their
 * regions' ids. sp__col_local_finish, on this rank alone, needs neither:
 * its events and their call ids (rank 0 creates the file in between,
 * while the others build theirs); sp__col_local_mpi_fill then sets -1
 * in the MPI columns for its other calls where the file has them (some
 * rank has MPI call regions). */
SP_HIDDEN int sp__col_local_begin(sp_par_t *par, const sp_local_t *l, int64_t flag,
                                  const char *xblob, int64_t xlen, sp_col_local_t *c);
SP_HIDDEN int sp__col_table_take(const sp_local_t *l, char *table, int64_t len, sp_col_local_t *c);
SP_HIDDEN int sp__col_local_finish(const sp_local_t *l, sp_col_local_t *c);
SP_HIDDEN void sp__col_local_mpi_fill(const sp_local_t *l, sp_col_local_t *c);
SP_HIDDEN void sp__col_local_free(sp_col_local_t *c);
/* Recovery, serial: the name table (and head) of the n ranks ls into t, as
 * rank 0 makes it at finalize; then one rank's part with t's names
 * (borrowed: t outlives c). */
SP_HIDDEN int sp__col_table_serial(const sp_local_t *ls, int n, sp_col_local_t *t);
SP_HIDDEN int sp__col_local_build_serial(const sp_local_t *l, const sp_col_local_t *t,
                                         int mpi_columns, sp_col_local_t *c);

#endif
