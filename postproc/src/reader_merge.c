/* reader_merge.c - the calls of some regions of one rank, streamed in time
 * order: by thread, then start (ties: the longer call first, so an
 * enclosing call comes before the calls it holds, then the caller's key of
 * the region, then the call's position in its pair). The OTF2 export
 * writes its events in this order and the call tree sweeps large ranks in
 * it (reader_tree.c), so neither holds a rank's calls.
 *
 * A (region, rank) pair's arrays are read in chunks (sp_reader_read_range)
 * twice: a first pass finds where the pair's calls fall out of that order,
 * cutting it into sorted runs (a file the core wrote is one run per pair:
 * it stores a region's calls thread by thread, each thread's as they end);
 * the second pass merges every run of the rank with a heap, each run
 * holding one chunk. Memory is then a chunk per run, not the rank's calls.
 * A pair cut into more than SP_MERGE_MAXRUNS runs (calls of one region
 * recursing, or threads interleaved call by call) and the reference tool's
 * delta-encoded columns are loaded whole and sorted in memory instead, as
 * one run: memory for that pair only.
 *
 * Unscanned (SP_READER_MERGE_UNSCANNED, the OTF2 export): no first pass;
 * each pair is one run, its first scan chunk checked at the open (out of
 * order there: scanned) and every chunk checked as the merge reads it; a
 * chunk out of order fails the merge with SP_READER_EORDER (that pair's
 * later calls may belong before calls already given: the export drops its
 * archive and starts again scanned). A file the
 * core wrote is out of order only where a region recursed on a thread. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

int64_t sp_reader_stream_calls(void) {
  const char *v = getenv("SCOPE_PROFILER_READER_STREAM");
  if (!v || !*v) return SP_READER_STREAM_DEFAULT;
  char *end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  return errno || *end || n < 0 ? SP_READER_STREAM_DEFAULT : (int64_t)n;
}

/* Calls of one scan chunk, and the most a run's chunk holds: small enough
 * that the chunks the merge and the OTF2 writer work in stay in the CPU's
 * cache (with 65,536 a run's chunk alone was 2.6 MB). */
#define SP_MERGE_SCAN 16384
#define SP_MERGE_RUNCHUNK 8192
/* Calls held by all run chunks of a rank together (20 bytes each). */
#define SP_MERGE_BUDGET (1 << 19)
#define SP_MERGE_MINCHUNK 256
#define SP_MERGE_MAXRUNS 64

typedef struct sp_mpair {
  int g;                 /* reader region index */
  int32_t key;           /* the caller's tie-break key */
  sp_reader_call_t *all; /* loaded whole and sorted (NULL: read in chunks) */
} sp_mpair_t;

/* A run's chunk is read straight into its arrays (s, e, t), not copied
 * into calls: each call is made once, as its run's next call in the heap. */
typedef struct sp_mrun {
  int pair;
  int64_t pos, stop; /* next call of the pair to read, and the run's end */
  int64_t *s, *e;    /* buffered calls [i, n), read in slices */
  int32_t *t;
  int64_t first;         /* the pair position of s[0] */
  sp_reader_call_t *buf; /* or: the pair loaded whole (calls [i, n)) */
  size_t i, n;
  int64_t ls, le; /* unscanned: the last call read (first > 0: one was) */
  int32_t lt;
} sp_mrun_t;

/* A heap entry: a run and its next call (kept here, so that a comparison
 * reads the two calls and not the run table first: the heap's sift was the
 * export's costliest function). */
typedef struct sp_mhead {
  sp_reader_call_t c;
  int run;
} sp_mhead_t;

struct sp_reader_merge {
  sp_reader_t *r;
  int k;         /* rank index */
  int unscanned; /* each pair one run, checked as it is read */
  sp_mpair_t *pairs;
  int npairs;
  sp_mrun_t *runs;
  int nruns, cap;
  sp_mhead_t *heap; /* the runs with calls left, by their next call */
  int nheap;
  size_t chunk;   /* calls per run chunk */
  int64_t *s, *e; /* read scratch, SP_MERGE_SCAN each */
  int32_t *t;
  int any; /* threads ignored: by start (sp_reader_merge_open_by_start) */
};

/* The merge's order: thread (unless any: sp_reader_merge_open_by_start),
 * start, longer first, key, pair, position. */
static inline int sp_call_before(const sp_reader_call_t *a, const sp_reader_call_t *b, int any) {
  if (!any && a->thread != b->thread) return a->thread < b->thread;
  if (a->start != b->start) return a->start < b->start;
  if (a->end != b->end) return a->end > b->end;
  if (a->key != b->key) return a->key < b->key;
  if (a->slot != b->slot) return a->slot < b->slot;
  return a->index < b->index;
}

/* Sorts c[0..n-1] with a natural merge sort: each pair is mostly in order
 * already, so a few linear merges of the ordered runs do instead of a
 * general sort. Returns 0 or SP_READER_ENOMEM. */
static int sp_calls_sort(sp_reader_call_t *c, size_t n, int any) {
  if (n < 2) return 0;
  size_t nruns = 1;
  for (size_t i = 1; i < n; i++) nruns += sp_call_before(&c[i], &c[i - 1], any);
  if (nruns == 1) return 0;
  size_t *runs = malloc((nruns + 1) * sizeof *runs);
  sp_reader_call_t *tmp = malloc(n * sizeof *tmp);
  if (!runs || !tmp) {
    free(runs);
    free(tmp);
    return SP_READER_ENOMEM;
  }
  nruns = 0;
  runs[nruns++] = 0;
  for (size_t i = 1; i < n; i++)
    if (sp_call_before(&c[i], &c[i - 1], any)) runs[nruns++] = i;
  runs[nruns] = n;
  sp_reader_call_t *src = c, *dst = tmp;
  while (nruns > 1) {
    size_t m = 0;
    for (size_t r = 0; r < nruns; r += 2) {
      /* runs r and r + 1 (r + 1 == nruns: run r alone, copied) */
      size_t a = runs[r], mid = runs[r + 1], b = r + 2 <= nruns ? runs[r + 2] : n;
      size_t i = a, j = mid, k = a;
      while (i < mid && j < b)
        dst[k++] = sp_call_before(&src[j], &src[i], any) ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < b) dst[k++] = src[j++];
      runs[m++] = a;
    }
    runs[m] = n;
    nruns = m;
    sp_reader_call_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != c) memcpy(c, src, n * sizeof *c);
  free(runs);
  free(tmp);
  return 0;
}

static int sp_run_add(sp_reader_merge_t *m, int pair, int64_t pos, int64_t stop) {
  if (m->nruns == m->cap) {
    int cap = m->cap ? 2 * m->cap : 64;
    sp_mrun_t *r = realloc(m->runs, (size_t)cap * sizeof *r);
    if (!r) return SP_READER_ENOMEM;
    m->runs = r;
    m->cap = cap;
  }
  m->runs[m->nruns++] = (sp_mrun_t){pair, pos, stop, NULL, NULL, NULL, 0, NULL, 0, 0, 0, 0, 0};
  return 0;
}

/* Loads pair p whole, sorted, as one run. */
static int sp_pair_load(sp_reader_merge_t *m, sp_mpair_t *p) {
  sp_reader_intervals_t iv;
  int rc = sp_reader_load(m->r, p->g, m->k, &iv);
  if (rc) return rc;
  int slot = (int)(p - m->pairs);
  p->all = malloc((size_t)(iv.n ? iv.n : 1) * sizeof *p->all);
  if (!p->all) rc = SP_READER_ENOMEM;
  for (int64_t i = 0; rc == 0 && i < iv.n; i++)
    p->all[i] = (sp_reader_call_t){iv.start[i], iv.end[i], iv.thread_ids ? iv.thread_ids[i] : 0,
                                   p->key,      slot,      i};
  int64_t n = iv.n;
  sp_reader_intervals_free(&iv);
  if (rc == 0) rc = sp_calls_sort(p->all, (size_t)n, m->any);
  if (rc == 0) rc = sp_run_add(m, slot, 0, n);
  if (rc == 0) {
    sp_mrun_t *r = &m->runs[m->nruns - 1];
    r->buf = p->all;
    r->n = (size_t)n;
    r->pos = n;
  }
  return rc;
}

/* Reads calls [pos, pos + cnt) of pair p into m's scratch; the count read
 * or a negative reader error. */
static int64_t sp_pair_read(sp_reader_merge_t *m, const sp_mpair_t *p, int64_t pos, int64_t cnt) {
  return sp_reader_read_range(m->r, p->g, m->k, pos, cnt, m->s, m->e, m->t);
}

/* The first pass over pair p (n calls): its sorted runs, or the pair
 * loaded whole when it has too many or cannot be read in slices. */
static int sp_pair_scan(sp_reader_merge_t *m, sp_mpair_t *p, int64_t n) {
  int first = m->nruns, pi = (int)(p - m->pairs);
  int64_t from = 0, ps = 0, pe = 0;
  int32_t pt = 0;
  for (int64_t pos = 0; pos < n;) {
    int64_t got = sp_pair_read(m, p, pos, SP_MERGE_SCAN);
    if (got == SP_READER_EINVAL && pos == 0) return sp_pair_load(m, p);
    if (got < 0) return (int)got;
    if (got == 0) break; /* the file shrank: the second pass says so */
    for (int64_t i = 0; i < got; i++) {
      int32_t t = m->t[i];
      int64_t s = m->s[i], e = m->e[i];
      int desc = pos + i > 0 && (t != pt && !m->any ? t < pt : s != ps ? s < ps : e > pe);
      if (desc) {
        if (m->nruns - first + 1 >= SP_MERGE_MAXRUNS) {
          m->nruns = first;
          return sp_pair_load(m, p);
        }
        if (sp_run_add(m, pi, from, pos + i)) return SP_READER_ENOMEM;
        from = pos + i;
      }
      pt = t, ps = s, pe = e;
    }
    pos += got;
  }
  return sp_run_add(m, pi, from, n);
}

/* 1 when call (t, s, e) of a pair comes before the call (pt, ps, pe) stored
 * before it: the pair falls out of the merge's order there. */
static inline int sp_desc(int32_t t, int64_t s, int64_t e, int32_t pt, int64_t ps, int64_t pe) {
  return t != pt ? t < pt : s != ps ? s < ps : e > pe;
}

/* An unscanned merge takes each pair as one run: the chunk just read must
 * continue it in order (the scan's test), or the merge is not exact:
 * SP_READER_EORDER. */
static int sp_run_check(sp_mrun_t *r) {
  const int64_t *s = r->s, *e = r->e;
  const int32_t *t = r->t;
  size_t n = r->n;
  int bad = r->first > 0 && sp_desc(t[0], s[0], e[0], r->lt, r->ls, r->le);
  for (size_t i = 1; i < n; i++) bad |= sp_desc(t[i], s[i], e[i], t[i - 1], s[i - 1], e[i - 1]);
  r->lt = t[n - 1], r->ls = s[n - 1], r->le = e[n - 1];
  return bad ? SP_READER_EORDER : 0;
}

/* Refills run r's chunk from its pair; 0 or a reader error. */
static int sp_run_fill(sp_reader_merge_t *m, sp_mrun_t *r) {
  const sp_mpair_t *p = &m->pairs[r->pair];
  r->i = r->n = 0;
  if (p->all || r->pos >= r->stop) return 0;
  int64_t want = r->stop - r->pos < (int64_t)m->chunk ? r->stop - r->pos : (int64_t)m->chunk;
  int64_t got = sp_reader_read_range(m->r, p->g, m->k, r->pos, want, r->s, r->e, r->t);
  if (got < 0) return (int)got;
  if (got < want)
    return sp__reader_fail(m->r, SP_READER_EDATA,
                           "region '%s' on rank %d: the file changed while it was read",
                           m->r->regions[p->g].name, m->r->ranks[m->k].id);
  r->first = r->pos;
  r->n = (size_t)got;
  r->pos += got;
  return m->unscanned ? sp_run_check(r) : 0;
}

/* Run r's next call (r->i < r->n). */
static inline sp_reader_call_t sp_run_call(const sp_reader_merge_t *m, const sp_mrun_t *r) {
  if (r->buf) return r->buf[r->i];
  size_t i = r->i;
  return (sp_reader_call_t){
      r->s[i], r->e[i], r->t[i], m->pairs[r->pair].key, r->pair, r->first + (int64_t)i};
}

static void sp_heap_down(sp_reader_merge_t *m, int i) {
  sp_mhead_t *h = m->heap;
  int n = m->nheap;
  for (;;) {
    int l = 2 * i + 1, best = i;
    if (l < n && sp_call_before(&h[l].c, &h[best].c, m->any)) best = l;
    if (l + 1 < n && sp_call_before(&h[l + 1].c, &h[best].c, m->any)) best = l + 1;
    if (best == i) return;
    sp_mhead_t t = h[i];
    h[i] = h[best];
    h[best] = t;
    i = best;
  }
}

/* Chunks for the runs read in slices, and the heap of every run. */
static int sp_merge_start(sp_reader_merge_t *m) {
  int sliced = 0;
  for (int i = 0; i < m->nruns; i++) sliced += m->pairs[m->runs[i].pair].all == NULL;
  size_t chunk = sliced ? SP_MERGE_BUDGET / (size_t)sliced : SP_MERGE_SCAN;
  m->chunk = chunk < SP_MERGE_MINCHUNK   ? SP_MERGE_MINCHUNK
             : chunk > SP_MERGE_RUNCHUNK ? SP_MERGE_RUNCHUNK
                                         : chunk;
  m->heap = malloc((m->nruns > 0 ? (size_t)m->nruns : 1) * sizeof *m->heap);
  if (!m->heap) return SP_READER_ENOMEM;
  for (int i = 0; i < m->nruns; i++) {
    sp_mrun_t *r = &m->runs[i];
    if (!m->pairs[r->pair].all) {
      r->s = malloc(m->chunk * sizeof *r->s);
      r->e = malloc(m->chunk * sizeof *r->e);
      r->t = malloc(m->chunk * sizeof *r->t);
      if (!r->s || !r->e || !r->t) return SP_READER_ENOMEM;
      int rc = sp_run_fill(m, r);
      if (rc) return rc;
    }
    if (r->i < r->n) m->heap[m->nheap++] = (sp_mhead_t){sp_run_call(m, r), i};
  }
  for (int i = m->nheap / 2 - 1; i >= 0; i--) sp_heap_down(m, i);
  return 0;
}

/* Pair p's runs: the scan's, or (unscanned) the pair whole as one run. */
static int sp_pair_runs(sp_reader_merge_t *m, sp_mpair_t *p) {
  sp_reader_info_t info;
  if (sp_reader_info(m->r, p->g, m->k, &info) != 0 || !info.present || !info.has_times ||
      info.num_intervals == 0)
    return 0;
  int64_t n = info.num_intervals;
  if (!m->unscanned || (m->r->columnar && m->r->deltas)) return sp_pair_scan(m, p, n);
  /* Its first scan chunk (at least a run's first chunk) checked here: a
   * pair out of order there is scanned, and one that fits in it never
   * fails the merge. */
  int64_t got = sp_pair_read(m, p, 0, SP_MERGE_SCAN);
  if (got < 0) return (int)got;
  for (int64_t i = 1; i < got; i++)
    if (sp_desc(m->t[i], m->s[i], m->e[i], m->t[i - 1], m->s[i - 1], m->e[i - 1]))
      return sp_pair_scan(m, p, n);
  return sp_run_add(m, (int)(p - m->pairs), 0, n);
}

static int sp_merge_fill(sp_reader_merge_t *m, const int *regions, const int32_t *keys, int n) {
  m->pairs = calloc((size_t)(n > 0 ? n : 1), sizeof *m->pairs);
  m->s = malloc(SP_MERGE_SCAN * sizeof *m->s);
  m->e = malloc(SP_MERGE_SCAN * sizeof *m->e);
  m->t = malloc(SP_MERGE_SCAN * sizeof *m->t);
  if (!m->pairs || !m->s || !m->e || !m->t) return SP_READER_ENOMEM;
  m->npairs = n;
  for (int q = 0; q < n; q++) {
    int g = regions[q];
    m->pairs[q].g = g;
    m->pairs[q].key = keys ? keys[q] : q;
    if (g < 0 || g >= m->r->nregions) return SP_READER_EINVAL;
  }
  for (int q = 0; q < n; q++) {
    int rc = sp_pair_runs(m, &m->pairs[q]);
    if (rc) return rc;
  }
  return sp_merge_start(m);
}

/* The merges' one opening: flags of sp_reader_merge_open_flags(); any: in
 * start order over all threads (sp_reader_merge_open_by_start). */
static int sp_merge_open(sp_reader_t *r, int k, const int *regions, const int32_t *keys, int n,
                         unsigned flags, int any, sp_reader_merge_t **out) {
  if (out) *out = NULL;
  if (!r || !out || n < 0 || (n > 0 && !regions) || k < 0 || k >= r->nranks ||
      (flags & ~(unsigned)SP_READER_MERGE_UNSCANNED))
    return r ? sp__reader_fail(r, SP_READER_EINVAL, "sp_reader_merge_open: bad arguments")
             : SP_READER_EINVAL;
  sp_reader_merge_t *m = calloc(1, sizeof *m);
  if (!m) return sp__reader_fail(r, SP_READER_ENOMEM, "out of memory merging a rank's calls");
  m->r = r;
  m->k = k;
  m->unscanned = (flags & SP_READER_MERGE_UNSCANNED) != 0;
  m->any = any;
  int rc = sp_merge_fill(m, regions, keys, n);
  if (rc) {
    sp_reader_merge_close(m);
    if (rc == SP_READER_ENOMEM) sp__reader_fail(r, rc, "out of memory merging a rank's calls");
    if (rc == SP_READER_EINVAL) sp__reader_fail(r, rc, "sp_reader_merge_open: region out of range");
    return rc;
  }
  *out = m;
  return 0;
}

int sp_reader_merge_open(sp_reader_t *r, int k, const int *regions, const int32_t *keys, int n,
                         sp_reader_merge_t **out) {
  return sp_merge_open(r, k, regions, keys, n, 0, 0, out);
}

int sp_reader_merge_open_flags(sp_reader_t *r, int k, const int *regions, const int32_t *keys,
                               int n, unsigned flags, sp_reader_merge_t **out) {
  return sp_merge_open(r, k, regions, keys, n, flags, 0, out);
}

int sp_reader_merge_open_by_start(sp_reader_t *r, int k, const int *regions, const int32_t *keys,
                                  int n, sp_reader_merge_t **out) {
  return sp_merge_open(r, k, regions, keys, n, 0, 1, out);
}

/* The earliest call into *c (the heap is not empty): 1 or a reader error.
 * With two runs left (the common case: two regions nesting on a thread)
 * one comparison replaces the sift. */
static inline int sp_merge_pop(sp_reader_merge_t *m, sp_reader_call_t *c) {
  sp_mrun_t *r = &m->runs[m->heap[0].run];
  *c = m->heap[0].c;
  r->i++;
  int rc = r->i < r->n ? 0 : sp_run_fill(m, r);
  if (rc) return rc;
  if (r->i == r->n) {
    m->heap[0] = m->heap[--m->nheap];
  } else {
    m->heap[0].c = sp_run_call(m, r);
    if (m->nheap == 2) {
      if (sp_call_before(&m->heap[1].c, &m->heap[0].c, m->any)) {
        sp_mhead_t t = m->heap[0];
        m->heap[0] = m->heap[1];
        m->heap[1] = t;
      }
      return 1;
    }
  }
  sp_heap_down(m, 0);
  return 1;
}

/* rc of a pop, with the message of an unscanned pair found out of order. */
static int sp_merge_err(sp_reader_merge_t *m, int rc) {
  if (rc != SP_READER_EORDER) return rc;
  return sp__reader_fail(m->r, rc,
                         "rank %d: a region's calls are out of order (recursion, or "
                         "threads stored out of id order): the merge must scan them",
                         m->r->ranks[m->k].id);
}

int sp_reader_merge_next(sp_reader_merge_t *m, sp_reader_call_t *c) {
  if (!m || !c) return SP_READER_EINVAL;
  if (m->nheap == 0) return 0;
  int rc = sp_merge_pop(m, c);
  return rc < 0 ? sp_merge_err(m, rc) : rc;
}

/* Two runs left, both read in slices (two regions nesting on a thread, the
 * common case): calls into c[0..cap) straight from the runs' arrays, the
 * heads held here, one comparison each, up to the last call of the front
 * run's chunk (sp_merge_pop then gives it and refills). Returns how many. */
static int64_t sp_merge_two(sp_reader_merge_t *m, sp_reader_call_t *c, int64_t cap) {
  sp_mhead_t ha = m->heap[0], hb = m->heap[1];
  sp_mrun_t *a = &m->runs[ha.run], *b = &m->runs[hb.run];
  if (a->buf || b->buf) return 0;
  int64_t n = 0;
  while (n < cap && a->i + 1 < a->n) {
    c[n++] = ha.c;
    size_t i = ++a->i;
    ha.c.start = a->s[i];
    ha.c.end = a->e[i];
    ha.c.thread = a->t[i];
    ha.c.index = a->first + (int64_t)i;
    if (sp_call_before(&hb.c, &ha.c, m->any)) {
      sp_mhead_t th = ha;
      ha = hb;
      hb = th;
      sp_mrun_t *tr = a;
      a = b;
      b = tr;
    }
  }
  m->heap[0] = ha;
  m->heap[1] = hb;
  return n;
}

int64_t sp_reader_merge_next_n(sp_reader_merge_t *m, sp_reader_call_t *c, int64_t cap) {
  if (!m || !c || cap < 0) return SP_READER_EINVAL;
  int64_t n = 0;
  while (n < cap && m->nheap > 0) {
    if (m->nheap == 2 && (n += sp_merge_two(m, c + n, cap - n)) == cap) break;
    int rc = sp_merge_pop(m, &c[n]);
    if (rc < 0) return sp_merge_err(m, rc);
    n++;
  }
  return n;
}

void sp_reader_merge_close(sp_reader_merge_t *m) {
  if (!m) return;
  for (int i = 0; i < m->nruns; i++) {
    free(m->runs[i].s);
    free(m->runs[i].e);
    free(m->runs[i].t);
  }
  for (int i = 0; m->pairs && i < m->npairs; i++) free(m->pairs[i].all);
  free(m->pairs);
  free(m->runs);
  free(m->heap);
  free(m->s);
  free(m->e);
  free(m->t);
  free(m);
}
