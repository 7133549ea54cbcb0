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
 * the data is regions x ranks, never per interval.
 *
 * A file with OpenMP regions (docs/openmp.md: named "omp parallel @ ...",
 * "omp barrier @ ...", ...; the file carries no other mark of them) also
 * gets "omp": per (rank, thread) the time in its outermost "omp parallel"
 * calls and in the OpenMP wait regions (barriers, taskwait, taskgroup,
 * reduction, mutex waits), for the work-vs-wait table. Files without them
 * are written as before. */
#include <stdlib.h>
#include <string.h>

#include "chart_stats.h"
#include "html.h"

enum { SP_OMP_PAR = 1, SP_OMP_WAIT = 2 };

/* One thread's OpenMP times: outermost "omp parallel" calls and waits, ns. */
typedef struct sp_omp_thr {
  int j;       /* rank position */
  int32_t tid; /* thread id */
  double par, wait;
} sp_omp_thr_t;

/* The constructs ompt_room.h names "<name>" or "<name> @ <where>". */
static int sp_omp_is(const char *name, const char *what) {
  size_t n = strlen(what);
  return strncmp(name, what, n) == 0 && (name[n] == '\0' || strncmp(name + n, " @ ", 3) == 0);
}

static int sp_omp_class_of(const char *name) {
  static const char *const waits[] = {
      "omp barrier",       "omp implicit barrier", "omp runtime barrier",
      "omp taskwait",      "omp taskgroup",        "omp reduction",
      "omp critical wait", "omp lock wait",        "omp ordered wait"};
  if (strncmp(name, "omp ", 4) != 0) return 0;
  if (sp_omp_is(name, "omp parallel")) return SP_OMP_PAR;
  for (size_t i = 0; i < sizeof waits / sizeof *waits; i++)
    if (sp_omp_is(name, waits[i])) return SP_OMP_WAIT;
  return 0;
}

struct sp_html_balance {
  const sp_selection_t *sel;
  int64_t t0;
  double span;
  int *rpos;          /* reader rank index -> selected position, -1 */
  double *rt;         /* [region position * nranks + rank position], ns */
  double *thirds;     /* per region position: early calls, early ns, late calls, late ns */
  int stamps;         /* 0: an aggregate file (no thirds) */
  unsigned char *omp; /* per region position: 0, SP_OMP_PAR or SP_OMP_WAIT */
  sp_omp_thr_t *thr;  /* per (rank position, thread) OpenMP times */
  size_t nthr, thr_cap;
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
  b->omp = calloc(nr, 1);
  if (!b->rpos || !b->rt || !b->thirds || !b->omp) {
    sp_html_balance_free(b);
    return NULL;
  }
  for (int k = 0; k < nk; k++) b->rpos[k] = -1;
  for (int j = 0; j < sel->nranks; j++) b->rpos[sel->ranks[j]] = j;
  for (int i = 0; i < sel->nregions; i++)
    b->omp[i] = (unsigned char)sp_omp_class_of(sp_reader_region_name(sel->reader, sel->regions[i]));
  return b;
}

void sp_html_balance_free(sp_html_balance_t *b) {
  if (!b) return;
  free(b->rpos), free(b->rt), free(b->thirds), free(b->omp), free(b->thr);
  free(b);
}

/* The record of thread tid of rank position j, added when new; NULL when
 * out of memory. Few threads per rank: a search from the end. */
static sp_omp_thr_t *sp_omp_thr(sp_html_balance_t *b, int j, int32_t tid) {
  for (size_t i = b->nthr; i-- > 0;)
    if (b->thr[i].j == j && b->thr[i].tid == tid) return &b->thr[i];
  if (b->nthr == b->thr_cap) {
    size_t n = b->thr_cap ? 2 * b->thr_cap : 16;
    sp_omp_thr_t *t = realloc(b->thr, n * sizeof *t);
    if (!t) return NULL;
    b->thr = t, b->thr_cap = n;
  }
  b->thr[b->nthr] = (sp_omp_thr_t){j, tid, 0, 0};
  return &b->thr[b->nthr++];
}

/* An OpenMP region's outermost calls (outer[]) added to their threads. */
static int sp_omp_add(sp_html_balance_t *b, int cls, int j, const int64_t *s, const int64_t *e,
                      const int32_t *tids, const unsigned char *outer, int64_t n) {
  sp_omp_thr_t *t = NULL;
  for (int64_t i = 0; i < n; i++) {
    if (!outer[i]) continue;
    int32_t tid = tids ? tids[i] : 0;
    if (!t || t->tid != tid) t = sp_omp_thr(b, j, tid);
    if (!t) return SP_EXIT_IO;
    *(cls == SP_OMP_PAR ? &t->par : &t->wait) += sp_ns_between(s[i], e[i]);
  }
  return 0;
}

int sp_html_balance_calls(sp_html_balance_t *b, int pos, int rank, const int64_t *s,
                          const int64_t *e, const int32_t *tids, const unsigned char *outer,
                          int64_t n) {
  int j = b->rpos[rank];
  if (j < 0 || n == 0) return 0;
  double sum = 0, *th = &b->thirds[4 * (size_t)pos];
  double a = b->span / 3.0, z = 2.0 * b->span / 3.0;
  for (int64_t i = 0; i < n; i++) {
    double d = sp_ns_between(s[i], e[i]), at = sp_ns_between(b->t0, s[i]);
    if (outer[i]) sum += d;
    if (at < a) th[0] += 1, th[1] += d;
    if (at >= z) th[2] += 1, th[3] += d;
  }
  b->rt[(size_t)pos * (size_t)b->sel->nranks + (size_t)j] += sum;
  return b->omp[pos] ? sp_omp_add(b, b->omp[pos], j, s, e, tids, outer, n) : 0;
}

int sp_html_balance_pair(sp_html_balance_t *b, int pos, int rank, const sp_reader_intervals_t *iv) {
  if (b->rpos[rank] < 0 || iv->n == 0) return 0;
  unsigned char *outer = malloc((size_t)iv->n);
  if (!outer || sp_outer_calls(iv, outer) != 0) {
    free(outer);
    return SP_EXIT_IO;
  }
  int rc = sp_html_balance_calls(b, pos, rank, iv->start, iv->end, iv->thread_ids, outer, iv->n);
  free(outer);
  return rc;
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

static int sp_omp_thr_cmp(const void *x, const void *y) {
  const sp_omp_thr_t *a = x, *c = y;
  return a->j != c->j ? (a->j > c->j) - (a->j < c->j) : (a->tid > c->tid) - (a->tid < c->tid);
}

/* ',"omp":{"threads":[[rank id, thread, parallel ns, wait ns],...]}' when
 * a selected region is an OpenMP one (stamped files only). */
static void sp_omp_write(FILE *f, const sp_html_balance_t *b) {
  int any = 0;
  for (int i = 0; i < b->sel->nregions; i++) any |= b->omp[i];
  if (!any || !b->stamps) return;
  if (b->nthr) qsort(b->thr, b->nthr, sizeof *b->thr, sp_omp_thr_cmp);
  fputs(",\"omp\":{\"threads\":[", f);
  for (size_t i = 0; i < b->nthr; i++) {
    const sp_omp_thr_t *t = &b->thr[i];
    fprintf(f, "%s[%d,%d,%.0f,%.0f]", i ? "," : "",
            sp_reader_rank_id(b->sel->reader, b->sel->ranks[t->j]), (int)t->tid, t->par, t->wait);
  }
  fputs("]}", f);
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
  sp_omp_write(f, b);
  fputc('}', f);
}
