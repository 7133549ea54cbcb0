/* html_stream.c - passes 2 and 3 of report.html for a rank of many calls,
 * from the reader's merge of its calls instead of its pairs loaded whole.
 *
 * The loaded pass (html_data.c, sp_html_rank) holds every selected pair
 * of a rank, sorted copies per thread and a node per call: about 76
 * bytes a call, 759 MiB for one rank of 1e7 calls (issue 47). Here the
 * rank's calls come from sp_reader_merge_open in the order of the paths'
 * sweep (thread, start, end descending, region name), a slice at a time:
 * each call gets its node from the sweep's stack, adds to its pair's
 * figures and outermost-call test (as sp_outer_calls: its thread's calls
 * by start, the longest first), and to its lane. A lane is a (pair,
 * thread): the merge gives a thread's calls of every pair before the next
 * thread's, so each pair has one open lane at a time. A binned lane keeps
 * its busy bins (the merged blocks of its calls by start, as
 * sp_html_occupy), its tile counts and its distinct nodes; an exact lane
 * keeps its calls, which --html-exact bounds. The lanes are then written
 * in the loaded pass's order (pair, then thread), an exact lane's calls
 * put back in file order first, so that the data is the loaded pass's.
 * Pass 3 keeps, per lane with chosen tiles, the calls that overlap one
 * (bounded by the tiles' budget). Memory: the merge's chunks, the bins of
 * a rank's lanes and the embedded calls, not the rank's calls. */
#include <stdlib.h>
#include <string.h>

#include "html_data.h"

enum { SP_HS_SLICE = 4096 }; /* calls taken from the merge at once */

/* One (pair, thread) lane. */
typedef struct sp_hlane {
  int q;       /* its pair: position in the rank's lanes lis[] */
  int32_t tid; /* its thread */
  int64_t m;   /* its calls */
  sp_span_t *sp;
  int64_t nsp, capsp; /* exact lanes: every call; pass 3: those in chosen tiles */
  int32_t *paths;     /* distinct nodes, ascending */
  int np, capp;
  double *occ;       /* binned, pass 2: busy bins while open (2 * fine + 1) */
  unsigned char *lv; /* then its levels' bytes */
  double busy;
  int64_t bs, be; /* the open busy block */
  int open;
  uint16_t cnt[SP_HTML_TILES];
  int tile; /* pass 3: the tiles' record of the lane, -1 without chosen tiles */
} sp_hlane_t;

/* One pair of the rank: its open lane, outermost-call test and figures. */
typedef struct sp_hpair {
  int li;  /* selection lane */
  int cur; /* open lane, -1 */
  int have;
  int32_t otid;  /* thread of the calls before */
  int64_t reach; /* the end of the thread's latest outermost call */
  int64_t n;
  double sum, mn, mx;
} sp_hpair_t;

typedef struct sp_hstream {
  sp_html_ctx_t *x;
  int tiles_pass, rank;
  sp_hpair_t *pair;
  sp_hlane_t *lane;
  int nlanes, caplanes;
  int64_t *stack_end; /* the sweep's open calls */
  int *stack_node;
  int64_t depth, capstack;
} sp_hstream_t;

static int sp_grow(void **p, int64_t *cap, int64_t need, size_t size) {
  if (need <= *cap) return 0;
  int64_t n = *cap ? 2 * *cap : 64;
  while (n < need) n *= 2;
  void *q = realloc(*p, (size_t)n * size);
  if (!q) return SP_EXIT_IO;
  *p = q;
  *cap = n;
  return 0;
}

/* Adds node to the lane's ascending distinct nodes. */
static int sp_hlane_path(sp_hlane_t *L, int32_t node) {
  int lo = 0, hi = L->np;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (L->paths[mid] < node)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < L->np && L->paths[lo] == node) return 0;
  int64_t cap = L->capp;
  if (sp_grow((void **)&L->paths, &cap, L->np + 1, sizeof *L->paths)) return SP_EXIT_IO;
  L->capp = (int)cap;
  memmove(L->paths + lo + 1, L->paths + lo, (size_t)(L->np - lo) * sizeof *L->paths);
  L->paths[lo] = node;
  L->np++;
  return 0;
}

static int sp_hlane_keep(sp_hlane_t *L, sp_span_t s) {
  if (sp_grow((void **)&L->sp, &L->capsp, L->nsp + 1, sizeof *L->sp)) return SP_EXIT_IO;
  L->sp[L->nsp++] = s;
  return 0;
}

/* Closes a binned lane's bins into its levels' bytes (pass 2). */
static int sp_hlane_close(sp_hstream_t *h, sp_hlane_t *L) {
  if (!L->occ) return 0;
  if (L->open) L->busy += sp_html_occ_block(h->x, L->occ, L->bs, L->be);
  L->open = 0;
  sp_html_occ_finish(h->x, L->occ);
  L->lv = malloc(sp_html_levels_size(h->x));
  if (L->lv) sp_html_levels_bytes(h->x, L->occ, L->lv);
  free(L->occ);
  L->occ = NULL;
  return L->lv ? 0 : SP_EXIT_IO;
}

static int sp_hlane_new(sp_hstream_t *h, int q, int32_t tid) {
  sp_hpair_t *P = &h->pair[q];
  if (P->cur >= 0 && sp_hlane_close(h, &h->lane[P->cur])) return SP_EXIT_IO;
  int64_t cap = h->caplanes;
  if (sp_grow((void **)&h->lane, &cap, h->nlanes + 1, sizeof *h->lane)) return SP_EXIT_IO;
  h->caplanes = (int)cap;
  sp_hlane_t *L = &h->lane[h->nlanes];
  memset(L, 0, sizeof *L);
  L->q = q, L->tid = tid, L->tile = -1;
  if (h->tiles_pass)
    L->tile = sp_html_tiles_find(h->x->tiles, P->li, tid);
  else if (!h->x->exact[P->li] && !(L->occ = calloc(2 * (size_t)h->x->fine + 1, sizeof *L->occ)))
    return SP_EXIT_IO;
  P->cur = h->nlanes++;
  return 0;
}

/* The node of a call (the sweep of html_paths.c: its parent is the
 * innermost open call of its thread that holds it). */
static int sp_hsweep(sp_hstream_t *h, int g, int64_t e, int32_t *node) {
  while (h->depth && h->stack_end[h->depth - 1] < e) h->depth--;
  int nd = sp_html_paths_node(h->x->paths, h->depth ? h->stack_node[h->depth - 1] : -1, g);
  *node = nd;
  if (nd < 0) return 0; /* not pushed, as the loaded sweep */
  int64_t c1 = h->capstack, c2 = h->capstack;
  if (sp_grow((void **)&h->stack_end, &c1, h->depth + 1, sizeof *h->stack_end) ||
      sp_grow((void **)&h->stack_node, &c2, h->depth + 1, sizeof *h->stack_node))
    return SP_EXIT_IO;
  h->capstack = c1 < c2 ? c1 : c2;
  h->stack_end[h->depth] = e;
  h->stack_node[h->depth++] = nd;
  return 0;
}

/* Pass 2: the call's pair figures, balance and lane. */
static int sp_hcall2(sp_hstream_t *h, sp_hpair_t *P, sp_hlane_t *L, const sp_reader_call_t *c,
                     int32_t node) {
  sp_html_ctx_t *x = h->x;
  double d = sp_ns_between(c->start, c->end);
  P->sum += d;
  if (P->n == 0 || d < P->mn) P->mn = d;
  if (P->n == 0 || d > P->mx) P->mx = d;
  P->n++;
  int first = !P->have || c->thread != P->otid;
  unsigned char outer = !(!first && c->start < P->reach && c->end <= P->reach);
  if (outer && (first || c->end > P->reach)) P->reach = c->end;
  P->have = 1, P->otid = c->thread;
  const sp_lane_t *ln = &x->sel->lanes[P->li];
  int rc = sp_html_balance_calls(x->bal, x->gpos[ln->region], ln->rank, &c->start, &c->end,
                                 &c->thread, &outer, 1);
  L->m++;
  if (rc == 0) rc = sp_hlane_path(L, node);
  if (rc == 0 && x->exact[P->li])
    return sp_hlane_keep(L, (sp_span_t){c->start, c->end, node, c->index});
  if (rc != 0) return rc;
  if (L->open && c->start <= L->be) {
    if (c->end > L->be) L->be = c->end;
  } else {
    if (L->open) L->busy += sp_html_occ_block(x, L->occ, L->bs, L->be);
    L->bs = c->start, L->be = c->end, L->open = 1;
  }
  sp_html_tiles_span(x->tiles, L->cnt, c->start, c->end);
  return 0;
}

/* Pass 3: a lane with chosen tiles keeps its nodes and the calls in them. */
static int sp_hcall3(sp_hstream_t *h, sp_hlane_t *L, const sp_reader_call_t *c, int32_t node) {
  if (L->tile < 0) return 0;
  int rc = sp_hlane_path(L, node);
  if (rc == 0 && sp_html_tiles_hit(h->x->tiles, L->tile, c->start, c->end))
    rc = sp_hlane_keep(L, (sp_span_t){c->start, c->end, node, c->index});
  return rc;
}

static int sp_hcall(sp_hstream_t *h, const sp_reader_call_t *c, const int *regs, int32_t *ptid,
                    int *started) {
  if (!*started || c->thread != *ptid) h->depth = 0; /* a thread's calls: a new stack */
  *started = 1, *ptid = c->thread;
  int32_t node;
  int rc = sp_hsweep(h, regs[c->slot], c->end, &node);
  sp_hpair_t *P = &h->pair[c->slot];
  if (rc == 0 && (P->cur < 0 || h->lane[P->cur].tid != c->thread))
    rc = sp_hlane_new(h, c->slot, c->thread);
  if (rc != 0) return rc;
  sp_hlane_t *L = &h->lane[P->cur];
  return h->tiles_pass ? sp_hcall3(h, L, c, node) : sp_hcall2(h, P, L, c, node);
}

static int sp_cmp_idx(const void *a, const void *b) {
  const sp_span_t *p = a, *q = b;
  return (p->idx > q->idx) - (p->idx < q->idx);
}

/* A binned lane as sp_html_lane_out writes one. */
static int sp_hlane_binned(sp_hstream_t *h, int li, sp_hlane_t *L) {
  sp_html_ctx_t *x = h->x;
  FILE *f = x->f;
  const sp_lane_t *ln = &x->sel->lanes[li];
  fprintf(f, "%s\n{\"g\":%d,\"r\":%d,\"t\":%d,\"n\":%lld", x->first_lane ? "" : ",",
          x->gpos[ln->region], sp_reader_rank_id(x->sel->reader, ln->rank), (int)L->tid,
          (long long)L->m);
  x->first_lane = 0;
  int lane = x->c->lanes++;
  fputs(",\"paths\":[", f);
  for (int k = 0; k < L->np; k++) fprintf(f, "%s%d", k ? "," : "", (int)L->paths[k]);
  fputc(']', f);
  if (sp_html_tiles_add(x->tiles, lane, li, L->tid, L->np > 1, L->cnt) != 0) return SP_EXIT_IO;
  fprintf(f, ",\"busy\":%.0f,\"z\":\"", L->busy);
  sp_html_tiles_empty(x->tiles, f);
  fputc('"', f);
  sp_html_levels_write(x, L->lv);
  x->c->binned_lanes++;
  fputc('}', f);
  return 0;
}

/* Pass 2's output of pair q: its region's figures, then its lanes. */
static int sp_hpair_out(sp_hstream_t *h, int q) {
  sp_html_ctx_t *x = h->x;
  sp_hpair_t *P = &h->pair[q];
  const sp_lane_t *ln = &x->sel->lanes[P->li];
  sp_reader_info_t info;
  if (sp_reader_info(x->sel->reader, ln->region, ln->rank, &info) != 0) info.num_calls = P->n;
  sp_html_stat_sums(x, P->li, P->n, info.num_calls, P->sum, P->mn, P->mx);
  x->c->intervals += P->n;
  sp_reader_values_t vals = {0};
  int rc = 0;
  if (x->exact[P->li] && sp_reader_values_load(x->sel->reader, ln->region, ln->rank, &vals) < 0) {
    sp_msg(SP_QUIET, "%s", sp_reader_errmsg(x->sel->reader));
    return SP_EXIT_DATA;
  }
  for (int i = 0; rc == 0 && i < h->nlanes; i++) {
    sp_hlane_t *L = &h->lane[i];
    if (L->q != q) continue;
    if (x->exact[P->li]) { /* the loaded pass's input: the pair's order */
      qsort(L->sp, (size_t)L->nsp, sizeof *L->sp, sp_cmp_idx);
      rc = sp_html_lane_out(x, P->li, L->tid, L->sp, L->nsp, &vals);
    } else {
      rc = sp_hlane_binned(h, P->li, L);
    }
  }
  sp_reader_values_free(&vals);
  return rc;
}

/* Pass 3's output of pair q: the tiles of its lanes that have some. */
static void sp_hpair_tiles(sp_hstream_t *h, int q) {
  for (int i = 0; i < h->nlanes; i++) {
    sp_hlane_t *L = &h->lane[i];
    if (L->q != q || L->tile < 0) continue;
    qsort(L->sp, (size_t)L->nsp, sizeof *L->sp, sp_cmp_idx);
    qsort(L->sp, (size_t)L->nsp, sizeof *L->sp, sp_html_span_cmp);
    sp_html_tiles_write(h->x->tiles, h->x->f, L->tile, L->sp, L->nsp, L->paths, L->np, h->x->c);
  }
}

/* Reads the rank's merge through the sweep into h. */
static int sp_hstream_read(sp_hstream_t *h, const int *regs, const int32_t *keys, int n) {
  sp_html_ctx_t *x = h->x;
  sp_reader_t *r = x->sel->reader;
  sp_reader_merge_t *m = NULL;
  sp_reader_call_t *c = malloc(SP_HS_SLICE * sizeof *c);
  int rc = c ? sp_reader_merge_open(r, h->rank, regs, keys, n, &m) : SP_READER_ENOMEM;
  int64_t got = 0;
  int32_t ptid = 0;
  int started = 0;
  while (rc == 0 && (got = sp_reader_merge_next_n(m, c, SP_HS_SLICE)) > 0)
    for (int64_t i = 0; rc == 0 && i < got; i++) rc = sp_hcall(h, &c[i], regs, &ptid, &started);
  if (rc == 0 && got < 0) rc = (int)got;
  sp_reader_merge_close(m);
  free(c);
  for (int q = 0; rc == 0 && q < n; q++)
    if (h->pair[q].cur >= 0) rc = sp_hlane_close(h, &h->lane[h->pair[q].cur]);
  if (rc < 0) { /* the reader's */
    sp_msg(SP_QUIET, "%s", rc == SP_READER_ENOMEM ? "out of memory" : sp_reader_errmsg(r));
    return rc == SP_READER_ENOMEM ? SP_EXIT_IO : sp_exit_for_reader(rc);
  }
  if (rc != 0) sp_msg(SP_QUIET, "out of memory");
  return rc;
}

int sp_html_rank_stream(sp_html_ctx_t *x, const int *lis, int n, int tiles_pass) {
  sp_hstream_t h;
  memset(&h, 0, sizeof h);
  h.x = x;
  h.tiles_pass = tiles_pass;
  h.rank = x->sel->lanes[lis[0]].rank;
  h.pair = calloc((size_t)n + 1, sizeof *h.pair);
  int *regs = malloc(((size_t)n + 1) * sizeof *regs);
  int32_t *keys = malloc(((size_t)n + 1) * sizeof *keys);
  int rc = h.pair && regs && keys ? 0 : SP_EXIT_IO;
  if (rc != 0) sp_msg(SP_QUIET, "out of memory");
  for (int q = 0; rc == 0 && q < n; q++) {
    regs[q] = x->sel->lanes[lis[q]].region;
    keys[q] = sp_html_paths_key(x->paths, regs[q]);
    h.pair[q].li = lis[q];
    h.pair[q].cur = -1;
  }
  if (rc == 0) rc = sp_hstream_read(&h, regs, keys, n);
  for (int q = 0; rc == 0 && q < n; q++) {
    if (tiles_pass)
      sp_hpair_tiles(&h, q);
    else
      rc = sp_hpair_out(&h, q);
    /* A failed write (full disk) ends the run: the caller says why. */
    if (rc == 0 && ferror(x->f)) rc = SP_EXIT_IO;
  }
  for (int i = 0; i < h.nlanes; i++)
    free(h.lane[i].sp), free(h.lane[i].paths), free(h.lane[i].occ), free(h.lane[i].lv);
  free(h.lane), free(h.pair), free(h.stack_end), free(h.stack_node), free(regs), free(keys);
  return rc;
}
