/* bench_c_loop.c - the C handle path, compiled as C so that sp_start and
 * sp_stop are the header's macros (enabled test + call), exactly what a C
 * program pays. Shared by the C++ benchmark and, through ctypes, by the
 * Python one, so both print the C cost measured in their own process. */
#include <scope_profiler.h>

double sp_bench_c_pairs(int h, long n);
double sp_bench_c_empty(long n);

static volatile long sp_bench_sink;

/* ns per sp_start/sp_stop pair of handle h, over n pairs. */
double sp_bench_c_pairs(int h, long n) {
  int64_t t0 = sp_clock_now_ns();
  for (long i = 0; i < n; ++i) {
    sp_start(h);
    sp_bench_sink = i;
    sp_stop(h);
  }
  int64_t t1 = sp_clock_now_ns();
  return (double)(t1 - t0) / (double)n;
}

/* ns per iteration of the same loop without profiler calls. */
double sp_bench_c_empty(long n) {
  int64_t t0 = sp_clock_now_ns();
  for (long i = 0; i < n; ++i) sp_bench_sink = i;
  int64_t t1 = sp_clock_now_ns();
  return (double)(t1 - t0) / (double)n;
}

double sp_bench_c_floor(long n);

/* bench_overhead's floor: two TSC reads and two int64 stores into a
 * pre-faulted array, what any tracer must do per pair; ns per pair. */
static int64_t sp_bench_floor_buf[2 * 65536];

double sp_bench_c_floor(long n) {
  int64_t t0 = sp_clock_now_ns();
  for (long i = 0; i < n; ++i) {
#if defined(__x86_64__)
    sp_bench_floor_buf[2 * (i & 0xffff)] = (int64_t)__builtin_ia32_rdtsc();
    sp_bench_floor_buf[2 * (i & 0xffff) + 1] = (int64_t)__builtin_ia32_rdtsc();
#else
    sp_bench_floor_buf[2 * (i & 0xffff)] = sp_clock_now_ns();
    sp_bench_floor_buf[2 * (i & 0xffff) + 1] = sp_clock_now_ns();
#endif
  }
  __asm__ volatile("" ::: "memory");
  int64_t t1 = sp_clock_now_ns();
  return (double)(t1 - t0) / (double)n;
}
