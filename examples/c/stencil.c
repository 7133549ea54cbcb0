/* stencil.c - a 1-D heat-equation stencil on MPI ranks, profiled with
 * scope-profiler: a time step region holding compute, halo exchange and,
 * every few steps, output.
 *
 *   mpirun -np 4 ./stencil [steps]    -> profiling_data.h5
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <scope_profiler.h>

#define N_LOCAL 200000

static void halo_exchange(double *u, int rank, int size) {
  int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[N_LOCAL + 1], 1, MPI_DOUBLE, right, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&u[N_LOCAL], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int steps = argc > 1 ? atoi(argv[1]) : 200;

  /* Defaults, overridable from the job script (SCOPE_PROFILER_ENABLE=0, ...). */
  if (sp_setup(NULL) != 0 && rank == 0) fprintf(stderr, "profiling setup reported a problem\n");
  const int step = sp_region("step");
  const int compute = sp_region("compute");
  const int halo = sp_region("halo exchange");

  double *u = calloc(N_LOCAL + 2, sizeof *u), *v = calloc(N_LOCAL + 2, sizeof *v);
  if (rank == 0) u[1] = 1000.0;
  double total = 0.0;
  for (int s = 0; s < steps; s++) {
    sp_start(step);
    sp_start(halo);
    halo_exchange(u, rank, size);
    sp_stop(halo);

    sp_start(compute);
    for (int i = 1; i <= N_LOCAL; i++) v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    double *t = u;
    u = v;
    v = t;
    sp_stop(compute);

    if (s % 50 == 0) {
      SP_BLOCK("io") {
        double local = 0.0, sum = 0.0;
        for (int i = 1; i <= N_LOCAL; i++) local += u[i];
        MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) printf("step %4d: total heat %.6f\n", s, sum);
        total = sum;
      }
    }
    sp_stop(step);
  }
  (void)total;
  int rc = sp_finalize(); /* collective: every rank calls it */
  if (rc != 0 && rank == 0) fprintf(stderr, "profile not written: %s\n", sp_strerror(rc));
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
