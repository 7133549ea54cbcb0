/* session_quiesce.c - sp_setup again while other threads have recorded
 * (issue 36 item 17): an OpenMP pool whose threads recorded in one
 * parallel region and wait, idle, for the next.
 *
 * The session may be discarded once no other thread is inside a library
 * call. Every call marks its thread inside while it runs (hot_path.c,
 * sp_enter/sp_leave: a plain store and a compiler barrier). Here recording
 * is already stopped (the mode is off); membarrier() makes every other
 * thread pass a full memory barrier, so each one is either seen inside,
 * or will read the mode as off in its next call and touch nothing of its
 * record. Then it suffices that each thread is seen outside once: a call
 * that read the mode before the switch has ended by then (the release of
 * its mark orders its writes before the discard). A thread that stays
 * inside (blocked in a log callback the host installed, or in a full disk's
 * write) makes sp_setup give up after SP_QUIESCE_MS and refuse.
 * Without membarrier() (a kernel before 4.14, a seccomp filter) the old
 * rule stands: refused while another live thread has recorded. */
#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sp_internal.h"

#define SP_QUIESCE_MS 200

static int sp_mb_ok;
static pthread_once_t sp_mb_once = PTHREAD_ONCE_INIT;

static void sp_mb_register(void) {
  long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0);
  sp_mb_ok = cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
             syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) == 0;
}

/* Every thread of the process past a full barrier; 0 when done. */
static int sp_all_threads_fenced(void) {
  pthread_once(&sp_mb_once, sp_mb_register);
  return sp_mb_ok && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) == 0 ? 0 : -1;
}

/* One pass under the lock: marks the threads seen outside a call; when
 * all were, claims the discard. Returns the threads not seen outside yet. */
static int sp_quiesce_pass(const sp_thread_t *self, unsigned gen) {
  int pending = 0;
  pthread_mutex_lock(&sp__state.lock);
  for (sp_thread_t *t = sp__state.threads; t; t = t->next) {
    if (t == self || t->quiet_gen == gen) continue;
    if (__atomic_load_n(&t->inside, __ATOMIC_ACQUIRE) == 0)
      t->quiet_gen = gen;
    else
      pending++;
  }
  if (pending == 0) sp__state.discarding = 1;
  pthread_mutex_unlock(&sp__state.lock);
  return pending;
}

int sp__threads_quiesce(const sp_thread_t *self) {
  if (sp_all_threads_fenced() != 0) return sp__threads_claim_discard(self);
  static unsigned gen; /* sp_setup is not called concurrently (documented) */
  if (++gen == 0) ++gen;
  int pending = sp_quiesce_pass(self, gen);
  for (int ms = 0; pending > 0 && ms < SP_QUIESCE_MS; ms++) {
    struct timespec one_ms = {0, 1000000};
    nanosleep(&one_ms, NULL);
    pending = sp_quiesce_pass(self, gen);
  }
  return pending;
}
