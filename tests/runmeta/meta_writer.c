/* meta_writer.c - writes profiles with run metadata and source locations
 * for check_runmeta.py, which reads them back with h5py.
 *
 *   meta_writer CASE OUT.h5 EXPECTED.json
 *
 * CASE: values (odd values and every refusal), source (sp_region_at and
 * SP_REGION_HERE), crash (spill files only: _exit without sp_finalize, the
 * merge tool rebuilds the profile), mpi (with MPI: per-rank values), cap
 * (256 keys, then 20,000 calls past the cap, each SP_ETOOMANY). The
 * program writes into EXPECTED.json what it set and where its regions are
 * (its own __FILE__ and __LINE__), and checks every return code itself. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef SP_TEST_MPI
#include <mpi.h>
#endif

#include "scope_profiler.h"

static int failures;
#define EXPECT(cond)                                                      \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                         \
    }                                                                     \
  } while (0)

static FILE *expect_out;
static int first_src = 1;
static void src(const char *name, const char *file, int line) {
  fprintf(expect_out, "%s[\"%s\", \"%s\", %d]", first_src ? "" : ", ", name, file, line);
  first_src = 0;
}

static void run(int h, int n) {
  for (int i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
}

/* Sets the keys every case checks, and tries every refusal. */
static void set_values(int rank) {
  EXPECT(sp_metadata_set("input", "grid_3d.nml") == 0);
  /* UTF-8 (2, 3 and 4 byte sequences) */
  EXPECT(sp_metadata_set("Grüße", "Größe ✓ \xF0\x9F\x98\x80") == 0);
  char *longv = malloc(60001);
  for (int i = 0; i < 60000; i++) longv[i] = (char)('a' + i % 26);
  longv[60000] = '\0';
  EXPECT(sp_metadata_set("long_value", longv) == 0);
  free(longv);
  EXPECT(sp_metadata_set_int("work_per_rank", 1000000 + 0 * rank) == 0);
  EXPECT(sp_metadata_set_int("big", INT64_MIN) == 0);
  EXPECT(sp_metadata_set_real("dt", 0.1) == 0);
  EXPECT(sp_metadata_set_real("tiny", 5e-324) == 0);
  /* repeated: the last value and kind win */
  EXPECT(sp_metadata_set("repeated", "first") == 0);
  EXPECT(sp_metadata_set_int("repeated", 42) == 0);
  EXPECT(sp_metadata_set("empty_value", "") == 0);
  char key255[256];
  memset(key255, 'k', 255);
  key255[255] = '\0';
  EXPECT(sp_metadata_set(key255, "x") == 0);
  /* refusals */
  char key256[257];
  memset(key256, 'k', 256);
  key256[256] = '\0';
  EXPECT(sp_metadata_set(key256, "x") == SP_EINVAL);
  EXPECT(sp_metadata_set("", "x") == SP_EINVAL);
  EXPECT(sp_metadata_set(NULL, "x") == SP_EINVAL);
  EXPECT(sp_metadata_set("a/b", "x") == SP_EINVAL);
  EXPECT(sp_metadata_set_n("nul\0key", 7, "x", 1) == SP_EINVAL);
  EXPECT(sp_metadata_set_n("nulvalue", 8, "x\0y", 3) == SP_EINVAL);
  EXPECT(sp_metadata_set("bad\xFF", "x") == SP_EINVAL);
  EXPECT(sp_metadata_set("badvalue", "\xC3\x28") == SP_EINVAL);
  EXPECT(sp_metadata_set("surrogate", "\xED\xA0\x80") == SP_EINVAL);
  EXPECT(sp_metadata_set("hostname", "mine") == SP_EINVAL);
  EXPECT(sp_metadata_set("mpi_size", "2") == SP_EINVAL);
  EXPECT(sp_metadata_set("nullvalue", NULL) == SP_EINVAL);
  EXPECT(sp_metadata_set_real("nan", NAN) == SP_EINVAL);
  EXPECT(sp_metadata_set_real("inf", INFINITY) == SP_EINVAL);
  char *huge = malloc(65537);
  memset(huge, 'h', 65536);
  huge[65536] = '\0';
  EXPECT(sp_metadata_set("huge", huge) == SP_EINVAL);
  free(huge);
  /* Length form: the exact bytes, no NUL needed. */
  EXPECT(sp_metadata_set_n("lenform_xx", 7, "abcdef", 3) == 0);
}

static void expect_values(void) {
  fprintf(
      expect_out,
      "\"values\": {\"input\": \"grid_3d.nml\", \"Grüße\": \"Größe ✓ \xF0\x9F\x98\x80\", "
      "\"long_value\": [\"abc\", 60000], \"work_per_rank\": 1000000, "
      "\"big\": %lld, \"dt\": 0.1, \"tiny\": 5e-324, \"repeated\": 42, \"empty_value\": \"\", "
      "\"%.*s\": \"x\", \"lenform\": \"abc\"},\n",
      (long long)INT64_MIN, 255,
      "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
      "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
      "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk");
  fprintf(
      expect_out,
      "\"absent\": [\"\", \"a/b\", \"nulvalue\", \"badvalue\", \"surrogate\", "
      "\"nullvalue\", \"nan\", \"inf\", \"huge\", \"lenform_xx\", \"%.*s\"],\n",
      256,
      "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
      "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
      "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk");
}

/* Regions with locations; the expected list goes into the JSON. */
static void regions_with_source(void) {
  fprintf(expect_out, "\"sources\": [");
  int a = sp_region_at("solve", "src/solver.f90", 120);
  src("solve", "src/solver.f90", 120);
  run(a, 5);
  /* a second location for the same region: the first is kept */
  EXPECT(sp_region_at("solve", "elsewhere.c", 7) == a);
  /* a bad location: the handle all the same, no attributes */
  int bad = sp_region_at("no_location", "bad\xFF", 3);
  EXPECT(bad >= 0);
  run(bad, 1);
  EXPECT(sp_region_at("negative_line", "x.c", -1) >= 0);
  run(sp_region_at("negative_line", "x.c", 5), 1); /* the first valid one is kept */
  src("negative_line", "x.c", 5);
  for (int i = 0; i < 3; i++) {
    int line = __LINE__ + 1;
    int h = SP_REGION_HERE("here");
    if (i == 0) src("here", __FILE__, line);
    run(h, 2);
  }
  run(sp_region("plain"), 1); /* no location */
  fprintf(expect_out, "],\n\"no_source\": [\"no_location\", \"plain\"],\n");
}

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  const char *mode = argv[1];
  int rank = 0, size = 1;
#ifdef SP_TEST_MPI
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
#endif
  char exp_path[4096];
  snprintf(exp_path, sizeof exp_path, "%s", argv[3]);
  expect_out = fopen(rank == 0 ? exp_path : "/dev/null", "w");
  if (!expect_out) return 2;
  fprintf(expect_out, "{\n");
  /* late: before setup */
  EXPECT(sp_metadata_set("early", "x") == SP_ENOTSETUP);
  sp_config cfg;
  sp_config_init(&cfg);
  cfg.file_path = argv[2];
  if (strcmp(mode, "work") == 0) { /* scaling inputs: one 2 ms region, keys of three kinds */
    sp_config wc;
    sp_config_init(&wc);
    wc.file_path = argv[2];
    EXPECT(sp_setup(&wc) == 0);
    EXPECT(sp_metadata_set_int("work_per_rank", 5000) == 0);
    EXPECT(sp_metadata_set_real("dt", 1.0 / size) == 0);
    char label[32];
    snprintf(label, sizeof label, "run-%d", size);
    EXPECT(sp_metadata_set("label", label) == 0);
    int h = sp_region("step");
    for (int i = 0; i < 3; i++) {
      sp_start(h);
      struct timespec ms2 = {0, 2000000};
      nanosleep(&ms2, NULL);
      sp_stop(h);
    }
    fclose(expect_out);
    EXPECT(sp_finalize() == 0);
#ifdef SP_TEST_MPI
    MPI_Finalize();
#endif
    return failures ? 1 : 0;
  }
  if (strcmp(mode, "cap") == 0) { /* the key cap: refusals counted, said once */
    EXPECT(sp_setup(&cfg) == 0);
    char key[32];
    for (int i = 0; i < 256; i++) {
      snprintf(key, sizeof key, "key%03d", i);
      EXPECT(sp_metadata_set_int(key, i) == 0);
    }
    EXPECT(sp_metadata_set_int("key007", 70) == 0); /* an existing key is still replaced */
    for (int i = 0; i < 20000; i++) {
      snprintf(key, sizeof key, "over%05d", i % 5000);
      EXPECT(sp_metadata_set(key, "x") == SP_ETOOMANY);
    }
    run(sp_region("step"), 3);
    fprintf(expect_out, "\"keys\": 256, \"refused\": 20000}\n");
    fclose(expect_out);
    EXPECT(sp_finalize() == 0);
    return failures ? 1 : 0;
  }
  if (strcmp(mode, "profile") == 0) { /* profile mode, aggregates only */
    sp_config pc;
    sp_config_init(&pc);
    pc.file_path = argv[2];
    pc.aggregate = 1;
    pc.time_trace = 0;
    EXPECT(sp_setup(&pc) == 0);
    EXPECT(sp_metadata_set("input", "grid_3d.nml") == 0);
    EXPECT(sp_metadata_set_real("dt", 0.1) == 0);
    EXPECT(sp_metadata_set("scope_profiler_version", "9") == SP_EINVAL);
    run(sp_region("step"), 3);
    fprintf(expect_out, "\"values\": {\"input\": \"grid_3d.nml\", \"dt\": 0.1}, \"end\": 1}\n");
    fclose(expect_out);
    EXPECT(sp_finalize() == 0);
    return failures ? 1 : 0;
  }
  int crash = strcmp(mode, "crash") == 0;
  if (crash) cfg.buffer_limit = 4; /* full buffers reach the spill file at once */
  EXPECT(sp_setup(&cfg) == 0);
  if (crash) {
    /* a key set before any spill file exists, one after */
    EXPECT(sp_metadata_set("before_flush", "b") == 0);
  }
  set_values(rank);
  expect_values();
  regions_with_source();
  if (strcmp(mode, "mpi") == 0 || (crash && size > 1)) {
    EXPECT(sp_metadata_set_int("rank_value", rank) == 0);
    EXPECT(sp_metadata_set("same", "all") == 0);
    if (rank == 2) EXPECT(sp_metadata_set_real("only_rank2", 2.5) == 0);
    fprintf(expect_out, "\"size\": %d,\n", size);
  }
  if (crash) {
    run(sp_region("filler"), 40); /* several spills */
    EXPECT(sp_metadata_set("after_flush", "a") == 0);
    EXPECT(sp_metadata_set("repeated", "changed after the flush") == 0);
    fprintf(expect_out,
            "\"crash\": {\"before_flush\": \"b\", \"after_flush\": \"a\", "
            "\"repeated\": \"changed after the flush\"},\n");
    fprintf(expect_out, "\"end\": 1}\n");
    fclose(expect_out);
    fflush(stderr);
#ifdef SP_TEST_MPI
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has spilled before the first one dies */
#endif
    _exit(failures ? 1 : 0); /* no finalize, no exit flush: the spill file as a crash leaves it */
  }
  fprintf(expect_out, "\"end\": 1}\n");
  fclose(expect_out);
  int rc = sp_finalize();
  EXPECT(rc == 0);
  /* late: after finalize */
  EXPECT(sp_metadata_set("late", "x") == SP_ENOTSETUP);
#ifdef SP_TEST_MPI
  MPI_Finalize();
#endif
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
