/* signal_flush.c - opt-in: on a signal (SIGTERM before a scheduler's
 * SIGKILL), get the recorded events into the spill files.
 *
 * Nothing unsafe runs in the handler: it only switches the hot path to
 * SP_MODE_SIGNALED, chains to a previous handler and writes one byte to a
 * pipe. Each recording thread, on its next profiler call, appends its
 * finished events to the spill file (normal context, no HDF5). A watcher
 * thread, woken by the pipe, waits until every recording thread has done
 * so (or a grace period passes, for threads stuck elsewhere), then, if the
 * signal's action was the default one, restores it and raises the signal
 * again so the process ends as it would have. Recover with
 * `scope-profiler-merge` (README "When a job dies"). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_guard.h"
#include "sp_internal.h"

#define SP_SIGNAL_GRACE_MS 3000

static struct sigaction sp_old_action[65];
static int sp_installed[65];
static int sp_pipe[2] = {-1, -1};
static volatile sig_atomic_t sp_caught;
static int sp_flushed_threads; /* atomic */
static pthread_t sp_watcher;

static int sp_threads_with_data(void) {
  int n = 0;
  pthread_mutex_lock(&sp__state.lock);
  for (sp_thread_t *t = sp__state.threads; t; t = t->next) n += t->nbufs > 0;
  pthread_mutex_unlock(&sp__state.lock);
  return n;
}

static void *sp_watch(void *arg) {
  (void)arg;
  char c;
  while (read(sp_pipe[0], &c, 1) < 0 && errno == EINTR) {}
  int sig = sp_caught;
  for (int waited = 0; waited < SP_SIGNAL_GRACE_MS; waited += 10) {
    if (__atomic_load_n(&sp_flushed_threads, __ATOMIC_ACQUIRE) >= sp_threads_with_data()) break;
    struct pollfd p = {sp_pipe[0], POLLIN, 0};
    if (poll(&p, 1, 10) > 0) read(sp_pipe[0], &c, 1);
  }
  sp__writer_drain();
  if (sig > 0 && sig < 65 && sp_old_action[sig].sa_handler == SIG_DFL &&
      !(sp_old_action[sig].sa_flags & SA_SIGINFO)) {
    sigaction(sig, &sp_old_action[sig], NULL);
    raise(sig);
  }
  return NULL;
}

static void sp_on_signal(int sig, siginfo_t *info, void *uctx) {
  int saved = errno;
  if (!sp_caught) {
    sp_caught = sig;
    if (sp__mode != SP_MODE_OFF) sp__mode = SP_MODE_SIGNALED;
    char c = (char)sig;
    ssize_t w = write(sp_pipe[1], &c, 1);
    (void)w;
  }
  const struct sigaction *old = &sp_old_action[sig];
  if (old->sa_flags & SA_SIGINFO) {
    if (old->sa_sigaction) old->sa_sigaction(sig, info, uctx);
  } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
    old->sa_handler(sig);
  }
  errno = saved;
}

static int sp_flush_on(int signum) {
  if (signum <= 0 || signum >= 65 || signum == SIGKILL || signum == SIGSTOP) return SP_EINVAL;
  if (sp_installed[signum]) return 0;
  if (sp_pipe[0] < 0) {
    if (pipe(sp_pipe) != 0) return SP_EIO;
    for (int i = 0; i < 2; i++) sp_pipe[i] = sp__fd_above_std(sp_pipe[i]); /* never 0-2 */
    if (sp__thread_spawn(&sp_watcher, sp_watch, NULL) != 0) return SP_ENOMEM;
    pthread_detach(sp_watcher);
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = sp_on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(signum, &sa, &sp_old_action[signum]) != 0) return SP_EINVAL;
  sp_installed[signum] = 1;
  return 0;
}

void sp__signal_flush_self(void) {
  sp_thread_t *t = sp__tls;
  if (!t || t->signal_flushed) return;
  t->signal_flushed = 1;
  /* Buffers already handed to the writer go first, keeping record order. */
  sp__writer_drain();
  for (int32_t h = 0; h < t->nbufs; h++)
    if (t->bufs[h].n > 0) sp__thread_spill_done(t, h);
  __atomic_add_fetch(&sp_flushed_threads, 1, __ATOMIC_RELEASE);
  char c = 0;
  ssize_t w = write(sp_pipe[1], &c, 1);
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
    if (sp_flush_on_signal(set->flush_signals[i]) != 0)
      sp__log(1, SP_LOG_ALWAYS, "SCOPE_PROFILER_FLUSH_SIGNALS: cannot handle signal %d",
              set->flush_signals[i]);
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
  __atomic_store_n(&sp_flushed_threads, 0, __ATOMIC_RELAXED);
}
