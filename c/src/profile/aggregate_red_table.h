/* aggregate_red_table.h - the table of profile mode's reduction across
 * ranks (aggregate_reduce.h): per call path (a chain of region names) its
 * figures over ranks, merged histograms, per region the kept ranks; a
 * rank's table from its snapshot, merges, bytes (aggregate_red_table.c).
 * Never installed. */
#ifndef SP_AGGREGATE_RED_TABLE_H
#define SP_AGGREGATE_RED_TABLE_H

#include "aggregate_snap.h"

/* The figures reduced per call path: calls, inclusive, exclusive. */
enum { SP_RED_CALLS, SP_RED_INCL, SP_RED_EXCL, SP_RED_NFIGS };

/* One figure of one call path over the ranks where it has a finished call:
 * the rank's value is its threads' sum. The mean is sum / n; m2 the sum
 * of squared deviations from it (Chan et al.'s pairwise update, so that a
 * tree of merges keeps its precision). Ties go to the lower rank. */
typedef struct sp_red_fig {
  int64_t min, max, sum;
  int32_t min_rank, max_rank;
  double m2;
} sp_red_fig_t;

/* One call path across ranks: the chain of region names from the top. */
typedef struct sp_red_path {
  int32_t name;   /* region name id of the table */
  int32_t parent; /* path of the enclosing call, -1 at the top; always < own index */
  int32_t depth;
  int32_t n; /* ranks with a finished call of the path */
  sp_red_fig_t f[SP_RED_NFIGS];
} sp_red_path_t;

/* One of the k ranks of largest (kind 0) or smallest (kind 1) total of a
 * region: the rank's total over its threads and the region's paths. */
typedef struct sp_red_top {
  int32_t name, kind, rank, unused;
  int64_t total;
} sp_red_top_t;

typedef struct sp_red {
  char **names;
  int64_t nnames, ncap;
  int64_t *name_ix, name_slots; /* open addressing: name id or -1 */
  sp_red_path_t *paths;
  int64_t npaths, pcap;
  int64_t *path_ix, path_slots; /* open addressing over (parent, name): path or -1 */
  sp_agg_bk_t *bks;             /* row: the path; compacted (sorted, one per bucket) */
  int64_t nbks, bcap;
  sp_red_top_t *tops; /* sorted by name, kind, rank order; at most k a (name, kind) */
  int64_t ntops, tcap;
  int64_t lost, nopen;
  sp_agg_val_t *vals; /* row: the path; compacted (sorted, one per path and key) */
  int64_t nvals, vcap;
} sp_red_t;

SP_HIDDEN void sp__red_free(sp_red_t *t);
/* The name's id or -1. */
SP_HIDDEN int64_t sp__red_name_find(const sp_red_t *t, const char *name);
/* The path (parent, name) or -1. */
SP_HIDDEN int64_t sp__red_find(const sp_red_t *t, int32_t parent, int32_t name);
/* This rank's table from its snapshot (rank: the snapshot's; k: kept ranks). */
SP_HIDDEN int sp__red_from_snap(sp_red_t *t, const sp_agg_snap_t *s, int32_t rank, int k);
/* b merged into a (b unchanged). */
SP_HIDDEN int sp__red_merge(sp_red_t *a, const sp_red_t *b, int k);
SP_HIDDEN int sp__red_pack(const sp_red_t *t, char **blob, int64_t *len);
/* A blob of sp__red_pack into an empty t; SP_EINVAL when it does not hold. */
SP_HIDDEN int sp__red_unpack(sp_red_t *t, const char *blob, int64_t len);

#endif
