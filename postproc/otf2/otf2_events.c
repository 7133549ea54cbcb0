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
 * A rank whose selected pairs have no MPI events and no values (the common
 * case) is written by a loop of its own (sp_rank_plain) that keeps the
 * thread's own location in locals; the same events, about a tenth less
 * CPU for the whole export (docs/performance.md, 2026-11-30). */
#include <stdlib.h>
#include <string.h>

#include "otf2_internal.h"

typedef struct sp_frame {
  int64_t end;
  int32_t region;
  int8_t kind, op;
  sp_otf2_msg_t msg;
} sp_frame_t;

/* One location of the thread being written: its writer and open calls. */
typedef struct sp_layer {
  OTF2_EvtWriter *w;
  int loc;
  uint64_t request; /* next MpiIsend request id */
  sp_frame_t *st;
  size_t n, cap;
} sp_layer_t;

typedef struct sp_thread_out {
  sp_otf2_run_t *run;
  int rank_j;
  int32_t thread;
  sp_layer_t *layers;
  int nlayers, cap;
} sp_thread_out_t;

static int sp_otf2_fail(OTF2_ErrorCode e, const char *what) {
  sp_msg(SP_QUIET, "OTF2: %s: %s", what, OTF2_Error_GetDescription(e));
  return SP_EXIT_IO;
}

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
  OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(run->archive, (OTF2_LocationRef)id);
  if (!w) return sp_otf2_fail(OTF2_ERROR_INVALID, "cannot open an event writer");
  run->locs[run->nlocs++] = (sp_otf2_loc_t){t->rank_j, t->thread, t->nlayers, 0};
  t->layers[t->nlayers++] = (sp_layer_t){w, id, 0, NULL, 0, 0};
  return 0;
}

/* LEAVE the open calls of L that end at or before t (all: t = INT64_MAX). */
static int sp_layer_close(sp_otf2_run_t *run, sp_layer_t *L, int64_t t) {
  while (L->n && L->st[L->n - 1].end <= t) {
    const sp_frame_t *f = &L->st[--L->n];
    OTF2_ErrorCode e;
    if (f->kind != SP_OTF2_MPI_NONE) { /* the rest have no MPI event: no call */
      uint64_t before = run->locs[L->loc].nevents;
      e = sp__otf2_mpi_leave(L->w, sp_otf2_time(run, f->end), f->kind, f->op, &f->msg,
                             &run->locs[L->loc].nevents);
      run->mpi_events += (int64_t)(run->locs[L->loc].nevents - before);
      if (e != OTF2_SUCCESS) return sp_otf2_fail(e, "cannot write an MPI event");
    }
    e = OTF2_EvtWriter_Leave(L->w, NULL, sp_otf2_time(run, f->end), f->region);
    if (e != OTF2_SUCCESS) return sp_otf2_fail(e, "cannot write a LEAVE event");
    run->locs[L->loc].nevents++;
    if (f->end > run->last) run->last = f->end;
  }
  return 0;
}

static int sp_layer_enter(sp_otf2_run_t *run, sp_layer_t *L, const sp_call_t *c) {
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
  int rc = 0;
  OTF2_AttributeList *al = c->vals ? sp__otf2_values_list(run, c->vals, c->index, &rc) : NULL;
  if (rc) return rc;
  OTF2_ErrorCode e = OTF2_EvtWriter_Enter(L->w, al, sp_otf2_time(run, c->start), c->region);
  if (e != OTF2_SUCCESS) return sp_otf2_fail(e, "cannot write an ENTER event");
  run->locs[L->loc].nevents++;
  if (c->kind == SP_OTF2_MPI_NONE) {
    if (c->start < run->first) run->first = c->start;
    return 0;
  }
  uint64_t before = run->locs[L->loc].nevents;
  e = sp__otf2_mpi_enter(L->w, sp_otf2_time(run, c->start), c->kind, &c->msg, &L->request,
                         &run->locs[L->loc].nevents);
  run->mpi_events += (int64_t)(run->locs[L->loc].nevents - before);
  if (e != OTF2_SUCCESS) return sp_otf2_fail(e, "cannot write an MPI event");
  if (c->start < run->first) run->first = c->start;
  return 0;
}

/* Writes call c of the thread being written (calls come in the order of
 * otf2_merge.c): on the first stack (location) whose open calls all hold it. */
static int sp_thread_put(sp_thread_out_t *t, const sp_call_t *c) {
  sp_otf2_run_t *run = t->run;
  int rc = 0, l = 0;
  for (;; l++) {
    if (l == t->nlayers && (rc = sp_layer_add(t)) != 0) break;
    sp_layer_t *L = &t->layers[l];
    /* (the test first: most calls close nothing) */
    if (L->n && L->st[L->n - 1].end <= c->start && (rc = sp_layer_close(run, L, c->start)) != 0)
      break;
    if (L->n == 0 || L->st[L->n - 1].end >= c->end) {
      rc = sp_layer_enter(run, L, c);
      break;
    }
  }
  run->calls++;
  if (l > 0) run->moved++;
  return rc;
}

/* Closes the open calls and the locations of the thread being written. */
static int sp_thread_finish(sp_thread_out_t *t, int rc) {
  sp_otf2_run_t *run = t->run;
  for (int l = 0; l < t->nlayers; l++) {
    sp_layer_t *L = &t->layers[l];
    if (rc == 0) rc = sp_layer_close(run, L, INT64_MAX);
    if (rc == 0 || *run->otf2_errors == 0) { /* else abandoned with it (otf2_internal.h) */
      OTF2_ErrorCode e = OTF2_Archive_CloseEvtWriter(run->archive, L->w);
      if (rc == 0 && e != OTF2_SUCCESS) rc = sp_otf2_fail(e, "cannot close an event writer");
    }
    free(L->st);
  }
  t->nlayers = 0;
  return rc;
}

/* The most regions of a rank sp_rank_plain takes (their definition ids in
 * a local array). */
#define SP_PLAIN_SLOTS 64

/* 1 when no selected pair of the rank has MPI events or values: every
 * call is then one ENTER and one LEAVE (sp_rank_plain). */
static int sp_rank_is_plain(const sp_otf2_merge_t *m) {
  if (m->npairs > SP_PLAIN_SLOTS) return 0;
  for (int q = 0; q < m->npairs; q++)
    if (m->pairs[q].mpi.present || m->pairs[q].vals.present) return 0;
  return 1;
}

/* The thread's own location (layer 0) as sp_rank_plain keeps it in locals;
 * put back into the layer before anything else reads it. */
typedef struct sp_plain_l0 {
  OTF2_EvtWriter *w;
  sp_frame_t *st;
  size_t n, cap;
  uint64_t nev; /* events not yet counted in run->locs */
} sp_plain_l0_t;

static inline void sp_plain_save(sp_otf2_run_t *run, sp_thread_out_t *t, sp_plain_l0_t *z) {
  sp_layer_t *L = &t->layers[0];
  L->st = z->st, L->n = z->n, L->cap = z->cap;
  run->locs[L->loc].nevents += z->nev;
  z->nev = 0;
}

static inline void sp_plain_load(const sp_thread_out_t *t, sp_plain_l0_t *z) {
  const sp_layer_t *L = &t->layers[0];
  *z = (sp_plain_l0_t){L->w, L->st, L->n, L->cap, 0};
}

/* The calls of a plain rank (sp_rank_is_plain), the common case: a call
 * that nests on the thread's own location is written here, its stamps
 * straight from the batch, that location's open calls and the counts in
 * locals; one that overlaps without nesting (extra locations) goes through
 * sp_thread_put as a call. The events are those of the general loop
 * (sp_rank_write), one by one. */
static int sp_rank_plain(sp_otf2_run_t *run, sp_thread_out_t *t, sp_otf2_merge_t *m) {
  const int64_t base = run->base, win0 = run->win0, win1 = run->win1;
  int32_t reg[SP_PLAIN_SLOTS]; /* slot -> region definition id */
  for (int q = 0; q < m->npairs; q++) reg[q] = m->pairs[q].region;
  int64_t first = run->first, last = run->last, calls = 0;
  sp_plain_l0_t z = {0};
  int rc = 0, got = 0, open = 0; /* open: layer 0 of thread t->thread is in z */
  while (rc == 0 && (got = sp__otf2_merge_refill(m)) > 0) {
    const sp_reader_call_t *x = m->batch, *xend = m->batch + m->n;
    for (; rc == 0 && x < xend; x++) {
      const int64_t s = x->start, e = x->end;
      if (e < win0 || s > win1) continue;
      if (s < base) {
        rc = -sp__otf2_merge_early(m);
        break;
      }
      if (!open || x->thread != t->thread) {
        if (open) {
          sp_plain_save(run, t, &z);
          open = 0;
          run->first = first, run->last = last;
          rc = sp_thread_finish(t, 0);
          first = run->first, last = run->last;
        }
        t->thread = x->thread;
        if (rc == 0) rc = sp_layer_add(t);
        if (rc) break;
        sp_plain_load(t, &z);
        open = 1;
      }
      const int32_t region = reg[x->slot];
      while (z.n && z.st[z.n - 1].end <= s) { /* LEAVE what ended (sp_layer_close) */
        const sp_frame_t *f = &z.st[--z.n];
        OTF2_ErrorCode oe =
            OTF2_EvtWriter_Leave(z.w, NULL, (uint64_t)f->end - (uint64_t)base, f->region);
        if (oe != OTF2_SUCCESS) {
          rc = sp_otf2_fail(oe, "cannot write a LEAVE event");
          break;
        }
        z.nev++;
        if (f->end > last) last = f->end;
      }
      if (rc) break;
      if (z.n == 0 || z.st[z.n - 1].end >= e) { /* nests here (sp_layer_enter) */
        if (z.n == z.cap) {
          size_t cap = z.cap ? 2 * z.cap : 16;
          sp_frame_t *st = realloc(z.st, cap * sizeof *st);
          if (!st) {
            rc = SP_EXIT_IO;
            break;
          }
          z.st = st;
          z.cap = cap;
        }
        sp_frame_t *f = &z.st[z.n++];
        f->end = e;
        f->region = region;
        f->kind = SP_OTF2_MPI_NONE;
        OTF2_ErrorCode oe = OTF2_EvtWriter_Enter(z.w, NULL, (uint64_t)s - (uint64_t)base, region);
        if (oe != OTF2_SUCCESS) {
          rc = sp_otf2_fail(oe, "cannot write an ENTER event");
          break;
        }
        z.nev++;
        if (s < first) first = s;
        calls++;
        continue;
      }
      /* Overlaps an open call without nesting in it: the general way. */
      sp_call_t c = {s,
                     e,
                     x->thread,
                     region,
                     {-1, -1, -1, SP_OTF2_COMM_WORLD},
                     SP_OTF2_MPI_NONE,
                     m->pairs[x->slot].op,
                     NULL,
                     x->index};
      sp_plain_save(run, t, &z);
      run->first = first, run->last = last;
      rc = sp_thread_put(t, &c);
      first = run->first, last = run->last;
      sp_plain_load(t, &z);
    }
  }
  if (open) sp_plain_save(run, t, &z);
  run->first = first, run->last = last;
  run->calls += calls;
  return rc == 0 && got < 0 ? -got : rc;
}

/* Rank position j, thread after thread. */
static int sp_rank_write(sp_otf2_run_t *run, sp_thread_out_t *t, int j) {
  sp_otf2_merge_t *m;
  int rc = sp__otf2_merge_open(run, j, &m), got = 0;
  sp_call_t c = {0}; /* (GCC cannot see that merge_call sets it when it gives 1) */
  t->rank_j = j;
  t->nlayers = 0;
  if (rc == 0 && sp_rank_is_plain(m)) {
    rc = sp_thread_finish(t, sp_rank_plain(run, t, m));
    sp__otf2_merge_close(m);
    return rc;
  }
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
  sp__otf2_merge_close(m);
  return rc;
}

int sp__otf2_events(sp_otf2_run_t *run) {
  sp_thread_out_t t = {.run = run};
  int rc = 0;
  run->first = INT64_MAX;
  run->last = INT64_MIN;
  for (int j = 0; rc == 0 && j < run->sel->nranks; j++) {
    sp_progress("exporting rank", j, run->sel->nranks);
    rc = sp_rank_write(run, &t, j);
  }
  sp_progress_done();
  free(t.layers);
  return rc;
}
