/* test_misuse_mpi.c - misuse cases that need several ranks:
 *   mpirun -np N test_misuse_mpi CASE
 * Each case writes CASE.h5 and CASE.expect.rank<R>.json for
 * tests/common/check_profile.py. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_test_cases.h"
#include "sp_test_util.h"
#include "scope_profiler_mpi.h"

static int rank, size;

static void setup_file(const char *path) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  c.buffer_limit = 3; /* several flushes per rank, also through spill files */
  if (rank == 0) unlink(path);
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_EQ(sp_setup(&c), 0);
}

static void pairs(const char *name, int n) {
  for (int i = 0; i < n; i++) {
    sp_start_name(name);
    sp_stop_name(name);
  }
}

/* The program never calls sp_finalize before MPI_Finalize: the hook in
 * MPI_Finalize writes the profile; a later sp_finalize must be a harmless
 * no-op (Caliper fails here: "MPI is already finalized"). */
static void case_finalize_after_mpi_finalize(void) {
  setup_file("finalize_after_mpi_finalize.h5");
  pairs("before_mpi_finalize", 5 + rank);
  char tag[] = "finalize_after_mpi_finalize";
  const char *n[] = {"before_mpi_finalize"};
  long long k[] = {5 + rank};
  sp_test_expect_write_table(tag, rank, n, k, 1);
  int r = rank;
  sp_test_stderr_begin();
  MPI_Finalize();
  char *err = sp_test_stderr_end();
  sp_test_expect_msg(err, "MPI_Finalize reached without sp_finalize: writing the profile now", 1);
  free(err);
  sp_test_stderr_begin();
  int rc = sp_finalize();
  (sp_start_name)("after_mpi_finalize"); /* no session any more: no-op */
  (sp_stop_name)("after_mpi_finalize");
  int rc2 = sp_finalize();
  err = sp_test_stderr_end();
  ASSERT_EQ(rc, 0);
  ASSERT_EQ(rc2, 0);
  ASSERT_EQ(sp_test_count(err, "error"), 0);
  free(err);
  if (r == 0) ASSERT(sp_test_file_exists("finalize_after_mpi_finalize.h5"));
  printf("rank %d: ok after MPI_Finalize\n", r);
  exit(0);
}

/* A session opened after MPI_Finalize: the ranks can no longer write one
 * file together. Whatever sp_finalize returns, the program goes on, and a
 * failure must keep the rank's events in its spill file (named in the
 * log) for the merge. (Each rank then believes it is alone: see the
 * reliability report on ranks racing for one file.) */
static void case_setup_after_mpi_finalize(void) {
  int r = rank;
  char spill[64];
  snprintf(spill, sizeof spill, "setup_after_mpi_finalize.spill.%d", r);
  setenv("SCOPE_PROFILER_SPILL_DIR", spill, 1);
  MPI_Finalize();
  sp_config c;
  sp_config_init(&c);
  c.file_path = "setup_after_mpi_finalize.h5";
  c.buffer_limit = 2;
  ASSERT_EQ(sp_setup(&c), 0);
  pairs("late", 7);
  sp_test_stderr_begin();
  int rc = sp_finalize();
  char *err = sp_test_stderr_end();
  printf("rank %d: sp_finalize after MPI_Finalize returned %d (%s); went on\n", r, rc,
         sp_err_name(rc));
  ASSERT(rc == 0 || rc == SP_EMPI || rc == SP_EIO || rc == SP_EPATH || rc == SP_EHDF5);
  if (rc != 0) {
    sp_test_expect_msg(err, "scope-profiler: error: spill file: ", 1);
    const char *p = strstr(err, "spill file: ") + strlen("spill file: ");
    char path[256];
    size_t len = strcspn(p, "\n");
    ASSERT(len < sizeof path);
    memcpy(path, p, len);
    path[len] = '\0';
    ASSERT(sp_test_file_exists(path));
  }
  free(err);
  exit(0);
}

/* Ranks with different region sets; the last rank records nothing. */
static void case_different_regions(void) {
  setup_file("different_regions.h5");
  const char *names[8];
  long long counts[8];
  int n = 0;
  char own[32], deep[32];
  snprintf(own, sizeof own, "only_rank%d", rank);
  snprintf(deep, sizeof deep, "nested/level%d", rank % 2);
  int shared = sp_region("registered_everywhere_used_nowhere");
  (void)shared;
  if (rank != size - 1) {
    pairs("common", rank + 1);
    names[n] = "common";
    counts[n++] = rank + 1;
    pairs(own, 2 * rank + 1);
    names[n] = own;
    counts[n++] = 2 * rank + 1;
    for (int i = 0; i < 4; i++) {
      sp_start_name("outer");
      pairs(deep, rank + 2);
      sp_stop_name("outer");
    }
    names[n] = "outer";
    counts[n++] = 4;
    names[n] = deep;
    counts[n++] = 4 * (rank + 2);
  }
  ASSERT_EQ(sp_finalize(), 0);
  sp_test_expect_write_table("different_regions", rank, names, counts, n);
}

/* No rank records anything: a valid file with every rank's group. */
static void case_all_empty(void) {
  setup_file("all_empty.h5");
  ASSERT_EQ(sp_finalize(), 0);
  sp_test_expect_write_table("all_empty", rank, NULL, NULL, 0);
}

/* The program frees its communicator after handing it to sp_mpi_set_comm
 * (it crashed every rank in sp_finalize): the library keeps its own
 * duplicate. Each half (even and odd world ranks) writes its own file,
 * numbered in the half. Setting another communicator first frees the
 * earlier duplicate. */
static void case_set_comm_freed(void) {
  MPI_Comm half, other;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
  int hr;
  MPI_Comm_rank(half, &hr);
  char file[80], tag[64];
  snprintf(tag, sizeof tag, "set_comm_freed%d", rank % 2);
  snprintf(file, sizeof file, "%s.h5", tag);
  if (hr == 0) unlink(file);
  MPI_Barrier(MPI_COMM_WORLD);
  sp_config c;
  sp_config_init(&c);
  c.file_path = file;
  ASSERT_EQ(sp_setup(&c), 0);
  ASSERT_EQ(sp_mpi_set_comm(other), 0);
  ASSERT_EQ(sp_mpi_set_comm(half), 0);
  MPI_Comm_free(&other);
  MPI_Comm_free(&half);
  pairs("after_free", 3 + hr);
  ASSERT_EQ(sp_finalize(), 0);
  const char *n[] = {"after_free"};
  long long k[] = {3 + hr};
  sp_test_expect_write_table(tag, hr, n, k, 1);
}

/* MPI_COMM_NULL, and a call after MPI_Finalize: a message and a status. */
static void case_set_comm_misuse(void) {
  sp_test_stderr_begin();
  int rc = sp_mpi_set_comm(MPI_COMM_NULL);
  char *err = sp_test_stderr_end();
  ASSERT_EQ(rc, SP_EINVAL);
  sp_test_expect_msg(err, "scope-profiler: error: sp_mpi_set_comm(MPI_COMM_NULL)", 1);
  free(err);
  int r = rank;
  MPI_Finalize();
  sp_test_stderr_begin();
  rc = sp_mpi_set_comm(MPI_COMM_WORLD);
  err = sp_test_stderr_end();
  ASSERT_EQ(rc, SP_EMPI);
  sp_test_expect_msg(err,
                     "scope-profiler: error: sp_mpi_set_comm before MPI_Init or after "
                     "MPI_Finalize",
                     1);
  free(err);
  printf("rank %d: ok\n", r);
  exit(0);
}

/* The path in "spill file: PATH" of err must exist and hold data. */
static void expect_spill_kept(const char *err) {
  const char *p = strstr(err, "spill file: ");
  ASSERT(p != NULL);
  p += strlen("spill file: ");
  char path[256];
  size_t len = strcspn(p, "\n");
  ASSERT(len < sizeof path);
  memcpy(path, p, len);
  path[len] = '\0';
  FILE *f = fopen(path, "rb");
  ASSERT(f != NULL);
  fseek(f, 0, SEEK_END);
  ASSERT(ftell(f) > 0);
  fclose(f);
}

/* One rank is in an MPI_Barrier while the others call sp_finalize (it
 * hung forever with no word). With SCOPE_PROFILER_FINALIZE_TIMEOUT=2 the
 * ranks in sp_finalize return SP_ETIMEDOUT within bounded time, naming the
 * rank(s) missing, with their spill files kept; then they call the
 * matching barrier, the missing rank leaves it and its own sp_finalize
 * times out too, and the job ends normally. The test's TIMEOUT bounds it. */
static void case_finalize_missing(int missing) {
  setenv("SCOPE_PROFILER_FINALIZE_TIMEOUT", "2", 1);
  char file[64];
  snprintf(file, sizeof file, "finalize_missing%d.h5", missing);
  setup_file(file);
  pairs("before", 5);
  /* The others enter sp_finalize together, so that on a loaded machine
   * none of them is late by more than the timeout. */
  MPI_Comm others;
  MPI_Comm_split(MPI_COMM_WORLD, rank == missing, 0, &others);
  char *err;
  int rc;
  if (rank != missing) MPI_Barrier(others);
  MPI_Comm_free(&others);
  if (rank == missing) {
    MPI_Barrier(MPI_COMM_WORLD);
    sp_test_stderr_begin();
    rc = sp_finalize();
    err = sp_test_stderr_end();
  } else {
    sp_test_stderr_begin();
    rc = sp_finalize();
    err = sp_test_stderr_end();
    MPI_Barrier(MPI_COMM_WORLD);
  }
  fputs(err, stdout);
  ASSERT_EQ(rc, SP_ETIMEDOUT);
  sp_test_expect_msg(err, "could not write '", 1);
  expect_spill_kept(err);
  if (rank == missing) {
    /* The others gave up before this rank came. */
    if (rank == 0)
      sp_test_expect_msg(err, "rank(s) 1, 2, 3 did not reach sp_finalize within 2 s", 1);
    else
      sp_test_expect_msg(err, "no answer from rank 0 within 7 s", 1);
  } else if (missing == 0) {
    sp_test_expect_msg(err, "no answer from rank 0 within 7 s", 1);
  } else {
    char want[96];
    snprintf(want, sizeof want, "rank(s) %d did not reach sp_finalize within 2 s", missing);
    sp_test_expect_msg(err, want, 1);
  }
  free(err);
  ASSERT(!sp_test_file_exists(file));
  printf("rank %d: sp_finalize returned SP_ETIMEDOUT; the job goes on\n", rank);
  unsetenv("SCOPE_PROFILER_FINALIZE_TIMEOUT");
}

static void case_finalize_root_missing(void) { case_finalize_missing(0); }
static void case_finalize_rank_missing(void) { case_finalize_missing(size - 1); }

/* Issue 43 item 2: rank 0 calls sp_report while the others go to
 * sp_finalize (both collective): they hung forever, rank 0 in report's
 * MPI_Allgather, the others in finalize's MPI_Allreduce. Now every rank
 * returns SP_EMPI at once (before SCOPE_PROFILER_FINALIZE_TIMEOUT=8),
 * naming the ranks that began the other call; then rank 0's own
 * sp_finalize, which the others never join, returns SP_ETIMEDOUT after its
 * 8 s wait. */
static void case_report_vs_finalize(void) {
  setenv("SCOPE_PROFILER_FINALIZE_TIMEOUT", "8", 1);
  sp_config c;
  sp_config_init(&c);
  c.file_path = "report_vs_finalize.h5";
  c.aggregate = 1;
  if (rank == 0) unlink(c.file_path);
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_EQ(sp_setup(&c), 0);
  pairs("work", 5);
  double t0 = MPI_Wtime();
  sp_test_stderr_begin();
  int rc = rank == 0 ? sp_report("report_vs_finalize.report.h5") : sp_finalize();
  char *err = sp_test_stderr_end();
  double took = MPI_Wtime() - t0;
  fputs(err, stdout);
  ASSERT_EQ(rc, SP_EMPI);
  ASSERT(took < 8); /* not the timeout: at once */
  char want[160];
  if (size == 2) {
    sp_test_expect_msg(err,
                       "rank(s) 1 began sp_finalize (call 1 of the session) where rank 0 began "
                       "sp_report (call 1)",
                       1);
  } else {
    snprintf(want, sizeof want, "rank(s) 1, 2%s began sp_finalize", size > 3 ? ", 3" : "");
    sp_test_expect_msg(err, want, 1);
  }
  free(err);
  if (rank == 0) {
    sp_test_stderr_begin();
    rc = sp_finalize(); /* the others finalized already */
    err = sp_test_stderr_end();
    fputs(err, stdout);
    ASSERT_EQ(rc, SP_ETIMEDOUT);
    free(err);
  }
  ASSERT(!sp_test_file_exists("report_vs_finalize.h5"));
  ASSERT(!sp_test_file_exists("report_vs_finalize.report.h5"));
  printf("rank %d: returned SP_EMPI in %.1f s; the job goes on\n", rank, took);
  unsetenv("SCOPE_PROFILER_FINALIZE_TIMEOUT");
}

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {
      SP_TEST_CASE(finalize_after_mpi_finalize),
      SP_TEST_CASE(setup_after_mpi_finalize),
      SP_TEST_CASE(different_regions),
      SP_TEST_CASE(all_empty),
      SP_TEST_CASE(set_comm_freed),
      SP_TEST_CASE(set_comm_misuse),
      SP_TEST_CASE(finalize_root_missing),
      SP_TEST_CASE(finalize_rank_missing),
      SP_TEST_CASE(report_vs_finalize),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sp_test_case_run(c);
  MPI_Finalize();
  return 0;
}
