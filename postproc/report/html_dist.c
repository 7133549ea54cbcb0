/* html_dist.c - report.html on more ranks than fit (issue 47).
 *
 * With more selected ranks than SP_RANKS_FIT and no --ranks, a report that
 * drew a lane, a bar or a row per rank would grow with the ranks (155 MB at
 * 10,000 ranks x 50 regions). The sections that show ranks one by one (the
 * timeline, the flame chart, Load balance, Rank comparison, the RSS tracks,
 * wait states, I/O) then show the representative ranks of rank_pick.h (the
 * min, median and max of the slowest region and its outliers), as the
 * Gantt chart and the heat map do, and "dist" gives per region the
 * distribution over every selected rank: quantiles, a histogram and the
 * outliers of the per-rank totals. The figures are read once, rank after
 * rank (sp_chart_stats_build), 48 bytes per (region, rank). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

#define SP_HTML_DIST_BINS 32 /* histogram bins of a region's per-rank totals */

int sp_html_dist_build(const sp_selection_t *sel, const sp_options_t *o, sp_html_dist_t *d) {
  memset(d, 0, sizeof *d);
  if (!sp_rank_views_needed(sel, 1, o)) return 0;
  int rc = sp_chart_stats_build(sel, 0.0, &d->st);
  if (rc == 0) rc = sp_rank_pick(sel, &d->st, &d->pick);
  if (rc != 0) {
    sp_html_dist_free(d);
    return rc;
  }
  sp_rank_pick_text(sel, &d->pick, d->caption, sizeof d->caption);
  sp_msg(SP_NORMAL,
         "%s: %d ranks are more than fit (%d): the report's timeline and per-rank sections show "
         "%d representative ranks: %s; the distribution over ranks shows all; --ranks picks any",
         sel->file, sel->nranks, SP_RANKS_FIT, d->pick.n, d->caption);
  rc = sp_selection_view(sel, d->pick.ranks, d->pick.n, d->caption, &d->view);
  if (rc != 0) {
    sp_msg(SP_QUIET, "out of memory");
    sp_html_dist_free(d);
    return rc;
  }
  d->all = sel;
  d->active = 1;
  return 0;
}

void sp_html_dist_free(sp_html_dist_t *d) {
  if (d->active) sp_selection_free(&d->view);
  sp_chart_stats_free(&d->st);
  sp_rank_pick_free(&d->pick);
  memset(d, 0, sizeof *d);
}

typedef struct sp_dv {
  double v; /* the region's total on the rank, ns (0 without calls) */
  int k;    /* position in sel->ranks */
} sp_dv_t;

static int sp_dv_cmp(const void *a, const void *b) {
  const sp_dv_t *x = a, *y = b;
  if (x->v != y->v) return x->v < y->v ? -1 : 1;
  return (x->k > y->k) - (x->k < y->k);
}

/* numpy.percentile's default (linear) of the sorted values, q in [0, 1]. */
static double sp_dv_q(const sp_dv_t *s, int n, double q) {
  double pos = q * (n - 1);
  int lo = (int)floor(pos), hi = lo + 1 < n ? lo + 1 : lo;
  return s[lo].v + (pos - lo) * (s[hi].v - s[lo].v);
}

/* The outliers of sorted s (beyond 1.5 IQR of the quartiles), farthest
 * from the median first (ties: the lower rank), at most
 * SP_RANKS_OUTLIERS of them into out (positions in s); returns how many
 * there are in all. */
static int sp_dv_outliers(sp_dv_t *s, int n, int *out, int *nout) {
  double q1 = sp_dv_q(s, n, 0.25), q3 = sp_dv_q(s, n, 0.75), med = sp_dv_q(s, n, 0.5);
  double lo = q1 - 1.5 * (q3 - q1), hi = q3 + 1.5 * (q3 - q1);
  int all = 0, m = 0;
  for (int i = 0; i < n; i++) {
    if (s[i].v >= lo && s[i].v <= hi) continue;
    all++;
    double dv = fabs(s[i].v - med);
    int at = m;
    while (at > 0) {
      const sp_dv_t *p = &s[out[at - 1]];
      double dp = fabs(p->v - med);
      if (dp > dv || (dp == dv && p->k < s[i].k)) break;
      at--;
    }
    if (at >= SP_RANKS_OUTLIERS) continue;
    int last = m < SP_RANKS_OUTLIERS ? m : SP_RANKS_OUTLIERS - 1;
    memmove(out + at + 1, out + at, (size_t)(last - at) * sizeof *out);
    out[at] = i;
    if (m < SP_RANKS_OUTLIERS) m++;
  }
  *nout = m;
  return all;
}

/* ,"bal":[min,mean,max,slowest rank id]: region row g's figures of the
 * Load balance over every selected rank, by its rule (a rank's outermost
 * calls summed over its threads, 0 without the region; the slowest: the
 * first in selection order on ties, as report_balance.js), so that the
 * section and its findings speak of all ranks, not of the representative
 * ones (issue 47). */
static void sp_html_dist_bal(FILE *f, const sp_html_dist_t *d, int g) {
  int n = d->all->nranks, slow = 0;
  double mn = 0, mx = 0, sum = 0;
  for (int k = 0; k < n; k++) {
    double v = d->st.cell[(size_t)g * n + k].outer;
    sum += v;
    if (k == 0 || v < mn) mn = v;
    if (k == 0 || v > mx) mx = v, slow = k;
  }
  fprintf(f, ",\"bal\":[%.0f,%.1f,%.0f,%d]", mn, sum / n, mx,
          sp_reader_rank_id(d->all->reader, d->all->ranks[slow]));
}

/* One region row g: {"g":g,"ranks":with calls,"q":[min,25%,median,75%,max],
 * "mean":..,"bal":[...] (sp_html_dist_bal),"hist":[counts of
 * SP_HTML_DIST_BINS equal bins from min to max],"nout":outliers in
 * all,"out":[[rank id, total],...]}. */
static void sp_html_dist_region(FILE *f, const sp_html_dist_t *d, int g, sp_dv_t *s) {
  const sp_selection_t *sel = d->all;
  int n = sel->nranks, with = 0, idx[SP_RANKS_OUTLIERS], m = 0;
  double sum = 0;
  for (int k = 0; k < n; k++) {
    const sp_cell_stats_t *c = &d->st.cell[(size_t)g * n + k];
    s[k] = (sp_dv_t){c->total, k};
    sum += c->total;
    with += c->n > 0;
  }
  qsort(s, (size_t)n, sizeof *s, sp_dv_cmp);
  fprintf(f, "%s\n{\"g\":%d,\"ranks\":%d,\"q\":[%.0f,%.1f,%.1f,%.1f,%.0f],\"mean\":%.1f",
          g ? "," : "", g, with, s[0].v, sp_dv_q(s, n, 0.25), sp_dv_q(s, n, 0.5),
          sp_dv_q(s, n, 0.75), s[n - 1].v, sum / n);
  sp_html_dist_bal(f, d, g);
  int64_t hist[SP_HTML_DIST_BINS] = {0};
  double lo = s[0].v, w = (s[n - 1].v - lo) / SP_HTML_DIST_BINS;
  for (int i = 0; i < n; i++) {
    int b = w > 0 ? (int)((s[i].v - lo) / w) : 0;
    hist[b >= SP_HTML_DIST_BINS ? SP_HTML_DIST_BINS - 1 : b]++;
  }
  fputs(",\"hist\":[", f);
  for (int b = 0; b < SP_HTML_DIST_BINS; b++)
    fprintf(f, "%s%lld", b ? "," : "", (long long)hist[b]);
  int all = sp_dv_outliers(s, n, idx, &m);
  fprintf(f, "],\"nout\":%d,\"out\":[", all);
  for (int i = 0; i < m; i++)
    fprintf(f, "%s[%d,%.0f]", i ? "," : "", sp_reader_rank_id(sel->reader, sel->ranks[s[idx[i]].k]),
            s[idx[i]].v);
  fputs("]}", f);
}

int sp_html_dist_write(FILE *f, const sp_html_dist_t *d) {
  if (!d || !d->active) return 0;
  const sp_selection_t *sel = d->all;
  sp_reader_t *r = sel->reader;
  sp_dv_t *s = malloc(((size_t)sel->nranks + 1) * sizeof *s);
  if (!s) {
    sp_msg(SP_QUIET, "out of memory");
    return SP_EXIT_IO;
  }
  const sp_rank_pick_t *p = &d->pick;
  fprintf(f,
          ",\n\"dist\":{\"nranks\":%d,\"fit\":%d,\"region\":%d,\"min\":%d,\"median\":%d,\"max\":%d",
          sel->nranks, SP_RANKS_FIT, p->region, sp_reader_rank_id(r, p->min),
          sp_reader_rank_id(r, p->median), sp_reader_rank_id(r, p->max));
  fputs(",\"outliers\":[", f);
  for (int i = 0; i < p->noutliers; i++)
    fprintf(f, "%s%d", i ? "," : "", sp_reader_rank_id(r, p->outliers[i]));
  fputs("],\"caption\":", f);
  sp_html_json_str(f, d->caption);
  fprintf(f, ",\"bins\":%d,\"regions\":[", SP_HTML_DIST_BINS);
  for (int g = 0; g < sel->nregions; g++) sp_html_dist_region(f, d, g, s);
  fputs("]}", f);
  free(s);
  return 0;
}
