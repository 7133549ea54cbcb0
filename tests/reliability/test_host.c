/* test_host.c - harm to the host program (issue 36, items 11-17), one case
 * per run: test_host CASE. Each case does what a real host does (blocks a
 * signal for sigwait, closes its stderr, ...) and checks that the program
 * goes on as it would without the library, and that CASE.h5 holds every
 * call (CASE.expect.rank0.json, checked with h5py by check_profile.py). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sp_test_cases.h"
#include "sp_test_util.h"
#include "scope_profiler.h"

static void setup_small(const char *path, int64_t limit) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  c.buffer_limit = limit;
  unlink(path);
  ASSERT_EQ(sp_setup(&c), 0);
}

static void pairs(int h, int n) {
  for (int i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
}

static void expect_one(const char *tag, const char *name, long long calls) {
  const char *const n[] = {name};
  const long long k[] = {calls};
  sp_test_expect_write_table(tag, 0, n, k, 1);
}

/* ---- item 11: library threads never take the host's signals ----------- */

static void *sp_waiter(void *arg) {
  sigset_t *set = arg;
  int sig = 0;
  if (sigwait(set, &sig) != 0) return NULL;
  return (void *)(intptr_t)sig;
}

/* The host blocks SIGTERM in its threads and waits for it with sigwait() in
 * one of them: a library thread that left it unblocked (the background
 * writer, the flush signals' watcher) took it and the process died. */
static void host_sigwait(const char *tag) {
  char path[64];
  snprintf(path, sizeof path, "%s.h5", tag);
  setup_small(path, 1000);
  int h = sp_region("work");
  pairs(h, 5000); /* full buffers: the background writer thread runs */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &set, NULL), 0);
  pthread_t w;
  ASSERT_EQ(pthread_create(&w, NULL, sp_waiter, &set), 0);
  pairs(h, 5000);
  for (int i = 0; i < 20; i++) { /* several times: any thread may be picked */
    ASSERT_EQ(kill(getpid(), SIGTERM), 0);
    usleep(1000);
  }
  void *got = NULL;
  ASSERT_EQ(pthread_join(w, &got), 0);
  ASSERT_EQ((intptr_t)got, SIGTERM);
  pairs(h, 1000);
  ASSERT_EQ(sp_finalize(), 0);
  expect_one(tag, "work", 11000);
}

static void case_sigwait_writer(void) { host_sigwait("sigwait_writer"); }

/* The same with the flush signals' watcher thread running as well. */
static void case_sigwait_watcher(void) {
  setenv("SCOPE_PROFILER_FLUSH_SIGNALS", "USR2", 1);
  host_sigwait("sigwait_watcher");
}

/* ---- item 12: no library descriptor is 0, 1 or 2 ---------------------- */

/* `prog 2>&-`: the spill file became descriptor 2, the library's own
 * warnings went into it and finalize failed. */
static void case_stderr_closed(void) {
  setenv("SCOPE_PROFILER_ASYNC_FLUSH", "0", 1); /* the spill file opens in sp_stop */
  int saved = fcntl(2, F_DUPFD_CLOEXEC, 10);
  ASSERT(saved >= 0);
  close(2);
  setup_small("stderr_closed.h5", 1000);
  int h = sp_region("work");
  pairs(h, 3000);                         /* the spill file opens */
  for (int i = 0; i < 3; i++) sp_stop(h); /* warnings written to "stderr" */
  sp_stop_name("never_started");
  pairs(h, 3000);
  int rc = sp_finalize();
  int fd2_closed = fcntl(2, F_GETFD) < 0 && errno == EBADF;
  dup2(saved, 2); /* our own messages from here on */
  ASSERT_EQ(rc, 0);
  ASSERT(fd2_closed); /* given back as the host left it */
  expect_one("stderr_closed", "work", 6000);
}

/* The host closes its stderr after sp_setup (a daemon): the spill file
 * opened later must not become descriptor 2 either. */
static void case_stderr_closed_later(void) {
  setenv("SCOPE_PROFILER_ASYNC_FLUSH", "0", 1);
  setup_small("stderr_closed_later.h5", 1000);
  int saved = fcntl(2, F_DUPFD_CLOEXEC, 10);
  ASSERT(saved >= 0);
  close(2);
  int h = sp_region("work");
  pairs(h, 3000);
  for (int i = 0; i < 3; i++) sp_stop(h);
  pairs(h, 3000);
  int fd2_open = fcntl(2, F_GETFD) >= 0;
  int rc = sp_finalize();
  dup2(saved, 2);
  ASSERT_EQ(rc, 0);
  ASSERT(!fd2_open);
  expect_one("stderr_closed_later", "work", 6000);
}

/* ---- item 14: FLUSH_SIGNALS leave the host's handling as it was ------- */

static volatile sig_atomic_t handled, usr2_blocked;

static void on_usr1(int sig) {
  (void)sig;
  sigset_t cur;
  sigprocmask(SIG_BLOCK, NULL, &cur);
  usr2_blocked = sigismember(&cur, SIGUSR2);
  handled++;
}

/* The host's USR1 handler, installed before sp_setup with flags and mask;
 * then FLUSH_SIGNALS=USR1,TERM puts ours over it. */
static void host_usr1_then_setup(const char *path, int flags, int block_usr2) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  if (block_usr2) sigaddset(&sa.sa_mask, SIGUSR2);
  ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
  setenv("SCOPE_PROFILER_FLUSH_SIGNALS", "USR1,TERM", 1);
  setup_small(path, 1000);
}

static int sp_wake[2];

static void *blocked_reader(void *arg) {
  (void)arg;
  char c;
  ssize_t n = read(sp_wake[0], &c, 1);
  return (void *)(intptr_t)(n < 0 && errno == EINTR);
}

/* The host's handler without SA_RESTART: a blocked read() gets EINTR (ours
 * added SA_RESTART, so the read went on waiting). */
static void case_flush_sig_eintr(void) {
  host_usr1_then_setup("flush_sig_eintr.h5", 0, 0);
  int h = sp_region("work");
  pairs(h, 2000);
  ASSERT_EQ(pipe(sp_wake), 0);
  pthread_t r;
  ASSERT_EQ(pthread_create(&r, NULL, blocked_reader, NULL), 0);
  usleep(200000); /* the reader is in read() */
  ASSERT_EQ(pthread_kill(r, SIGUSR1), 0);
  usleep(500000);
  ASSERT_EQ(write(sp_wake[1], "x", 1), 1); /* ends a read that was restarted */
  void *eintr = NULL;
  ASSERT_EQ(pthread_join(r, &eintr), 0);
  ASSERT_EQ(handled, 1);
  ASSERT_EQ((intptr_t)eintr, 1);
  pairs(h, 2000);
  ASSERT_EQ(sp_finalize(), 0);
  expect_one("flush_sig_eintr", "work", 4000);
}

/* The host's sa_mask: USR2 is blocked while its USR1 handler runs. */
static void case_flush_sig_mask(void) {
  host_usr1_then_setup("flush_sig_mask.h5", SA_RESTART, 1);
  int h = sp_region("work");
  pairs(h, 2000);
  ASSERT_EQ(raise(SIGUSR1), 0);
  ASSERT_EQ(handled, 1);
  ASSERT_EQ(usr2_blocked, 1);
  pairs(h, 2000);
  ASSERT_EQ(sp_finalize(), 0);
  expect_one("flush_sig_mask", "work", 4000);
}

/* The targets ("pipe:[123]") of this process's pipes above 2, one per
 * line, into out. */
static void own_pipes(char *out, size_t cap) {
  out[0] = '\0';
  for (int fd = 3; fd < 1024; fd++) {
    char p[64], t[128];
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(p, t, sizeof t - 1);
    if (n <= 0) continue;
    t[n] = '\0';
    if (strncmp(t, "pipe:", 5) == 0 && strlen(out) + (size_t)n + 2 < cap)
      strcat(strcat(out, t), "\n");
  }
}

extern char **environ;

/* Issue 43 item 12: the flush signals' pipe (made at sp_setup) is
 * close-on-exec, as every other descriptor of ours: a program spawned with
 * posix_spawn lists its descriptors above 2, and holds no pipe this
 * process did not already have before sp_setup. */
static void case_flush_sig_spawn(void) {
  static char before[4096], after[4096];
  own_pipes(before, sizeof before);
  setenv("SCOPE_PROFILER_FLUSH_SIGNALS", "TERM", 1);
  setup_small("flush_sig_spawn.h5", 1000);
  int h = sp_region("work");
  pairs(h, 2000);
  own_pipes(after, sizeof after);
  ASSERT(strlen(after) > strlen(before)); /* the pipe is there, in this process */
  posix_spawn_file_actions_t fa;
  ASSERT_EQ(posix_spawn_file_actions_init(&fa), 0);
  ASSERT_EQ(posix_spawn_file_actions_addopen(&fa, 1, "flush_sig_spawn.fds",
                                             O_WRONLY | O_CREAT | O_TRUNC, 0644),
            0);
  char *argv[] = {"/bin/sh", "-c",
                  "cd /proc/$$/fd && for f in *; do [ $f -gt 2 ] && readlink $f; done; true",
                  NULL};
  pid_t pid;
  ASSERT_EQ(posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  FILE *f = fopen("flush_sig_spawn.fds", "r");
  ASSERT(f != NULL);
  char line[256];
  int leaked = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "pipe:", 5) != 0 || strstr(before, line)) continue;
    fprintf(stderr, "the spawned program holds a pipe of ours: %s", line);
    leaked++;
  }
  fclose(f);
  ASSERT_EQ(leaked, 0);
  pairs(h, 2000);
  ASSERT_EQ(sp_finalize(), 0);
  expect_one("flush_sig_spawn", "work", 4000);
}

/* Runs child() in a forked process; returns its wait status. */
static int in_child(void (*child)(void)) {
  fflush(NULL);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    child();
    _exit(0); /* survived: the parent's check fails */
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  return status;
}

/* The parent's check: TAG.h5 merged from the dead child's spill files. */
static void merge_spill(const char *tag, long long calls) {
  char dir[64], out[64];
  snprintf(dir, sizeof dir, "%s.h5.spill", tag);
  snprintf(out, sizeof out, "%s.h5", tag);
  const char *in[] = {dir};
  ASSERT_EQ(sp_spill_merge(in, 1, out), 0);
  expect_one(tag, "work", calls);
}

static void resethand_child(void) {
  host_usr1_then_setup("flush_sig_resethand.h5", SA_RESETHAND, 0);
  int h = sp_region("work");
  pairs(h, 2000);
  raise(SIGUSR1); /* the host's handler, once */
  if (handled != 1) _exit(3);
  sp_start(h); /* flushes the 2000 */
  sp_stop(h);
  raise(SIGUSR1); /* SA_RESETHAND: now the default action ends the process */
  usleep(100000);
}

/* SA_RESETHAND: the second USR1 ends the process (ours stayed installed,
 * and the second one was handled again). */
static void case_flush_sig_resethand(void) {
  system("rm -rf flush_sig_resethand.h5.spill");
  int st = in_child(resethand_child);
  ASSERT(WIFSIGNALED(st));
  ASSERT_EQ(WTERMSIG(st), SIGUSR1);
  merge_spill("flush_sig_resethand", 2000); /* flushed after the first USR1 */
}

static void later_term_child(void) {
  host_usr1_then_setup("flush_sig_later_term.h5", SA_RESTART, 0);
  int h = sp_region("work");
  pairs(h, 2500);
  raise(SIGUSR1); /* handled by the host; the job goes on */
  if (handled != 1) _exit(3);
  usleep(200000);
  pairs(h, 2500);
  usleep(200000); /* the first round is over */
  raise(SIGTERM); /* the default action: flushed, then the end */
  sp_start(h);    /* flushes the 5000 at this profiler call */
  sp_stop(h);
  for (int i = 0; i < 300; i++) usleep(10000); /* until the end */
}

/* After a signal the host handled itself, a later SIGTERM (default action)
 * was swallowed and the job ran on; now it is flushed and ends it. */
static void case_flush_sig_later_term(void) {
  system("rm -rf flush_sig_later_term.h5.spill");
  int st = in_child(later_term_child);
  if (!WIFSIGNALED(st)) fprintf(stderr, "child exited with %d\n", WEXITSTATUS(st));
  ASSERT(WIFSIGNALED(st));
  ASSERT_EQ(WTERMSIG(st), SIGTERM);
  merge_spill("flush_sig_later_term", 5000);
}

/* Fault signals are refused: a crash died 3 s late, in our thread. */
static void case_flush_sig_fault(void) {
  setenv("SCOPE_PROFILER_FLUSH_SIGNALS", "11,SIGBUS,TERM", 1);
  struct sigaction before; /* SIG_DFL, or a sanitizer's own handler */
  ASSERT_EQ(sigaction(SIGSEGV, NULL, &before), 0);
  sp_test_stderr_begin();
  setup_small("flush_sig_fault.h5", 1000);
  char *err = sp_test_stderr_end();
  sp_test_expect_msg(err, "'11' is signal 11, a fault or abort signal: not handled", 1);
  free(err);
  ASSERT_EQ(sp_flush_on_signal(SIGSEGV), SP_EINVAL);
  ASSERT_EQ(sp_flush_on_signal(SIGABRT), SP_EINVAL);
  struct sigaction cur;
  ASSERT_EQ(sigaction(SIGSEGV, NULL, &cur), 0);
  ASSERT(cur.sa_handler == before.sa_handler); /* left as the host had it */
  ASSERT_EQ(sp_flush_on_signal(SIGUSR2), 0);
  pairs(sp_region("work"), 10);
  ASSERT_EQ(sp_finalize(), 0);
  expect_one("flush_sig_fault", "work", 10);
}

/* ---- item 13: sp_start/sp_stop from a signal handler ------------------ */

static volatile sig_atomic_t ticks;
static int tick_h;

static void on_alarm(int sig) {
  (void)sig;
  int saved = errno;
  sp_start(tick_h);
  sp_stop(tick_h);
  ticks++;
  errno = saved;
}

/* A sampling tool's 10 kHz SIGALRM handler records a region while the
 * program records its own with small buffers (many slow paths: buffer
 * swaps, the writer's lock, allocations). A handler's call that would
 * interrupt the library on its thread is dropped and counted; the heap was
 * corrupted or the program deadlocked. */
static void case_signal_handler_calls(void) {
  setup_small("signal_handler_calls.h5", 64);
  int h = sp_region("work");
  tick_h = sp_region("tick");
  pairs(tick_h, 1); /* its buffer exists before the first signal */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGALRM, &sa, NULL), 0);
  struct itimerval it = {{0, 100}, {0, 100}};
  ASSERT_EQ(setitimer(ITIMER_REAL, &it, NULL), 0);
  long long work = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do {
    for (int i = 0; i < 1000; i++) {
      sp_start(h);
      sp_region_add_calls(h, 0);
      sp_stop(h);
    }
    work += 1000;
    clock_gettime(CLOCK_MONOTONIC, &t1);
  } while ((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec) < 2000000000LL);
  struct itimerval off = {{0, 0}, {0, 0}};
  ASSERT_EQ(setitimer(ITIMER_REAL, &off, NULL), 0);
  int64_t dropped = sp_misuse_count(SP_MISUSE_REENTERED);
  printf("%lld ticks, %lld calls dropped, %lld work pairs\n", (long long)ticks, (long long)dropped,
         work);
  ASSERT(ticks > 100);
  ASSERT_EQ(dropped % 2, 0); /* a tick's start and stop share the verdict */
  ASSERT_EQ(sp_finalize(), 0);
  const char *const n[] = {"work", "tick"};
  const long long k[] = {work, 1 + ticks - dropped / 2};
  sp_test_expect_write_table("signal_handler_calls", 0, n, k, 2);
}

/* ---- item 23: a crash after full buffers were handed to the writer ---- */

#define CRASH_REPEATS 4 /* the loss was intermittent: 1 run in 2 */

/* A real SIGSEGV (an access to a page without access rights), not a null
 * store: UBSan would stop the program at a null store before it faults. */
static void fault_now(void) {
  volatile int *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if ((void *)p == MAP_FAILED) _exit(5);
  *p = 1;
}
static int crash_sig;
static char crash_path[64];

static void crash_child(void) {
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  setup_small(crash_path, 1000);
  pairs(sp_region("work"), 10000);   /* 9 full buffers handed to the writer */
  if (crash_sig == SIGABRT) abort(); /* as std::terminate does */
  fault_now();
}

/* Each run dies at once after its last handoff; every handed buffer must
 * be in the spill file (the writer's queue was lost before). The last
 * 1000 calls, still in the thread's buffer, are not written. TAG<i>.h5 of
 * each run is checked with h5py. */
/* Whether a handler was there before ours: a sanitizer's own (ASan's
 * SIGSEGV handler reports and exits 1), which then ends the crash. */
static int sig_had_handler(int sig) {
  struct sigaction cur;
  ASSERT_EQ(sigaction(sig, NULL, &cur), 0);
  return (cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL;
}

static void crash_runs(const char *tag, int sig) {
  crash_sig = sig;
  for (int i = 0; i < CRASH_REPEATS; i++) {
    char t[48], cmd[192];
    snprintf(t, sizeof t, "%s%d", tag, i);
    snprintf(crash_path, sizeof crash_path, "%s.h5", t);
    snprintf(cmd, sizeof cmd, "rm -rf %s.spill %s", crash_path, crash_path);
    ASSERT_EQ(system(cmd), 0);
    int st = in_child(crash_child);
    if (sig_had_handler(sig)) { /* ended as the sanitizer ends it */
      ASSERT(WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) != 0));
    } else {
      ASSERT(WIFSIGNALED(st));
      ASSERT_EQ(WTERMSIG(st), sig); /* ended as it would have */
    }
    merge_spill(t, 9000);
  }
}

static void case_crash_abort(void) { crash_runs("crash_abort", SIGABRT); }


static void case_crash_segv(void) { crash_runs("crash_segv", SIGSEGV); }

/* ---- item 23: the host's own crash handlers still run ----------------- */

/* TSan runs signal handlers with an errno of its own (to catch handlers
 * that spoil it) and puts the program's back after them: errno in and
 * after a handler is not checked there. */
#ifdef __SANITIZE_THREAD__
#define ERRNO_IN_HANDLERS 0
#else
#define ERRNO_IN_HANDLERS 1
#endif

/* A host's crash handler: reports whether errno is what the program had
 * set when it crashed (EDOM), and ends the process itself. */
static void host_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)si, (void)uc;
  _exit(errno == EDOM || !ERRNO_IN_HANDLERS ? 42 : 43);
}

static void host_segv_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = host_segv;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGSEGV, &sa, NULL), 0);
}

static int host_when; /* 0: before sp_setup, 1: after it, 2: after the writer started */

static void host_crash_child(void) {
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  if (host_when == 0) host_segv_install();
  setup_small(crash_path, 1000);
  if (host_when == 1) host_segv_install();
  pairs(sp_region("work"), 10000); /* the writer starts, ours goes over the host's */
  if (host_when == 2) host_segv_install(); /* over ours: the host's alone runs */
  errno = EDOM;
  fault_now();
}

static void host_crash(const char *tag, int when) {
  host_when = when;
  snprintf(crash_path, sizeof crash_path, "%s.h5", tag);
  char cmd[192];
  snprintf(cmd, sizeof cmd, "rm -rf %s.spill %s", crash_path, crash_path);
  ASSERT_EQ(system(cmd), 0);
  int st = in_child(host_crash_child);
  ASSERT(WIFEXITED(st));
  ASSERT_EQ(WEXITSTATUS(st), 42); /* the host's handler ran, errno as the program left it */
  if (when < 2) {
    merge_spill(tag, 9000); /* ours waited for the writer, then called the host's */
  } /* else ours was replaced: the writer's queue was cut (documented) */
}

static void case_host_crash_before(void) { host_crash("host_crash_before", 0); }
static void case_host_crash_after(void) { host_crash("host_crash_after", 1); }
static void case_host_crash_over_ours(void) { host_crash("host_crash_over_ours", 2); }

/* Issue 43 item 3: a host that recovers from SIGSEGV with siglongjmp (a
 * JIT, a garbage collector, a memory probe), its handler installed before
 * sp_setup with SA_NODEFER. Ours goes over it when the writer starts and
 * calls it at each fault; the host's never returns into ours. Its second
 * fault killed the process (ours took itself to be called again through a
 * chain). Faults at several stack depths, deeper and shallower than the
 * one before, each recovered. */
static sigjmp_buf probe_env;
static volatile sig_atomic_t probe_faults;

static void host_probe_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)si, (void)uc;
  probe_faults++;
  siglongjmp(probe_env, 1);
}

static volatile int *probe_page;

/* Faults `depth` calls down (not a tail call: the frames stay). */
static int __attribute__((noinline)) fault_at_depth(int depth) {
  volatile char pad[64];
  pad[0] = (char)depth;
  if (depth > 0) return fault_at_depth(depth - 1) + pad[0];
  *probe_page = 1;
  return pad[0];
}

static void case_host_segv_recover(void) {
  probe_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT((void *)probe_page != MAP_FAILED);
  struct sigaction sa, cur;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = host_probe_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGSEGV, &sa, NULL), 0);
  setup_small("host_segv_recover.h5", 1000);
  int h = sp_region("work");
  pairs(h, 5000); /* the writer runs: ours is installed over the host's */
  ASSERT_EQ(sigaction(SIGSEGV, NULL, &cur), 0);
  ASSERT(cur.sa_sigaction != host_probe_segv); /* ours */
  static const int depths[] = {0, 0, 3, 1, 6, 6, 2, 0, 9, 4, 0, 12, 5, 1, 0, 3};
  const int n = (int)(sizeof depths / sizeof depths[0]);
  for (volatile int i = 0; i < n; i++) {
    if (sigsetjmp(probe_env, 1) == 0) fault_at_depth(depths[i]);
    ASSERT_EQ(probe_faults, i + 1); /* recovered: the program goes on */
    pairs(h, 100);
  }
  ASSERT_EQ(sp_finalize(), 0);
  expect_one("host_segv_recover", "work", 5000 + 100 * n);
}

/* A host SIGABRT handler that returns (an abort() it survives through
 * raise(): the program goes on). Ours runs first, calls it every time,
 * keeps errno; sp_finalize then writes everything and puts the host's
 * handler back. */
static volatile sig_atomic_t host_aborts;
static volatile int host_abort_errno;
static void host_abrt(int sig) {
  (void)sig;
  host_abort_errno = errno;
  host_aborts++;
  errno = ERANGE; /* the host's handler may change it: the kernel restores nothing */
}

static void case_host_abort_returns(void) {
  setup_small("host_abort_returns.h5", 1000);
  struct sigaction sa, cur;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = host_abrt;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGABRT, &sa, NULL), 0);
  int h = sp_region("work");
  pairs(h, 10000); /* the writer runs: ours is installed over the host's */
  ASSERT_EQ(sigaction(SIGABRT, NULL, &cur), 0);
  ASSERT(cur.sa_handler != host_abrt); /* ours */
  for (int i = 1; i <= 2; i++) {
    errno = EDOM;
    ASSERT_EQ(raise(SIGABRT), 0);
    ASSERT_EQ(host_aborts, i);
    if (ERRNO_IN_HANDLERS) {
      ASSERT_EQ(host_abort_errno, EDOM);
      ASSERT_EQ(errno, ERANGE); /* what the host's handler left: ours restored it before */
    }
  }
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT_EQ(sigaction(SIGABRT, NULL, &cur), 0);
  ASSERT(!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == host_abrt); /* put back */
  expect_one("host_abort_returns", "work", 10000);
}

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {
      SP_TEST_CASE(sigwait_writer),      SP_TEST_CASE(sigwait_watcher),
      SP_TEST_CASE(stderr_closed),       SP_TEST_CASE(stderr_closed_later),
      SP_TEST_CASE(flush_sig_eintr),     SP_TEST_CASE(flush_sig_mask),
      SP_TEST_CASE(flush_sig_resethand), SP_TEST_CASE(flush_sig_later_term),
      SP_TEST_CASE(flush_sig_fault),     SP_TEST_CASE(signal_handler_calls),
      SP_TEST_CASE(flush_sig_spawn),
      SP_TEST_CASE(crash_abort),         SP_TEST_CASE(crash_segv),
      SP_TEST_CASE(host_crash_before),   SP_TEST_CASE(host_crash_after),
      SP_TEST_CASE(host_crash_over_ours), SP_TEST_CASE(host_abort_returns),
      SP_TEST_CASE(host_segv_recover),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  sp_test_case_run(c);
  printf("%s: ok, the program went on\n", c->name);
  return 0;
}
