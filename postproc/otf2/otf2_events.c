/* otf2_events.c - ENTER/LEAVE events of every selected call.
 *
 * Per rank, the calls of all selected regions are gathered and sorted by
 * thread, then start (ties: the longer call first, so an enclosing call is
 * entered before the calls it holds). Each thread's calls are laid on
 * stacks: a call goes on the first stack (location) whose open calls all
 * contain it; one that overlaps an open call without nesting in it
 * (start A, start B, stop A, stop B) goes to the next stack, an extra
 * location of the same thread, since OTF2 needs properly nested events.
 * A stack closes (LEAVE) its calls that end at or before the next call's
 * start, so every location's events rise in time. Durations are kept
 * exactly: each call is one ENTER and one LEAVE at its own stamps. */
#include <stdlib.h>
#include <string.h>

#include "otf2_internal.h"

typedef struct sp_call {
  int64_t start, end;
  int32_t thread;
  int32_t region; /* region definition id */
  int64_t bytes;  /* MPI call: payload (-1: unknown or not an MPI call) */
  int32_t peer;   /* MPI call: partner rank (-1: none) */
  int8_t kind;    /* SP_OTF2_MPI_* of the region */
  int8_t op;      /* its collective op */
} sp_call_t;

typedef struct sp_frame {
  int64_t end;
  int32_t region;
  int32_t peer;
  int64_t bytes;
  int8_t kind, op;
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

/* The order calls are written in: thread, start, longer first, region. */
static inline int sp_call_before(const sp_call_t *a, const sp_call_t *b) {
  if (a->thread != b->thread) return a->thread < b->thread;
  if (a->start != b->start) return a->start < b->start;
  if (a->end != b->end) return a->end > b->end;
  return a->region < b->region;
}

/* Sorts c[0..n-1] by sp_call_before with a natural merge sort: the calls
 * come lane by lane, each lane mostly in order already (the core stores a
 * region's calls as they end), so a few linear merges of the ordered runs
 * do instead of a general sort (qsort took half the export's CPU time).
 * Scratch: n calls and a bound per run. Returns 0 or SP_EXIT_IO. */
static int sp_calls_sort(sp_call_t *c, size_t n) {
  if (n < 2) return 0;
  size_t nruns = 1;
  for (size_t i = 1; i < n; i++) nruns += sp_call_before(&c[i], &c[i - 1]);
  if (nruns == 1) return 0;
  size_t *runs = malloc((nruns + 1) * sizeof *runs);
  sp_call_t *tmp = malloc(n * sizeof *tmp);
  if (!runs || !tmp) {
    free(runs);
    free(tmp);
    return SP_EXIT_IO;
  }
  nruns = 0;
  runs[nruns++] = 0;
  for (size_t i = 1; i < n; i++)
    if (sp_call_before(&c[i], &c[i - 1])) runs[nruns++] = i;
  runs[nruns] = n;
  sp_call_t *src = c, *dst = tmp;
  while (nruns > 1) {
    size_t m = 0;
    for (size_t r = 0; r < nruns; r += 2) {
      /* runs r and r + 1 (r + 1 == nruns: run r alone, copied) */
      size_t a = runs[r], mid = runs[r + 1], b = r + 2 <= nruns ? runs[r + 2] : n;
      size_t i = a, j = mid, k = a;
      while (i < mid && j < b) dst[k++] = sp_call_before(&src[j], &src[i]) ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < b) dst[k++] = src[j++];
      runs[m++] = a;
    }
    runs[m] = n;
    nruns = m;
    sp_call_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != c) memcpy(c, src, n * sizeof *c);
  free(runs);
  free(tmp);
  return 0;
}

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
    uint64_t before = run->locs[L->loc].nevents;
    OTF2_ErrorCode e = sp__otf2_mpi_leave(L->w, sp_otf2_time(run, f->end), f->kind, f->op, f->bytes,
                                          f->peer, &run->locs[L->loc].nevents);
    run->mpi_events += (int64_t)(run->locs[L->loc].nevents - before);
    if (e != OTF2_SUCCESS) return sp_otf2_fail(e, "cannot write an MPI event");
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
  L->st[L->n++] = (sp_frame_t){c->end, c->region, c->peer, c->bytes, c->kind, c->op};
  OTF2_ErrorCode e = OTF2_EvtWriter_Enter(L->w, NULL, sp_otf2_time(run, c->start), c->region);
  if (e != OTF2_SUCCESS) return sp_otf2_fail(e, "cannot write an ENTER event");
  run->locs[L->loc].nevents++;
  uint64_t before = run->locs[L->loc].nevents;
  e = sp__otf2_mpi_enter(L->w, sp_otf2_time(run, c->start), c->kind, c->bytes, c->peer, &L->request,
                         &run->locs[L->loc].nevents);
  run->mpi_events += (int64_t)(run->locs[L->loc].nevents - before);
  if (e != OTF2_SUCCESS) return sp_otf2_fail(e, "cannot write an MPI event");
  if (c->start < run->first) run->first = c->start;
  return 0;
}

/* Writes the calls c[0..n-1] of one thread (sorted by sp_call_cmp). */
static int sp_thread_write(sp_thread_out_t *t, const sp_call_t *c, size_t n) {
  sp_otf2_run_t *run = t->run;
  int rc = 0;
  t->nlayers = 0;
  for (size_t i = 0; rc == 0 && i < n; i++) {
    int l = 0;
    for (;; l++) {
      if (l == t->nlayers && (rc = sp_layer_add(t)) != 0) break;
      sp_layer_t *L = &t->layers[l];
      if ((rc = sp_layer_close(run, L, c[i].start)) != 0) break;
      if (L->n == 0 || L->st[L->n - 1].end >= c[i].end) {
        rc = sp_layer_enter(run, L, &c[i]);
        break;
      }
    }
    run->calls++;
    if (l > 0) run->moved++;
  }
  for (int l = 0; l < t->nlayers; l++) {
    sp_layer_t *L = &t->layers[l];
    if (rc == 0) rc = sp_layer_close(run, L, INT64_MAX);
    OTF2_ErrorCode e = OTF2_Archive_CloseEvtWriter(run->archive, L->w);
    if (rc == 0 && e != OTF2_SUCCESS) rc = sp_otf2_fail(e, "cannot close an event writer");
    free(L->st);
  }
  t->nlayers = 0;
  return rc;
}

/* Appends the kept calls of one (region, rank) pair to *calls; mpi: the
 * pair's bytes and peers (present or not), kind and op: its region's. */
static int sp_calls_add(sp_otf2_run_t *run, const sp_reader_intervals_t *iv, int32_t region,
                        const sp_reader_mpi_t *mpi, int kind, int op, sp_call_t **calls, size_t *n,
                        size_t *cap) {
  if (*n + (size_t)iv->n > *cap) {
    size_t c = *cap ? *cap : 1024;
    while (c < *n + (size_t)iv->n) c *= 2;
    sp_call_t *p = realloc(*calls, c * sizeof *p);
    if (!p) return SP_EXIT_IO;
    *calls = p;
    *cap = c;
  }
  for (int64_t i = 0; i < iv->n; i++) {
    if (iv->end[i] < run->win0 || iv->start[i] > run->win1) continue;
    if (iv->start[i] < run->base) {
      sp_msg(SP_QUIET, "%s: a call starts before the file's first start", run->sel->file);
      return SP_EXIT_DATA;
    }
    int has = mpi->present && i < mpi->n;
    (*calls)[(*n)++] = (sp_call_t){iv->start[i],
                                   iv->end[i],
                                   iv->thread_ids ? iv->thread_ids[i] : 0,
                                   region,
                                   has ? mpi->bytes[i] : -1,
                                   has ? mpi->peer[i] : -1,
                                   (int8_t)(has ? kind : SP_OTF2_MPI_NONE),
                                   (int8_t)op};
  }
  return 0;
}

/* Loads the selected regions of rank position j into *calls, sorted. */
static int sp_rank_calls(sp_otf2_run_t *run, int j, sp_call_t **calls, size_t *n, size_t *cap) {
  const sp_selection_t *sel = run->sel;
  *n = 0;
  for (int i = 0; i < sel->nregions; i++) {
    int g = sel->regions[i];
    sp_reader_info_t info;
    if (sp_reader_info(sel->reader, g, sel->ranks[j], &info) != 0 || !info.present ||
        !info.has_times)
      continue;
    sp_reader_intervals_t iv;
    int err = sp_load_intervals(sel->reader, g, sel->ranks[j], &iv);
    if (err) return err;
    sp_reader_mpi_t mpi = {0};
    int op = 0, kind = sp__otf2_mpi_kind(sp_reader_region_name(sel->reader, g), &op);
    if (kind != SP_OTF2_MPI_NONE &&
        (err = sp_reader_mpi_load(sel->reader, g, sel->ranks[j], &mpi)) < 0) {
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
      sp_reader_intervals_free(&iv);
      return sp_exit_for_reader(err);
    }
    int rc = sp_calls_add(run, &iv, run->region_def[g], &mpi, kind, op, calls, n, cap);
    sp_reader_mpi_free(&mpi);
    sp_reader_intervals_free(&iv);
    if (rc) return rc;
  }
  return sp_calls_sort(*calls, *n);
}

int sp__otf2_events(sp_otf2_run_t *run) {
  sp_call_t *calls = NULL;
  size_t n = 0, cap = 0;
  sp_thread_out_t t = {.run = run};
  int rc = 0;
  run->first = INT64_MAX;
  run->last = INT64_MIN;
  for (int j = 0; rc == 0 && j < run->sel->nranks; j++) {
    sp_progress("exporting rank", j, run->sel->nranks);
    rc = sp_rank_calls(run, j, &calls, &n, &cap);
    t.rank_j = j;
    for (size_t a = 0, b; rc == 0 && a < n; a = b) {
      for (b = a; b < n && calls[b].thread == calls[a].thread;) b++;
      t.thread = calls[a].thread;
      rc = sp_thread_write(&t, calls + a, b - a);
    }
  }
  sp_progress_done();
  free(t.layers);
  free(calls);
  return rc;
}
