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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
  for (int i = 0; i < END_THREADS; i++) ASSERT_EQ(pthread_create(&th[i], NULL, end_thread, NULL), 0);
  for (int i = 0; i < END_THREADS; i++) ASSERT_EQ(pthread_join(th[i], NULL), 0);
  ASSERT_EQ(sp_finalize(), 0);
  char regions[16], calls[16];
  snprintf(regions, sizeof regions, "%d", END_NAMES);
  snprintf(calls, sizeof calls, "%d", END_THREADS * END_NAMES * END_ROUNDS);
  ASSERT_EQ(check("out.h5", "--regions", regions, "--calls", calls, NULL), 0);
}

/* The file loses its end after the layout was written (a file system that
 * drops a write, another process truncating it): the raw data's writer
 * (the only O_WRONLY descriptor on the file; HDF5 opens O_RDWR) cuts the
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
  sp_test_expect_msg(err, "the profile for 'out.h5' came out unreadable", 1);
  free(err);
  /* The events are in the spill file; merge rebuilds them. */
  ASSERT_EQ(dir_entries("out.h5.spill"), 1);
  char *argv[] = {(char *)merge_exe, "-o", "merged.h5", "out.h5.spill", NULL};
  ASSERT_EQ(run(argv), 0);
  ASSERT_EQ(check("merged.h5", "--regions", "1", "--calls", "1000", NULL), 0);
}

static const sp_test_case cases[] = {
    SP_TEST_CASE(end_regions_2000),
    SP_TEST_CASE(end_regions_100000),
    SP_TEST_CASE(end_threads),
    SP_TEST_CASE(end_cut_before_publish),
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
