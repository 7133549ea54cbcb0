/* rank_pick.h - representative ranks for the views that draw a lane or a
 * cell per rank (the Gantt chart with its RSS tracks, the rank heat map)
 * when a file has more ranks than fit (issue 47). */
#ifndef SP_RANK_PICK_H
#define SP_RANK_PICK_H

#include "chart_stats.h"
#include "pproc.h"

/* Ranks that fit: with more selected ranks than this and no --ranks, the
 * per-rank views draw representative ranks (postproc/README.md). At 1024
 * ranks the heat map still gives a rank more than a pixel row, and a
 * Gantt lane per rank of one region is a pixel row or more. */
#define SP_RANKS_FIT 1024
/* Outliers drawn at most, the farthest from the median first. */
#define SP_RANKS_OUTLIERS 13

typedef struct sp_rank_pick {
  int region;           /* row (sel->regions) of the slowest region, -1 if none has time */
  int min, median, max; /* rank indices (reader) */
  int *outliers;        /* rank indices, farthest from the median first */
  int noutliers;
  int *ranks; /* every chosen rank index, ascending, each once */
  int n;
} sp_rank_pick_t;

/* The representative ranks of sel from its per-(region, rank) totals st
 * (sp_chart_stats_build of sel). The slowest region is the one with the
 * largest total time over the selected ranks (ties: the first row); v[k]
 * its total on rank k (0 where the rank has no timed call of it). min and
 * max are the ranks of the smallest and largest v (ties: the lower rank
 * id), median the rank at position (n - 1) / 2 of the ranks sorted by
 * (v, rank id). Outliers: v below Q1 - 1.5 IQR or above Q3 + 1.5 IQR
 * (quartiles interpolated linearly, as numpy.percentile), at most
 * SP_RANKS_OUTLIERS, the farthest from the median's v first (ties: the
 * lower rank id). Without a timed region: the first, middle and last
 * rank. Returns 0 or SP_EXIT_IO. */
int sp_rank_pick(const sp_selection_t *sel, const sp_chart_stats_t *st, sp_rank_pick_t *out);
void sp_rank_pick_free(sp_rank_pick_t *p);

/* "min r3, median r1000, max r17, outliers r5 r9 (region 'solve', 5 of 2000
 * ranks)": what the caption and the stderr line say. */
void sp_rank_pick_text(const sp_selection_t *sel, const sp_rank_pick_t *p, char *out, size_t cap);

/* The selections the per-rank views draw (the Gantt chart with its RSS
 * tracks, the rank heat map): each file's own, or a view on its
 * representative ranks when it has more ranks than fit and --ranks did
 * not choose. */
typedef struct sp_rank_views {
  sp_selection_t *sels;    /* per file: a copy of the file's selection, or the view */
  sp_chart_stats_t *stats; /* per file: the run's figures, or the view's */
  char **captions;         /* per file: what the caption says, NULL if all ranks */
  int nfiles;
} sp_rank_views_t;

/* 1 when some file has more selected ranks than fit and --ranks is not given. */
int sp_rank_views_needed(const sp_selection_t *sels, int nfiles, const sp_options_t *o);

/* The per-rank views' selections of c's files; says on stderr which ranks
 * stand for which file. Returns 0 or an sp_exit_t code. */
int sp_rank_views_build(const sp_charts_t *c, sp_rank_views_t *v);
void sp_rank_views_free(sp_rank_views_t *v);

#endif
