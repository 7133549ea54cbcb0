/* test_samples_mpi.c - SCOPE_PROFILER_SAMPLE_MS on several MPI ranks: each
 * rank allocates (rank + 1) x 50 MB inside region "alloc", so the ranks'
 * peaks differ by known amounts (check_samples.py --case mpi). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <scope_profiler.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void barrier_at_exit(void) { MPI_Barrier(MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int die = argc > 1 && !strcmp(argv[1], "unfinalized");
  /* Runs after the library's exit flush (registered later, so run
   * earlier): no rank ends, which makes mpiexec kill the others, before
   * every rank has put its samples into its spill file. */
  if (die) atexit(barrier_at_exit);
  sp_config cfg;
  sp_config_init(&cfg);
  cfg.file_path = die ? "mpi_unfinalized.h5" : "mpi.h5";
  if (sp_setup(&cfg) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  int before = sp_region("before"), alloc = sp_region("alloc");
  struct timespec t = {0, 120000000};
  sp_start(before);
  nanosleep(&t, NULL);
  sp_stop(before);
  size_t bytes = (size_t)(rank + 1) * (50u << 20);
  sp_start(alloc);
  char *p = malloc(bytes);
  if (p) memset(p, 1, bytes);
  nanosleep(&t, NULL);
  if (p) printf("rank %d touched %d\n", rank, p[bytes / 2]);
  free(p);
  sp_stop(alloc);
  MPI_Barrier(MPI_COMM_WORLD);
  if (die) exit(0); /* without sp_finalize and MPI_Finalize: the spill files keep all */
  int rc = sp_finalize();
  MPI_Finalize();
  return rc == 0 ? 0 : 1;
}
