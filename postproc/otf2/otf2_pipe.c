/* otf2_pipe.c - the export's two threads, the bounded queue between them
 * and the OTF2 calls (see otf2_internal.h).
 *
 * The producer thread owns the reader, the merges and the placement of
 * calls on locations (otf2_events.c: run->locs, the counts); the calling
 * thread (the consumer) owns the OTF2 archive and what only it writes
 * (the event writers, the values' attributes in run->vt). No field is
 * written by both. A slot passes from one to the other under the queue's
 * mutex, so its contents are seen whole.
 *
 * Each side sleeps only when the queue is full (producer) or empty
 * (consumer), and is woken with slack (half the queue), not at every slot:
 * a wake-up per slot cost more than the events it carried.
 *
 * Failures: the consumer's first error sets failed; the producer sees it at
 * its next slot, stops and sends the last slot; the consumer takes every
 * slot up to that one, closing the merges and event writers they name.
 * The producer's error (a reader error, SP_OTF2_RESCAN) travels in the
 * last slot. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "otf2_internal.h"

/* The consumer's side of a location. */
typedef struct sp_wloc {
  OTF2_EvtWriter *w;
  uint64_t request; /* next MpiIsend request id */
  uint64_t nmpi;    /* MPI events written (added to run->locs after the events) */
} sp_wloc_t;

struct sp_otf2_pipe {
  sp_otf2_run_t *run;
  int threaded; /* 0: one thread, one slot, consumed as it is filled */
  pthread_mutex_t mu;
  pthread_cond_t can_put, can_take;
  sp_otf2_slot_t *slots;
  int head, count;               /* slots [head, head + count) are full */
  int put_waiting, take_waiting; /* a side asleep on its condition */
  int failed;                    /* the consumer failed: the producer stops */
  int crc;                       /* the consumer's code */
  sp_wloc_t *w;                  /* by location id */
  int nw;
  sp_otf2_produce_fn produce;
  void *arg;
};

static int sp_otf2_fail(OTF2_ErrorCode e, const char *what) {
  sp_msg(SP_QUIET, "OTF2: %s: %s", what, OTF2_Error_GetDescription(e));
  return SP_EXIT_IO;
}

static int sp_open_loc(sp_otf2_pipe_t *p, int loc) {
  if (loc >= p->nw) {
    int n = p->nw ? 2 * p->nw : 64;
    while (n <= loc) n *= 2;
    sp_wloc_t *w = realloc(p->w, (size_t)n * sizeof *w);
    if (!w) return SP_EXIT_IO;
    for (int i = p->nw; i < n; i++) w[i] = (sp_wloc_t){NULL, 0, 0};
    p->w = w;
    p->nw = n;
  }
  p->w[loc].w = OTF2_Archive_GetEvtWriter(p->run->archive, (OTF2_LocationRef)loc);
  return p->w[loc].w ? 0 : sp_otf2_fail(OTF2_ERROR_INVALID, "cannot open an event writer");
}

/* An event with its extra x (ENTER_X, LEAVE_X). */
static int sp_write_x(sp_otf2_pipe_t *p, const sp_otf2_ev_t *ev, int op, const sp_otf2_extra_t *x) {
  sp_wloc_t *wl = &p->w[ev->loc_op >> 4];
  OTF2_ErrorCode e = OTF2_SUCCESS;
  if (op == SP_OTF2_EV_LEAVE_X) {
    e = sp__otf2_mpi_leave(wl->w, ev->t, x->kind, x->op, &x->msg, &wl->nmpi);
    if (e != OTF2_SUCCESS) return sp_otf2_fail(e, "cannot write an MPI event");
    e = OTF2_EvtWriter_Leave(wl->w, NULL, ev->t, ev->region);
    return e == OTF2_SUCCESS ? 0 : sp_otf2_fail(e, "cannot write a LEAVE event");
  }
  int rc = 0;
  OTF2_AttributeList *al = x->vals ? sp__otf2_values_list(p->run, x->vals, x->index, &rc) : NULL;
  if (rc) return rc;
  e = OTF2_EvtWriter_Enter(wl->w, al, ev->t, ev->region);
  if (e != OTF2_SUCCESS) return sp_otf2_fail(e, "cannot write an ENTER event");
  if (x->kind == SP_OTF2_MPI_NONE) return 0;
  e = sp__otf2_mpi_enter(wl->w, ev->t, x->kind, &x->msg, &wl->request, &wl->nmpi);
  return e == OTF2_SUCCESS ? 0 : sp_otf2_fail(e, "cannot write an MPI event");
}

/* Slot s's events through OTF2; rc: the code of the slots before (after a
 * failure only the event writers are closed). Returns the code. */
static int sp_consume(sp_otf2_pipe_t *p, sp_otf2_slot_t *s, int rc) {
  const sp_otf2_extra_t *x = s->x;
  for (const sp_otf2_ev_t *ev = s->ev, *end = s->ev + s->nev; ev < end; ev++) {
    int op = (int)(ev->loc_op & 15);
    OTF2_EvtWriter *w = p->w && (int)(ev->loc_op >> 4) < p->nw ? p->w[ev->loc_op >> 4].w : NULL;
    if (rc != 0 && op != SP_OTF2_EV_CLOSE) continue;
    OTF2_ErrorCode e;
    switch (op) {
    case SP_OTF2_EV_ENTER:
      e = OTF2_EvtWriter_Enter(w, NULL, ev->t, ev->region);
      if (e != OTF2_SUCCESS) rc = sp_otf2_fail(e, "cannot write an ENTER event");
      break;
    case SP_OTF2_EV_LEAVE:
      e = OTF2_EvtWriter_Leave(w, NULL, ev->t, ev->region);
      if (e != OTF2_SUCCESS) rc = sp_otf2_fail(e, "cannot write a LEAVE event");
      break;
    case SP_OTF2_EV_ENTER_X:
    case SP_OTF2_EV_LEAVE_X:
      rc = sp_write_x(p, ev, op, x++);
      break;
    case SP_OTF2_EV_OPEN:
      rc = sp_open_loc(p, (int)(ev->loc_op >> 4));
      break;
    default: /* CLOSE */
      if (!w) break;
      e = OTF2_Archive_CloseEvtWriter(p->run->archive, w);
      p->w[ev->loc_op >> 4].w = NULL;
      if (rc == 0 && e != OTF2_SUCCESS) rc = sp_otf2_fail(e, "cannot close an event writer");
    }
  }
  sp__otf2_merge_close(s->end);
  s->end = NULL;
  return rc;
}

/* The slot the producer fills next, emptied; *stop when the consumer failed. */
static sp_otf2_slot_t *sp_claim(sp_otf2_pipe_t *p, int *stop) {
  sp_otf2_slot_t *s = &p->slots[0];
  if (!p->threaded) {
    *stop = p->crc != 0;
  } else {
    pthread_mutex_lock(&p->mu);
    while (p->count == SP_OTF2_SLOTS) {
      p->put_waiting = 1;
      pthread_cond_wait(&p->can_put, &p->mu);
    }
    p->put_waiting = 0;
    *stop = p->failed;
    s = &p->slots[(p->head + p->count) % SP_OTF2_SLOTS];
    pthread_mutex_unlock(&p->mu);
  }
  s->nev = s->nx = 0;
  s->end = NULL;
  s->done = s->rc = 0;
  return s;
}

/* The slot filled since sp_claim goes to the consumer. */
static void sp_publish(sp_otf2_pipe_t *p, sp_otf2_slot_t *s) {
  if (!p->threaded) {
    p->crc = sp_consume(p, s, p->crc);
    return;
  }
  pthread_mutex_lock(&p->mu);
  p->count++;
  if (p->take_waiting && (p->count >= SP_OTF2_SLOTS / 2 || s->done))
    pthread_cond_signal(&p->can_take);
  pthread_mutex_unlock(&p->mu);
}

int sp__otf2_out_next(sp_otf2_out_t *o, sp_otf2_merge_t *end) {
  o->s->end = end;
  sp_publish(o->pipe, o->s);
  int stop;
  o->s = sp_claim(o->pipe, &stop);
  return stop ? SP_OTF2_STOPPED : 0;
}

static void *sp_produce_main(void *arg) {
  sp_otf2_pipe_t *p = arg;
  int stop;
  sp_otf2_out_t o = {p, sp_claim(p, &stop)};
  int rc = p->produce(p->arg, &o);
  o.s->done = 1;
  o.s->rc = rc;
  sp_publish(p, o.s);
  return NULL;
}

/* The consumer: every slot in order, up to the last. Returns its code;
 * *prc the producer's. */
static int sp_consume_all(sp_otf2_pipe_t *p, int *prc) {
  int crc = 0;
  for (;;) {
    pthread_mutex_lock(&p->mu);
    while (p->count == 0) {
      p->take_waiting = 1;
      pthread_cond_wait(&p->can_take, &p->mu);
    }
    p->take_waiting = 0;
    sp_otf2_slot_t *s = &p->slots[p->head];
    pthread_mutex_unlock(&p->mu);
    crc = sp_consume(p, s, crc);
    int done = s->done;
    if (done) *prc = s->rc;
    pthread_mutex_lock(&p->mu);
    p->head = (p->head + 1) % SP_OTF2_SLOTS;
    p->count--;
    if (crc) p->failed = 1;
    if (p->put_waiting && (p->count <= SP_OTF2_SLOTS / 2 || p->failed))
      pthread_cond_signal(&p->can_put);
    pthread_mutex_unlock(&p->mu);
    if (done) return crc;
  }
}

/* Starts the producer with every signal blocked (they stay the main
 * thread's); 0 or an error number. */
static int sp_start(pthread_t *tid, sp_otf2_pipe_t *p) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int e = pthread_create(tid, NULL, sp_produce_main, p);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return e;
}

static int sp_sync_init(sp_otf2_pipe_t *p) {
  if (pthread_mutex_init(&p->mu, NULL) != 0) return 0;
  if (pthread_cond_init(&p->can_put, NULL) != 0) {
    pthread_mutex_destroy(&p->mu);
    return 0;
  }
  if (pthread_cond_init(&p->can_take, NULL) != 0) {
    pthread_cond_destroy(&p->can_put);
    pthread_mutex_destroy(&p->mu);
    return 0;
  }
  return 1;
}

int sp__otf2_pipe_run(sp_otf2_run_t *run, sp_otf2_produce_fn produce, void *arg) {
  sp_otf2_pipe_t p = {.run = run, .produce = produce, .arg = arg};
  p.slots = malloc(SP_OTF2_SLOTS * sizeof *p.slots);
  if (!p.slots) return SP_EXIT_IO;
  int prc = 0, crc = 0, inited = sp_sync_init(&p);
  pthread_t tid;
  /* (set before the producer starts: it reads it) */
  p.threaded = inited;
  if (p.threaded && sp_start(&tid, &p) != 0) p.threaded = 0;
  if (p.threaded) {
    crc = sp_consume_all(&p, &prc);
    pthread_join(tid, NULL);
  } else {
    /* No second thread: the same work on this one, each slot consumed as
     * it is filled. */
    (void)sp_produce_main(&p);
    prc = p.slots[0].rc;
    crc = p.crc;
  }
  sp_progress_done();
  if (inited) {
    pthread_cond_destroy(&p.can_take);
    pthread_cond_destroy(&p.can_put);
    pthread_mutex_destroy(&p.mu);
  }
  /* The MPI events, counted here, to their locations. */
  for (int i = 0; i < p.nw && i < run->nlocs; i++) {
    run->locs[i].nevents += p.w[i].nmpi;
    run->mpi_events += (int64_t)p.w[i].nmpi;
  }
  free(p.w);
  free(p.slots);
  return crc ? crc : prc == SP_OTF2_STOPPED ? SP_EXIT_IO : prc;
}
