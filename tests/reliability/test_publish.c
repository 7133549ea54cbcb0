/* test_publish.c - a status of 0 means the data is at the path, and no
 * file we did not create is destroyed (issue 36, "Silent loss and
 * destruction"): test_publish CASE PYTHON CHECKER MERGE_EXE.
 *
 * Every profile a case writes is checked with CHECKER
 * (check_publish.py, h5py: a reader that refuses a file shorter than
 * HDF5's stored end of allocation). Cases run in their own directory
 * (pub.CASE under the working directory), made fresh. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sp_test_cases.h"
#include "sp_test_util.h"
#include "scope_profiler.h"

static const char *python, *checker, *merge_exe;

/* Runs argv, returns its exit code (-1 when it did not exit). */
static int run(char *const argv[]) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    execv(argv[0], argv);
    _exit(127);
  }
  int st;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* check_publish.py FILE and the options given (NULL-terminated). */
static int check(const char *file, ...) {
  char *argv[32] = {(char *)python, (char *)checker, (char *)file};
  int n = 3;
  va_list ap;
  va_start(ap, file);
  const char *a;
  while ((a = va_arg(ap, const char *)) && n < 31) argv[n++] = (char *)a;
  va_end(ap);
  argv[n] = NULL;
  return run(argv);
}

static void setup_at(const char *path) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  ASSERT_EQ(sp_setup(&c), 0);
}

/* Number of entries of dir other than . and .. (-1: no such directory). */
static int dir_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

/* ---- 1. a file HDF5 cannot open, reported as written ------------------ */

/* n distinct regions with one call each (the 100,000; 2000 failed
 * the same way): HDF5 1.10 writes the "regions" group's dense link
 * storage during H5Fclose, past the end of allocation read before it. */
static void many_regions(const char *prefix, int n) {
  setup_at("out.h5");
  char name[32];
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof name, "%s%d", prefix, i);
    int h = sp_region(name);
    sp_start(h);
    sp_stop(h);
  }
  ASSERT_EQ(sp_finalize(), 0);
  char want[32];
  snprintf(want, sizeof want, "%d", n);
  /* Every region is listed; every 100th read (h5py takes 20 s for all). */
  ASSERT_EQ(check("out.h5", "--regions", want, "--every", "100", "--calls-each", "1", NULL), 0);
}

static void case_end_regions_2000(void) { many_regions("r", 2000); }
static void case_end_regions_100000(void) { many_regions("region_", 100000); }

enum { END_THREADS = 5, END_NAMES = 964, END_ROUNDS = 2 };

static void *end_thread(void *arg) {
  (void)arg;
  char name[32];
  for (int r = 0; r < END_ROUNDS; r++)
    for (int i = 0; i < END_NAMES; i++) {
      snprintf(name, sizeof name, "r%d", i);
      sp_start_name(name);
      sp_stop_name(name);
    }
  return NULL;
}

/* Threads recording the same names by name. */
static void case_end_threads(void) {
  setup_at("out.h5");
  pthread_t th[END_THREADS];
  for (int i = 0; i < END_THREADS; i++)
    ASSERT_EQ(pthread_create(&th[i], NULL, end_thread, NULL), 0);
  for (int i = 0; i < END_THREADS; i++) ASSERT_EQ(pthread_join(th[i], NULL), 0);
  ASSERT_EQ(sp_finalize(), 0);
  char regions[16], calls[16];
  snprintf(regions, sizeof regions, "%d", END_NAMES);
  snprintf(calls, sizeof calls, "%d", END_THREADS * END_NAMES * END_ROUNDS);
  ASSERT_EQ(check("out.h5", "--regions", regions, "--calls", calls, NULL), 0);
}

/* The file loses its end after the layout was written (a file system that
 * drops a write, another process truncating it): the raw data's writer
 * (the only O_WRONLY descriptor on the file; HDF5 and the copy of the
 * layout, layout_mem.c, open it O_RDWR) cuts the
 * file at the start of its first write. Finalize must see that HDF5 can
 * no longer open the file, not publish it, and keep the spill file. */
static int cut_armed;

__attribute__((visibility("default"))) ssize_t pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
  ssize_t w = (ssize_t)syscall(SYS_pwrite64, fd, buf, n, off);
  int fl = fcntl(fd, F_GETFL);
  if (cut_armed && w > 0 && fl >= 0 && (fl & O_ACCMODE) == O_WRONLY) {
    char link[64], target[1024];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t k = readlink(link, target, sizeof target - 1);
    if (k > 0) {
      target[k] = '\0';
      if (strstr(target, ".partial.")) {
        cut_armed = 0;
        int err = errno;
        if (ftruncate(fd, off) != 0) abort();
        errno = err;
      }
    }
  }
  return w;
}

static void case_end_cut_before_publish(void) {
  setup_at("out.h5");
  for (int i = 0; i < 1000; i++) {
    sp_start_name("work");
    sp_stop_name("work");
  }
  cut_armed = 1;
  sp_test_stderr_begin();
  int rc = sp_finalize();
  char *err = sp_test_stderr_end();
  ASSERT(cut_armed == 0); /* the raw data was written through the shim */
  ASSERT_EQ(rc, SP_EHDF5);
  ASSERT(!sp_test_file_exists("out.h5"));
  ASSERT_EQ(sp_test_partial_count("out.h5"), 0);
  sp_test_expect_msg(err, "/pub.end_cut_before_publish/out.h5' came out unreadable", 1);
  free(err);
  /* The events are in the spill file; merge rebuilds them. */
  ASSERT_EQ(dir_entries("out.h5.spill"), 1);
  char *argv[] = {(char *)merge_exe, "-o", "merged.h5", "out.h5.spill", NULL};
  ASSERT_EQ(run(argv), 0);
  ASSERT_EQ(check("merged.h5", "--regions", "1", "--calls", "1000", NULL), 0);
}

/* ---- 2. a FIFO or device at file_path ---------------------------------- */

/* n calls of "work", on this thread. */
static void record(int n) {
  for (int i = 0; i < n; i++) {
    sp_start_name("work");
    sp_stop_name("work");
  }
}

/* The spill directory of a process that recorded n calls into file and
 * ended without sp_finalize (for the merge cases). */
static void make_spill(const char *file, int n) {
  fflush(stdout);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    setup_at(file);
    record(n);
    exit(0); /* the exit flush writes the spill file */
  }
  int st;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* A private mount namespace with a tmpfs over /dev holding only a null
 * device of our own: a test that fails can replace nothing but that (a
 * library that renames over the real /dev/null, as root, would break the
 * machine). Exits 77 (skipped) where mounting is refused. */
static void private_dev_null(void) {
  if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
      mount("tmpfs", "/dev", "tmpfs", 0, "size=1m") != 0 ||
      mknod("/dev/null", S_IFCHR | 0666, makedev(1, 3)) != 0) {
    printf("skipped: no private /dev (%s)\n", strerror(errno));
    exit(SP_TEST_SKIP);
  }
}

static ino_t ino_of(const char *path, mode_t type) {
  struct stat sb;
  ASSERT_EQ(lstat(path, &sb), 0);
  ASSERT_EQ(sb.st_mode & S_IFMT, type);
  return sb.st_ino;
}

/* SCOPE_PROFILER_FILE=/dev/null discards the profile: sp_finalize returns
 * 0, /dev/null is still the same device, and nothing is left behind (no
 * /dev/null.spill, no partial file in /dev, no spill files in $TMPDIR). */
static void case_devnull_env(void) {
  private_dev_null();
  ino_t before = ino_of("/dev/null", S_IFCHR);
  ASSERT_EQ(mkdir("tmp", 0755), 0);
  setenv("TMPDIR", "tmp", 1);
  setenv("SCOPE_PROFILER_FILE", "/dev/null", 1);
  sp_config c;
  sp_config_init(&c);
  c.buffer_limit = 100; /* spill files are written, and must go */
  sp_test_stderr_begin();
  ASSERT_EQ(sp_setup(&c), 0);
  record(1000);
  ASSERT_EQ(sp_finalize(), 0);
  char *err = sp_test_stderr_end();
  ASSERT_EQ(sp_test_count(err, "scope-profiler:"), 0);
  free(err);
  ASSERT_EQ(ino_of("/dev/null", S_IFCHR), before);
  ASSERT_EQ(dir_entries("/dev"), 1);
  ASSERT_EQ(dir_entries("tmp"), 0);
}

/* The same when the program ends without sp_finalize: no spill file is
 * kept and no merge is suggested for a profile that was to be discarded. */
static void case_devnull_exit(void) {
  private_dev_null();
  ino_t before = ino_of("/dev/null", S_IFCHR);
  ASSERT_EQ(mkdir("tmp", 0755), 0);
  setenv("TMPDIR", "tmp", 1);
  fflush(stdout);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    sp_config c;
    sp_config_init(&c);
    c.file_path = "/dev/null";
    c.buffer_limit = 100;
    ASSERT_EQ(sp_setup(&c), 0);
    record(1000);
    exit(0);
  }
  int st;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  ASSERT_EQ(ino_of("/dev/null", S_IFCHR), before);
  ASSERT_EQ(dir_entries("/dev"), 1);
  ASSERT_EQ(dir_entries("tmp"), 0);
}

/* A FIFO (or a device) at file_path: said at sp_setup (SP_EPATH, the run
 * goes on into its spill files), refused at sp_finalize, left as it was;
 * the events are kept for merge. made: 0 before sp_setup, 1 after it. */
static void not_regular(mode_t type, int made) {
  const char *file = "out.h5";
  if (!made) {
    if (mknod(file, type | 0644, type == S_IFCHR ? makedev(1, 5) : 0) != 0) {
      printf("skipped: mknod: %s\n", strerror(errno));
      exit(SP_TEST_SKIP);
    }
  }
  sp_config c;
  sp_config_init(&c);
  c.file_path = file;
  sp_test_stderr_begin();
  int rc = sp_setup(&c);
  if (made) ASSERT_EQ(mknod(file, type | 0644, 0), 0);
  ino_t before = ino_of(file, type);
  record(1000);
  int frc = sp_finalize();
  char *err = sp_test_stderr_end();
  ASSERT_EQ(rc, made ? 0 : SP_EPATH);
  ASSERT_EQ(frc, SP_EPATH);
  const char *kind = type == S_IFIFO ? "is a FIFO (named pipe), not a regular file"
                                     : "is a character device, not a regular file";
  sp_test_expect_msg(err, kind, made ? 1 : 2);
  free(err);
  ASSERT_EQ(ino_of(file, type), before);
  ASSERT_EQ(sp_test_partial_count(file), 0);
  ASSERT_EQ(dir_entries("out.h5.spill"), 1);
  char *argv[] = {(char *)merge_exe, "-o", "merged.h5", "out.h5.spill", NULL};
  ASSERT_EQ(run(argv), 0);
  ASSERT_EQ(check("merged.h5", "--regions", "1", "--calls", "1000", NULL), 0);
}

static void case_fifo_at_setup(void) { not_regular(S_IFIFO, 0); }
static void case_fifo_after_setup(void) { not_regular(S_IFIFO, 1); }
static void case_device_at_setup(void) { not_regular(S_IFCHR, 0); }

/* merge -f never replaces a FIFO or a device (exit 2, left as it was). */
static void case_merge_force_fifo(void) {
  make_spill("src.h5", 100);
  ASSERT_EQ(mkfifo("out.h5", 0644), 0);
  ino_t before = ino_of("out.h5", S_IFIFO);
  char *argv[] = {(char *)merge_exe, "-f", "-o", "out.h5", "src.h5.spill", NULL};
  ASSERT_EQ(run(argv), 2);
  ASSERT_EQ(ino_of("out.h5", S_IFIFO), before);
  ASSERT_EQ(sp_test_partial_count("out.h5"), 0);
}

/* ---- 5. a stale spill file with this process's name ------------------- */

/* A spill file named as this process's would be (<host>.<pid>.spill: pids
 * repeat in containers) is left by an old run: the run must pick another
 * name, lose nothing, and never touch the old file. */
static void case_stale_spill(void) {
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  char stale[512];
  ASSERT_EQ(mkdir("out.h5.spill", 0755), 0);
  snprintf(stale, sizeof stale, "out.h5.spill/%s.%ld.spill", host, (long)getpid());
  static const char old[] = "an old run's spill file, not ours\n";
  FILE *f = fopen(stale, "w");
  ASSERT(f != NULL);
  fputs(old, f);
  fclose(f);
  ino_t before = ino_of(stale, S_IFREG);
  sp_config c;
  sp_config_init(&c);
  c.file_path = "out.h5";
  c.buffer_limit = 1000;
  ASSERT_EQ(sp_setup(&c), 0);
  record(200000);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT_EQ(check("out.h5", "--regions", "1", "--calls", "200000", NULL), 0);
  ASSERT_EQ(ino_of(stale, S_IFREG), before);
  char text[128] = "";
  f = fopen(stale, "r");
  ASSERT(f != NULL);
  ASSERT(fgets(text, sizeof text, f) != NULL);
  fclose(f);
  ASSERT(strcmp(text, old) == 0);
  ASSERT_EQ(dir_entries("out.h5.spill"), 1); /* ours is removed, the old one kept */
}

/* ---- 6. two merges into one path at once ------------------------------- */

/* Starts argv with stderr to errfile; returns its pid. */
static pid_t spawn(char *const argv[], const char *errfile) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 2) < 0) _exit(126);
    execv(argv[0], argv);
    _exit(127);
  }
  return pid;
}

static int wait_exit(pid_t pid) {
  int st;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The side file named in a merge's stderr ("... kept as 'NAME'"), or "". */
static void kept_name(const char *errfile, char *out, size_t cap) {
  out[0] = '\0';
  FILE *f = fopen(errfile, "r");
  ASSERT(f != NULL);
  char text[8192];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  fputs(text, stdout);
  const char *p = strstr(text, "kept as '");
  if (!p) return;
  p += strlen("kept as '");
  const char *e = strchr(p, '\'');
  ASSERT(e != NULL && (size_t)(e - p) < cap);
  snprintf(out, cap, "%.*s", (int)(e - p), p);
}

/* Two merges without -f started together, 6 times: one publishes (exit
 * 0), the other never replaces its file (exit 2) and, when both got past
 * the "exists" check, keeps its complete result under a side name. */
static void case_merge_race(void) {
  make_spill("src.h5", 200000);
  int raced = 0;
  for (int it = 0; it < 6; it++) {
    unlink("out.h5");
    char *argv[] = {(char *)merge_exe, "-o", "out.h5", "src.h5.spill", NULL};
    pid_t a = spawn(argv, "a.err"), b = spawn(argv, "b.err");
    int ra = wait_exit(a), rb = wait_exit(b);
    printf("iteration %d: exit %d and %d\n", it, ra, rb);
    ASSERT((ra == 0 && rb == 2) || (ra == 2 && rb == 0));
    ASSERT_EQ(check("out.h5", "--regions", "1", "--calls", "200000", NULL), 0);
    char side[1024];
    kept_name(ra == 2 ? "a.err" : "b.err", side, sizeof side);
    if (side[0]) {
      raced++;
      ASSERT_EQ(check(side, "--regions", "1", "--calls", "200000", NULL), 0);
      ASSERT_EQ(unlink(side), 0);
    }
    ASSERT_EQ(sp_test_partial_count("out.h5"), 0);
  }
  printf("%d of 6 iterations raced past the exists check\n", raced);
  ASSERT(raced > 0); /* 8 of 10 here: a merge of 200,000 events takes 0.3 s */
}

/* ---- 7. a finalize hook that calls sp_setup ----------------------------- */

static int hook_setup_rc = 1, hook_finalize_rc = 1;

static void hook_resetup(void *arg) {
  (void)arg;
  sp_config c;
  sp_config_init(&c);
  c.file_path = "other.h5";
  hook_setup_rc = sp_setup(&c);
  hook_finalize_rc = sp_finalize();
}

/* The hook's sp_setup (and sp_finalize) are refused with SP_EBUSY and the
 * running finalize writes the profile (it wrote nothing and returned 0). */
static void case_hook_setup(void) {
  setup_at("out.h5");
  record(100);
  ASSERT_EQ(sp_finalize_hook_add(hook_resetup, NULL), 0);
  sp_test_stderr_begin();
  int rc = sp_finalize();
  char *err = sp_test_stderr_end();
  ASSERT_EQ(hook_setup_rc, SP_EBUSY);
  ASSERT_EQ(hook_finalize_rc, SP_EBUSY);
  ASSERT_EQ(rc, 0);
  sp_test_expect_msg(err, "sp_setup called while sp_finalize runs", 1);
  free(err);
  ASSERT_EQ(check("out.h5", "--regions", "1", "--calls", "100", NULL), 0);
  ASSERT(!sp_test_file_exists("other.h5"));
  /* A new session afterwards works as usual (the hook stays: refused again). */
  setup_at("again.h5");
  record(5);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT_EQ(check("again.h5", "--regions", "1", "--calls", "5", NULL), 0);
}

/* ---- 9. region names with NUL bytes ------------------------------------ */

/* Names holding a NUL byte are refused (they collided: @name ends at the
 * NUL, so 7 regions read as 5); a Fortran name's trailing NULs (a C
 * terminator) are trimmed like its blanks. Every other call is in the file. */
static void case_nul_names(void) {
  setup_at("out.h5");
  sp_test_stderr_begin();
  ASSERT_EQ(sp_region_n("a\0b", 3), SP_EINVAL);
  ASSERT_EQ(sp_region_n("a\0c", 3), SP_EINVAL);
  for (int i = 0; i < 4; i++) {
    sp_start_name_n("x\0y", 3);
    sp_stop_name_n("x\0y", 3);
  }
  char *err = sp_test_stderr_end();
  sp_test_expect_msg(err, "region name holds a NUL byte; ignored", 1);
  free(err);
  ASSERT(sp_misuse_count(SP_MISUSE_BAD_NAME) >= 6);
  int a = sp_region("a");
  ASSERT(a >= 0);
  sp_start(a);
  sp_stop(a);
  for (int i = 0; i < 3; i++) {
    sp__start_name_f("work\0  ", 7); /* Fortran: "work"//c_null_char, blank-padded */
    sp__stop_name_f("work\0  ", 7);
  }
  ASSERT_EQ(sp_finalize(), 0);
  /* 61 = 'a', 776f726b = "work": exactly these two. */
  ASSERT_EQ(check("out.h5", "--regions", "2", "--calls", "4", "--region-bytes", "61",
                  "--region-bytes", "776f726b", NULL),
            0);
}

/* ---- 10. chdir() after sp_setup --------------------------------------- */

/* A relative file_path is resolved at sp_setup: the file (and the spill
 * files, written after the chdir) land where the program was at sp_setup,
 * and a rerun replaces the first run's file (it was "written by another
 * run", a side file each time, when the path was resolved at finalize). */
static void case_chdir_after_setup(void) {
  ASSERT_EQ(mkdir("sub", 0755), 0);
  for (int run_no = 0; run_no < 2; run_no++) {
    sp_config c;
    sp_config_init(&c);
    c.file_path = "out.h5";
    c.buffer_limit = 100;
    ASSERT_EQ(sp_setup(&c), 0);
    ASSERT_EQ(chdir("sub"), 0);
    record(1000 + run_no);
    ASSERT_EQ(sp_finalize(), 0);
    ASSERT_EQ(chdir(".."), 0);
    ASSERT_EQ(dir_entries("sub"), 0);
    ASSERT_EQ(dir_entries("."), 2); /* sub and out.h5: no side file, no spill left */
    ASSERT_EQ(check("out.h5", "--regions", "1", "--calls", run_no ? "1001" : "1000", NULL), 0);
  }
}

/* ---- 23. killed between the publish and the spill files' removal ------ */

/* Its rename() stands in for libc's in the library: armed, the process is
 * SIGKILLed right after the profile was renamed into place. */
static int kill_armed;

__attribute__((visibility("default"))) int rename(const char *from, const char *to);
int rename(const char *from, const char *to) {
  int rc = (int)syscall(SYS_rename, from, to);
  if (kill_armed && rc == 0 && strstr(from, ".partial.")) raise(SIGKILL);
  return rc;
}

/* The complete file and the spill directory beside it: the merge into
 * that file failed (exit 4, "exists") and the directory looked like lost
 * data. Now the merge says the events are in the file and returns 0;
 * the file is left as it is. */
static void case_killed_after_publish(void) {
  fflush(NULL);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    sp_config c;
    sp_config_init(&c);
    c.file_path = "out.h5";
    c.buffer_limit = 1000;
    if (sp_setup(&c) != 0) _exit(3);
    record(20000);
    kill_armed = 1;
    sp_finalize();
    _exit(4); /* not killed: the parent's check fails */
  }
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  ASSERT_EQ(check("out.h5", "--regions", "1", "--calls", "20000", NULL), 0);
  ASSERT(dir_entries("out.h5.spill") > 0); /* the kill left them */
  ino_t before = ino_of("out.h5", S_IFREG);
  char *argv[] = {(char *)merge_exe, "-o", "out.h5", "out.h5.spill", NULL};
  ASSERT_EQ(run(argv), 0);
  ASSERT_EQ(ino_of("out.h5", S_IFREG), before);
  ASSERT_EQ(check("out.h5", "--regions", "1", "--calls", "20000", NULL), 0);
  /* Merged elsewhere: the spill files still give what was flushed (the
   * last 1000 calls went from memory into out.h5 only). */
  char *other[] = {(char *)merge_exe, "-o", "again.h5", "out.h5.spill", NULL};
  ASSERT_EQ(run(other), 0);
  ASSERT_EQ(check("again.h5", "--regions", "1", "--calls", "19000", NULL), 0);
}

static const sp_test_case cases[] = {
    SP_TEST_CASE(end_regions_2000),  SP_TEST_CASE(end_regions_100000),
    SP_TEST_CASE(end_threads),       SP_TEST_CASE(end_cut_before_publish),
    SP_TEST_CASE(devnull_env),       SP_TEST_CASE(devnull_exit),
    SP_TEST_CASE(fifo_at_setup),     SP_TEST_CASE(fifo_after_setup),
    SP_TEST_CASE(device_at_setup),   SP_TEST_CASE(merge_force_fifo),
    SP_TEST_CASE(stale_spill),       SP_TEST_CASE(merge_race),
    SP_TEST_CASE(hook_setup),        SP_TEST_CASE(nul_names),
    SP_TEST_CASE(chdir_after_setup), SP_TEST_CASE(killed_after_publish),
};

int main(int argc, char **argv) {
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  if (argc < 5) {
    fprintf(stderr, "usage: %s CASE PYTHON CHECKER MERGE_EXE\n", argv[0]);
    return 2;
  }
  python = argv[2];
  checker = argv[3];
  merge_exe = argv[4];
  /* A fresh directory of the case's own. */
  char dir[256];
  snprintf(dir, sizeof dir, "pub.%s", c->name);
  char *rm[] = {"/bin/rm", "-rf", dir, NULL};
  ASSERT_EQ(run(rm), 0);
  ASSERT_EQ(mkdir(dir, 0755), 0);
  ASSERT_EQ(chdir(dir), 0);
  sp_test_case_run(c);
  printf("%s: ok\n", c->name);
  return 0;
}
