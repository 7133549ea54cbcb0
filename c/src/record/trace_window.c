/* trace_window.c - which calls the trace keeps: sp_trace_pause and
 * sp_trace_resume open and close windows of it, and
 * SCOPE_PROFILER_TRACE_MAX_MB ends it when its stamps would pass N MB.
 *
 * Both act through one int, sp__state.trace_gate, which the hot path
 * reads in place of the clock's test it made anyway: at 0 a call starts in
 * the trace, else a call that starts gets a frame without a slot
 * (SP_SLOT_SKIPPED) and its stop writes nothing. Calls open when the gate
 * closes keep their slots, so their stops are written: nesting stays
 * whole. Profile mode's aggregates do not look at the gate.
 *
 * In a trace-only session (SP_MODE_TRACE) the mode follows the gate: it
 * is SP_MODE_TRACE_SKIP while calls are left out, and the hot path's entry
 * counts them there, before the inside mark, without a frame (hot_path.c):
 * a paused pair costs the disabled path's test and a counter. */
#include <pthread.h>
#include <stdint.h>

#include "sp_internal.h"

void sp__trace_window_setup(sp_state_t *st) {
  __atomic_store_n(&st->trace_gate, st->clock_tsc ? 0 : SP_GATE_NO_TSC, __ATOMIC_RELAXED);
  const int64_t mb = st->cfg.trace_max_mb;
  __atomic_store_n(&st->trace_slots_left,
                   mb > 0 ? mb * (1024 * 1024 / (int64_t)sizeof(sp_event_t)) : INT64_MAX,
                   __ATOMIC_RELAXED);
  st->trace_truncated_ns = 0;
}

/* Serializes the gate's changes by pause and resume with the mode's
 * following them, so that the mode never says SP_MODE_TRACE_SKIP while the
 * gate is open (calls would be left out of an open trace); the other way
 * round, a moment of SP_MODE_TRACE over a closed gate, is safe. */
static pthread_mutex_t sp_window_lock = PTHREAD_MUTEX_INITIALIZER;

static void sp_mode_follow_gate(void) {
  int m = __atomic_load_n(&sp__mode, __ATOMIC_RELAXED);
  while (m == SP_MODE_TRACE || m == SP_MODE_TRACE_SKIP) {
    const int want = (sp__trace_gate() & SP_GATE_SKIP) ? SP_MODE_TRACE_SKIP : SP_MODE_TRACE;
    if (m == want ||
        __atomic_compare_exchange_n(&sp__mode, &m, want, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
      break;
  }
}

/* fork_guard.c: taken last (nothing is awaited under it), released in
 * both processes. */
void sp__trace_window_fork_lock(void) { pthread_mutex_lock(&sp_window_lock); }
void sp__trace_window_fork_unlock(void) { pthread_mutex_unlock(&sp_window_lock); }

void sp__trace_mode_sync(void) {
  pthread_mutex_lock(&sp_window_lock);
  sp_mode_follow_gate();
  pthread_mutex_unlock(&sp_window_lock);
}

/* The budget is spent: no call starts in the trace from now on. */
static void sp_trace_truncate(void) {
  const int64_t now = sp__monotonic_ns();
  int was = __atomic_fetch_or(&sp__state.trace_gate, SP_GATE_TRUNCATED, __ATOMIC_RELAXED);
  if (was & SP_GATE_TRUNCATED) return;
  sp__trace_mode_sync();
  __atomic_store_n(&sp__state.trace_truncated_ns, now, __ATOMIC_RELAXED);
  sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
          "the trace reached SCOPE_PROFILER_TRACE_MAX_MB=%d MB on this process: no call starts "
          "in it from now on (calls open now are kept whole; trace_truncated_at says when; "
          "profile mode's aggregates go on)",
          sp__state.cfg.trace_max_mb);
  /* Into the spill file now: a run killed later is merged with it. */
  if (sp__up.spill_truncated) sp__up.spill_truncated();
}

int64_t sp__trace_budget_take(int64_t want, int all_or_none) {
  if (want <= 0) return 0;
  int64_t left = __atomic_load_n(&sp__state.trace_slots_left, __ATOMIC_RELAXED);
  if (left == INT64_MAX) return want; /* no cap */
  for (;;) {
    int64_t grant = left < want ? left : want;
    if (grant <= 0 || (all_or_none && grant < want)) {
      sp_trace_truncate();
      return 0;
    }
    if (__atomic_compare_exchange_n(&sp__state.trace_slots_left, &left, left - grant, 0,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return grant;
  }
}

/* Whether a session runs; said once when not. */
static int sp_trace_window_usable(const char *what) {
  if (__atomic_load_n(&sp__state.session, __ATOMIC_RELAXED)) return 1;
  SP_KEEP_ERRNO(sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
                        "%s called before sp_setup or after sp_finalize; ignored", what));
  return 0;
}

int sp_trace_pause(void) {
  if (!sp_trace_window_usable("sp_trace_pause")) return SP_ENOTSETUP;
  pthread_mutex_lock(&sp_window_lock);
  __atomic_fetch_or(&sp__state.trace_gate, SP_GATE_PAUSED, __ATOMIC_RELAXED);
  sp_mode_follow_gate();
  pthread_mutex_unlock(&sp_window_lock);
  return 0;
}

int sp_trace_resume(void) {
  if (!sp_trace_window_usable("sp_trace_resume")) return SP_ENOTSETUP;
  pthread_mutex_lock(&sp_window_lock);
  __atomic_fetch_and(&sp__state.trace_gate, ~SP_GATE_PAUSED, __ATOMIC_RELAXED);
  sp_mode_follow_gate();
  pthread_mutex_unlock(&sp_window_lock);
  return 0;
}

int sp_trace_paused(void) { return (sp__trace_gate() & SP_GATE_SKIP) != 0; }
