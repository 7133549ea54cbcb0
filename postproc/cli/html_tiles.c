/* html_tiles.c - exact intervals of binned lanes, per time tile.
 *
 * Beyond --html-exact a lane is embedded as busy fractions per bin for the
 * whole run. A zoomed-in window still deserves its exact calls, and the
 * file is self-contained (nothing is fetched), so the run is cut into
 * SP_HTML_TILES tiles and, for binned lanes, the calls that start in a
 * tile are embedded when they fit: (lane, tile) pairs with the fewest
 * calls first, while the total stays within --html-exact / 5 intervals.
 * Tiles without calls cost nothing and are always known. The viewer draws
 * a lane exactly when every tile its window needs is embedded (the tiles
 * from the window's start minus the lane's longest call to its end), and
 * binned otherwise.
 *
 * Written as "tiles":{"n":T,"lanes":[{"l":lane,"k":[tiles],"d":[data]}]}:
 * "l" the lane's position in "lanes", "k" its embedded tiles (ascending)
 * and "d" per tile the base64 of unsigned LEB128 varints: per call the
 * start minus the previous call's start (the first: minus the run's first
 * start), the duration (ns) and, when the lane has several call paths,
 * the index of its path in the lane's "paths". Tile of a call: floor((start
 * - first start) * T / span), clamped to T - 1. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

typedef struct sp_tlane {
  int li, tid; /* the selection's pair and the thread */
  int lane;    /* position in "lanes" */
  int32_t cnt[SP_HTML_TILES];
  uint64_t chosen; /* bit k: tile k embedded (with calls) */
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

int sp_html_tiles_count(sp_html_tiles_t *t, int lane, int li, int tid, const sp_html_span_t *sp,
                        int64_t m) {
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 64;
    sp_tlane_t *nl = realloc(t->lanes, (size_t)cap * sizeof *nl);
    if (!nl) return SP_EXIT_IO;
    t->lanes = nl;
    t->cap = cap;
  }
  sp_tlane_t *L = &t->lanes[t->n++];
  memset(L, 0, sizeof *L);
  L->li = li, L->tid = tid, L->lane = lane;
  for (int64_t i = 0; i < m; i++) {
    int k = sp_tile_of(t, sp[i].s);
    if (L->cnt[k] < INT32_MAX) L->cnt[k]++;
  }
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
  int32_t cnt;
  int lane, k;
} sp_tref_t;

static int sp_tref_cmp(const void *a, const void *b) {
  const sp_tref_t *x = a, *y = b;
  if (x->cnt != y->cnt) return x->cnt < y->cnt ? -1 : 1;
  if (x->k != y->k) return x->k < y->k ? -1 : 1;
  return (x->lane > y->lane) - (x->lane < y->lane);
}

int sp_html_tiles_plan(sp_html_tiles_t *t) {
  size_t n = 0;
  for (int i = 0; i < t->n; i++)
    for (int k = 0; k < SP_HTML_TILES; k++) n += t->lanes[i].cnt[k] > 0;
  sp_tref_t *r = malloc((n + 1) * sizeof *r);
  if (!r) return 0; /* no tiles: the report stays right, only coarser */
  n = 0;
  for (int i = 0; i < t->n; i++)
    for (int k = 0; k < SP_HTML_TILES; k++)
      if (t->lanes[i].cnt[k] > 0) r[n++] = (sp_tref_t){t->lanes[i].cnt[k], i, k};
  qsort(r, n, sizeof *r, sp_tref_cmp);
  int64_t used = 0;
  int any = 0;
  for (size_t j = 0; j < n && used + r[j].cnt <= t->budget; j++) {
    used += r[j].cnt;
    sp_tlane_t *L = &t->lanes[r[j].lane];
    L->chosen |= (uint64_t)1 << r[j].k;
    t->want[L->li] = 1;
    any = 1;
  }
  free(r);
  return any;
}

uint64_t sp_html_tiles_empty(const sp_html_tiles_t *t) {
  uint64_t z = 0;
  for (int k = 0; t->n > 0 && k < SP_HTML_TILES; k++)
    if (t->lanes[t->n - 1].cnt[k] == 0) z |= (uint64_t)1 << k;
  return z;
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

static void sp_b64(FILE *f, const unsigned char *b, size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    unsigned v = (unsigned)b[i] << 16 | (unsigned)b[i + 1] << 8 | b[i + 2];
    fputc(tab[v >> 18], f), fputc(tab[(v >> 12) & 63], f);
    fputc(tab[(v >> 6) & 63], f), fputc(tab[v & 63], f);
  }
  if (i < n) {
    unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0);
    fputc(tab[v >> 18], f), fputc(tab[(v >> 12) & 63], f);
    fputc(i + 1 < n ? tab[(v >> 6) & 63] : '=', f), fputc('=', f);
  }
}

/* The chosen tiles of lane L from its m sorted spans. */
static void sp_tiles_write(sp_html_tiles_t *t, FILE *f, const sp_tlane_t *L,
                           const sp_html_span_t *sp, int64_t m, sp_html_counts_t *c) {
  size_t need = 1;
  for (int k = 0; k < SP_HTML_TILES; k++)
    if (((L->chosen >> k) & 1) && (size_t)L->cnt[k] * 30 + 1 > need)
      need = (size_t)L->cnt[k] * 30 + 1;
  if (need > t->bufcap) {
    unsigned char *nb = realloc(t->buf, need);
    if (!nb) return; /* the lane stays binned */
    t->buf = nb;
    t->bufcap = need;
  }
  int32_t *paths = malloc(((size_t)m + 1) * sizeof *paths);
  if (!paths) return;
  int np;
  sp_html_lane_paths(sp, m, paths, &np);
  fprintf(f, "%s\n{\"l\":%d,\"k\":[", t->written++ ? "," : "", L->lane);
  for (int k = 0, first = 1; k < SP_HTML_TILES; k++)
    if ((L->chosen >> k) & 1) fprintf(f, "%s%d", first ? "" : ",", k), first = 0;
  fputs("],\"d\":[", f);
  int64_t i = 0;
  for (int k = 0, first = 1; k < SP_HTML_TILES; k++) {
    int64_t a = i;
    while (i < m && sp_tile_of(t, sp[i].s) == k) i++;
    if (!((L->chosen >> k) & 1)) continue;
    size_t len = 0;
    int64_t prev = t->t0;
    for (int64_t j = a; j < i; j++) {
      sp_varint(t, &len, (uint64_t)sp[j].s - (uint64_t)prev);
      sp_varint(t, &len, (uint64_t)sp[j].e - (uint64_t)sp[j].s);
      if (np > 1) sp_varint(t, &len, (uint64_t)sp_html_path_index(paths, np, sp[j].node));
      prev = sp[j].s;
    }
    fputs(first ? "\"" : ",\"", f);
    sp_b64(f, t->buf, len);
    fputc('"', f);
    first = 0;
    c->tiled += i - a;
    c->tiles++;
  }
  fputs("]}", f);
  free(paths);
}

void sp_html_tiles_lane(sp_html_tiles_t *t, FILE *f, int li, int tid, const sp_html_span_t *sp,
                        int64_t m, sp_html_counts_t *c) {
  if (li < 0 || li >= t->nwant || !t->first[li]) return;
  for (int i = t->first[li] - 1; i < t->n && t->lanes[i].li == li; i++)
    if (t->lanes[i].tid == tid && t->lanes[i].chosen) sp_tiles_write(t, f, &t->lanes[i], sp, m, c);
}
