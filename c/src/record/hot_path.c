/* hot_path.c - sp_start / sp_stop and their by-name forms.
 *
 * The fast path of a traced start is: one mode test, the thread-local
 * record, three bounds checks, a slot reservation and a clock read; a stop
 * reads the clock first and writes one int64. Everything unusual (first
 * call on a thread or region, full buffer, misuse) goes to out-of-line
 * slow paths. */
#include <stdint.h>
#include <string.h>

#include "aggregate.h"
#include "sp_internal.h"

/* The header's macros would shadow the definitions below. */
#undef sp_start
#undef sp_stop
#undef sp_start_name
#undef sp_stop_name

/* The mode, read with acquire: what sp_setup wrote before turning it on
 * (the config, the clock) is seen by a thread that reads it on; a second
 * sp_setup turns it off under threads that record (session_quiesce.c).
 * A plain load on x86. */
#define SP_MODE() ((int)__atomic_load_n(&sp__mode, __ATOMIC_ACQUIRE))

static void sp_misuse(sp_misuse_t kind) {
  __atomic_fetch_add(&sp__state.misuse[kind], 1, __ATOMIC_RELAXED);
}

/* Set while this thread runs a slow path (locks, allocations, the
 * writer's queue). A signal handler that interrupts one and calls the
 * library again would deadlock or corrupt the heap: that call is dropped
 * and counted (SP_MISUSE_REENTERED), nothing else is done in it (no log:
 * stdio is not async-signal-safe). The fast paths need no mark. */
static __thread int sp_in_slow __attribute__((tls_model("initial-exec")));

static inline int sp_slow_enter(void) {
  if (SP_UNLIKELY(sp_in_slow)) {
    sp_misuse(SP_MISUSE_REENTERED);
    return 0;
  }
  sp_in_slow = 1;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  return 1;
}

static inline void sp_slow_leave(void) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  sp_in_slow = 0;
}

/* Marks the calling thread inside a library call for as long as it runs
 * one: a second sp_setup discards the session only when every other
 * thread has been outside one since recording stopped
 * (session_quiesce.c). A plain store and a compiler barrier: sp_setup
 * pairs them with membarrier(). A count, so that a call from a signal
 * handler does not end the mark of the call it interrupted. A thread
 * without a record yet is marked when the slow path makes it. */
static inline void sp_enter(void) {
  sp_thread_t *t = sp__tls;
  if (SP_LIKELY(t != NULL))
    __atomic_store_n(&t->inside, __atomic_load_n(&t->inside, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline void sp_leave(void) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  sp_thread_t *t = sp__tls;
  if (SP_LIKELY(t != NULL))
    __atomic_store_n(&t->inside, __atomic_load_n(&t->inside, __ATOMIC_RELAXED) - 1,
                     __ATOMIC_RELEASE);
}

static const char *sp_region_name_or(int32_t h) {
  if (h == SP_REGION_SKIPS) return "(a call started while the trace was paused)";
  return (h >= 0 && h < sp__region_count()) ? sp__region_get(h)->name : "(invalid handle)";
}

/* ---- calls left out of the trace, counted without frames ----------- */

/* A trace-only session (SP_MODE_TRACE or SP_MODE_TRACE_SKIP): no profile
 * mode, LIKWID or NVTX, which need each call's frame. */
static inline int sp_trace_only(void) {
  return sp__state.cfg.time_trace && !sp__state.cfg.aggregate && !sp__state.cfg.use_likwid &&
         !sp__state.cfg.nvtx;
}

/* In a trace-only session a call that starts while the trace is paused or
 * truncated is counted in the thread's sp__skips, without a frame: such
 * calls are all inside the innermost frame (sp_skips_note), so while the
 * count is above 0 a stop is one of theirs. Relaxed atomics: the paused
 * entry below writes it outside the inside mark, where a second sp_setup
 * may clear it (docs/design.md, "A paused trace"). Plain loads and stores
 * on x86.
 *
 * The paused entry's add: 0 (the count put back) when it would leave the
 * count at 0 or below, that is, the thread has no record (SP_SKIPS_NONE)
 * or its record is not armed (SP_SKIPS_REST): the call must go the slow
 * way, which makes the record, arms it and counts the call there. */
static inline int sp_skip_add(void) {
  const int64_t n = __atomic_load_n(&sp__skips, __ATOMIC_RELAXED) + 1;
  __atomic_store_n(&sp__skips, n, __ATOMIC_RELAXED);
  if (SP_LIKELY(n > 0)) return 1;
  __atomic_store_n(&sp__skips, n - 1, __ATOMIC_RELAXED);
  return 0;
}

/* Counts a call left out on t's thread from a path that holds t: arms t
 * first (the traced fast paths then take the slow path, which notes the
 * calls), so that the count is never above -1 while t is not armed; a
 * count at rest (-1, also met armed inside sp_skips_disarm) is none. */
static inline void sp_skip_count(sp_thread_t *t) {
  if (SP_UNLIKELY(!t->skips_armed)) {
    __atomic_store_n(&t->skips_armed, 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
  }
  const int64_t n = sp__skips_open();
  __atomic_store_n(&sp__skips, (n < 0 ? 0 : n) + 1, __ATOMIC_RELAXED);
}

/* With no call left out open on t's thread: the count back at rest and t
 * no longer armed, so that its traced calls take the fast paths again. A
 * signal handler that counts a call between the two stores arms t again
 * (its paused start finds the count at rest and takes the slow path): the
 * test after them keeps t armed then. Slow paths only. */
static void sp_skips_disarm(sp_thread_t *t) {
  if (sp__skips_open() > 0) return;
  __atomic_store_n(&sp__skips, SP_SKIPS_REST, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  __atomic_store_n(&t->skips_armed, 0, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (sp__skips_open() != SP_SKIPS_REST) __atomic_store_n(&t->skips_armed, 1, __ATOMIC_RELAXED);
}

static inline int sp_skip_end(void) {
  const int64_t n = __atomic_load_n(&sp__skips, __ATOMIC_RELAXED);
  if (n <= 0) return 0;
  __atomic_store_n(&sp__skips, n - 1, __ATOMIC_RELAXED);
  return 1;
}

/* Before a frame is pushed over calls counted in sp__skips: notes them
 * as frames of SP_REGION_SKIPS (one per INT32_MAX calls, added to such a
 * frame on top), so that the stops keep their order. A count left over from
 * another kind of session (a paused call in flight while sp_setup replaced
 * the session) is dropped. 0, or SP_ENOMEM (the count kept). */
static int sp_skips_note(sp_thread_t *t) {
  int64_t n = sp__skips_open();
  if (n <= 0 || !sp_trace_only()) {
    if (n > 0) __atomic_store_n(&sp__skips, 0, __ATOMIC_RELAXED); /* dropped */
    sp_skips_disarm(t);
    return 0;
  }
  while (n > 0) {
    sp_frame_t *top = t->depth > 0 ? &t->stack[t->depth - 1] : NULL;
    if (top && top->region == SP_REGION_SKIPS && top->skips < INT32_MAX) {
      const int64_t add = n < INT32_MAX - top->skips ? n : INT32_MAX - top->skips;
      top->skips += (int32_t)add;
      n -= add;
      continue;
    }
    if (t->depth == t->stack_cap && sp__stack_grow(t) != 0) {
      __atomic_store_n(&sp__skips, n, __ATOMIC_RELAXED);
      return SP_ENOMEM;
    }
    sp_frame_t *f = &t->stack[t->depth++];
    f->region = SP_REGION_SKIPS;
    f->skips = 0;
    f->slot = SP_SLOT_SKIPPED;
  }
  __atomic_store_n(&sp__skips, 0, __ATOMIC_RELAXED);
  sp_skips_disarm(t);
  return 0;
}

/* Pushes a call of h, reserving its event slot; room was checked. */
static inline void sp_push_traced(sp_thread_t *t, sp_rbuf_t *b, int h) {
  int64_t slot = b->n++;
  sp_frame_t *f = &t->stack[t->depth++];
  f->region = h;
  f->slot = slot;
  b->ev[slot].start = sp__ticks();
}

/* Pushes a call of h left out of the trace (paused or truncated). */
static inline void sp_push_skipped(sp_thread_t *t, int h) {
  sp_frame_t *f = &t->stack[t->depth++];
  f->region = h;
  f->slot = SP_SLOT_SKIPPED;
}

/* Everything a start may need before it can push: a thread record, a
 * buffer for h, stack and buffer room. Returns the record or NULL; *skip
 * says whether the call is left out of the trace (trace_window.c), read
 * once here so that a pause elsewhere cannot push into a full buffer. */
static __attribute__((noinline)) sp_thread_t *sp_start_prepare(int h, int *skip) {
  *skip = 0;
  sp_thread_t *t = sp__thread_get();
  if (!t) goto nomem;
  if (h < 0 || h >= sp__region_count()) {
    sp_misuse(SP_MISUSE_INVALID_HANDLE);
    sp__log(SP_LOG_WARNING, SP_LOG_ONCE_INVALID_HANDLE,
            "sp_start(%d): not a handle from sp_region; ignored", h);
    return NULL;
  }
  int rc = sp__thread_reserve(t, h);
  if (rc == SP_EBUSY) return NULL; /* sp_setup is replacing the session right now */
  if (rc != 0) goto nomem;
  if (sp__state.cfg.time_trace && !(*skip = (sp__trace_gate() & SP_GATE_SKIP) != 0)) {
    sp_rbuf_t *b = &t->bufs[h];
    if (b->n == b->cap) sp__rbuf_make_room(t, h);
    if (b->n == b->cap) {
      /* TRACE_MAX_MB's budget is spent: not a loss, the end of the trace */
      if (!(sp__trace_gate() & SP_GATE_TRUNCATED)) goto nomem;
      *skip = 1;
    }
  }
  if (*skip && sp_trace_only()) return t; /* counted: no frame (sp_skip_add) */
  if (sp_skips_note(t) != 0) goto nomem;
  if (t->depth == t->stack_cap && sp__stack_grow(t) != 0) goto nomem;
  return t;
nomem:
  __atomic_fetch_add(&sp__state.events_lost, 1, __ATOMIC_RELAXED);
  sp__log(SP_LOG_ERROR, SP_LOG_ONCE_NOMEM, "out of memory: calls are not recorded");
  return NULL;
}

/* A call while no session runs (before sp_setup, after sp_finalize) is
 * counted and reported once; with profiling_activated = 0 calls are
 * silent no-ops. Only reached when the mode is off: costs nothing else. */
static __attribute__((noinline)) void sp_not_active(void) {
  if (__atomic_load_n(&sp__state.session, __ATOMIC_RELAXED)) return;
  if (sp__state.forked) { /* fork_guard.c: not misuse, the documented state */
    sp__log(SP_LOG_INFO, SP_LOG_ONCE_FORKED,
            "this process was forked from a profiled one: its calls are not recorded unless "
            "it calls sp_setup");
    return;
  }
  sp_misuse(SP_MISUSE_NOT_ACTIVE);
  sp__log(SP_LOG_WARNING, SP_LOG_ONCE_NOT_ACTIVE,
          "region call before sp_setup or after sp_finalize; ignored (calls made then are "
          "not recorded)");
}

/* profiling_activated = 0: calls are silent no-ops, and cost a test. */
static inline int sp_quiet_off(void) {
  return SP_MODE() == SP_MODE_OFF && __atomic_load_n(&sp__state.session, __ATOMIC_RELAXED);
}

/* A call while the mode is off (profiling_activated = 0, no session)
 * needs no inside mark: it touches no thread record, only reports misuse. */
static __attribute__((noinline, aligned(64))) void sp_call_off(void) {
  if (sp_quiet_off() || !sp_slow_enter()) return;
  int saved_errno = errno;
  sp_not_active();
  errno = saved_errno;
  sp_slow_leave();
}

#define SP_OFF_RETURN(...)                       \
  do {                                           \
    if (SP_UNLIKELY(SP_MODE() == SP_MODE_OFF)) { \
      sp_call_off();                             \
      return __VA_ARGS__;                        \
    }                                            \
  } while (0)

/* The entry of a start or stop: the mode off, and a trace-only session
 * whose trace is paused or truncated (SP_MODE_TRACE_SKIP, below OFF), go
 * aside without saving a register before these tests, so that the traced
 * path keeps its code. The paused way (skip: one add to or take from the
 * thread's count, sp__skips, else a tail call) falls through; with the
 * mode off, a quiet no-op (profiling_activated = 0) returns after one
 * test of the session, and a call outside a session goes to sp_call_off
 * by a tail call. No more taken branches on either way than the disabled
 * path had with its test of the session in sp_call_off (docs/design.md,
 * "A paused trace"). */
#define SP_ENTRY(skip)                                                                \
  do {                                                                                \
    const int sp_mode_ = SP_MODE();                                                   \
    if (SP_UNLIKELY(sp_mode_ <= SP_MODE_OFF)) {                                       \
      if (SP_LIKELY(sp_mode_ < SP_MODE_OFF)) {                                        \
        skip;                                                                         \
      } else if (SP_UNLIKELY(!__atomic_load_n(&sp__state.session, __ATOMIC_RELAXED))) \
        sp_call_off();                                                                \
      return;                                                                         \
    }                                                                                 \
  } while (0)

/* Calls in count-only form: count mode, or LIKWID without time_trace. */
static inline int sp_counting(void) {
  return SP_MODE() == SP_MODE_COUNT || (SP_MODE() >= SP_MODE_GENERAL && !sp__state.cfg.time_trace);
}

static __attribute__((noinline)) void sp_start_other(int h) {
  if (SP_MODE() == SP_MODE_OFF) {
    sp_not_active();
    return;
  }
  if (SP_MODE() == SP_MODE_SIGNALED) sp__up.signal_flush_self();
  int skip;
  sp_thread_t *t = sp_start_prepare(h, &skip);
  if (!t) return;
  if (sp__state.cfg.use_likwid) sp__up.likwid_start(h);
  if (sp__state.cfg.nvtx) sp__up.nvtx_start(h); /* SCOPE_PROFILER_NVTX=1 */
  if (sp_counting()) {
    sp_frame_t *f = &t->stack[t->depth++];
    f->region = h;
    f->slot = SP_SLOT_COUNTED;
  } else if (skip && sp_trace_only()) {
    sp_skip_count(t);
    return;
  } else if (skip) {
    sp_push_skipped(t, h);
  } else {
    sp_push_traced(t, &t->bufs[h], h);
  }
  if (sp__state.cfg.aggregate) { /* profile mode: the same start stamp as the trace */
    const sp_frame_t *f = &t->stack[t->depth - 1];
    sp__agg_start(t, h, t->depth - 1, f->slot >= 0 ? t->bufs[h].ev[f->slot].start : sp__ticks());
  }
}

/* Every start the fast path below does not take: another mode, a clock
 * other than the TSC, a first call, a full buffer or stack, misuse. Keeps
 * errno here so that the fast path needs no stack frame. */
static __attribute__((noinline)) void sp_start_slow(int h) {
  if (sp_quiet_off() || !sp_slow_enter()) return;
  int saved_errno = errno;
  if (SP_MODE() != SP_MODE_TRACE) {
    sp_start_other(h);
  } else {
    int skip;
    sp_thread_t *t = sp_start_prepare(h, &skip);
    if (t && skip)
      sp_skip_count(t); /* SP_MODE_TRACE: a trace-only session */
    else if (t)
      sp_push_traced(t, &t->bufs[h], h);
  }
  errno = saved_errno;
  sp_slow_leave();
}

/* Profile mode alone (aggregate, no trace, no LIKWID markers). */
static inline int sp_profile_alone(void) {
  return !sp__state.cfg.time_trace && sp__state.cfg.aggregate && !sp__state.cfg.use_likwid &&
         !sp__state.cfg.nvtx;
}

/* A start in profile mode alone whose call path's node is known already
 * (the call's parent, or the thread's last outermost call, saw it last):
 * no slow path, no allocation. 0 when it is not that simple (issue 44:
 * the slow path cost ~10 ns a pair more). */
static inline int sp_profile_start_fast(sp_thread_t *t, int h) {
  if (!t || (unsigned)h >= (unsigned)t->nbufs || t->depth == t->stack_cap || !sp_profile_alone() ||
      sp_in_slow) /* a signal handler inside a slow path: that path counts it */
    return 0;
  const int32_t d = t->depth;
  if (!sp__agg_start_known(t, h, d, sp__ticks())) return 0;
  sp_frame_t *f = &t->stack[d];
  f->region = h;
  f->slot = -1;
  t->depth = d + 1;
  return 1;
}

/* The fast path of a start, shared by sp_start and the by-name start: a
 * leaf with no stack frame; everything else is one call to a slow path. */
static inline void sp_start_fast(sp_thread_t *t, int h) {
  const int mode = SP_MODE();
  /* The mode first: while it is off, sp_setup may be changing the record.
   * Calls counted in sp__skips are noted as a frame first (slow path). */
  if (SP_UNLIKELY(mode != SP_MODE_TRACE || !t || (unsigned)h >= (unsigned)t->nbufs ||
                  t->depth == t->stack_cap || t->skips_armed)) {
    if (mode == SP_MODE_COUNT && t && (unsigned)h < (unsigned)t->nbufs &&
        t->depth != t->stack_cap) { /* counts only: a frame without a slot */
      sp_frame_t *f = &t->stack[t->depth++];
      f->region = h;
      f->slot = -1;
      return;
    }
    if (mode == SP_MODE_TRACE_SKIP && t) { /* by name: the entry did not count it */
      sp_skip_count(t);
      return;
    }
    if (mode == SP_MODE_GENERAL && sp_profile_start_fast(t, h)) return;
    sp_start_slow(h);
    return;
  }
  /* The gate in place of a test of the clock: 0 is the TSC with the trace
   * open; a call left out is counted (the mode follows the gate a moment
   * later, SP_MODE_TRACE_SKIP, and the entry counts it). */
  const int gate = sp__trace_gate();
  if (SP_UNLIKELY(gate)) {
    if (gate & SP_GATE_SKIP) {
      sp_skip_count(t);
      return;
    }
    sp_start_slow(h);
    return;
  }
  sp_rbuf_t *b = &t->bufs[h];
  if (SP_UNLIKELY(b->n == b->cap)) {
    sp_start_slow(h);
    return;
  }
  int64_t slot = b->n++;
  sp_frame_t *f = &t->stack[t->depth++];
  f->region = h;
  f->slot = slot;
  b->ev[slot].start = (int64_t)sp__rdtsc();
}

static __attribute__((noinline)) void sp_start_marked(int h) {
  sp_enter();
  sp_start_fast(sp__tls, h);
  sp_leave();
}

/* While a trace-only session's trace is paused or truncated
 * (SP_MODE_TRACE_SKIP) a start is counted; a thread without a record
 * takes the marked path, which makes one and counts the call there. */
void sp_start(int h) {
  SP_ENTRY({
    if (SP_LIKELY(sp_skip_add())) return;
    sp_start_marked(h);
  });
  sp_enter();
  sp_start_fast(sp__tls, h);
  sp_leave();
}

/* Closes frame d of t at time now. */
static inline void sp_close_frame(sp_thread_t *t, const sp_frame_t *f, int64_t now) {
  if (f->slot >= 0) {
    t->bufs[f->region].ev[f->slot].end = now;
  } else if (f->slot == SP_SLOT_COUNTED) {
    t->bufs[f->region].calls++;
  }
}

/* A stop that does not match the innermost open call. */
static __attribute__((noinline)) void sp_stop_unusual(int h, int64_t now) {
  sp_thread_t *t = sp__tls;
  int32_t d = t ? t->depth - 1 : -1;
  /* A frame of calls left out of the trace may be the call of h */
  while (d >= 0 && t->stack[d].region != h && t->stack[d].region != SP_REGION_SKIPS) d--;
  if (d < 0) {
    sp_misuse(SP_MISUSE_STOP_WITHOUT_START);
    sp__log(SP_LOG_WARNING, SP_LOG_ONCE_STOP_WITHOUT_START,
            "sp_stop of region '%s' with no open call of it on this thread; ignored",
            sp_region_name_or(h));
    return;
  }
  sp_misuse(SP_MISUSE_STOP_MISMATCH);
  sp__log(SP_LOG_WARNING, SP_LOG_ONCE_STOP_MISMATCH,
          "sp_stop of region '%s' while '%s' is the innermost open call; the %d call(s) "
          "opened inside it are dropped",
          sp_region_name_or(h), sp_region_name_or(t->stack[t->depth - 1].region),
          (int)(t->depth - 1 - d));
  if (sp__state.cfg.use_likwid) /* the dropped calls' LIKWID regions end too */
    for (int32_t i = t->depth - 1; i > d; i--) sp__up.likwid_stop(t->stack[i].region);
  if (sp__state.cfg.nvtx) /* and their NVTX ranges */
    for (int32_t i = t->depth - 1; i > d; i--) sp__up.nvtx_stop(t->stack[i].region);
  sp__frames_drop_above(t, d);
  if (t->stack[d].region == SP_REGION_SKIPS) { /* trace-only: no aggregate, LIKWID, NVTX */
    if (--t->stack[d].skips <= 0) t->depth = d;
    return;
  }
  sp_close_frame(t, &t->stack[d], now);
  if (sp__state.cfg.aggregate) sp__agg_stop(t, d, now);
  t->depth = d;
  if (sp__state.cfg.use_likwid) sp__up.likwid_stop(h);
  if (sp__state.cfg.nvtx) sp__up.nvtx_stop(h);
}

/* A stop of calls left out of the trace in a trace-only session: the
 * innermost is counted (sp__skips) or a frame of such calls. */
static int sp_stop_skipped(sp_thread_t *t) {
  if (sp__skips_open() > 0) {
    if (sp_trace_only()) return sp_skip_end();
    __atomic_store_n(&sp__skips, 0, __ATOMIC_RELAXED); /* from another session (sp_skips_note) */
  }
  sp_skips_disarm(t);
  if (t->depth == 0) return 0;
  sp_frame_t *f = &t->stack[t->depth - 1];
  if (f->region != SP_REGION_SKIPS) return 0;
  if (--f->skips <= 0) t->depth--;
  return 1;
}

static inline void sp_stop_at(int h, int64_t now) {
  sp_thread_t *t = sp__tls;
  if (t && sp_stop_skipped(t)) return;
  if (SP_UNLIKELY(!t || t->depth == 0)) goto unusual;
  const sp_frame_t *f = &t->stack[t->depth - 1];
  if (SP_UNLIKELY(f->region != h)) goto unusual;
  t->depth--;
  sp_close_frame(t, f, now);
  if (SP_UNLIKELY(sp__state.cfg.aggregate)) sp__agg_stop(t, t->depth, now);
  if (SP_UNLIKELY(SP_MODE() >= SP_MODE_GENERAL)) {
    if (sp__state.cfg.use_likwid) sp__up.likwid_stop(h);
    if (sp__state.cfg.nvtx) sp__up.nvtx_stop(h);
  }
  return;
unusual:
  sp_stop_unusual(h, now);
}

static inline int64_t sp_stop_stamp(void) {
  return sp_counting() && !sp__state.cfg.aggregate ? 0 : sp__ticks();
}

/* A stop the fast path below does not finish, stamped at now (TSC mode)
 * or not yet stamped (any other mode: stamped here). */
static __attribute__((noinline)) void sp_stop_slow(int h, int64_t now, int stamped) {
  if (sp_quiet_off() || !sp_slow_enter()) return;
  int saved_errno = errno;
  if (SP_MODE() == SP_MODE_OFF) {
    sp_not_active();
  } else {
    sp_stop_at(h, stamped ? now : sp_stop_stamp());
    if (SP_MODE() == SP_MODE_SIGNALED) sp__up.signal_flush_self();
  }
  errno = saved_errno;
  sp_slow_leave();
}

/* Whether the fast paths may run: trace mode with TSC stamps, the trace
 * open (the gate is 0). */
static inline int sp_fast_mode(void) {
  return SP_LIKELY(SP_MODE() == SP_MODE_TRACE) && SP_LIKELY(sp__trace_gate() == 0);
}

/* Closes the innermost call of t at now if it is a traced call of h (not
 * while calls counted without frames are open: the innermost is one). */
static inline int sp_stop_fast(sp_thread_t *t, int h, int64_t now) {
  if (SP_UNLIKELY(!t || t->depth == 0 || t->skips_armed)) return 0;
  const sp_frame_t *f = &t->stack[t->depth - 1];
  if (SP_UNLIKELY(f->region != h || f->slot < 0)) return 0;
  t->depth--;
  t->bufs[h].ev[f->slot].end = now;
  return 1;
}

/* Closes the innermost call of t if it is a counted call of h. */
static inline int sp_stop_count_fast(sp_thread_t *t, int h) {
  if (SP_UNLIKELY(!t || t->depth == 0)) return 0;
  const sp_frame_t *f = &t->stack[t->depth - 1];
  if (SP_UNLIKELY(f->region != h || f->slot != SP_SLOT_COUNTED)) return 0;
  t->depth--;
  t->bufs[h].calls++;
  return 1;
}

/* Closes the innermost call of t in profile mode alone if it is a call of h
 * (what sp_stop_at does for it, without the slow path's marks). */
static inline int sp_stop_profile_fast(sp_thread_t *t, int h) {
  if (SP_UNLIKELY(!t || t->depth == 0 || !sp_profile_alone() || sp_in_slow)) return 0;
  const sp_frame_t *f = &t->stack[t->depth - 1];
  if (SP_UNLIKELY(f->region != h || f->slot >= 0)) return 0;
  const int64_t now = sp__ticks();
  t->depth--;
  t->bufs[h].calls++;
  sp__agg_stop_fast(t, t->depth, now);
  return 1;
}

static inline void sp_stop_impl(int h) {
  if (SP_UNLIKELY(!sp_fast_mode())) {
    const int mode = SP_MODE(); /* once: each read is a load */
    if (mode == SP_MODE_COUNT && sp_stop_count_fast(sp__tls, h)) return;
    /* a trace-only session's call left out: counted (no clock read) */
    if ((mode == SP_MODE_TRACE || mode == SP_MODE_TRACE_SKIP) && sp_skip_end()) return;
    if (mode == SP_MODE_GENERAL && sp_stop_profile_fast(sp__tls, h)) return;
    sp_stop_slow(h, 0, 0);
    return;
  }
  int64_t now = (int64_t)sp__rdtsc();
  if (SP_UNLIKELY(!sp_stop_fast(sp__tls, h, now))) sp_stop_slow(h, now, 1);
}

/* A stop the paused entry could not end, with the mark: the slow path
 * reads the mode again and stamps the call itself if it is traced. */
static __attribute__((noinline)) void sp_stop_marked(int h) {
  sp_enter();
  sp_stop_slow(h, 0, 0);
  sp_leave();
}

/* While SP_MODE_TRACE_SKIP a stop ends a call counted, or takes the
 * marked path (a call open before the pause). */
void sp_stop(int h) {
  SP_ENTRY({
    if (SP_LIKELY(sp_skip_end())) return;
    sp_stop_marked(h);
  });
  sp_enter();
  sp_stop_impl(h);
  sp_leave();
}

static void sp_add_calls(int h, int64_t n) {
  sp_thread_t *t = sp__thread_get();
  if (!t || h < 0 || sp__thread_reserve(t, h) != 0) return;
  int64_t *calls = &t->bufs[h].calls;
  *calls = n >= SP_CALLS_SAT - *calls ? SP_CALLS_SAT : *calls + n; /* saturates */
}

/* Profile mode keeps calls with a duration and a call path: counted calls
 * have neither (docs/profile-mode.md), so they go to the trace's num_calls
 * only; without a trace they are left out, said once. */
static void sp_add_calls_untimed_note(int64_t n) {
  static int told;
  if (!sp__state.cfg.aggregate || sp__state.cfg.time_trace ||
      __atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
    return;
  sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
          "sp_region_add_calls: profile mode alone (time_trace = 0) keeps calls with their "
          "durations only; %lld call(s) counted without one are not in the aggregates (this "
          "message is not repeated)",
          (long long)n);
}

void sp_region_add_calls(int h, int64_t n) {
  if (n <= 0) return;
  sp_enter();
  if (SP_MODE() != SP_MODE_OFF && sp_slow_enter()) { /* the mode read inside the mark */
    SP_KEEP_ERRNO(sp_add_calls(h, n));
    SP_KEEP_ERRNO(sp_add_calls_untimed_note(n));
    sp_slow_leave();
  }
  sp_leave();
}

/* ---- by name ------------------------------------------------------- */

static int sp_name_ok(const char *name, size_t len) {
  if (SP_LIKELY(name && len > 0 && len <= SP_NAME_MAX)) return 1;
  sp_misuse(SP_MISUSE_BAD_NAME);
  sp__log(SP_LOG_WARNING, SP_LOG_ONCE_BAD_NAME, "region name is %s; ignored",
          !name      ? "NULL"
          : len == 0 ? "empty"
                     : "longer than SP_NAME_MAX (4096) bytes");
  return 0;
}

int sp_region_n(const char *name, size_t len) {
  if (!name || len == 0) return SP_EINVAL;
  if (len > SP_NAME_MAX) return SP_ENAMETOOLONG;
  if (!sp_slow_enter()) return SP_EBUSY;
  int h = sp__region_lookup(name, len, sp__name_hash(name, len));
  if (h < 0) SP_KEEP_ERRNO(h = sp__region_register(name, len));
  sp_slow_leave();
  return h;
}

int sp_region(const char *name) {
  if (!name) return SP_EINVAL;
  return sp_region_n(name, strnlen(name, SP_NAME_MAX + 1));
}

int sp__block_handle(const char *name) { return sp_region(name); }

/* Whether len bytes at a and b are equal. Short names, the usual ones,
 * are compared inline with loads that stay inside both: two overlapping
 * words from each end. */
static inline int sp_bytes_eq(const char *a, const char *b, size_t len) {
  if (len >= 8 && len <= 16) {
    uint64_t a0, a1, b0, b1;
    memcpy(&a0, a, 8);
    memcpy(&b0, b, 8);
    memcpy(&a1, a + len - 8, 8);
    memcpy(&b1, b + len - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (len >= 4 && len < 8) {
    uint32_t a0, a1, b0, b1;
    memcpy(&a0, a, 4);
    memcpy(&b0, b, 4);
    memcpy(&a1, a + len - 4, 4);
    memcpy(&b1, b + len - 4, 4);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (len < 4) {
    for (size_t i = 0; i < len; i++)
      if (a[i] != b[i]) return 0;
    return 1;
  }
  return memcmp(a, b, len) == 0;
}

/* Whether the caller's name is region e's: len bytes, or a NUL-terminated
 * string when len is SIZE_MAX (read byte by byte, never past its NUL). */
static inline int sp_name_is(const sp_region_entry_t *e, const char *name, size_t len) {
  if (len != SIZE_MAX) return e->len == len && sp_bytes_eq(e->name, name, len);
  return strcmp(e->name, name) == 0;
}

/* The calling thread's cache slot for a name pointer (Fibonacci hashing
 * of the pointer without its 3 low bits, which are often zero: names in an
 * array, 8 or 16 bytes apart, get slots of their own). */
#define SP_NAME_SLOT_BITS 6
_Static_assert(SP_NAME_SLOTS == 1 << SP_NAME_SLOT_BITS, "SP_NAME_SLOTS is 2^SP_NAME_SLOT_BITS");
static inline sp_name_slot_t *sp_name_slot(sp_thread_t *t, const char *name) {
  uint64_t k = (uint64_t)((uintptr_t)name >> 3) * 0x9E3779B97F4A7C15ull;
  return &t->names[k >> (64 - SP_NAME_SLOT_BITS)];
}

/* The region the cache holds for this pointer, if that region's name is
 * still the one at the pointer; else -1. Stale entries of an earlier
 * session fail the compare or the count (the table restarts at 0). */
static inline int sp_name_cached(sp_thread_t *t, const char *name, size_t len) {
  const sp_name_slot_t *s = sp_name_slot(t, name);
  int32_t h = s->h;
  if (s->ptr != name || h >= sp__region_count_inline()) return -1;
  return sp_name_is(sp__region_at(h), name, len) ? h : -1;
}

/* A start by name the cache could not serve: checks the name, looks it up
 * or registers it, fills the cache slot and starts. */
static __attribute__((noinline)) int sp_start_name_slow(const char *name, size_t len) {
  if (sp_quiet_off() || !sp_slow_enter()) return -1;
  int saved_errno = errno;
  int h = -1;
  if (SP_MODE() == SP_MODE_OFF) {
    sp_not_active();
    goto out;
  }
  if (len == SIZE_MAX && name) len = strnlen(name, SP_NAME_MAX + 1);
  if (!sp_name_ok(name, len)) goto out;
  h = sp__region_lookup(name, len, sp__name_hash(name, len));
  if (h < 0) h = sp__region_register(name, len);
  if (h < 0) {
    h = -1;
    goto out;
  }
  sp_thread_t *t = sp__thread_get();
  if (t) {
    sp_name_slot_t *s = sp_name_slot(t, name);
    s->ptr = name;
    s->h = h;
  }
  sp_slow_leave(); /* sp_start_fast takes the slow path itself if it must */
  sp_start_fast(t, h);
  errno = saved_errno;
  return h;
out:
  errno = saved_errno;
  sp_slow_leave();
  return h;
}

/* Starts a call by name; returns its region, or -1 when the name was
 * refused or no session runs (reported by the slow path). */
static inline int sp_start_name_impl(const char *name, size_t len) {
  sp_thread_t *t = sp__tls;
  if (SP_LIKELY(SP_MODE() != SP_MODE_OFF && t && name)) {
    int h = sp_name_cached(t, name, len);
    if (SP_LIKELY(h >= 0)) {
      sp_start_fast(t, h);
      return h;
    }
  }
  return sp_start_name_slow(name, len);
}

/* A stop by name the fast path did not finish; now is its stamp when
 * stamped (TSC trace mode), else it is taken here. Usually the innermost
 * open call is the one named: its name is compared before any lookup. */
static __attribute__((noinline)) void sp_stop_name_slow(const char *name, size_t len, int64_t now,
                                                        int stamped) {
  if (sp_quiet_off() || !sp_slow_enter()) return;
  int saved_errno = errno;
  if (SP_MODE() == SP_MODE_OFF) {
    sp_not_active();
    goto out;
  }
  if (!stamped) now = sp_stop_stamp();
  sp_thread_t *t = sp__tls;
  int h = -1;
  if (t && t->depth > 0 && name && t->stack[t->depth - 1].region >= 0 &&
      sp_name_is(sp__region_at(t->stack[t->depth - 1].region), name, len)) {
    h = t->stack[t->depth - 1].region;
  } else {
    if (len == SIZE_MAX && name) len = strnlen(name, SP_NAME_MAX + 1);
    if (!sp_name_ok(name, len)) goto out;
    h = sp__region_lookup(name, len, sp__name_hash(name, len));
  }
  sp_stop_at(h, now);
  if (SP_MODE() == SP_MODE_SIGNALED) sp__up.signal_flush_self();
out:
  errno = saved_errno;
  sp_slow_leave();
}

static inline void sp_stop_name_impl(const char *name, size_t len) {
  if (SP_UNLIKELY(!sp_fast_mode())) {
    sp_stop_name_slow(name, len, 0, 0);
    return;
  }
  int64_t now = (int64_t)sp__rdtsc();
  sp_thread_t *t = sp__tls;
  if (SP_LIKELY(t && name && t->depth > 0 && !t->skips_armed)) {
    const sp_frame_t *f = &t->stack[t->depth - 1];
    int32_t h = f->region;
    if (SP_LIKELY(f->slot >= 0 && sp_name_is(sp__region_at(h), name, len))) {
      t->depth--;
      t->bufs[h].ev[f->slot].end = now;
      return;
    }
  }
  sp_stop_name_slow(name, len, now, 1);
}

/* The by-name entries with the mode off or SP_MODE_TRACE_SKIP (as
 * sp_start and sp_stop's). One tail call out of the entry: with two, the
 * compiler saved the traced path's registers before the test of the
 * mode. */
static __attribute__((noinline)) void sp_start_name_skip(const char *name, size_t len, int mode) {
  if (mode == SP_MODE_OFF) {
    sp_call_off();
    return;
  }
  if (SP_LIKELY(sp_skip_add())) return;
  sp_enter();
  (void)sp_start_name_slow(name, len);
  sp_leave();
}

static __attribute__((noinline)) void sp_stop_name_skip(const char *name, size_t len, int mode) {
  if (mode == SP_MODE_OFF) {
    sp_call_off();
    return;
  }
  if (SP_LIKELY(sp_skip_end())) return;
  sp_enter();
  sp_stop_name_slow(name, len, 0, 0);
  sp_leave();
}

#define SP_NAME_ENTRY(skip)                     \
  do {                                          \
    const int sp_mode_ = SP_MODE();             \
    if (SP_UNLIKELY(sp_mode_ <= SP_MODE_OFF)) { \
      skip;                                     \
      return;                                   \
    }                                           \
  } while (0)

void sp_start_name_n(const char *name, size_t len) {
  SP_NAME_ENTRY(sp_start_name_skip(name, len, sp_mode_));
  sp_enter();
  (void)sp_start_name_impl(name, len);
  sp_leave();
}

/* A Fortran string's length without its trailing blanks (and NULs: a C
 * terminator, "name"//c_null_char): one byte test for a name without any,
 * where len_trim would be a library call. */
static inline size_t sp_fortran_len(const char *name, size_t len) {
  while (len > 0 && (name[len - 1] == ' ' || name[len - 1] == '\0')) len--;
  return len;
}

int sp__start_name_f(const char *name, size_t len) {
  SP_OFF_RETURN(-1);
  sp_enter();
  int h = sp_start_name_impl(name, name ? sp_fortran_len(name, len) : len);
  sp_leave();
  return h;
}

void sp__stop_name_f(const char *name, size_t len) {
  SP_NAME_ENTRY(sp_stop_name_skip(name, name ? sp_fortran_len(name, len) : len, sp_mode_));
  sp_enter();
  sp_stop_name_impl(name, name ? sp_fortran_len(name, len) : len);
  sp_leave();
}

void sp_stop_name_n(const char *name, size_t len) {
  SP_NAME_ENTRY(sp_stop_name_skip(name, len, sp_mode_));
  sp_enter();
  sp_stop_name_impl(name, len);
  sp_leave();
}

/* The by-name forms of C strings keep SP_OFF_RETURN: with a paused way
 * out of the entry the compiler saved registers before the test of the
 * mode. While paused they count through the marked path (sp_start_fast,
 * sp_stop_at). */
void sp_start_name(const char *name) {
  SP_OFF_RETURN();
  sp_enter();
  (void)sp_start_name_impl(name, SIZE_MAX);
  sp_leave();
}

void sp_stop_name(const char *name) {
  SP_OFF_RETURN();
  sp_enter();
  sp_stop_name_impl(name, SIZE_MAX);
  sp_leave();
}

int64_t sp_misuse_count(sp_misuse_t kind) {
  if ((int)kind < 0 || kind >= SP_MISUSE_COUNT_) return 0;
  return __atomic_load_n(&sp__state.misuse[kind], __ATOMIC_RELAXED);
}
