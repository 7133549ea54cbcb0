/* self_time.c - the self (exclusive) time of regions, from the call tree:
 * what --top-n ranks the region charts by (chart_stats.h). */
#include <stdlib.h>

#include "chart_stats.h"

int sp_self_times(const sp_selection_t *sel, const int *rows, int n, double *self) {
  int nr = sp_reader_num_regions(sel->reader);
  int *of = malloc((size_t)(nr > 0 ? nr : 1) * sizeof *of); /* reader region -> j */
  if (!of) return SP_EXIT_IO;
  for (int g = 0; g < nr; g++) of[g] = -1;
  for (int j = 0; j < n; j++) of[sel->regions[rows[j]]] = j, self[j] = 0;
  sp_reader_tree_t *t;
  int rc = sp_tree_build(sel, 0, &t);
  for (int i = 0; rc == 0 && i < sp_reader_tree_num_nodes(t); i++) {
    const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, i);
    if (nd->region >= 0 && nd->region < nr && of[nd->region] >= 0)
      self[of[nd->region]] += (double)nd->exclusive;
  }
  if (rc == 0) sp_reader_tree_free(t);
  free(of);
  return rc;
}
