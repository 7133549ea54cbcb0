/* aggregate_vals.c - profile mode's values per call path and key as bytes,
 * merged and sorted (aggregate_vals.h). The bytes come from another rank
 * or from an .aggspill file on disk: every count, length and row is
 * checked before it is used. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate_vals.h"
#include "spill_format.h"

#define SP_VAL_KEY_MAX 255
#define SP_VAL_FIXED (5 * 8 + 2 * 4) /* one value's bytes before its key */

/* Room for need values in *v (of *cap); SP_ENOMEM. */
static int sp_vals_grow(sp_agg_val_t **v, int64_t *cap, int64_t need) {
  if (need <= *cap) return 0;
  if (need > INT64_MAX / 2 || (uint64_t)need > SIZE_MAX / 2 / sizeof **v) return SP_ENOMEM;
  int64_t ncap = *cap ? *cap : 64;
  while (ncap < need) ncap *= 2;
  sp_agg_val_t *nv = realloc(*v, (size_t)ncap * sizeof **v);
  if (!nv) return SP_ENOMEM;
  *v = nv;
  *cap = ncap;
  return 0;
}

void sp__agg_vals_drop(sp_agg_val_t **v, int64_t *n, int64_t *cap) {
  for (int64_t i = 0; *v && i < *n; i++) free((*v)[i].key);
  free(*v);
  *v = NULL;
  *n = 0;
  if (cap) *cap = 0;
}

int64_t sp__agg_vals_bytes(const sp_agg_val_t *v, int64_t n) {
  int64_t b = 8;
  for (int64_t i = 0; i < n; i++) b += SP_VAL_FIXED + (int64_t)strlen(v[i].key);
  return b;
}

char *sp__agg_vals_pack(char *p, const sp_agg_val_t *v, int64_t n) {
  memcpy(p, &n, 8);
  p += 8;
  for (int64_t i = 0; i < n; i++) {
    const uint32_t l = (uint32_t)strlen(v[i].key);
    const int64_t ic[2] = {v[i].row, v[i].count};
    const double d[3] = {v[i].sum, v[i].min, v[i].max};
    memcpy(p, ic, 16);
    memcpy(p + 16, d, 24);
    memcpy(p + 40, &v[i].kind, 4);
    memcpy(p + 44, &l, 4);
    memcpy(p + SP_VAL_FIXED, v[i].key, l);
    p += SP_VAL_FIXED + l;
  }
  return p;
}

int sp__agg_vals_unpack(const char **pp, const char *end, int64_t nrows, int64_t base,
                        sp_agg_val_t **v, int64_t *n, int64_t *cap) {
  const char *p = *pp;
  int64_t m;
  if (end - p < 8) return SP_EINVAL;
  memcpy(&m, p, 8);
  p += 8;
  if (m < 0 || m > (end - p) / SP_VAL_FIXED) return SP_EINVAL;
  const int64_t was = *n;
  if (sp_vals_grow(v, cap, was + m)) return SP_ENOMEM;
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < m; i++) {
    sp_agg_val_t x;
    uint32_t l;
    if (end - p < SP_VAL_FIXED) {
      rc = SP_EINVAL;
      break;
    }
    int64_t ic[2];
    double d[3];
    memcpy(ic, p, 16);
    memcpy(d, p + 16, 24);
    memcpy(&x.kind, p + 40, 4);
    memcpy(&l, p + 44, 4);
    p += SP_VAL_FIXED;
    if (ic[0] < 0 || ic[0] >= nrows || ic[1] < 0 || l == 0 || l > SP_VAL_KEY_MAX ||
        (int64_t)l > end - p || memchr(p, '\0', l)) {
      rc = SP_EINVAL;
      break;
    }
    x.row = ic[0] + base, x.count = ic[1], x.sum = d[0], x.min = d[1], x.max = d[2], x.kix = -1;
    x.key = malloc(l + 1u);
    if (!x.key) {
      rc = SP_ENOMEM;
      break;
    }
    memcpy(x.key, p, l);
    x.key[l] = '\0';
    p += l;
    (*v)[(*n)++] = x;
  }
  if (rc) { /* nothing of this blob stays */
    for (int64_t i = was; i < *n; i++) free((*v)[i].key);
    *n = was;
    return rc;
  }
  *pp = p;
  return 0;
}

int sp__agg_vals_append(sp_agg_val_t **v, int64_t *n, int64_t *cap, const sp_agg_val_t *src,
                        int64_t nsrc, const int64_t *map) {
  if (sp_vals_grow(v, cap, *n + nsrc)) return SP_ENOMEM;
  for (int64_t i = 0; i < nsrc; i++) {
    sp_agg_val_t x = src[i];
    x.key = strdup(src[i].key);
    if (!x.key) return SP_ENOMEM;
    if (map) x.row = map[src[i].row];
    (*v)[(*n)++] = x;
  }
  return 0;
}

static int sp_val_cmp(const void *x, const void *y) {
  const sp_agg_val_t *a = x, *b = y;
  if (a->row != b->row) return a->row < b->row ? -1 : 1;
  return strcmp(a->key, b->key);
}

void sp__agg_vals_compact(sp_agg_val_t *v, int64_t *n) {
  if (*n == 0) return;
  qsort(v, (size_t)*n, sizeof *v, sp_val_cmp);
  int64_t o = 0;
  for (int64_t i = 0; i < *n; i++) {
    sp_agg_val_t *y = o > 0 ? &v[o - 1] : NULL;
    if (y && y->row == v[i].row && strcmp(y->key, v[i].key) == 0) {
      y->count = sp__agg_add_sat(y->count, v[i].count);
      y->sum += v[i].sum; /* NaN stays NaN: a string key */
      y->min = v[i].min < y->min ? v[i].min : y->min;
      y->max = v[i].max > y->max ? v[i].max : y->max;
      if (v[i].kind == SP_VKIND_STR || y->kind == SP_VKIND_STR) /* counted only */
        y->kind = SP_VKIND_STR, y->sum = y->min = y->max = NAN;
      free(v[i].key);
    } else {
      v[o++] = v[i];
    }
  }
  *n = o;
}
