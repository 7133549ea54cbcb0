/* crash_drain.c - a crash (SIGABRT of an uncaught C++ exception or an
 * assert, SIGSEGV, SIGBUS, SIGFPE, SIGILL) waits until the background
 * writer has written the buffers handed to it, then ends as it would have.
 *
 * A full buffer handed to the writer thread (flush_writer.c) is out of the
 * recording thread's hands: without this, a crash right after the handoff
 * lost it (2000 of 10000 events in 1 of 2 runs, issue 36 item 23), while
 * a synchronous flush would have had it on disk. Installed while the
 * writer thread runs. The handler, on the crashing thread, only polls the
 * writer's progress counters (lock-free) with nanosleep, and gives up when
 * the writer makes no progress for SP_CRASH_STALL_MS (it may wait for a
 * lock the crashing thread holds). Then a handler the host had installed
 * before ours runs; with the default action, the signal is raised again
 * (or, for a fault, the instruction faults again) so the process ends
 * where and how it would have, core included. Calls still in the threads'
 * own buffers are not written: that is FLUSH_SIGNALS's job, for signals
 * that are not faults (signal_flush.c). */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "sp_internal.h"

#define SP_CRASH_STALL_MS 2000

static const int sp_crash_sigs[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
#define SP_NCRASH ((int)(sizeof sp_crash_sigs / sizeof sp_crash_sigs[0]))
static struct sigaction sp_crash_old[SP_NCRASH];
static int sp_crash_on[SP_NCRASH];
/* Where ours runs for that signal: the frame and the context of the
 * innermost call still running, and how many deep. A host handler
 * installed over ours that chains back to it, then saved as "the host's"
 * at a later install (a second session), would otherwise call ours again
 * without end. A flag set on entry and cleared on return is not enough:
 * a host handler that recovers with siglongjmp (JITs, garbage collectors,
 * memory probes) never returns into ours, and the stale flag then ended
 * the process at its next fault (issue 43 item 3). So a call counts as
 * chained only if it runs deeper on the stack than the recorded one and
 * with the same context (a chain passes its ucontext on; a new fault's
 * frame is built afresh where it faults), or when it is already the
 * SP_CRASH_DEEP-th call inside one another (a chain that copies the
 * context). A longjmp out of the host's handler leaves the record behind,
 * but the next fault from where the program went on runs no deeper than
 * the recorded one with the same context. */
#define SP_CRASH_DEEP 8
static volatile uintptr_t sp_crash_frame[SP_NCRASH];
static void *volatile sp_crash_uctx[SP_NCRASH];
static volatile sig_atomic_t sp_crash_depth[SP_NCRASH];

static int sp_crash_index(int sig) {
  for (int k = 0; k < SP_NCRASH; k++)
    if (sp_crash_sigs[k] == sig) return k;
  return -1;
}

/* Async-signal-safe: atomics, nanosleep. */
static void sp_crash_wait_writer(void) {
  int64_t last = sp__up.writer_progress();
  for (int stalled = 0; sp__up.writer_behind() && stalled < SP_CRASH_STALL_MS; stalled++) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
    int64_t now = sp__up.writer_progress();
    if (now != last) stalled = 0;
    last = now;
  }
}

/* As if we had not been there: the default action from now on. A signal
 * that was sent (abort(), kill) is raised again and delivered when the
 * handler returns; a fault's instruction faults again. */
static void sp_crash_default(int sig, int k, const siginfo_t *info) {
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
  sp_crash_on[k] = 0;
  if (!info || info->si_code <= 0) raise(sig);
}

/* Whether this call of ours, at frame `here` with context uctx, is one
 * that a host's handler chained back into from ours (see sp_crash_frame);
 * else records it as the innermost. */
static int sp_crash_chained(int k, uintptr_t here, void *uctx) {
  int depth = sp_crash_depth[k];
  if (depth > 0 && here < sp_crash_frame[k]) { /* inside ours, or below a stale record */
    if (uctx == sp_crash_uctx[k] || depth >= SP_CRASH_DEEP) return 1;
    depth++; /* a new fault inside the host's handler, or a record longjmp'ed past */
  } else {
    depth = 1;
  }
  sp_crash_depth[k] = depth;
  sp_crash_frame[k] = here;
  sp_crash_uctx[k] = uctx;
  return 0;
}

static void sp_on_crash(int sig, siginfo_t *info, void *uctx) {
  int saved = errno;
  int k = sp_crash_index(sig);
  if (k < 0) return;
  uintptr_t here = (uintptr_t)__builtin_frame_address(0);
  uintptr_t outer_frame = sp_crash_frame[k];
  void *outer_uctx = sp_crash_uctx[k];
  int outer_depth = sp_crash_depth[k];
  if (sp_crash_chained(k, here, uctx)) { /* back in ours through the host's chain: end it */
    sp_crash_default(sig, k, info);
    errno = saved;
    return;
  }
  sp_crash_wait_writer();
  const struct sigaction *old = &sp_crash_old[k];
  errno = saved; /* the host's handler sees the program's errno, and may change it */
  if (old->sa_flags & SA_SIGINFO) {
    if (old->sa_sigaction) old->sa_sigaction(sig, info, uctx);
  } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
    old->sa_handler(sig);
  } else {
    sp_crash_default(sig, k, info);
    errno = saved;
  }
  /* The host's handler returned: the record is as before this call. */
  sp_crash_frame[k] = outer_frame;
  sp_crash_uctx[k] = outer_uctx;
  sp_crash_depth[k] = outer_depth;
}

void sp__crash_drain_install(void) {
  for (int k = 0; k < SP_NCRASH; k++) {
    if (sp_crash_on[k]) continue;
    struct sigaction old, sa;
    if (sigaction(sp_crash_sigs[k], NULL, &old) != 0) continue;
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue; /* the host's choice */
    if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction == sp_on_crash) {    /* still ours */
      sp_crash_on[k] = 1;
      continue;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = sp_on_crash;
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL) {
      sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
      sigemptyset(&sa.sa_mask);
    } else { /* the host's handler runs inside ours: its flags and mask */
      sa.sa_flags = old.sa_flags | SA_SIGINFO;
      sa.sa_mask = old.sa_mask;
    }
    sp_crash_old[k] = old;
    if (sigaction(sp_crash_sigs[k], &sa, NULL) == 0) sp_crash_on[k] = 1;
  }
}

/* Puts back what was there, unless the host replaced ours since. */
void sp__crash_drain_remove(void) {
  for (int k = 0; k < SP_NCRASH; k++) {
    if (!sp_crash_on[k]) continue;
    struct sigaction cur;
    if (sigaction(sp_crash_sigs[k], NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
        cur.sa_sigaction == sp_on_crash)
      sigaction(sp_crash_sigs[k], &sp_crash_old[k], NULL);
    sp_crash_on[k] = 0;
  }
}
