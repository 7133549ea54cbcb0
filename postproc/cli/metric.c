/* metric.c - the aggregation rule of metric.h: names, header text, values. */
#include <stdio.h>
#include <string.h>

#include "metric.h"

static const char *const sp_metric_names[SP_METRIC_COUNT] = {"rank_mean", "rank_max", "total",
                                                            "self",      "calls",    "mean"};

const char sp_metric_choices[] = "rank_mean|rank_max|total|self|calls|mean";

int sp_metric_parse(const char *name, sp_metric_t *m) {
  for (int k = 0; name && k < SP_METRIC_COUNT; k++)
    if (!strcmp(name, sp_metric_names[k])) {
      *m = (sp_metric_t)k;
      return 0;
    }
  return -1;
}

const char *sp_metric_name(sp_metric_t m) {
  return m >= 0 && m < SP_METRIC_COUNT ? sp_metric_names[m] : "?";
}

int sp_metric_is_count(sp_metric_t m) { return m == SP_METRIC_CALLS; }

void sp_metric_rule(sp_metric_t m, int nranks, char *buf, size_t cap) {
  const char *s = nranks == 1 ? "" : "s";
  switch (m) {
  case SP_METRIC_RANK_MAX:
    snprintf(buf, cap, "rank_max: seconds on the slowest of the %d rank%s (each rank's time summed "
             "over its threads)", nranks, s);
    break;
  case SP_METRIC_TOTAL:
    snprintf(buf, cap, "total: seconds summed over the %d rank%s and their threads", nranks, s);
    break;
  case SP_METRIC_SELF:
    snprintf(buf, cap, "self: exclusive seconds per rank (summed over its threads), mean over "
             "the %d rank%s", nranks, s);
    break;
  case SP_METRIC_CALLS:
    snprintf(buf, cap, "calls: calls per rank (all threads), mean over the %d rank%s", nranks, s);
    break;
  case SP_METRIC_MEAN:
    snprintf(buf, cap, "mean: seconds per call over the calls of the %d rank%s", nranks, s);
    break;
  default:
    snprintf(buf, cap, "rank_mean: seconds per rank (summed over its threads), mean over the %d "
             "rank%s", nranks, s);
    break;
  }
}

double sp_metric_of_figure(const sp_figure_t *f, sp_metric_t m) {
  switch (m) {
  case SP_METRIC_RANK_MAX:
    return f->rank_max;
  case SP_METRIC_TOTAL:
    return f->total;
  case SP_METRIC_SELF:
    return f->nranks ? f->self / f->nranks : 0.0;
  case SP_METRIC_CALLS:
    return f->nranks ? (double)f->calls / f->nranks : 0.0;
  case SP_METRIC_MEAN:
    return f->mean;
  default:
    return f->rank_mean;
  }
}

double sp_metric_of_node(const sp_reader_tree_node_t *nd, sp_metric_t m, int nranks) {
  double per = nranks > 0 ? 1.0 / nranks : 0.0;
  switch (m) {
  case SP_METRIC_RANK_MAX:
    return nd->rank_max;
  case SP_METRIC_TOTAL:
    return (double)nd->inclusive;
  case SP_METRIC_SELF:
    return per * (double)nd->exclusive;
  case SP_METRIC_CALLS:
    return per * (double)nd->calls;
  case SP_METRIC_MEAN:
    return nd->calls ? (double)nd->inclusive / (double)nd->calls : 0.0;
  default:
    return per * (double)nd->inclusive;
  }
}
