/* test_lifecycle.c - the process around a session: fork(), exit without
 * sp_finalize, a second sp_setup while threads record, the host's errno.
 *
 *   test_lifecycle CASE [VARIANT] [MERGE PYTHON CHECKER]
 *   test_lifecycle run_merge NAME NRANKS CALLS ANYRC MERGE PYTHON CHECKER -- CMD...
 * (PYTHON and CHECKER may be "" when h5py is missing)
 *
 * Every profile a case writes is read again by tests/common/check_profile.py
 * (h5py) when PYTHON and CHECKER are given. Children are waited for with a
 * bound: a hang is a failure, not a stuck test. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sp_test_cases.h"
#include "sp_test_util.h"
#include "scope_profiler.h"

static const char *merge_exe, *python, *checker;

/* ---- helpers ------------------------------------------------------------ */

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

/* Files in dir (-1: no such directory); *mine: those ending in .<pid>.spill. */
static int count_files(const char *dir, pid_t pid, int *mine) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  char suffix[64];
  snprintf(suffix, sizeof suffix, ".%ld.spill", (long)pid);
  int n = 0;
  *mine = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    n++;
    size_t l = strlen(e->d_name), s = strlen(suffix);
    if (l > s && strcmp(e->d_name + l - s, suffix) == 0) (*mine)++;
  }
  closedir(d);
  return n;
}

/* Waits for pid at most `seconds`; kills it and fails after that. Returns
 * the wait status. */
static int wait_bounded(pid_t pid, int seconds) {
  int st = 0;
  for (int i = 0; i < seconds * 100; i++) {
    pid_t r = waitpid(pid, &st, WNOHANG);
    ASSERT(r >= 0);
    if (r == pid) return st;
    struct timespec ten_ms = {0, 10000000};
    nanosleep(&ten_ms, NULL);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  sp_test_fail(__FILE__, __LINE__, "child %ld still running after %d s: it hangs", (long)pid,
               seconds);
}

/* Runs argv (stderr to err_path when given), bounded; returns the wait status. */
static int run(char *const argv[], const char *err_path, int seconds) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    if (err_path) {
      int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || dup2(fd, 2) < 0) _exit(126);
    }
    execvp(argv[0], argv);
    _exit(127);
  }
  return wait_bounded(pid, seconds);
}

static int exited_ok(int st) { return WIFEXITED(st) && WEXITSTATUS(st) == 0; }

/* file must hold exactly the regions and calls given (h5py). */
static void check_file(const char *file, const char *const *names, const long long *calls, int n) {
  ASSERT(sp_test_file_exists(file));
  if (!python) return;
  char tag[512];
  snprintf(tag, sizeof tag, "%s", file);
  char *dot = strrchr(tag, '.');
  ASSERT(dot && strcmp(dot, ".h5") == 0);
  *dot = '\0';
  sp_test_expect_write_table(tag, 0, names, calls, n);
  char *argv[] = {(char *)python, (char *)checker, (char *)file, "--expect", tag, NULL};
  ASSERT(exited_ok(run(argv, NULL, 120)));
}

static void pairs(int h, long long n) {
  for (long long i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
}

static void setup_file(sp_config *c, const char *file, long long limit) {
  sp_config_init(c);
  c->file_path = file;
  c->buffer_limit = limit;
  unlink(file);
  ASSERT_EQ(sp_setup(c), 0);
}

/* N from "N event(s) could not be recorded" in text, 0 without it. */
static long long events_lost(const char *text) {
  const char *p = strstr(text, " event(s) could not be recorded");
  if (!p) return 0;
  while (p > text && p[-1] >= '0' && p[-1] <= '9') p--;
  return atoll(p);
}

/* ---- errno: every public call leaves it as it was ---------------------- */

#define KEEPS_ERRNO(call)                                                     \
  do {                                                                        \
    errno = EDOM;                                                             \
    call;                                                                     \
    if (errno != EDOM) { /* said on stdout too: stderr may be captured */     \
      printf("%s changed errno to %d (%s)\n", #call, errno, strerror(errno)); \
      sp_test_fail(__FILE__, __LINE__, "%s changed errno", #call);            \
    }                                                                         \
  } while (0)

/* A synchronous (or background) flush into a spill directory that cannot
 * exist (/dev/null is not a directory), an unwritable output path, misuse:
 * errno is the host's after each call. */
static void case_errno(int async) {
  const char *file = async ? "errno_async.h5" : "errno_sync.h5";
  const long long n = 1000, limit = 100;
  setenv("SCOPE_PROFILER_SPILL_DIR", "/dev/null/spill", 1);
  setenv("SCOPE_PROFILER_ASYNC_FLUSH", async ? "1" : "0", 1);
  sp_config c;
  setup_file(&c, file, limit);
  int rc = 0, h = -1;
  sp_test_stderr_begin();
  KEEPS_ERRNO(h = sp_region("r"));
  ASSERT(h >= 0);
  for (long long i = 0; i < n; i++) { /* every full buffer fails to spill */
    KEEPS_ERRNO(sp_start(h));
    KEEPS_ERRNO(sp_stop(h));
  }
  KEEPS_ERRNO(sp_start_name("named"));
  KEEPS_ERRNO(sp_stop_name("named"));
  KEEPS_ERRNO(sp_stop(h));        /* without start: a message */
  KEEPS_ERRNO(sp_start(12345));   /* invalid handle: a message */
  KEEPS_ERRNO(sp_start_name("")); /* bad name: a message */
  KEEPS_ERRNO(rc = sp_region_rename(12345, "x"));
  KEEPS_ERRNO(rc = sp_flush_on_signal(-3));
  KEEPS_ERRNO(rc = sp_finalize());
  ASSERT_EQ(rc, SP_ELOST);
  KEEPS_ERRNO(rc = sp_finalize()); /* no session: nothing */
  /* An output directory that cannot exist: SP_EPATH at setup and finalize. */
  c.file_path = "/dev/null/no/such/dir/out.h5";
  KEEPS_ERRNO(rc = sp_setup(&c));
  ASSERT_EQ(rc, SP_EPATH);
  KEEPS_ERRNO(sp_start(sp_region("r")));
  KEEPS_ERRNO(sp_stop(sp_region("r")));
  KEEPS_ERRNO(rc = sp_finalize());
  ASSERT(rc < 0);
  char *err = sp_test_stderr_end();
  sp_test_expect_msg(err, "cannot write spill file in '/dev/null/spill'", 2);
  long long lost = events_lost(err);
  ASSERT(lost > 0 && lost <= n);
  free(err);
  const char *names[] = {"r", "named"};
  long long calls[] = {n - lost, 1};
  check_file(file, names, calls, 2);
  unsetenv("SCOPE_PROFILER_SPILL_DIR");
}

/* ---- sp_setup again while threads record (issue 36 item 17) ------------- */

#define NWORKERS 4
static int stop_workers;         /* atomic */
static long long done[NWORKERS]; /* atomic: pairs recorded so far */
static pthread_barrier_t phase2;

/* Records with the first session's handle until told to stop, then (all
 * workers past the barrier, so no call of the first phase is left) K*(i+1)
 * pairs in the second session, each worker in a region of its own. */
static void *worker(void *arg) {
  long i = (long)arg;
  int h = sp_region("work");
  while (!__atomic_load_n(&stop_workers, __ATOMIC_ACQUIRE)) {
    sp_start(h);
    sp_stop(h);
    __atomic_add_fetch(&done[i], 1, __ATOMIC_RELEASE);
  }
  pthread_barrier_wait(&phase2);
  char name[16];
  snprintf(name, sizeof name, "w%ld", i);
  pairs(sp_region(name), 1000 * (i + 1));
  return NULL;
}

static void *one_pair(void *arg) {
  (void)arg;
  pairs(sp_region("gone"), 10);
  return NULL;
}

/* sp_setup again while 4 threads record in a loop: each leaves its call
 * within microseconds, so the setup is allowed (it was refused with
 * SP_EBUSY while any other thread "had recorded"). The first session is
 * discarded; the workers' later calls with its handle are refused as
 * invalid (counted), and their calls in the second session are all there. */
static void case_resetup_threads(void) {
  sp_config c;
  setup_file(&c, "resetup_threads_first.h5", 1000);
  ASSERT_EQ(pthread_barrier_init(&phase2, NULL, NWORKERS), 0);
  pthread_t tid[NWORKERS];
  for (long i = 0; i < NWORKERS; i++)
    ASSERT_EQ(pthread_create(&tid[i], NULL, worker, (void *)i), 0);
  for (int i = 0; i < NWORKERS; i++)
    while (__atomic_load_n(&done[i], __ATOMIC_ACQUIRE) == 0) sched_yield();
  sp_config c2;
  sp_config_init(&c2);
  c2.file_path = "resetup_threads.h5";
  c2.buffer_limit = 1000;
  unlink(c2.file_path);
  sp_test_stderr_begin();
  ASSERT_EQ(sp_setup(&c2), 0);
  __atomic_store_n(&stop_workers, 1, __ATOMIC_RELEASE);
  for (int i = 0; i < NWORKERS; i++) ASSERT_EQ(pthread_join(tid[i], NULL), 0);
  char *err = sp_test_stderr_end();
  sp_test_expect_msg(err, "previous session's regions are discarded", 1);
  free(err);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT(!sp_test_file_exists("resetup_threads_first.h5"));
  const char *names[] = {"w0", "w1", "w2", "w3"};
  long long calls[] = {1000, 2000, 3000, 4000};
  check_file("resetup_threads.h5", names, calls, 4);
  pthread_barrier_destroy(&phase2);

  /* A thread that recorded and exited does not block a second setup. */
  setup_file(&c, "resetup_threads_gone.h5", 1000);
  pthread_t t;
  ASSERT_EQ(pthread_create(&t, NULL, one_pair, NULL), 0);
  ASSERT_EQ(pthread_join(t, NULL), 0);
  c2.file_path = "resetup_threads_after.h5";
  unlink(c2.file_path);
  ASSERT_EQ(sp_setup(&c2), 0);
  pairs(sp_region("after"), 5);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT(!sp_test_file_exists("resetup_threads_gone.h5"));
  const char *n2[] = {"after"};
  long long k2[] = {5};
  check_file("resetup_threads_after.h5", n2, k2, 1);
}

/* A thread inside a profiler call: its sp_stop without a start reports
 * through the host's log function, which blocks until told. sp_setup
 * again waits for it, then refuses (SP_EBUSY, said), and the session goes
 * on: everything recorded is written. Once the call returned, a setup is
 * allowed. */
static pthread_t blocked_thread;
static int log_blocked, log_release; /* atomic */

static void blocking_log(int level, const char *msg, void *user) {
  (void)level, (void)user;
  if (pthread_equal(pthread_self(), blocked_thread)) {
    __atomic_store_n(&log_blocked, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&log_release, __ATOMIC_ACQUIRE)) sched_yield();
    return;
  }
  fprintf(stderr, "%s\n", msg);
}

static void *stop_unstarted(void *arg) {
  int h = (int)(long)arg;
  pairs(h, 100);
  sp_stop(h); /* no open call: a warning, through blocking_log */
  return NULL;
}

static void case_resetup_inside_call(void) {
  sp_config c;
  setup_file(&c, "resetup_inside_call.h5", 1000);
  int h = sp_region("inside");
  pairs(h, 10);
  sp_log_set(blocking_log, NULL);
  ASSERT_EQ(pthread_create(&blocked_thread, NULL, stop_unstarted, (void *)(long)h), 0);
  while (!__atomic_load_n(&log_blocked, __ATOMIC_ACQUIRE)) sched_yield();
  sp_test_stderr_begin();
  ASSERT_EQ(sp_setup(&c), SP_EBUSY);
  char *err = sp_test_stderr_end();
  sp_test_expect_msg(err, "sp_setup called again while 1 other thread(s) are inside a profiler call", 1);
  free(err);
  ASSERT_EQ(sp_is_active(), 1);
  pairs(h, 5); /* the session goes on */
  __atomic_store_n(&log_release, 1, __ATOMIC_RELEASE);
  ASSERT_EQ(pthread_join(blocked_thread, NULL), 0);
  sp_log_set(NULL, NULL);
  ASSERT_EQ(sp_finalize(), 0);
  const char *n[] = {"inside"};
  long long k[] = {115};
  check_file("resetup_inside_call.h5", n, k, 1);
}

/* ---- threads that end with calls open ---------------------------------- */

static void *leave_open(void *arg) {
  (void)arg;
  pairs(sp_region("b"), 3);
  sp_start(sp_region("a")); /* never stopped: the thread ends */
  return NULL;
}

static void *stop_foreign(void *arg) {
  (void)arg;
  pairs(sp_region("b"), 2); /* takes over the ended thread's record */
  sp_stop(sp_region("a"));  /* no call of "a" open on this thread */
  return NULL;
}

/* A thread ends with a call open; the next thread reuses its record. The
 * open call is dropped and counted when its thread ends: the next
 * thread's stop of that region is a stop without start, not the end of a
 * call another thread began. */
static void case_thread_exit_open(void) {
  sp_config c;
  setup_file(&c, "thread_exit_open.h5", 1000);
  pthread_t t;
  sp_test_stderr_begin();
  ASSERT_EQ(pthread_create(&t, NULL, leave_open, NULL), 0);
  ASSERT_EQ(pthread_join(t, NULL), 0);
  ASSERT_EQ(pthread_create(&t, NULL, stop_foreign, NULL), 0);
  ASSERT_EQ(pthread_join(t, NULL), 0);
  ASSERT_EQ(sp_finalize(), 0);
  char *err = sp_test_stderr_end();
  sp_test_expect_msg(err, "1 call(s) still open when thread ", 1);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 1);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_UNBALANCED), 1);
  free(err);
  const char *names[] = {"b"}; /* "a" has no call */
  long long calls[] = {5};
  check_file("thread_exit_open.h5", names, calls, 1);
}

/* ---- sp_finalize on another thread -------------------------------------- */

static void *finalize_here(void *arg) {
  *(int *)arg = sp_finalize();
  return NULL;
}

/* Setup and recording on the main thread, sp_finalize on another: the
 * file is written with every call (serial; with MPI the thread must be
 * the one MPI allows). */
static void case_finalize_other_thread(void) {
  sp_config c;
  setup_file(&c, "finalize_other_thread.h5", 1000);
  pairs(sp_region("main"), 2500);
  pthread_t t;
  ASSERT_EQ(pthread_create(&t, NULL, one_pair, NULL), 0);
  ASSERT_EQ(pthread_join(t, NULL), 0);
  int rc = -99;
  ASSERT_EQ(pthread_create(&t, NULL, finalize_here, &rc), 0);
  ASSERT_EQ(pthread_join(t, NULL), 0);
  ASSERT_EQ(rc, 0);
  ASSERT_EQ(sp_is_active(), 0);
  const char *names[] = {"main", "gone"};
  long long calls[] = {2500, 10};
  check_file("finalize_other_thread.h5", names, calls, 2);
}

/* ---- fork --------------------------------------------------------------- */

#define PARENT_CALLS 5000
#define CHILD_CALLS 20000 /* 20 full buffers: past the writer's queue of 8 */

/* What a forked child does; it ends with _exit or exit, never returns.
 * It records in the parent's region too (the handle it inherited). */
static void fork_child(const char *kind, const sp_config *c, int parent_h) {
  int h = sp_region("child");
  if (!strcmp(kind, "setup")) {
    ASSERT_EQ(sp_setup(c), 0); /* a session of its own */
    h = sp_region("child");
    pairs(h, CHILD_CALLS);
    ASSERT_EQ(sp_finalize(), 0);
    exit(0);
  }
  pairs(h, CHILD_CALLS); /* recording is off: no-ops */
  pairs(parent_h, CHILD_CALLS);
  ASSERT_EQ(sp_is_active(), 0);
  if (!strcmp(kind, "record_exit_")) _exit(0);
  if (!strcmp(kind, "finalize")) ASSERT_EQ(sp_finalize(), 0);
  if (!strcmp(kind, "signal")) raise(SIGTERM); /* the child dies of it, alone */
  exit(0);
}

/* The parent records, lets a child do KIND, records again and finalizes:
 * its file holds exactly its own calls, its spill file was there until
 * its finalize, and a child that set up wrote its own file. */
static void case_fork(const char *kind, int async) {
  char file[256], spill[300];
  snprintf(file, sizeof file, "fork_%s_%s.h5", kind, async ? "async" : "sync");
  snprintf(spill, sizeof spill, "%s.spill", file);
  rm_dir_files(spill);
  unsetenv("SCOPE_PROFILER_SPILL_DIR");
  setenv("SCOPE_PROFILER_ASYNC_FLUSH", async ? "1" : "0", 1);
  if (!strcmp(kind, "signal")) setenv("SCOPE_PROFILER_FLUSH_SIGNALS", "TERM", 1);
  sp_config c;
  setup_file(&c, file, 1000);
  int h = sp_region("parent");
  pairs(h, PARENT_CALLS);
  /* The background writer opens the spill file at its first buffer: wait
   * for it (bounded), so that the child starts with it open. */
  int mine = 0;
  for (int i = 0; i < 3000 && count_files(spill, getpid(), &mine) != 1; i++) {
    struct timespec ten_ms = {0, 10000000};
    nanosleep(&ten_ms, NULL);
  }
  ASSERT_EQ(mine, 1);
  pid_t child = -1;
  if (!strcmp(kind, "system")) {
    int st = system("exit 3");
    ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 3);
  } else if (!strcmp(kind, "popen")) {
    FILE *p = popen("echo hi", "r");
    ASSERT(p != NULL);
    char line[16] = "";
    ASSERT(fgets(line, sizeof line, p) != NULL);
    ASSERT_EQ(strcmp(line, "hi\n"), 0);
    ASSERT_EQ(pclose(p), 0);
  } else {
    fflush(stdout);
    fflush(stderr);
    child = fork();
    ASSERT(child >= 0);
    if (child == 0) fork_child(kind, &c, h);
    int st = wait_bounded(child, 60);
    if (!strcmp(kind, "signal")) {
      ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
    } else {
      ASSERT(exited_ok(st));
    }
  }
  /* The parent's spill file, and only it, is where it was. */
  ASSERT_EQ(count_files(spill, getpid(), &mine), 1);
  ASSERT_EQ(mine, 1);
  pairs(h, PARENT_CALLS);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT(!sp_test_file_exists(spill)); /* removed after success */
  const char *names[] = {"parent"};
  long long calls[] = {2 * PARENT_CALLS};
  check_file(file, names, calls, 1);
  if (child > 0) {
    char own[300], own_spill[320];
    snprintf(own, sizeof own, "fork_%s_%s.%ld.h5", kind, async ? "async" : "sync", (long)child);
    snprintf(own_spill, sizeof own_spill, "%s.spill", own);
    if (!strcmp(kind, "setup")) {
      const char *cn[] = {"child"};
      long long ck[] = {CHILD_CALLS};
      check_file(own, cn, ck, 1);
      ASSERT(!sp_test_file_exists(own_spill));
    } else {
      ASSERT(!sp_test_file_exists(own));
    }
  }
  unsetenv("SCOPE_PROFILER_FLUSH_SIGNALS");
}

/* As worker, with a pause every 256 pairs: recording goes on through
 * every fork without making millions of events. */
static void *worker_paced(void *arg) {
  long i = (long)arg;
  int h = sp_region("work");
  while (!__atomic_load_n(&stop_workers, __ATOMIC_ACQUIRE)) {
    for (int k = 0; k < 256; k++) {
      sp_start(h);
      sp_stop(h);
    }
    __atomic_add_fetch(&done[i], 256, __ATOMIC_RELEASE);
    struct timespec pause = {0, 200000};
    nanosleep(&pause, NULL);
  }
  return NULL;
}

static void *register_names(void *arg) {
  (void)arg;
  char name[32];
  for (int i = 0; !__atomic_load_n(&stop_workers, __ATOMIC_ACQUIRE); i++) {
    snprintf(name, sizeof name, "name%d", i % 200); /* the first 200 take the lock */
    sp_start_name(name);
    sp_stop_name(name);
    if (i % 64 == 0) {
      struct timespec pause = {0, 100000};
      nanosleep(&pause, NULL);
    }
  }
  return NULL;
}

/* 30 forks while threads record (through the writer thread, small
 * buffers) and register names: the atfork handlers must not deadlock with
 * them, each child (recording, then _exit) ends, and the parent's
 * file holds exactly the parent's calls. */
static void case_fork_threads(int async) {
  const char *file = async ? "fork_threads_async.h5" : "fork_threads_sync.h5";
  char spill[64];
  snprintf(spill, sizeof spill, "%s.spill", file);
  rm_dir_files(spill);
  setenv("SCOPE_PROFILER_ASYNC_FLUSH", async ? "1" : "0", 1);
  sp_config c;
  setup_file(&c, file, 1000);
  memset(done, 0, sizeof done);
  pthread_t tid[NWORKERS];
  for (long i = 0; i < NWORKERS - 1; i++)
    ASSERT_EQ(pthread_create(&tid[i], NULL, worker_paced, (void *)i), 0);
  ASSERT_EQ(pthread_create(&tid[NWORKERS - 1], NULL, register_names, NULL), 0);
  int h = sp_region("parent");
  for (int k = 0; k < 30; k++) {
    pairs(h, 100);
    fflush(stdout);
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
      pairs(h, 3000);
      pairs(sp_region("child"), 3000);
      /* _exit: LeakSanitizer at exit() in a child of a threaded parent
       * reports what the parent's other threads held only on their stacks
       * at fork (they do not exist here). exit() in a child: fork_record_exit. */
      _exit(sp_is_active());
    }
    ASSERT(exited_ok(wait_bounded(pid, 60)));
  }
  __atomic_store_n(&stop_workers, 1, __ATOMIC_RELEASE);
  long long work = 0;
  for (int i = 0; i < NWORKERS; i++) {
    ASSERT_EQ(pthread_join(tid[i], NULL), 0);
    if (i < NWORKERS - 1) work += done[i];
  }
  ASSERT_EQ(sp_finalize(), 0);
  if (!python) return;
  char count_parent[64], count_work[64];
  snprintf(count_parent, sizeof count_parent, "parent=%d", 30 * 100);
  snprintf(count_work, sizeof count_work, "work=%lld", work);
  /* The children also called "parent": none of those calls may be here. */
  char *argv[] = {(char *)python, (char *)checker, (char *)file, "--count",
                  count_parent,   "--count",       count_work,   NULL};
  ASSERT(exited_ok(run(argv, NULL, 120)));
}

/* ---- exit without sp_finalize ------------------------------------------ */

/* Records n calls of "r" and returns from main (SCOPE_PROFILER_FILE and
 * _BUFFER_LIMIT come from run_merge). */
static int case_exit_return(long long n) {
  ASSERT_EQ(sp_setup(NULL), 0);
  pairs(sp_region("r"), n);
  return 0;
}

static void finalize_at_exit(void) {
  if (sp_finalize() != 0) _exit(3);
}

/* A program whose own atexit handler (registered before sp_setup, so it
 * runs after the library's exit flush) calls sp_finalize: the profile is
 * written complete from the spill files, which are then removed. */
static void case_exit_then_finalize(void) {
  const char *file = "exit_then_finalize.h5";
  char spill[64];
  snprintf(spill, sizeof spill, "%s.spill", file);
  rm_dir_files(spill);
  unlink(file);
  fflush(stdout);
  pid_t pid = fork(); /* before any sp_setup here: an ordinary process */
  ASSERT(pid >= 0);
  if (pid == 0) {
    int fd = open("exit_then_finalize.stderr", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 2) < 0) _exit(4);
    atexit(finalize_at_exit);
    sp_config c;
    setup_file(&c, file, 1000);
    pairs(sp_region("r"), 25500);
    exit(0);
  }
  ASSERT(exited_ok(wait_bounded(pid, 60)));
  ASSERT(!sp_test_file_exists(spill));
  /* The merge hint of the exit flush is taken back. */
  FILE *f = fopen("exit_then_finalize.stderr", "r");
  ASSERT(f != NULL);
  char text[4096];
  size_t len = fread(text, 1, sizeof text - 1, f);
  text[len] = '\0';
  fclose(f);
  fputs(text, stdout);
  sp_test_expect_msg(text, "rebuild the profile with: scope-profiler-merge", 1);
  /* Paths in messages are absolute (resolved at sp_setup). */
  sp_test_expect_msg(text, "/exit_then_finalize.h5' is written", 1);
  sp_test_expect_msg(text, "sp_finalize ran at exit after all: '/", 1);
  const char *names[] = {"r"};
  long long calls[] = {25500};
  check_file(file, names, calls, 1);
}

/* Runs CMD, which records CALLS calls of "r" on each of NRANKS ranks into
 * NAME.h5 and ends without sp_finalize; then the spill files must hold
 * them all: each rank said where and how to merge, scope-profiler-merge
 * rebuilds NAME.h5, and h5py finds exactly CALLS calls per rank. */
static void run_merge(int argc, char **argv) {
  ASSERT(argc >= 11 && strcmp(argv[9], "--") == 0);
  const char *name = argv[2];
  int nranks = atoi(argv[3]);
  const char *calls = argv[4];
  int anyrc = atoi(argv[5]);
  merge_exe = argv[6];
  python = argv[7][0] ? argv[7] : NULL;
  checker = argv[8];
  char **cmd = argv + 10;
  /* Absolute: the library resolves file_path at sp_setup, and says so. */
  char cwd[512], file[768], spill[800], errf[300];
  ASSERT(getcwd(cwd, sizeof cwd) != NULL);
  snprintf(file, sizeof file, "%s/%s.h5", cwd, name);
  snprintf(spill, sizeof spill, "%s.spill", file);
  snprintf(errf, sizeof errf, "%s.stderr", name);
  rm_dir_files(spill);
  unlink(file);
  setenv("SCOPE_PROFILER_FILE", file, 1);
  setenv("SCOPE_PROFILER_BUFFER_LIMIT", "1000", 1);
  int st = run(cmd, errf, 240);
  printf("%s: exit status %d\n", cmd[0], WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  ASSERT(WIFEXITED(st));
  if (!anyrc) ASSERT_EQ(WEXITSTATUS(st), 0);
  FILE *f = fopen(errf, "r");
  ASSERT(f != NULL);
  static char text[1 << 16];
  size_t len = fread(text, 1, sizeof text - 1, f);
  text[len] = '\0';
  fclose(f);
  fputs(text, stdout);
  char want[2600];
  snprintf(want, sizeof want,
           "are in the spill directory '%s'; rebuild the profile with: "
           "scope-profiler-merge -o %s %s\n",
           spill, file, spill);
  sp_test_expect_msg(text, want, nranks);
  sp_test_expect_msg(text, "scope-profiler: ", nranks); /* one line per process */
  char *margv[] = {(char *)merge_exe, "-o", file, spill, NULL};
  ASSERT(exited_ok(run(margv, NULL, 120)));
  if (!python) return;
  char ranks[16], count[64];
  snprintf(ranks, sizeof ranks, "%d", nranks);
  snprintf(count, sizeof count, "r=%s", calls);
  char *cargv[] = {(char *)python, (char *)checker, file, "--ranks", ranks, "--region", "r",
                   "--count",      count,           NULL};
  ASSERT(exited_ok(run(cargv, NULL, 120)));
}

/* Set by main from the command line: the variant (sync or async). */
static int async_flush;

static void case_errno_v(void) { case_errno(async_flush); }
static void case_fork_threads_v(void) { case_fork_threads(async_flush); }
static void case_fork_kind(const char *name) { case_fork(name + strlen("fork_"), async_flush); }

int main(int argc, char **argv) {
  /* run_merge and exit_return have their own arguments (see above). */
  static const sp_test_case cases[] = {
      {"run_merge", NULL, NULL},
      {"exit_return", NULL, NULL},
      {"errno", case_errno_v, NULL},
      SP_TEST_CASE(resetup_threads),
      SP_TEST_CASE(resetup_inside_call),
      SP_TEST_CASE(exit_then_finalize),
      SP_TEST_CASE(thread_exit_open),
      SP_TEST_CASE(finalize_other_thread),
      {"fork_threads", case_fork_threads_v, NULL},
      SP_TEST_CASE_NAMED(fork_system, case_fork_kind),
      SP_TEST_CASE_NAMED(fork_popen, case_fork_kind),
      SP_TEST_CASE_NAMED(fork_record_exit_, case_fork_kind),
      SP_TEST_CASE_NAMED(fork_record_exit, case_fork_kind),
      SP_TEST_CASE_NAMED(fork_finalize, case_fork_kind),
      SP_TEST_CASE_NAMED(fork_setup, case_fork_kind),
      SP_TEST_CASE_NAMED(fork_signal, case_fork_kind),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  if (!strcmp(c->name, "run_merge")) {
    run_merge(argc, argv);
    printf("run_merge: ok\n");
    return 0;
  }
  if (!strcmp(c->name, "exit_return")) return case_exit_return(argc > 2 ? atoll(argv[2]) : 25000);
  const char *variant = argc > 2 ? argv[2] : "";
  if (argc >= 6) {
    merge_exe = argv[3];
    python = argv[4];
    checker = argv[5];
  }
  async_flush = strcmp(variant, "sync") != 0;
  sp_test_case_run(c);
  printf("%s %s: ok, the program went on\n", c->name, variant);
  return 0;
}
