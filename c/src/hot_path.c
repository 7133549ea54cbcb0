/* hot_path.c - sp_start / sp_stop and their by-name forms.
 *
 * The fast path of a traced start is: one mode test, the thread-local
 * record, three bounds checks, a slot reservation and a clock read; a stop
 * reads the clock first and writes one int64. Everything unusual (first
 * call on a thread or region, full buffer, misuse) goes to out-of-line
 * slow paths. */
#include <stdint.h>
#include <string.h>

#include "sp_internal.h"

/* The header's macros would shadow the definitions below. */
#undef sp_start
#undef sp_stop
#undef sp_start_name
#undef sp_stop_name

volatile int sp__enabled;
volatile int sp__mode;
volatile unsigned sp__session;

static void sp_misuse(sp_misuse_t kind) {
  __atomic_fetch_add(&sp__state.misuse[kind], 1, __ATOMIC_RELAXED);
}

static const char *sp_region_name_or(int32_t h) {
  return (h >= 0 && h < sp__region_count()) ? sp__region_get(h)->name : "(invalid handle)";
}

/* Pushes a call of h, reserving its event slot; room was checked. */
static inline void sp_push_traced(sp_thread_t *t, sp_rbuf_t *b, int h) {
  int64_t slot = b->n++;
  sp_frame_t *f = &t->stack[t->depth++];
  f->region = h;
  f->slot = slot;
  b->ev[slot].start = sp__ticks();
}

/* Everything a start may need before it can push: a thread record, a
 * buffer for h, stack and buffer room. Returns the record or NULL. */
static __attribute__((noinline)) sp_thread_t *sp_start_prepare(int h) {
  sp_thread_t *t = sp__thread_get();
  if (!t) goto nomem;
  if (h < 0 || h >= sp__region_count()) {
    sp_misuse(SP_MISUSE_INVALID_HANDLE);
    sp__log(1, SP_LOG_ONCE_INVALID_HANDLE, "sp_start(%d): not a handle from sp_region; ignored", h);
    return NULL;
  }
  int rc = sp__thread_reserve(t, h);
  if (rc == SP_EBUSY) return NULL; /* sp_setup is replacing the session right now */
  if (rc != 0) goto nomem;
  if (t->depth == t->stack_cap && sp__stack_grow(t) != 0) goto nomem;
  if (sp__state.cfg.time_trace) {
    sp_rbuf_t *b = &t->bufs[h];
    if (b->n == b->cap) sp__rbuf_make_room(t, h);
    if (b->n == b->cap) goto nomem;
  }
  return t;
nomem:
  __atomic_fetch_add(&sp__state.events_lost, 1, __ATOMIC_RELAXED);
  sp__log(0, SP_LOG_ONCE_NOMEM, "out of memory: calls are not recorded");
  return NULL;
}

/* A call while no session runs (before sp_setup, after sp_finalize) is
 * counted and reported once; with profiling_activated = 0 calls are
 * silent no-ops. Only reached when the mode is off: costs nothing else. */
static __attribute__((noinline)) void sp_not_active(void) {
  if (sp__state.session) return;
  if (sp__state.forked) { /* fork_guard.c: not misuse, the documented state */
    sp__log(2, SP_LOG_ONCE_FORKED,
            "this process was forked from a profiled one: its calls are not recorded unless "
            "it calls sp_setup");
    return;
  }
  sp_misuse(SP_MISUSE_NOT_ACTIVE);
  sp__log(1, SP_LOG_ONCE_NOT_ACTIVE,
          "region call before sp_setup or after sp_finalize; ignored (calls made then are "
          "not recorded)");
}

/* Calls in count-only form: count mode, or LIKWID without time_trace. */
static inline int sp_counting(void) {
  return sp__mode == SP_MODE_COUNT || (sp__mode >= SP_MODE_GENERAL && !sp__state.cfg.time_trace);
}

static __attribute__((noinline)) void sp_start_other(int h) {
  if (sp__mode == SP_MODE_OFF) {
    sp_not_active();
    return;
  }
  if (sp__mode == SP_MODE_SIGNALED) sp__signal_flush_self();
  sp_thread_t *t = sp_start_prepare(h);
  if (!t) return;
  if (sp__state.cfg.use_likwid) sp__likwid_start(h);
  if (sp_counting()) {
    sp_frame_t *f = &t->stack[t->depth++];
    f->region = h;
    f->slot = -1;
  } else {
    sp_push_traced(t, &t->bufs[h], h);
  }
}

void sp_start(int h) {
  if (SP_UNLIKELY(sp__mode != SP_MODE_TRACE)) {
    SP_KEEP_ERRNO(sp_start_other(h));
    return;
  }
  sp_thread_t *t = sp__tls;
  if (SP_UNLIKELY(!t || (unsigned)h >= (unsigned)t->nbufs || t->depth == t->stack_cap)) goto slow;
  sp_rbuf_t *b = &t->bufs[h];
  if (SP_UNLIKELY(b->n == b->cap)) goto slow;
  sp_push_traced(t, b, h);
  return;
slow:
  SP_KEEP_ERRNO(t = sp_start_prepare(h));
  if (t) sp_push_traced(t, &t->bufs[h], h);
}

/* Closes frame d of t at time now. */
static inline void sp_close_frame(sp_thread_t *t, const sp_frame_t *f, int64_t now) {
  if (f->slot >= 0) {
    t->bufs[f->region].ev[f->slot].end = now;
  } else {
    t->bufs[f->region].calls++;
  }
}

/* A stop that does not match the innermost open call. */
static __attribute__((noinline)) void sp_stop_unusual(int h, int64_t now) {
  sp_thread_t *t = sp__tls;
  int32_t d = t ? t->depth - 1 : -1;
  while (d >= 0 && t->stack[d].region != h) d--;
  if (d < 0) {
    sp_misuse(SP_MISUSE_STOP_WITHOUT_START);
    sp__log(1, SP_LOG_ONCE_STOP_WITHOUT_START,
            "sp_stop of region '%s' with no open call of it on this thread; ignored",
            sp_region_name_or(h));
    return;
  }
  sp_misuse(SP_MISUSE_STOP_MISMATCH);
  sp__log(1, SP_LOG_ONCE_STOP_MISMATCH,
          "sp_stop of region '%s' while '%s' is the innermost open call; the %d call(s) "
          "opened inside it are dropped",
          sp_region_name_or(h), sp_region_name_or(t->stack[t->depth - 1].region),
          (int)(t->depth - 1 - d));
  if (sp__state.cfg.use_likwid) /* the dropped calls' LIKWID regions end too */
    for (int32_t i = t->depth - 1; i > d; i--) sp__likwid_stop(t->stack[i].region);
  sp__frames_drop_above(t, d);
  sp_close_frame(t, &t->stack[d], now);
  t->depth = d;
  if (sp__state.cfg.use_likwid) sp__likwid_stop(h);
}

static inline void sp_stop_at(int h, int64_t now) {
  sp_thread_t *t = sp__tls;
  if (SP_UNLIKELY(!t || t->depth == 0)) goto unusual;
  const sp_frame_t *f = &t->stack[t->depth - 1];
  if (SP_UNLIKELY(f->region != h)) goto unusual;
  t->depth--;
  sp_close_frame(t, f, now);
  if (SP_UNLIKELY(sp__mode >= SP_MODE_GENERAL) && sp__state.cfg.use_likwid) sp__likwid_stop(h);
  return;
unusual:
  SP_KEEP_ERRNO(sp_stop_unusual(h, now));
}

static inline int64_t sp_stop_stamp(void) { return sp_counting() ? 0 : sp__ticks(); }

void sp_stop(int h) {
  if (SP_UNLIKELY(sp__mode == SP_MODE_OFF)) {
    SP_KEEP_ERRNO(sp_not_active());
    return;
  }
  sp_stop_at(h, sp_stop_stamp());
  if (SP_UNLIKELY(sp__mode == SP_MODE_SIGNALED)) SP_KEEP_ERRNO(sp__signal_flush_self());
}

static void sp_add_calls(int h, int64_t n) {
  sp_thread_t *t = sp__thread_get();
  if (!t || h < 0 || sp__thread_reserve(t, h) != 0) return;
  t->bufs[h].calls += n;
}

void sp_region_add_calls(int h, int64_t n) {
  if (sp__mode == SP_MODE_OFF || n <= 0) return;
  SP_KEEP_ERRNO(sp_add_calls(h, n));
}

/* ---- by name ------------------------------------------------------- */

static int sp_name_ok(const char *name, size_t len) {
  if (SP_LIKELY(name && len > 0 && len <= SP_NAME_MAX)) return 1;
  sp_misuse(SP_MISUSE_BAD_NAME);
  sp__log(1, SP_LOG_ONCE_BAD_NAME, "region name is %s; ignored",
          !name ? "NULL" : len == 0 ? "empty" : "longer than SP_NAME_MAX (4096) bytes");
  return 0;
}

int sp_region_n(const char *name, size_t len) {
  if (!name || len == 0) return SP_EINVAL;
  if (len > SP_NAME_MAX) return SP_ENAMETOOLONG;
  int h = sp__region_lookup(name, len, sp__name_hash(name, len));
  if (h < 0) SP_KEEP_ERRNO(h = sp__region_register(name, len));
  return h;
}

int sp_region(const char *name) {
  if (!name) return SP_EINVAL;
  return sp_region_n(name, strnlen(name, SP_NAME_MAX + 1));
}

int sp__block_handle(const char *name) { return sp_region(name); }

/* The region cached for the calling thread's current depth, if its name
 * is the one given (len may be unknown: SIZE_MAX, name NUL-terminated). */
static inline int sp_cached_handle(const sp_thread_t *t, const char *name, size_t len) {
  if (!t || t->depth >= SP_NAME_CACHE_DEPTH) return -1;
  int32_t h = t->name_cache[t->depth] - 1;
  if (h < 0 || h >= sp__region_count()) return -1;
  const sp_region_entry_t *e = sp__region_get(h);
  if (len == SIZE_MAX) return strcmp(e->name, name) == 0 ? h : -1;
  return (e->len == len && memcmp(e->name, name, len) == 0) ? h : -1;
}

static __attribute__((noinline)) void sp_start_name_lookup(const char *name, size_t len) {
  if (len == SIZE_MAX) len = strnlen(name, SP_NAME_MAX + 1);
  if (!sp_name_ok(name, len)) return;
  int h = sp__region_lookup(name, len, sp__name_hash(name, len));
  if (h < 0) h = sp__region_register(name, len);
  if (h < 0) return;
  sp_thread_t *t = sp__tls;
  if (t && t->depth < SP_NAME_CACHE_DEPTH) t->name_cache[t->depth] = h + 1;
  sp_start(h);
}

void sp_start_name_n(const char *name, size_t len) {
  if (SP_UNLIKELY(sp__mode == SP_MODE_OFF)) {
    SP_KEEP_ERRNO(sp_not_active());
    return;
  }
  if (SP_UNLIKELY(!name)) {
    SP_KEEP_ERRNO(sp_name_ok(NULL, 0));
    return;
  }
  int h = sp_cached_handle(sp__tls, name, len);
  if (SP_LIKELY(h >= 0)) {
    sp_start(h);
    return;
  }
  SP_KEEP_ERRNO(sp_start_name_lookup(name, len));
}

static __attribute__((noinline)) void sp_stop_name_lookup(const char *name, size_t len,
                                                          int64_t now) {
  if (len == SIZE_MAX) len = strnlen(name, SP_NAME_MAX + 1);
  if (!sp_name_ok(name, len)) return;
  sp_stop_at(sp__region_lookup(name, len, sp__name_hash(name, len)), now);
}

void sp_stop_name_n(const char *name, size_t len) {
  if (SP_UNLIKELY(sp__mode == SP_MODE_OFF)) {
    SP_KEEP_ERRNO(sp_not_active());
    return;
  }
  int64_t now = sp_stop_stamp();
  if (SP_UNLIKELY(!name)) {
    SP_KEEP_ERRNO(sp_name_ok(NULL, 0));
    return;
  }
  /* Usually the innermost open call is the one named: compare its name
   * and skip the hash lookup. */
  sp_thread_t *t = sp__tls;
  if (SP_LIKELY(t && t->depth > 0)) {
    int32_t h = t->stack[t->depth - 1].region;
    const sp_region_entry_t *e = sp__region_get(h);
    if (len == SIZE_MAX ? strcmp(e->name, name) == 0
                        : (e->len == len && memcmp(e->name, name, len) == 0)) {
      sp_stop_at(h, now);
      return;
    }
  }
  SP_KEEP_ERRNO(sp_stop_name_lookup(name, len, now));
}

void sp_start_name(const char *name) { sp_start_name_n(name, SIZE_MAX); }

void sp_stop_name(const char *name) { sp_stop_name_n(name, SIZE_MAX); }

int64_t sp_misuse_count(sp_misuse_t kind) {
  if ((int)kind < 0 || kind >= SP_MISUSE_COUNT_) return 0;
  return __atomic_load_n(&sp__state.misuse[kind], __ATOMIC_RELAXED);
}
