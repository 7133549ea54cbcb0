/* consumer.c - a program outside the project that links the installed
 * scope-profiler the way a user does (find_package or pkg-config) and
 * writes a small profile for check_profile.py.
 *
 * Usage: sp_consumer_c <output.h5>
 * Regions: "consumer outer" called 3 times, "consumer/inner" 12 times
 * (a '/' so the file's name encoding is exercised through the install).
 */
#include <stdio.h>
#include <string.h>

#include <scope_profiler.h>
#ifdef SP_CONSUMER_MPI
#include <scope_profiler_mpi.h>
#endif

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <output.h5>\n", argv[0]);
    return 2;
  }
#ifdef SP_CONSUMER_MPI
  MPI_Init(&argc, &argv);
#endif
  /* The header and the library must come from the same installation. */
  if (sp_version_number() != SP_VERSION_NUMBER || strcmp(sp_version_string(), SP_VERSION_STRING) != 0) {
    fprintf(stderr, "consumer: header version %s but library version %s\n", SP_VERSION_STRING,
            sp_version_string());
    return 1;
  }
  sp_config cfg;
  sp_config_init(&cfg);
  cfg.file_path = argv[1];
  int rc = sp_setup(&cfg);
#ifdef SP_CONSUMER_MPI
  if (rc == 0) rc = sp_mpi_set_comm(MPI_COMM_WORLD);
#endif
  if (rc != 0) {
    fprintf(stderr, "consumer: sp_setup: %s (%s)\n", sp_strerror(rc), sp_err_name(rc));
    return 1;
  }
  int outer = sp_region("consumer outer");
  int inner = sp_region("consumer/inner");
  if (outer < 0 || inner < 0) {
    fprintf(stderr, "consumer: sp_region failed: %d %d\n", outer, inner);
    return 1;
  }
  volatile double sink = 0.0;
  for (int i = 0; i < 3; i++) {
    sp_start(outer);
    for (int j = 0; j < 4; j++) {
      sp_start(inner);
      for (int k = 0; k < 1000; k++) sink += (double)k * 0.5;
      sp_stop(inner);
    }
    sp_stop(outer);
  }
  rc = sp_finalize();
  if (rc != 0) {
    fprintf(stderr, "consumer: sp_finalize: %s (%s)\n", sp_strerror(rc), sp_err_name(rc));
    return 1;
  }
#ifdef SP_CONSUMER_MPI
  MPI_Finalize();
#endif
  printf("consumer: wrote %s with scope-profiler %s\n", argv[1], sp_version_string());
  return 0;
}
