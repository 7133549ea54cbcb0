/* html_files.c - several files in report.html: the data of the Speedup,
 * Weak scaling and Change sections.
 *
 * Per file: its label; the x axes the page offers: its selected ranks, its
 * nodes (distinct host names of those ranks), threads per rank (/metadata
 * omp_num_threads as the library writes it: OMP_NUM_THREADS, else the
 * threads that recorded) and cores (threads x selected ranks); its
 * /metadata work_per_rank; and per region the calls with stamps and their
 * summed duration over the selected ranks (the speedup's mean per call,
 * the reference tool's rule) and rank_mean, the figure of --compare
 * (sp_figures_compute: each rank's time summed over its threads over the
 * outermost calls, mean over the selected ranks). Each file is read once
 * more, one (region, rank) pair at a time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

static int sp_str_cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Distinct host names of the selected ranks; 0 when a rank has none. */
static int sp_html_nodes(const sp_selection_t *sel) {
  const char **h = malloc((size_t)(sel->nranks ? sel->nranks : 1) * sizeof *h);
  int n = 0;
  for (int j = 0; h && j < sel->nranks; j++) {
    h[j] = sp_reader_rank_host(sel->reader, sel->ranks[j]);
    if (!h[j]) {
      free(h);
      return 0;
    }
  }
  if (h && sel->nranks) {
    qsort(h, (size_t)sel->nranks, sizeof *h, sp_str_cmp);
    n = 1;
    for (int j = 1; j < sel->nranks; j++) n += strcmp(h[j], h[j - 1]) != 0;
  }
  free(h);
  return n;
}

/* /metadata key as a positive number into *v; 0 when absent or not one. */
static int sp_html_meta_num(const sp_selection_t *sel, const char *key, double *v) {
  char buf[64], *end;
  if (sp_reader_metadata(sel->reader, key, buf, sizeof buf) != 0) return 0;
  *v = strtod(buf, &end);
  return end != buf && *end == '\0' && isfinite(*v) && *v > 0;
}

static void sp_html_file_axes(FILE *f, const sp_selection_t *sel) {
  fprintf(f, ",\"ranks\":%d", sel->nranks);
  int nodes = sp_html_nodes(sel);
  if (nodes > 0) fprintf(f, ",\"nodes\":%d", nodes);
  double threads, work;
  if (sp_html_meta_num(sel, "omp_num_threads", &threads) ||
      sp_html_meta_num(sel, "omp_threads", &threads))
    fprintf(f, ",\"threads\":%.17g,\"cores\":%.17g", threads, threads * sel->nranks);
  if (sp_html_meta_num(sel, "work_per_rank", &work)) fprintf(f, ",\"work\":%.17g", work);
}

static int sp_html_file(FILE *f, const sp_selection_t *sel, const char *label) {
  sp_figure_t *fg;
  int nfg;
  int rc = sp_figures_compute(sel, &fg, &nfg);
  if (rc) return rc;
  fputs("{\"label\":", f);
  sp_html_json_str(f, label ? label : sel->file);
  sp_html_file_axes(f, sel);
  fputs(",\"regions\":{", f);
  for (int i = 0, lane = 0; i < sel->nregions; i++) {
    int64_t n = 0;
    double total = 0;
    for (; lane < sel->nlanes && sel->lanes[lane].region == sel->regions[i]; lane++) {
      sp_reader_intervals_t iv;
      int err = sp_reader_load(sel->reader, sel->regions[i], sel->lanes[lane].rank, &iv);
      if (err < 0) {
        sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
        free(fg);
        return sp_exit_for_reader(err);
      }
      for (int64_t k = 0; k < iv.n; k++) total += sp_ns_between(iv.start[k], iv.end[k]);
      n += iv.n;
      sp_reader_intervals_free(&iv);
    }
    fputs(i ? "," : "", f);
    sp_html_json_str(f, sp_reader_region_name(sel->reader, sel->regions[i]));
    fprintf(f, ":{\"n\":%lld,\"total\":%.0f", (long long)n, total);
    if (i < nfg && fg[i].timed) fprintf(f, ",\"rank_mean\":%.17g", fg[i].rank_mean);
    fputc('}', f);
  }
  fputs("}}", f);
  free(fg);
  return 0;
}

int sp_html_files_write(FILE *f, const sp_selection_t *sels, int nfiles,
                        const char *const *labels) {
  if (nfiles < 2) return 0;
  fputs(",\n\"files\":[", f);
  for (int k = 0; k < nfiles; k++) {
    fputs(k ? ",\n" : "\n", f);
    int rc = sp_html_file(f, &sels[k], labels ? labels[k] : NULL);
    if (rc) return rc;
  }
  fputc(']', f);
  return 0;
}
