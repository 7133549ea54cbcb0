/* thread_buffers.c - per-thread records: region buffers and call stacks.
 *
 * Everything here runs outside the hot path: the first call on a thread,
 * the first call of a region on a thread, a full buffer, a deep stack.
 * Buffers start at one page and double up to buffer_limit events; their
 * memory, and a new thread's record, come with their pages faulted in
 * ahead by array_stock.c's thread when it can (a first-touch fault costs
 * microseconds: docs/performance.md, "the cold path"). */
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "sp_internal.h"

#define SP_FIRST_STACK 64 /* open calls before the stack grows */

__thread sp_thread_t *sp__tls __attribute__((tls_model("initial-exec")));
__thread int64_t sp__skips __attribute__((tls_model("initial-exec"))) = SP_SKIPS_NONE;

sp_vals_hooks_t sp__vals_hooks; /* set by call_values.c before any t->vals */

static pthread_key_t sp_thread_key;
static pthread_once_t sp_thread_key_once = PTHREAD_ONCE_INIT;

/* The calls open on t: its frames, those standing for several calls left
 * out of the trace counted as such, and skips, the calls counted without
 * frames (hot_path.c). */
static int64_t sp_open_calls(const sp_thread_t *t, int64_t skips) {
  int64_t n = skips > 0 ? skips : 0;
  for (int32_t d = 0; d < t->depth; d++)
    n += t->stack[d].region == SP_REGION_SKIPS ? t->stack[d].skips : 1;
  return n > 0 ? n : 0;
}

/* The name of the innermost open call of t, for a message. */
static const char *sp_innermost_name(const sp_thread_t *t, int64_t skips) {
  if (skips > 0 || (t->depth > 0 && t->stack[t->depth - 1].region == SP_REGION_SKIPS))
    return "(a call started while the trace was paused)";
  int32_t h = t->depth > 0 ? t->stack[t->depth - 1].region : -1;
  return h >= 0 && h < sp__region_count() ? sp__region_get(h)->name : "?";
}

/* At thread exit the record is kept (its events are written at finalize)
 * and offered to the next new thread. Calls the thread left open are
 * dropped now: the next thread must not inherit them (its stop of such a
 * region would end a call another thread began). */
static void sp_thread_exit(void *p) {
  sp_thread_t *t = p;
  int saved_errno = errno;
  const int64_t skips = sp__skips_open();
  const int64_t open = sp_open_calls(t, skips);
  if (open > 0) {
    sp__log(SP_LOG_WARNING, SP_LOG_ONCE_THREAD_OPEN,
            "%lld call(s) still open when thread %d ended (innermost: '%s'); dropped",
            (long long)open, (int)t->index, sp_innermost_name(t, skips));
    __atomic_fetch_add(&sp__state.misuse[SP_MISUSE_UNBALANCED], open, __ATOMIC_RELAXED);
    sp__frames_drop_above(t, -1);
  }
  errno = saved_errno;
  pthread_mutex_lock(&sp__state.lock);
  __atomic_store_n(&sp__skips, SP_SKIPS_REST, __ATOMIC_RELAXED);
  t->skips_armed = 0;
  t->skips_at = &t->skips_kept; /* this thread's sp__skips goes away with it */
  t->skips_kept = SP_SKIPS_REST;
  t->retired = 1;
  pthread_mutex_unlock(&sp__state.lock);
}

static int sp_key_made;

static void sp_thread_key_create(void) {
  sp_key_made = pthread_key_create(&sp_thread_key, sp_thread_exit) == 0;
}

sp_thread_t *sp__thread_get(void) {
  sp_thread_t *t = sp__tls;
  if (t) return t;
  pthread_once(&sp_thread_key_once, sp_thread_key_create);
  pthread_mutex_lock(&sp__state.lock);
  for (sp_thread_t *r = sp__state.threads; r; r = r->next) {
    if (r->retired) {
      t = r;
      break;
    }
  }
  if (!t) {
    t = sp__stock_take_thread(); /* allocated and touched ahead (array_stock.c) */
    if (!t) t = calloc(1, sizeof *t);
    if (t) {
      t->index = sp__state.nthreads++;
      t->next = sp__state.threads;
      sp__state.threads = t;
    }
  }
  if (t) {
    t->retired = 0;
    __atomic_store_n(&t->inside, 1, __ATOMIC_RELAXED); /* made inside a call: sp_leave ends it */
    /* Counts from before the record (SP_SKIPS_NONE) are no calls: the
     * caller counts its own (hot_path.c arms the record first). Without
     * the key the thread's exit is not seen, so its sp__skips, which goes
     * away with it, is not reachable from other threads. */
    __atomic_store_n(&sp__skips, SP_SKIPS_REST, __ATOMIC_RELAXED);
    t->skips_armed = 0;
    t->skips_kept = SP_SKIPS_REST;
    t->skips_at = sp_key_made ? &sp__skips : &t->skips_kept;
  }
  pthread_mutex_unlock(&sp__state.lock);
  if (!t) return NULL;
  pthread_setspecific(sp_thread_key, t);
  sp__tls = t;
  if (sp__mode == SP_MODE_GENERAL && sp__state.cfg.use_likwid) sp__up.likwid_thread_init();
  return t;
}

/* Makes t->bufs cover handle h. */
int sp__thread_reserve(sp_thread_t *t, int32_t h) {
  if (h < t->nbufs) return 0;
  if (t->nbufs == 0) {
    /* The thread's first region this session: from now on a second
     * sp_setup must not discard the session under it (sp__threads_busy);
     * while one is discarding it, the call is not recorded. */
    pthread_mutex_lock(&sp__state.lock);
    int discarding = sp__state.discarding;
    if (!discarding) t->in_session = 1;
    pthread_mutex_unlock(&sp__state.lock);
    if (discarding) return SP_EBUSY;
  }
  int32_t n = sp__region_count();
  if (h >= n) return SP_EINVAL;
  /* nbufs is the regions covered, never more than are registered: the
   * hot path's h < nbufs is then also the test that h is a handle. */
  if (n <= t->bufs_cap) {
    t->nbufs = n;
    return 0;
  }
  int32_t ncap = t->bufs_cap ? t->bufs_cap : 16;
  while (ncap < n) ncap *= 2;
  sp_rbuf_t *nb = realloc(t->bufs, (size_t)ncap * sizeof *nb);
  if (!nb) return SP_ENOMEM;
  memset(nb + t->bufs_cap, 0, (size_t)(ncap - t->bufs_cap) * sizeof *nb);
  t->bufs = nb;
  t->bufs_cap = ncap;
  t->nbufs = n;
  return 0;
}

int sp__stack_grow(sp_thread_t *t) {
  int32_t ncap = t->stack_cap ? t->stack_cap * 2 : SP_FIRST_STACK;
  sp_frame_t *ns = realloc(t->stack, (size_t)ncap * sizeof *ns);
  if (!ns) return SP_ENOMEM;
  memset(ns + t->stack_cap, 0, (size_t)(ncap - t->stack_cap) * sizeof *ns);
  t->stack = ns;
  t->stack_cap = ncap;
  return 0;
}

static int sp_rbuf_grow(sp_rbuf_t *b, int64_t ncap) {
  sp_event_t *ne = sp__event_array_resize(b->ev, b->n, b->cap, ncap);
  if (!ne) return SP_ENOMEM;
  b->ev = ne;
  b->cap = ncap;
  return 0;
}

/* Lowest slot of region h still open on t (b->n when none is open). */
static int64_t sp_first_open_slot(const sp_thread_t *t, int32_t h, int64_t n) {
  int64_t first = n;
  for (int32_t d = 0; d < t->depth; d++)
    if (t->stack[d].region == h && t->stack[d].slot >= 0 && t->stack[d].slot < first)
      first = t->stack[d].slot;
  return first;
}

/* Appends the finished events of buffer h (those before its first open
 * call) to the spill file, through the writer thread when allowed, and
 * keeps the open ones. The calls' values go first (queued ahead of the
 * events, or written before them): a SIGKILL between the two records then
 * leaves values of calls whose events are not in the file (counted lost
 * by a merge), never events without their values (docs/values.md). Which
 * values are finished does not change with the spill (spilled + slot). */
static int sp_rbuf_spill(sp_thread_t *t, int32_t h, int async) {
  sp_rbuf_t *b = &t->bufs[h];
  int64_t done = sp_first_open_slot(t, h, b->n);
  if (done == 0) return 0;
  if (t->mpix && sp__up.mpi_extra_flush) sp__up.mpi_extra_flush(t); /* its MPI values too */
  if (t->vals) sp__vals_hooks.flush(t, async); /* the calls' values (call_values.c) */
  int rc = 0;
  sp_event_t *fresh = async ? sp__up.writer_swap(b->ev, b->cap, done, h, t->index) : NULL;
  if (fresh) {
    /* The writer owns the old array now; calls still open move along. */
    memcpy(fresh, b->ev + done, (size_t)(b->n - done) * sizeof *b->ev);
    b->ev = fresh;
  } else {
    rc = sp__up.spill_events(h, t->index, b->ev, done);
    memmove(b->ev, b->ev + done, (size_t)(b->n - done) * sizeof *b->ev);
  }
  b->spilled += done;
  b->n -= done;
  for (int32_t d = 0; d < t->depth; d++)
    if (t->stack[d].region == h && t->stack[d].slot >= 0) t->stack[d].slot -= done;
  return rc;
}

/* Called when buffer h of t is full: grows it, or appends its finished
 * events to the spill file and reuses the memory. The slots either gives
 * come out of TRACE_MAX_MB's budget (trace_window.c): a grow is cut to
 * what is left, a reuse needs all of its slots; at none left the trace is
 * truncated and the buffer stays full. */
int sp__rbuf_make_room(sp_thread_t *t, int32_t h) {
  sp_rbuf_t *b = &t->bufs[h];
  const int64_t limit = sp__state.cfg.buffer_limit;
  if (b->cap < limit || !sp__state.cfg.flush_to_disk) {
    /* A first buffer grows into a page (first_pages.c), then doubles. */
    int64_t ncap = b->cap == SP_FIRST_CAP ? SP_SECOND_CAP : b->cap ? b->cap * 2 : SP_FIRST_CAP;
    if (sp__state.cfg.flush_to_disk && ncap > limit) ncap = limit;
    if (ncap <= b->cap) ncap = b->cap + 1;
    const int64_t grant = sp__trace_budget_take(ncap - b->cap, 0);
    return grant > 0 ? sp_rbuf_grow(b, b->cap + grant) : SP_ELOST;
  }
  const int64_t done = sp_first_open_slot(t, h, b->n);
  if (done == 0) {
    /* Every slot is younger than a call still open (deep recursion of this
     * region): nothing can be written yet, so grow past the limit. */
    sp__log(SP_LOG_WARNING, SP_LOG_ONCE_GROW_OPEN,
            "region '%s' stays open across a full buffer; its buffer grows past buffer_limit",
            sp__region_get(h)->name);
    const int64_t grant = sp__trace_budget_take(b->cap, 0);
    return grant > 0 ? sp_rbuf_grow(b, b->cap + grant) : SP_ELOST;
  }
  if (sp__trace_budget_take(done, 1) == 0) return SP_ELOST;
  return sp_rbuf_spill(t, h, 1);
}

int sp__thread_spill_done(sp_thread_t *t, int32_t h) { return sp_rbuf_spill(t, h, 0); }

/* Drops the open calls above depth d (innermost first), removing their
 * reserved slots: their end stamps will never be written. */
void sp__frames_drop_above(sp_thread_t *t, int32_t d) {
  for (int32_t i = t->depth - 1; i > d; i--) {
    const sp_frame_t *f = &t->stack[i];
    if (f->slot < 0 || f->region >= t->nbufs) continue;
    sp_rbuf_t *b = &t->bufs[f->region];
    if (f->slot >= b->n) continue;
    if (t->vals) sp__vals_hooks.drop(t, f->region, b->spilled + f->slot);
    /* Later slots hold calls nested in this one, all closed or dropped
     * already; outer open calls have smaller slots and do not move. */
    memmove(b->ev + f->slot, b->ev + f->slot + 1, (size_t)(b->n - f->slot - 1) * sizeof *b->ev);
    b->n--;
  }
  t->depth = d + 1;
}

/* Takes t's count of calls left out of the trace (hot_path.c), leaving 0
 * when it was above (0 or below is none, and stays: -1 says the record is
 * not armed). Under the lock, as its thread may be exiting
 * (sp_thread_exit). */
static int64_t sp_skips_take_locked(sp_thread_t *t) {
  const int64_t n = t->skips_at ? __atomic_load_n(t->skips_at, __ATOMIC_RELAXED) : 0;
  if (n > 0) __atomic_store_n(t->skips_at, 0, __ATOMIC_RELAXED);
  return n;
}

static int64_t sp_skips_take(sp_thread_t *t) {
  pthread_mutex_lock(&sp__state.lock);
  const int64_t n = sp_skips_take_locked(t);
  pthread_mutex_unlock(&sp__state.lock);
  return n;
}

/* Calls still open at finalize are reported and dropped. */
static int64_t sp_thread_drop_open(sp_thread_t *t) {
  const int64_t skips = sp_skips_take(t);
  const int64_t open = sp_open_calls(t, skips);
  if (open > 0) {
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "%lld call(s) still open at sp_finalize on thread %d (innermost: '%s'); dropped",
            (long long)open, (int)t->index, sp_innermost_name(t, skips));
  }
  sp__frames_drop_above(t, -1);
  return open;
}

void sp__threads_drop_open_calls(void) {
  for (sp_thread_t *t = sp__state.threads; t; t = t->next)
    sp__state.misuse[SP_MISUSE_UNBALANCED] += sp_thread_drop_open(t);
}

int sp__threads_claim_discard(const sp_thread_t *self) {
  int n = 0;
  pthread_mutex_lock(&sp__state.lock);
  for (const sp_thread_t *t = sp__state.threads; t; t = t->next)
    n += t != self && t->in_session && !t->retired;
  if (n == 0) sp__state.discarding = 1;
  pthread_mutex_unlock(&sp__state.lock);
  return n;
}

void sp__threads_end_discard(void) {
  pthread_mutex_lock(&sp__state.lock);
  sp__state.discarding = 0;
  pthread_mutex_unlock(&sp__state.lock);
}

/* Records of the parent's threads, kept reachable (not freed: another
 * thread of the parent may have been changing one when fork copied it). */
static sp_thread_t *sp_forked_away;

void sp__threads_fork_child(void) {
  sp_thread_t *list = sp__state.threads;
  if (list) {
    sp_thread_t *last = list;
    while (last->next) last = last->next;
    last->next = sp_forked_away;
    sp_forked_away = list;
  }
  sp__state.threads = NULL;
  sp__state.nthreads = 0;
  sp__tls = NULL;
  sp__skips = SP_SKIPS_NONE; /* the child's first paused start makes its record */
  if (sp_key_made) pthread_setspecific(sp_thread_key, NULL);
}

void sp__threads_discard(void) {
  pthread_mutex_lock(&sp__state.lock);
  for (sp_thread_t *t = sp__state.threads; t; t = t->next) {
    t->in_session = 0;
    for (int32_t h = 0; h < t->nbufs; h++) sp__event_array_free(t->bufs[h].ev);
    free(t->bufs);
    t->bufs = NULL;
    t->nbufs = 0;
    t->bufs_cap = 0;
    t->depth = 0;
    (void)sp_skips_take_locked(t);
    memset(t->names, 0, sizeof t->names);
    sp__agg_thread_free(t);
  }
  pthread_mutex_unlock(&sp__state.lock);
}
