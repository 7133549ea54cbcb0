/* gantt_memory.c - the Gantt chart's RSS tracks: under the lanes, one
 * track per rank that has samples (SCOPE_PROFILER_SAMPLE_MS), its resident
 * set size over the run as a grey area from 0 under a black line.
 *
 * One y scale for all tracks, from 0 to the largest sample of any rank
 * (written on the right): equal heights are equal memory, so ranks
 * compare at a glance, and a track never starts above 0 to exaggerate a
 * small change. Samples join with straight lines; between two samples
 * nothing is known, which the --help says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "chart_output.h"
#include "gantt_memory.h"
#include "plot_device.h"

void sp_gantt_mem_free(sp_gantt_mem_t *m) {
  for (int i = 0; m->s && i < m->n; i++) sp_reader_samples_free(&m->s[i]);
  free(m->s);
  free(m->rank);
  memset(m, 0, sizeof *m);
}

int sp_gantt_mem_load(const sp_selection_t *sel, sp_gantt_mem_t *m) {
  memset(m, 0, sizeof *m);
  m->s = calloc((size_t)(sel->nranks ? sel->nranks : 1), sizeof *m->s);
  m->rank = calloc((size_t)(sel->nranks ? sel->nranks : 1), sizeof *m->rank);
  if (!m->s || !m->rank) {
    sp_gantt_mem_free(m);
    return SP_EXIT_IO;
  }
  for (int j = 0; j < sel->nranks; j++) {
    sp_reader_samples_t *s = &m->s[m->n];
    int err = sp_reader_samples_load(sel->reader, sel->ranks[j], s);
    if (err < 0) {
      sp_msg(SP_NORMAL, "warning: %s; the chart has no RSS track for it",
             sp_reader_errmsg(sel->reader));
      continue;
    }
    if (!s->present || s->n == 0) {
      sp_reader_samples_free(s);
      continue;
    }
    for (int64_t i = 0; i < s->n; i++)
      if (s->rss_bytes[i] > m->max_rss) m->max_rss = s->rss_bytes[i];
    m->rank[m->n++] = sel->ranks[j];
  }
  return 0;
}

/* "812 MB", "1.6 GB": the scale's top, short; MB and GB are 10^6 and 10^9
 * bytes, as in the Chrome-trace export and the report. */
static void sp_bytes_text(int64_t b, char *out, size_t cap) {
  double mb = (double)b / 1e6;
  if (mb >= 10000)
    snprintf(out, cap, "%.0f GB", mb / 1000);
  else if (mb >= 1000)
    snprintf(out, cap, "%.1f GB", mb / 1000);
  else
    snprintf(out, cap, "%.0f MB", mb);
}

static void sp_track_draw(const sp_reader_samples_t *s, double x0, double x1, int64_t t0,
                          double top_mb) {
  PLFLT *x = malloc((size_t)(s->n + 2) * sizeof *x), *y = malloc((size_t)(s->n + 2) * sizeof *y);
  if (!x || !y) {
    free(x);
    free(y);
    return;
  }
  for (int64_t i = 0; i < s->n; i++) {
    x[i + 1] = 1e-9 * sp_ns_between(t0, s->times[i]);
    y[i + 1] = (double)s->rss_bytes[i] / 1e6;
  }
  /* The area down to 0 at the first and last sample. */
  x[0] = x[1];
  y[0] = 0;
  x[s->n + 1] = x[s->n];
  y[s->n + 1] = 0;
  plwind(x0, x1, 0.0, top_mb);
  plcol0(SP_COL_GRID);
  if (s->n > 1) plfill((PLINT)(s->n + 2), x, y);
  plcol0(SP_COL_FG);
  plline((PLINT)s->n, x + 1, y + 1);
  free(x);
  free(y);
}

void sp_gantt_mem_draw(const sp_gantt_mem_t *m, const sp_selection_t *sel, double vx0, double vx1,
                       double y0, double y1, double x0, double x1, int64_t t0) {
  double top_mb = m->max_rss > 0 ? (double)m->max_rss / 1e6 : 1.0;
  char scale[32], label[160];
  sp_bytes_text(m->max_rss, scale, sizeof scale);
  double h = (y1 - y0) / m->n;
  for (int i = 0; i < m->n; i++) {
    double yt = y1 - i * h, yb = yt - h;
    plvpor(vx0, vx1, yb, yt);
    sp_track_draw(&m->s[i], x0, x1, t0, top_mb);
    plcol0(SP_COL_FG);
    plschr(3.0, 1.0);
    plbox(i == m->n - 1 ? "bcnst" : "bcst", 0.0, 0, "bc", 0.0, 0);
    int rank = sp_reader_rank_id(sel->reader, m->rank[i]);
    snprintf(label, sizeof label, "RSS r%d", rank);
    plmtex("lv", 0.5, 0.5, 1.0, label);
    /* The shared scale, beside each track (tracks touch: a label at a
     * track's top would run into the one at the bottom of the track above). */
    snprintf(label, sizeof label, "0-%s", scale);
    plmtex("rv", 0.5, 0.5, 0.0, label);
  }
  plschr(3.0, 1.0);
  plmtex("b", 3.0, 0.5, 0.5,
         "time since first start [s]; bar height = share of each pixel column the lane is busy; "
         "RSS: samples joined, one scale from 0");
}
