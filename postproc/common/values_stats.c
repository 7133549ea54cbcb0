/* values_stats.c - the figures of the values per call (sp_call_set*;
 * docs/values.md) per region and key over the selected ranks: the rows of
 * --values (printed by cli/summary_columns.c) and the means of --summary
 * --columns value:KEY.
 *
 * Numbers: the calls that set the key, their sum, mean, min and max.
 * Strings: one row per distinct value with its count, the 20 most frequent
 * (ties by value), then one "(N more)" row with the count of the rest.
 * One region's keys are held at a time (its pairs read one by one), so the
 * memory is that of the largest pair and of one region's distinct strings.
 * Profile-mode files keep per call path the count, sum, min and max of each
 * numeric key, and only the count of a string key: summed here per region. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pproc.h"
#include "values_stats.h"

#define SP_VALUES_TOP 20

typedef struct sp_vstr {
  char *s;
  int64_t count;
} sp_vstr_t;

/* One key of one region over the selected ranks. */
typedef struct sp_vacc {
  char *key;
  int str;          /* string values */
  int real;         /* numbers, some of them float64 */
  int counted_only; /* profile mode's strings: no values known */
  int64_t calls;
  double sum, min, max;
  sp_vstr_t *vals; /* distinct strings in strcmp order */
  int64_t nvals;
} sp_vacc_t;

typedef struct sp_vaccs {
  sp_vacc_t *a;
  int n, cap;
} sp_vaccs_t;

static void sp_vaccs_clear(sp_vaccs_t *v) {
  for (int i = 0; i < v->n; i++) {
    for (int64_t j = 0; j < v->a[i].nvals; j++) free(v->a[i].vals[j].s);
    free(v->a[i].vals);
    free(v->a[i].key);
  }
  v->n = 0;
}

static sp_vacc_t *sp_vacc_find(sp_vaccs_t *v, const char *key, int str) {
  for (int i = 0; i < v->n; i++)
    if (v->a[i].str == str && !strcmp(v->a[i].key, key)) return &v->a[i];
  if (v->n == v->cap) {
    int cap = v->cap ? 2 * v->cap : 16;
    sp_vacc_t *a = realloc(v->a, (size_t)cap * sizeof *a);
    if (!a) return NULL;
    v->a = a;
    v->cap = cap;
  }
  sp_vacc_t *c = &v->a[v->n];
  memset(c, 0, sizeof *c);
  c->key = strdup(key);
  if (!c->key) return NULL;
  c->str = str;
  c->min = INFINITY;
  c->max = -INFINITY;
  v->n++;
  return c;
}

static void sp_vacc_number(sp_vacc_t *c, int64_t count, double sum, double mn, double mx) {
  c->calls += count;
  c->sum += sum;
  if (mn < c->min) c->min = mn;
  if (mx > c->max) c->max = mx;
}

static int sp_strp_cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Adds the n set strings s[] (sorted here) into c's sorted distinct values. */
static int sp_vacc_strings(sp_vacc_t *c, char **s, int64_t n) {
  if (n > 1) qsort(s, (size_t)n, sizeof *s, sp_strp_cmp);
  sp_vstr_t *m = malloc((size_t)(c->nvals + n + 1) * sizeof *m);
  if (!m) return -1;
  int64_t i = 0, j = 0, k = 0;
  while (i < c->nvals || j < n) {
    int cmp = i == c->nvals ? 1 : j == n ? -1 : strcmp(c->vals[i].s, s[j]);
    if (cmp < 0) {
      m[k++] = c->vals[i++];
      continue;
    }
    int64_t run = 1;
    while (j + run < n && !strcmp(s[j], s[j + run])) run++;
    if (cmp == 0) {
      m[k] = c->vals[i++];
      m[k++].count += run;
    } else {
      m[k].s = strdup(s[j]);
      if (!m[k].s) {
        free(m);
        return -1;
      }
      m[k++].count = run;
    }
    j += run;
  }
  free(c->vals);
  c->vals = m;
  c->nvals = k;
  c->calls += n;
  return 0;
}

static int sp_values_add_pair(sp_vaccs_t *acc, const sp_reader_values_t *v) {
  char **s = malloc((size_t)(v->n + 1) * sizeof *s);
  if (!s) return -1;
  int rc = 0;
  for (int i = 0; rc == 0 && i < v->nkeys; i++) {
    const sp_reader_value_key_t *c = &v->keys[i];
    sp_vacc_t *a = sp_vacc_find(acc, c->key, c->kind == SP_READER_VALUE_STRING);
    if (!a) {
      rc = -1;
      break;
    }
    int64_t ns = 0;
    for (int64_t e = 0; e < v->n; e++) {
      if (!sp_reader_value_set(c, e)) continue;
      if (c->kind == SP_READER_VALUE_STRING) {
        s[ns++] = c->strings[e];
      } else {
        double x = c->kind == SP_READER_VALUE_INT ? (double)c->ints[e] : c->reals[e];
        sp_vacc_number(a, 1, x, x, x);
      }
    }
    a->real |= c->kind == SP_READER_VALUE_REAL;
    if (ns && sp_vacc_strings(a, s, ns) < 0) rc = -1;
  }
  free(s);
  return rc;
}

static int sp_vstr_by_count(const void *a, const void *b) {
  const sp_vstr_t *x = a, *y = b;
  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return strcmp(x->s, y->s);
}

static int sp_vacc_by_key(const void *a, const void *b) {
  const sp_vacc_t *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : x->str - y->str;
}

const sp_col_t sp_values_cols[SP_VALUES_NCOLS] = {
    {"calls", SP_COL_INT, 9}, {"sum", SP_COL_NUM, 17}, {"mean", SP_COL_NUM, 17},
    {"min", SP_COL_NUM, 17},  {"max", SP_COL_NUM, 17}, {"count", SP_COL_INT, 8},
    {"kind", SP_COL_STR, 6},  {"key", SP_COL_STR, 16}, {"value", SP_COL_STR, 16},
    {"region", SP_COL_STR, 0}};

/* The rows of one region's keys. */
static void sp_values_region_rows(const char *region, sp_vaccs_t *acc, sp_values_row_fn row,
                                  void *ctx, int64_t *nrows) {
  if (acc->n > 1) qsort(acc->a, (size_t)acc->n, sizeof *acc->a, sp_vacc_by_key);
  for (int i = 0; i < acc->n; i++) {
    sp_vacc_t *a = &acc->a[i];
    if (a->calls == 0) continue;
    sp_cell_t c[SP_VALUES_NCOLS] = {{0}};
    for (int j = 0; j < SP_VALUES_NCOLS; j++) c[j].missing = 1;
    c[0] = (sp_cell_t){.i = a->calls};
    c[6] = (sp_cell_t){.s = a->str ? "string" : a->real ? "real" : "int"};
    c[7] = (sp_cell_t){.s = a->key};
    c[9] = (sp_cell_t){.s = region};
    if (!a->str) {
      c[1] = (sp_cell_t){.d = a->sum};
      c[2] = (sp_cell_t){.d = a->sum / (double)a->calls};
      c[3] = (sp_cell_t){.d = a->min};
      c[4] = (sp_cell_t){.d = a->max};
    }
    if (!a->str || a->counted_only) {
      row(ctx, c);
      (*nrows)++;
      continue;
    }
    if (a->nvals > 1) qsort(a->vals, (size_t)a->nvals, sizeof *a->vals, sp_vstr_by_count);
    int64_t rest = 0;
    for (int64_t j = SP_VALUES_TOP; j < a->nvals; j++) rest += a->vals[j].count;
    char more[64];
    for (int64_t j = 0; j < a->nvals && j <= SP_VALUES_TOP; j++) {
      if (j == SP_VALUES_TOP) snprintf(more, sizeof more, "(%lld more)", (long long)(a->nvals - j));
      c[8] = (sp_cell_t){.s = j == SP_VALUES_TOP ? more : a->vals[j].s};
      c[5] = (sp_cell_t){.i = j == SP_VALUES_TOP ? rest : a->vals[j].count};
      row(ctx, c);
      (*nrows)++;
    }
  }
}

/* Whether rank id rank is selected; -1 (a reduced file's row, over every
 * rank) always is. */
static int sp_values_rank_kept(const sp_selection_t *sel, int32_t rank) {
  if (rank < 0) return 1;
  int k = sp_reader_rank_index(sel->reader, rank), keep = 0;
  for (int j = 0; j < sel->nranks && !keep; j++) keep = sel->ranks[j] == k;
  return keep;
}

/* Profile mode: the call paths of region g on the selected ranks. */
static int sp_values_paths(const sp_selection_t *sel, const sp_reader_path_values_t *pv, int g,
                           sp_vaccs_t *acc) {
  for (int64_t i = 0; i < pv->n; i++) {
    if (pv->region[i] != g || pv->counts[i] <= 0 || !sp_values_rank_kept(sel, pv->rank[i]))
      continue;
    int str = isnan(pv->sums[i]);
    sp_vacc_t *a = sp_vacc_find(acc, pv->keys[i], str);
    if (!a) return -1;
    a->counted_only = str;
    a->real = 1; /* float64 sums: the kind recorded is not stored */
    if (str)
      a->calls += pv->counts[i];
    else
      sp_vacc_number(a, pv->counts[i], pv->sums[i], pv->mins[i], pv->maxs[i]);
  }
  return 0;
}

int sp_values_rows(const sp_selection_t *sel, sp_values_row_fn row, void *ctx, int64_t *nrows) {
  sp_reader_t *r = sel->reader;
  *nrows = 0;
  sp_vaccs_t acc = {0};
  sp_reader_path_values_t pv;
  int paths = sp_reader_path_values_load(r, &pv), rc = 0;
  int64_t lost = 0;
  if (paths < 0) {
    sp_msg(SP_QUIET, "%s: %s", sel->file, sp_reader_errmsg(r));
    return SP_EXIT_DATA;
  }
  if (paths > 0 && pv.reduced && sel->nranks < sp_reader_num_ranks(r))
    sp_msg(SP_NORMAL,
           "note: %s is reduced across ranks: its values per call path are over every rank "
           "(--ranks does not select among them)",
           sel->file);
  for (int i = 0; rc == 0 && i < sel->nregions; i++) {
    int g = sel->regions[i];
    if (paths && sp_values_paths(sel, &pv, g, &acc) < 0) rc = SP_EXIT_IO;
    for (int j = 0; !paths && rc == 0 && j < sel->nranks; j++) {
      sp_reader_values_t v;
      int err = sp_reader_values_load(r, g, sel->ranks[j], &v);
      lost += err == 0 ? v.lost : 0;
      if (err < 0) {
        sp_msg(SP_QUIET, "%s: %s", sel->file, sp_reader_errmsg(r));
        rc = SP_EXIT_DATA;
      } else if (v.present && sp_values_add_pair(&acc, &v) < 0) {
        sp_msg(SP_QUIET, "%s", "out of memory");
        rc = SP_EXIT_IO;
      }
      sp_reader_values_free(&v);
    }
    if (rc == 0) sp_values_region_rows(sp_reader_region_name(r, g), &acc, row, ctx, nrows);
    sp_vaccs_clear(&acc);
  }
  free(acc.a);
  sp_reader_path_values_free(&pv);
  /* The recording's count of values it could not store (a key's other
   * kind, past 64 keys): the figures above lack them. */
  if (rc == 0 && lost > 0)
    sp_msg(SP_NORMAL,
           "note: %s: %lld values per call of the selected regions and ranks were not stored "
           "by the recording (call_values@values_lost): not in these figures",
           sel->file, (long long)lost);
  return rc;
}

/* Adds the calls of one pair (on thread, when >= 0, by tid) to sums. */
static void sp_means_pair(const sp_reader_values_t *v, const int32_t *tid, int thread,
                          const char *const *keys, int nkeys, double *sum, int64_t *n) {
  for (int i = 0; i < v->nkeys; i++)
    for (int q = 0; q < nkeys; q++) {
      const sp_reader_value_key_t *c = &v->keys[i];
      if (c->kind == SP_READER_VALUE_STRING || strcmp(c->key, keys[q])) continue;
      for (int64_t e = 0; e < v->n; e++) {
        if (!sp_reader_value_set(c, e) || (thread >= 0 && (tid ? tid[e] : 0) != thread)) continue;
        sum[q] += c->kind == SP_READER_VALUE_INT ? (double)c->ints[e] : c->reals[e];
        n[q]++;
      }
    }
}

int sp_values_means(const sp_selection_t *sel, const char *const *keys, int nkeys, int g,
                    int thread, double *mean, int *have) {
  double sum[8] = {0};
  int64_t n[8] = {0};
  sp_reader_t *r = sel->reader;
  sp_reader_path_values_t pv;
  int paths = sp_reader_path_values_load(r, &pv), rc = 0;
  for (int64_t i = 0; paths > 0 && i < pv.n; i++) {
    int keep = sp_values_rank_kept(sel, pv.rank[i]);
    if (!keep || pv.region[i] != g || (thread >= 0 && pv.thread[i] != thread) || isnan(pv.sums[i]))
      continue;
    for (int q = 0; q < nkeys; q++)
      if (!strcmp(pv.keys[i], keys[q])) {
        sum[q] += pv.sums[i];
        n[q] += pv.counts[i];
      }
  }
  sp_reader_path_values_free(&pv);
  for (int j = 0; paths == 0 && rc == 0 && j < sel->nranks; j++) {
    sp_reader_values_t v;
    sp_reader_intervals_t iv = {0};
    int err = sp_reader_values_load(r, g, sel->ranks[j], &v);
    /* The thread of each call, only for --by-thread rows. */
    if (err == 0 && v.present && thread >= 0) err = sp_reader_load(r, g, sel->ranks[j], &iv);
    if (err == 0 && v.present) sp_means_pair(&v, iv.thread_ids, thread, keys, nkeys, sum, n);
    if (err < 0) rc = SP_EXIT_DATA;
    sp_reader_values_free(&v);
    sp_reader_intervals_free(&iv);
  }
  if (paths < 0 || rc) {
    sp_msg(SP_QUIET, "%s: %s", sel->file, sp_reader_errmsg(r));
    return SP_EXIT_DATA;
  }
  for (int q = 0; q < nkeys; q++) {
    have[q] = n[q] > 0;
    mean[q] = n[q] ? sum[q] / (double)n[q] : 0.0;
  }
  return 0;
}
