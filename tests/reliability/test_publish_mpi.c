/* test_publish_mpi.c - issue 36's publication cases that need ranks:
 *   mpirun -np N test_publish_mpi CASE
 * Each case writes CASE.h5 (unless it must not), checked afterwards by
 * check_publish.py (h5py) as its own CTest test (publish.cmake). */
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

static void on_failure(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

static void setup_file(const char *path, int active) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  c.profiling_activated = active;
  if (rank == 0) unlink(path);
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_EQ(sp_setup(&c), 0);
}

static void record(int n) {
  for (int i = 0; i < n; i++) {
    sp_start_name("work");
    sp_stop_name("work");
  }
}

/* 4. Profiling on one rank only: every rank takes part in finalize (the
 * others with empty plans) and all return 0 at once; before, the active
 * rank waited FINALIZE_TIMEOUT for the others and failed. */
static void only_rank(const char *tag, int who) {
  char path[64];
  snprintf(path, sizeof path, "%s.h5", tag);
  setup_file(path, rank == who);
  record(100);
  ASSERT_EQ(sp_finalize(), 0);
}

static void case_rank0_only(void) { only_rank("rank0_only", 0); }
static void case_rank1_only(void) { only_rank("rank1_only", 1); }

/* No rank records: nothing is written, every rank returns 0. */
static void case_none_active(void) {
  setup_file("none_active.h5", 0);
  record(100);
  ASSERT_EQ(sp_finalize(), 0);
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT(!sp_test_file_exists("none_active.h5"));
}

/* 3. Each rank passes its own file_path: the profile of all ranks goes to
 * rank 0's, rank 0 says so and returns 0; the other ranks return SP_EPATH
 * (their data is not at the path they asked for). */
static void case_per_rank_path(void) {
  char path[64];
  snprintf(path, sizeof path, "per_rank_path%d.h5", rank);
  unlink(path);
  MPI_Barrier(MPI_COMM_WORLD);
  setup_file(path, 1);
  record(10 + rank);
  if (rank == 0) sp_test_stderr_begin();
  int rc = sp_finalize();
  if (rank == 0) {
    char *err = sp_test_stderr_end();
    sp_test_expect_msg(err, "the ranks passed different file_path values: rank 1", 1);
    free(err);
  }
  ASSERT_EQ(rc, rank == 0 ? 0 : SP_EPATH);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank > 0) ASSERT(!sp_test_file_exists(path));
  if (rank == 0) ASSERT_EQ(rename("per_rank_path0.h5", "per_rank_path.h5"), 0);
}

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {
      SP_TEST_CASE(rank0_only),
      SP_TEST_CASE(rank1_only),
      SP_TEST_CASE(none_active),
      SP_TEST_CASE(per_rank_path),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sp_test_set_rank(rank);
  sp_test_on_failure(on_failure);
  sp_test_case_run(c);
  MPI_Finalize();
  return 0;
}
