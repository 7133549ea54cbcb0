/* test_disk.c - a full disk and a read-only output directory, with real
 * failing write(2) calls: test_disk CASE MERGE_EXE.
 *
 * Where the process may mount (root, CAP_SYS_ADMIN), it enters a private
 * mount namespace and mounts a 1 MiB tmpfs at ./mnt.CASE (a read-only one
 * for the read-only cases); the mount disappears with the process. Where
 * mount is refused, or with SP_REL_FORCE_RLIMIT=1, the disk-full cases use
 * RLIMIT_FSIZE with SIGXFSZ ignored instead: writes past the limit fail
 * with EFBIG. The read-only cases need a read-only mount as root (root
 * ignores permission bits) and are skipped (exit 77) without one.
 *
 * Every profile a case writes or recovers is then checked by
 * tests/common/check_profile.py (h5py, a reader independent of ours) when
 * PYTHON and CHECKER are given: test_disk CASE MERGE_EXE [PYTHON CHECKER]. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "disk_fill.h"
#include "sp_test_cases.h"
#include "sp_test_util.h"
#include "scope_profiler.h"

enum { MODE_TMPFS, MODE_RLIMIT };

static const char *merge_exe, *python, *checker;

/* Removes a directory of plain files (spill directories) and the directory. */
static void rm_dir_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char p[1024];
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') {
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      unlink(p);
    }
  closedir(d);
  rmdir(dir);
}

/* A private mount namespace and a tmpfs at sp_disk_mnt; 0 on success. */
static int mount_tmpfs(const char *name, unsigned long flags) {
  snprintf(sp_disk_mnt, sizeof sp_disk_mnt, "mnt.%s", name);
  mkdir(sp_disk_mnt, 0755);
  const char *force = getenv("SP_REL_FORCE_RLIMIT");
  if (force && strcmp(force, "1") == 0) return -1;
  if (unshare(CLONE_NEWNS) != 0) return -1;
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return -1;
  if (mount("tmpfs", sp_disk_mnt, "tmpfs", flags, "size=1m") != 0) return -1;
  return 0;
}

static int choose_mode(const char *name) {
  if (mount_tmpfs(name, 0) == 0) {
    printf("disk: a 1 MiB tmpfs at %s\n", sp_disk_mnt);
    return MODE_TMPFS;
  }
  printf("disk: no tmpfs (%s); RLIMIT_FSIZE with SIGXFSZ ignored instead\n", strerror(errno));
  signal(SIGXFSZ, SIG_IGN);
  return MODE_RLIMIT;
}

static void fsize_limit(rlim_t bytes) {
  struct rlimit rl;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &rl), 0);
  rl.rlim_cur = bytes == RLIM_INFINITY ? rl.rlim_max : bytes;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

static int merge(const char *out, const char *spill_dir) {
  unlink(out);
  char *argv[] = {(char *)merge_exe, "-o", (char *)out, (char *)spill_dir, NULL};
  return sp_disk_run(argv);
}

/* N from "N event(s) could not be recorded" in text, 0 without it. */
static long long events_lost(const char *text) {
  const char *p = strstr(text, " event(s) could not be recorded");
  if (!p) return 0;
  while (p > text && p[-1] >= '0' && p[-1] <= '9') p--;
  return atoll(p);
}

static void setup(const char *file, long long limit) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = file;
  c.buffer_limit = limit;
  unlink(file);
  ASSERT_EQ(sp_setup(&c), 0);
}

/* TAG.h5 must hold `calls` calls of region and nothing else. */
static void expect_one(const char *tag, const char *region, long long calls) {
  const char *n[] = {region};
  long long k[] = {calls};
  sp_test_expect_write_table(tag, 0, n, k, 1);
  if (!python) return;
  char file[300];
  snprintf(file, sizeof file, "%s.h5", tag);
  char *argv[] = {(char *)python, (char *)checker, file, "--expect", (char *)tag, NULL};
  ASSERT_EQ(sp_disk_run(argv), 0);
}

/* Spill writes fail in the middle of a run (the spill directory is on the
 * full filesystem; the profile goes elsewhere), and space comes back
 * later. The host loop must finish, the failure be reported once, the lost
 * events counted, and the spill file stay valid: scope-profiler-merge
 * rebuilds every event written before and after the failures. */
static void spill_full(const char *tag, int async) {
  const long long n = 100000, limit = 1000;
  int mode = choose_mode(tag);
  char spill[512], file[512], recovered[300], rtag[256];
  snprintf(spill, sizeof spill, mode == MODE_TMPFS ? "%s/spill" : "%s.spill",
           mode == MODE_TMPFS ? sp_disk_mnt : tag);
  snprintf(file, sizeof file, "%s.h5", tag);
  snprintf(rtag, sizeof rtag, "%s_recovered", tag);
  snprintf(recovered, sizeof recovered, "%s.h5", rtag);
  rm_dir_files(spill);
  setenv("SCOPE_PROFILER_SPILL_DIR", spill, 1);
  setenv("SCOPE_PROFILER_ASYNC_FLUSH", async ? "1" : "0", 1);
  if (mode == MODE_TMPFS)
    sp_disk_fill_leaving(256 << 10);
  else
    fsize_limit(256 << 10);
  setup(file, limit);
  int h = sp_region("r");
  sp_test_stderr_begin();
  volatile double work = 0;
  for (long long i = 0; i < n; i++) {
    if (i == 70000) { /* space comes back: later flushes must succeed */
      if (mode == MODE_TMPFS)
        sp_disk_unfill();
      else
        fsize_limit(RLIM_INFINITY);
    }
    sp_start(h);
    work += 1.0;
    sp_stop(h);
  }
  ASSERT_EQ((long long)work, n); /* the host program went on */
  if (!async) {
    /* What is on disk now: every flushed record not lost. */
    ASSERT_EQ(merge(recovered, spill), 0);
  }
  int rc = sp_finalize();
  char *err = sp_test_stderr_end();
  ASSERT_EQ(rc, SP_ELOST); /* the profile is written, but it lacks events */
  sp_test_expect_msg(err, "cannot write spill file in '", 1);
  sp_test_expect_msg(err, "what is on disk stays valid", 1);
  long long lost = events_lost(err);
  printf("%s: %lld of %lld events lost while the disk was full\n", tag, lost, n);
  ASSERT(lost > 0 && lost % limit == 0 && lost < 69000);
  /* The count in the message is exact: h5py finds n - lost calls. */
  expect_one(tag, "r", n - lost);
  /* The merge ran before finalize: the last full buffer was in memory. */
  if (!async) expect_one(rtag, "r", n - limit - lost);
  free(err);
}

/* Finalize cannot write the profile: it returns an error, keeps the spill
 * files (with what was in memory when there is room for it), and the
 * merge rebuilds the profile once space exists. */
static void finalize_full(const char *tag) {
  const long long n = 20000, limit = 1000;
  int mode = choose_mode(tag);
  char dir[256], file[300], spill[320], recovered[300], rtag[256];
  if (mode == MODE_TMPFS)
    snprintf(dir, sizeof dir, "%s", sp_disk_mnt);
  else
    snprintf(dir, sizeof dir, "%s.d", tag);
  mkdir(dir, 0755);
  snprintf(file, sizeof file, "%s/out.h5", dir);
  snprintf(spill, sizeof spill, "%s.spill", file);
  snprintf(rtag, sizeof rtag, "%s_recovered", tag);
  snprintf(recovered, sizeof recovered, "%s.h5", rtag);
  rm_dir_files(spill);
  unsetenv("SCOPE_PROFILER_SPILL_DIR");
  setenv("SCOPE_PROFILER_ASYNC_FLUSH", "0", 1);
  setup(file, limit);
  int h = sp_region("r");
  for (long long i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
  /* tmpfs: 64 KiB left, too little for the profile (320 KB of stamps) but
   * room for the 16 KB still in memory. RLIMIT_FSIZE limits each file, so
   * with it neither the profile nor the spill append fits. */
  if (mode == MODE_TMPFS)
    sp_disk_fill_leaving(64 << 10);
  else
    fsize_limit(32 << 10);
  sp_test_stderr_begin();
  int rc = sp_finalize();
  char *err = sp_test_stderr_end();
  printf("%s: sp_finalize returned %d (%s)\n", tag, rc, sp_err_name(rc));
  ASSERT(rc < 0);
  sp_test_expect_msg(err, "scope-profiler: error: could not write '", 1);
  sp_test_expect_msg(err, "scope-profiler: error: spill file: ", 1);
  ASSERT(!sp_test_file_exists(file));
  ASSERT_EQ(sp_test_partial_count(file), 0);
  if (mode == MODE_TMPFS)
    sp_disk_unfill();
  else
    fsize_limit(RLIM_INFINITY);
  ASSERT_EQ(merge(recovered, spill), 0);
  /* tmpfs: everything kept, nothing said lost; RLIMIT_FSIZE: the events
   * that were in memory are lost, and the message gives their number. */
  const long long kept = mode == MODE_TMPFS ? n : n - limit;
  ASSERT_EQ(events_lost(err), n - kept);
  expect_one(rtag, "r", kept);
  free(err);
}

/* The disk fills between finalize's space check and HDF5's writes (another
 * job takes it): finalize must fail cleanly (a status, no crash at exit:
 * HDF5 1.10 crashed in its cleanup after a failed write), keep the old
 * profile at the final path untouched and the spill files, from which the
 * merge rebuilds every event. The process must then exit normally. */
static void layout_disk_taken(const char *tag) {
  snprintf(sp_disk_mnt, sizeof sp_disk_mnt, "mnt.%s", tag);
  mkdir(sp_disk_mnt, 0755);
  if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
      mount("tmpfs", sp_disk_mnt, "tmpfs", 0, "size=8m") != 0) {
    printf("skipped: no tmpfs (%s)\n", strerror(errno));
    exit(SP_TEST_SKIP);
  }
  const long long nold = 7, n = 100, regions = 60;
  char file[300], spill[300], recovered[300], rtag[256], otag[256];
  snprintf(file, sizeof file, "%s/out.h5", sp_disk_mnt);
  snprintf(spill, sizeof spill, "%s.spill", tag);
  snprintf(rtag, sizeof rtag, "%s_recovered", tag);
  snprintf(recovered, sizeof recovered, "%s.h5", rtag);
  snprintf(otag, sizeof otag, "%s_old", tag);
  rm_dir_files(spill);
  setenv("SCOPE_PROFILER_SPILL_DIR", spill, 1);
  setenv("SCOPE_PROFILER_ASYNC_FLUSH", "0", 1);
  /* The old profile, written while there is room. */
  setup(file, 1000);
  int h = sp_region("old");
  for (long long i = 0; i < nold; i++) {
    sp_start(h);
    sp_stop(h);
  }
  ASSERT_EQ(sp_finalize(), 0);
  rm_dir_files(spill);
  /* The new run: 60 regions of 100 calls, 10 of them flushed per region. */
  sp_config c;
  sp_config_init(&c);
  c.file_path = file;
  c.buffer_limit = 550;
  ASSERT_EQ(sp_setup(&c), 0);
  char name[32];
  const char *names[64];
  long long calls[64];
  static char keep[64][32];
  for (long long r = 0; r < regions; r++) {
    snprintf(name, sizeof name, "r%02lld", r);
    snprintf(keep[r], sizeof keep[r], "%s", name);
    names[r] = keep[r];
    calls[r] = n;
    for (long long i = 0; i < n; i++) {
      sp_start_name(name);
      sp_stop_name(name);
    }
  }
  sp_disk_taken_suffix = "out.h5.partial.";
  sp_disk_taken_leave = 16 << 10; /* HDF5's superblock fits, the layout does not */
  sp_test_stderr_begin();
  int rc = sp_finalize();
  char *err = sp_test_stderr_end();
  fputs(err, stdout);
  printf("%s: sp_finalize returned %d (%s)\n", tag, rc, sp_err_name(rc));
  ASSERT_EQ(sp_disk_taken_done, 1);
  ASSERT(rc < 0);
  sp_test_expect_msg(err, "scope-profiler: error: could not write '", 1);
  sp_test_expect_msg(err, "scope-profiler: error: spill file: ", 1);
  free(err);
  sp_disk_unfill();
  /* The old profile is still there, as it was. */
  char moved[300];
  snprintf(moved, sizeof moved, "%s.h5", otag);
  {
    char *argv[] = {"/bin/cp", file, moved, NULL};
    ASSERT_EQ(sp_disk_run(argv), 0);
  }
  expect_one(otag, "old", nold);
  /* Every event of the new run is in its spill files. */
  ASSERT_EQ(merge(recovered, spill), 0);
  sp_test_expect_write_table(rtag, 0, names, calls, (int)regions);
  if (python) {
    char *argv[] = {(char *)python, (char *)checker, recovered, "--expect", rtag, NULL};
    ASSERT_EQ(sp_disk_run(argv), 0);
  }
}

/* A profile larger than RLIMIT_FSIZE (ulimit -f), with SIGXFSZ at its
 * default action (end the process), as in a job script: finalize must
 * refuse it before any write past the limit (the space check's
 * posix_fallocate raised SIGXFSZ and ended the host program), keep the old
 * profile and the spill files, and the program must go on. */
static void fsize_below_profile(const char *tag) {
  const long long nold = 3, n = 100, regions = 60;
  char dir[256], file[300], spill[300], recovered[300], rtag[256], otag[256], old_copy[300];
  snprintf(dir, sizeof dir, "%s.d", tag);
  mkdir(dir, 0755);
  snprintf(file, sizeof file, "%s/out.h5", dir);
  snprintf(spill, sizeof spill, "%s.spill", tag);
  snprintf(rtag, sizeof rtag, "%s_recovered", tag);
  snprintf(recovered, sizeof recovered, "%s.h5", rtag);
  snprintf(otag, sizeof otag, "%s_old", tag);
  snprintf(old_copy, sizeof old_copy, "%s.h5", otag);
  rm_dir_files(spill);
  setenv("SCOPE_PROFILER_SPILL_DIR", spill, 1);
  setenv("SCOPE_PROFILER_ASYNC_FLUSH", "0", 1);
  signal(SIGXFSZ, SIG_DFL);
  setup(file, 1000);
  int h = sp_region("old");
  for (long long i = 0; i < nold; i++) {
    sp_start(h);
    sp_stop(h);
  }
  ASSERT_EQ(sp_finalize(), 0);
  rm_dir_files(spill);
  sp_config c;
  sp_config_init(&c);
  c.file_path = file;
  c.buffer_limit = 550;
  ASSERT_EQ(sp_setup(&c), 0);
  static char keep[64][32];
  const char *names[64];
  long long calls[64];
  for (long long r = 0; r < regions; r++) {
    snprintf(keep[r], sizeof keep[r], "r%02lld", r);
    names[r] = keep[r];
    calls[r] = n;
    for (long long i = 0; i < n; i++) {
      sp_start_name(keep[r]);
      sp_stop_name(keep[r]);
    }
  }
  fsize_limit(512 << 10); /* the spills fit, the profile (~1.4 MB) does not */
  sp_test_stderr_begin();
  int rc = sp_finalize();
  char *err = sp_test_stderr_end();
  fsize_limit(RLIM_INFINITY);
  fputs(err, stdout);
  printf("%s: sp_finalize returned %d (%s); the program goes on\n", tag, rc, sp_err_name(rc));
  ASSERT(rc < 0);
  sp_test_expect_msg(err, "more than the file size limit (ulimit -f)", 1);
  sp_test_expect_msg(err, "scope-profiler: error: spill file: ", 1);
  free(err);
  char *cp[] = {"/bin/cp", file, old_copy, NULL};
  ASSERT_EQ(sp_disk_run(cp), 0);
  expect_one(otag, "old", nold);
  ASSERT_EQ(merge(recovered, spill), 0);
  sp_test_expect_write_table(rtag, 0, names, calls, (int)regions);
  if (python) {
    char *argv[] = {(char *)python, (char *)checker, recovered, "--expect", rtag, NULL};
    ASSERT_EQ(sp_disk_run(argv), 0);
  }
}

/* The output directory is on a read-only filesystem: sp_setup says so at
 * once (SP_EPATH), the run goes on, sp_finalize fails. With the spill
 * directory elsewhere, every event is recovered. */
static void readonly_dir(const char *tag, int spill_elsewhere) {
  snprintf(sp_disk_mnt, sizeof sp_disk_mnt, "mnt.%s", tag);
  const char *force = getenv("SP_REL_FORCE_RLIMIT");
  int ro = 0;
  if (!(force && strcmp(force, "1") == 0)) ro = mount_tmpfs(tag, MS_RDONLY) == 0;
  if (!ro) {
    if (geteuid() == 0) {
      printf("skipped: no read-only mount possible, and permission bits do not stop root\n");
      exit(SP_TEST_SKIP);
    }
    ASSERT_EQ(chmod(sp_disk_mnt, 0555), 0);
  }
  const long long n = 5000, limit = 1000;
  char file[512], spill[512], recovered[300], rtag[256];
  snprintf(file, sizeof file, "%s/out.h5", sp_disk_mnt);
  snprintf(spill, sizeof spill, "%s.spill", tag);
  snprintf(rtag, sizeof rtag, "%s_recovered", tag);
  snprintf(recovered, sizeof recovered, "%s.h5", rtag);
  if (spill_elsewhere) {
    setenv("SCOPE_PROFILER_SPILL_DIR", spill, 1);
  } else {
    /* The default <file>.spill is on the read-only filesystem too: the
     * library falls back to $TMPDIR/<name>.<pid>.spill and says so. */
    char tmpdir[300];
    snprintf(tmpdir, sizeof tmpdir, "%s.tmpdir", tag);
    mkdir(tmpdir, 0755);
    setenv("TMPDIR", tmpdir, 1);
    snprintf(spill, sizeof spill, "%s/out.h5.%ld.spill", tmpdir, (long)getpid());
  }
  rm_dir_files(spill);
  setenv("SCOPE_PROFILER_ASYNC_FLUSH", "0", 1);
  sp_config c;
  sp_config_init(&c);
  c.file_path = file;
  c.buffer_limit = limit;
  sp_test_stderr_begin();
  int rc = sp_setup(&c);
  char *err = sp_test_stderr_end();
  ASSERT_EQ(rc, SP_EPATH);
  sp_test_expect_msg(err, "is not writable", 1);
  if (!spill_elsewhere) sp_test_expect_msg(err, ".tmpdir/out.h5.", 1); /* says where */
  free(err);
  ASSERT_EQ(sp_is_active(), 1); /* profiling goes on */
  int h = sp_region("r");
  sp_test_stderr_begin();
  for (long long i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
  rc = sp_finalize();
  err = sp_test_stderr_end();
  ASSERT(rc < 0);
  sp_test_expect_msg(err, "scope-profiler: error: could not write '", 1);
  /* Either way every event is kept and recovered. */
  sp_test_expect_msg(err, "Recorded events are kept in the spill directory", 1);
  ASSERT_EQ(merge(recovered, spill), 0);
  expect_one(rtag, "r", n);
  free(err);
}

static void case_spill_full(void) { spill_full("spill_full", 0); }
static void case_spill_full_async(void) { spill_full("spill_full_async", 1); }
static void case_readonly_dir(void) { readonly_dir("readonly_dir", 0); }
static void case_readonly_dir_spill_elsewhere(void) {
  readonly_dir("readonly_dir_spill_elsewhere", 1);
}

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {
      SP_TEST_CASE(spill_full),
      SP_TEST_CASE(spill_full_async),
      SP_TEST_CASE_NAMED(finalize_full, finalize_full),
      SP_TEST_CASE_NAMED(layout_disk_taken, layout_disk_taken),
      SP_TEST_CASE_NAMED(fsize_below_profile, fsize_below_profile),
      SP_TEST_CASE(readonly_dir),
      SP_TEST_CASE(readonly_dir_spill_elsewhere),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  if (argc != 3 && argc != 5) {
    fprintf(stderr, "usage: test_disk CASE MERGE_EXE [PYTHON CHECKER]\n");
    return 2;
  }
  merge_exe = argv[2];
  if (argc == 5) {
    python = argv[3];
    checker = argv[4];
  }
  sp_test_case_run(c);
  printf("%s: ok, the program went on\n", c->name);
  return 0;
}
