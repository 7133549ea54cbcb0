/* otf2_events.c - ENTER/LEAVE events of every selected call.
 *
 * Per rank, the calls of all selected regions come from otf2_merge.c by
 * thread, then start (ties: the longer call first, so an enclosing call is
 * entered before the calls it holds). Each thread's calls are laid on
 * stacks: a call goes on the first stack (location) whose open calls all
 * contain it; one that overlaps an open call without nesting in it
 * (start A, start B, stop A, stop B) goes to the next stack, an extra
 * location of the same thread, since OTF2 needs properly nested events.
 * A stack closes (LEAVE) its calls that end at or before the next call's
 * start, so every location's events rise in time. Durations are kept
 * exactly: each call is one ENTER and one LEAVE at its own stamps.
 *
 * This runs on otf2_pipe.c's producer thread: the events go into its
 * queue, and the calling thread makes the OTF2 calls. */
#include <stdlib.h>
#include <string.h>

#include "otf2_internal.h"

typedef struct sp_frame {
  int64_t end;
  int32_t region;
  int8_t kind, op;
  sp_otf2_msg_t msg;
} sp_frame_t;

/* One location of the thread being written: its open calls. */
typedef struct sp_layer {
  int loc;
  uint64_t nevents; /* ENTER and LEAVE events (added to run->locs[loc] when it closes) */
  sp_frame_t *st;
  size_t n, cap;
} sp_layer_t;

/* The producer's state: the thread being written, its locations, counts. */
typedef struct sp_thread_out {
  sp_otf2_run_t *run;
  sp_otf2_out_t *out;
  int rank_j;
  int32_t thread;
  sp_layer_t *layers;
  int nlayers, cap;
  int64_t first, last;
  int64_t calls, moved;
} sp_thread_out_t;

/* A new location of this thread: defined later by otf2_defs.c. */
static int sp_layer_add(sp_thread_out_t *t) {
  sp_otf2_run_t *run = t->run;
  if (t->nlayers == t->cap) {
    int cap = t->cap ? 2 * t->cap : 4;
    sp_layer_t *l = realloc(t->layers, (size_t)cap * sizeof *l);
    if (!l) return SP_EXIT_IO;
    t->layers = l;
    t->cap = cap;
  }
  if (run->nlocs == run->cap) {
    int cap = run->cap ? 2 * run->cap : 64;
    sp_otf2_loc_t *l = realloc(run->locs, (size_t)cap * sizeof *l);
    if (!l) return SP_EXIT_IO;
    run->locs = l;
    run->cap = cap;
  }
  int id = run->nlocs;
  if (id > SP_OTF2_LOC_MAX) {
    sp_msg(SP_QUIET, "%s: more than %d OTF2 locations", run->sel->file, SP_OTF2_LOC_MAX);
    return SP_EXIT_DATA;
  }
  int rc = sp_otf2_out(t->out, 0, 0, id, SP_OTF2_EV_OPEN, NULL);
  if (rc) return rc;
  run->locs[run->nlocs++] = (sp_otf2_loc_t){t->rank_j, t->thread, t->nlayers, 0};
  t->layers[t->nlayers++] = (sp_layer_t){id, 0, NULL, 0, 0};
  return 0;
}

/* LEAVE the open calls of L that end at or before t (all: t = INT64_MAX). */
static int sp_layer_close(sp_thread_out_t *o, sp_layer_t *L, int64_t t) {
  const sp_otf2_run_t *run = o->run;
  while (L->n && L->st[L->n - 1].end <= t) {
    const sp_frame_t *f = &L->st[--L->n];
    int rc;
    if (f->kind == SP_OTF2_MPI_NONE) {
      rc =
          sp_otf2_out(o->out, sp_otf2_time(run, f->end), f->region, L->loc, SP_OTF2_EV_LEAVE, NULL);
    } else {
      sp_otf2_extra_t x = {f->msg, f->kind, f->op, NULL, 0};
      rc =
          sp_otf2_out(o->out, sp_otf2_time(run, f->end), f->region, L->loc, SP_OTF2_EV_LEAVE_X, &x);
    }
    if (rc) return rc;
    L->nevents++;
    if (f->end > o->last) o->last = f->end;
  }
  return 0;
}

static int sp_layer_enter(sp_thread_out_t *o, sp_layer_t *L, const sp_call_t *c) {
  if (L->n == L->cap) {
    size_t cap = L->cap ? 2 * L->cap : 16;
    sp_frame_t *st = realloc(L->st, cap * sizeof *st);
    if (!st) return SP_EXIT_IO;
    L->st = st;
    L->cap = cap;
  }
  /* Field by field, the message only for an MPI call (it is read only
   * then): copied whole, its 16 bytes were read back from the call's
   * smaller stores, a stalled load on every call. */
  sp_frame_t *f = &L->st[L->n++];
  f->end = c->end;
  f->region = c->region;
  f->kind = (int8_t)c->kind;
  f->op = (int8_t)c->op;
  if (c->kind != SP_OTF2_MPI_NONE) f->msg = c->msg;
  int rc;
  uint64_t t = sp_otf2_time(o->run, c->start);
  if (c->kind == SP_OTF2_MPI_NONE && !c->vals) {
    rc = sp_otf2_out(o->out, t, c->region, L->loc, SP_OTF2_EV_ENTER, NULL);
  } else {
    sp_otf2_extra_t x = {c->msg, c->kind, c->op, c->vals, c->index};
    rc = sp_otf2_out(o->out, t, c->region, L->loc, SP_OTF2_EV_ENTER_X, &x);
  }
  if (rc) return rc;
  L->nevents++;
  if (c->start < o->first) o->first = c->start;
  return 0;
}

/* Writes call c of the thread being written (calls come in the order of
 * otf2_merge.c): on the first stack (location) whose open calls all hold it. */
static int sp_thread_put(sp_thread_out_t *t, const sp_call_t *c) {
  int rc = 0, l = 0;
  for (;; l++) {
    if (l == t->nlayers && (rc = sp_layer_add(t)) != 0) break;
    sp_layer_t *L = &t->layers[l];
    /* (the test first: most calls close nothing) */
    if (L->n && L->st[L->n - 1].end <= c->start && (rc = sp_layer_close(t, L, c->start)) != 0)
      break;
    if (L->n == 0 || L->st[L->n - 1].end >= c->end) {
      rc = sp_layer_enter(t, L, c);
      break;
    }
  }
  t->calls++;
  if (l > 0) t->moved++;
  return rc;
}

/* Closes the open calls and the locations of the thread being written. */
static int sp_thread_finish(sp_thread_out_t *t, int rc) {
  sp_otf2_run_t *run = t->run;
  for (int l = 0; l < t->nlayers; l++) {
    sp_layer_t *L = &t->layers[l];
    if (rc == 0) rc = sp_layer_close(t, L, INT64_MAX);
    run->locs[L->loc].nevents += L->nevents;
    /* (closed even after a failure, as OTF2 wants; not once the consumer
     * stopped: it takes no more events) */
    int e = rc == SP_OTF2_STOPPED ? 0 : sp_otf2_out(t->out, 0, 0, L->loc, SP_OTF2_EV_CLOSE, NULL);
    if (rc == 0) rc = e;
    free(L->st);
  }
  t->nlayers = 0;
  return rc;
}

/* Rank position j, thread after thread; its last slot carries its merge. */
static int sp_rank_write(sp_otf2_run_t *run, sp_thread_out_t *t, int j) {
  sp_otf2_merge_t *m;
  int rc = sp__otf2_merge_open(run, j, &m), got = 0;
  sp_call_t c = {0}; /* (GCC cannot see that merge_call sets it when it gives 1) */
  t->rank_j = j;
  t->nlayers = 0;
  while (rc == 0 && (got = sp__otf2_merge_refill(m)) > 0) {
    const sp_reader_call_t *x = m->batch, *xend = m->batch + m->n;
    for (; rc == 0 && x < xend; x++) {
      if ((got = sp__otf2_merge_call(m, x, &c)) <= 0) {
        rc = -got;
        continue;
      }
      if (t->nlayers > 0 && c.thread != t->thread) rc = sp_thread_finish(t, 0);
      t->thread = c.thread;
      if (rc == 0) rc = sp_thread_put(t, &c);
    }
  }
  if (rc == 0 && got < 0) rc = -got;
  rc = sp_thread_finish(t, rc);
  int e = sp__otf2_out_next(t->out, m); /* m is the consumer's now */
  return rc ? rc : e;
}

/* The producer (otf2_pipe.c): every selected rank. */
static int sp_produce(void *arg, sp_otf2_out_t *o) {
  sp_thread_out_t *t = arg;
  int rc = 0;
  t->out = o;
  for (int j = 0; rc == 0 && j < t->run->sel->nranks; j++) {
    sp_progress("exporting rank", j, t->run->sel->nranks);
    rc = sp_rank_write(t->run, t, j);
  }
  return rc;
}

int sp__otf2_events(sp_otf2_run_t *run) {
  sp_thread_out_t t = {.run = run, .first = INT64_MAX, .last = INT64_MIN};
  int rc = sp__otf2_pipe_run(run, sp_produce, &t);
  free(t.layers);
  run->first = t.first;
  run->last = t.last;
  run->calls = t.calls;
  run->moved = t.moved;
  return rc;
}
