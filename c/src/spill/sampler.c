/* sampler.c - the process's RSS and CPU time every N ms
 * (SCOPE_PROFILER_SAMPLE_MS, sp_config.sample_ms).
 *
 * One thread per process, created like the library's other threads
 * (host_guard.c: every signal blocked, its descriptor above 2). It sleeps
 * on a condition variable against CLOCK_MONOTONIC, so sp_finalize wakes it
 * at once and exit() never waits for it. A sample is two clock reads and
 * one pread of /proc/self/statm (a descriptor kept open): a few
 * microseconds, nothing in the recording threads' path.
 *
 * Every SP_SAMPLE_CHUNK samples go to the spill file in one record (with
 * flush_to_disk), so a run that dies keeps all but the last few seconds;
 * at exit without sp_finalize the rest follows (exit_flush.c), and at a
 * flush signal (signal_flush.c). Finalize
 * reads the spilled ones back with the events (samples_write.c).
 *
 * fork(): the child has no sampler (a thread is not copied) and forgets the
 * parent's samples; its own sp_setup starts one of its own. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "host_guard.h"
#include "sampler.h"

enum { SP_SAMPLE_CHUNK = 256 }; /* samples per spill record: 6 KiB, 2.6 s at 10 ms */

static struct {
  pthread_mutex_t mu; /* everything below; taken before sp__state.lock, never after */
  pthread_cond_t wake;
  pthread_t tid;
  int running; /* the thread exists (joined by sp__sampler_stop) */
  int stop;    /* asked to end */
  int exited;  /* exit() spilled the samples: the thread adds no more */
  int spill;   /* flush_to_disk: chunks go to the spill file */
  int statm;   /* /proc/self/statm, or -1 */
  int64_t period_ns;
  sp_sample_t *buf; /* samples not in the spill file */
  int64_t n, cap;
  int64_t lost; /* samples dropped (no memory, spill write failed) */
} sp_smp = {.mu = PTHREAD_MUTEX_INITIALIZER, .statm = -1};

int64_t sp__sampler_maxrss(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return (int64_t)ru.ru_maxrss * 1024; /* KiB on Linux */
}

static int64_t sp_rss_bytes(int fd) {
  char text[128];
  ssize_t got = fd >= 0 ? pread(fd, text, sizeof text - 1, 0) : -1;
  if (got <= 0) return -1;
  text[got] = '\0';
  /* "size resident shared text lib data dt", in pages */
  char *end = NULL;
  strtoll(text, &end, 10);
  long long pages = strtoll(end, NULL, 10);
  return (int64_t)pages * (int64_t)sysconf(_SC_PAGESIZE);
}

static sp_sample_t sp_sample_now(void) {
  struct timespec cpu;
  sp_sample_t s;
  s.t_ns = sp__monotonic_ns();
  s.cpu_ns = clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) == 0
                 ? (int64_t)cpu.tv_sec * 1000000000 + cpu.tv_nsec
                 : -1;
  s.rss = sp_rss_bytes(sp_smp.statm);
  return s;
}

/* Appends one sample and spills a full chunk (under mu). */
static void sp_sample_keep(sp_sample_t s) {
  if (sp_smp.n == sp_smp.cap) {
    int64_t ncap = sp_smp.cap ? sp_smp.cap * 2 : SP_SAMPLE_CHUNK;
    sp_sample_t *nb = realloc(sp_smp.buf, (size_t)ncap * sizeof *nb);
    if (!nb) {
      sp_smp.lost++;
      return;
    }
    sp_smp.buf = nb;
    sp_smp.cap = ncap;
  }
  sp_smp.buf[sp_smp.n++] = s;
  if (!sp_smp.spill || sp_smp.n < SP_SAMPLE_CHUNK) return;
  if (sp__spill_samples(sp_smp.buf, sp_smp.n, sp__sampler_maxrss(), sp_smp.period_ns) != 0)
    sp_smp.lost += sp_smp.n; /* the spill file said why (spill.c) */
  sp_smp.n = 0;
}

static void *sp_sampler_main(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "sp-sampler"); /* top -H, the benchmark */
  pthread_mutex_lock(&sp_smp.mu);
  int64_t next = sp__monotonic_ns() + sp_smp.period_ns;
  while (!sp_smp.stop) {
    struct timespec at = {(time_t)(next / 1000000000), (long)(next % 1000000000)};
    int rc = pthread_cond_timedwait(&sp_smp.wake, &sp_smp.mu, &at);
    if (sp_smp.stop) break;
    if (rc != ETIMEDOUT) continue; /* spurious wake-up */
    if (!sp_smp.exited) sp_sample_keep(sp_sample_now());
    next += sp_smp.period_ns;
    int64_t now = sp__monotonic_ns();
    if (next <= now) next = now + sp_smp.period_ns; /* descheduled: skip, never catch up */
  }
  pthread_mutex_unlock(&sp_smp.mu);
  return NULL;
}

int sp__sampler_start(int64_t period_ms) {
  sp__sampler_stop();
  sp__sampler_forget();
  if (period_ms <= 0) return 0;
  pthread_mutex_lock(&sp_smp.mu);
  sp_smp.period_ns = period_ms * 1000000;
  sp_smp.spill = sp__state.cfg.flush_to_disk;
  sp_smp.stop = sp_smp.exited = 0;
  sp_smp.lost = 0;
  sp_smp.statm = sp__fd_above_std(open("/proc/self/statm", O_RDONLY | O_CLOEXEC));
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&sp_smp.wake, &ca);
  pthread_condattr_destroy(&ca);
  sp_sample_keep(sp_sample_now()); /* the session's start */
  sp_smp.running = sp__thread_spawn(&sp_smp.tid, sp_sampler_main, NULL) == 0;
  int ok = sp_smp.running;
  pthread_mutex_unlock(&sp_smp.mu);
  if (!ok)
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "cannot start the sampler thread (SCOPE_PROFILER_SAMPLE_MS); the profile has no "
            "samples");
  return ok ? 0 : SP_ENOMEM;
}

void sp__sampler_stop(void) {
  pthread_mutex_lock(&sp_smp.mu);
  int running = sp_smp.running;
  sp_smp.stop = 1;
  if (running) pthread_cond_signal(&sp_smp.wake);
  pthread_mutex_unlock(&sp_smp.mu);
  if (!running) return;
  pthread_join(sp_smp.tid, NULL);
  pthread_mutex_lock(&sp_smp.mu);
  sp_smp.running = 0;
  sp_smp.spill = 0; /* the last one stays in memory for finalize */
  if (!sp_smp.exited) sp_sample_keep(sp_sample_now()); /* the session's end */
  if (sp_smp.statm >= 0) close(sp_smp.statm);
  sp_smp.statm = -1;
  pthread_cond_destroy(&sp_smp.wake);
  if (sp_smp.lost > 0)
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "%lld sample(s) of RSS and CPU time were lost",
            (long long)sp_smp.lost);
  pthread_mutex_unlock(&sp_smp.mu);
}

const sp_sample_t *sp__sampler_tail(int64_t *n, int64_t *period_ns) {
  *n = sp_smp.n;
  *period_ns = sp_smp.period_ns;
  return sp_smp.buf;
}

void sp__sampler_forget(void) {
  pthread_mutex_lock(&sp_smp.mu);
  free(sp_smp.buf);
  sp_smp.buf = NULL;
  sp_smp.n = sp_smp.cap = 0;
  sp_smp.period_ns = 0;
  pthread_mutex_unlock(&sp_smp.mu);
}

void sp__sampler_exit_spill(int keep) {
  pthread_mutex_lock(&sp_smp.mu);
  if (sp_smp.period_ns > 0 && !sp_smp.exited) {
    if (sp_smp.running && keep) sp_sample_keep(sp_sample_now()); /* the run's end */
    sp_smp.exited = 1; /* the thread takes and spills no more */
    if (keep && sp_smp.n > 0 &&
        sp__spill_samples(sp_smp.buf, sp_smp.n, sp__sampler_maxrss(), sp_smp.period_ns) == 0)
      sp_smp.n = 0;
  }
  pthread_mutex_unlock(&sp_smp.mu);
}

void sp__sampler_flush(void) {
  pthread_mutex_lock(&sp_smp.mu);
  if (sp_smp.running && sp_smp.spill && !sp_smp.exited && sp_smp.n > 0 &&
      sp__spill_samples(sp_smp.buf, sp_smp.n, sp__sampler_maxrss(), sp_smp.period_ns) == 0)
    sp_smp.n = 0;
  pthread_mutex_unlock(&sp_smp.mu);
}

/* Taken first in fork_guard.c's prepare: the thread holds mu while it
 * takes sp__state.lock to spill. */
void sp__sampler_fork_prepare(void) { pthread_mutex_lock(&sp_smp.mu); }

void sp__sampler_fork_parent(void) { pthread_mutex_unlock(&sp_smp.mu); }

void sp__sampler_fork_child(void) {
  if (sp_smp.statm >= 0) close(sp_smp.statm); /* the parent's /proc/<pid>/statm */
  sp_smp.statm = -1;
  sp_smp.running = 0;
  free(sp_smp.buf);
  sp_smp.buf = NULL;
  sp_smp.n = sp_smp.cap = 0;
  sp_smp.period_ns = 0;
  pthread_mutex_init(&sp_smp.mu, NULL);
}
