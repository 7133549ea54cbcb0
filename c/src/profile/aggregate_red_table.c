/* aggregate_red_table.c - the table of profile mode's reduction across ranks
 * (aggregate_reduce.h): a rank's table from its snapshot, two tables
 * merged, and a table as bytes for the next step of the tree.
 *
 * A call path is identified by its chain of region names: a path of the
 * table is (parent path, name), so that merging two tables unifies their
 * paths exactly (no hash of names can collide), and a parent always comes
 * before its children.
 *
 * Blob: int64 nnames, npaths, nbks, ntops, lost, nopen; nnames x (uint32
 * len, bytes); then the arrays of sp_red_path_t, sp_agg_bk_t, sp_red_top_t;
 * then the values per path and key (aggregate_vals.h).
 * Native byte order (the ranks of one job). */
#include <stdlib.h>
#include <string.h>

#include "aggregate_blob.h"
#include "aggregate_red_table.h"
#include "aggregate_vals.h"

void sp__red_free(sp_red_t *t) {
  for (int64_t i = 0; t->names && i < t->nnames; i++) free(t->names[i]);
  free(t->names), free(t->name_ix), free(t->paths), free(t->path_ix), free(t->bks);
  free(t->tops);
  sp__agg_vals_drop(&t->vals, &t->nvals, &t->vcap);
  memset(t, 0, sizeof *t);
}

static uint64_t sp_mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

static uint64_t sp_str_hash(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

static uint64_t sp_path_hash(int32_t parent, int32_t name) {
  return sp_mix(((uint64_t)(uint32_t)parent << 32) ^ (uint32_t)name);
}

/* A fresh index of n entries' keys in slots (power of two, > 2n). */
static int sp_reindex(int64_t **ix, int64_t *slots, int64_t n, const sp_red_t *t, int paths) {
  int64_t s = 64;
  while (s < 2 * (n + 1)) s *= 2;
  int64_t *x = malloc((size_t)s * sizeof *x);
  if (!x) return SP_ENOMEM;
  for (int64_t i = 0; i < s; i++) x[i] = -1;
  for (int64_t i = 0; i < n; i++) {
    uint64_t h =
        paths ? sp_path_hash(t->paths[i].parent, t->paths[i].name) : sp_str_hash(t->names[i]);
    uint64_t k = h & (uint64_t)(s - 1);
    while (x[k] >= 0) k = (k + 1) & (uint64_t)(s - 1);
    x[k] = i;
  }
  free(*ix);
  *ix = x;
  *slots = s;
  return 0;
}

static int64_t sp_red_name(sp_red_t *t, const char *name) {
  if (2 * (t->nnames + 1) > t->name_slots &&
      sp_reindex(&t->name_ix, &t->name_slots, t->nnames, t, 0))
    return -1;
  uint64_t mask = (uint64_t)t->name_slots - 1, k = sp_str_hash(name) & mask;
  for (int64_t i; (i = t->name_ix[k]) >= 0; k = (k + 1) & mask)
    if (strcmp(t->names[i], name) == 0) return i;
  char *c = strdup(name);
  if (!c || sp__agg_grow((void **)&t->names, &t->ncap, t->nnames + 1, sizeof *t->names)) {
    free(c);
    return -1;
  }
  t->names[t->nnames] = c;
  t->name_ix[k] = t->nnames;
  return t->nnames++;
}

int64_t sp__red_name_find(const sp_red_t *t, const char *name) {
  if (!t->name_slots) return -1;
  uint64_t mask = (uint64_t)t->name_slots - 1, k = sp_str_hash(name) & mask;
  for (int64_t i; (i = t->name_ix[k]) >= 0; k = (k + 1) & mask)
    if (strcmp(t->names[i], name) == 0) return i;
  return -1;
}

int64_t sp__red_find(const sp_red_t *t, int32_t parent, int32_t name) {
  if (!t->path_slots) return -1;
  uint64_t mask = (uint64_t)t->path_slots - 1, k = sp_path_hash(parent, name) & mask;
  for (int64_t i; (i = t->path_ix[k]) >= 0; k = (k + 1) & mask)
    if (t->paths[i].parent == parent && t->paths[i].name == name) return i;
  return -1;
}

static int64_t sp_red_path(sp_red_t *t, int32_t parent, int32_t name, int32_t depth) {
  int64_t i = sp__red_find(t, parent, name);
  if (i >= 0) return i;
  if (2 * (t->npaths + 1) > t->path_slots &&
      sp_reindex(&t->path_ix, &t->path_slots, t->npaths, t, 1))
    return -1;
  if (sp__agg_grow((void **)&t->paths, &t->pcap, t->npaths + 1, sizeof *t->paths)) return -1;
  sp_red_path_t *p = &t->paths[t->npaths];
  memset(p, 0, sizeof *p);
  p->name = name, p->parent = parent, p->depth = depth;
  uint64_t mask = (uint64_t)t->path_slots - 1, k = sp_path_hash(parent, name) & mask;
  while (t->path_ix[k] >= 0) k = (k + 1) & mask;
  t->path_ix[k] = t->npaths;
  return t->npaths++;
}

/* b's figure over nb ranks into a's over na (Chan et al.: the squared
 * deviations of the union from both parts' and the gap of their means). */
static void sp_fig_merge(sp_red_fig_t *a, int32_t na, const sp_red_fig_t *b, int32_t nb) {
  if (nb == 0) return;
  if (na == 0) {
    *a = *b;
    return;
  }
  double ma = (double)a->sum / na, mb = (double)b->sum / nb, d = mb - ma;
  a->m2 += b->m2 + d * d * ((double)na * nb / (double)(na + nb));
  a->sum = sp__agg_add_sat(a->sum, b->sum);
  if (b->min < a->min || (b->min == a->min && b->min_rank < a->min_rank))
    a->min = b->min, a->min_rank = b->min_rank;
  if (b->max > a->max || (b->max == a->max && b->max_rank < a->max_rank))
    a->max = b->max, a->max_rank = b->max_rank;
}

static int sp_bk_cmp(const void *x, const void *y) {
  const sp_agg_bk_t *a = x, *b = y;
  if (a->row != b->row) return a->row < b->row ? -1 : 1;
  return (a->bucket > b->bucket) - (a->bucket < b->bucket);
}

/* Sorted by path and bucket, one entry a bucket. */
static void sp_bks_compact(sp_red_t *t) {
  if (t->nbks == 0) return;
  qsort(t->bks, (size_t)t->nbks, sizeof *t->bks, sp_bk_cmp);
  int64_t n = 0;
  for (int64_t i = 0; i < t->nbks; i++) {
    if (n && t->bks[n - 1].row == t->bks[i].row && t->bks[n - 1].bucket == t->bks[i].bucket)
      t->bks[n - 1].count = sp__agg_add_sat(t->bks[n - 1].count, t->bks[i].count);
    else
      t->bks[n++] = t->bks[i];
  }
  t->nbks = n;
}

/* Largest first (kind 0, the lower rank first among equal totals) or
 * smallest first (kind 1, the higher rank first): each order the other's
 * reverse, so the k largest and the k smallest share no rank while a
 * region has 2k ranks or more, also where totals tie at the k-th (with
 * one tie rule for both, a tied rank was kept twice and another not). */
static int sp_top_cmp(const void *x, const void *y) {
  const sp_red_top_t *a = x, *b = y;
  if (a->name != b->name) return a->name < b->name ? -1 : 1;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->total != b->total) return (a->total > b->total) == (a->kind == 0) ? -1 : 1;
  return a->kind == 0 ? (a->rank > b->rank) - (a->rank < b->rank)
                      : (a->rank < b->rank) - (a->rank > b->rank);
}

/* Sorted, and at most k a (region, kind). */
static void sp_tops_compact(sp_red_t *t, int k) {
  if (t->ntops == 0) return;
  qsort(t->tops, (size_t)t->ntops, sizeof *t->tops, sp_top_cmp);
  int64_t n = 0, run = 0;
  for (int64_t i = 0; i < t->ntops; i++) {
    int same =
        n && t->tops[n - 1].name == t->tops[i].name && t->tops[n - 1].kind == t->tops[i].kind;
    run = same ? run + 1 : 0;
    if (run < k) t->tops[n++] = t->tops[i];
  }
  t->ntops = n;
}

/* Row r's figures added into the rank's sums of path p. */
static void sp_rank_add(int64_t *sums, int64_t p, const sp_agg_row_t *r) {
  sums[3 * p] += r->calls, sums[3 * p + 1] += r->incl, sums[3 * p + 2] += r->excl;
}

/* The rank's per-region totals (rows with a finished call, as
 * rank_region_index sums them) as candidates of both kinds. */
static int sp_snap_tops(sp_red_t *t, const sp_agg_snap_t *s, const int64_t *rowname, int32_t rank,
                        int k) {
  int64_t *tot = calloc((size_t)(t->nnames ? t->nnames : 1), sizeof *tot);
  char *has = calloc((size_t)(t->nnames ? t->nnames : 1), 1);
  int rc = tot && has ? 0 : SP_ENOMEM;
  for (int64_t i = 0; !rc && i < s->nrows; i++)
    if (s->rows[i].calls > 0) tot[rowname[i]] += s->rows[i].incl, has[rowname[i]] = 1;
  for (int64_t g = 0; !rc && g < t->nnames; g++)
    for (int kind = 0; has[g] && kind < 2 && !rc; kind++) {
      if (sp__agg_grow((void **)&t->tops, &t->tcap, t->ntops + 1, sizeof *t->tops))
        rc = SP_ENOMEM;
      else
        t->tops[t->ntops++] = (sp_red_top_t){(int32_t)g, kind, rank, 0, tot[g]};
    }
  if (!rc) sp_tops_compact(t, k);
  free(tot), free(has);
  return rc;
}

/* The path of each row (parents come before their children in a snapshot)
 * and the rank's sums per path; rowname: each row's name id. */
static int sp_snap_paths(sp_red_t *t, const sp_agg_snap_t *s, int64_t *rowpath, int64_t *rowname) {
  for (int64_t i = 0; i < s->nrows; i++) {
    const sp_agg_row_t *r = &s->rows[i];
    int64_t name = sp_red_name(t, s->names[r->region]);
    int32_t parent = r->parent >= 0 && r->parent < i ? (int32_t)rowpath[r->parent] : -1;
    int64_t p = name < 0 ? -1 : sp_red_path(t, parent, (int32_t)name, r->depth);
    if (p < 0) return SP_ENOMEM;
    rowpath[i] = p, rowname[i] = name;
  }
  return 0;
}

int sp__red_from_snap(sp_red_t *t, const sp_agg_snap_t *s, int32_t rank, int k) {
  memset(t, 0, sizeof *t);
  t->lost = s->lost, t->nopen = s->nopen;
  size_t m = (size_t)(s->nrows ? s->nrows : 1);
  int64_t *rowpath = malloc(m * sizeof *rowpath), *rowname = malloc(m * sizeof *rowname);
  int rc = rowpath && rowname ? sp_snap_paths(t, s, rowpath, rowname) : SP_ENOMEM;
  int64_t *sums = rc ? NULL : calloc((size_t)(t->npaths ? t->npaths : 1) * 3, sizeof *sums);
  if (!rc && !sums) rc = SP_ENOMEM;
  for (int64_t i = 0; !rc && i < s->nrows; i++) sp_rank_add(sums, rowpath[i], &s->rows[i]);
  for (int64_t p = 0; !rc && p < t->npaths; p++) {
    if (sums[3 * p] <= 0) continue; /* no finished call here: not one of its ranks */
    t->paths[p].n = 1;
    for (int f = 0; f < SP_RED_NFIGS; f++)
      t->paths[p].f[f] =
          (sp_red_fig_t){sums[3 * p + f], sums[3 * p + f], sums[3 * p + f], rank, rank, 0.0};
  }
  if (!rc && s->nbks && sp__agg_grow((void **)&t->bks, &t->bcap, s->nbks, sizeof *t->bks))
    rc = SP_ENOMEM;
  for (int64_t i = 0; !rc && i < s->nbks; i++) {
    t->bks[i] = s->bks[i];
    t->bks[i].row = rowpath[s->bks[i].row];
  }
  if (!rc) t->nbks = s->nbks, sp_bks_compact(t);
  if (!rc) rc = sp_snap_tops(t, s, rowname, rank, k);
  if (!rc) rc = sp__agg_vals_append(&t->vals, &t->nvals, &t->vcap, s->vals, s->nvals, rowpath);
  if (!rc) sp__agg_vals_compact(t->vals, &t->nvals);
  free(rowpath), free(rowname), free(sums);
  if (rc) sp__red_free(t);
  return rc;
}

int sp__red_merge(sp_red_t *a, const sp_red_t *b, int k) {
  int64_t *nm = malloc((size_t)(b->nnames ? b->nnames : 1) * sizeof *nm);
  int64_t *pm = malloc((size_t)(b->npaths ? b->npaths : 1) * sizeof *pm);
  int rc = nm && pm ? 0 : SP_ENOMEM;
  for (int64_t i = 0; !rc && i < b->nnames; i++)
    if ((nm[i] = sp_red_name(a, b->names[i])) < 0) rc = SP_ENOMEM;
  for (int64_t i = 0; !rc && i < b->npaths; i++) {
    const sp_red_path_t *q = &b->paths[i];
    int32_t parent = q->parent >= 0 ? (int32_t)pm[q->parent] : -1;
    int64_t p = sp_red_path(a, parent, (int32_t)nm[q->name], q->depth);
    if (p < 0) {
      rc = SP_ENOMEM;
      break;
    }
    pm[i] = p;
    sp_red_path_t *x = &a->paths[p];
    for (int f = 0; f < SP_RED_NFIGS; f++) sp_fig_merge(&x->f[f], x->n, &q->f[f], q->n);
    x->n += q->n;
  }
  if (!rc && sp__agg_grow((void **)&a->bks, &a->bcap, a->nbks + b->nbks, sizeof *a->bks))
    rc = SP_ENOMEM;
  for (int64_t i = 0; !rc && i < b->nbks; i++) {
    a->bks[a->nbks] = b->bks[i];
    a->bks[a->nbks++].row = pm[b->bks[i].row];
  }
  if (!rc) sp_bks_compact(a);
  if (!rc && sp__agg_grow((void **)&a->tops, &a->tcap, a->ntops + b->ntops, sizeof *a->tops))
    rc = SP_ENOMEM;
  for (int64_t i = 0; !rc && i < b->ntops; i++) {
    a->tops[a->ntops] = b->tops[i];
    a->tops[a->ntops++].name = (int32_t)nm[b->tops[i].name];
  }
  if (!rc) sp_tops_compact(a, k);
  if (!rc) rc = sp__agg_vals_append(&a->vals, &a->nvals, &a->vcap, b->vals, b->nvals, pm);
  if (!rc) sp__agg_vals_compact(a->vals, &a->nvals);
  a->lost = sp__agg_add_sat(a->lost, b->lost), a->nopen = sp__agg_add_sat(a->nopen, b->nopen);
  free(nm), free(pm);
  return rc;
}

int sp__red_pack(const sp_red_t *t, char **blob, int64_t *len) {
  int64_t n = 6 * 8 + t->npaths * (int64_t)sizeof *t->paths + t->nbks * (int64_t)sizeof *t->bks +
              t->ntops * (int64_t)sizeof *t->tops + sp__agg_vals_bytes(t->vals, t->nvals);
  for (int64_t i = 0; i < t->nnames; i++) n += 4 + (int64_t)strlen(t->names[i]);
  char *b = malloc((size_t)n), *p = b;
  if (!b) return SP_ENOMEM;
  int64_t head[6] = {t->nnames, t->npaths, t->nbks, t->ntops, t->lost, t->nopen};
  memcpy(p, head, sizeof head);
  p += sizeof head;
  for (int64_t i = 0; i < t->nnames; i++) {
    uint32_t l = (uint32_t)strlen(t->names[i]);
    memcpy(p, &l, 4);
    memcpy(p + 4, t->names[i], l);
    p += 4 + l;
  }
  if (t->npaths) memcpy(p, t->paths, (size_t)t->npaths * sizeof *t->paths);
  p += t->npaths * (int64_t)sizeof *t->paths;
  if (t->nbks) memcpy(p, t->bks, (size_t)t->nbks * sizeof *t->bks);
  p += t->nbks * (int64_t)sizeof *t->bks;
  if (t->ntops) memcpy(p, t->tops, (size_t)t->ntops * sizeof *t->tops);
  p += t->ntops * (int64_t)sizeof *t->tops;
  sp__agg_vals_pack(p, t->vals, t->nvals);
  *blob = b;
  *len = n;
  return 0;
}

/* Ranks a table can count (as a snapshot's rows, aggregate_blob.c): sums of
 * counts below it never wrap an int32. */
#define SP_RED_MAX_RANKS (1 << 24)

/* Every index of the unpacked t within range: names, parents before
 * children, buckets, the tops' names. */
static int sp_red_valid(const sp_red_t *t) {
  for (int64_t i = 0; i < t->npaths; i++) {
    const sp_red_path_t *p = &t->paths[i];
    if (p->name < 0 || p->name >= t->nnames || p->parent < -1 || p->parent >= i || p->n < 0 ||
        p->n > SP_RED_MAX_RANKS)
      return 0;
  }
  for (int64_t i = 0; i < t->nbks; i++)
    if (t->bks[i].row < 0 || t->bks[i].row >= t->npaths || t->bks[i].bucket < 0 ||
        t->bks[i].bucket >= SP_AGG_NBUCKETS)
      return 0;
  for (int64_t i = 0; i < t->ntops; i++)
    if (t->tops[i].name < 0 || t->tops[i].name >= t->nnames || t->tops[i].kind < 0 ||
        t->tops[i].kind > 1 || t->tops[i].rank < 0 || t->tops[i].rank >= SP_RED_MAX_RANKS)
      return 0;
  return 1;
}

/* Copies n elements of size bytes at *p (within end) into a new array. */
static int sp_take(const char **p, const char *end, int64_t n, size_t size, void **out) {
  if (n < 0 || n > (end - *p) / (int64_t)size) return SP_EINVAL;
  *out = malloc((size_t)(n ? n : 1) * size);
  if (!*out) return SP_ENOMEM;
  if (n) memcpy(*out, *p, (size_t)n * size);
  *p += n * (int64_t)size;
  return 0;
}

int sp__red_unpack(sp_red_t *t, const char *blob, int64_t len) {
  memset(t, 0, sizeof *t);
  const char *p = blob, *end = blob + len;
  int64_t head[6];
  if (len < (int64_t)sizeof head) return SP_EINVAL;
  memcpy(head, p, sizeof head);
  p += sizeof head;
  t->lost = head[4], t->nopen = head[5];
  int rc = head[0] < 0 || head[0] > (end - p) / 4 ? SP_EINVAL : 0;
  for (int64_t i = 0; !rc && i < head[0]; i++) {
    uint32_t l;
    if (end - p < 4) rc = SP_EINVAL;
    if (!rc) memcpy(&l, p, 4), p += 4;
    if (!rc && (int64_t)l > end - p) rc = SP_EINVAL;
    char *c = rc ? NULL : malloc(l + 1u);
    if (!rc && !c) rc = SP_ENOMEM;
    if (!rc) memcpy(c, p, l), c[l] = '\0', p += l;
    if (!rc && sp__agg_grow((void **)&t->names, &t->ncap, t->nnames + 1, sizeof *t->names))
      rc = SP_ENOMEM, free(c);
    if (!rc) t->names[t->nnames++] = c;
  }
  if (!rc) rc = sp_take(&p, end, head[1], sizeof *t->paths, (void **)&t->paths);
  if (!rc) t->npaths = t->pcap = head[1];
  if (!rc) rc = sp_take(&p, end, head[2], sizeof *t->bks, (void **)&t->bks);
  if (!rc) t->nbks = t->bcap = head[2];
  if (!rc) rc = sp_take(&p, end, head[3], sizeof *t->tops, (void **)&t->tops);
  if (!rc) t->ntops = t->tcap = head[3];
  if (!rc) rc = sp__agg_vals_unpack(&p, end, t->npaths, 0, &t->vals, &t->nvals, &t->vcap);
  if (!rc && p != end) rc = SP_EINVAL;
  if (!rc && !sp_red_valid(t)) rc = SP_EINVAL;
  if (rc) sp__red_free(t);
  return rc;
}
