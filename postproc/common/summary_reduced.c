/* summary_reduced.c - --summary and --tree of a profile-mode file reduced
 * across ranks (docs/profile-mode.md, "Reduced across ranks"): its
 * reduced_paths, one row per call path, said to be reduced in the header;
 * the per-rank tables after it are of the kept ranks only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pproc.h"

/* The path of p's names, "a > b > c", into buf. */
static void sp_path_name(const sp_reader_t *r, const sp_reader_reduced_t *x, int64_t p, char *buf,
                         size_t cap) {
  if (x->parent[p] >= 0) {
    sp_path_name(r, x, x->parent[p], buf, cap);
    size_t n = strlen(buf);
    snprintf(buf + n, cap - n, " > %s", sp_reader_region_name(r, x->region[p]));
  } else {
    snprintf(buf, cap, "%s", sp_reader_region_name(r, x->region[p]));
  }
}

/* Depth first, children in file order: the tree's order. */
static void sp_dfs(const sp_reader_reduced_t *x, int64_t p, int64_t *order, int64_t *n) {
  order[(*n)++] = p;
  for (int64_t c = p + 1; c < x->npaths; c++)
    if (x->parent[c] == p) sp_dfs(x, c, order, n);
}

static const sp_reader_reduced_t *sp_sort_x;
static int sp_incl_desc(const void *a, const void *b) {
  int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
  int64_t u = sp_sort_x->sum[1][i], v = sp_sort_x->sum[1][j];
  return u != v ? (u < v) - (u > v) : (i > j) - (i < j);
}

static void sp_row(const sp_reader_t *r, const sp_reader_reduced_t *x, int64_t p, int tree) {
  char name[4096];
  if (tree)
    snprintf(name, sizeof name, "%*s%s", 2 * x->depth[p], "",
             sp_reader_region_name(r, x->region[p]));
  else
    sp_path_name(r, x, p, name, sizeof name);
  printf("%6d %10lld %9lld %9lld %12.9f %12.9f %12.9f %8d %12.9f %8d %12.9f %s\n",
         x->rank_counts[p], (long long)x->sum[0][p], (long long)x->min[0][p],
         (long long)x->max[0][p], x->mean[1][p] * 1e-9, x->std[1][p] * 1e-9,
         (double)x->min[1][p] * 1e-9, x->min_rank[1][p], (double)x->max[1][p] * 1e-9,
         x->max_rank[1][p], x->mean[2][p] * 1e-9, name);
}

int sp_reduced_print(const sp_selection_t *sel, const sp_options_t *o, int tree) {
  sp_reader_reduced_t x;
  int got = sp_reader_reduced(sel->reader, &x);
  if (got == 0) return -1;
  if (got < 0) {
    sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
    return SP_EXIT_IO;
  }
  int64_t *order = malloc((size_t)(x.npaths ? x.npaths : 1) * sizeof *order), n = 0;
  if (!order) {
    sp_reader_reduced_free(&x);
    return SP_EXIT_IO;
  }
  for (int64_t p = 0; p < x.npaths; p++)
    if (tree ? x.parent[p] < 0 : 1) {
      if (tree)
        sp_dfs(&x, p, order, &n);
      else
        order[n++] = p;
    }
  if (!tree) {
    sp_sort_x = &x;
    qsort(order, (size_t)n, sizeof *order, sp_incl_desc);
  }
  (void)o;
  printf(
      "# ranks reduced: statistics across the %lld ranks of the job, per call path, over\n"
      "# the ranks where the path has a finished call (ranks); a rank's figure is the sum\n"
      "# over its threads; per region the %lld ranks of largest and of smallest total are\n"
      "# kept whole (kept_ranks, kept_paths: per-rank tables of this file show those only)\n"
      "# calls_*: per rank; incl_*_s: the rank's inclusive time (mean, std over ranks,\n"
      "# min and max with their ranks); excl_mean_s: the mean exclusive time\n",
      (long long)x.mpi_size, (long long)x.keep);
  printf("%6s %10s %9s %9s %12s %12s %12s %8s %12s %8s %12s %s\n", "ranks", "calls_sum",
         "calls_min", "calls_max", "incl_mean_s", "incl_std_s", "incl_min_s", "min_rank",
         "incl_max_s", "max_rank", "excl_mean_s", tree ? "region" : "call path");
  for (int64_t i = 0; i < n; i++) sp_row(sel->reader, &x, order[i], tree);
  free(order);
  sp_reader_reduced_free(&x);
  return 0;
}
