/* figures.c - one number set per selected region for --compare and check:
 * calls, total and mean duration from the intervals, self time from the
 * call tree (so recursion is not counted twice in total). */
#include <stdlib.h>
#include <string.h>

#include "pproc.h"

int sp_figures_compute(const sp_selection_t *sel, sp_figure_t **out, int *n) {
  *out = calloc((size_t)(sel->nregions ? sel->nregions : 1), sizeof **out);
  *n = 0;
  if (!*out) return SP_EXIT_IO;
  sp_reader_tree_t *t;
  int rc = sp_tree_build(sel, 0, &t);
  for (int i = 0; rc == 0 && i < sel->nregions; i++) {
    sp_figure_t *fg = &(*out)[i];
    int g = sel->regions[i];
    fg->name = sp_reader_region_name(sel->reader, g);
    for (int j = 0; rc == 0 && j < sel->nranks; j++) {
      sp_reader_intervals_t iv;
      sp_reader_stats_t st;
      int err = sp_reader_load(sel->reader, g, sel->ranks[j], &iv);
      if (err < 0) {
        sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
        rc = sp_exit_for_reader(err);
        break;
      }
      sp_reader_stats_compute(&iv, &st);
      sp_reader_intervals_free(&iv);
      fg->calls += st.num_calls;
      fg->n += st.n;
      fg->total += (double)st.total;
    }
    fg->timed = fg->n > 0;
    fg->mean = fg->n ? fg->total / (double)fg->n : 0.0;
    for (int k = 0; rc == 0 && k < sp_reader_tree_num_nodes(t); k++) {
      const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, k);
      if (nd->region == g) fg->self += (double)nd->exclusive;
    }
    if (rc == 0) *n = i + 1;
  }
  sp_reader_tree_free(t);
  if (rc) {
    free(*out);
    *out = NULL;
    *n = 0;
  }
  return rc;
}
