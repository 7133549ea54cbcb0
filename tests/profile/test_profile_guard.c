/* test_profile_guard.c - profile mode's file and spill file under faults,
 * one case per run: test_profile_guard CASE. Serial (no MPI).
 *
 * The cut_* cases: this executable's pwrite() (exported, so the library's
 * and HDF5's calls land here) drops silently, while armed, the writes from
 * offset 2048 on into a temporary profile (".partial.") whose name holds
 * "cut". The aggregate file must then not be published (it would be one
 * HDF5 refuses: "truncated file"), from sp_finalize, sp_report and the
 * merge (sp_spill_merge, what scope-profiler-merge calls) alike, while
 * files with other names are written as usual (ok_*.h5, checked with h5py
 * by check_counts.py afterwards).
 *
 * std_closed: the host closes its stdin and stderr after sp_setup and
 * exits without sp_finalize: the aggregates' spill file, written at exit,
 * must not take descriptor 0, 1 or 2. The executable's write() sees every
 * write of the library and notes one into an .aggspill file on 0-2. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scope_profiler.h"
#include "sp_test_cases.h"
#include "sp_test_util.h"

static int cut_armed;

__attribute__((visibility("default"))) ssize_t pwrite(int fd, const void *buf, size_t n,
                                                      off_t off);
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
  if (cut_armed && off >= 2048) {
    char link[64], target[1024];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t k = readlink(link, target, sizeof target - 1);
    if (k > 0) {
      target[k] = '\0';
      if (strstr(target, ".partial.") && strstr(target, "cut")) return (ssize_t)n; /* lost */
    }
  }
  return (ssize_t)syscall(SYS_pwrite64, fd, buf, n, off);
}

static void setup_agg(const char *path) {
  sp_config c;
  sp_config_init(&c);
  c.aggregate = 1;
  c.time_trace = 0;
  c.file_path = path;
  unlink(path);
  ASSERT_EQ(sp_setup(&c), 0);
}

static void calls(int n) {
  for (int i = 0; i < n; i++) {
    sp_start_name("work");
    sp_start_name("inner");
    sp_stop_name("inner");
    sp_stop_name("work");
  }
}

static void expect_refused(int rc, char *err, const char *path) {
  ASSERT_EQ(rc, SP_EHDF5);
  ASSERT(!sp_test_file_exists(path));
  ASSERT_EQ(sp_test_partial_count(path), 0);
  ASSERT(sp_test_count(err, "came out truncated") + sp_test_count(err, "came out unreadable") == 1);
  ASSERT(strstr(err, path) != NULL);
}

/* sp_finalize: the aggregate file (time_trace = 0) loses its writes. */
static void case_cut_finalize(void) {
  cut_armed = 1;
  system("rm -rf cut_fin.h5.spill"); /* an earlier run's */
  setup_agg("cut_fin.h5");
  calls(1000);
  sp_test_stderr_begin();
  int rc = sp_finalize();
  char *err = sp_test_stderr_end();
  expect_refused(rc, err, "cut_fin.h5");
  /* Nothing lost: the aggregates are saved for scope-profiler-merge
   * (profile.guard.cut_finalize.merged rebuilds them). */
  ASSERT(strstr(err, "sp_finalize could not write the aggregates") != NULL);
  glob_t g;
  ASSERT_EQ(glob("cut_fin.h5.spill/*.aggspill", 0, NULL, &g), 0);
  ASSERT_EQ((int)g.gl_pathc, 1);
  globfree(&g);
  free(err);
  setup_agg("ok_fin.h5"); /* the same session setup with a name the shim leaves alone */
  calls(1000);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT(sp_test_file_exists("ok_fin.h5"));
}

/* sp_report: refused, recording goes on, a later report and finalize work. */
static void case_cut_report(void) {
  cut_armed = 1;
  unlink("cut_rep.h5"); /* a file there would be an earlier run's */
  setup_agg("ok_rep_final.h5");
  calls(500);
  sp_test_stderr_begin();
  int rc = sp_report("cut_rep.h5");
  char *err = sp_test_stderr_end();
  expect_refused(rc, err, "cut_rep.h5");
  free(err);
  calls(500);
  ASSERT_EQ(sp_report("ok_rep_mid.h5"), 0);
  ASSERT_EQ(sp_finalize(), 0);
}

/* The merge of the aggregates saved at exit (sp_spill_merge, in this
 * process so that its writes go through pwrite() above). */
static void case_cut_merge(void) {
  system("rm -rf cut_src.h5.spill");
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) { /* a run that ends without sp_finalize */
    setup_agg("cut_src.h5");
    calls(1000);
    exit(0);
  }
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  unlink("cut_merged.h5");
  unlink("ok_merged.h5");
  const char *in[] = {"cut_src.h5.spill"};
  cut_armed = 1;
  sp_test_stderr_begin();
  int rc = sp_spill_merge(in, 1, "cut_merged.h5");
  char *err = sp_test_stderr_end();
  expect_refused(rc, err, "cut_merged.h5");
  free(err);
  ASSERT_EQ(sp_spill_merge(in, 1, "ok_merged.h5"), 0); /* the spill file is still there */
  ASSERT(sp_test_file_exists("ok_merged.h5"));
}

/* ---- std_closed ------------------------------------------------------- */

static volatile int on_std_fd = -1; /* an .aggspill written through 0-2 */
static int saved_err = -1;

__attribute__((visibility("default"))) ssize_t write(int fd, const void *buf, size_t n);
ssize_t write(int fd, const void *buf, size_t n) {
  if (fd >= 0 && fd <= 2) {
    char link[64], target[1024];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t k = readlink(link, target, sizeof target - 1);
    if (k > 0) {
      target[k] = '\0';
      if (strstr(target, ".aggspill")) on_std_fd = fd;
    }
  }
  return (ssize_t)syscall(SYS_write, fd, buf, n);
}

/* Registered before sp_setup, so it runs after the library's exit flush. */
static void std_closed_at_exit(void) {
  int fd0_closed = fcntl(0, F_GETFD) < 0 && errno == EBADF;
  int fd2_closed = fcntl(2, F_GETFD) < 0 && errno == EBADF;
  dup2(saved_err, 2);
  glob_t g;
  int found = glob("std_closed.h5.spill/*.aggspill", 0, NULL, &g) == 0 && g.gl_pathc == 1;
  if (found) globfree(&g);
  if (on_std_fd >= 0) fprintf(stderr, "FAIL: the aggregates' spill file was descriptor %d\n", on_std_fd);
  if (!found) fprintf(stderr, "FAIL: no .aggspill in std_closed.h5.spill\n");
  if (!fd0_closed || !fd2_closed) fprintf(stderr, "FAIL: descriptor 0 or 2 left open at exit\n");
  _exit(on_std_fd < 0 && found && fd0_closed && fd2_closed ? 0 : 1);
}

static void case_std_closed(void) {
  system("rm -rf std_closed.h5.spill");
  saved_err = fcntl(2, F_DUPFD_CLOEXEC, 10);
  ASSERT(saved_err >= 0);
  ASSERT_EQ(atexit(std_closed_at_exit), 0);
  setup_agg("std_closed.h5");
  close(0); /* a daemon lets go of its stdin and stderr once set up */
  close(2);
  calls(1000);
  exit(0); /* no sp_finalize: the aggregates go to the spill directory */
}

static const sp_test_case cases[] = {
    SP_TEST_CASE(cut_finalize),
    SP_TEST_CASE(cut_report),
    SP_TEST_CASE(cut_merge),
    SP_TEST_CASE(std_closed),
};

int main(int argc, char **argv) {
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  sp_test_case_run(c);
  return 0;
}
