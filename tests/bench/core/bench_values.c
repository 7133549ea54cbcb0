/* bench_values.c - cost of sp_call_set_int inside a call (docs/values.md),
 * against a start/stop pair measured in the same run (these VMs are noisy:
 * compare with the pair and the floor next to it, not absolute ns).
 *
 *   bench_values [pairs [profile]]   (default 100,000 calls per measurement)
 *
 * Cases, each per call of one region, trace mode, default configuration
 * (the log goes to the spill file every 16,384 values, included); with
 * `profile`, profile mode alone (aggregate = 1, time_trace = 0: the values
 * go into the call path's count, sum, min and max):
 *   pair:        sp_start + sp_stop
 *   pair + 1 int value, pair + 4 int values (4 keys), pair + 1 real value,
 *   pair + 1 int value set twice (the replace path),
 *   pair + 1 int value with its key passed by length (sp__call_set_f: the
 *   Fortran, C++ std::string_view and Python bindings' path).
 * The cost of one value is (case - pair) / values. Target: <= 20 ns. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in bench_pairs.h */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A key passed by length, as Fortran, C++ std::string_view and Python
 * pass it (sp__call_set_f): its own key buffer, as a binding's temporary. */
static void body_bylen(long n) {
  char key[16];
  memcpy(key, "iterations", 10);
  for (long i = 0; i < n; i++) {
    sp_start(h);
    int64_t v = i;
    sp__call_set_f(key, 10, 2, &v, sizeof v);
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
  const int profile = argc > 2 && strcmp(argv[2], "profile") == 0;
  sp_config c;
  sp_config_init(&c);
  c.file_path = "/tmp/sp_bench_values.h5";
  if (profile) c.aggregate = 1, c.time_trace = 0;
  if (sp_setup(&c) != 0) return 1;
  h = sp_region("solve");
  body_one(1000); /* the keys' first values (a lock) out of the figures */
  body_four(10);
  body_real(10);
  body_bylen(10);
  sp_bench_figure_t pair = sp_bench_measure(body_pair, 0);
  sp_bench_figure_t one = sp_bench_measure(body_one, 0);
  sp_bench_figure_t four = sp_bench_measure(body_four, 0);
  sp_bench_figure_t real = sp_bench_measure(body_real, 0);
  sp_bench_figure_t twice = sp_bench_measure(body_twice, 0);
  sp_bench_figure_t bylen = sp_bench_measure(body_bylen, 0);
  int rc = sp_finalize();
  remove("/tmp/sp_bench_values.h5");
  printf("scope-profiler values benchmark (%s): %ld calls x %d reps, best rep\n",
         profile ? "profile mode" : "trace mode", sp_bench_pairs, SP_BENCH_REPS);
  printf("%-36s %9s %9s %12s\n", "case", "ns/call", "floor", "ns/value");
  printf("%-36s %9.2f %9.2f %12s\n", "pair (start + stop)", pair.ns, pair.floor, "-");
  printf("%-36s %9.2f %9.2f %12.2f\n", "pair + 1 int value", one.ns, one.floor, one.ns - pair.ns);
  printf("%-36s %9.2f %9.2f %12.2f\n", "pair + 4 int values", four.ns, four.floor,
         (four.ns - pair.ns) / 4);
  printf("%-36s %9.2f %9.2f %12.2f\n", "pair + 1 real value", real.ns, real.floor,
         real.ns - pair.ns);
  printf("%-36s %9.2f %9.2f %12.2f\n", "pair + the same key twice", twice.ns, twice.floor,
         (twice.ns - pair.ns) / 2);
  printf("%-36s %9.2f %9.2f %12.2f\n", "pair + 1 int value, key by length", bylen.ns, bylen.floor,
         bylen.ns - pair.ns);
  printf("target: one value <= 20 ns; finalize rc %d\n", rc);
  sp_bench_end();
  return rc == 0 ? 0 : 1;
}
