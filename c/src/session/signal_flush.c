/* signal_flush.c - opt-in: on a signal (SIGTERM before a scheduler's
 * SIGKILL), get the recorded events into the spill files.
 *
 * Nothing unsafe runs in the handler: it only switches the hot path to
 * SP_MODE_SIGNALED, chains to a previous handler and writes one byte to a
 * pipe. Each recording thread, on its next profiler call, appends its
 * finished events to the spill file (normal context, no HDF5). A watcher
 * thread, woken by the pipe, waits until every recording thread has done
 * so (or a grace period passes, for threads stuck elsewhere), saves profile
 * mode's aggregates (aggregate_recover.c), then, if the
 * signal's action was the default one, restores it and raises the signal
 * again so the process ends as it would have. Recover with
 * `scope-profiler-merge` (docs/recovery.md).
 *
 * The host's program must not notice the handler (issue 36, item 14): over
 * a handler of the host's, ours keeps its flags (SA_RESTART or not,
 * SA_RESETHAND, ...) and its sa_mask; after a signal the host handled
 * itself, the next one is flushed again (a later SIGTERM still ends the
 * process); fault signals (SIGSEGV, ...) are refused: a crash must die
 * where it happened, not 3 s later in our thread. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2 */
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aggregate_recover.h"
#include "host_guard.h"
#include "mpi_extra.h"
#include "sampler.h"
#include "sp_internal.h"

#define SP_SIGNAL_GRACE_MS 3000

static struct sigaction sp_old_action[65];
static int sp_installed[65];
static int sp_pipe[2] = {-1, -1};
static volatile sig_atomic_t sp_caught;
static volatile sig_atomic_t sp_pending;     /* a default-action signal during a round */
static volatile sig_atomic_t sp_mode_before; /* the hot path's mode before the round */
static int sp_round = 1;                     /* atomic; threads flush once per round */
static int sp_flushed_threads;               /* atomic */
static pthread_t sp_watcher;

static int sp_threads_with_data(void) {
  int n = 0;
  pthread_mutex_lock(&sp__state.lock);
  for (sp_thread_t *t = sp__state.threads; t; t = t->next) n += t->nbufs > 0;
  pthread_mutex_unlock(&sp__state.lock);
  return n;
}

static int sp_default_action(int sig) {
  return sig > 0 && sig < 65 && sp_old_action[sig].sa_handler == SIG_DFL &&
         !(sp_old_action[sig].sa_flags & SA_SIGINFO);
}

/* A round is over and the signal was the host's to handle: the next flush
 * signal starts another round (else a later SIGTERM would be swallowed). */
static void sp_rearm(void) {
  sp_caught = 0; /* from here a thread's flush counts for no round */
  int signaled = SP_MODE_SIGNALED;
  const int before = sp_mode_before == SP_MODE_TRACE_SKIP ? SP_MODE_TRACE : (int)sp_mode_before;
  __atomic_compare_exchange_n(&sp__mode, &signaled, before, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
  sp__trace_mode_sync(); /* SP_MODE_TRACE_SKIP again if the trace is still paused */
  __atomic_store_n(&sp_flushed_threads, 0, __ATOMIC_RELEASE);
  __atomic_add_fetch(&sp_round, 1, __ATOMIC_ACQ_REL);
}

/* Waits until every thread with data flushed (or the grace period ends),
 * then until the writer wrote what it was handed. */
static void sp_wait_round(void) {
  char c;
  for (int waited = 0; waited < SP_SIGNAL_GRACE_MS; waited += 10) {
    if (__atomic_load_n(&sp_flushed_threads, __ATOMIC_ACQUIRE) >= sp_threads_with_data()) break;
    struct pollfd p = {sp_pipe[0], POLLIN, 0};
    if (poll(&p, 1, 10) > 0 && read(sp_pipe[0], &c, 1) < 0) { /* EINTR: poll again */
    }
  }
  sp__writer_drain();
  sp__sampler_flush();         /* SCOPE_PROFILER_SAMPLE_MS's samples in memory (sampler.c) */
  if (sp__state.cfg.aggregate) /* profile mode: aggregate_recover.c */
    sp__agg_exit_save("the program ended without sp_finalize");
}

static void *sp_watch(void *arg) {
  (void)arg;
  char c;
  int sig = 0;
  while (!sp_default_action(sig)) {
    while (read(sp_pipe[0], &c, 1) < 0 && errno == EINTR) {}
    sig = sp_caught;
    if (!sig) continue; /* a thread's "flushed" byte from an earlier round */
    sp_wait_round();
    if (sp_default_action(sig)) break;
    sp_rearm();
    sig = __atomic_exchange_n(&sp_pending, 0, __ATOMIC_ACQ_REL);
    if (sig) { /* a default-action signal came during the round: one more */
      sp_caught = sig;
      int mode = sp__mode;
      if (mode != SP_MODE_OFF && mode != SP_MODE_SIGNALED) {
        sp_mode_before = mode;
        sp__mode = SP_MODE_SIGNALED;
      }
      sp_wait_round();
    }
  }
  sigaction(sig, &sp_old_action[sig], NULL);
  sigset_t one; /* this thread blocks every signal (host_guard.c) but this one */
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_UNBLOCK, &one, NULL);
  raise(sig);
  return NULL;
}

static void sp_on_signal(int sig, siginfo_t *info, void *uctx) {
  int saved = errno;
  if (!sp_caught) {
    sp_caught = sig;
    int mode = sp__mode;
    if (mode != SP_MODE_OFF && mode != SP_MODE_SIGNALED) {
      sp_mode_before = mode;
      sp__mode = SP_MODE_SIGNALED;
    }
    char c = (char)sig;
    ssize_t w;
    SP_OWN_IO(w = write(sp_pipe[1], &c, 1));
    (void)w;
  } else if (sp_default_action(sig) && !sp_pending) {
    sp_pending = sig; /* the watcher ends the process after the running round */
  }
  const struct sigaction *old = &sp_old_action[sig];
  if (old->sa_flags & SA_SIGINFO) {
    if (old->sa_sigaction) old->sa_sigaction(sig, info, uctx);
  } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
    old->sa_handler(sig);
  }
  errno = saved;
}

int sp__signal_is_fault(int signum) {
  return signum == SIGSEGV || signum == SIGBUS || signum == SIGFPE || signum == SIGILL ||
         signum == SIGTRAP || signum == SIGSYS || signum == SIGABRT;
}

static int sp_flush_on(int signum) {
  if (signum <= 0 || signum >= 65 || signum == SIGKILL || signum == SIGSTOP) return SP_EINVAL;
  if (sp__signal_is_fault(signum)) return SP_EINVAL;
  if (sp_installed[signum]) return 0;
  if (sp_pipe[0] < 0) {
    /* Close-on-exec as every other descriptor of ours: a program the host
     * spawns must not hold the pipe (issue 43 item 12). */
    if (pipe2(sp_pipe, O_CLOEXEC) != 0) return SP_EIO;
    for (int i = 0; i < 2; i++) sp_pipe[i] = sp__fd_above_std(sp_pipe[i]); /* never 0-2 */
    if (sp__thread_spawn(&sp_watcher, sp_watch, NULL) != 0) return SP_ENOMEM;
    pthread_detach(sp_watcher);
  }
  struct sigaction old, sa;
  if (sigaction(signum, NULL, &old) != 0) return SP_EINVAL;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = sp_on_signal;
  if (old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN) {
    /* Nothing of the host's runs: interrupted calls go on as if no handler
     * were there, until the default action ends the process. */
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
  } else { /* the host's handler runs inside ours: its flags and mask */
    sa.sa_flags = (old.sa_flags & ~SA_SIGINFO) | SA_SIGINFO;
    sa.sa_mask = old.sa_mask;
  }
  sp_old_action[signum] = old;
  if (sigaction(signum, &sa, NULL) != 0) return SP_EINVAL;
  sp_installed[signum] = 1;
  return 0;
}

void sp__signal_flush_self(void) {
  sp_thread_t *t = sp__tls;
  int round = __atomic_load_n(&sp_round, __ATOMIC_ACQUIRE);
  /* No signal caught: a round just ended (sp_rearm), nothing to count. */
  if (!t || t->signal_flushed == round || !sp_caught) return;
  t->signal_flushed = round;
  /* Buffers already handed to the writer go first, keeping record order. */
  sp__writer_drain();
  for (int32_t h = 0; h < t->nbufs; h++)
    if (t->bufs[h].n > 0) sp__thread_spill_done(t, h);
  sp__mpi_extra_flush(t);
  sp__vals_flush(t);
  __atomic_add_fetch(&sp_flushed_threads, 1, __ATOMIC_RELEASE);
  char c = 0;
  ssize_t w;
  SP_OWN_IO(w = write(sp_pipe[1], &c, 1));
  (void)w;
}

int sp_flush_on_signal(int signum) {
  int rc;
  SP_KEEP_ERRNO(rc = sp_flush_on(signum));
  return rc;
}

/* SCOPE_PROFILER_FLUSH_SIGNALS, as config.c parsed it. */
void sp__signal_setup(const sp_settings_t *set) {
  for (int i = 0; i < set->nflush_signals; i++)
    if (!sp__signal_is_fault(set->flush_signals[i]) &&
        sp_flush_on_signal(set->flush_signals[i]) != 0)
      sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
              "SCOPE_PROFILER_FLUSH_SIGNALS: cannot handle signal %d", set->flush_signals[i]);
}

/* A forked child has no watcher thread, and the pipe leads to the parent's:
 * a signal in the child must not make the parent flush and raise it. The
 * child gets back the actions that were there before ours. */
void sp__signal_fork_child(void) {
  for (int sig = 1; sig < 65; sig++) {
    if (!sp_installed[sig]) continue;
    sigaction(sig, &sp_old_action[sig], NULL);
    sp_installed[sig] = 0;
  }
  if (sp_pipe[0] >= 0) {
    close(sp_pipe[0]);
    close(sp_pipe[1]);
    sp_pipe[0] = sp_pipe[1] = -1;
  }
  sp_caught = 0;
  sp_pending = 0;
  __atomic_store_n(&sp_flushed_threads, 0, __ATOMIC_RELAXED);
}
