/* bench_values.c - cost of sp_call_set_int inside a call (docs/values.md),
 * against a start/stop pair measured in the same run (these VMs are noisy:
 * compare with the pair and the floor next to it, not absolute ns).
 *
 *   bench_values [pairs]     (default 100,000 calls per measurement)
 *
 * Cases, each per call of one region, trace mode, default configuration
 * (the log goes to the spill file every 16,384 values, included):
 *   pair:        sp_start + sp_stop
 *   pair + 1 int value, pair + 4 int values (4 keys), pair + 1 real value,
 *   pair + 1 int value set twice (the replace path).
 * The cost of one value is (case - pair) / values. Target: <= 20 ns. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in bench_pairs.h */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_pairs.h"
#include "scope_profiler.h"

static int h;

static void body_pair(long n) {
  for (long i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
}

static void body_one(long n) {
  for (long i = 0; i < n; i++) {
    sp_start(h);
    sp_call_set_int("iterations", i);
    sp_stop(h);
  }
}

static void body_four(long n) {
  for (long i = 0; i < n; i++) {
    sp_start(h);
    sp_call_set_int("iterations", i);
    sp_call_set_int("restarts", i & 3);
    sp_call_set_int("matvecs", 2 * i);
    sp_call_set_int("level", 1);
    sp_stop(h);
  }
}

static void body_real(long n) {
  for (long i = 0; i < n; i++) {
    sp_start(h);
    sp_call_set_real("residual", (double)i * 1e-3);
    sp_stop(h);
  }
}

static void body_twice(long n) {
  for (long i = 0; i < n; i++) {
    sp_start(h);
    sp_call_set_int("iterations", i);
    sp_call_set_int("iterations", i + 1);
    sp_stop(h);
  }
}

int main(int argc, char **argv) {
  if (sp_bench_init(argc > 1 ? atol(argv[1]) : 100000) != 0) return 1;
  sp_config c;
  sp_config_init(&c);
  c.file_path = "/tmp/sp_bench_values.h5";
  if (sp_setup(&c) != 0) return 1;
  h = sp_region("solve");
  body_one(1000); /* the keys' first values (a lock) out of the figures */
  body_four(10);
  body_real(10);
  sp_bench_figure_t pair = sp_bench_measure(body_pair, 0);
  sp_bench_figure_t one = sp_bench_measure(body_one, 0);
  sp_bench_figure_t four = sp_bench_measure(body_four, 0);
  sp_bench_figure_t real = sp_bench_measure(body_real, 0);
  sp_bench_figure_t twice = sp_bench_measure(body_twice, 0);
  int rc = sp_finalize();
  remove("/tmp/sp_bench_values.h5");
  printf("scope-profiler values benchmark: %ld calls x %d reps, best rep\n", sp_bench_pairs,
         SP_BENCH_REPS);
  printf("%-36s %9s %9s %12s\n", "case", "ns/call", "floor", "ns/value");
  printf("%-36s %9.2f %9.2f %12s\n", "pair (start + stop)", pair.ns, pair.floor, "-");
  printf("%-36s %9.2f %9.2f %12.2f\n", "pair + 1 int value", one.ns, one.floor, one.ns - pair.ns);
  printf("%-36s %9.2f %9.2f %12.2f\n", "pair + 4 int values", four.ns, four.floor,
         (four.ns - pair.ns) / 4);
  printf("%-36s %9.2f %9.2f %12.2f\n", "pair + 1 real value", real.ns, real.floor,
         real.ns - pair.ns);
  printf("%-36s %9.2f %9.2f %12.2f\n", "pair + the same key twice", twice.ns, twice.floor,
         (twice.ns - pair.ns) / 2);
  printf("target: one value <= 20 ns; finalize rc %d\n", rc);
  sp_bench_end();
  return rc == 0 ? 0 : 1;
}
