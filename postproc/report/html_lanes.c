/* html_lanes.c - one lane of report.html's timeline written from its calls
 * (exact: every call; binned: busy fractions per bin at several
 * resolutions) and a pair's region figures: what the loaded pass
 * (html_data.c) and the streamed one (html_stream.c) share, below both.
 * See html_data.c for the format. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_data.h"

double sp_html_occ_block(const sp_html_ctx_t *x, double *occ, int64_t s, int64_t e) {
  int F = x->fine;
  double scale = F / x->span;
  double *diff = occ + F; /* F + 1 counters of fully covered bins */
  double a = sp_ns_between(x->t0, s) * scale, b = sp_ns_between(x->t0, e) * scale;
  if (b > F) b = F;
  int ia = (int)a, ib = (int)b;
  if (ia >= F) ia = F - 1;
  if (ib >= F) ib = F - 1;
  if (ia == ib) {
    occ[ia] += b - a;
  } else {
    occ[ia] += ia + 1 - a;
    occ[ib] += b - ib;
    diff[ia + 1] += 1;
    diff[ib] -= 1;
  }
  return sp_ns_between(s, e);
}

void sp_html_occ_finish(const sp_html_ctx_t *x, double *occ) {
  double run = 0, *diff = occ + x->fine;
  for (int k = 0; k < x->fine; k++) {
    run += diff[k];
    occ[k] += run;
  }
}

/* Adds sorted spans (merged where they overlap) to the fine bins. */
static double sp_html_occupy(sp_html_ctx_t *x, const sp_span_t *sp, int64_t n) {
  double busy = 0;
  memset(x->occ, 0, (2 * (size_t)x->fine + 1) * sizeof *x->occ);
  for (int64_t i = 0; i < n;) {
    int64_t s = sp[i].s, e = sp[i].e;
    for (i++; i < n && sp[i].s <= e; i++)
      if (sp[i].e > e) e = sp[i].e;
    busy += sp_html_occ_block(x, x->occ, s, e);
  }
  sp_html_occ_finish(x, x->occ);
  return busy;
}

size_t sp_html_levels_size(const sp_html_ctx_t *x) {
  size_t n = 0;
  for (int l = 0, bins = SP_HTML_OCC_COARSE; l < x->nlevels; l++, bins *= 4) n += (size_t)bins;
  return n;
}

void sp_html_levels_bytes(const sp_html_ctx_t *x, const double *occ, unsigned char *lvl) {
  for (int l = 0, bins = SP_HTML_OCC_COARSE; l < x->nlevels; l++, bins *= 4) {
    int per = x->fine / bins;
    for (int k = 0; k < bins; k++) {
      double s = 0;
      for (int j = 0; j < per; j++) s += occ[k * per + j];
      s /= per;
      lvl[k] = (unsigned char)lround(255.0 * (s < 0 ? 0 : s > 1 ? 1 : s));
    }
    lvl += bins;
  }
}

void sp_html_levels_write(const sp_html_ctx_t *x, const unsigned char *lvl) {
  FILE *f = x->f;
  fputs(",\"occ\":[", f);
  for (int l = 0, bins = SP_HTML_OCC_COARSE; l < x->nlevels; l++, bins *= 4) {
    fputs(l ? ",\"" : "\"", f);
    sp_html_base64(f, lvl, (size_t)bins);
    fputc('"', f);
    lvl += bins;
  }
  fputc(']', f);
}

int sp_html_span_cmp(const void *a, const void *b) {
  const sp_span_t *p = a, *q = b;
  return p->s < q->s ? -1 : p->s > q->s ? 1 : (p->e < q->e ? -1 : p->e > q->e);
}

/* The lane's call paths: "paths" (its distinct tree nodes) and, with
 * several, "pi" (per exact interval, the index of its node in "paths"). */
static int sp_html_lane_paths_out(sp_html_ctx_t *x, const sp_span_t *sp, int64_t m, int exact) {
  FILE *f = x->f;
  int np;
  sp_html_lane_paths(sp, m, x->lpaths, &np);
  fputs(",\"paths\":[", f);
  for (int k = 0; k < np; k++) fprintf(f, "%s%d", k ? "," : "", (int)x->lpaths[k]);
  fputc(']', f);
  if (!exact || np < 2) return np;
  fputs(",\"pi\":[", f);
  for (int64_t i = 0; i < m; i++)
    fprintf(f, "%s%d", i ? "," : "", sp_html_path_index(x->lpaths, np, sp[i].node));
  fputc(']', f);
  return np;
}

int sp_html_lane_out(sp_html_ctx_t *x, int li, int tid, sp_span_t *sp, int64_t m,
                     const sp_reader_values_t *vals) {
  FILE *f = x->f;
  const sp_lane_t *ln = &x->sel->lanes[li];
  qsort(sp, (size_t)m, sizeof *sp, sp_html_span_cmp);
  fprintf(f, "%s\n{\"g\":%d,\"r\":%d,\"t\":%d,\"n\":%lld", x->first_lane ? "" : ",",
          x->gpos[ln->region], sp_reader_rank_id(x->sel->reader, ln->rank), tid, (long long)m);
  x->first_lane = 0;
  int lane = x->c->lanes++;
  int np = sp_html_lane_paths_out(x, sp, m, x->exact[li]);
  if (x->exact[li]) {
    fputs(",\"iv\":[", f);
    int64_t prev = x->t0;
    for (int64_t i = 0; i < m; i++) {
      fprintf(f, "%s%.0f,%.0f", i ? "," : "", sp_ns_between(prev, sp[i].s),
              sp_ns_between(sp[i].s, sp[i].e));
      prev = sp[i].s;
    }
    fputc(']', f);
    sp_html_lane_values(f, vals, sp, m);
    x->c->exact += m;
  } else {
    double busy = sp_html_occupy(x, sp, m);
    if (sp_html_tiles_count(x->tiles, lane, li, tid, np > 1, sp, m) != 0) return SP_EXIT_IO;
    /* z: the tiles no call overlaps (hex, bit k = tile k; html_tiles.c). */
    fprintf(f, ",\"busy\":%.0f,\"z\":\"", busy);
    sp_html_tiles_empty(x->tiles, f);
    fputc('"', f);
    sp_html_levels_bytes(x, x->occ, x->lvl);
    sp_html_levels_write(x, x->lvl);
    x->c->binned_lanes++;
  }
  fputc('}', f);
  return 0;
}

void sp_html_stat_sums(sp_html_ctx_t *x, int li, int64_t n, int64_t num_calls, double sum,
                       double mn, double mx) {
  sp_rstat_t *r = &x->rs[x->gpos[x->sel->lanes[li].region]];
  if (n > 0 && (r->n == 0 || mn < r->min)) r->min = mn;
  if (n > 0 && (r->n == 0 || mx > r->max)) r->max = mx;
  r->n += n;
  r->calls += num_calls;
  r->total += sum;
  r->rk_min = r->rk_n == 0 || sum < r->rk_min ? sum : r->rk_min;
  r->rk_max = r->rk_n == 0 || sum > r->rk_max ? sum : r->rk_max;
  r->rk_sum += sum;
  r->rk_n++;
}
