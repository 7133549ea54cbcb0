/* chart_lanes.h - the lanes of the time charts: one per (region, rank,
 * thread) where a region ran on several threads of a rank. */
#ifndef SP_CHART_LANES_H
#define SP_CHART_LANES_H

#include "pproc.h"

typedef struct sp_chart_lane {
  int region;     /* reader region index */
  int rank;       /* reader rank index */
  int64_t thread; /* thread id of this lane; -1: every interval of the pair */
  int colour;     /* index into the selection's regions (sel->regions) */
  int depth;      /* call depth shown in the label (of the region's first call path) */
  int key;        /* position of the region in call-tree order */
  int seq;        /* position before sorting (keeps the sort stable) */
} sp_chart_lane_t;

typedef struct sp_chart_lanes {
  sp_chart_lane_t *lane;
  int n;
  int64_t t0, t1; /* first start and last end over the lanes, ns */
  int any;        /* 1 if some lane has an interval */
} sp_chart_lanes_t;


/* Builds the lanes of sel in chart order (call-tree order of the regions,
 * then rank, then thread) and their time span; pairs with thread ids are
 * read once to find their threads. Returns an sp_exit_t code after
 * printing why. */
int sp_chart_lanes_build(const sp_selection_t *sel, sp_chart_lanes_t *out);
void sp_chart_lanes_free(sp_chart_lanes_t *l);

#endif
