/* array_stock.c - event arrays made ready by a helper thread, so that the
 * recording thread takes no page fault on its cold path.
 *
 * Fresh memory costs a page fault per 4 KiB on first touch: 1.4 us on the
 * idle 2-core CI VM, ~10 us while it is loaded; issue 38 saw a region's
 * first start (then a 16 KiB buffer: 4 faults) cost 55-180 us, its
 * buffer's growth to 100,000 events (391 faults) 4-6x its steady cost,
 * and each first flush (a fresh 1.6 MB array to continue in) 4-10 ms.
 * So a helper thread, started at sp_setup, faults memory in ahead of
 * need and keeps:
 *
 *  - SP_STOCK_FIRST first buffers (first_cap events, one page);
 *  - SP_STOCK_HEADS slab slots with the pages of their first
 *    SP_HEAD_EVENTS events touched, for a buffer that outgrows its first;
 *  - SP_STOCK_FULL whole slots touched, for the arrays that replace the
 *    full ones the writer thread takes at a flush (flush_writer.c's pool
 *    serves them once it is warm), made once a buffer has reached a slot
 *    (a program whose buffers stay small never pays for them);
 *  - SP_STOCK_KITS thread records with their stack and buffer table, for
 *    the first call of a new thread (which would otherwise create its
 *    malloc arena there);
 *
 * and populates, on request, the part of a slot that a buffer grows into
 * next (MADV_POPULATE_WRITE, which leaves the contents as they are; two
 * doublings ahead, so a buffer's resident pages stay within 4x its
 * events) and, before those, the untouched array a flush handed over when
 * pool and stock were empty (the recording thread writes there now). It
 * yields after each SP_STOCK_RUN_NS of work. The recording thread only
 * takes and asks, under a mutex held
 * for a few instructions. When the stock is empty or the helper lags
 * (no CPU for it), the recording thread touches a first buffer or a slot
 * head itself as before, and leaves the other pages to fault in one at a
 * time as events arrive (no stall). Memory kept ready: 128 x 4 KiB +
 * 16 x 32 KiB + 8 x 12 KiB (1.1 MB), and 4 x buffer_limit events once a
 * buffer has reached a slot (6.4 MB more at the default), freed at
 * finalize. sp_setup waits (at most SP_STOCK_WAIT_MS)
 * until the stock is full: programs start many regions right after it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MADV_POPULATE_WRITE */
#endif
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "sp_internal.h"

#define SP_STOCK_FIRST 128
#define SP_STOCK_HEADS 16
#define SP_STOCK_FULL 4
#define SP_STOCK_KITS 8    /* thread records, for threads' first calls */
#define SP_KIT_STACK 64    /* open calls a kit's stack holds */
#define SP_KIT_REGIONS 256 /* regions a kit's buffer table covers */
#define SP_STOCK_ASKS 64   /* populate requests waiting */
#define SP_STOCK_WAIT_MS 500
#define SP_STOCK_PART ((size_t)64 << 10) /* populated at a time */
#define SP_STOCK_RUN_NS 250000           /* the helper's work between yields */

typedef struct sp_stock_ask {
  char *p;
  size_t bytes;
  int urgent; /* the recording thread writes there now: served first */
} sp_stock_ask_t;

static struct {
  pthread_mutex_t mu;
  pthread_cond_t want;
  pthread_cond_t filled; /* the first buffers and heads are all ready */
  pthread_t tid;
  int running, stop;
  int64_t first_cap, slot_cap; /* events; slot_cap 0: no slab slots */
  sp_event_t *first[SP_STOCK_FIRST];
  sp_event_t *heads[SP_STOCK_HEADS];
  sp_event_t *full[SP_STOCK_FULL];
  sp_thread_t *kits[SP_STOCK_KITS];
  int nfirst, nheads, nfull, nkits;
  int want_full; /* a buffer reached a slot: it may fill, whole slots are wanted */
  sp_stock_ask_t ask[SP_STOCK_ASKS]; /* a ring, served in order */
  int ask_head, nask;
  int64_t taken, missed; /* for the verbose line */
} sp_stock = {.mu = PTHREAD_MUTEX_INITIALIZER,
              .want = PTHREAD_COND_INITIALIZER,
              .filled = PTHREAD_COND_INITIALIZER};

/* Gives the CPU up once the helper has worked SP_STOCK_RUN_NS since it
 * last did: a recording thread pinned to the same CPU then waits at most
 * about that long. After each 64 KiB part instead, the helper lost the
 * CPU for a whole time slice of the other tasks at each yield (ms under
 * load): it populated ~13 MB/s, far behind a buffer filling at 570 MB/s,
 * and the recording thread faulted the pages in itself (issue 44).
 * Helper thread only. */
static int64_t sp_stock_since; /* ns: the helper's run began or last yielded; 0: idle */

static void sp_stock_maybe_yield(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
  if (sp_stock_since == 0 || now - sp_stock_since < SP_STOCK_RUN_NS) {
    if (sp_stock_since == 0) sp_stock_since = now;
    return;
  }
  sched_yield();
  clock_gettime(CLOCK_MONOTONIC, &ts);
  sp_stock_since = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sp_stock_touch(void *p, size_t bytes) {
  volatile char *c = p;
  for (size_t i = 0; i < bytes; i += 4096) c[i] = 0;
}

/* Faults pages in without writing them: the recording thread may be
 * storing events in the same slot. Where the kernel lacks
 * MADV_POPULATE_WRITE (before Linux 5.14) this does nothing and the
 * recording thread touches the pages itself, as it always did. */
static void sp_stock_populate(char *p, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095;
  uintptr_t e = ((uintptr_t)p + bytes + 4095) & ~(uintptr_t)4095;
  (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)bytes;
#endif
}

/* Which class is short, most urgent first; 0 when none. */
static int sp_stock_short_locked(void) {
  if (sp_stock.nkits < SP_STOCK_KITS) return 4;
  if (sp_stock.nfirst < SP_STOCK_FIRST) return 1;
  if (sp_stock.slot_cap && sp_stock.nheads < SP_STOCK_HEADS) return 2;
  if (sp_stock.slot_cap && sp_stock.want_full && sp_stock.nfull < SP_STOCK_FULL) return 3;
  return 0;
}

/* Serves one part of the oldest populate request, if any: a buffer grows
 * into its start next. Called and returns with the lock held. */
static int sp_stock_serve_locked(void) {
  if (sp_stock.nask == 0) return 0;
  sp_stock_ask_t *a = &sp_stock.ask[sp_stock.ask_head];
  char *p = a->p;
  size_t part = a->bytes < SP_STOCK_PART ? a->bytes : SP_STOCK_PART;
  a->p += part;
  a->bytes -= part;
  if (a->bytes == 0) {
    sp_stock.ask_head = (sp_stock.ask_head + 1) % SP_STOCK_ASKS;
    sp_stock.nask--;
  }
  pthread_mutex_unlock(&sp_stock.mu);
  sp_stock_populate(p, part);
  sp_stock_maybe_yield(); /* a recording thread on this core runs between parts */
  pthread_mutex_lock(&sp_stock.mu);
  return 1;
}

/* Touches bytes at p a part at a time, serving populate requests between
 * parts: a buffer that grows must not wait behind a whole slot. */
static void sp_stock_touch_serving(void *p, size_t bytes) {
  for (size_t done = 0; done < bytes; done += SP_STOCK_PART) {
    size_t part = bytes - done < SP_STOCK_PART ? bytes - done : SP_STOCK_PART;
    sp_stock_touch((char *)p + done, part);
    sp_stock_maybe_yield();
    pthread_mutex_lock(&sp_stock.mu);
    while (!sp_stock.stop && sp_stock_serve_locked()) {}
    pthread_mutex_unlock(&sp_stock.mu);
  }
}

/* A zeroed thread record with its stack and buffer table, every page
 * touched: a new thread's first call then allocates nothing (a thread's
 * first malloc creates its arena: fresh pages). */
static sp_thread_t *sp_kit_new(void) {
  sp_thread_t *t = calloc(1, sizeof *t);
  sp_frame_t *stack = calloc(SP_KIT_STACK, sizeof *stack);
  sp_rbuf_t *bufs = calloc(SP_KIT_REGIONS, sizeof *bufs);
  if (!t || !stack || !bufs) {
    free(t);
    free(stack);
    free(bufs);
    return NULL;
  }
  sp_stock_touch(t, sizeof *t);
  sp_stock_touch(stack, SP_KIT_STACK * sizeof *stack);
  sp_stock_touch(bufs, SP_KIT_REGIONS * sizeof *bufs);
  t->stack = stack;
  t->stack_cap = SP_KIT_STACK;
  t->bufs = bufs;
  t->bufs_cap = SP_KIT_REGIONS;
  return t;
}

static void sp_kit_free(sp_thread_t *t) {
  free(t->stack);
  free(t->bufs);
  free(t);
}

static void sp_stock_make_kit(void) {
  sp_thread_t *t = sp_kit_new();
  pthread_mutex_lock(&sp_stock.mu);
  int kept = t && !sp_stock.stop && sp_stock.nkits < SP_STOCK_KITS;
  if (kept) sp_stock.kits[sp_stock.nkits++] = t;
  if (!t && !sp_stock.stop) pthread_cond_wait(&sp_stock.want, &sp_stock.mu);
  pthread_mutex_unlock(&sp_stock.mu);
  if (t && !kept) sp_kit_free(t);
}

/* One array of class k made ready (outside the lock), then stocked. */
static void sp_stock_make(int k) {
  if (k == 4) {
    sp_stock_make_kit();
    return;
  }
  const int64_t cap = k == 1 ? sp_stock.first_cap : sp_stock.slot_cap;
  sp_event_t *ev = k == 1 ? sp__event_array_new(cap) : sp__event_array_new_cold(cap);
  if (ev && k == 2) {
    int64_t head = cap < SP_HEAD_EVENTS ? cap : SP_HEAD_EVENTS;
    sp_stock_touch_serving(ev, (size_t)head * sizeof *ev);
  } else if (ev && k == 3) {
    sp_stock_touch_serving(ev, (size_t)cap * sizeof *ev);
  }
  pthread_mutex_lock(&sp_stock.mu);
  int kept = 0;
  if (ev && !sp_stock.stop) {
    if (k == 1 && sp_stock.nfirst < SP_STOCK_FIRST) {
      sp_stock.first[sp_stock.nfirst++] = ev;
      kept = 1;
    } else if (k == 2 && sp_stock.nheads < SP_STOCK_HEADS) {
      sp_stock.heads[sp_stock.nheads++] = ev;
      kept = 1;
    } else if (k == 3 && sp_stock.nfull < SP_STOCK_FULL) {
      sp_stock.full[sp_stock.nfull++] = ev;
      kept = 1;
    }
  }
  pthread_mutex_unlock(&sp_stock.mu);
  if (ev && !kept) sp__event_array_free(ev);
  if (!ev) { /* out of memory: try again when asked */
    pthread_mutex_lock(&sp_stock.mu);
    if (!sp_stock.stop) pthread_cond_wait(&sp_stock.want, &sp_stock.mu);
    pthread_mutex_unlock(&sp_stock.mu);
  }
}

static void *sp_stock_main(void *arg) {
  (void)arg;
  sp__io_own = 1; /* a library thread: its I/O is never the program's */
  pthread_mutex_lock(&sp_stock.mu);
  while (!sp_stock.stop) {
    if (sp_stock_serve_locked()) continue; /* populate requests first */
    int k = sp_stock_short_locked();
    if (k == 0) {
      pthread_cond_wait(&sp_stock.want, &sp_stock.mu);
      sp_stock_since = 0; /* a new run: it had left the CPU */
      continue;
    }
    pthread_mutex_unlock(&sp_stock.mu);
    sp_stock_make(k);
    pthread_mutex_lock(&sp_stock.mu);
    if (sp_stock_short_locked() == 0) pthread_cond_broadcast(&sp_stock.filled);
  }
  pthread_mutex_unlock(&sp_stock.mu);
  return NULL;
}

static void sp_stock_drop_stale(int64_t first_cap, int64_t slot_cap);

void sp__stock_start(int64_t first_cap, int64_t slot_cap) {
  sp_stock_drop_stale(first_cap, slot_cap); /* a forked child's, of other sizes */
  pthread_mutex_lock(&sp_stock.mu);
  if (!sp_stock.running) {
    sp_stock.first_cap = first_cap;
    sp_stock.slot_cap = slot_cap;
    sp_stock.stop = 0;
    sp_stock.want_full = 0;
    sp_stock.taken = sp_stock.missed = 0;
    /* The helper takes none of the host's signals. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    sp_stock.running = pthread_create(&sp_stock.tid, NULL, sp_stock_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  }
  pthread_mutex_unlock(&sp_stock.mu);
}

void sp__stock_wait_filled(void) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += (long)SP_STOCK_WAIT_MS * 1000000L;
  until.tv_sec += until.tv_nsec / 1000000000L;
  until.tv_nsec %= 1000000000L;
  pthread_mutex_lock(&sp_stock.mu);
  while (sp_stock.running && !sp_stock.stop) {
    if (sp_stock_short_locked() == 0) break;
    if (pthread_cond_timedwait(&sp_stock.filled, &sp_stock.mu, &until) != 0) break;
  }
  pthread_mutex_unlock(&sp_stock.mu);
}

/* Takes the last array of list[0..*n) (cap entries), or NULL; *wake:
 * the stock's thread should refill, which it then does in one go (a
 * wake-up is a system call: one per cap / 4 takes). */
static sp_event_t *sp_stock_pop_locked(sp_event_t **list, int *n, int cap, int *wake) {
  sp_event_t *ev = NULL;
  if (*n > 0) ev = list[--*n];
  if (ev) {
    sp_stock.taken++;
  } else {
    sp_stock.missed++;
  }
  *wake = *n <= cap * 3 / 4;
  return ev;
}

sp_event_t *sp__stock_take(int64_t cap, int head) {
  if (!__atomic_load_n(&sp_stock.running, __ATOMIC_RELAXED)) return NULL;
  sp_event_t *ev = NULL;
  int wake = 0;
  pthread_mutex_lock(&sp_stock.mu);
  if (sp_stock.running && !sp_stock.stop) {
    if (cap == sp_stock.first_cap && !head) {
      ev = sp_stock_pop_locked(sp_stock.first, &sp_stock.nfirst, SP_STOCK_FIRST, &wake);
    } else if (cap == sp_stock.slot_cap && cap > 0) {
      ev = head ? sp_stock_pop_locked(sp_stock.heads, &sp_stock.nheads, SP_STOCK_HEADS, &wake)
                : sp_stock_pop_locked(sp_stock.full, &sp_stock.nfull, SP_STOCK_FULL, &wake);
      if (!sp_stock.want_full) sp_stock.want_full = wake = 1; /* now whole slots too */
    }
  }
  pthread_mutex_unlock(&sp_stock.mu);
  /* After the unlock: the woken thread does not wait for our mutex. */
  if (wake) pthread_cond_signal(&sp_stock.want);
  return ev;
}

sp_thread_t *sp__stock_take_thread(void) {
  if (!__atomic_load_n(&sp_stock.running, __ATOMIC_RELAXED)) return NULL;
  sp_thread_t *t = NULL;
  pthread_mutex_lock(&sp_stock.mu);
  if (sp_stock.running && !sp_stock.stop && sp_stock.nkits > 0) t = sp_stock.kits[--sp_stock.nkits];
  int wake = sp_stock.nkits <= SP_STOCK_KITS * 3 / 4;
  pthread_mutex_unlock(&sp_stock.mu);
  if (wake) pthread_cond_signal(&sp_stock.want);
  return t;
}

int sp__stock_populate_ask(void *p, size_t bytes, int urgent) {
  if (!__atomic_load_n(&sp_stock.running, __ATOMIC_RELAXED) || bytes == 0) return 0;
  int asked = 0;
  pthread_mutex_lock(&sp_stock.mu);
  if (sp_stock.running && !sp_stock.stop && sp_stock.nask < SP_STOCK_ASKS) {
    const sp_stock_ask_t a = {p, bytes, urgent};
    if (urgent) { /* served before the asks ahead of need */
      sp_stock.ask_head = (sp_stock.ask_head + SP_STOCK_ASKS - 1) % SP_STOCK_ASKS;
      sp_stock.ask[sp_stock.ask_head] = a;
      sp_stock.nask++;
    } else {
      sp_stock.ask[(sp_stock.ask_head + sp_stock.nask++) % SP_STOCK_ASKS] = a;
    }
    asked = 1;
  }
  pthread_mutex_unlock(&sp_stock.mu);
  if (asked) pthread_cond_signal(&sp_stock.want);
  return asked;
}

void sp__stock_stop(void) {
  pthread_mutex_lock(&sp_stock.mu);
  int running = sp_stock.running;
  sp_stock.stop = 1;
  pthread_cond_signal(&sp_stock.want);
  pthread_mutex_unlock(&sp_stock.mu);
  if (running) pthread_join(sp_stock.tid, NULL);
  pthread_mutex_lock(&sp_stock.mu);
  if (running && sp__state.set.verbose)
    sp__log(SP_LOG_INFO, SP_LOG_ALWAYS,
            "array stock: %lld array(s) taken ready, %lld made on demand",
            (long long)sp_stock.taken, (long long)sp_stock.missed);
  sp_stock.running = 0;
  sp_stock.nask = sp_stock.ask_head = 0;
  sp_event_t *drop[SP_STOCK_FIRST + SP_STOCK_HEADS + SP_STOCK_FULL];
  int n = 0;
  for (int i = 0; i < sp_stock.nfirst; i++) drop[n++] = sp_stock.first[i];
  for (int i = 0; i < sp_stock.nheads; i++) drop[n++] = sp_stock.heads[i];
  for (int i = 0; i < sp_stock.nfull; i++) drop[n++] = sp_stock.full[i];
  sp_stock.nfirst = sp_stock.nheads = sp_stock.nfull = 0;
  sp_thread_t *kits[SP_STOCK_KITS];
  int nkits = sp_stock.nkits;
  memcpy(kits, sp_stock.kits, (size_t)nkits * sizeof *kits);
  sp_stock.nkits = 0;
  pthread_mutex_unlock(&sp_stock.mu);
  for (int i = 0; i < n; i++) sp__event_array_free(drop[i]);
  for (int i = 0; i < nkits; i++) sp_kit_free(kits[i]);
}

/* fork(): held across it so that the child's copy is consistent. The
 * child has no helper thread, and keeps the stock: its arrays are the
 * child's own copies, stocked for the child's own session (sp_setup
 * starts a helper there, which fills up what is short) or freed by its
 * sp__stock_stop. Nothing is freed here: the slab's lock is still held
 * (fork_guard.c releases it after this), and the thread that
 * sp__stock_stop would join does not exist in the child. Forgetting the
 * arrays instead lost ~600 KB per fork once the child set up (the new
 * helper wrote over the list). */
void sp__stock_fork_prepare(void) { pthread_mutex_lock(&sp_stock.mu); }

void sp__stock_fork_parent(void) { pthread_mutex_unlock(&sp_stock.mu); }

void sp__stock_fork_child(void) {
  sp_stock.running = 0;
  sp_stock.stop = 0;
  sp_stock.nask = sp_stock.ask_head = 0; /* the parent's buffers' pages */
  pthread_cond_init(&sp_stock.want, NULL);
  pthread_cond_init(&sp_stock.filled, NULL);
  pthread_mutex_unlock(&sp_stock.mu);
}

/* Frees what a forked child kept of arrays of another size than its new
 * session's (another buffer_limit); called without any lock held. */
static void sp_stock_drop_stale(int64_t first_cap, int64_t slot_cap) {
  sp_event_t *drop[SP_STOCK_FIRST + SP_STOCK_HEADS + SP_STOCK_FULL];
  int n = 0;
  pthread_mutex_lock(&sp_stock.mu);
  if (!sp_stock.running && sp_stock.first_cap != first_cap) {
    for (int i = 0; i < sp_stock.nfirst; i++) drop[n++] = sp_stock.first[i];
    sp_stock.nfirst = 0;
  }
  if (!sp_stock.running && sp_stock.slot_cap != slot_cap) {
    for (int i = 0; i < sp_stock.nheads; i++) drop[n++] = sp_stock.heads[i];
    for (int i = 0; i < sp_stock.nfull; i++) drop[n++] = sp_stock.full[i];
    sp_stock.nheads = sp_stock.nfull = 0;
  }
  pthread_mutex_unlock(&sp_stock.mu);
  for (int i = 0; i < n; i++) sp__event_array_free(drop[i]);
}
