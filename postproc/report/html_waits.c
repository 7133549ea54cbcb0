/* html_waits.c - the "waits" object of report.html: the MPI wait states
 * (common/waits.h, docs/wait-states.md) for the Wait states section
 * (report_waits.js) and the timeline's tooltips (viewer.js).
 *
 * Written only for a file whose MPI calls have tags and communicators;
 * the section stays hidden otherwise. The same sums as --waits over the
 * selected ranks: rows per call path and rank and the causes (the first
 * SP_HTML_WAIT_ROWS of each), per lane (selected region, rank) the time
 * in each state, and the SP_HTML_WAIT_CALLS longest single waits with
 * their start (ns after t0), for the tooltip of an exact call. */
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "waits.h"

#define SP_HTML_WAIT_ROWS 500
#define SP_HTML_WAIT_CALLS 20000

typedef struct sp_wref {
  int64_t wait;
  int32_t k, call;
} sp_wref_t;

static int sp_wref_cmp(const void *a, const void *b) {
  const sp_wref_t *x = a, *y = b;
  if (x->wait != y->wait) return x->wait > y->wait ? -1 : 1;
  if (x->k != y->k) return x->k < y->k ? -1 : 1;
  return (x->call > y->call) - (x->call < y->call);
}

static void sp_html_name_or_null(FILE *f, sp_reader_t *r, int32_t g) {
  const char *s = g >= 0 ? sp_reader_region_name(r, g) : NULL;
  if (s)
    sp_html_json_str(f, s);
  else
    fputs("null", f);
}

static void sp_html_waits_tables(FILE *f, const sp_waits_t *w, const sp_wrow_t *rows, int64_t n,
                                 const sp_cause_t *c, int64_t nc) {
  char path[4096];
  fputs(",\"rows\":[", f);
  for (int64_t i = 0; i < n && i < SP_HTML_WAIT_ROWS; i++) {
    sp_waits_path_name(w, rows[i].path, path, sizeof path);
    fprintf(f, "%s[%d,", i ? "," : "", w->ranks[rows[i].rank].id);
    sp_html_json_str(f, path);
    for (int s = 0; s < SP_WAIT_NSTATES; s++) fprintf(f, ",%lld", (long long)rows[i].ns[s]);
    fputc(']', f);
  }
  fputs("],\"causes\":[", f);
  for (int64_t i = 0; i < nc && i < SP_HTML_WAIT_ROWS; i++) {
    fprintf(f, "%s[%d,%lld,%lld,%d,", i ? "," : "", c[i].state, (long long)c[i].ns,
            (long long)c[i].calls, c[i].rank);
    sp_html_name_or_null(f, w->reader, c[i].region);
    fputc(']', f);
  }
  fputc(']', f);
}

/* Per lane (selected region position, rank id) the ns of each state. */
static int sp_html_waits_lanes(FILE *f, const sp_waits_t *w, const sp_selection_t *sel,
                               const int *gpos) {
  int64_t *acc = malloc((size_t)(sel->nregions + 1) * SP_WAIT_NSTATES * sizeof *acc);
  if (!acc) return SP_EXIT_IO;
  int first = 1;
  fputs(",\"lanes\":[", f);
  for (int j = 0; j < sel->nranks; j++) {
    const sp_wrank_t *rk = &w->ranks[sel->ranks[j]];
    memset(acc, 0, (size_t)(sel->nregions + 1) * SP_WAIT_NSTATES * sizeof *acc);
    for (int64_t i = 0; i < rk->ncalls; i++)
      if (rk->calls[i].state >= 0 && gpos[rk->calls[i].region] >= 0)
        acc[(int64_t)gpos[rk->calls[i].region] * SP_WAIT_NSTATES + rk->calls[i].state] +=
            rk->calls[i].wait;
    for (int g = 0; g < sel->nregions; g++) {
      int64_t *a = &acc[(int64_t)g * SP_WAIT_NSTATES], t = 0;
      for (int s = 0; s < SP_WAIT_NSTATES; s++) t += a[s];
      if (!t) continue;
      fprintf(f, "%s[%d,%d", first ? "" : ",", g, rk->id);
      for (int s = 0; s < SP_WAIT_NSTATES; s++) fprintf(f, ",%lld", (long long)a[s]);
      fputc(']', f);
      first = 0;
    }
  }
  fputc(']', f);
  free(acc);
  return 0;
}

/* The longest single waits of the selected regions and ranks. */
static int sp_html_waits_calls(FILE *f, const sp_waits_t *w, const sp_selection_t *sel,
                               const int *gpos, int64_t t0) {
  int64_t n = 0, m = 0;
  for (int j = 0; j < sel->nranks; j++)
    for (int64_t i = 0; i < w->ranks[sel->ranks[j]].ncalls; i++)
      n += w->ranks[sel->ranks[j]].calls[i].state >= 0;
  sp_wref_t *v = malloc((size_t)(n + 1) * sizeof *v);
  if (!v) return SP_EXIT_IO;
  for (int j = 0; j < sel->nranks; j++) {
    const sp_wrank_t *rk = &w->ranks[sel->ranks[j]];
    for (int64_t i = 0; i < rk->ncalls; i++)
      if (rk->calls[i].state >= 0 && gpos[rk->calls[i].region] >= 0)
        v[m++] = (sp_wref_t){rk->calls[i].wait, sel->ranks[j], (int32_t)i};
  }
  if (m > SP_HTML_WAIT_CALLS) qsort(v, (size_t)m, sizeof *v, sp_wref_cmp);
  fputs(",\"calls\":[", f);
  for (int64_t i = 0; i < m && i < SP_HTML_WAIT_CALLS; i++) {
    const sp_wcall_t *c = &w->ranks[v[i].k].calls[v[i].call];
    fprintf(f, "%s[%d,%d,%lld,%d,%lld,%d,", i ? "," : "", gpos[c->region], w->ranks[v[i].k].id,
            (long long)(c->start - t0), c->state, (long long)c->wait, c->cause_rank);
    sp_html_name_or_null(f, w->reader, c->cause_region);
    fputc(']', f);
  }
  fputc(']', f);
  free(v);
  return 0;
}

/* 1 when the file names a region MPI_*: without one there are no wait
 * states, and sp_waits_build (which loads every pair of every rank) is
 * not worth its memory (800 MB on 100,000 ranks x 50 regions). */
static int sp_html_has_mpi(sp_reader_t *r) {
  int n = sp_reader_num_regions(r);
  for (int g = 0; g < n; g++) {
    const char *name = sp_reader_region_name(r, g);
    if (name && strncmp(name, "MPI_", 4) == 0) return 1;
  }
  return 0;
}

int sp_html_waits_write(FILE *f, const sp_selection_t *sel, int64_t t0) {
  if (!sp_html_has_mpi(sel->reader)) return 0;
  sp_waits_t w;
  int rc = sp_waits_build(sel->reader, &w);
  if (rc) {
    sp_msg(SP_QUIET, "%s: %s", sel->file, sp_reader_errmsg(sel->reader));
    sp_waits_free(&w);
    return sp_exit_for_reader(rc);
  }
  if (w.mpi_calls == 0 || !w.has_tags) {
    sp_waits_free(&w);
    return 0;
  }
  int nreg = sp_reader_num_regions(sel->reader);
  int *gpos = malloc((size_t)(nreg + 1) * sizeof *gpos);
  sp_wrow_t *rows = NULL;
  sp_cause_t *causes = NULL;
  int64_t n = 0, nc = 0;
  rc = gpos ? 0 : SP_EXIT_IO;
  for (int g = 0; rc == 0 && g < nreg; g++) gpos[g] = -1;
  for (int i = 0; rc == 0 && i < sel->nregions; i++) gpos[sel->regions[i]] = i;
  if (rc == 0 && (sp_waits_rows(&w, sel->ranks, sel->nranks, &rows, &n) ||
                  sp_waits_causes(&w, sel->ranks, sel->nranks, &causes, &nc)))
    rc = SP_EXIT_IO;
  if (rc == 0) {
    fputs(",\n\"waits\":{\"states\":[", f);
    for (int s = 0; s < SP_WAIT_NSTATES; s++) {
      if (s) fputc(',', f);
      sp_html_json_str(f, sp_wait_titles[s]);
    }
    fprintf(f, "],\"paired\":[%lld,%lld],\"unpaired\":[", (long long)w.pairs, (long long)w.colls);
    for (int u = 0; u < SP_UNP_NREASONS; u++)
      fprintf(f, "%s%lld", u ? "," : "", (long long)w.unpaired[u]);
    fputc(']', f);
    sp_html_waits_tables(f, &w, rows, n, causes, nc);
    rc = sp_html_waits_lanes(f, &w, sel, gpos);
    if (rc == 0) rc = sp_html_waits_calls(f, &w, sel, gpos, t0);
    fputc('}', f);
  }
  if (rc == SP_EXIT_IO) sp_msg(SP_QUIET, "out of memory");
  free(gpos);
  free(rows);
  free(causes);
  sp_waits_free(&w);
  return rc;
}
