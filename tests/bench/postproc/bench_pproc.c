/* bench_pproc.c - Gantt rendering versus reading on a large profile.
 *
 * usage: bench_pproc [DIR [INTERVALS [RANKS [REGIONS]]]]
 * Generates DIR/bench.h5 (default 1e7 intervals over 64 ranks x 16
 * regions, deterministic), renders DIR/gantt_plot.png through the same
 * code as scope-profiler-pproc, and prints the time spent reading datasets,
 * the time spent binning and drawing, their ratio and the peak RSS. The
 * target is render <= 2 x read; nothing here asserts it. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "gantt.h"
#include "pproc.h"
#include "sp_gen_synthetic.h"

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  int64_t total = argc > 2 ? (int64_t)atof(argv[2]) : 10000000;
  int ranks = argc > 3 ? atoi(argv[3]) : 64;
  int regions = argc > 4 ? atoi(argv[4]) : 16;
  char path[4096];
  snprintf(path, sizeof path, "%s/bench.h5", dir);

  double t = sp_now();
  if (sp_gen_synthetic(path, ranks, regions, total) != 0) {
    fprintf(stderr, "bench_pproc: cannot write %s\n", path);
    return 1;
  }
  printf("generate  %lld intervals, %d ranks x %d regions: %.3f s\n", (long long)total, ranks,
         regions, sp_now() - t);

  sp_options_t o = {0};
  o.file = path;
  o.outdir = dir;
  o.width = 1600;
  sp_selection_t sel;
  t = sp_now();
  int rc = sp_selection_build(&o, &sel);
  double open_s = sp_now() - t;
  sp_gantt_timing_t tm;
  if (rc == 0) rc = sp_gantt_render_timed(&sel, &o, 0, &tm);
  sp_selection_free(&sel);
  if (rc != 0) return rc;

  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("open      %.3f s (structure only)\n", open_s);
  printf("read      %.3f s (span scan %.3f s + lane loads), %lld intervals, %.1f M/s\n", tm.read_s,
         tm.extent_s, (long long)tm.intervals, 1e-6 * (double)tm.intervals / tm.read_s);
  printf(
      "render    %.3f s = bin %.3f s + PLplot %.3f s (incl. start-up and PNG encoding), "
      "%lld bars drawn\n",
      tm.render_s, tm.bin_s, tm.render_s - tm.bin_s, (long long)tm.runs);
  printf("ratio     render/read = %.2f (target <= 2)\n", tm.render_s / tm.read_s);
  printf("peak RSS  %.1f MiB (largest lane %.1f MiB of arrays; file data %.1f MiB)\n",
         (double)ru.ru_maxrss / 1024.0, 16.0 * (double)total / ranks / regions / (1024.0 * 1024.0),
         16.0 * (double)total / (1024.0 * 1024.0));
  return 0;
}
