/* html_balance.c - the per-region figures of the report's Load balance,
 * Rank comparison and Hotspots sections (report_balance.js).
 *
 * Written as "balance": per selected region and selected rank the rank's
 * time (its outermost calls summed over its threads, the rule of --summary:
 * a recursive region counts once; 0 when the rank lacks the region), and
 * per region the calls that start in the first and in the last third of
 * the run with their summed durations (every call, nested ones too, as the
 * mean per call of --summary), for the finding of a region whose calls grow
 * longer. An aggregate file (no stamps) gives the stored totals per rank
 * and no thirds. Filled from pass 2's loaded pairs: nothing is reread, and
 * the data is regions x ranks, never per interval. */
#include <stdlib.h>
#include <string.h>

#include "chart_stats.h"
#include "html.h"

struct sp_html_balance {
  const sp_selection_t *sel;
  int64_t t0;
  double span;
  int *rpos;      /* reader rank index -> selected position, -1 */
  double *rt;     /* [region position * nranks + rank position], ns */
  double *thirds; /* per region position: early calls, early ns, late calls, late ns */
  int stamps;     /* 0: an aggregate file (no thirds) */
};

sp_html_balance_t *sp_html_balance_new(const sp_selection_t *sel, int64_t t0, double span) {
  sp_html_balance_t *b = calloc(1, sizeof *b);
  int nk = sp_reader_num_ranks(sel->reader);
  size_t nr = (size_t)sel->nregions + 1, nj = (size_t)sel->nranks + 1;
  if (!b) return NULL;
  b->sel = sel;
  b->t0 = t0;
  b->span = span;
  b->stamps = 1;
  b->rpos = malloc(((size_t)nk + 1) * sizeof *b->rpos);
  b->rt = calloc(nr * nj, sizeof *b->rt);
  b->thirds = calloc(4 * nr, sizeof *b->thirds);
  if (!b->rpos || !b->rt || !b->thirds) {
    sp_html_balance_free(b);
    return NULL;
  }
  for (int k = 0; k < nk; k++) b->rpos[k] = -1;
  for (int j = 0; j < sel->nranks; j++) b->rpos[sel->ranks[j]] = j;
  return b;
}

void sp_html_balance_free(sp_html_balance_t *b) {
  if (!b) return;
  free(b->rpos), free(b->rt), free(b->thirds);
  free(b);
}

int sp_html_balance_pair(sp_html_balance_t *b, int pos, int rank, const sp_reader_intervals_t *iv) {
  int j = b->rpos[rank];
  if (j < 0 || iv->n == 0) return 0;
  unsigned char *outer = malloc((size_t)iv->n);
  if (!outer || sp_outer_calls(iv, outer) != 0) {
    free(outer);
    return SP_EXIT_IO;
  }
  double sum = 0, *th = &b->thirds[4 * (size_t)pos];
  double a = b->span / 3.0, z = 2.0 * b->span / 3.0;
  for (int64_t i = 0; i < iv->n; i++) {
    double d = sp_ns_between(iv->start[i], iv->end[i]), at = sp_ns_between(b->t0, iv->start[i]);
    if (outer[i]) sum += d;
    if (at < a) th[0] += 1, th[1] += d;
    if (at >= z) th[2] += 1, th[3] += d;
  }
  b->rt[(size_t)pos * (size_t)b->sel->nranks + (size_t)j] += sum;
  free(outer);
  return 0;
}

void sp_html_balance_agg(sp_html_balance_t *b) {
  const sp_selection_t *sel = b->sel;
  b->stamps = 0;
  for (int i = 0; i < sel->nregions; i++)
    for (int j = 0; j < sel->nranks; j++) {
      sp_reader_aggregate_t ag = {0, 0, 0, 0, 0, 0, 0};
      if (sp_reader_aggregate(sel->reader, sel->regions[i], sel->ranks[j], &ag) == 0 &&
          ag.present && (ag.have & SP_READER_AGG_TOTAL))
        b->rt[(size_t)i * (size_t)sel->nranks + (size_t)j] = (double)ag.total;
    }
}

void sp_html_balance_write(FILE *f, const sp_html_balance_t *b) {
  const sp_selection_t *sel = b->sel;
  fputs(",\n\"balance\":{\"rt\":[", f);
  for (int i = 0; i < sel->nregions; i++) {
    fputs(i ? ",[" : "[", f);
    for (int j = 0; j < sel->nranks; j++)
      fprintf(f, "%s%.0f", j ? "," : "", b->rt[(size_t)i * (size_t)sel->nranks + (size_t)j]);
    fputc(']', f);
  }
  fputc(']', f);
  if (b->stamps) {
    fputs(",\"thirds\":[", f);
    for (int i = 0; i < sel->nregions; i++) {
      const double *th = &b->thirds[4 * (size_t)i];
      fprintf(f, "%s[%.0f,%.0f,%.0f,%.0f]", i ? "," : "", th[0], th[1], th[2], th[3]);
    }
    fputc(']', f);
  }
  fputc('}', f);
}
