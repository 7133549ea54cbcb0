/* time_window.c - a long time loop of which only a window is traced:
 * steps 100 to 110 of 10,000 go into the trace (sp_trace_pause /
 * sp_trace_resume), while profile mode counts every step.
 *
 *   ./time_window [file.h5]          -> time_window.h5 (the 11 steps' calls)
 *                                       time_window.aggregate.h5 (all of them)
 *   scope-profiler-pproc time_window.h5 --summary
 *
 * Serial: no MPI needed (with MPI, each rank pauses its own trace). */
#include <stdio.h>

#include <scope_profiler.h>

enum { STEPS = 10000, FIRST = 100, LAST = 110 };

static double relax(double *u, int n) {
  double r = 0.0;
  for (int i = 1; i < n - 1; i++) {
    double v = 0.5 * (u[i - 1] + u[i + 1]);
    r += (v - u[i]) * (v - u[i]);
    u[i] = v;
  }
  return r;
}

int main(int argc, char **argv) {
  sp_config cfg;
  sp_config_init(&cfg);
  cfg.file_path = argc > 1 ? argv[1] : "time_window.h5";
  cfg.aggregate = 1; /* profile mode beside the trace: every step counted */
  if (sp_setup(&cfg) != 0) fprintf(stderr, "profiling setup reported a problem\n");
  const int step = sp_region("step");
  const int solve = sp_region("solve");
  const int output = sp_region("output");

  double u[256] = {0};
  u[255] = 1.0;
  double residual = 0.0;
  sp_trace_pause(); /* nothing in the trace before step FIRST */
  for (int s = 0; s < STEPS; s++) {
    if (s == FIRST) sp_trace_resume();
    if (s == LAST + 1) sp_trace_pause();
    sp_start(step);
    sp_start(solve);
    residual = relax(u, 256);
    sp_stop(solve);
    if (s % 10 == 0) {
      sp_start(output);
      sp_stop(output);
    }
    sp_stop(step);
  }
  printf("residual after %d steps: %g\n", STEPS, residual);
  return sp_finalize() == 0 ? 0 : 1;
}
