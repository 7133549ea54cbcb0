/* bench_c_loops.c - the C side of the Fortran overhead benchmark: the same
 * start/stop loops written in C, called once per measurement from Fortran,
 * so that both languages are measured in one run on one session. */
#include <stdint.h>

#include "scope_profiler.h"

void sp_bench_c_handle(int h, int64_t n);
void sp_bench_c_handle_call(int h, int64_t n);
void sp_bench_c_name(int64_t n);

/* What a C user writes: the header's macros test sp__enabled inline. */
void sp_bench_c_handle(int h, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
}

/* The exported functions themselves, which is what Fortran calls. */
void sp_bench_c_handle_call(int h, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    (sp_start)(h);
    (sp_stop)(h);
  }
}

void sp_bench_c_name(int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    sp_start_name("compute");
    sp_stop_name("compute");
  }
}

void sp_bench_c_floor(int64_t n);

/* bench_overhead's floor: two reads of the TSC and two int64 stores into a
 * pre-faulted array, what any tracer must do per pair. */
static int64_t sp_floor_buf[2 * 65536];

void sp_bench_c_floor(int64_t n) {
  for (int64_t i = 0; i < n; i++) {
#if defined(__x86_64__)
    sp_floor_buf[2 * (i & 0xffff)] = (int64_t)__builtin_ia32_rdtsc();
    sp_floor_buf[2 * (i & 0xffff) + 1] = (int64_t)__builtin_ia32_rdtsc();
#else
    sp_floor_buf[2 * (i & 0xffff)] = sp_clock_now_ns();
    sp_floor_buf[2 * (i & 0xffff) + 1] = sp_clock_now_ns();
#endif
  }
  __asm__ volatile("" ::: "memory");
}
