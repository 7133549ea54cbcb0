/* html_files.c - several files in report.html: the speedup plot's data.
 *
 * Per file: its label, its number of selected ranks (the x of the
 * speedup plot, the reference tool's default x field num_ranks) and, per
 * region, the calls with stamps and their summed duration over the
 * selected ranks. The page keeps the regions common to all files, averages
 * files with the same x, and plots speedup = baseline mean / mean with the
 * smallest x as baseline, beside the ideal line. Each file is read once
 * more, one (region, rank) pair at a time. */
#include "html.h"

static int sp_html_file(FILE *f, const sp_selection_t *sel, const char *label) {
  fputs("{\"label\":", f);
  sp_html_json_str(f, label ? label : sel->file);
  fprintf(f, ",\"ranks\":%d,\"regions\":{", sel->nranks);
  for (int i = 0, lane = 0; i < sel->nregions; i++) {
    int64_t n = 0;
    double total = 0;
    for (; lane < sel->nlanes && sel->lanes[lane].region == sel->regions[i]; lane++) {
      sp_reader_intervals_t iv;
      int err = sp_reader_load(sel->reader, sel->regions[i], sel->lanes[lane].rank, &iv);
      if (err < 0) {
        sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
        return sp_exit_for_reader(err);
      }
      for (int64_t k = 0; k < iv.n; k++) total += sp_ns_between(iv.start[k], iv.end[k]);
      n += iv.n;
      sp_reader_intervals_free(&iv);
    }
    fputs(i ? "," : "", f);
    sp_html_json_str(f, sp_reader_region_name(sel->reader, sel->regions[i]));
    fprintf(f, ":{\"n\":%lld,\"total\":%.0f}", (long long)n, total);
  }
  fputs("}}", f);
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
