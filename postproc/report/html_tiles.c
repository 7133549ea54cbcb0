/* html_tiles.c - exact intervals of binned lanes, per time tile.
 *
 * Beyond --html-exact a lane is embedded as busy fractions per bin for the
 * whole run. A zoomed-in window still deserves its exact calls, and the
 * file is self-contained (nothing is fetched), so the run is cut into
 * SP_HTML_TILES tiles and, for binned lanes, the calls that overlap a
 * tile are embedded when they fit the budget of --html-exact / 8
 * intervals: whole tiles (all binned lanes) with the fewest calls first,
 * then single (lane, tile) pairs with the fewest calls.
 * Tiles without calls cost nothing and are always known. The viewer draws
 * a lane exactly when every tile its window overlaps is embedded (a call
 * that spans tiles is in each: the viewer keeps it from the first), and
 * binned otherwise.
 *
 * Written as "tiles":{"n":T,"lanes":[{"l":lane,"k":[tiles],"d":[data]}]}:
 * "l" the lane's position in "lanes", "k" its embedded tiles (ascending)
 * and "d" per tile the base64 of unsigned LEB128 varints: per call the
 * start minus the previous call's start (the first: minus the run's first
 * start), the duration (ns) and, when the lane has several call paths,
 * the index of its path in the lane's "paths". A call overlaps tiles
 * tile(start) to tile(end), tile(t) = floor((t - first start) * T / span)
 * clamped to T - 1. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

typedef struct sp_tlane {
  int li, tid;                         /* the selection's pair and the thread */
  int lane;                            /* position in "lanes" */
  uint16_t cnt[SP_HTML_TILES];         /* calls starting in each tile, saturating (too many then) */
  uint64_t chosen[SP_HTML_TILES / 64]; /* bit k: tile k embedded (with calls) */
  int any;                             /* a tile chosen */
  int multi;                           /* several call paths: tiles give each call's */
} sp_tlane_t;

struct sp_html_tiles {
  int64_t t0;
  double span;
  int64_t budget;
  sp_tlane_t *lanes;
  int n, cap;
  char *want; /* per pair li (grown as needed): a lane of it has chosen tiles */
  int *first; /* per pair li: its first lane in lanes + 1 (0: none) */
  int nwant;
  int written;        /* lanes with tiles written (for the commas) */
  unsigned char *buf; /* one tile's bytes */
  size_t bufcap;
};

sp_html_tiles_t *sp_html_tiles_new(int64_t t0, double span, int64_t budget) {
  sp_html_tiles_t *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->t0 = t0;
  t->span = span > 0 ? span : 1;
  t->budget = budget;
  return t;
}

void sp_html_tiles_free(sp_html_tiles_t *t) {
  if (!t) return;
  free(t->lanes);
  free(t->want);
  free(t->first);
  free(t->buf);
  free(t);
}

static int sp_tile_of(const sp_html_tiles_t *t, int64_t s) {
  double k = floor(sp_ns_between(t->t0, s) * SP_HTML_TILES / t->span);
  return k < 0 ? 0 : k >= SP_HTML_TILES ? SP_HTML_TILES - 1 : (int)k;
}

void sp_html_tiles_span(const sp_html_tiles_t *t, uint16_t *cnt, int64_t s, int64_t e) {
  for (int k = sp_tile_of(t, s), k1 = sp_tile_of(t, e); k <= k1; k++)
    if (cnt[k] < UINT16_MAX) cnt[k]++;
}

int sp_html_tiles_count(sp_html_tiles_t *t, int lane, int li, int tid, int multi,
                        const sp_html_span_t *sp, int64_t m) {
  uint16_t cnt[SP_HTML_TILES] = {0};
  for (int64_t i = 0; i < m; i++) sp_html_tiles_span(t, cnt, sp[i].s, sp[i].e);
  return sp_html_tiles_add(t, lane, li, tid, multi, cnt);
}

int sp_html_tiles_add(sp_html_tiles_t *t, int lane, int li, int tid, int multi,
                      const uint16_t *cnt) {
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 64;
    sp_tlane_t *nl = realloc(t->lanes, (size_t)cap * sizeof *nl);
    if (!nl) return SP_EXIT_IO;
    t->lanes = nl;
    t->cap = cap;
  }
  sp_tlane_t *L = &t->lanes[t->n++];
  memset(L, 0, sizeof *L);
  L->li = li, L->tid = tid, L->lane = lane, L->multi = multi;
  memcpy(L->cnt, cnt, sizeof L->cnt);
  if (li >= t->nwant) {
    int nw = t->nwant ? t->nwant : 64;
    while (nw <= li) nw *= 2;
    char *w = realloc(t->want, (size_t)nw);
    if (w) t->want = w;
    int *fi = w ? realloc(t->first, (size_t)nw * sizeof *fi) : NULL;
    if (fi) t->first = fi;
    if (!w || !fi) return SP_EXIT_IO;
    memset(w + t->nwant, 0, (size_t)(nw - t->nwant));
    memset(fi + t->nwant, 0, (size_t)(nw - t->nwant) * sizeof *fi);
    t->nwant = nw;
  }
  if (!t->first[li]) t->first[li] = t->n; /* the lanes of a pair are recorded together */
  return 0;
}

/* (lane, tile) pairs with calls, for the plan's sort by count. */
typedef struct sp_tref {
  int64_t cnt;
  int lane, k;
} sp_tref_t;

static int sp_tref_cmp(const void *a, const void *b) {
  const sp_tref_t *x = a, *y = b;
  if (x->cnt != y->cnt) return x->cnt < y->cnt ? -1 : 1;
  if (x->k != y->k) return x->k < y->k ? -1 : 1;
  return (x->lane > y->lane) - (x->lane < y->lane);
}

static int sp_chosen(const sp_tlane_t *L, int k) {
  return (int)((L->chosen[k / 64] >> (k % 64)) & 1);
}

static void sp_choose(sp_html_tiles_t *t, sp_tlane_t *L, int k) {
  L->chosen[k / 64] |= (uint64_t)1 << (k % 64);
  L->any = 1;
  t->want[L->li] = 1;
}

/* Whole tiles first (every binned lane of the tile: a window inside it is
 * then exact on every lane), quietest first; then the remaining budget
 * goes to single (lane, tile) pairs, fewest calls first. Saturated counts
 * (65535 calls or more) are never taken. */
int sp_html_tiles_plan(sp_html_tiles_t *t) {
  sp_tref_t whole[SP_HTML_TILES];
  for (int k = 0; k < SP_HTML_TILES; k++) {
    whole[k] = (sp_tref_t){0, -1, k};
    for (int i = 0; i < t->n; i++)
      whole[k].cnt += t->lanes[i].cnt[k] == UINT16_MAX ? INT32_MAX : t->lanes[i].cnt[k];
  }
  qsort(whole, SP_HTML_TILES, sizeof *whole, sp_tref_cmp);
  int64_t used = 0;
  for (int j = 0; j < SP_HTML_TILES && whole[j].cnt > 0 && used + whole[j].cnt <= t->budget; j++) {
    used += whole[j].cnt;
    for (int i = 0; i < t->n; i++)
      if (t->lanes[i].cnt[whole[j].k]) sp_choose(t, &t->lanes[i], whole[j].k);
  }
  size_t n = 0;
  for (int i = 0; i < t->n; i++)
    for (int k = 0; k < SP_HTML_TILES; k++)
      n += t->lanes[i].cnt[k] > 0 && t->lanes[i].cnt[k] < UINT16_MAX && !sp_chosen(&t->lanes[i], k);
  sp_tref_t *r = malloc((n + 1) * sizeof *r);
  n = 0;
  for (int i = 0; r && i < t->n; i++)
    for (int k = 0; k < SP_HTML_TILES; k++) {
      const sp_tlane_t *L = &t->lanes[i];
      if (L->cnt[k] > 0 && L->cnt[k] < UINT16_MAX && !sp_chosen(L, k))
        r[n++] = (sp_tref_t){L->cnt[k], i, k};
    }
  if (r) qsort(r, n, sizeof *r, sp_tref_cmp);
  for (size_t j = 0; r && j < n && used + r[j].cnt <= t->budget; j++) {
    used += r[j].cnt;
    sp_choose(t, &t->lanes[r[j].lane], r[j].k);
  }
  free(r); /* out of memory: fewer tiles, the report stays right */
  return used > 0;
}

void sp_html_tiles_empty(const sp_html_tiles_t *t, FILE *f) {
  /* Hex digits, the last one for tiles 0-3: bit k of the number is tile k. */
  for (int d = SP_HTML_TILES / 4 - 1; d >= 0; d--) {
    int v = 0;
    for (int b = 0; t->n > 0 && b < 4; b++) v |= (t->lanes[t->n - 1].cnt[4 * d + b] == 0) << b;
    fputc("0123456789abcdef"[v], f);
  }
}

int sp_html_tiles_multi(const sp_html_tiles_t *t, int li) {
  if (li < 0 || li >= t->nwant || !t->first[li]) return 0;
  for (int i = t->first[li] - 1; i < t->n && t->lanes[i].li == li; i++)
    if (t->lanes[i].any && t->lanes[i].multi) return 1;
  return 0;
}

int sp_html_tiles_wanted(const sp_html_tiles_t *t, int li) {
  return li >= 0 && li < t->nwant && t->want[li];
}

static void sp_varint(sp_html_tiles_t *t, size_t *len, uint64_t v) {
  do {
    unsigned char b = v & 127;
    v >>= 7;
    t->buf[(*len)++] = (unsigned char)(b | (v ? 128 : 0));
  } while (v);
}

/* The chosen tiles of lane L from its m sorted spans (every call that
 * overlaps a chosen tile, at least); paths[0..np-1]: the lane's distinct
 * nodes (np 1: no path per call). */
static void sp_tiles_write(sp_html_tiles_t *t, FILE *f, const sp_tlane_t *L,
                           const sp_html_span_t *sp, int64_t m, const int32_t *paths, int np,
                           sp_html_counts_t *c) {
  size_t need = 1;
  for (int k = 0; k < SP_HTML_TILES; k++)
    if (sp_chosen(L, k) && (size_t)L->cnt[k] * 30 + 1 > need) need = (size_t)L->cnt[k] * 30 + 1;
  if (need > t->bufcap) {
    unsigned char *nb = realloc(t->buf, need);
    if (!nb) return; /* the lane stays binned */
    t->buf = nb;
    t->bufcap = need;
  }
  fprintf(f, "%s\n{\"l\":%d,\"k\":[", t->written++ ? "," : "", L->lane);
  for (int k = 0, first = 1; k < SP_HTML_TILES; k++)
    if (sp_chosen(L, k)) fprintf(f, "%s%d", first ? "" : ",", k), first = 0;
  fputs("],\"d\":[", f);
  int64_t i = 0;
  for (int k = 0, first = 1; k < SP_HTML_TILES; k++) {
    while (i < m && sp_tile_of(t, sp[i].s) <= k) i++;
    if (!sp_chosen(L, k)) continue;
    size_t len = 0;
    int64_t prev = t->t0, n = 0;
    /* The calls that overlap tile k: started in it or before, ending in it or after. */
    for (int64_t j = 0; j < i; j++) {
      if (sp_tile_of(t, sp[j].e) < k) continue;
      n++;
      sp_varint(t, &len, (uint64_t)sp[j].s - (uint64_t)prev);
      sp_varint(t, &len, (uint64_t)sp[j].e - (uint64_t)sp[j].s);
      if (np > 1) sp_varint(t, &len, (uint64_t)sp_html_path_index(paths, np, sp[j].node));
      prev = sp[j].s;
    }
    fputs(first ? "\"" : ",\"", f);
    sp_html_base64(f, t->buf, len);
    fputc('"', f);
    first = 0;
    c->tiled += n;
    c->tiles++;
  }
  fputs("]}", f);
}

void sp_html_tiles_lane(sp_html_tiles_t *t, FILE *f, int li, int tid, const sp_html_span_t *sp,
                        int64_t m, sp_html_counts_t *c) {
  int i = sp_html_tiles_find(t, li, tid);
  if (i < 0) return;
  int32_t *paths = malloc(((size_t)m + 1) * sizeof *paths);
  if (!paths) return; /* the lane stays binned */
  int np = 1;
  if (t->lanes[i].multi) sp_html_lane_paths(sp, m, paths, &np);
  sp_tiles_write(t, f, &t->lanes[i], sp, m, paths, np, c);
  free(paths);
}

int sp_html_tiles_find(const sp_html_tiles_t *t, int li, int tid) {
  if (li < 0 || li >= t->nwant || !t->first[li]) return -1;
  for (int i = t->first[li] - 1; i < t->n && t->lanes[i].li == li; i++)
    if (t->lanes[i].tid == tid && t->lanes[i].any) return i;
  return -1;
}

int sp_html_tiles_hit(const sp_html_tiles_t *t, int i, int64_t s, int64_t e) {
  for (int k = sp_tile_of(t, s), k1 = sp_tile_of(t, e); k <= k1; k++)
    if (sp_chosen(&t->lanes[i], k)) return 1;
  return 0;
}

void sp_html_tiles_write(sp_html_tiles_t *t, FILE *f, int i, const sp_html_span_t *sp, int64_t m,
                         const int32_t *paths, int np, sp_html_counts_t *c) {
  sp_tiles_write(t, f, &t->lanes[i], sp, m, paths, t->lanes[i].multi ? np : 1, c);
}
