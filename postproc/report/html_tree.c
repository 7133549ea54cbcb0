/* html_tree.c - the call tree of report.html, from the reader's call tree.
 *
 * Written as "tree": one object per call path in the reader's depth-first
 * order (a parent before its children, children by inclusive time), with
 * the figures of the table: calls, inclusive and exclusive time (sums over
 * the ranks, and the exclusive mean per rank), min, mean and max of the
 * per-rank inclusive time and the imbalance. The page orders
 * its lanes by the first node of each region, sorts and folds the table. */
#include "html.h"

int sp_html_tree_build(const sp_selection_t *sel, sp_reader_tree_t **t) {
  int err =
      sp_reader_tree_build(sel->reader, sel->regions, sel->nregions, sel->ranks, sel->nranks, 0, t);
  if (err < 0) {
    sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
    return sp_exit_for_reader(err);
  }
  return 0;
}

void sp_html_tree_write(FILE *f, const sp_reader_tree_t *t, const int *gpos) {
  int n = sp_reader_tree_num_nodes(t);
  int nranks = sp_reader_tree_num_ranks(t);
  fputs(",\n\"tree\":[", f);
  for (int i = 0; i < n; i++) {
    const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, i);
    fprintf(f,
            "%s\n{\"p\":%d,\"g\":%d,\"d\":%d,\"timed\":%d,\"calls\":%lld,\"incl\":%lld,"
            "\"excl\":%lld,\"emean\":%.1f,\"rmin\":%.0f,\"rmean\":%.1f,\"rmax\":%.0f,\"maxr\":%d,\"imb\":%.4f}",
            i ? "," : "", nd->parent, gpos[nd->region], nd->depth, nd->timed, (long long)nd->calls,
            (long long)nd->inclusive, (long long)nd->exclusive,
            nranks > 0 ? (double)nd->exclusive / nranks : 0.0, nd->rank_min, nd->rank_mean,
            nd->rank_max, nd->max_rank, nd->imbalance);
  }
  fputc(']', f);
}
