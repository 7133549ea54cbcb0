/* bench_pairs.c - the shared timing loop of the pair benchmarks (bench_pairs.h). */
#define _POSIX_C_SOURCE 200809L
#include "bench_pairs.h"

#include <stdlib.h>
#include <string.h>

long sp_bench_pairs = 100000;
static int64_t *floor_buf;

int sp_bench_init(long pairs) {
  sp_bench_pairs = pairs > 0 ? pairs : 100000;
  floor_buf = malloc(2 * 65536 * sizeof *floor_buf);
  if (!floor_buf) return -1;
  memset(floor_buf, 1, 2 * 65536 * sizeof *floor_buf); /* pre-fault */
  return 0;
}

void sp_bench_end(void) {
  free(floor_buf);
  floor_buf = NULL;
}

void sp_bench_floor_rdtsc(long n) {
  for (long i = 0; i < n; i++) {
#if defined(__x86_64__)
    floor_buf[2 * (i & 0xffff)] = (int64_t)__builtin_ia32_rdtsc();
    floor_buf[2 * (i & 0xffff) + 1] = (int64_t)__builtin_ia32_rdtsc();
#endif
  }
  __asm__ volatile("" ::: "memory");
}

void sp_bench_floor_gettime(long n) {
  for (long i = 0; i < n; i++) {
    floor_buf[2 * (i & 0xffff)] = sp_bench_now_ns();
    floor_buf[2 * (i & 0xffff) + 1] = sp_bench_now_ns();
  }
  __asm__ volatile("" ::: "memory");
}

static double ns_per_pair(sp_bench_body_fn fn) {
  int64_t t0 = sp_bench_now_ns();
  fn(sp_bench_pairs);
  return (double)(sp_bench_now_ns() - t0) / (double)sp_bench_pairs;
}

sp_bench_figure_t sp_bench_measure(sp_bench_body_fn fn, int gettime) {
  sp_bench_figure_t f = {1e30, 1e30, 1e30};
  for (int r = 0; r < SP_BENCH_REPS; r++) {
    double fl = ns_per_pair(sp_bench_floor_rdtsc);
    double gt = gettime ? ns_per_pair(sp_bench_floor_gettime) : 1e30;
    double ns = ns_per_pair(fn);
    if (fl < f.floor) f.floor = fl;
    if (gt < f.floor_gt) f.floor_gt = gt;
    if (ns < f.ns) f.ns = ns;
  }
  return f;
}
