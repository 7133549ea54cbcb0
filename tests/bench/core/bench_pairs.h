/* bench_pairs.h - the timing loop of the start/stop pair benchmarks
 * (bench_overhead.c, bench_profile.c): a body runs sp_bench_pairs pairs,
 * alternating with the floor measured next to it (two rdtsc and two stores
 * into a pre-faulted array; optionally two clock_gettime and two stores),
 * best of SP_BENCH_REPS repetitions of each. These VMs are noisy: compare
 * ratios to the floor, not absolute ns. */
#ifndef SP_BENCH_PAIRS_H
#define SP_BENCH_PAIRS_H

#include <stdint.h>
#include <time.h>

#define SP_BENCH_REPS 31

extern long sp_bench_pairs; /* pairs per measurement */

typedef void (*sp_bench_body_fn)(long n);

/* One case's best repetition and the best of the floors around it. */
typedef struct sp_bench_figure {
  double ns;       /* ns per pair, best repetition */
  double floor;    /* ns per pair of the rdtsc floor, best of those alternating with it */
  double floor_gt; /* the same for the clock_gettime floor (1e30 when not measured) */
} sp_bench_figure_t;

/* CLOCK_MONOTONIC, ns (inline: the clock_gettime floor calls it in its loop). */
static inline int64_t sp_bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
/* pairs per measurement (<= 0: 100,000); allocates and pre-faults the
 * floors' array. 0, or -1 without memory. */
int sp_bench_init(long pairs);
void sp_bench_end(void);
/* The floors as bodies: n pairs of two rdtsc (two clock_gettime) reads and
 * two stores. */
void sp_bench_floor_rdtsc(long n);
void sp_bench_floor_gettime(long n);
/* fn's best of SP_BENCH_REPS, each repetition after the rdtsc floor's and,
 * with gettime, the clock_gettime floor's. */
sp_bench_figure_t sp_bench_measure(sp_bench_body_fn fn, int gettime);

#endif
