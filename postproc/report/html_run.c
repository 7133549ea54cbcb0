/* html_run.c - the "run" object of report.html: what the file says about
 * its run beside the program's own keys ("meta", html_data.c), and the
 * selection the report was written with, for the Run metadata section.
 *
 * From the file: its number of ranks, the distinct hostnames of the ranks
 * with their rank counts, and the /metadata attributes the library writes
 * itself (library_version, mpi_size, omp_num_threads, ...: the keys
 * run_info.c leaves out of "meta"). From the command line: the files and
 * labels, --ranks, --include, --exclude, --html-exact and whether the
 * clocks were aligned. The window is "window" (html_data.c). */
#include <stdlib.h>
#include <string.h>

#include "html.h"

#define SP_HTML_RUN_HOSTS 256 /* hostnames listed, at most (nhosts counts all) */

static int sp_cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ,"nhosts":N,"hosts":[{"h":name,"n":ranks},...] in name order. */
static int sp_html_run_hosts(FILE *f, sp_reader_t *r) {
  int n = sp_reader_num_ranks(r), m = 0, distinct = 0, listed = 0;
  const char **h = malloc(((size_t)n + 1) * sizeof *h);
  if (!h) return SP_EXIT_IO;
  for (int k = 0; k < n; k++)
    if (sp_reader_rank_host(r, k)) h[m++] = sp_reader_rank_host(r, k);
  qsort(h, (size_t)m, sizeof *h, sp_cmp_str);
  for (int i = 0; i < m; i++) distinct += i == 0 || strcmp(h[i], h[i - 1]) != 0;
  fprintf(f, ",\"nhosts\":%d,\"hosts\":[", distinct);
  for (int i = 0, j; i < m && listed < SP_HTML_RUN_HOSTS; i = j, listed++) {
    for (j = i + 1; j < m && strcmp(h[j], h[i]) == 0; j++) continue;
    fputs(listed ? ",{\"h\":" : "{\"h\":", f);
    sp_html_json_str(f, h[i]);
    fprintf(f, ",\"n\":%d}", j - i);
  }
  fputc(']', f);
  free(h);
  return 0;
}

/* ,"lib":[{"k":key,"v":value},...]: the library's own scalar keys. */
static int sp_html_run_lib(FILE *f, sp_reader_t *r) {
  int n = sp_reader_metadata_count(r), shown = 0;
  char key[256], *val = malloc(4097);
  if (!val) return SP_EXIT_IO;
  fputs(",\"lib\":[", f);
  for (int i = 0; i < n && shown < 256; i++) {
    int kind = 0;
    if (sp_reader_metadata_entry(r, i, key, sizeof key, val, 4097, &kind) != 0) continue;
    if (kind == SP_READER_META_OTHER || !sp_run_meta_is_own(key)) continue;
    fputs(shown++ ? ",{\"k\":" : "{\"k\":", f);
    sp_html_json_str(f, key);
    fputs(",\"v\":", f);
    sp_html_json_str(f, val);
    fputc('}', f);
  }
  fputc(']', f);
  free(val);
  return 0;
}

static void sp_html_run_words(FILE *f, const char *name, const char *const *w, size_t n) {
  fprintf(f, ",\"%s\":[", name);
  for (size_t i = 0; i < n; i++) {
    if (i) fputc(',', f);
    sp_html_json_str(f, w[i]);
  }
  fputc(']', f);
}

int sp_html_run_write(FILE *f, const sp_selection_t *sels, int nfiles, const char *const *labels,
                      const sp_options_t *o) {
  sp_reader_t *r = sels[0].reader;
  fprintf(f, ",\n\"run\":{\"ranks\":%d,\"aligned\":%d", sp_reader_num_ranks(r),
          sp_reader_clock_aligned(r));
  int rc = sp_html_run_hosts(f, r);
  if (rc == 0) rc = sp_html_run_lib(f, r);
  if (rc) {
    sp_msg(SP_QUIET, "out of memory");
    return rc;
  }
  fprintf(f, ",\"sel\":{\"exact\":%ld", o->html_exact);
  sp_html_run_words(f, "rank_words", o->ranks, o->nranks);
  sp_html_run_words(f, "include", o->include, o->ninclude);
  sp_html_run_words(f, "exclude", o->exclude, o->nexclude);
  fputs(",\"files\":[", f);
  for (int k = 0; k < nfiles; k++) {
    fputs(k ? ",{\"path\":" : "{\"path\":", f);
    sp_html_json_str(f, sels[k].file);
    fputs(",\"label\":", f);
    sp_html_json_str(f, labels && labels[k] ? labels[k] : sels[k].file);
    fprintf(f, ",\"ranks\":%d}", sels[k].nranks);
  }
  fputs("]}}", f);
  return 0;
}
