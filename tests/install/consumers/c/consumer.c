/* consumer.c - a program outside the project that links the installed
 * scope-profiler the way a user does (find_package or pkg-config) and
 * writes a small profile for check_profile.py.
 *
 * Usage: sp_consumer_c <output.h5>
 * Regions: "consumer outer" called 3 times, "consumer/inner" 12 times
 * (a '/' so the file's name encoding is exercised through the install).
 * With SP_CONSUMER_READER it then reads the file back with the installed
 * reader library (component "reader") and checks the calls it made.
 */
#include <stdio.h>
#include <string.h>

#include <scope_profiler.h>
#ifdef SP_CONSUMER_MPI
#include <scope_profiler_mpi.h>
#endif
#ifdef SP_CONSUMER_READER
#include <scope_profiler_reader.h>

/* Reads path back: every rank has "consumer/inner" with 12 calls. */
static int read_back(const char *path) {
  char msg[512];
  sp_reader_t *r;
  if (sp_reader_open(path, &r, msg, sizeof msg) < 0) {
    fprintf(stderr, "consumer: sp_reader_open: %s\n", msg);
    return 1;
  }
  int bad = 0, found = 0;
  for (int g = 0; g < sp_reader_num_regions(r); g++) {
    if (strcmp(sp_reader_region_name(r, g), "consumer/inner") != 0) continue;
    for (int k = 0; k < sp_reader_num_ranks(r); k++) {
      sp_reader_intervals_t iv;
      sp_reader_stats_t st;
      if (sp_reader_load(r, g, k, &iv) < 0 || sp_reader_stats_compute(&iv, &st) < 0) {
        fprintf(stderr, "consumer: reader: %s\n", sp_reader_errmsg(r));
        return 1;
      }
      found++;
      if (st.num_calls != 12) {
        fprintf(stderr, "consumer: reader: rank %d has %lld calls, expected 12\n",
                sp_reader_rank_id(r, k), (long long)st.num_calls);
        bad = 1;
      }
      sp_reader_intervals_free(&iv);
    }
  }
  int ranks = sp_reader_num_ranks(r);
  sp_reader_close(r);
  if (found != ranks || found == 0) {
    fprintf(stderr, "consumer: reader: consumer/inner on %d of %d ranks\n", found, ranks);
    return 1;
  }
  printf("consumer: read back %s with reader %s: %d ranks\n", path, sp_reader_version_string(),
         ranks);
  return bad;
}
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
  if (sp_version_number() != SP_VERSION_NUMBER ||
      strcmp(sp_version_string(), SP_VERSION_STRING) != 0) {
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
#ifdef SP_CONSUMER_READER
  if (read_back(argv[1]) != 0) return 1;
#endif
  printf("consumer: wrote %s with scope-profiler %s\n", argv[1], sp_version_string());
  return 0;
}
