/* bench_analysis.c - the call tree and both JSON files versus reading.
 *
 * usage: bench_analysis [DIR [INTERVALS [RANKS [gen]]]]
 * Writes DIR/analysis.h5 (default 1e7 intervals over 64 ranks x 16 regions,
 * deterministic, nested three deep: step > 3 phases > 4 kernels each),
 * then times, in the same run: reading every (region, rank) pair once; the
 * call tree alone; and what -o DIR writes besides the chart
 * (region_statistics.json and call_tree.json, as scope-profiler-pproc does:
 * one call tree with the per-(region, rank) durations, one read).
 * Prints the figures, the ratio to reading and the peak RSS. The target is
 * analysis <= 1.5 x read; nothing here asserts it. With "gen" it only
 * writes the file (bench_py_read.py reads it). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_nested.h"
#include "pproc.h"

enum { SP_REPS = 7 };

static int sp_write(hid_t regs, int g, const int64_t *st, const int64_t *en, hsize_t n) {
  char name[32];
  snprintf(name, sizeof name, "region_%02d", g);
  hid_t grp = H5Gcreate2(regs, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rc = sp_h5_put(grp, "start_times", H5T_STD_I64LE, H5T_NATIVE_INT64, st, n);
  if (rc == 0) rc = sp_h5_put(grp, "end_times", H5T_STD_I64LE, H5T_NATIVE_INT64, en, n);
  H5Gclose(grp);
  return rc;
}

static int sp_generate(const char *path, int nranks, int64_t iters) {
  int64_t *st = malloc((size_t)iters * sizeof *st), *en = malloc((size_t)iters * sizeof *en);
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (!st || !en || f < 0) return -1;
  uint64_t lcg = 42;
  int rc = 0;
  for (int r = 0; r < nranks && rc == 0; r++) {
    char name[32];
    snprintf(name, sizeof name, "rank%d", r);
    hid_t rg = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t regs = H5Gcreate2(rg, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (int g = 0; g < SP_NREG && rc == 0; g++) {
      for (int64_t i = 0; i < iters; i++) sp_nested_call(g, i, r, &lcg, &st[i], &en[i], NULL, NULL);
      rc = sp_write(regs, g, st, en, (hsize_t)iters);
    }
    H5Gclose(regs);
    H5Gclose(rg);
  }
  free(st);
  free(en);
  return H5Fclose(f) < 0 ? -1 : rc;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  int64_t total = argc > 2 ? (int64_t)atof(argv[2]) : 10000000;
  int nranks = argc > 3 ? atoi(argv[3]) : 64;
  int64_t iters = total / ((int64_t)nranks * SP_NREG);
  if (iters < 1) iters = 1;
  char path[4096];
  snprintf(path, sizeof path, "%s/analysis.h5", dir);
  double t = sp_now();
  if (sp_generate(path, nranks, iters) != 0) {
    fprintf(stderr, "bench_analysis: cannot write %s\n", path);
    return 1;
  }
  printf("generate  %lld intervals, %d ranks x %d regions, nested: %.3f s\n",
         (long long)iters * nranks * SP_NREG, nranks, SP_NREG, sp_now() - t);
  if (argc > 4 && strcmp(argv[4], "gen") == 0) return 0;

  sp_options_t o = {0};
  o.file = path;
  o.outdir = dir;
  o.outdir_given = 1;
  sp_selection_t sel;
  if (sp_selection_build(&o, &sel) != 0) return 1;
  /* Each figure is taken SP_REPS times in turn (read, tree, JSON, read,
   * ...) and the medians are printed: the machine may be shared. */
  double rd[SP_REPS], tr[SP_REPS], js[SP_REPS], rt[SP_REPS], rj[SP_REPS];
  int64_t n = 0;
  int nodes = 0, rc = 0;
  for (int rep = 0; rep < SP_REPS && rc == 0; rep++) {
    double c = sp_cpu_seconds();
    n = 0;
    for (int i = 0; i < sel.nregions; i++) /* reading: every pair once, as any analysis must */
      for (int j = 0; j < sel.nranks; j++) {
        sp_reader_intervals_t iv;
        if (sp_reader_load(sel.reader, sel.regions[i], sel.ranks[j], &iv) != 0) return 1;
        n += iv.n;
        sp_reader_intervals_free(&iv);
      }
    rd[rep] = sp_cpu_seconds() - c;
    c = sp_cpu_seconds();
    sp_reader_tree_t *tree;
    if (sp_tree_build(&sel, 0, &tree) != 0) return 1;
    tr[rep] = sp_cpu_seconds() - c;
    nodes = sp_reader_tree_num_nodes(tree);
    sp_reader_tree_free(tree);
    const char *labels[1] = {"analysis"};
    c = sp_cpu_seconds();
    rc = sp_json_outputs(&sel, labels, 1, &o);
    js[rep] = sp_cpu_seconds() - c;
    rt[rep] = tr[rep] / rd[rep];
    rj[rep] = js[rep] / rd[rep];
  }
  sp_selection_free(&sel);
  if (rc != 0) return rc;

  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("CPU seconds, median of %d runs of each in turn:\n", SP_REPS);
  printf("read      %.3f s, %lld intervals\n", sp_median_of(rd, SP_REPS), (long long)n);
  printf("tree      %.3f s (%d call paths)\n", sp_median_of(tr, SP_REPS), nodes);
  printf("json      region_statistics.json + call_tree.json (one tree): %.3f s\n",
         sp_median_of(js, SP_REPS));
  printf(
      "ratio     tree / read = %.2f, JSON files / read = %.2f (medians of the runs' ratios;"
      " target <= 1.5)\n",
      sp_median_of(rt, SP_REPS), sp_median_of(rj, SP_REPS));
  printf("peak RSS  %.1f MiB (largest rank %.1f MiB of intervals at 48 B; file data %.1f MiB)\n",
         (double)ru.ru_maxrss / 1024.0, 48.0 * (double)n / nranks / (1024.0 * 1024.0),
         16.0 * (double)n / (1024.0 * 1024.0));
  return 0;
}
