/* aggregate_snap.c - one rank's aggregates as a flat snapshot, packed into
 * a blob for rank 0 and merged there (aggregate_snap.h).
 *
 * Blob: int64 nnames, nrows, nbks; nnames x (uint32 len, bytes); nrows x
 * sp_agg_row_t; nbks x sp_agg_bk_t. Native byte order: the ranks of one
 * job share a machine type, as the spill files assume. */
#include <stdlib.h>
#include <string.h>

#include "aggregate_snap.h"
#include "region_source.h"

#define SP_LOAD(p) __atomic_load_n(p, __ATOMIC_RELAXED)

void sp__agg_snap_free(sp_agg_snap_t *s) {
  for (int64_t i = 0; s->names && i < s->nnames; i++) free(s->names[i]);
  for (int64_t i = 0; s->srcs && i < s->nsrcs; i++) free(s->srcs[i].file);
  free(s->names);
  free(s->srcs);
  free(s->rows);
  free(s->bks);
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

/* Appends the rows and nonzero buckets of thread t's figures. */
static int sp_snap_thread(sp_agg_snap_t *s, const sp_thread_t *t, int32_t rank, double rate,
                          int64_t *rcap, int64_t *bcap) {
  int32_t n;
  const sp_agg_t *a = sp__agg_current(t, &n);
  if (!a || n == 0) return 0;
  int64_t base = s->nrows;
  if (sp_grow((void **)&s->rows, rcap, base + n, sizeof *s->rows)) return SP_ENOMEM;
  for (int32_t i = 0; i < n; i++) {
    const sp_agg_node_t *x = sp__agg_node(a, i);
    sp_agg_row_t *r = &s->rows[base + i];
    memset(r, 0, sizeof *r);
    r->rank = rank;
    r->thread = t->index;
    r->region = x->region;
    r->parent = x->parent < 0 ? -1 : (int32_t)(base + x->parent);
    r->depth = x->depth;
    r->calls = __atomic_load_n(&x->calls, __ATOMIC_ACQUIRE);
    r->incl = sp__agg_round((double)SP_LOAD(&x->incl) * rate); /* ticks to ns */
    r->excl = sp__agg_round((double)SP_LOAD(&x->excl) * rate);
    r->min = sp__agg_round((double)SP_LOAD(&x->min) * rate);
    r->max = sp__agg_round((double)SP_LOAD(&x->max) * rate);
    __atomic_load(&x->sumsq, &r->sumsq, __ATOMIC_RELAXED);
    r->sumsq *= rate * rate;
    for (int b = 0; b < SP_AGG_NBUCKETS; b++) {
      uint64_t c = SP_LOAD(&x->hist[b]);
      if (!c) continue;
      if (sp_grow((void **)&s->bks, bcap, s->nbks + 1, sizeof *s->bks)) return SP_ENOMEM;
      s->bks[s->nbks++] = (sp_agg_bk_t){base + i, b, 0, (int64_t)c};
    }
  }
  s->nrows = base + n;
  return 0;
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
  s->srcs = rc ? NULL : calloc((size_t)(nreg ? nreg : 1), sizeof *s->srcs);
  if (!rc && !s->srcs) rc = SP_ENOMEM;
  if (!rc) s->nsrcs = nreg;
  for (int32_t h = 0; rc == 0 && h < nreg; h++) {
    s->names[h] = strdup(sp__region_get(h)->name);
    s->nnames = h + 1;
    const char *file;
    int64_t line;
    if (s->names[h] && sp__source_get(h, &file, &line)) { /* sp_region_at's location */
      s->srcs[h].file = strdup(file);
      s->srcs[h].line = line;
      if (!s->srcs[h].file) rc = SP_ENOMEM;
    }
    if (!s->names[h]) rc = SP_ENOMEM;
  }
  if (rc) sp__agg_snap_free(s);
  return rc;
}

static const char *sp_src_file(const sp_agg_snap_t *s, int64_t i) {
  return i < s->nsrcs && s->srcs[i].file ? s->srcs[i].file : "";
}

int sp__agg_snap_pack(const sp_agg_snap_t *s, char **blob, int64_t *len) {
  int64_t n = 3 * 8 + s->nrows * (int64_t)sizeof *s->rows + s->nbks * (int64_t)sizeof *s->bks;
  for (int64_t i = 0; i < s->nnames; i++) n += 4 + (int64_t)strlen(s->names[i]);
  n += 8; /* the tail: nopen and the sources */
  for (int64_t i = 0; i < s->nnames; i++) n += 12 + (int64_t)strlen(sp_src_file(s, i));
  char *b = malloc((size_t)n), *p = b;
  if (!b) return SP_ENOMEM;
  int64_t head[3] = {s->nnames, s->nrows, s->nbks};
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
  p += s->nbks * (int64_t)sizeof *s->bks;
  memcpy(p, &s->nopen, 8);
  p += 8;
  for (int64_t i = 0; i < s->nnames; i++) {
    const char *f = sp_src_file(s, i);
    int64_t line = i < s->nsrcs ? s->srcs[i].line : 0;
    uint32_t l = (uint32_t)strlen(f);
    memcpy(p, &line, 8);
    memcpy(p + 8, &l, 4);
    memcpy(p + 12, f, l);
    p += 12 + l;
  }
  *blob = b;
  *len = n;
  return 0;
}

/* The id of name in s, added when new. Linear in the names: a file holds
 * the program's regions, not thousands per rank. */
static int64_t sp_name_id(sp_agg_snap_t *s, const char *name, uint32_t len, int64_t *cap) {
  for (int64_t i = 0; i < s->nnames; i++)
    if (strlen(s->names[i]) == len && memcmp(s->names[i], name, len) == 0) return i;
  if (sp_grow((void **)&s->names, cap, s->nnames + 1, sizeof *s->names)) return SP_ENOMEM;
  char *c = malloc(len + 1u);
  if (!c) return SP_ENOMEM;
  memcpy(c, name, len);
  c[len] = '\0';
  s->names[s->nnames] = c;
  return s->nnames++;
}

/* Region id's source from a blob, unless it has one already (the first
 * rank's wins, as the first registration does in a process). */
static int sp_src_put(sp_agg_snap_t *s, int64_t id, const char *f, uint32_t len, int64_t line) {
  if (id >= s->nsrcs) {
    sp_agg_src_t *ns = realloc(s->srcs, (size_t)s->nnames * sizeof *ns);
    if (!ns) return SP_ENOMEM;
    memset(ns + s->nsrcs, 0, (size_t)(s->nnames - s->nsrcs) * sizeof *ns);
    s->srcs = ns;
    s->nsrcs = s->nnames;
  }
  if (s->srcs[id].file || len == 0) return 0;
  char *c = malloc(len + 1u);
  if (!c) return SP_ENOMEM;
  memcpy(c, f, len);
  c[len] = '\0';
  s->srcs[id].file = c;
  s->srcs[id].line = line;
  return 0;
}

/* The blob's tail (see aggregate_snap.h): nopen, then the sources. */
static int sp_unpack_tail(sp_agg_snap_t *s, const char *p, const char *end, const int64_t *map,
                          int64_t nnames) {
  int64_t nopen;
  if (end - p < 8) return SP_EINVAL;
  memcpy(&nopen, p, 8);
  p += 8;
  for (int64_t i = 0; i < nnames; i++) {
    int64_t line;
    uint32_t l;
    if (end - p < 12) return SP_EINVAL;
    memcpy(&line, p, 8);
    memcpy(&l, p + 8, 4);
    if (end - p - 12 < (int64_t)l) return SP_EINVAL;
    int rc = sp_src_put(s, map[i], p + 12, l, line);
    if (rc) return rc;
    p += 12 + l;
  }
  if (p != end || nopen < 0) return SP_EINVAL;
  s->nopen += nopen;
  return 0;
}

int sp__agg_snap_unpack_into(sp_agg_snap_t *s, const char *blob, int64_t len) {
  int64_t head[3];
  if (len < (int64_t)sizeof head) return SP_EINVAL;
  memcpy(head, blob, sizeof head);
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
  /* Counts past the blob's length are refused before they are multiplied. */
  if (rc == 0 && (head[1] < 0 || head[2] < 0 || head[1] > len / (int64_t)sizeof *s->rows ||
                  head[2] > len / (int64_t)sizeof *s->bks))
    rc = SP_EINVAL;
  int64_t body = rc ? 0 : head[1] * (int64_t)sizeof *s->rows + head[2] * (int64_t)sizeof *s->bks;
  if (rc == 0 && end - p < body) rc = SP_EINVAL;
  if (rc == 0 && end - p > body) rc = sp_unpack_tail(s, p + body, end, map, head[0]);
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
    }
  }
  free(map);
  return rc;
}
