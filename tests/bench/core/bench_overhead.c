/* bench_overhead.c - cost of a start/stop pair, against a floor measured in
 * the same run (these VMs are noisy: compare ratios, not absolute ns).
 *
 *   bench_overhead [pairs]     (default 100,000 pairs per measurement)
 *
 * Floor: two reads of the fastest correct clock (rdtsc when invariant) and
 * two int64 stores into a pre-faulted array: what any tracer must do.
 * Each case alternates with the floor, 31 short repetitions of each, and is
 * compared with the floor measured next to it: the best repetition of the
 * case against the best of its floor, so a neighbour that takes the CPU for
 * a while shifts both. Default configuration (flushes to the spill file
 * every 100,000 events per region are included). The timing loop is
 * bench_pairs.c's, shared with bench_profile. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_pairs.h"
#include "scope_profiler.h"

static int handles[16];
static char names[16][16];

typedef sp_bench_figure_t figure_t;

static figure_t measure(sp_bench_body_fn fn) { return sp_bench_measure(fn, 0); }

static void body_handle(long n) {
  const int h = handles[0];
  for (long i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
}

/* The real functions, as Fortran and function pointers call them. */
static void body_handle_call(long n) {
  const int h = handles[0];
  for (long i = 0; i < n; i++) {
    (sp_start)(h);
    (sp_stop)(h);
  }
}

static void body_name(long n) {
  for (long i = 0; i < n; i++) {
    sp_start_name("compute");
    sp_stop_name("compute");
  }
}

static void body_nested(long n) {
  const int a = handles[0], b = handles[1];
  for (long i = 0; i < n; i += 2) {
    sp_start(a);
    sp_start(b);
    sp_stop(b);
    sp_stop(a);
  }
}

static void body_16_names(long n) {
  for (long i = 0; i < n; i++) {
    const char *nm = names[i & 15];
    sp_start_name(nm);
    sp_stop_name(nm);
  }
}

static void session_with(int activated, int time_trace, int aggregate) {
  sp_config c;
  sp_config_init(&c);
  c.profiling_activated = activated;
  c.time_trace = time_trace;
  c.aggregate = aggregate;
  c.file_path = "/tmp/sp_bench_overhead.h5";
  sp_setup(&c);
  for (int i = 0; i < 16; i++) {
    snprintf(names[i], sizeof names[i], "region_%02d", i);
    handles[i] = sp_region(i == 0 ? "compute" : names[i]);
  }
}

static void session(int activated, int time_trace) { session_with(activated, time_trace, 0); }

static void print_row(const char *label, figure_t f, int vs_floor) {
  printf("%-40s %9.2f %9.2f %9.2f %+9.2f\n", label, f.ns, f.floor, vs_floor ? f.ns / f.floor : 0.0,
         vs_floor ? f.ns - f.floor : 0.0);
}

int main(int argc, char **argv) {
  if (sp_bench_init(argc > 1 ? atol(argv[1]) : 100000) != 0) return 1;

  figure_t fl = measure(sp_bench_floor_rdtsc);
  figure_t fl_cg = measure(sp_bench_floor_gettime);

  session(0, 1);
  figure_t disabled = measure(body_handle);
  figure_t disabled_call = measure(body_handle_call);
  sp_finalize();

  session(1, 0);
  figure_t counts = measure(body_handle);
  sp_finalize();

  session(1, 1);
  const char *clock = sp_clock_name();
  figure_t handle = measure(body_handle);
  figure_t handle_call = measure(body_handle_call);
  figure_t name = measure(body_name);
  figure_t nested = measure(body_nested);
  figure_t alt16 = measure(body_16_names);
  /* A paused trace (sp_trace_pause): the same session, against the
   * disabled path measured above. */
  sp_trace_pause();
  figure_t paused = measure(body_handle);
  figure_t paused_call = measure(body_handle_call);
  sp_trace_resume();
  int64_t t0 = sp_bench_now_ns();
  int rc = sp_finalize();
  double fin_s = (double)(sp_bench_now_ns() - t0) / 1e9;
  remove("/tmp/sp_bench_overhead.h5");

  /* Paused with profile mode too: the aggregates count every call, so a
   * paused call keeps its frame (docs/trace-windows.md, "Cost"). */
  session_with(1, 1, 1);
  figure_t both = measure(body_handle_call);
  sp_trace_pause();
  figure_t paused_both = measure(body_handle_call);
  sp_finalize();
  remove("/tmp/sp_bench_overhead.h5");
  remove("/tmp/sp_bench_overhead.aggregate.h5");

  printf("scope-profiler overhead benchmark: %ld pairs x %d reps, best rep, clock %s\n",
         sp_bench_pairs, SP_BENCH_REPS, clock);
  printf("%-40s %9s %9s %9s %9s\n", "case", "ns/pair", "floor", "x floor", "- floor");
  print_row("floor: 2 rdtsc + 2 stores", fl, 1);
  print_row("floor: 2 clock_gettime + 2 stores", fl_cg, 1);
  print_row("disabled (C macros)", disabled, 0);
  print_row("disabled (function calls)", disabled_call, 0);
  print_row("counts only (handle)", counts, 1);
  print_row("time trace by handle", handle, 1);
  print_row("time trace by handle (function calls)", handle_call, 1);
  print_row("time trace by name", name, 1);
  print_row("nested, 2 levels (per pair)", nested, 1);
  print_row("16 alternating names", alt16, 1);
  print_row("trace paused (C macros)", paused, 0);
  print_row("trace paused (function calls)", paused_call, 0);
  print_row("trace + profile mode (function calls)", both, 1);
  print_row("trace + profile mode paused (func. calls)", paused_both, 0);
  printf("paused / disabled: %.2f (C macros), %.2f (function calls)\n", paused.ns / disabled.ns,
         paused_call.ns / disabled_call.ns);
  printf(
      "targets: by handle <= 1.15x floor, by name (16 names) <= floor + 10 ns, one name <= by "
      "handle + 1 ns, disabled <= 1 ns, paused <= disabled (function calls)\n");
  printf("finalize of the recorded events: %.3f s (rc %d)\n", fin_s, rc);
  sp_bench_end();
  return 0;
}
