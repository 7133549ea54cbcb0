/* values_per_call.c - values per call: each call of "solve" carries the
 * iterations it took and the residual it reached (docs/values.md).
 *
 *   ./values_per_call [file.h5]      -> values_per_call.h5
 *   h5dump -d /rank0/regions/solve/call_values/iterations values_per_call.h5
 *
 * A Jacobi solve of a 1-D Poisson problem per time step, to a tolerance
 * that tightens with the step: later steps take more iterations. Prints
 * each call's figures (step, iterations, residual) so they can be compared
 * with the file. Serial: no MPI needed. */
#include <math.h>
#include <stdio.h>

#include <scope_profiler.h>

enum { N = 64, STEPS = 20 };

/* One Jacobi sweep of -u'' = 1 on N points; returns the residual's norm. */
static double sweep(double *u) {
  double next[N] = {0}, r = 0.0;
  for (int i = 1; i < N - 1; i++) next[i] = 0.5 * (u[i - 1] + u[i + 1] + 1.0 / (N * N));
  for (int i = 1; i < N - 1; i++) {
    const double d = next[i] - u[i];
    r += d * d;
    u[i] = next[i];
  }
  return sqrt(r);
}

int main(int argc, char **argv) {
  sp_config cfg;
  sp_config_init(&cfg);
  cfg.file_path = argc > 1 ? argv[1] : "values_per_call.h5";
  if (sp_setup(&cfg) != 0) return 1;
  const int solve = sp_region("solve");
  double u[N] = {0};
  for (int step = 0; step < STEPS; step++) {
    const double tol = 1e-6 / (step + 1);
    sp_start(solve);
    int it = 0;
    double r = 1.0;
    while (r > tol && it < 100000) {
      r = sweep(u);
      it++;
    }
    sp_call_set_int("iterations", it); /* this call of solve */
    sp_call_set_real("residual", r);
    sp_call_set("method", "jacobi");
    sp_stop(solve);
    printf("step %d iterations %d residual %.17g\n", step, it, r);
    for (int i = 0; i < N; i++) u[i] *= 0.5; /* the next step starts off */
  }
  return sp_finalize() == 0 ? 0 : 1;
}
