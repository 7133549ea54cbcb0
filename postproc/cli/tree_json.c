/* tree_json.c - call_tree.json: the call tree of one file as JSON.
 *
 *   {"units": {"durations": "seconds"}, "label", "file_path", "ranks": [...],
 *    "nodes": [{"path": [names from the root], "calls", "inclusive_seconds",
 *               "exclusive_seconds", "per_rank": {"<rank>": {"calls",
 *               "inclusive_seconds", "exclusive_seconds"}}, ...}]}
 *
 * Nodes in depth-first order, parents first; sums over the selected ranks
 * and threads; per_rank lists the ranks with calls on the path. Extra keys:
 * parent (node index or null), depth, rank_{min,mean,max}_seconds,
 * max_rank, imbalance, share (of the root's inclusive time), worker_calls;
 * source_file and source_lineno where the region has a source location.
 * Times are null for count-only regions (calls only). */
#include <stdio.h>
#include <stdlib.h>

#include "pproc.h"

static void sp_seconds(FILE *f, int timed, int64_t ns) {
  if (timed)
    sp_json_put_seconds(f, ns);
  else
    fputs("null", f);
}

static void sp_node_path(FILE *f, const sp_selection_t *sel, const sp_reader_tree_t *t, int i) {
  const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, i);
  if (nd->parent >= 0) {
    sp_node_path(f, sel, t, nd->parent);
    fputc(',', f);
  }
  sp_json_put_string(f, sp_reader_region_name(sel->reader, nd->region));
}

static void sp_node_json(FILE *f, const sp_selection_t *sel, const sp_reader_tree_t *t, int i) {
  const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, i);
  fputs("{\"path\":[", f);
  sp_node_path(f, sel, t, i);
  fprintf(f, "],\"calls\":%lld,\"inclusive_seconds\":", (long long)nd->calls);
  sp_seconds(f, nd->timed, nd->inclusive);
  fputs(",\"exclusive_seconds\":", f);
  sp_seconds(f, nd->timed, nd->exclusive);
  fputs(",\"per_rank\":{", f);
  int first = 1;
  for (int j = 0; j < sp_reader_tree_num_ranks(t); j++) {
    sp_reader_tree_rank_t rk;
    sp_reader_tree_rank(t, i, j, &rk);
    if (rk.calls == 0) continue;
    fprintf(f, "%s\"%d\":{\"calls\":%lld,\"inclusive_seconds\":", first ? "" : ",", rk.rank,
            (long long)rk.calls);
    sp_seconds(f, nd->timed, rk.inclusive);
    fputs(",\"exclusive_seconds\":", f);
    sp_seconds(f, nd->timed, rk.exclusive);
    fputc('}', f);
    first = 0;
  }
  fputs("},\"parent\":", f);
  if (nd->parent >= 0)
    fprintf(f, "%d", nd->parent);
  else
    fputs("null", f);
  fprintf(f, ",\"depth\":%d,\"rank_min_seconds\":", nd->depth);
  sp_seconds(f, nd->timed, nd->rank_min);
  fputs(",\"rank_mean_seconds\":", f);
  sp_seconds(f, nd->timed, nd->rank_mean);
  fputs(",\"rank_max_seconds\":", f);
  sp_seconds(f, nd->timed, nd->rank_max);
  fprintf(f, ",\"max_rank\":%d,\"imbalance\":%.15g,\"share\":%.15g,\"worker_calls\":%lld",
          nd->max_rank, nd->imbalance, nd->share, (long long)nd->worker_calls);
  char file[4096];
  int64_t line = 0;
  if (sp_reader_region_source(sel->reader, nd->region, file, sizeof file, &line) == 1) {
    fputs(",\"source_file\":", f);
    sp_json_put_string(f, file);
    fprintf(f, ",\"source_lineno\":%lld", (long long)line);
  }
  fputc('}', f);
}

void sp_tree_json_write(FILE *f, const sp_selection_t *sel, const sp_reader_tree_t *t,
                        const char *label) {
  char *abs = sp_path_absolute(sel->file);
  fputs("{\"units\":{\"durations\":\"seconds\"},\"label\":", f);
  if (label)
    sp_json_put_string(f, label);
  else
    fputs("null", f);
  fputs(",\"file_path\":", f);
  sp_json_put_string(f, abs ? abs : sel->file);
  free(abs);
  fputs(",\"ranks\":[", f);
  for (int j = 0; j < sel->nranks; j++)
    fprintf(f, "%s%d", j ? "," : "", sp_reader_rank_id(sel->reader, sel->ranks[j]));
  fputs("],\"nodes\":[", f);
  for (int i = 0; i < sp_reader_tree_num_nodes(t); i++) {
    fputs(i ? ",\n" : "\n", f);
    sp_node_json(f, sel, t, i);
  }
  fputs("\n]}\n", f);
}

int sp_tree_json_files(FILE *f, const sp_selection_t *sels, sp_reader_tree_t *const *trees,
                       const char *const *labels, int nfiles) {
  if (nfiles > 1) fputs("{\"units\":{\"durations\":\"seconds\"},\"files\":[\n", f);
  int rc = 0;
  for (int k = 0; rc == 0 && k < nfiles; k++) {
    sp_reader_tree_t *t = trees ? trees[k] : NULL;
    if (!t) rc = sp_tree_build(&sels[k], 0, &t);
    if (rc) break;
    if (k) fputs(",\n", f);
    sp_tree_json_write(f, &sels[k], t, labels[k]);
    if (!trees) sp_reader_tree_free(t);
  }
  if (nfiles > 1) fputs("]}\n", f);
  return rc;
}
