/* aggregate_snap.c - one rank's aggregates as a flat snapshot, packed into
 * a blob for rank 0 and merged there (aggregate_snap.h).
 *
 * Blob: int64 nnames, nrows, nbks, lost; nnames x (uint32 len, bytes); nrows x
 * sp_agg_row_t; nbks x sp_agg_bk_t. Native byte order: the ranks of one
 * job share a machine type, as the spill files assume. */
#include <stdlib.h>
#include <string.h>

#include "aggregate_snap.h"

#define SP_LOAD(p) __atomic_load_n(p, __ATOMIC_RELAXED)

void sp__agg_snap_free(sp_agg_snap_t *s) {
  for (int64_t i = 0; s->names && i < s->nnames; i++) free(s->names[i]);
  free(s->names);
  free(s->rows);
  free(s->bks);
  free(s->name_index);
  memset(s, 0, sizeof *s);
}

static int sp_grow(void **p, int64_t *cap, int64_t need, size_t size) {
  if (need <= *cap) return 0;
  int64_t ncap = *cap ? *cap : 64;
  while (ncap < need) ncap *= 2;
  void *np = realloc(*p, (size_t)ncap * size);
  if (!np) return SP_ENOMEM;
  *p = np;
  *cap = ncap;
  return 0;
}

/* Appends the nonzero buckets of node x, row row. */
static int sp_snap_buckets(sp_agg_snap_t *s, const sp_agg_node_t *x, int64_t row, int64_t *bcap) {
  for (int g = 0; g < SP_AGG_GROUPS; g++) {
    const uint64_t *blk = __atomic_load_n(&x->hist[g], __ATOMIC_ACQUIRE);
    for (int k = 0; blk && k < SP_AGG_SUB; k++) {
      uint64_t c = SP_LOAD(&blk[k]);
      if (!c) continue;
      if (sp_grow((void **)&s->bks, bcap, s->nbks + 1, sizeof *s->bks)) return SP_ENOMEM;
      s->bks[s->nbks++] = (sp_agg_bk_t){row, g * SP_AGG_SUB + k, 0, (int64_t)c};
    }
  }
  return 0;
}

/* Exclusive ns of the n rows at r, whose ticks are tk[2i] (inclusive) and
 * tk[2i + 1] (exclusive). Converted one by one, exclusive and the
 * inclusives would each round on their own and miss inclusive minus the
 * children's inclusives by a ns; so where the ticks a path's calls left
 * out are its children's inclusive ticks (every finished call, no
 * unrecorded child), its exclusive is its inclusive less its children's
 * inclusives in ns; elsewhere its own ticks converted. kid: 2n scratch. */
static void sp_snap_exclusive(sp_agg_row_t *r, int64_t base, int32_t n, const int64_t *tk,
                              int64_t *kid, double rate) {
  memset(kid, 0, (size_t)n * 2 * sizeof *kid);
  for (int32_t i = 0; i < n; i++) {
    if (r[i].parent < 0) continue;
    int64_t p = r[i].parent - base;
    kid[2 * p] += tk[2 * i];
    kid[2 * p + 1] += r[i].incl;
  }
  for (int32_t i = 0; i < n; i++)
    r[i].excl = tk[2 * i] - tk[2 * i + 1] == kid[2 * i]
                    ? r[i].incl - kid[2 * i + 1]
                    : sp__agg_round((double)tk[2 * i + 1] * rate);
}

/* Appends the rows and nonzero buckets of thread t's figures. */
static int sp_snap_thread(sp_agg_snap_t *s, const sp_thread_t *t, int32_t rank, double rate,
                          int64_t *rcap, int64_t *bcap) {
  int32_t n;
  const sp_agg_t *a = sp__agg_current(t, &n);
  if (!a) return 0;
  s->lost += SP_LOAD(&a->lost);
  if (n == 0) return 0;
  int64_t base = s->nrows;
  int64_t *tk = malloc((size_t)n * 4 * sizeof *tk); /* ticks, then the children's sums */
  if (!tk || sp_grow((void **)&s->rows, rcap, base + n, sizeof *s->rows)) {
    free(tk);
    return SP_ENOMEM;
  }
  int rc = 0;
  for (int32_t i = 0; rc == 0 && i < n; i++) {
    const sp_agg_node_t *x = sp__agg_node(a, i);
    sp_agg_row_t *r = &s->rows[base + i];
    memset(r, 0, sizeof *r);
    r->rank = rank;
    r->thread = t->index;
    r->region = x->region;
    r->parent = x->parent < 0 ? -1 : (int32_t)(base + x->parent);
    r->depth = x->depth;
    r->calls = __atomic_load_n(&x->calls, __ATOMIC_ACQUIRE);
    tk[2 * i] = SP_LOAD(&x->incl);
    tk[2 * i + 1] = SP_LOAD(&x->excl);
    r->incl = sp__agg_round((double)tk[2 * i] * rate); /* ticks to ns */
    r->min = sp__agg_round((double)SP_LOAD(&x->min) * rate);
    r->max = sp__agg_round((double)SP_LOAD(&x->max) * rate);
    __atomic_load(&x->sumsq, &r->sumsq, __ATOMIC_RELAXED);
    r->sumsq *= rate * rate;
    rc = sp_snap_buckets(s, x, base + i, bcap);
  }
  if (rc == 0) {
    sp_snap_exclusive(s->rows + base, base, n, tk, tk + 2 * (int64_t)n, rate);
    s->nrows = base + n;
  }
  free(tk);
  return rc;
}

int sp__agg_snap_take(sp_agg_snap_t *s, int32_t rank) {
  memset(s, 0, sizeof *s);
  int64_t rcap = 0, bcap = 0;
  int rc = 0;
  double rate = sp__agg_ns_per_tick(1);
  pthread_mutex_lock(&sp__state.lock);
  for (const sp_thread_t *t = sp__state.threads; t && rc == 0; t = t->next)
    rc = sp_snap_thread(s, t, rank, rate, &rcap, &bcap);
  pthread_mutex_unlock(&sp__state.lock);
  /* The names after the rows: every region of a row was registered by then. */
  int32_t nreg = sp__region_count();
  s->names = rc ? NULL : calloc((size_t)(nreg ? nreg : 1), sizeof *s->names);
  if (!rc && !s->names) rc = SP_ENOMEM;
  for (int32_t h = 0; rc == 0 && h < nreg; h++) {
    s->names[h] = strdup(sp__region_get(h)->name);
    if (!s->names[h]) rc = SP_ENOMEM;
    s->nnames = h + 1;
  }
  if (rc) sp__agg_snap_free(s);
  return rc;
}

int sp__agg_snap_pack(const sp_agg_snap_t *s, char **blob, int64_t *len) {
  int64_t n = 4 * 8 + s->nrows * (int64_t)sizeof *s->rows + s->nbks * (int64_t)sizeof *s->bks;
  for (int64_t i = 0; i < s->nnames; i++) n += 4 + (int64_t)strlen(s->names[i]);
  char *b = malloc((size_t)n), *p = b;
  if (!b) return SP_ENOMEM;
  int64_t head[4] = {s->nnames, s->nrows, s->nbks, s->lost};
  memcpy(p, head, sizeof head);
  p += sizeof head;
  for (int64_t i = 0; i < s->nnames; i++) {
    uint32_t l = (uint32_t)strlen(s->names[i]);
    memcpy(p, &l, 4);
    memcpy(p + 4, s->names[i], l);
    p += 4 + l;
  }
  /* An empty window (nothing recorded yet) has no arrays: memcpy takes no NULL. */
  if (s->nrows) memcpy(p, s->rows, (size_t)s->nrows * sizeof *s->rows);
  p += s->nrows * (int64_t)sizeof *s->rows;
  if (s->nbks) memcpy(p, s->bks, (size_t)s->nbks * sizeof *s->bks);
  *blob = b;
  *len = n;
  return 0;
}

static uint64_t sp_name_hash(const char *name, uint32_t len) {
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
  for (uint32_t i = 0; i < len; i++) h = (h ^ (unsigned char)name[i]) * 0x100000001b3ull;
  return h;
}

/* Rebuilds s's name index at twice the room (at most half full). */
static int sp_name_index_grow(sp_agg_snap_t *s) {
  int64_t slots = s->name_slots ? s->name_slots * 2 : 1024;
  int64_t *ix = malloc((size_t)slots * sizeof *ix);
  if (!ix) return SP_ENOMEM;
  memset(ix, 0xff, (size_t)slots * sizeof *ix);
  for (int64_t i = 0; i < s->nnames; i++) {
    uint64_t k = sp_name_hash(s->names[i], (uint32_t)strlen(s->names[i])) & (uint64_t)(slots - 1);
    while (ix[k] >= 0) k = (k + 1) & (uint64_t)(slots - 1);
    ix[k] = i;
  }
  free(s->name_index);
  s->name_index = ix;
  s->name_slots = slots;
  return 0;
}

/* The id of name in s, added when new: a hash lookup, so that merging
 * ranks of many regions stays linear. */
static int64_t sp_name_id(sp_agg_snap_t *s, const char *name, uint32_t len, int64_t *cap) {
  if ((s->nnames + 1) * 2 > s->name_slots && sp_name_index_grow(s)) return SP_ENOMEM;
  uint64_t mask = (uint64_t)s->name_slots - 1, k = sp_name_hash(name, len) & mask;
  for (int64_t i; (i = s->name_index[k]) >= 0; k = (k + 1) & mask)
    if (strlen(s->names[i]) == len && memcmp(s->names[i], name, len) == 0) return i;
  if (sp_grow((void **)&s->names, cap, s->nnames + 1, sizeof *s->names)) return SP_ENOMEM;
  char *c = malloc(len + 1u);
  if (!c) return SP_ENOMEM;
  memcpy(c, name, len);
  c[len] = '\0';
  s->names[s->nnames] = c;
  s->name_index[k] = s->nnames;
  return s->nnames++;
}

int sp__agg_snap_unpack_into(sp_agg_snap_t *s, const char *blob, int64_t len) {
  int64_t head[4];
  if (len < (int64_t)sizeof head) return SP_EINVAL;
  memcpy(head, blob, sizeof head);
  if (head[3] < 0) return SP_EINVAL;
  const char *p = blob + sizeof head, *end = blob + len;
  int64_t ncap = s->nnames, rcap = s->nrows, bcap = s->nbks;
  int64_t *map = malloc((size_t)(head[0] ? head[0] : 1) * sizeof *map);
  if (!map) return SP_ENOMEM;
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < head[0]; i++) {
    uint32_t l;
    if (end - p < 4) {
      rc = SP_EINVAL;
      break;
    }
    memcpy(&l, p, 4);
    if (end - p - 4 < (int64_t)l) {
      rc = SP_EINVAL;
      break;
    }
    map[i] = sp_name_id(s, p + 4, l, &ncap);
    if (map[i] < 0) rc = (int)map[i];
    p += 4 + l;
  }
  if (rc == 0 && end - p != head[1] * (int64_t)sizeof *s->rows + head[2] * (int64_t)sizeof *s->bks)
    rc = SP_EINVAL;
  if (rc == 0 && (sp_grow((void **)&s->rows, &rcap, s->nrows + head[1], sizeof *s->rows) ||
                  sp_grow((void **)&s->bks, &bcap, s->nbks + head[2], sizeof *s->bks)))
    rc = SP_ENOMEM;
  if (rc == 0) {
    int64_t base = s->nrows;
    if (head[1]) memcpy(s->rows + base, p, (size_t)head[1] * sizeof *s->rows);
    p += head[1] * (int64_t)sizeof *s->rows;
    for (int64_t i = base; i < base + head[1]; i++) {
      sp_agg_row_t *r = &s->rows[i];
      if (r->region < 0 || r->region >= head[0] || r->parent < -1 || r->parent >= head[1]) {
        rc = SP_EINVAL;
        break;
      }
      r->region = (int32_t)map[r->region];
      if (r->parent >= 0) r->parent += (int32_t)base; /* rows of a blob count from its first */
    }
    if (head[2]) memcpy(s->bks + s->nbks, p, (size_t)head[2] * sizeof *s->bks);
    for (int64_t i = s->nbks; rc == 0 && i < s->nbks + head[2]; i++) {
      if (s->bks[i].row < 0 || s->bks[i].row >= head[1]) rc = SP_EINVAL;
      s->bks[i].row += base;
    }
    if (rc == 0) {
      s->nrows = base + head[1];
      s->nbks += head[2];
      s->lost += head[3];
    }
  }
  free(map);
  return rc;
}
