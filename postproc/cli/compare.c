/* compare.c - --compare: one table over several files, side by side.
 *
 * Per region (with --tree: per call path, inclusive time) the figure of
 * --metric for each file (metric.h; by default each rank's time summed
 * over its threads, mean over the selected ranks), then the ratio of each
 * later file to the first. Rows in the first file's order (regions by
 * first start, paths depth first), then what only later files have: a
 * region at the end, a call path after its parent's subtree. A value is
 * missing ("-", null) where a file lacks the row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metric.h"
#include "pproc.h"

typedef struct sp_item {
  char *key;     /* region name, or the path's names joined by '\x1f' */
  char *display; /* region name, or the indented last name */
  double *value; /* per file, ns; < 0 when absent */
} sp_item_t;

typedef struct sp_items {
  sp_item_t *v;
  int n, cap, nfiles;
} sp_items_t;

/* Where a new row goes: at the end, or for a call path whose parent is a
 * row, after the parent and the rows under it (so it prints under its own
 * parent, not under whatever row happens to be last). */
static int sp_item_slot(const sp_items_t *it, const char *key) {
  const char *sep = strrchr(key, '\x1f');
  if (!sep) return it->n;
  size_t plen = (size_t)(sep - key);
  int p = 0;
  while (p < it->n && (strlen(it->v[p].key) != plen || strncmp(it->v[p].key, key, plen) != 0)) p++;
  if (p == it->n) return it->n;
  int q = p + 1;
  while (q < it->n && strncmp(it->v[q].key, key, plen + 1) == 0) q++;
  return q;
}

static sp_item_t *sp_item_get(sp_items_t *it, const char *key, const char *display) {
  for (int i = 0; i < it->n; i++)
    if (strcmp(it->v[i].key, key) == 0) return &it->v[i];
  if (it->n == it->cap) {
    int cap = it->cap ? 2 * it->cap : 64;
    sp_item_t *v = realloc(it->v, (size_t)cap * sizeof *v);
    if (!v) return NULL;
    it->v = v;
    it->cap = cap;
  }
  int slot = sp_item_slot(it, key);
  memmove(&it->v[slot + 1], &it->v[slot], (size_t)(it->n - slot) * sizeof *it->v);
  sp_item_t *x = &it->v[slot];
  x->key = strdup(key);
  x->display = strdup(display);
  x->value = malloc((size_t)it->nfiles * sizeof *x->value);
  if (!x->key || !x->display || !x->value) {
    free(x->key);
    free(x->display);
    free(x->value);
    memmove(&it->v[slot], &it->v[slot + 1], (size_t)(it->n - slot) * sizeof *it->v);
    return NULL;
  }
  for (int k = 0; k < it->nfiles; k++) x->value[k] = -1.0;
  it->n++;
  return x;
}

static int sp_items_regions(sp_items_t *it, const sp_selection_t *sel, int k, sp_metric_t m) {
  sp_figure_t *fg;
  int n;
  int rc = sp_figures_compute(sel, &fg, &n);
  for (int i = 0; rc == 0 && i < n; i++) {
    sp_item_t *x = sp_item_get(it, fg[i].name, fg[i].name);
    if (!x)
      rc = SP_EXIT_IO;
    else if (fg[i].timed)
      x->value[k] = sp_metric_of_figure(&fg[i], m);
  }
  free(fg);
  return rc;
}

/* Key of tree node i: the names from the root, separated by '\x1f'. */
static size_t sp_path_key(const sp_selection_t *sel, const sp_reader_tree_t *t, int i, char *buf,
                          size_t cap) {
  const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, i);
  size_t len = nd->parent >= 0 ? sp_path_key(sel, t, nd->parent, buf, cap) : 0;
  const char *name = sp_reader_region_name(sel->reader, nd->region);
  int w = snprintf(buf + (len < cap ? len : cap), len < cap ? cap - len : 0, "%s%s",
                   nd->parent >= 0 ? "\x1f" : "", name);
  return len + (size_t)(w > 0 ? w : 0);
}

static int sp_items_paths(sp_items_t *it, const sp_selection_t *sel, int k, sp_metric_t m) {
  sp_reader_tree_t *t;
  int rc = sp_tree_build(sel, 0, &t);
  char key[4096], disp[4096];
  for (int i = 0; rc == 0 && i < sp_reader_tree_num_nodes(t); i++) {
    const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, i);
    sp_path_key(sel, t, i, key, sizeof key);
    snprintf(disp, sizeof disp, "%*s%s", nd->depth < 40 ? 2 * nd->depth : 80, "",
             sp_reader_region_name(sel->reader, nd->region));
    sp_item_t *x = sp_item_get(it, key, disp);
    if (!x)
      rc = SP_EXIT_IO;
    else if (nd->timed)
      x->value[k] = (x->value[k] < 0 ? 0 : x->value[k]) + sp_metric_of_node(nd, m, sel->nranks);
  }
  sp_reader_tree_free(t);
  return rc;
}

static void sp_compare_table(const sp_items_t *it, const char *const *labels, int nfiles,
                             const sp_options_t *o, const char *note) {
  sp_metric_t m = (sp_metric_t)o->metric;
  int count = sp_metric_is_count(m);
  double scale = count ? 1.0 : 1e-9;
  size_t nc = 2 * (size_t)(nfiles > 0 ? nfiles : 1);
  sp_col_t *cols = calloc(nc, sizeof *cols);
  char **names = calloc(nc, sizeof *names);
  sp_cell_t *c = calloc(nc, sizeof *c);
  if (!cols || !names || !c) goto out;
  for (int k = 0; k < nfiles; k++) {
    size_t cap = strlen(labels[k]) + strlen(labels[0]) + 8;
    names[k] = malloc(cap);
    if (names[k]) snprintf(names[k], cap, "%s_%s", labels[k], count ? "calls" : "s");
    cols[k] = (sp_col_t){names[k] ? names[k] : "?", count ? SP_COL_RATIO : SP_COL_SEC, 14};
    if (k == 0) continue;
    names[nfiles - 1 + k] = malloc(cap);
    if (names[nfiles - 1 + k]) snprintf(names[nfiles - 1 + k], cap, "%s/%s", labels[k], labels[0]);
    cols[nfiles - 1 + k] =
        (sp_col_t){names[nfiles - 1 + k] ? names[nfiles - 1 + k] : "?", SP_COL_RATIO, 10};
  }
  cols[nc - 1] = (sp_col_t){o->tree ? "path" : "region", SP_COL_STR, 0};
  sp_table_t tb;
  sp_table_set_file(0, 1, NULL);
  sp_table_begin(&tb, o->table, cols, (int)nc, note);
  for (int i = 0; i < it->n; i++) {
    const double *v = it->v[i].value;
    for (int k = 0; k < nfiles; k++) {
      c[k] = (sp_cell_t){v[k] < 0, 0, scale * v[k], NULL};
      if (k)
        c[nfiles - 1 + k] = (sp_cell_t){v[k] < 0 || v[0] <= 0, 0, v[0] > 0 ? v[k] / v[0] : 0, NULL};
    }
    c[nc - 1] = (sp_cell_t){
        0, 0, 0, o->table == SP_TABLE_TEXT || !o->tree ? it->v[i].display : it->v[i].key};
    if (o->tree && o->table != SP_TABLE_TEXT) {
      /* Machine formats: the path with '/' between names (ambiguous when names hold '/';
       * --tree --format json has the exact paths). */
      for (char *p = it->v[i].key; *p; p++)
        if (*p == '\x1f') *p = '/';
    }
    sp_table_row(&tb, c);
  }
  sp_table_end(&tb);
out:
  for (size_t k = 0; names && k < nc; k++) free(names[k]);
  free(names);
  free(cols);
  free(c);
}

int sp_compare_print(const sp_selection_t *sels, const char *const *labels, int nfiles,
                     const sp_options_t *o) {
  sp_items_t it = {NULL, 0, 0, nfiles};
  int rc = 0;
  sp_metric_t m = (sp_metric_t)o->metric;
  for (int k = 0; rc == 0 && k < nfiles; k++)
    rc = o->tree ? sp_items_paths(&it, &sels[k], k, m) : sp_items_regions(&it, &sels[k], k, m);
  /* The header says what every number is: the metric, per file its ranks. */
  char note[1024], rule[256];
  int len = snprintf(note, sizeof note, "# %s of each file; ratios: later file / first",
                     o->tree ? "per call path (inclusive time)" : "per region");
  for (int k = 0; k < nfiles && len > 0 && (size_t)len < sizeof note; k++) {
    sp_metric_rule(m, sels[k].nranks, rule, sizeof rule);
    len += snprintf(note + len, sizeof note - (size_t)len, "\n# %s: %s", labels[k], rule);
  }
  if (rc == 0) sp_compare_table(&it, labels, nfiles, o, note);
  for (int i = 0; i < it.n; i++) {
    free(it.v[i].key);
    free(it.v[i].display);
    free(it.v[i].value);
  }
  free(it.v);
  return rc;
}
