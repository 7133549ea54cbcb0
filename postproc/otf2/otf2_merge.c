/* otf2_merge.c - one rank's selected calls, streamed in the order they are
 * written: by thread, then start (ties: the longer call first, so an
 * enclosing call is entered before the calls it holds, then region).
 *
 * A (region, rank) pair's arrays are read in chunks (sp_reader_read_range)
 * twice: a first pass finds where the pair's calls fall out of that order,
 * cutting it into sorted runs (a file the core wrote is one run per pair:
 * it stores a region's calls thread by thread, each thread's as they end);
 * the second pass merges every run of the rank with a heap, each run
 * holding one chunk. Memory is then a chunk per run, not the rank's calls
 * (the whole rank took 80 bytes a call: 796 MB for 1e7 calls). A pair cut
 * into more than SP_MERGE_MAXRUNS runs (calls of one region recursing, or
 * threads interleaved call by call), an MPI call region (its bytes and
 * peers come whole from sp_reader_mpi_load) and the reference tool's
 * delta-encoded columns are loaded whole and sorted in memory instead, as
 * one run: memory for that pair only. */
#include <stdlib.h>
#include <string.h>

#include "otf2_internal.h"

/* Calls of one scan chunk, and the most a run's chunk holds. */
#define SP_MERGE_SCAN 65536
/* Calls held by all run chunks of a rank together (40 bytes each). */
#define SP_MERGE_BUDGET (1 << 19)
#define SP_MERGE_MINCHUNK 256
#define SP_MERGE_MAXRUNS 64

typedef struct sp_pair {
  int g;          /* reader region index */
  int32_t region; /* region definition id */
  int kind, op;   /* SP_OTF2_MPI_* of the region and its collective op */
  sp_call_t *all; /* loaded whole and sorted (NULL: read in chunks) */
} sp_pair_t;

typedef struct sp_run {
  int pair;
  int64_t pos, stop; /* next call of the pair to read, and the run's end */
  sp_call_t *buf;    /* buffered calls [i, n) */
  size_t i, n;
} sp_run_t;

struct sp_otf2_merge {
  sp_otf2_run_t *run;
  int j; /* rank position */
  sp_pair_t *pairs;
  int npairs;
  sp_run_t *runs;
  int nruns, cap;
  int *heap;
  int nheap;
  size_t chunk;   /* calls per run chunk */
  int64_t *s, *e; /* read scratch, SP_MERGE_SCAN each */
  int32_t *t;
};

/* The order calls are written in: thread, start, longer first, region. */
static inline int sp_call_before(const sp_call_t *a, const sp_call_t *b) {
  if (a->thread != b->thread) return a->thread < b->thread;
  if (a->start != b->start) return a->start < b->start;
  if (a->end != b->end) return a->end > b->end;
  return a->region < b->region;
}

/* Sorts c[0..n-1] by sp_call_before with a natural merge sort: each pair
 * is mostly in order already, so a few linear merges of the ordered runs
 * do instead of a general sort. Returns 0 or SP_EXIT_IO. */
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

static int sp_reader_exit(const sp_selection_t *sel, int64_t err) {
  sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
  return sp_exit_for_reader((int)err);
}

static int sp_run_add(sp_otf2_merge_t *m, int pair, int64_t pos, int64_t stop) {
  if (m->nruns == m->cap) {
    int cap = m->cap ? 2 * m->cap : 64;
    sp_run_t *r = realloc(m->runs, (size_t)cap * sizeof *r);
    if (!r) return SP_EXIT_IO;
    m->runs = r;
    m->cap = cap;
  }
  m->runs[m->nruns++] = (sp_run_t){pair, pos, stop, NULL, 0, 0};
  return 0;
}

/* Loads pair p whole, sorted, as one run (every call: the window is
 * applied as calls are taken). */
static int sp_pair_load(sp_otf2_merge_t *m, sp_pair_t *p) {
  const sp_selection_t *sel = m->run->sel;
  int k = sel->ranks[m->j];
  sp_reader_intervals_t iv;
  int err = sp_load_intervals(sel->reader, p->g, k, &iv);
  if (err) return err;
  sp_reader_mpi_t mpi = {0};
  int64_t e = p->kind != SP_OTF2_MPI_NONE ? sp_reader_mpi_load(sel->reader, p->g, k, &mpi) : 0;
  p->all = e < 0 ? NULL : malloc((size_t)(iv.n ? iv.n : 1) * sizeof *p->all);
  int rc = e < 0 ? sp_reader_exit(sel, e) : p->all ? 0 : SP_EXIT_IO;
  for (int64_t i = 0; rc == 0 && i < iv.n; i++) {
    int has = mpi.present && i < mpi.n;
    p->all[i] = (sp_call_t){iv.start[i],
                            iv.end[i],
                            iv.thread_ids ? iv.thread_ids[i] : 0,
                            p->region,
                            has ? mpi.bytes[i] : -1,
                            has ? mpi.peer[i] : -1,
                            (int8_t)(has ? p->kind : SP_OTF2_MPI_NONE),
                            (int8_t)p->op};
  }
  int64_t n = iv.n;
  sp_reader_mpi_free(&mpi);
  sp_reader_intervals_free(&iv);
  if (rc == 0) rc = sp_calls_sort(p->all, (size_t)n);
  if (rc == 0) rc = sp_run_add(m, (int)(p - m->pairs), 0, n);
  if (rc == 0) {
    sp_run_t *r = &m->runs[m->nruns - 1];
    r->buf = p->all;
    r->n = (size_t)n;
    r->pos = n;
  }
  return rc;
}

/* Reads calls [pos, pos + cnt) of pair p into m's scratch; the count read
 * or a negative reader error. */
static int64_t sp_pair_read(sp_otf2_merge_t *m, const sp_pair_t *p, int64_t pos, int64_t cnt) {
  const sp_selection_t *sel = m->run->sel;
  return sp_reader_read_range(sel->reader, p->g, sel->ranks[m->j], pos, cnt, m->s, m->e, m->t);
}

/* The first pass over pair p (n calls): its sorted runs, or the pair
 * loaded whole when it has too many or cannot be read in slices. */
static int sp_pair_scan(sp_otf2_merge_t *m, sp_pair_t *p, int64_t n) {
  if (p->kind != SP_OTF2_MPI_NONE) return sp_pair_load(m, p);
  int first = m->nruns, pi = (int)(p - m->pairs);
  int64_t from = 0, ps = 0, pe = 0;
  int32_t pt = 0;
  for (int64_t pos = 0; pos < n;) {
    int64_t got = sp_pair_read(m, p, pos, SP_MERGE_SCAN);
    if (got == SP_READER_EINVAL && pos == 0) return sp_pair_load(m, p);
    if (got < 0) return sp_reader_exit(m->run->sel, got);
    if (got == 0) break; /* the file shrank: the second pass says so */
    for (int64_t i = 0; i < got; i++) {
      int32_t t = m->t[i];
      int64_t s = m->s[i], e = m->e[i];
      int desc = pos + i > 0 && (t != pt ? t < pt : s != ps ? s < ps : e > pe);
      if (desc) {
        if (m->nruns - first + 1 >= SP_MERGE_MAXRUNS) {
          m->nruns = first;
          return sp_pair_load(m, p);
        }
        if (sp_run_add(m, pi, from, pos + i)) return SP_EXIT_IO;
        from = pos + i;
      }
      pt = t, ps = s, pe = e;
    }
    pos += got;
  }
  return sp_run_add(m, pi, from, n);
}

/* Refills run r's chunk from its pair; 0 or an SP_EXIT_* code. */
static int sp_run_fill(sp_otf2_merge_t *m, sp_run_t *r) {
  const sp_pair_t *p = &m->pairs[r->pair];
  r->i = r->n = 0;
  if (p->all || r->pos >= r->stop) return 0;
  int64_t want = r->stop - r->pos < (int64_t)m->chunk ? r->stop - r->pos : (int64_t)m->chunk;
  int64_t got = sp_pair_read(m, p, r->pos, want);
  if (got < 0) return sp_reader_exit(m->run->sel, got);
  if (got < want) {
    sp_msg(SP_QUIET, "%s: region '%s': the file changed while it was read", m->run->sel->file,
           sp_reader_region_name(m->run->sel->reader, p->g));
    return SP_EXIT_DATA;
  }
  for (int64_t i = 0; i < got; i++)
    r->buf[i] = (sp_call_t){m->s[i], m->e[i], m->t[i], p->region, -1, -1, SP_OTF2_MPI_NONE, 0};
  r->n = (size_t)got;
  r->pos += got;
  return 0;
}

static inline int sp_run_less(const sp_otf2_merge_t *m, int a, int b) {
  const sp_run_t *x = &m->runs[a], *y = &m->runs[b];
  return sp_call_before(&x->buf[x->i], &y->buf[y->i]);
}

static void sp_heap_down(sp_otf2_merge_t *m, int i) {
  int *h = m->heap, n = m->nheap;
  for (;;) {
    int l = 2 * i + 1, best = i;
    if (l < n && sp_run_less(m, h[l], h[best])) best = l;
    if (l + 1 < n && sp_run_less(m, h[l + 1], h[best])) best = l + 1;
    if (best == i) return;
    int t = h[i];
    h[i] = h[best];
    h[best] = t;
    i = best;
  }
}

/* Chunks for the runs read in slices, and the heap of every run. */
static int sp_merge_start(sp_otf2_merge_t *m) {
  int sliced = 0;
  for (int i = 0; i < m->nruns; i++) sliced += m->pairs[m->runs[i].pair].all == NULL;
  size_t chunk = sliced ? SP_MERGE_BUDGET / (size_t)sliced : SP_MERGE_SCAN;
  m->chunk = chunk < SP_MERGE_MINCHUNK ? SP_MERGE_MINCHUNK
             : chunk > SP_MERGE_SCAN   ? SP_MERGE_SCAN
                                       : chunk;
  m->heap = malloc((m->nruns > 0 ? (size_t)m->nruns : 1) * sizeof *m->heap);
  if (!m->heap) return SP_EXIT_IO;
  for (int i = 0; i < m->nruns; i++) {
    sp_run_t *r = &m->runs[i];
    if (!m->pairs[r->pair].all) {
      r->buf = malloc(m->chunk * sizeof *r->buf);
      if (!r->buf) return SP_EXIT_IO;
      int rc = sp_run_fill(m, r);
      if (rc) return rc;
    }
    if (r->i < r->n) m->heap[m->nheap++] = i;
  }
  for (int i = m->nheap / 2 - 1; i >= 0; i--) sp_heap_down(m, i);
  return 0;
}

int sp__otf2_merge_open(sp_otf2_run_t *run, int j, sp_otf2_merge_t **out) {
  const sp_selection_t *sel = run->sel;
  sp_otf2_merge_t *m = calloc(1, sizeof *m);
  *out = m;
  if (!m) return SP_EXIT_IO;
  m->run = run;
  m->j = j;
  m->pairs = calloc((size_t)(sel->nregions ? sel->nregions : 1), sizeof *m->pairs);
  m->s = malloc(SP_MERGE_SCAN * sizeof *m->s);
  m->e = malloc(SP_MERGE_SCAN * sizeof *m->e);
  m->t = malloc(SP_MERGE_SCAN * sizeof *m->t);
  if (!m->pairs || !m->s || !m->e || !m->t) return SP_EXIT_IO;
  for (int i = 0; i < sel->nregions; i++) {
    int g = sel->regions[i];
    sp_reader_info_t info;
    if (sp_reader_info(sel->reader, g, sel->ranks[j], &info) != 0 || !info.present ||
        !info.has_times || info.num_intervals == 0)
      continue;
    sp_pair_t *p = &m->pairs[m->npairs++];
    p->g = g;
    p->region = run->region_def[g];
    p->kind = sp__otf2_mpi_kind(sp_reader_region_name(sel->reader, g), &p->op);
    int rc = sp_pair_scan(m, p, info.num_intervals);
    if (rc) return rc;
  }
  return sp_merge_start(m);
}

int sp__otf2_merge_next(sp_otf2_merge_t *m, sp_call_t *c) {
  const sp_otf2_run_t *run = m->run;
  while (m->nheap > 0) {
    sp_run_t *r = &m->runs[m->heap[0]];
    *c = r->buf[r->i++];
    int rc = r->i < r->n ? 0 : sp_run_fill(m, r);
    if (rc) return -rc;
    if (r->i == r->n) m->heap[0] = m->heap[--m->nheap];
    sp_heap_down(m, 0);
    if (c->end < run->win0 || c->start > run->win1) continue;
    if (c->start < run->base) {
      sp_msg(SP_QUIET, "%s: a call starts before the file's first start", run->sel->file);
      return -SP_EXIT_DATA;
    }
    return 1;
  }
  return 0;
}

void sp__otf2_merge_close(sp_otf2_merge_t *m) {
  if (!m) return;
  for (int i = 0; i < m->nruns; i++)
    if (!m->pairs[m->runs[i].pair].all) free(m->runs[i].buf);
  for (int i = 0; i < m->npairs; i++) free(m->pairs[i].all);
  free(m->pairs);
  free(m->runs);
  free(m->heap);
  free(m->s);
  free(m->e);
  free(m->t);
  free(m);
}
