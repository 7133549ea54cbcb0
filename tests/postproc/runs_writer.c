/* runs_writer.c - one run of a scaling study for the report's Weak
 * scaling and Speedup sections (check_report_runs.py); run as
 *   mpirun -np N runs_writer OUT.h5 WORK
 * with OMP_NUM_THREADS set. WORK > 0 is stored as /metadata work_per_rank
 * (sp_metadata_set, as a program would); 0 stores none. Every rank times
 * "solve" (5 sleeps of 2 ms plus 0.5 ms per rank of the run), "halo"
 * (MPI_Barrier after a rank-dependent sleep) and "omp_work" on every thread
 * of an OpenMP team (1 ms each). The durations are whatever the machine
 * gives: the checker reads them from the file with h5py. Host names and
 * thread counts are the library's own (the checker runs each rank in its
 * own UTS namespace to give ranks different host names). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scope_profiler.h"

static void nap(double ms) {
  struct timespec t = {(time_t)(ms / 1e3), (long)((ms - 1e3 * (time_t)(ms / 1e3)) * 1e6)};
  while (nanosleep(&t, &t) != 0) {}
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: runs_writer OUT.h5 WORK\n");
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sp_config c;
  sp_config_init(&c);
  c.file_path = argv[1];
  int rc = sp_setup(&c);
  if (rc == 0 && atof(argv[2]) > 0) rc = sp_metadata_set("work_per_rank", argv[2]);
  if (rc != 0) {
    fprintf(stderr, "runs_writer: setup failed: %d\n", rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int solve = sp_region("solve"), halo = sp_region("halo"), omp = sp_region("omp_work");
  for (int i = 0; i < 5; i++) {
    sp_start(solve);
    nap(2.0 + 0.5 * size);
    sp_stop(solve);
    sp_start(halo);
    nap(0.2 * rank);
    MPI_Barrier(MPI_COMM_WORLD);
    sp_stop(halo);
  }
#pragma omp parallel
  {
    sp_start(omp);
    nap(1.0);
    sp_stop(omp);
  }
  rc = sp_finalize();
  MPI_Finalize();
  return rc == 0 ? 0 : 1;
}
