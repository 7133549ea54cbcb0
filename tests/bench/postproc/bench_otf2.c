/* bench_otf2.c - --export otf2 versus reading the same intervals.
 *
 * usage: bench_otf2 [DIR [INTERVALS [RANKS [REGIONS [REPEATS]]]]]
 * Generates DIR/bench_otf2.h5 (default 1e7 intervals over 64 ranks x 16
 * regions, deterministic), then REPEATS times (default 3), alternating:
 * reads every (region, rank) pair as the export does (sp_reader_load), and
 * exports the file to DIR/otf2 through the same code as scope-profiler-pproc
 * --export otf2. Prints the median of each, their ratio (target: export
 * within 3 x read) and the archive's size per event. Nothing asserts time.
 *
 * usage: bench_otf2 --stream DIR [CALLS [THREADS [REPEATS]]]
 * Records DIR/stream.h5 with gen_threads, then REPEATS times in turn: a
 * plain OTF2 writer of as many events (bench_otf2_plain.c), the export
 * (scope-profiler-pproc, or $BENCH_PPROC), and a plain read of every pair
 * (the floor of an export's reading), each a process of its own (wall,
 * CPU, peak RSS); medians with their range, and export/plain per repeat
 * (the two run one after the other, under the same load). */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_otf2.h"
#include "export_otf2.h"
#include "pproc.h"
#include "sp_gen_synthetic.h"

static long long sp_bytes;
static int sp_add_size(const char *p, const struct stat *st, int flag, struct FTW *f) {
  (void)p, (void)f;
  if (flag == FTW_F) sp_bytes += (long long)st->st_size;
  return 0;
}

static int sp_dcmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Loads every lane of sel once; returns the intervals read or -1. */
static int64_t sp_read_all(const sp_selection_t *sel) {
  int64_t n = 0;
  for (int i = 0; i < sel->nlanes; i++) {
    sp_reader_intervals_t iv;
    if (sp_reader_load(sel->reader, sel->lanes[i].region, sel->lanes[i].rank, &iv) < 0) return -1;
    n += iv.n;
    sp_reader_intervals_free(&iv);
  }
  return n;
}

/* The floor of an export's reading: every (region, rank) pair's stamps and
 * thread ids read once, in slices of 65,536 calls, as the export's merge
 * reads them (sp_reader_read_range), with nothing done to them. */
static int sp_plain_read_all(const char *file) {
  sp_reader_t *r;
  char msg[512];
  if (sp_reader_open(file, &r, msg, sizeof msg) < 0) return 1;
  enum { SLICE = 65536 };
  int64_t *s = malloc(SLICE * sizeof *s), *e = malloc(SLICE * sizeof *e);
  int32_t *t = malloc(SLICE * sizeof *t);
  int rc = s && e && t ? 0 : 1;
  for (int k = 0; rc == 0 && k < sp_reader_num_ranks(r); k++)
    for (int g = 0; rc == 0 && g < sp_reader_num_regions(r); g++)
      for (int64_t pos = 0;; pos += SLICE) {
        int64_t got = sp_reader_read_range(r, g, k, pos, SLICE, s, e, t);
        if (got < 0) rc = 1;
        if (got <= 0) break;
      }
  free(s), free(e), free(t);
  sp_reader_close(r);
  return rc;
}

/* Median, min and max of v[0..n) (sorted in place). */
typedef struct sp_spread {
  double med, min, max;
} sp_spread_t;
static sp_spread_t sp_spread(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, sp_dcmp);
  double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return (sp_spread_t){med, v[0], v[n - 1]};
}

/* Wall and CPU (user + system) of m[0..n), each its own median and range. */
static void sp_print(const char *what, const sp_measure_t *m, int n) {
  double w[15], c[15], rss = 0;
  for (int k = 0; k < n; k++) {
    w[k] = m[k].wall, c[k] = m[k].cpu;
    rss = m[k].rss_mib > rss ? m[k].rss_mib : rss;
  }
  sp_spread_t sw = sp_spread(w, n), sc = sp_spread(c, n);
  printf("%-7s %7.3f s wall (%.3f-%.3f), %7.3f s CPU (%.3f-%.3f), peak RSS %7.1f MiB\n", what,
         sw.med, sw.min, sw.max, sc.med, sc.min, sc.max, rss);
}

/* Export over plain of each repeat (the two ran one after the other, so
 * under the same load), for wall (cpu = 0) or CPU. */
static sp_spread_t sp_ratio(const sp_measure_t *e, const sp_measure_t *p, int n, int cpu) {
  double r[15];
  for (int k = 0; k < n; k++) r[k] = cpu ? e[k].cpu / p[k].cpu : e[k].wall / p[k].wall;
  return sp_spread(r, n);
}

static int sp_stream(int argc, char **argv) {
  const char *dir = argc > 2 ? argv[2] : ".";
  long calls = argc > 3 ? (long)atof(argv[3]) : 10000000L;
  int nthreads = argc > 4 ? atoi(argv[4]) : 8;
  int repeats = argc > 5 ? atoi(argv[5]) : 3;
  if (repeats < 1 || repeats > 15) repeats = 3;
  char file[4096], out[4096], plain[4096], callsa[32], threadsa[16];
  snprintf(file, sizeof file, "%s/stream.h5", dir);
  snprintf(out, sizeof out, "%s/otf2", dir);
  snprintf(plain, sizeof plain, "%s/plain", dir);
  snprintf(callsa, sizeof callsa, "%ld", calls);
  snprintf(threadsa, sizeof threadsa, "%d", nthreads);
  sp_measure_t g, pm[15], em[15], rm[15];
  char *gen[] = {SP_GEN_THREADS, file, callsa, threadsa, NULL};
  if (sp_bench_spawn(gen, &g) != 0) {
    fprintf(stderr, "bench_otf2: gen_threads failed\n");
    return 1;
  }
  printf("record  %ld calls on %d threads (gen_threads): %.3f s\n", calls, nthreads, g.wall);
  /* BENCH_PPROC=path: another build's binary (main's: the "before"). */
  char *pproc = getenv("BENCH_PPROC") ? getenv("BENCH_PPROC") : SP_PPROC;
  char *ex[] = {pproc, file, "--export", "otf2", "-o", out, NULL};
  for (int k = 0; k < repeats; k++) {
    /* Both write a new archive: the previous one is removed untimed. */
    sp_bench_rm(out);
    if (sp_bench_plain(plain, calls, nthreads, &pm[k]) != 0 || sp_bench_spawn(ex, &em[k]) != 0 ||
        sp_bench_fork(sp_plain_read_all, file, &rm[k]) != 0) {
      fprintf(stderr, "bench_otf2: a run failed\n");
      return 1;
    }
  }
  printf("%lld ENTER + LEAVE events, medians of %d (min-max):\n", 2LL * calls, repeats);
  sp_print("plain", pm, repeats);
  sp_print("export", em, repeats);
  sp_print("read", rm, repeats);
  double prss = 0, erss = 0;
  for (int k = 0; k < repeats; k++) {
    prss = pm[k].rss_mib > prss ? pm[k].rss_mib : prss;
    erss = em[k].rss_mib > erss ? em[k].rss_mib : erss;
  }
  sp_spread_t rw = sp_ratio(em, pm, repeats, 0), rc = sp_ratio(em, pm, repeats, 1);
  printf(
      "ratio   export/plain, per repeat: wall %.2f (%.2f-%.2f), CPU %.2f (%.2f-%.2f) "
      "(target <= 1.5), peak RSS %.2f; export peak %.1f MB (target <= 100 MB)\n",
      rw.med, rw.min, rw.max, rc.med, rc.min, rc.max, erss / prss, erss * 1.048576);
  /* What an export that read each call once and did nothing else would
   * take on one thread: the plain writer plus the plain read (the reader's
   * open included). */
  sp_measure_t fm[15];
  for (int k = 0; k < repeats; k++)
    fm[k] = (sp_measure_t){pm[k].wall + rm[k].wall, pm[k].cpu + rm[k].cpu, 0};
  sp_spread_t fw = sp_ratio(fm, pm, repeats, 0), fc = sp_ratio(fm, pm, repeats, 1);
  printf("floor   (plain + read)/plain: wall %.2f, CPU %.2f\n", fw.med, fc.med);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--stream") == 0) return sp_stream(argc, argv);
  const char *dir = argc > 1 ? argv[1] : ".";
  int64_t total = argc > 2 ? (int64_t)atof(argv[2]) : 10000000;
  int ranks = argc > 3 ? atoi(argv[3]) : 64;
  int regions = argc > 4 ? atoi(argv[4]) : 16;
  int repeats = argc > 5 ? atoi(argv[5]) : 3;
  if (repeats < 1 || repeats > 15) repeats = 3;
  char path[4096], out[4096];
  snprintf(path, sizeof path, "%s/bench_otf2.h5", dir);
  snprintf(out, sizeof out, "%s/otf2", dir);
  double t = sp_now();
  if (sp_gen_synthetic(path, ranks, regions, total) != 0) {
    fprintf(stderr, "bench_otf2: cannot write %s\n", path);
    return 1;
  }
  printf("generate  %lld intervals, %d ranks x %d regions: %.3f s\n", (long long)total, ranks,
         regions, sp_now() - t);

  sp_options_t o = {0};
  o.file = path;
  o.outdir = out;
  o.outdir_given = 1;
  sp_selection_t sel;
  int rc = sp_selection_build(&o, &sel);
  double rd[15], ex[15];
  int64_t n = 0;
  const char *label = "bench_otf2";
  for (int k = 0; rc == 0 && k < repeats; k++) {
    t = sp_now();
    n = sp_read_all(&sel);
    rd[k] = sp_now() - t;
    if (n < 0) rc = 1;
    t = sp_now();
    if (rc == 0) rc = sp_otf2_export_files(&sel, &label, 1, &o);
    ex[k] = sp_now() - t;
  }
  sp_selection_free(&sel);
  if (rc != 0) return rc;
  qsort(rd, (size_t)repeats, sizeof *rd, sp_dcmp);
  qsort(ex, (size_t)repeats, sizeof *ex, sp_dcmp);
  double r = rd[repeats / 2], e = ex[repeats / 2];
  nftw(out, sp_add_size, 16, FTW_PHYS);
  printf("read      %.3f s median of %d (min %.3f), %lld intervals, %.1f M/s\n", r, repeats, rd[0],
         (long long)n, 1e-6 * (double)n / r);
  printf("export    %.3f s median of %d (min %.3f), %.1f M calls/s\n", e, repeats, ex[0],
         1e-6 * (double)n / e);
  printf("ratio     export/read = %.2f (target <= 3)\n", e / r);
  printf("archive   %.1f MiB, %.2f bytes per event (%lld ENTER + LEAVE)\n",
         (double)sp_bytes / (1024.0 * 1024.0), (double)sp_bytes / (2.0 * (double)n),
         2LL * (long long)n);
  return 0;
}
