/* fork_guard.c - fork() while a session runs: the parent goes on, the
 * child starts with recording off.
 *
 * A child is a copy of one thread: it has no writer thread (a full buffer
 * would wait for it forever), it shares the parent's spill file descriptor
 * (its events would land among the parent's) and the parent's paths (its
 * sp_finalize would replace the parent's profile and remove the parent's
 * spill file). So in the child the session is forgotten, not written: no
 * file of the parent's is touched, and calls are no-ops until the child
 * calls sp_setup, which starts a session of its own that writes
 * "<stem>.<pid><ext>" (config.c).
 *
 * The prepare handler takes the library's locks in the one order they nest
 * in (writer queue, then state, then slab, then stock, then trace windows), so the child's
 * copies of what they guard are consistent; no lock is held while another
 * is awaited elsewhere in that order, so it cannot deadlock with the writer
 * thread, the stock's thread or threads registering regions. */
#include <unistd.h>

#include "sampler.h"
#include "sp_internal.h"

static void sp_fork_prepare(void) {
  sp__sampler_fork_prepare(); /* first: its thread takes the state lock under its own */
  sp__writer_fork_prepare();
  pthread_mutex_lock(&sp__state.lock);
  sp__event_arrays_fork_lock();
  sp__stock_fork_prepare();
  sp__trace_window_fork_lock(); /* a leaf: nothing is awaited under it */
}

static void sp_fork_parent(void) {
  sp__trace_window_fork_unlock();
  sp__stock_fork_parent();
  sp__event_arrays_fork_unlock();
  pthread_mutex_unlock(&sp__state.lock);
  sp__writer_fork_parent();
  sp__sampler_fork_parent();
}

static void sp_fork_child(void) {
  sp_state_t *st = &sp__state;
  sp__trace_window_fork_unlock();
  sp__stock_fork_child();
  sp__event_arrays_fork_unlock();
  sp__mode = SP_MODE_OFF;
  sp__enabled = 0;
  sp__threads_fork_child();
  sp__spill_fork_child();
  pthread_mutex_unlock(&st->lock);
  sp__spill_close(0); /* with no descriptor: only forgets the parent's path */
  sp__region_table_reset();
  sp__calib_reset(&st->calib);
  st->session = 0;
  st->forked = 1;
  st->rank = -1; /* the child is not an MPI rank: it never calls MPI */
  st->size = 1;
  sp__log_reset_once();
  sp__session++;
  sp__signal_fork_child();
  sp__writer_fork_child();
  sp__sampler_fork_child();
}

static pthread_once_t sp_fork_once = PTHREAD_ONCE_INIT;

static void sp_fork_register(void) {
  pthread_atfork(sp_fork_prepare, sp_fork_parent, sp_fork_child);
}

void sp__fork_guard_install(void) { pthread_once(&sp_fork_once, sp_fork_register); }
