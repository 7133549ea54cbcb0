/* test_disk_mpi.c - a full disk at finalize on several ranks, with real
 * failing writes: mpirun -np N test_disk_mpi CASE MERGE_EXE [PYTHON CHECKER].
 *
 * layout_disk_taken: run by in_tmpfs.sh, which mounts an 8 MiB tmpfs at
 * ./mnt.CASE that all ranks see (every rank writes its stamps into the
 * profile there). Another job fills that disk between
 * finalize's space check and HDF5's writes (this program's ftruncate(2)
 * stands in for libc's in the library: when the check empties its
 * temporary "<file>.partial.*" again, rank 0 fills the tmpfs). Every rank must get a failure
 * status, the old profile must stay as it was, the spill files (outside
 * the tmpfs) must rebuild every event, and every rank must then leave
 * MPI_Finalize and exit normally (HDF5 1.10 crashed at MPI_Finalize).
 *
 * raw_disk_taken: the same on a file system where the space cannot be
 * reserved (this program's posix_fallocate says EOPNOTSUPP, as where the
 * file system has none), with room left for the layout but not for the
 * stamps, written through MPI-IO (SCOPE_PROFILER_RAW_WRITE=mpiio unless
 * the environment says otherwise): Open
 * MPI's OMPIO returns success for a failed write, and finalize published
 * the file without the data (sp_finalize returned 0). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "disk_fill.h"
#include "sp_test_cases.h"
#include "sp_test_util.h"
#include "scope_profiler.h"

static int rank, size;
static int no_fallocate;

static void abort_all(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

__attribute__((visibility("default"))) int posix_fallocate(int fd, off_t off, off_t len);
int posix_fallocate(int fd, off_t off, off_t len) {
  if (no_fallocate) return EOPNOTSUPP;
  return fallocate(fd, 0, off, len) == 0 ? 0 : errno;
}

static void rm_spill(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ASSERT_EQ(system(cmd), 0);
}

static void pairs(const char *name, long long n) {
  for (long long i = 0; i < n; i++) {
    sp_start_name(name);
    sp_stop_name(name);
  }
}

static void disk_taken(const char *tag, long long n, const char *merge_exe, const char *python,
                       const char *checker) {
  char file[300], spill[300], otag[128], rtag[128], recovered[160], old_copy[160];
  snprintf(file, sizeof file, "%s/out.h5", sp_disk_mnt);
  snprintf(spill, sizeof spill, "%s.spill", tag);
  snprintf(otag, sizeof otag, "%s_old", tag);
  snprintf(rtag, sizeof rtag, "%s_recovered", tag);
  snprintf(recovered, sizeof recovered, "%s.h5", rtag);
  snprintf(old_copy, sizeof old_copy, "%s.h5", otag);
  if (rank == 0) rm_spill(spill);
  setenv("SCOPE_PROFILER_SPILL_DIR", spill, 1);
  setenv("SCOPE_PROFILER_ASYNC_FLUSH", "0", 1);
  MPI_Barrier(MPI_COMM_WORLD);
  /* The old profile, written while there is room. */
  sp_config c;
  sp_config_init(&c);
  c.file_path = file;
  c.buffer_limit = 550;
  ASSERT_EQ(sp_setup(&c), 0);
  pairs("old", rank + 1);
  ASSERT_EQ(sp_finalize(), 0);
  const char *oname[] = {"old"};
  long long ocalls[] = {rank + 1};
  sp_test_expect_write_table(otag, rank, oname, ocalls, 1);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) rm_spill(spill);
  MPI_Barrier(MPI_COMM_WORLD);
  /* The new run: 40 regions of n calls per rank. */
  ASSERT_EQ(sp_setup(&c), 0);
  static char names[40][16];
  const char *np[40];
  long long calls[40];
  for (int r = 0; r < 40; r++) {
    snprintf(names[r], sizeof names[r], "r%02d", r);
    np[r] = names[r];
    calls[r] = n;
    pairs(names[r], n);
  }
  sp_test_expect_write_table(rtag, rank, np, calls, 40);
  if (rank == 0) sp_disk_taken_suffix = "out.h5.partial.";
  sp_test_stderr_begin();
  int rc = sp_finalize();
  char *err = sp_test_stderr_end();
  fputs(err, stdout);
  printf("rank %d: sp_finalize returned %d (%s)\n", rank, rc, sp_err_name(rc));
  ASSERT(rc < 0);
  sp_test_expect_msg(err, "error: spill file: ", 1);
  if (rank == 0) {
    ASSERT_EQ(sp_disk_taken_done, 1);
    if (!no_fallocate) sp_test_expect_msg(err, "no room for the profile", 1);
  }
  free(err);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    char filler[300];
    snprintf(filler, sizeof filler, "%s/filler", sp_disk_mnt);
    ASSERT_EQ(syscall(SYS_unlinkat, AT_FDCWD, filler, 0), 0);
    /* The old profile is still there, as it was; the spills hold every
     * event of the new run. */
    char *cp[] = {"/bin/cp", file, old_copy, NULL};
    ASSERT_EQ(sp_disk_run(cp), 0);
    syscall(SYS_unlinkat, AT_FDCWD, recovered, 0); /* from an earlier run */
    char *m[] = {(char *)merge_exe, "-o", recovered, spill, NULL};
    ASSERT_EQ(sp_disk_run(m), 0);
    if (python) {
      char *c1[] = {(char *)python, (char *)checker, old_copy, "--expect",
                    otag,           "--ranks",       "4",      NULL};
      ASSERT_EQ(sp_disk_run(c1), 0);
      char *c2[] = {(char *)python, (char *)checker, recovered, "--expect",
                    rtag,           "--ranks",       "4",       NULL};
      ASSERT_EQ(sp_disk_run(c2), 0);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static const char *merge_arg, *py_arg, *chk_arg;

static void case_layout_disk_taken(void) {
  if (size != 4) {
    fprintf(stderr, "layout_disk_taken needs 4 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  sp_disk_taken_leave = 16 << 10; /* HDF5's superblock fits, the layout does not */
  disk_taken("layout_disk_taken", 100, merge_arg, py_arg, chk_arg);
}

static void case_raw_disk_taken(void) {
  if (size != 4) {
    fprintf(stderr, "raw_disk_taken needs 4 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* 10 MB of stamps on a 32 MiB disk: 1 MiB left holds the layout. */
  no_fallocate = 1;
  sp_disk_taken_leave = 1 << 20;
  setenv("SCOPE_PROFILER_RAW_WRITE", "mpiio", 0); /* or as the test says */
  disk_taken("raw_disk_taken", 4000, merge_arg, py_arg, chk_arg);
}

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {SP_TEST_CASE(layout_disk_taken),
                                       SP_TEST_CASE(raw_disk_taken)};
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  if (argc != 3 && argc != 5) {
    fprintf(stderr, "usage: test_disk_mpi CASE MERGE_EXE [PYTHON CHECKER]\n");
    return 2;
  }
  snprintf(sp_disk_mnt, sizeof sp_disk_mnt, "mnt.%s", c->name);
  merge_arg = argv[2];
  py_arg = argc == 5 ? argv[3] : NULL;
  chk_arg = argc == 5 ? argv[4] : NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sp_test_set_rank(rank);
  sp_test_on_failure(abort_all);
  sp_test_case_run(c);
  MPI_Finalize();
  printf("rank %d: ok, exited normally\n", rank);
  return 0;
}
