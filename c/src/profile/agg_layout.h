/* agg_layout.h - the names of the aggregate file (profile mode's file and
 * sp_report's; docs/profile-mode.md, "The file"): the groups, datasets and
 * attributes that aggregate_h5.c writes and the reader (postproc/src:
 * reader_columnar.c, reader_agg_hist.c, reader_tree_agg.c,
 * reader_source.c) reads. The one list of both, as meta_keys.h is for the
 * /metadata keys; tests/house/agg_names.py checks that neither side spells
 * one of these names itself. String literals only, so that a path is
 * SP_AGG_PATHS "/" SP_AGG_INCLUSIVES. No declarations. */
#ifndef SP_AGG_LAYOUT_H
#define SP_AGG_LAYOUT_H

/* The root's attributes. */
#define SP_AGG_SCHEMA_ATTR "scope_profiler_schema" /* int64 2 */
#define SP_AGG_LAYOUT_ATTR "storage_layout"        /* "aggregate" */
#define SP_AGG_LAYOUT_NAME "aggregate"

/* metadata/: the run's attributes (layout_meta.c) and these. */
#define SP_AGG_META "metadata"
#define SP_AGG_MPI_SIZE "mpi_size"
#define SP_AGG_VERSION "scope_profiler_version"
#define SP_AGG_EVENTS_LOST "events_lost" /* calls not recorded (path cap, memory) */

/* region_table/: one row per region with a call path. */
#define SP_AGG_REGION_TABLE "region_table"
#define SP_AGG_NAMES "names"
#define SP_AGG_SOURCE_FILES "source_files" /* sp_region_at's file, "" for none */
#define SP_AGG_SOURCE_LINES "source_lines" /* its line, 0 for none */

/* The columns of the two sum tables, per (rank, region) in the reference
 * tool's names (with SP_AGG_REF_PREFIX) and per (rank, thread, region). */
#define SP_AGG_RANK_PAIRS "rank_region_index"
#define SP_AGG_THREAD_PAIRS "thread_region_index"
#define SP_AGG_REF_PREFIX "aggregate_"
#define SP_AGG_REGION_IDS "region_ids"
#define SP_AGG_RANKS "ranks"
#define SP_AGG_THREADS "threads"
#define SP_AGG_COUNTS "counts"
#define SP_AGG_TOTALS "totals"
#define SP_AGG_MINIMUMS "minimums"
#define SP_AGG_MAXIMUMS "maximums"
#define SP_AGG_EXCLUSIVES "exclusives"

/* The reference tool's columnar trace shares rank_region_index (the reader
 * reads both): each pair's events in events/ from this offset, this many. */
#define SP_AGG_EVENT_OFFSETS "event_offsets"
#define SP_AGG_EVENT_COUNTS "event_counts"

/* events/: empty start_times and end_times, for readers of the layout. */
#define SP_AGG_EVENTS "events"
#define SP_AGG_START_TIMES "start_times"
#define SP_AGG_END_TIMES "end_times"

/* call_paths/: one row per call path of a thread (ranks, threads,
 * region_ids, counts, minimums, maximums, exclusives as above). */
#define SP_AGG_PATHS "call_paths"
#define SP_AGG_PARENTS "parents"
#define SP_AGG_DEPTHS "depths"
#define SP_AGG_INCLUSIVES "inclusives"
#define SP_AGG_SUM_SQUARES "sum_squares"
#define SP_AGG_OPEN_CALLS "open_calls" /* attribute: calls open at sp_report */
#define SP_AGG_OPEN_CALLS_RULE "open_calls_rule"

/* call_path_histograms/: the nonzero buckets (counts as above). */
#define SP_AGG_HISTS "call_path_histograms"
#define SP_AGG_HIST_ROWS "rows"
#define SP_AGG_HIST_BUCKETS "buckets"
#define SP_AGG_HIST_SUB "sub_buckets"   /* attribute */
#define SP_AGG_HIST_NBUCKETS "nbuckets" /* attribute */
#define SP_AGG_HIST_RULE "rule"         /* attribute */

/* call_path_values/: per call path and key set there (sp_call_set* in
 * profile mode, docs/values.md): rows (of call_paths), keys, counts, sums,
 * minimums, maximums (float64; NaN for a string key, counted only). The
 * reduced file's reduced_path_values/ has paths (of reduced_paths) in
 * place of rows, the figures summed, min of mins, max of maxes. */
#define SP_AGG_PATH_VALUES "call_path_values"
#define SP_AGG_RED_PATH_VALUES "reduced_path_values"
#define SP_AGG_VAL_KEYS "keys"
#define SP_AGG_VAL_SUMS "sums"

/* Reduced across ranks (SCOPE_PROFILER_REDUCE; docs/profile-mode.md,
 * "Reduced across ranks"): attributes of metadata/, and the groups that
 * replace call_paths/ and call_path_histograms/. */
#define SP_AGG_REDUCED "reduced"         /* int64 1: ranks reduced */
#define SP_AGG_REDUCE_KEEP "reduce_keep" /* int64 k */
#define SP_AGG_RED_PATHS "reduced_paths" /* one row per call path across ranks */
#define SP_AGG_RED_NRANKS "rank_counts"  /* ranks with a finished call of the path */
#define SP_AGG_RED_PATH "paths"          /* a row of reduced_paths */
/* Each of counts, inclusives, exclusives with these suffixes. */
#define SP_AGG_RED_MIN "_min"
#define SP_AGG_RED_MAX "_max"
#define SP_AGG_RED_MEAN "_mean"
#define SP_AGG_RED_STD "_std"
#define SP_AGG_RED_SUM "_sum"
#define SP_AGG_RED_MIN_RANK "_min_rank"
#define SP_AGG_RED_MAX_RANK "_max_rank"
#define SP_AGG_RED_HISTS "reduced_path_histograms" /* paths, buckets, counts */
#define SP_AGG_KEPT "kept_ranks"                   /* region_ids, ranks, kinds, totals */
#define SP_AGG_KEPT_KINDS "kinds"                  /* 0: of the largest, 1: of the smallest */
#define SP_AGG_KEPT_PATHS "kept_paths"             /* the kept (rank, region) pairs' rows */
#define SP_AGG_KEPT_HISTS "kept_path_histograms"   /* rows, buckets, counts */

#endif
