/* instrument.c - a program with no profiler call, compiled with
 * -finstrument-functions and linked with the installed
 * scope-profiler::instrument: every function becomes a region.
 *
 * Usage: SCOPE_PROFILER_FILE=<output.h5> sp_consumer_instrument
 * Regions: "main" 1 call, "consumer_work" 5 calls.
 */
#include <stdio.h>
#ifdef SP_CONSUMER_MPI
#include <mpi.h>
#endif

static volatile double sink;

/* noinline: one region call per loop iteration of main. */
__attribute__((noinline)) static void consumer_work(int n) {
  for (int k = 0; k < n; k++) sink += (double)k * 0.5;
}

int main(int argc, char **argv) {
#ifdef SP_CONSUMER_MPI
  MPI_Init(&argc, &argv);
#else
  (void)argc;
  (void)argv;
#endif
  for (int i = 0; i < 5; i++) consumer_work(1000);
#ifdef SP_CONSUMER_MPI
  MPI_Finalize(); /* the library writes the profile here */
#endif
  puts("consumer: instrumented run done");
  return 0;
}
