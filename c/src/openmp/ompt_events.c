/* ompt_events.c - the OMPT callbacks: constructs begin and end as calls of
 * their regions on the thread that reports them.
 *
 * Each thread keeps its own stack of open constructs (sp_omp_thread_t), so
 * an end closes its own begin whatever happened between (a begin before
 * sp_setup is never stopped after it). A call is recorded while a session
 * records with sp_config.openmp on; the cost is a thread-local load, a
 * cached handle and the core's sp_start or sp_stop.
 *
 * Names: the runtime reports no code pointer for some constructs (a
 * worker's closing barrier): they take the enclosing parallel region's.
 *
 * A worker's closing implicit barrier: LLVM's libomp (14) reports its end,
 * and the end of the worker's implicit task, only when the worker is woken
 * for the next parallel region (or at shutdown), so a worker would appear
 * busy in the region until then, and at sp_finalize its last region would
 * still be open. A worker's implicit task therefore ends where it reaches
 * that barrier, and the late ends are skipped: the wait of workers at the
 * end of a region is not recorded (the master's lane shows that barrier). */
#include <pthread.h>
#include <stdlib.h>

#include "ompt_events.h"
#include "ompt_names.h"

/* The calling thread's record; initial-exec as the core's sp__tls. */
static __thread sp_omp_thread_t *sp_omp_tls __attribute__((tls_model("initial-exec")));

/* A thread that ends without the runtime's thread_end (a program's own
 * thread that ran parallel regions) frees its record through this key. */
static pthread_key_t sp_omp_key;
static pthread_once_t sp_omp_key_once = PTHREAD_ONCE_INIT;
static int sp_omp_key_ok;
/* Runs on the ending thread: a later thread_end (the runtime's own
 * destructor may come after this one) finds no record to free again. */
static void sp_omp_key_free(void *record) {
  if (sp_omp_tls == record) sp_omp_tls = NULL;
  free(record);
}
static void sp_omp_key_make(void) {
  sp_omp_key_ok = pthread_key_create(&sp_omp_key, sp_omp_key_free) == 0;
}

static __attribute__((noinline)) sp_omp_thread_t *sp_omp_thread_new(void) {
  int saved_errno = errno;
  sp_omp_thread_t *t = calloc(1, sizeof *t);
  (void)pthread_once(&sp_omp_key_once, sp_omp_key_make);
  if (t && sp_omp_key_ok) (void)pthread_setspecific(sp_omp_key, t);
  errno = saved_errno;
  sp_omp_tls = t;
  return t;
}

/* The calling thread's record (made on first use; NULL without memory). */
static inline sp_omp_thread_t *sp_omp_thread(void) {
  sp_omp_thread_t *t = sp_omp_tls;
  return SP_LIKELY(t != NULL) ? t : sp_omp_thread_new();
}

/* Whether calls are recorded now: a session with openmp on. */
static inline int sp_omp_recording(void) {
  return __atomic_load_n(&sp__mode, __ATOMIC_ACQUIRE) != SP_MODE_OFF && sp__state.cfg.openmp;
}

static void sp_omp_push(sp_omp_kind_t kind, const void *cp, int worker) {
  sp_omp_thread_t *t = sp_omp_thread();
  if (SP_UNLIKELY(!t)) return;
  if (SP_UNLIKELY(t->depth == SP_OMP_DEPTH)) {
    t->over++;
    return;
  }
  sp_omp_frame_t *f = &t->frames[t->depth++];
  f->cp = cp;
  f->kind = (uint16_t)kind;
  f->worker = (uint16_t)worker;
  f->h = -1;
  if (!sp_omp_recording()) return;
  f->session = sp__session;
  f->h = sp__omp_handle(t, kind, cp);
  if (f->h >= 0) sp_start(f->h);
}

/* The classes of constructs an end closes: 0 parallel, 1 worksharing,
 * 2 synchronization, 3 task, 4 mutex wait (by sp_omp_kind_t). */
static const unsigned char sp_omp_cls[SP_OMP_NKINDS] = {
    [SP_OMP_PARALLEL] = 0,  [SP_OMP_LOOP] = 1,       [SP_OMP_SECTIONS] = 1, [SP_OMP_SINGLE] = 1,
    [SP_OMP_WORKSHARE] = 1, [SP_OMP_DISTRIBUTE] = 1, [SP_OMP_TASKLOOP] = 1, [SP_OMP_SCOPE] = 1,
    [SP_OMP_BARRIER] = 2,   [SP_OMP_IBARRIER] = 2,   [SP_OMP_RBARRIER] = 2, [SP_OMP_TASKWAIT] = 2,
    [SP_OMP_TASKGROUP] = 2, [SP_OMP_REDUCTION] = 2,  [SP_OMP_TASK] = 3,     [SP_OMP_CRITICAL] = 4,
    [SP_OMP_LOCK] = 4,      [SP_OMP_ORDERED] = 4};
#define sp_omp_class(kind) ((int)sp_omp_cls[(kind)])

/* Closes the innermost frame of t. */
static void sp_omp_pop_frame(sp_omp_thread_t *t) {
  const sp_omp_frame_t *f = &t->frames[--t->depth];
  if (f->h >= 0 && f->session == sp__session && sp_omp_recording()) sp_stop(f->h);
}

/* An end of a construct of kind's class: closes the innermost open frame
 * of that class when nothing but worksharing frames lie above it, those
 * first. The runtime does not always report an end (libomp's GOMP_ entry
 * points of gcc-built code begin a single without ending it): such a
 * frame ends with the construct that encloses it. Without a frame of the
 * class (begun past SP_OMP_DEPTH, or before the thread's record) the end
 * is dropped, so that it never closes another's begin. */
static void sp_omp_pop(int kind) {
  sp_omp_thread_t *t = sp_omp_thread();
  if (SP_UNLIKELY(!t)) return;
  if (SP_UNLIKELY(t->over > 0)) {
    t->over--;
    return;
  }
  const int cls = sp_omp_class(kind);
  int32_t d = t->depth - 1;
  if (SP_LIKELY(d >= 0 && sp_omp_class(t->frames[d].kind) == cls)) { /* the common case */
    sp_omp_pop_frame(t);
    return;
  }
  while (d >= 0 && sp_omp_class(t->frames[d].kind) != cls &&
         (sp_omp_class(t->frames[d].kind) == 1 || cls == 0))
    d--;
  if (d < 0 || sp_omp_class(t->frames[d].kind) != cls) return;
  while (t->depth > d) sp_omp_pop_frame(t);
}

/* A barrier begins: no worksharing construct of this task is still open
 * (a single that the runtime began without an end ends here). */
static void sp_omp_close_work(void) {
  sp_omp_thread_t *t = sp_omp_thread();
  if (!t || t->over) return;
  while (t->depth > 0 && sp_omp_class(t->frames[t->depth - 1].kind) == 1) sp_omp_pop_frame(t);
}

/* The code pointer of the innermost parallel region open on this thread. */
static const void *sp_omp_parallel_cp(void) {
  sp_omp_thread_t *t = sp_omp_thread();
  for (int32_t d = t ? t->depth - 1 : -1; d >= 0; d--)
    if (t->frames[d].kind == SP_OMP_PARALLEL) return t->frames[d].cp;
  return NULL;
}

static void sp_omp_parallel_begin(ompt_data_t *encountering_task_data,
                                  const ompt_frame_t *encountering_task_frame,
                                  ompt_data_t *parallel_data, unsigned int requested_parallelism,
                                  int flags, const void *codeptr_ra) {
  (void)encountering_task_data, (void)encountering_task_frame, (void)requested_parallelism;
  (void)flags;
  /* The workers' implicit tasks learn where the region is from here. */
  parallel_data->ptr = (void *)(uintptr_t)codeptr_ra;
}

static void sp_omp_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                                 ompt_data_t *task_data, unsigned int actual_parallelism,
                                 unsigned int index, int flags) {
  (void)task_data, (void)actual_parallelism;
  if (flags & ompt_task_initial) return; /* the whole program, or a teams league */
  if (endpoint == ompt_scope_begin) {
    sp_omp_push(SP_OMP_PARALLEL, parallel_data ? parallel_data->ptr : NULL, index != 0);
    return;
  }
  sp_omp_thread_t *t = sp_omp_thread();
  if (t && t->skip_task_end) {
    t->skip_task_end = 0;
    return;
  }
  sp_omp_pop(SP_OMP_PARALLEL);
}

static const sp_omp_kind_t sp_omp_work_kind[] = {
    [ompt_work_loop] = SP_OMP_LOOP,
    [ompt_work_sections] = SP_OMP_SECTIONS,
    [ompt_work_single_executor] = SP_OMP_SINGLE,
    [ompt_work_single_other] = SP_OMP_SINGLE,
    [ompt_work_workshare] = SP_OMP_WORKSHARE,
    [ompt_work_distribute] = SP_OMP_DISTRIBUTE,
    [ompt_work_taskloop] = SP_OMP_TASKLOOP,
    [ompt_work_scope] = SP_OMP_SCOPE,
};

static void sp_omp_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint,
                        ompt_data_t *parallel_data, ompt_data_t *task_data, uint64_t count,
                        const void *codeptr_ra) {
  (void)parallel_data, (void)task_data, (void)count;
  if (endpoint != ompt_scope_begin) {
    sp_omp_pop(SP_OMP_LOOP);
    return;
  }
  unsigned w = (unsigned)wstype;
  sp_omp_kind_t kind = w < sizeof sp_omp_work_kind / sizeof *sp_omp_work_kind && w
                           ? sp_omp_work_kind[w]
                           : SP_OMP_LOOP;
  sp_omp_push(kind, codeptr_ra ? codeptr_ra : sp_omp_parallel_cp(), 0);
}

/* A worker reaching the barrier that closes its parallel region: its
 * implicit task ends here (see the head of this file). */
static int sp_omp_worker_closing(ompt_sync_region_t kind, const void *codeptr_ra) {
  if (!(kind == ompt_sync_region_barrier_implicit_parallel ||
        (kind == ompt_sync_region_barrier_implicit && !codeptr_ra)))
    return 0;
  sp_omp_thread_t *t = sp_omp_thread();
  if (!t || t->over || t->depth == 0) return 0;
  const sp_omp_frame_t *f = &t->frames[t->depth - 1];
  if (f->kind != SP_OMP_PARALLEL || !f->worker) return 0;
  sp_omp_pop(SP_OMP_PARALLEL);
  t->skip_sync_end = 1;
  t->skip_task_end = 1;
  return 1;
}

static void sp_omp_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                               ompt_data_t *parallel_data, ompt_data_t *task_data,
                               const void *codeptr_ra) {
  (void)parallel_data, (void)task_data;
  if (endpoint != ompt_scope_begin) {
    sp_omp_thread_t *t = sp_omp_thread();
    if (t && t->skip_sync_end) {
      t->skip_sync_end = 0;
      return;
    }
    sp_omp_pop(SP_OMP_BARRIER);
    return;
  }
  if (kind <= ompt_sync_region_barrier_implementation ||
      kind >= ompt_sync_region_barrier_implicit_workshare)
    sp_omp_close_work();
  if (sp_omp_worker_closing(kind, codeptr_ra)) return;
  sp_omp_kind_t k;
  switch (kind) {
  case ompt_sync_region_barrier_explicit:
  case ompt_sync_region_barrier:
    k = SP_OMP_BARRIER;
    break;
  case ompt_sync_region_barrier_implementation:
    k = SP_OMP_RBARRIER;
    break;
  case ompt_sync_region_taskwait:
    k = SP_OMP_TASKWAIT;
    break;
  case ompt_sync_region_taskgroup:
    k = SP_OMP_TASKGROUP;
    break;
  case ompt_sync_region_reduction:
    k = SP_OMP_REDUCTION;
    break;
  default: /* the implicit barriers */
    k = SP_OMP_IBARRIER;
    break;
  }
  sp_omp_push(k, codeptr_ra ? codeptr_ra : sp_omp_parallel_cp(), 0);
}

/* ---- opt-in: explicit tasks (tasks) ---- */

static void sp_omp_task_create(ompt_data_t *encountering_task_data,
                               const ompt_frame_t *encountering_task_frame,
                               ompt_data_t *new_task_data, int flags, int has_dependences,
                               const void *codeptr_ra) {
  (void)encountering_task_data, (void)encountering_task_frame, (void)has_dependences;
  if (flags & ompt_task_explicit) new_task_data->ptr = (void *)(uintptr_t)codeptr_ra;
}

static void sp_omp_task_schedule(ompt_data_t *prior_task_data, ompt_task_status_t prior_status,
                                 ompt_data_t *next_task_data) {
  (void)prior_status;
  sp_omp_thread_t *t = sp_omp_thread();
  if (!t) return;
  /* The prior task stops running here (done or suspended): its call ends
   * when it is the innermost construct open. */
  if (prior_task_data && prior_task_data->ptr && !t->over && t->depth > 0 &&
      t->frames[t->depth - 1].kind == SP_OMP_TASK &&
      t->frames[t->depth - 1].cp == prior_task_data->ptr)
    sp_omp_pop(SP_OMP_TASK);
  if (next_task_data && next_task_data->ptr) sp_omp_push(SP_OMP_TASK, next_task_data->ptr, 0);
}

/* ---- opt-in: mutex waits (locks) ---- */

static sp_omp_kind_t sp_omp_mutex_kind(ompt_mutex_t kind) {
  return kind == ompt_mutex_critical  ? SP_OMP_CRITICAL
         : kind == ompt_mutex_ordered ? SP_OMP_ORDERED
                                      : SP_OMP_LOCK;
}

static void sp_omp_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                                 ompt_wait_id_t wait_id, const void *codeptr_ra) {
  (void)hint, (void)impl, (void)wait_id;
  if (kind == ompt_mutex_atomic) return;
  sp_omp_push(sp_omp_mutex_kind(kind), codeptr_ra, 0);
}

static void sp_omp_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id,
                                  const void *codeptr_ra) {
  (void)wait_id, (void)codeptr_ra;
  if (kind == ompt_mutex_atomic) return;
  sp_omp_thread_t *t = sp_omp_thread();
  if (t && !t->over && t->depth > 0 && t->frames[t->depth - 1].kind == sp_omp_mutex_kind(kind))
    sp_omp_pop(sp_omp_mutex_kind(kind));
}

static void sp_omp_thread_end(ompt_data_t *thread_data) {
  (void)thread_data;
  if (sp_omp_key_ok) (void)pthread_setspecific(sp_omp_key, NULL);
  free(sp_omp_tls);
  sp_omp_tls = NULL;
}

void sp__omp_callbacks_register(ompt_set_callback_t set_callback, int level) {
  set_callback(ompt_callback_parallel_begin, (ompt_callback_t)sp_omp_parallel_begin);
  set_callback(ompt_callback_implicit_task, (ompt_callback_t)sp_omp_implicit_task);
  set_callback(ompt_callback_work, (ompt_callback_t)sp_omp_work);
  set_callback(ompt_callback_sync_region, (ompt_callback_t)sp_omp_sync_region);
  set_callback(ompt_callback_thread_end, (ompt_callback_t)sp_omp_thread_end);
  if (level == SP_OPENMP_TASKS || level == SP_OPENMP_ALL) {
    set_callback(ompt_callback_task_create, (ompt_callback_t)sp_omp_task_create);
    set_callback(ompt_callback_task_schedule, (ompt_callback_t)sp_omp_task_schedule);
  }
  if (level == SP_OPENMP_LOCKS || level == SP_OPENMP_ALL) {
    set_callback(ompt_callback_mutex_acquire, (ompt_callback_t)sp_omp_mutex_acquire);
    set_callback(ompt_callback_mutex_acquired, (ompt_callback_t)sp_omp_mutex_acquired);
  }
}
