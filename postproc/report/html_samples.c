/* html_samples.c - the samples of SCOPE_PROFILER_SAMPLE_MS in report.html:
 * per rank that has some, its RSS over the run for the track the viewer
 * draws under the lanes (docs/report-data.md, "samples").
 *
 * At most SP_HTML_SAMPLE_POINTS points per rank: a longer series is cut
 * into that many runs of consecutive samples, each written as its first
 * sample's time and the largest RSS of the run, so a peak is never lost
 * to the thinning (a dip between samples may be). */
#include "html.h"

#define SP_HTML_SAMPLE_POINTS 4000

static void sp_html_sample_rank(FILE *f, const sp_reader_samples_t *s, int rank, int64_t t0,
                                int *first) {
  int64_t per = (s->n + SP_HTML_SAMPLE_POINTS - 1) / SP_HTML_SAMPLE_POINTS;
  if (per < 1) per = 1;
  fprintf(f, "%s\n{\"r\":%d,\"period\":%lld,\"thin\":%lld,\"t\":[", *first ? "" : ",", rank,
          (long long)s->period_ns, (long long)per);
  *first = 0;
  int64_t prev = t0;
  for (int64_t i = 0; i < s->n; i += per) {
    fprintf(f, "%s%.0f", i ? "," : "", sp_ns_between(prev, s->times[i]));
    prev = s->times[i];
  }
  fputs("],\"rss\":[", f);
  for (int64_t i = 0; i < s->n; i += per) {
    int64_t top = s->rss_bytes[i];
    for (int64_t k = i + 1; k < i + per && k < s->n; k++)
      if (s->rss_bytes[k] > top) top = s->rss_bytes[k];
    fprintf(f, "%s%lld", i ? "," : "", (long long)top);
  }
  fputs("]}", f);
}

int sp_html_samples_write(FILE *f, const sp_selection_t *sel, int64_t t0) {
  int first = 1;
  for (int j = 0; j < sel->nranks; j++) {
    sp_reader_samples_t s;
    int err = sp_reader_samples_load(sel->reader, sel->ranks[j], &s);
    if (err < 0) {
      sp_msg(SP_NORMAL, "warning: %s; the report has no RSS track for it",
             sp_reader_errmsg(sel->reader));
      continue;
    }
    if (s.present && s.n > 0) {
      if (first) fputs(",\n\"samples\":[", f);
      sp_html_sample_rank(f, &s, sp_reader_rank_id(sel->reader, sel->ranks[j]), t0, &first);
    }
    sp_reader_samples_free(&s);
  }
  if (!first) fputs("]", f);
  return 0;
}
