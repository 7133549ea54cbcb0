/* reader_tree.c - the call tree rebuilt from the intervals (see the header's
 * "Call tree" section for the rules and definitions).
 *
 * One rank at a time: every selected pair of the rank is loaded and its
 * calls are put in the sweep's order (thread, start, end descending,
 * name). With one thread and every pair's starts in order, the rank's time
 * is cut into blocks ordered in cache (counting sort plus insertion pass)
 * and swept block by block, and repeats of a call pattern seen before are
 * taken whole (reader_tree_repeat.c); otherwise each pair is a run, runs
 * are sorted where needed and merged. The sweep keeps a stack of open calls; each call
 * is added to the node of its call path, found through a small cache in
 * front of a hash table keyed by (parent node, region, thread). When all
 * ranks are done the nodes are renumbered depth-first with children by
 * inclusive time, and the per-rank figures give min / mean / max over
 * ranks. */
#include <stdlib.h>
#include <string.h>

#include "reader_tree_internal.h"

/* The calls of the rank being processed, with one run per region. */
typedef struct sp_buf {
  sp_call_t *calls, *tmp; /* tmp: merge buffer of the same capacity */
  int64_t n, cap;
  int64_t *runs; /* run r is calls[runs[r] .. runs[r + 1]) */
  int nruns;
  int runs_cap; /* entries of runs */
} sp_buf_t;

static int sp_call_cmp(const void *a, const void *b) {
  const sp_call_t *x = a, *y = b;
  return sp_call_before(x, y) ? -1 : sp_call_before(y, x) ? 1 : 0;
}

/* Sorts each region's run where it is not in order already (usually it
 * is: one thread, no recursion); sp_runs_merge then merges the runs. */
static void sp_runs_sort(sp_buf_t *b) {
  for (int r = 0; r < b->nruns; r++) {
    sp_call_t *c = b->calls + b->runs[r];
    int64_t len = b->runs[r + 1] - b->runs[r];
    for (int64_t i = 1; i < len; i++)
      if (sp_call_before(&c[i], &c[i - 1])) {
        qsort(c, (size_t)len, sizeof *c, sp_call_cmp);
        break;
      }
  }
}

/* Merges the sorted runs pairwise (O(n log runs)), through b->tmp. */
static void sp_runs_merge(sp_buf_t *b) {
  while (b->nruns > 1) {
    int out = 0;
    for (int r = 0; r < b->nruns; r += 2) {
      int64_t lo = b->runs[r], mid = b->runs[r + 1];
      int64_t hi = r + 1 < b->nruns ? b->runs[r + 2] : mid;
      const sp_call_t *c = b->calls;
      sp_call_t *o = b->tmp + lo;
      int64_t i = lo, k = mid;
      while (i < mid && k < hi) *o++ = sp_call_before(&c[k], &c[i]) ? c[k++] : c[i++];
      while (i < mid) *o++ = c[i++];
      while (k < hi) *o++ = c[k++];
      b->runs[out++] = lo; /* out <= r: runs not yet read are kept */
    }
    b->runs[out] = b->n;
    b->nruns = out;
    sp_call_t *sw = b->calls;
    b->calls = b->tmp;
    b->tmp = sw;
  }
}

/* Room for `more` calls and, in the general order, one run per region (a
 * rank in the block order may have reserved calls before with no runs). */
static int sp_buf_reserve(sp_buf_t *b, int64_t more, int nregions) {
  if (b->runs_cap < nregions + 1) {
    int64_t *r = realloc(b->runs, (size_t)(nregions + 1) * sizeof *b->runs);
    if (!r) return SP_READER_ENOMEM;
    b->runs = r;
    b->runs_cap = nregions + 1;
  }
  if (b->n + more <= b->cap) return 0;
  int64_t nc = b->cap ? b->cap : 1024;
  while (nc < b->n + more) nc *= 2;
  sp_call_t *c = realloc(b->calls, (size_t)nc * sizeof *c);
  if (c) b->calls = c;
  sp_call_t *t = c ? realloc(b->tmp, (size_t)nc * sizeof *t) : NULL;
  if (t) b->tmp = t;
  if (!c || !t) return SP_READER_ENOMEM;
  b->cap = nc;
  return 0;
}

static void sp_pairs_free(sp_pairs_t *ps) {
  for (int p = 0; p < ps->n; p++) sp_reader_intervals_free(&ps->iv[p]);
  ps->n = 0;
}

/* The general order: each pair a run, sorted where needed, runs merged. */
static void sp_order_runs(sp_buf_t *b, const sp_pairs_t *ps) {
  for (int p = 0; p < ps->n; p++) {
    const sp_reader_intervals_t *iv = &ps->iv[p];
    b->runs[b->nruns++] = b->n;
    for (int64_t i = 0; i < iv->n; i++)
      b->calls[b->n + i] =
          (sp_call_t){iv->start[i], iv->end[i], iv->thread_ids ? iv->thread_ids[i] : 0, ps->key[p]};
    b->n += iv->n;
  }
  b->runs[b->nruns] = b->n;
  sp_runs_sort(b);
  sp_runs_merge(b);
}

/* Buckets with more calls than this are sorted with qsort, the others by
 * the insertion pass: equal or crowded stamps cannot make it quadratic. */
enum { SP_BUCKET_SMALL = 48, SP_BLOCK_CALLS = 1024, SP_BLOCK_MIN_RANK = 4096 };

/* The state of the ordering by time blocks (see sp_order_blocks). */
typedef struct sp_blocks {
  const sp_pairs_t *ps;
  int *order;    /* pairs in name order */
  int64_t *cur;  /* per pair: first call not yet placed */
  uint64_t lo;   /* the rank's smallest start */
  int shift;     /* a block is 2^shift ns wide */
  uint32_t *pos; /* bucket positions of the block being ordered */
  uint64_t npos;
} sp_blocks_t;

/* Orders the m calls of block blk (taken from every pair) into b->calls:
 * a counting sort by start into about m buckets, then an insertion pass
 * for the order inside a bucket (end descending, then name: the pairs are
 * placed in name order, so ties by name are already right). */
static int sp_block_order(sp_blocks_t *bl, sp_buf_t *b, uint64_t blk, const int64_t *end_idx,
                          int64_t m) {
  const sp_pairs_t *ps = bl->ps;
  int lb = 4;
  while (((int64_t)1 << lb) < m && lb < 30) lb++;
  uint64_t nb = (uint64_t)1 << lb;
  int ls = bl->shift > lb ? bl->shift - lb : 0;
  if (nb + 1 > bl->npos) {
    uint32_t *p = realloc(bl->pos, (nb + 1) * sizeof *p);
    if (!p) return SP_READER_ENOMEM;
    bl->pos = p;
    bl->npos = nb + 1;
  }
  uint32_t *pos = bl->pos;
  memset(pos, 0, nb * sizeof *pos);
  uint64_t base = bl->lo + (blk << bl->shift);
  for (int p = 0; p < ps->n; p++) {
    const int64_t *st = ps->iv[p].start;
    for (int64_t i = bl->cur[p]; i < end_idx[p]; i++) pos[((uint64_t)st[i] - base) >> ls]++;
  }
  uint32_t sum = 0, big = 0;
  for (uint64_t k = 0; k < nb; k++) {
    uint32_t c = pos[k];
    big |= c > SP_BUCKET_SMALL;
    pos[k] = sum;
    sum += c;
  }
  sp_call_t *calls = b->calls;
  for (int q = 0; q < ps->n; q++) {
    int p = bl->order[q];
    const sp_reader_intervals_t *iv = &ps->iv[p];
    int32_t key = ps->key[p], tid = ps->tid0;
    for (int64_t i = bl->cur[p]; i < end_idx[p]; i++)
      calls[pos[((uint64_t)iv->start[i] - base) >> ls]++] =
          (sp_call_t){iv->start[i], iv->end[i], tid, key};
  }
  /* pos[k] is now the end of bucket k. */
  for (uint64_t k = 0; big && k < nb; k++) {
    uint32_t from = k ? pos[k - 1] : 0;
    if (pos[k] - from > SP_BUCKET_SMALL)
      qsort(calls + from, pos[k] - from, sizeof *calls, sp_call_cmp);
  }
  for (int64_t i = 1; i < m; i++) {
    if (!sp_call_before(&calls[i], &calls[i - 1])) continue;
    sp_call_t c = calls[i];
    int64_t k = i;
    for (; k > 0 && sp_call_before(&c, &calls[k - 1]); k--) calls[k] = calls[k - 1];
    calls[k] = c;
  }
  b->n = m;
  return 0;
}

/* One thread, every pair's starts in order (the common case): the rank's
 * time is cut into blocks of about SP_BLOCK_CALLS calls; each block takes
 * its calls from the front of every pair, is ordered in cache
 * (sp_block_order) and swept at once. A full sort or merge of the rank's
 * calls would move every call through memory several times. */
static int sp_order_blocks(sp_sweep_t *w, sp_buf_t *b, const sp_pairs_t *ps) {
  sp_blocks_t bl = {ps, NULL, NULL, (uint64_t)ps->lo, 0, NULL, 0};
  uint64_t nblk = 1;
  while (nblk < (uint64_t)ps->calls / SP_BLOCK_CALLS) nblk *= 2;
  uint64_t span = (uint64_t)ps->hi - (uint64_t)ps->lo;
  while (bl.shift < 63 && (span >> bl.shift) >= nblk) bl.shift++;
  bl.order = malloc((size_t)ps->n * sizeof *bl.order);
  bl.cur = calloc((size_t)ps->n, sizeof *bl.cur);
  int64_t *end_idx = malloc((size_t)ps->n * sizeof *end_idx);
  int rc = bl.order && bl.cur && end_idx ? 0 : SP_READER_ENOMEM;
  /* Pairs in name order (insertion by key: a rank has one pair per region). */
  for (int p = 0; rc == 0 && p < ps->n; p++) {
    int q = p;
    while (q > 0 && ps->key[bl.order[q - 1]] > ps->key[p]) {
      bl.order[q] = bl.order[q - 1];
      q--;
    }
    bl.order[q] = p;
  }
  uint64_t last = span >> bl.shift;
  int64_t *pos = w->rep->pos;
  uint64_t blk = 0;
  while (rc == 0 && blk <= last) {
    int64_t m = 0;
    for (int p = 0; p < ps->n; p++) {
      const sp_reader_intervals_t *iv = &ps->iv[p];
      /* The pair's calls of this block: up to the first start past it (binary search). */
      int64_t a = bl.cur[p], z = iv->n;
      while (a < z) {
        int64_t mid = a + (z - a) / 2;
        if (((uint64_t)iv->start[mid] - bl.lo) >> bl.shift <= blk)
          a = mid + 1;
        else
          z = mid;
      }
      end_idx[p] = a;
      m += a - bl.cur[p];
    }
    if (m == 0) {
      blk++;
      continue;
    }
    b->n = 0;
    rc = sp_buf_reserve(b, m, 0);
    if (rc == 0) rc = sp_block_order(&bl, b, blk, end_idx, m);
    for (int64_t i = 0; rc == 0 && i < m; i++) rc = sp_sweep_call(w, &b->calls[i]);
    if (rc != SP_SWEEP_TOOK) {
      for (int p = 0; p < ps->n; p++) bl.cur[p] = end_idx[p];
      blk++;
      continue;
    }
    /* A run of repeats was taken: go on from the first call not swept. */
    rc = 0;
    uint64_t next = UINT64_MAX;
    for (int p = 0; p < ps->n; p++) {
      bl.cur[p] = pos[p];
      if (pos[p] < ps->iv[p].n) {
        uint64_t k = ((uint64_t)ps->iv[p].start[pos[p]] - bl.lo) >> bl.shift;
        next = k < next ? k : next;
      }
    }
    blk = next; /* >= blk: the calls taken start after the ones swept */
  }
  free(bl.order);
  free(bl.cur);
  free(bl.pos);
  free(end_idx);
  return rc;
}

/* Count-only regions: calls on a root node, no time. */
static int sp_count_only(sp_reader_tree_t *t, int j, int g, int64_t calls, unsigned flags) {
  int node = sp__tree_node(t, -1, g, (flags & SP_READER_TREE_BY_THREAD) ? 0 : -1);
  if (node < 0) return SP_READER_ENOMEM;
  sp_rank_cell(t, node, j)[0] = sp_add(sp_rank_cell(t, node, j)[0], calls);
  return 0;
}

/* The j-th selected rank (index k) by the file's call ids: the selected
 * pairs are in ps; the rank's other pairs are loaded for the links through
 * them (reader_tree_ids.c). */
static int sp_tree_rank_ids(sp_reader_t *r, sp_reader_tree_t *t, int j, int k, const int *regions,
                            int nregions, const int *by_key, unsigned flags, const sp_pairs_t *ps) {
  sp_pairs_t other = {0};
  int rc = sp__ids_other_load(r, k, regions, nregions, &other);
  if (rc == 0) rc = sp__tree_by_ids(t, j, flags, by_key, ps, &other);
  sp__ids_other_free(&other);
  return rc;
}

/* The general way for ids that are not dense: every selected pair loaded,
 * then linked through a hash of the ids. */
static int sp_tree_rank_sparse(sp_reader_t *r, sp_reader_tree_t *t, int j, int k,
                               const int *regions, const int *keys, int nregions, const int *by_key,
                               unsigned flags, sp_pairs_t *ps) {
  int rc = 0;
  for (int i = 0; rc == 0 && i < nregions; i++) {
    sp_reader_info_t info;
    sp_reader_info(r, regions[i], k, &info);
    if (info.present && info.has_times)
      rc = sp__tree_pair_load(r, t, regions[i], k, j, keys[i], ps);
  }
  if (rc == 0) rc = sp_tree_rank_ids(r, t, j, k, regions, nregions, by_key, flags, ps);
  sp_pairs_free(ps);
  return rc;
}

/* The timed calls of the selected regions of rank index k (from the
 * metadata, nothing read); the rank's intervals of every region when they
 * are at most `bound` already (one pass over its records: a rank of a few
 * calls, 100,000 ranks, must not cost a lookup per selected region). */
static int64_t sp_rank_timed_calls(const sp_reader_t *r, int k, const int *regions, int nregions,
                                   int64_t bound) {
  int64_t n = 0;
  const sp_rank_t *rk = &r->ranks[k];
  for (int i = 0; i < rk->nregions; i++) n += rk->regions[i].has_times ? rk->regions[i].n : 0;
  if (n <= bound) return n;
  n = 0;
  for (int i = 0; i < nregions; i++) {
    sp_reader_info_t info;
    sp_reader_info(r, regions[i], k, &info);
    if (info.present && info.has_times) n += info.num_intervals;
  }
  return n;
}

/* The j-th selected rank (index k) with many calls: the sweep takes them
 * one at a time from the reader's merge (reader_merge.c, the order of the
 * sweep: thread, start, end descending, name key), so memory is a chunk
 * per sorted run, not the rank (the loaded rank took about 68 bytes a
 * call). Same figures as the loaded way, whose block order and repeats
 * only save time. With SP_READER_TREE_DURATIONS each pair's statistics
 * are taken from it read in slices (sp__durations_read). */
static int sp_tree_rank_stream(sp_reader_t *r, sp_reader_tree_t *t, int j, int k,
                               const int *regions, const int *keys, int nregions, const int *by_key,
                               unsigned flags) {
  int *sel = malloc((size_t)(nregions ? nregions : 1) * sizeof *sel);
  int32_t *key = malloc((size_t)(nregions ? nregions : 1) * sizeof *key);
  sp_sweep_t *w = calloc(1, sizeof *w);
  int rc = sel && key && w ? 0 : SP_READER_ENOMEM, n = 0;
  for (int i = 0; rc == 0 && i < nregions; i++) {
    sp_reader_info_t info;
    sp_reader_info(r, regions[i], k, &info);
    if (!info.present) continue;
    if (!info.has_times) {
      rc = sp_count_only(t, j, regions[i], info.num_calls, flags);
      continue;
    }
    sel[n] = regions[i];
    key[n++] = keys[i];
    if (!t->dur) continue;
    sp_reader_durations_t *d = &t->dur[(size_t)regions[i] * (size_t)t->nranks + (size_t)j];
    if ((rc = sp__durations_read(r, regions[i], k, info.num_intervals, d)) != 1) continue;
    sp_reader_intervals_t iv; /* delta-encoded columns: loaded */
    rc = sp_reader_load(r, regions[i], k, &iv);
    if (rc == 0) sp__durations(&iv, d);
    sp_reader_intervals_free(&iv);
  }
  sp_reader_merge_t *m = NULL;
  if (rc == 0) rc = sp_reader_merge_open(r, k, sel, key, n, &m);
  if (rc == 0) {
    w->t = t;
    w->j = j;
    w->by_key = by_key;
    w->flags = flags;
    sp_reader_call_t x;
    int got;
    while ((got = sp_reader_merge_next(m, &x)) > 0) {
      sp_call_t c = {x.start, x.end, x.thread, x.key};
      if ((rc = sp_sweep_call(w, &c)) != 0) break;
    }
    if (rc == 0 && got < 0) rc = got;
    while (w->depth) sp_pop(w);
  }
  sp_reader_merge_close(m);
  if (w) free(w->stack);
  free(w);
  free(sel);
  free(key);
  return rc == SP_READER_ENOMEM ? sp__reader_fail(r, rc, "out of memory building the call tree")
                                : rc;
}

/* All selected regions of the j-th selected rank (index k): loaded, put in
 * the sweep's order, swept. */
static int sp_tree_rank(sp_reader_t *r, sp_reader_tree_t *t, int j, int k, const int *regions,
                        const int *keys, int nregions, const int *by_key, unsigned flags,
                        sp_buf_t *b, sp_pairs_t *ps, sp_stream_t *st) {
  int rc = 0, ids = sp_reader_has_call_ids(r);
  if (r->aggregate && (rc = sp__tree_rank_agg(r, t, j, k, regions, nregions, flags)) != 1)
    return rc == SP_READER_ENOMEM ? sp__reader_fail(r, rc, "out of memory building the call tree")
                                  : rc;
  /* A totals-only tree streams below in slices (bounded by regions); a full
   * tree streams a rank of many calls through the reader's merge. */
  if (!ids && !st &&
      sp_rank_timed_calls(r, k, regions, nregions, t->stream_calls) > t->stream_calls)
    return sp_tree_rank_stream(r, t, j, k, regions, keys, nregions, by_key, flags);
  rc = 0;
  b->n = 0;
  b->nruns = 0;
  ps->n = 0;
  ps->calls = 0;
  ps->lo = INT64_MAX;
  ps->hi = INT64_MIN;
  ps->mixed = 0;
  ps->unsorted = 0;
  ps->tid0 = 0;
  for (int i = 0; rc == 0 && i < nregions; i++) {
    sp_reader_info_t info;
    sp_reader_info(r, regions[i], k, &info);
    if (!info.present) continue;
    if (!info.has_times)
      rc = sp_count_only(t, j, regions[i], info.num_calls, flags);
    else if (!ids && !st)
      rc = sp__tree_pair_load(r, t, regions[i], k, j, keys[i], ps);
  }
  if (st && !ids) { /* totals only: the calls as they are read */
    if (rc == 0) rc = sp__tree_rank_stream(r, t, j, k, regions, keys, nregions, by_key, flags, st);
    return rc == SP_READER_ENOMEM ? sp__reader_fail(r, rc, "out of memory building the call tree")
                                  : rc;
  }
  if (ids) { /* the file numbers the calls: by dense ids, else the general way */
    if (rc == 0) rc = sp__tree_rank_dense(r, t, j, k, regions, keys, nregions, flags);
    if (rc == SP_DENSE_NO)
      rc = sp_tree_rank_sparse(r, t, j, k, regions, keys, nregions, by_key, flags, ps);
    return rc == SP_READER_ENOMEM ? sp__reader_fail(r, rc, "out of memory building the call tree")
                                  : rc;
  }
  /* Thread changes and recursion need the general order; else blocks. */
  int general = ps->mixed || ps->unsorted || ps->calls < SP_BLOCK_MIN_RANK ||
                ps->calls >= (int64_t)UINT32_MAX; /* bucket counts are 32-bit */
  if (rc == 0 && ps->calls > 0 && general) {
    rc = sp_buf_reserve(b, ps->calls, nregions);
    if (rc == 0) sp_order_runs(b, ps);
  }
  sp_sweep_t *w = rc == 0 && ps->calls > 0 ? calloc(1, sizeof *w) : NULL;
  if (rc == 0 && ps->calls > 0 && !w) rc = SP_READER_ENOMEM;
  if (w) {
    w->t = t;
    w->j = j;
    w->by_key = by_key;
    w->flags = flags;
    if (general) {
      for (int64_t i = 0; rc == 0 && i < b->n; i++) rc = sp_sweep_call(w, &b->calls[i]);
    } else {
      w->rep = sp__repeat_new(ps);
      rc = w->rep ? sp_order_blocks(w, b, ps) : SP_READER_ENOMEM;
    }
    while (w->depth) sp_pop(w);
    sp__repeat_free(w->rep);
    free(w->stack);
    free(w);
  }
  sp_pairs_free(ps);
  return rc == SP_READER_ENOMEM ? sp__reader_fail(r, rc, "out of memory building the call tree")
                                : rc;
}

/* A region and its name, to sort regions by name. */
typedef struct sp_named {
  const char *name;
  int region;
} sp_named_t;

static int sp_named_cmp(const void *a, const void *b) {
  const sp_named_t *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->region > y->region) - (x->region < y->region);
}

/* name_rank[g]: position of region g in name order; by_key: the inverse. */
static int sp_name_keys(const sp_reader_t *r, int **name_rank, int **by_key) {
  int n = r->nregions;
  sp_named_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
  *name_rank = malloc((size_t)(n ? n : 1) * sizeof **name_rank);
  *by_key = malloc((size_t)(n ? n : 1) * sizeof **by_key);
  if (!v || !*name_rank || !*by_key) {
    free(v);
    return SP_READER_ENOMEM;
  }
  for (int g = 0; g < n; g++) v[g] = (sp_named_t){r->regions[g].name, g};
  qsort(v, (size_t)n, sizeof *v, sp_named_cmp);
  for (int p = 0; p < n; p++) {
    (*name_rank)[v[p].region] = p;
    (*by_key)[p] = v[p].region;
  }
  free(v);
  return 0;
}

/* Min / mean / max over the selected ranks of each node's per-rank inclusive time. */
static void sp_rank_stats(sp_reader_tree_t *t) {
  for (int i = 0; i < t->nnodes; i++) {
    sp_reader_tree_node_t *nd = &t->nodes[i];
    /* Node totals: the sums of the per-rank cells (saturating, as the cells). */
    nd->calls = nd->inclusive = nd->exclusive = 0;
    for (int j = 0; j < t->nranks; j++) {
      const int64_t *c = sp_rank_cell(t, i, j);
      nd->calls = sp_add(nd->calls, c[0]);
      nd->inclusive = sp_add(nd->inclusive, c[1]);
      nd->exclusive = sp_add(nd->exclusive, c[2]);
    }
    double mn = 0, mx = -1, sum = 0;
    nd->nranks = 0;
    for (int j = 0; j < t->nranks; j++) {
      const int64_t *c = sp_rank_cell(t, i, j);
      double v = (double)c[1];
      nd->nranks += c[0] > 0;
      if (j == 0 || v < mn) mn = v;
      if (v > mx) {
        mx = v;
        nd->max_rank = t->rank_ids[j];
      }
      sum += v;
    }
    nd->rank_min = t->nranks ? mn : 0;
    nd->rank_max = t->nranks ? mx : 0;
    nd->rank_mean = t->nranks ? sum / t->nranks : 0;
    nd->imbalance = nd->rank_max > 0 ? (nd->rank_max - nd->rank_mean) / nd->rank_max : 0;
    if (nd->parent < 0) t->roots_inclusive = sp_add(t->roots_inclusive, nd->inclusive);
  }
}

/* What orders siblings: the parent (siblings together, roots first), inclusive
 * time descending, calls descending, name, thread. */
typedef struct sp_sib {
  int parent;
  int name; /* position of the region in name order */
  int thread;
  int node;
  int64_t inclusive, calls;
} sp_sib_t;

static int sp_sib_cmp(const void *a, const void *b) {
  const sp_sib_t *x = a, *y = b;
  if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
  if (x->inclusive != y->inclusive) return x->inclusive > y->inclusive ? -1 : 1;
  if (x->calls != y->calls) return x->calls > y->calls ? -1 : 1;
  if (x->name != y->name) return x->name < y->name ? -1 : 1;
  return (x->thread > y->thread) - (x->thread < y->thread);
}

/* Depth-first order: ord[new] = old. */
static int sp_preorder(sp_reader_tree_t *t, const int *name_rank, int *ord) {
  int n = t->nnodes;
  int *kids = malloc((size_t)n * sizeof *kids), *first = malloc((size_t)(n + 1) * sizeof *first);
  int *stack = malloc((size_t)n * sizeof *stack);
  sp_sib_t *sib = malloc((size_t)n * sizeof *sib);
  if (!kids || !first || !stack || !sib) {
    free(kids);
    free(first);
    free(stack);
    free(sib);
    return SP_READER_ENOMEM;
  }
  for (int i = 0; i < n; i++) {
    const sp_reader_tree_node_t *nd = &t->nodes[i];
    sib[i] = (sp_sib_t){nd->parent, name_rank[nd->region], nd->thread, i, nd->inclusive, nd->calls};
  }
  qsort(sib, (size_t)n, sizeof *sib, sp_sib_cmp);
  for (int i = 0; i < n; i++) kids[i] = sib[i].node;
  free(sib);
  /* first[p + 1]: where the children of p start in kids (p = -1: roots). */
  for (int p = 0; p <= n; p++) first[p] = -1;
  for (int i = n - 1; i >= 0; i--) first[t->nodes[kids[i]].parent + 1] = i;
  int depth = 0, out = 0;
  for (int i = 0; i < n && t->nodes[kids[i]].parent < 0; i++) {
    stack[depth++] = kids[i];
    while (depth) {
      int v = stack[--depth];
      ord[out++] = v;
      int f = first[v + 1], e = f;
      while (e >= 0 && e < n && t->nodes[kids[e]].parent == v) e++;
      for (int k = e - 1; f >= 0 && k >= f; k--) stack[depth++] = kids[k];
    }
  }
  free(kids);
  free(first);
  free(stack);
  return 0;
}

/* Renumbers the nodes depth-first and links parents, children and siblings. */
static int sp_tree_finish(sp_reader_tree_t *t, const int *name_rank) {
  sp_rank_stats(t);
  int n = t->nnodes;
  size_t w = (size_t)t->nranks * 3;
  int *ord = malloc((size_t)(n ? n : 1) * sizeof *ord),
      *inv = malloc((size_t)(n ? n : 1) * sizeof *inv);
  sp_reader_tree_node_t *nodes = malloc((size_t)(n ? n : 1) * sizeof *nodes);
  int64_t *pr = malloc((size_t)(n ? n : 1) * (w ? w : 1) * sizeof *pr);
  int rc = ord && inv && nodes && pr ? sp_preorder(t, name_rank, ord) : SP_READER_ENOMEM;
  for (int i = 0; rc == 0 && i < n; i++) inv[ord[i]] = i;
  int last_root = -1;
  for (int i = 0; rc == 0 && i < n; i++) {
    nodes[i] = t->nodes[ord[i]];
    memcpy(&pr[(size_t)i * w], &t->per_rank[(size_t)ord[i] * w], w * sizeof *pr);
    nodes[i].parent = nodes[i].parent < 0 ? -1 : inv[nodes[i].parent];
    nodes[i].first_child = nodes[i].next_sibling = -1;
  }
  /* In depth-first order a node's next sibling is the next node with the same parent
   * before any node of smaller depth. */
  for (int i = n - 1; rc == 0 && i >= 0; i--) {
    sp_reader_tree_node_t *nd = &nodes[i];
    int p = nd->parent;
    if (p < 0) {
      nd->next_sibling = last_root;
      last_root = i;
      nd->share = 1.0;
    } else {
      nd->next_sibling = nodes[p].first_child;
      nodes[p].first_child = i;
    }
  }
  /* Each node's root, in one pass: in depth-first order a parent comes
   * before its children (walking up per node was quadratic in the depth). */
  int *root_of = inv;
  for (int i = 0; rc == 0 && i < n; i++) {
    int p = nodes[i].parent;
    int root = root_of[i] = p < 0 ? i : root_of[p];
    nodes[i].share = nodes[root].inclusive > 0
                         ? (double)nodes[i].inclusive / (double)nodes[root].inclusive
                         : 0.0;
  }
  free(ord);
  free(inv);
  if (rc == 0) {
    free(t->nodes);
    free(t->per_rank);
    t->nodes = nodes;
    t->per_rank = pr;
    t->cap = n;
    free(t->slots); /* keyed by the old numbering */
    t->slots = NULL;
    t->nslots = 0;
  } else {
    free(nodes);
    free(pr);
  }
  return rc;
}

static int sp_tree_all(sp_reader_t *r, sp_reader_tree_t *t, const int *regions, int nregions,
                       const int *ranks, int nsel, unsigned flags) {
  int *name_rank = NULL, *by_key = NULL,
      *keys = malloc((size_t)(nregions ? nregions : 1) * sizeof *keys);
  int rc = keys ? sp_name_keys(r, &name_rank, &by_key) : SP_READER_ENOMEM;
  for (int i = 0; rc == 0 && i < nregions; i++) keys[i] = name_rank[regions[i]];
  sp_buf_t b = {NULL, NULL, 0, 0, NULL, 0, 0};
  sp_pairs_t ps = {NULL, NULL, 0, 0, 0, 0, 0, 0, 0};
  ps.iv = calloc((size_t)(nregions > 0 ? nregions : 1), sizeof *ps.iv);
  ps.key = malloc((size_t)(nregions > 0 ? nregions : 1) * sizeof *ps.key);
  if (rc == 0 && (!ps.iv || !ps.key)) rc = SP_READER_ENOMEM;
  if (rc == 0 && (flags & SP_READER_TREE_DURATIONS)) {
    t->nregions_all = r->nregions;
    t->dur = calloc((size_t)(r->nregions ? r->nregions : 1) * (size_t)(t->nranks ? t->nranks : 1),
                    sizeof *t->dur);
    if (!t->dur) rc = SP_READER_ENOMEM;
  }
  t->stream_calls = sp_reader_stream_calls();
  /* Totals only: every rank adds to one column, and per-rank stamps are
   * streamed; a rank that cannot be streamed starts the tree again, loaded. */
  int cols = t->nranks;
  sp_stream_t *st = NULL;
  if (flags & SP_READER_TREE_TOTALS) {
    cols = 1;
    st = t->dur || (flags & SP_READER_TREE_BY_THREAD) ? NULL : sp__stream_new(nregions);
  }
  for (int j = 0; rc == 0 && j < nsel; j++) {
    rc = sp_tree_rank(r, t, j < cols ? j : 0, ranks[j], regions, keys, nregions, by_key, flags, &b,
                      &ps, st);
    if (rc == SP_STREAM_NO) { /* from the start, loaded */
      sp__stream_free(st);
      st = NULL;
      t->nnodes = 0;
      free(t->slots);
      t->slots = NULL;
      t->nslots = 0;
      rc = 0;
      j = -1;
    }
  }
  sp__stream_free(st);
  free(ps.iv);
  free(ps.key);
  free(b.calls);
  free(b.tmp);
  free(b.runs);
  if (rc == 0) rc = sp_tree_finish(t, name_rank);
  free(keys);
  free(name_rank);
  free(by_key);
  return rc == SP_READER_ENOMEM ? sp__reader_fail(r, rc, "out of memory building the call tree")
                                : rc;
}

/* A tree of totals has no per-rank figures: they read as none. */
static void sp_totals_only(sp_reader_tree_t *t) {
  for (int i = 0; i < t->nnodes; i++) {
    sp_reader_tree_node_t *nd = &t->nodes[i];
    nd->nranks = 0;
    nd->rank_min = nd->rank_mean = nd->rank_max = nd->imbalance = 0;
    nd->max_rank = -1;
  }
  t->nranks = 0;
}

int sp_reader_tree_build(sp_reader_t *r, const int *regions, int nregions, const int *ranks,
                         int nranks, unsigned flags, sp_reader_tree_t **out) {
  if (out) *out = NULL;
  if (!r || !out || (nregions < 0 && regions) || (nranks < 0 && ranks) || nregions < -1 ||
      nranks < -1 ||
      (flags &
       ~(unsigned)(SP_READER_TREE_BY_THREAD | SP_READER_TREE_DURATIONS | SP_READER_TREE_TOTALS)) ||
      ((flags & SP_READER_TREE_TOTALS) && (flags & SP_READER_TREE_DURATIONS)))
    return SP_READER_EINVAL;
  int *all_g = NULL, *all_k = NULL;
  if (nregions == -1 || !regions) {
    nregions = r->nregions;
    all_g = malloc((size_t)(nregions ? nregions : 1) * sizeof *all_g);
    for (int g = 0; all_g && g < nregions; g++) all_g[g] = g;
    regions = all_g;
  }
  if (nranks == -1 || !ranks) {
    nranks = r->nranks;
    all_k = malloc((size_t)(nranks ? nranks : 1) * sizeof *all_k);
    for (int k = 0; all_k && k < nranks; k++) all_k[k] = k;
    ranks = all_k;
  }
  sp_reader_tree_t *t = calloc(1, sizeof *t);
  int rc = t && regions && ranks ? 0 : SP_READER_ENOMEM;
  for (int i = 0; rc == 0 && i < nregions; i++)
    if (regions[i] < 0 || regions[i] >= r->nregions) rc = SP_READER_EINVAL;
  for (int j = 0; rc == 0 && j < nranks; j++)
    if (ranks[j] < 0 || ranks[j] >= r->nranks) rc = SP_READER_EINVAL;
  if (rc == 0) {
    t->nranks = (flags & SP_READER_TREE_TOTALS) ? (nranks > 0) : nranks;
    t->rank_ids = malloc((size_t)(nranks ? nranks : 1) * sizeof *t->rank_ids);
    if (!t->rank_ids) rc = SP_READER_ENOMEM;
    for (int j = 0; rc == 0 && j < nranks; j++) t->rank_ids[j] = r->ranks[ranks[j]].id;
  }
  if (rc == 0) rc = sp_tree_all(r, t, regions, nregions, ranks, nranks, flags);
  if (rc == 0 && (flags & SP_READER_TREE_TOTALS)) sp_totals_only(t);
  free(all_g);
  free(all_k);
  if (rc < 0) {
    sp_reader_tree_free(t);
    return rc == SP_READER_EINVAL ? sp__reader_fail(r, rc, "region or rank index out of range")
                                  : rc;
  }
  *out = t;
  return 0;
}

void sp_reader_tree_free(sp_reader_tree_t *t) {
  if (!t) return;
  free(t->nodes);
  free(t->per_rank);
  free(t->rank_ids);
  free(t->slots);
  free(t->dur);
  free(t);
}

int sp_reader_tree_num_nodes(const sp_reader_tree_t *t) { return t ? t->nnodes : 0; }

const sp_reader_tree_node_t *sp_reader_tree_node(const sp_reader_tree_t *t, int i) {
  return t && i >= 0 && i < t->nnodes ? &t->nodes[i] : NULL;
}

int sp_reader_tree_num_ranks(const sp_reader_tree_t *t) { return t ? t->nranks : 0; }

int sp_reader_tree_rank(const sp_reader_tree_t *t, int i, int j, sp_reader_tree_rank_t *out) {
  if (!t || !out || i < 0 || i >= t->nnodes || j < 0 || j >= t->nranks) return SP_READER_EINVAL;
  const int64_t *c = &t->per_rank[((size_t)i * (size_t)t->nranks + (size_t)j) * 3];
  out->rank = t->rank_ids[j];
  out->calls = c[0];
  out->inclusive = c[1];
  out->exclusive = c[2];
  return 0;
}

int64_t sp_reader_tree_roots_inclusive(const sp_reader_tree_t *t) {
  return t ? t->roots_inclusive : 0;
}

int sp_reader_tree_durations(const sp_reader_tree_t *t, int g, int j, sp_reader_durations_t *out) {
  if (!t || !out || !t->dur || g < 0 || g >= t->nregions_all || j < 0 || j >= t->nranks)
    return SP_READER_EINVAL;
  *out = t->dur[(size_t)g * (size_t)t->nranks + (size_t)j];
  return 0;
}
