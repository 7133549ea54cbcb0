/* test_many_regions.c - one rank, many distinct regions, a few calls each:
 * test_many_regions FILE REGIONS CALLS.
 *
 * Issue 46's "1e5 regions" case: the layout (SCOPE_PROFILER_LAYOUT,
 * columnar or ranks) holds REGIONS regions of CALLS calls each
 * (check_many_regions.py reads it with h5py), and the program is unharmed:
 * sp_finalize returns 0, errno is what the program left in it, and the
 * program goes on (a sum computed after finalize is printed and checked). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "scope_profiler.h"

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: test_many_regions FILE REGIONS CALLS\n");
    return 2;
  }
  MPI_Init(&argc, &argv);
  const int regions = atoi(argv[2]), calls = atoi(argv[3]);
  sp_config c;
  sp_config_init(&c);
  c.file_path = argv[1];
  int rc = sp_setup(&c);
  if (rc != 0) {
    fprintf(stderr, "sp_setup: %s\n", sp_strerror(rc));
    return 1;
  }
  char name[32];
  for (int r = 0; r < regions; r++) {
    snprintf(name, sizeof name, "region_%06d", r);
    int h = sp_region(name);
    if (h < 0) {
      fprintf(stderr, "sp_region(%s): %s\n", name, sp_strerror(h));
      return 1;
    }
    for (int k = 0; k < calls; k++) {
      sp_start(h);
      sp_stop(h);
    }
  }
  errno = EDOM; /* the program's own errno, kept across finalize */
  rc = sp_finalize();
  const int kept = errno == EDOM;
  long long sum = 0;
  for (int i = 1; i <= regions; i++) sum += i; /* the program goes on */
  printf("sp_finalize: %s; errno kept: %d; sum after finalize: %lld (want %lld)\n", sp_err_name(rc),
         kept, sum, (long long)regions * (regions + 1) / 2);
  MPI_Finalize();
  return rc == 0 && kept ? 0 : 1;
}
