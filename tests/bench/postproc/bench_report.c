/* bench_report.c - the HTML report of a large profile: time and size.
 *
 * usage: bench_report [DIR [INTERVALS [RANKS [REGIONS [EXACT]]]]]
 *        bench_report DIR FILE.h5 [EXACT]
 * Generates DIR/bench.h5 (default 1e7 intervals over 64 ranks x 16
 * regions, deterministic; kept when it exists with the same name), writes
 * DIR/report.html through the same code as scope-profiler-pproc --backend
 * html (--html-exact EXACT, default 1e6) and prints the time, the file size
 * and how the intervals were embedded. bench_report.py then measures the
 * page in headless Chromium. Targets (issue 23): a 1e7-interval 64-rank
 * file gives a report under 25 MB; nothing here asserts them. The second
 * form reads FILE.h5 instead (e.g. make_read_files.py's 100,000-rank file,
 * issue 47: the report on more ranks than fit, html_dist.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "html.h"
#include "pproc.h"
#include "sp_gen_synthetic.h"

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  size_t l2 = argc > 2 ? strlen(argv[2]) : 0;
  int given = l2 > 3 && strcmp(argv[2] + l2 - 3, ".h5") == 0; /* the second form */
  int64_t total = argc > 2 && !given ? (int64_t)atof(argv[2]) : 10000000;
  int ranks = argc > 3 && !given ? atoi(argv[3]) : 64;
  int regions = argc > 4 ? atoi(argv[4]) : 16;
  long exact = given      ? (argc > 3 ? atol(argv[3]) : SP_HTML_EXACT_MAX)
               : argc > 5 ? atol(argv[5])
                          : SP_HTML_EXACT_MAX;
  char path[4096], out[4200];
  if (given)
    snprintf(path, sizeof path, "%s", argv[2]);
  else
    snprintf(path, sizeof path, "%s/bench_%lld_%d_%d.h5", dir, (long long)total, ranks, regions);
  snprintf(out, sizeof out, "%s/report.html", dir);

  double t = sp_now();
  struct stat st;
  if (stat(path, &st) != 0 && sp_gen_synthetic(path, ranks, regions, total) != 0) {
    fprintf(stderr, "bench_report: cannot write %s\n", path);
    return 1;
  }
  if (given)
    printf("input     %s\n", path);
  else
    printf("input     %s: %lld intervals, %d ranks x %d regions (%.3f s)\n", path, (long long)total,
           ranks, regions, sp_now() - t);

  sp_options_t o = {0};
  o.file = path;
  o.outdir = dir;
  o.backend = SP_BACKEND_HTML;
  o.html_exact = exact;
  sp_selection_t sel;
  sp_html_counts_t c;
  sp_msg_set_level(SP_QUIET);
  t = sp_now();
  int rc = sp_selection_build(&o, &sel);
  if (rc == 0) rc = sp_html_render(&sel, 1, NULL, &o, &c);
  double write_s = sp_now() - t;
  sp_selection_free(&sel);
  if (rc != 0 || stat(out, &st) != 0) return rc ? rc : 1;

  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("write     %.3f s (open, read, encode), peak RSS %.1f MiB\n", write_s,
         (double)ru.ru_maxrss / 1024.0);
  printf("report    %s: %.2f MB (target < 25 MB for 1e7 intervals on 64 ranks)\n", out,
         (double)st.st_size / 1e6);
  printf("embedded  %d lanes: %lld of %lld intervals exact, %d lanes binned (%d bins finest)\n",
         c.lanes, (long long)c.exact, (long long)c.intervals, c.binned_lanes, c.fine_bins);
  printf("tiles     %lld intervals of binned lanes exact in %d (lane, tile) pairs of %d x %d\n",
         (long long)c.tiled, c.tiles, c.binned_lanes, SP_HTML_TILES);
  return 0;
}
