/* nvtx_lanes.c - nvtxRangeStart/End: ranges that may end on another thread.
 *
 * The file keeps one properly nested call tree per thread, which a range
 * started on one thread and ended on another (or ended out of order on the
 * same one) cannot join. So each such range is recorded in a lane of its
 * own: a small thread of this library that does the sp_start when the range
 * starts and the sp_stop when it ends, while the calling thread waits for
 * it. The stamps therefore lie inside the nvtxRangeStart and nvtxRangeEnd
 * calls, as a direct sp_start's lies inside sp_start; in the file the range
 * is a call on the lane's thread (one call at a time: a lane is reused once
 * its range ended), the way Nsight Systems draws start/end ranges on a row
 * of their own. A handover costs a few microseconds: fine for the coarse
 * phases such ranges mark, not for a hot loop (use push/pop there).
 *
 * A range id is (generation << 16) | (lane + 1); an id whose lane moved on
 * (ended twice, or closed at finalize) is ignored. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "nvtx_inject.h"
#include "scope_profiler.h"

#define SP_LANES_MAX 1024 /* ranges open at once; more are not recorded */

enum { SP_LANE_IDLE, SP_LANE_START, SP_LANE_STOP };

typedef struct sp_lane {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int cmd;          /* SP_LANE_*, back to SP_LANE_IDLE when done */
  int32_t h;        /* the open range's region */
  unsigned session; /* sp__session of h */
  uint32_t gen;     /* under sp_lanes_lock */
  int busy;         /* under sp_lanes_lock: 1 open, 2 ending */
} sp_lane_t;

static pthread_mutex_t sp_lanes_lock = PTHREAD_MUTEX_INITIALIZER;
static sp_lane_t *sp_lanes[SP_LANES_MAX];
static int sp_nlanes;

static void *sp_lane_main(void *arg) {
  sp_lane_t *l = arg;
  pthread_mutex_lock(&l->mu);
  for (;;) {
    while (l->cmd == SP_LANE_IDLE) pthread_cond_wait(&l->cv, &l->mu);
    if (l->cmd == SP_LANE_START) {
      sp_start(l->h);
    } else if (l->session == sp__session) { /* else: the session it began in is over */
      sp_stop(l->h);
    }
    l->cmd = SP_LANE_IDLE;
    pthread_cond_broadcast(&l->cv);
  }
  return NULL;
}

/* Has lane l do cmd and waits until it did. */
static void sp_lane_do(sp_lane_t *l, int cmd) {
  pthread_mutex_lock(&l->mu);
  l->cmd = cmd;
  pthread_cond_broadcast(&l->cv);
  while (l->cmd != SP_LANE_IDLE) pthread_cond_wait(&l->cv, &l->mu);
  pthread_mutex_unlock(&l->mu);
}

/* A new lane with its thread (under sp_lanes_lock), or NULL. */
static sp_lane_t *sp_lane_new(void) {
  if (sp_nlanes == SP_LANES_MAX) return NULL;
  sp_lane_t *l = calloc(1, sizeof *l);
  if (!l) return NULL;
  pthread_mutex_init(&l->mu, NULL);
  pthread_cond_init(&l->cv, NULL);
  pthread_attr_t at;
  pthread_t tid;
  pthread_attr_init(&at);
  pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&at, 256 * 1024); /* a lane calls sp_start/sp_stop only */
  int rc = pthread_create(&tid, &at, sp_lane_main, l);
  pthread_attr_destroy(&at);
  if (rc != 0) {
    free(l);
    return NULL;
  }
  sp_lanes[sp_nlanes++] = l;
  return l;
}

nvtxRangeId_t sp__nvtx_range_start(int32_t h) {
  if (h < 0) return 0;
  pthread_mutex_lock(&sp_lanes_lock);
  int i = 0;
  while (i < sp_nlanes && sp_lanes[i]->busy) i++;
  sp_lane_t *l = i < sp_nlanes ? sp_lanes[i] : sp_lane_new();
  if (l) {
    l->busy = 1;
    l->gen++;
  }
  nvtxRangeId_t id = l ? ((nvtxRangeId_t)l->gen << 16) | (nvtxRangeId_t)(i + 1) : 0;
  pthread_mutex_unlock(&sp_lanes_lock);
  if (!l) {
    static int told;
    if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
      fprintf(stderr,
              "scope-profiler: more than %d NVTX start/end ranges open at once (or no "
              "thread for one): the others are not recorded\n",
              SP_LANES_MAX);
    return 0;
  }
  l->h = h;
  l->session = sp__session;
  sp_lane_do(l, SP_LANE_START);
  return id;
}

void sp__nvtx_range_end(nvtxRangeId_t id) {
  const uint64_t idx = (id & 0xFFFF) - 1;
  pthread_mutex_lock(&sp_lanes_lock);
  sp_lane_t *l = id && idx < (uint64_t)sp_nlanes ? sp_lanes[idx] : NULL;
  if (l && (l->busy != 1 || l->gen != (uint32_t)(id >> 16))) l = NULL;
  if (l) l->busy = 2;
  pthread_mutex_unlock(&sp_lanes_lock);
  if (!l) return; /* ended already, or never recorded */
  sp_lane_do(l, SP_LANE_STOP);
  pthread_mutex_lock(&sp_lanes_lock);
  l->busy = 0;
  pthread_mutex_unlock(&sp_lanes_lock);
}

void sp__nvtx_lanes_finalize(void) {
  /* Ranges still open end at finalize, as calls open on a thread would not:
   * their lanes take no further part, and their ids are void. */
  pthread_mutex_lock(&sp_lanes_lock);
  for (int i = 0; i < sp_nlanes; i++) {
    sp_lane_t *l = sp_lanes[i];
    if (l->busy != 1) continue;
    sp_lane_do(l, SP_LANE_STOP);
    l->busy = 0;
    l->gen++;
  }
  pthread_mutex_unlock(&sp_lanes_lock);
}
