/* metric.h - the one rule for what a number of --compare, --compare --tree,
 * check, the HTML call tree and the durations chart aggregates; never
 * installed.
 *
 * Per file, a region's (or call path's) time on a rank is the sum over that
 * rank's threads; the default figure is the mean over the selected ranks of
 * those per-rank times (a rank without the region counts 0), so a weak-scaling
 * study with the same work per rank reads the same at 1, 2 or 4 ranks. */
#ifndef SP_METRIC_H
#define SP_METRIC_H

#include "pproc.h"

typedef enum sp_metric {
  SP_METRIC_RANK_MEAN = 0, /* mean over ranks of each rank's time (default) */
  SP_METRIC_RANK_MAX,      /* the slowest rank's time */
  SP_METRIC_TOTAL,         /* summed over ranks and threads */
  SP_METRIC_SELF,          /* exclusive time, mean over ranks */
  SP_METRIC_CALLS,         /* calls, mean over ranks */
  SP_METRIC_MEAN,          /* time per call (all calls of the selected ranks) */
  SP_METRIC_COUNT
} sp_metric_t;

/* "rank_mean|rank_max|total|self|calls|mean" */
extern const char sp_metric_choices[];
/* 0 and *m set, or -1 for an unknown name. */
int sp_metric_parse(const char *name, sp_metric_t *m);
const char *sp_metric_name(sp_metric_t m);
/* What a value of metric m is, for an output's header ("seconds per rank
 * (sum over the rank's threads), mean over the N ranks"). */
void sp_metric_rule(sp_metric_t m, int nranks, char *buf, size_t cap);
/* 1 for calls (a count), 0 for seconds. */
int sp_metric_is_count(sp_metric_t m);

/* A figure's value under m: ns, or calls. */
double sp_metric_of_figure(const sp_figure_t *f, sp_metric_t m);
/* A call-tree node's value under m over nranks selected ranks: ns, or calls. */
double sp_metric_of_node(const sp_reader_tree_node_t *nd, sp_metric_t m, int nranks);

/* sp_metric_wall (the denominator of every %): pproc.h, beside the figures. */

#endif
