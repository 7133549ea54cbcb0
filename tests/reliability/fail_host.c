/* fail_host.c - a host program for the finalize failure sweeps
 * (finalize_fail.py: issue 36, items 15 and 16).
 *
 *   fail_host REGIONS CALLS
 *
 * Records CALLS calls of each of REGIONS regions ("r0", "r1", ...) into
 * SCOPE_PROFILER_FILE (the environment holds the settings), calls
 * sp_finalize, prints "sp_finalize=<code>" and ends normally with status 0
 * (after MPI_Finalize when built with SP_HOST_MPI). A crash anywhere,
 * HDF5's exit handler included, shows as a signal or another status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef SP_HOST_MPI
#include <mpi.h>
#endif

#include "scope_profiler.h"

int main(int argc, char **argv) {
#ifdef SP_HOST_MPI
  MPI_Init(&argc, &argv);
#endif
  int nreg = argc > 1 ? atoi(argv[1]) : 10;
  long long calls = argc > 2 ? atoll(argv[2]) : 1000;
  /* Under finalize_fail.py's address space limit the recording itself may
   * fail; said on stdout so that the sweep counts the run as one that
   * could not record (sp_region's SP_ENOMEM comes without a message). */
  int rc = sp_setup(NULL);
  if (rc != 0) {
    printf("fail_host: could not record: sp_setup=%d\n", rc);
    return 1;
  }
  for (int r = 0; r < nreg; r++) {
    char name[32];
    snprintf(name, sizeof name, "r%d", r);
    int h = sp_region(name);
    if (h < 0) {
      printf("fail_host: could not record: sp_region=%d\n", h);
      return 1;
    }
    for (long long i = 0; i < calls; i++) {
      sp_start(h);
      sp_stop(h);
    }
  }
  if (getenv("FAIL_HOST_VMSIZE")) { /* the address space used before finalize */
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
      if (strncmp(line, "VmSize:", 7) == 0 || strncmp(line, "VmPeak:", 7) == 0) fputs(line, stdout);
    if (f) fclose(f);
  }
  rc = sp_finalize();
  printf("sp_finalize=%d\n", rc);
  fflush(stdout);
#ifdef SP_HOST_MPI
  MPI_Finalize();
#endif
  return 0;
}
