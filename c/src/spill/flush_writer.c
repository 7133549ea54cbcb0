/* flush_writer.c - a background thread that appends full buffers to the
 * spill file, so the recording thread only swaps arrays.
 *
 * Writing a full buffer (1.6 MB at the default limit) into the page cache
 * stalled the recording thread (docs/performance.md, "Figures behind
 * design choices in the code"). Now the recording thread hands the full
 * array over and continues with a recycled one whose pages are already
 * faulted in (from the pool, else from array_stock.c's stock, else an
 * untouched one that the stock's thread populates ahead of the events);
 * the writer returns written arrays to a small pool. At most SP_MAX_PENDING arrays
 * wait: past that (disk slower than the program) the recording thread
 * waits, which keeps memory bounded. Records keep the order in which
 * they were handed (a thread's values, call_values.c, are handed before
 * the events they belong to, thread_buffers.c); a write the caller makes
 * itself comes after the queue. SCOPE_PROFILER_ASYNC_FLUSH=0 turns it off. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host_guard.h"
#include "sp_internal.h"

/* 16: all 16 buffers of a thread that uses 16 regions in turn fill at
 * about the same time, and the recording thread must not wait for the
 * first ones to be written (issue 38). */
#define SP_MAX_PENDING 16
#define SP_POOL_MAX 16
/* Events per record: a full buffer goes out in parts of 256 KiB with a
 * yield between them, so that where the writer shares a core with the
 * recording thread it takes that core for about 0.5 ms at a time, not for
 * the 3-5 ms of a whole 1.6 MB buffer. */
#define SP_WRITE_PART 16384
/* A writer confined to one CPU (the process pinned, as MPI ranks bound to
 * a core are) shares it with the recording thread: while behind it still
 * yields once it has written this long without yielding, so that the
 * recording thread never waits over ~1 ms for it (a run of 16 queued
 * arrays is ~10 ms). Not elsewhere: there a yield while behind gives the
 * CPU to another process for a time slice (issue 44). */
#define SP_WRITE_RUN_NS 500000

typedef struct sp_job {
  sp_event_t *ev; /* NULL: a values record (rec) */
  char *rec;      /* SP_SPILL_VALUES head (hlen bytes) and body, malloc'ed */
  size_t hlen, blen;
  int64_t cap; /* events allocated */
  int64_t n;   /* events to write */
  int32_t region, thread;
  struct sp_job *next;
} sp_job_t;

static struct {
  pthread_mutex_t mu;
  pthread_cond_t work, idle;
  pthread_t tid;
  int running, stop;
  sp_job_t *head, *tail;
  sp_job_t *current; /* being written (so a forked child can free it) */
  int pending;       /* queued or being written; changed atomically, read unlocked by the writer */
  sp_event_t *pool[SP_POOL_MAX];
  int64_t pool_cap[SP_POOL_MAX];
  int npool;
  /* Read lock-free by a crashing thread (crash_drain.c): arrays handed,
   * arrays written, parts written. */
  int64_t handed, written, parts;
} sp_w = {.mu = PTHREAD_MUTEX_INITIALIZER,
          .work = PTHREAD_COND_INITIALIZER,
          .idle = PTHREAD_COND_INITIALIZER};

static void sp_pool_put_locked(sp_event_t *ev, int64_t cap) {
  if (sp_w.npool < SP_POOL_MAX) {
    sp_w.pool[sp_w.npool] = ev;
    sp_w.pool_cap[sp_w.npool++] = cap;
  } else {
    sp__event_array_free(ev);
  }
}

/* A written array of cap events from the pool, or NULL. */
static sp_event_t *sp_pool_take_locked(int64_t cap) {
  for (int i = 0; i < sp_w.npool; i++) {
    if (sp_w.pool_cap[i] == cap) {
      sp_event_t *ev = sp_w.pool[i];
      sp_w.pool[i] = sp_w.pool[--sp_w.npool];
      sp_w.pool_cap[i] = sp_w.pool_cap[sp_w.npool];
      return ev;
    }
  }
  return NULL;
}

static int64_t sp_writer_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Writer thread only: whether it may run on one CPU only, and when it last
 * yielded (ns). */
static int sp_writer_one_cpu;
static int64_t sp_writer_yielded;

static void sp_writer_yield(void) {
  sched_yield();
  if (sp_writer_one_cpu) sp_writer_yielded = sp_writer_now();
}

static void sp_writer_write(const sp_job_t *j) {
  if (j->rec) { /* values per call (call_values.c): one record, a part */
    sp__spill_values(j->rec, j->hlen, j->rec + j->hlen, j->blen);
    __atomic_add_fetch(&sp_w.parts, 1, __ATOMIC_RELEASE);
  }
  for (int64_t done = 0; done < j->n; done += SP_WRITE_PART) {
    /* Yields to recording threads between parts while it keeps up. Not
     * when arrays wait behind this one: each array queued is one more
     * the recording thread takes fresh (page faults) instead of from the
     * pool (except every SP_WRITE_RUN_NS on one CPU); nor once stopping
     * (exit, finalize): the parts must reach the disk first. */
    if (done > 0 && !__atomic_load_n(&sp_w.stop, __ATOMIC_RELAXED)) {
      if (__atomic_load_n(&sp_w.pending, __ATOMIC_RELAXED) <= 1 ||
          (sp_writer_one_cpu && sp_writer_now() - sp_writer_yielded >= SP_WRITE_RUN_NS))
        sp_writer_yield();
    }
    int64_t part = j->n - done < SP_WRITE_PART ? j->n - done : SP_WRITE_PART;
    sp__spill_events(j->region, j->thread, j->ev + done, part);
    __atomic_add_fetch(&sp_w.parts, 1, __ATOMIC_RELEASE);
  }
  __atomic_add_fetch(&sp_w.written, 1, __ATOMIC_RELEASE);
}

static void *sp_writer_main(void *arg) {
  (void)arg;
  cpu_set_t cpus; /* inherited from the thread of the first flush */
  sp_writer_one_cpu = sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) == 1;
  pthread_mutex_lock(&sp_w.mu);
  for (;;) {
    int slept = 0;
    for (; !sp_w.head && !sp_w.stop; slept = 1) pthread_cond_wait(&sp_w.work, &sp_w.mu);
    sp_job_t *j = sp_w.head;
    if (!j) break; /* stop requested and nothing left */
    sp_w.head = j->next;
    if (!sp_w.head) sp_w.tail = NULL;
    sp_w.current = j;
    pthread_mutex_unlock(&sp_w.mu);
    if (slept && sp_writer_one_cpu) sp_writer_yielded = sp_writer_now(); /* its run begins */
    sp_writer_write(j);
    pthread_mutex_lock(&sp_w.mu);
    sp_w.current = NULL;
    if (j->ev) sp_pool_put_locked(j->ev, j->cap);
    free(j->rec);
    free(j);
    __atomic_sub_fetch(&sp_w.pending, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&sp_w.idle); /* drainers and blocked producers */
  }
  pthread_mutex_unlock(&sp_w.mu);
  return NULL;
}

/* Queues j (filled) behind the jobs handed before it. */
static void sp_writer_queue_locked(sp_job_t *j) {
  if (sp_w.tail) {
    sp_w.tail->next = j;
  } else {
    sp_w.head = j;
  }
  sp_w.tail = j;
  __atomic_add_fetch(&sp_w.pending, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&sp_w.handed, 1, __ATOMIC_RELEASE);
  pthread_cond_signal(&sp_w.work);
}

sp_event_t *sp__writer_swap(sp_event_t *full, int64_t cap, int64_t n, int32_t region,
                            int32_t thread) {
  if (!sp__state.set.async_flush) return NULL;
  sp_job_t *j = malloc(sizeof *j);
  if (!j) {
    sp__writer_drain(); /* the caller's own write must come after the queue (its values) */
    return NULL;
  }
  sp_event_t *fresh = NULL;
  pthread_mutex_lock(&sp_w.mu);
  if (!sp_w.running) {
    sp_w.stop = 0;
    sp_w.running = sp__thread_spawn(&sp_w.tid, sp_writer_main, NULL) == 0;
    if (sp_w.running) sp__crash_drain_install(); /* a crash waits for it */
  }
  if (!sp_w.running) { /* nothing was ever queued: writing here keeps the order */
    pthread_mutex_unlock(&sp_w.mu);
    free(j);
    return NULL;
  }
  /* The disk is slower than the program: wait rather than let memory grow.
   * (Writing here instead would put records out of order.) */
  while (sp_w.pending >= SP_MAX_PENDING) pthread_cond_wait(&sp_w.idle, &sp_w.mu);
  fresh = sp_pool_take_locked(cap);
  pthread_mutex_unlock(&sp_w.mu);
  /* Only until the pool is warm: later arrays come back written. */
  if (!fresh) fresh = sp__stock_take(cap, 0); /* faulted in by the stock's thread */
  if (!fresh) {
    fresh = sp__event_array_fresh(cap);
    if (!fresh) {
      free(j);
      sp__writer_drain(); /* the caller's own write must come after the queue */
      return NULL;
    }
  }
  *j = (sp_job_t){full, NULL, 0, 0, cap, n, region, thread, NULL};
  pthread_mutex_lock(&sp_w.mu);
  sp_writer_queue_locked(j);
  pthread_mutex_unlock(&sp_w.mu);
  return fresh;
}

int sp__writer_values(void *rec, size_t hlen, size_t blen) {
  if (!sp__state.set.async_flush) return -1;
  sp_job_t *j = malloc(sizeof *j);
  if (!j) return -1;
  pthread_mutex_lock(&sp_w.mu);
  if (!sp_w.running) { /* started by the first array handed, not here */
    pthread_mutex_unlock(&sp_w.mu);
    free(j);
    return -1;
  }
  while (sp_w.pending >= SP_MAX_PENDING) pthread_cond_wait(&sp_w.idle, &sp_w.mu);
  *j = (sp_job_t){NULL, rec, hlen, blen, 0, 0, -1, -1, NULL};
  sp_writer_queue_locked(j);
  pthread_mutex_unlock(&sp_w.mu);
  return 0;
}

int sp__writer_behind(void) {
  if (pthread_equal(pthread_self(), sp_w.tid)) return 0; /* the writer itself crashed */
  return __atomic_load_n(&sp_w.written, __ATOMIC_ACQUIRE) <
         __atomic_load_n(&sp_w.handed, __ATOMIC_ACQUIRE);
}

int64_t sp__writer_progress(void) { return __atomic_load_n(&sp_w.parts, __ATOMIC_ACQUIRE); }

void sp__writer_drain(void) {
  pthread_mutex_lock(&sp_w.mu);
  while (sp_w.pending > 0) pthread_cond_wait(&sp_w.idle, &sp_w.mu);
  pthread_mutex_unlock(&sp_w.mu);
}

void sp__writer_stop(void) {
  pthread_mutex_lock(&sp_w.mu);
  int running = sp_w.running;
  __atomic_store_n(&sp_w.stop, 1, __ATOMIC_RELAXED); /* read unlocked by the writer */
  pthread_cond_signal(&sp_w.work);
  pthread_mutex_unlock(&sp_w.mu);
  if (running) pthread_join(sp_w.tid, NULL);
  pthread_mutex_lock(&sp_w.mu);
  if (running) sp__crash_drain_remove();
  sp_w.running = 0;
  for (int i = 0; i < sp_w.npool; i++) sp__event_array_free(sp_w.pool[i]);
  sp_w.npool = 0;
  pthread_mutex_unlock(&sp_w.mu);
}

/* fork(): the child gets no writer thread, and the buffers queued for the
 * parent's one are the parent's to write. The lock is held across fork so
 * the child's copy of the queue is consistent. */
void sp__writer_fork_prepare(void) { pthread_mutex_lock(&sp_w.mu); }

void sp__writer_fork_parent(void) { pthread_mutex_unlock(&sp_w.mu); }

void sp__writer_fork_child(void) {
  if (sp_w.current) { /* the parent's writer is writing it */
    sp_w.current->next = sp_w.head;
    sp_w.head = sp_w.current;
    sp_w.current = NULL;
  }
  for (sp_job_t *j = sp_w.head, *next; j; j = next) {
    next = j->next;
    if (j->ev) sp_pool_put_locked(j->ev, j->cap);
    free(j->rec);
    free(j);
  }
  sp_w.head = sp_w.tail = NULL;
  sp_w.pending = 0;
  sp_w.handed = sp_w.written = 0;
  sp_w.running = 0;
  sp_w.stop = 0;
  /* Waiters recorded in the copies are threads the child does not have. */
  pthread_cond_init(&sp_w.work, NULL);
  pthread_cond_init(&sp_w.idle, NULL);
  pthread_mutex_unlock(&sp_w.mu);
}
