/* columnar_plan.c - this rank's part of the columnar layout (columnar_plan.h).
 *
 * The events: raw_write.c already puts a rank's events (spilled and in
 * memory, converted to ns, thread ids, MPI bytes, peers, tags and
 * communicator ids) at given file
 * offsets in the order of the rank<N> layout. Here it copies them into
 * anonymous memory laid out as columns (sp__raw_write_mem), so both
 * layouts hold the same events in the same order from one piece of code;
 * that memory is what the writes send.
 *
 * The call ids: the calls of each thread in the postprocessor's sweep
 * order (start, end descending, region), each call's parent the innermost
 * call still open when it starts (postproc/src/reader_tree.c's rule), so
 * the tree the ids define is the one the stamps give.
 *
 * The names: every rank's region names are gathered on rank 0 (with its
 * counts and extras: one exchange), made distinct (a hash set) and sorted
 * there, and the table goes back to every rank (columnar_write.c); a
 * region's id is its place in it, found by each rank in its copy. The
 * call ids do not wait for it: ties are broken by name, the ids' order. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "columnar_plan.h"
#include "layout.h"
#include "raw_write.h"

/* What each rank sends before its names and extras: the metadata
 * group's figures, its counts (rank 0 makes every rank's place in the
 * columns from them) and the lengths of what follows. */
typedef struct sp_col_head {
  int64_t wall_time, events_lost;
  int32_t nthreads, clock_tsc;
  char host[64];
  int64_t count[SP_COL_COUNTS]; /* pairs, events, any MPI region, the caller's flag */
  int64_t names_len, extras_len;
} sp_col_head_t;

/* The events of l into columns in anonymous memory, through the rank<N>
 * layout's code (raw_write.c) with the columns' places as offsets. */
static int sp_col_events(const sp_local_t *l, sp_col_local_t *c) {
  const int64_t n = c->nevents;
  if (n == 0) return 0;
  c->map_len = (size_t)n * 40; /* start, end, bytes: 8 each; tid, peer, tag, comm: 4 each */
  sp_region_offsets_t *o = calloc((size_t)c->npairs + 1, sizeof *o);
  int rc = o ? 0 : SP_ENOMEM;
  for (int64_t p = 0; rc == 0 && p < c->npairs; p++) {
    const int64_t f = (int64_t)c->first[p];
    const int x = l->plan.regions[p].mpi_extra;
    o[p] = (sp_region_offsets_t){.start_times = 8 * f,
                                 .end_times = 8 * n + 8 * f,
                                 .bytes = x ? 16 * n + 8 * f : -1,
                                 .thread_ids = 24 * n + 4 * f,
                                 .peer = x ? 28 * n + 4 * f : -1,
                                 .tag = x ? 32 * n + 4 * f : -1,
                                 .comm = x ? 36 * n + 4 * f : -1};
    c->any_mpi |= x;
  }
  if (rc == 0) {
    c->map = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (c->map == MAP_FAILED) {
      c->map = NULL;
      rc = SP_ENOMEM;
    }
  }
  /* Copied into place: a memory file written with pwrite took one call per
   * region and column, 2.7 ms of a rank's 7 ms of finalize at 1,000 regions
   * (docs/performance.md, "the columnar finalize's fixed cost"). */
  if (rc == 0) rc = sp__raw_write_mem(l, o, c->map, (int64_t)c->map_len, 1 << 20);
  free(o);
  if (rc != 0) return rc;
  char *m = c->map;
  c->start = (int64_t *)(void *)m;
  c->end = (int64_t *)(void *)(m + 8 * n);
  c->bytes = (int64_t *)(void *)(m + 16 * n); /* the 8-byte columns first: aligned */
  c->tid = (int32_t *)(void *)(m + 24 * n);
  c->peer = (int32_t *)(void *)(m + 28 * n);
  c->tag = (int32_t *)(void *)(m + 32 * n);
  c->comm = (int32_t *)(void *)(m + 36 * n);
  return 0;
}

void sp__col_local_mpi_fill(const sp_local_t *l, sp_col_local_t *c) {
  /* Not an MPI call region: unknown. Only where the columns are written:
   * filling them touched 20 bytes an event of fresh pages for nothing. */
  for (int64_t p = 0; c->map && p < c->npairs; p++)
    for (uint64_t i = c->first[p]; !l->plan.regions[p].mpi_extra && i < c->first[p] + c->count[p];
         i++) {
      c->bytes[i] = -1;
      c->peer[i] = c->tag[i] = c->comm[i] = -1;
    }
}

/* The sweep's order: thread, start, end descending, region (by name, as
 * the ids of the name table order: known before the table is), place. */
typedef struct sp_col_sort {
  const sp_col_local_t *c;
  const uint32_t *pair;           /* of each event */
  const sp_plan_region_t *region; /* of each pair */
} sp_col_sort_t;

static int sp_col_cmp(const void *a, const void *b, void *arg) {
  const sp_col_sort_t *s = arg;
  const int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
  const sp_col_local_t *c = s->c;
  if (c->tid[i] != c->tid[j]) return c->tid[i] < c->tid[j] ? -1 : 1;
  if (c->start[i] != c->start[j]) return c->start[i] < c->start[j] ? -1 : 1;
  if (c->end[i] != c->end[j]) return c->end[i] > c->end[j] ? -1 : 1;
  if (s->pair[i] != s->pair[j]) {
    const int o = strcmp(s->region[s->pair[i]].name, s->region[s->pair[j]].name);
    if (o != 0) return o;
  }
  return (i > j) - (i < j);
}

/* One stable pass of an LSD radix sort: order by digit (key >> shift) & mask
 * into out; 0 when every key has the same digit (nothing moved). */
static int sp_col_radix_pass(const uint64_t *key, const int64_t *order, int64_t *out, int64_t n,
                             int shift) {
  enum { BITS = 11, SIZE = 1 << BITS };
  int64_t at[SIZE] = {0};
  for (int64_t k = 0; k < n; k++) at[(key[order[k]] >> shift) & (SIZE - 1)]++;
  if (at[(key[order[0]] >> shift) & (SIZE - 1)] == n) return 0;
  int64_t sum = 0;
  for (int d = 0; d < SIZE; d++) {
    const int64_t m = at[d];
    at[d] = sum;
    sum += m;
  }
  for (int64_t k = 0; k < n; k++) out[at[(key[order[k]] >> shift) & (SIZE - 1)]++] = order[k];
  return 1;
}

/* order[] in the sweep's order (sp_col_cmp): a stable radix sort by
 * (thread, start), then each run of calls of one thread that start at the
 * same stamp sorted by the comparator; the same order as sorting by the
 * comparator alone, which took 0.4-0.7 ms of a rank's 4 ms of finalize at
 * 10,000 calls (docs/performance.md, "the columnar finalize's CPU"). Calls
 * already in order (one region) are not moved. 0, or SP_ENOMEM: then the
 * caller sorts with the comparator. */
static int sp_col_order(const sp_col_local_t *c, sp_col_sort_t *s, int64_t *order) {
  const int64_t n = c->nevents;
  int32_t tmin = c->tid[0], tmax = c->tid[0];
  int64_t smin = c->start[0], smax = c->start[0];
  int sorted = 1;
  for (int64_t i = 0; i < n; i++) {
    order[i] = i;
    if (c->tid[i] < tmin) tmin = c->tid[i];
    if (c->tid[i] > tmax) tmax = c->tid[i];
    if (c->start[i] < smin) smin = c->start[i];
    if (c->start[i] > smax) smax = c->start[i];
    if (i > 0 && sorted && sp_col_cmp(&order[i - 1], &order[i], s) > 0) sorted = 0;
  }
  if (sorted) return 0;
  int sbits = 0, tbits = 0;
  while (sbits < 64 && ((uint64_t)smax - (uint64_t)smin) >> sbits) sbits++;
  while (tbits < 32 && ((uint64_t)((int64_t)tmax - tmin)) >> tbits) tbits++;
  if (sbits + tbits > 64) return SP_ENOMEM; /* no key of 64 bits: the comparator */
  uint64_t *key = malloc((size_t)n * sizeof *key);
  int64_t *spare = malloc((size_t)n * sizeof *spare);
  if (!key || !spare) {
    free(key);
    free(spare);
    return SP_ENOMEM;
  }
  for (int64_t i = 0; i < n; i++)
    key[i] = (tbits ? (uint64_t)((int64_t)c->tid[i] - tmin) << sbits : 0) |
             ((uint64_t)c->start[i] - (uint64_t)smin);
  int64_t *from = order, *to = spare;
  for (int shift = 0; shift < sbits + tbits; shift += 11)
    if (sp_col_radix_pass(key, from, to, n, shift)) {
      int64_t *t = from;
      from = to;
      to = t;
    }
  if (from != order) memcpy(order, from, (size_t)n * sizeof *order);
  for (int64_t k = 0; k < n;) { /* the ties: thread and start equal */
    int64_t e = k + 1;
    while (e < n && key[order[e]] == key[order[k]]) e++;
    if (e - k > 1) qsort_r(order + k, (size_t)(e - k), sizeof *order, sp_col_cmp, s);
    k = e;
  }
  free(key);
  free(spare);
  return 0;
}

/* call_id: the call's place in the sweep order; parent_id: the id of the
 * innermost call of its thread still open (ending at or after its end). */
static int sp_col_ids(const sp_local_t *l, sp_col_local_t *c) {
  const int64_t n = c->nevents;
  if (n == 0) return 0;
  int64_t *order = malloc((size_t)n * sizeof *order);
  uint32_t *pair = malloc((size_t)n * sizeof *pair);
  int64_t *stack = malloc((size_t)n * sizeof *stack);
  c->call_id = malloc((size_t)n * sizeof *c->call_id);
  c->parent_id = malloc((size_t)n * sizeof *c->parent_id);
  int rc = order && pair && stack && c->call_id && c->parent_id ? 0 : SP_ENOMEM;
  for (int64_t p = 0; rc == 0 && p < c->npairs; p++)
    for (uint64_t i = c->first[p]; i < c->first[p] + c->count[p]; i++) pair[i] = (uint32_t)p;
  if (rc == 0) {
    sp_col_sort_t s = {c, pair, l->plan.regions};
    if (sp_col_order(c, &s, order) != 0) {
      for (int64_t i = 0; i < n; i++) order[i] = i;
      qsort_r(order, (size_t)n, sizeof *order, sp_col_cmp, &s);
    }
    int64_t depth = 0;
    int32_t tid = 0;
    for (int64_t k = 0; k < n; k++) {
      const int64_t e = order[k];
      if (k == 0 || c->tid[e] != tid) depth = 0;
      tid = c->tid[e];
      while (depth && c->end[stack[depth - 1]] < c->end[e]) depth--;
      c->call_id[e] = k;
      c->parent_id[e] = depth ? c->call_id[stack[depth - 1]] : -1;
      stack[depth++] = e;
    }
  }
  free(order);
  free(pair);
  free(stack);
  return rc;
}

/* This rank's blob: its head, its names (each ending in NUL), then its
 * extras (xblob, xlen bytes). */
static int sp_col_pack(const sp_local_t *l, const sp_col_local_t *c, int64_t flag,
                       const char *xblob, int64_t xlen, char **blob, int64_t *len) {
  const sp_rank_plan_t *pl = &l->plan;
  int64_t names = 0;
  for (int32_t i = 0; i < pl->nregions; i++) names += (int64_t)pl->regions[i].len + 1;
  const int64_t n = (int64_t)sizeof(sp_col_head_t) + names + xlen;
  *blob = malloc((size_t)n);
  if (!*blob) return SP_ENOMEM;
  sp_col_head_t h = {.wall_time = pl->wall_time,
                     .events_lost = pl->events_lost,
                     .nthreads = pl->nthreads,
                     .clock_tsc = pl->clock_tsc,
                     .count = {c->npairs, c->nevents, c->any_mpi, flag},
                     .names_len = names,
                     .extras_len = xlen};
  memcpy(h.host, pl->host, sizeof h.host);
  h.host[sizeof h.host - 1] = '\0';
  memcpy(*blob, &h, sizeof h);
  char *at = *blob + sizeof h;
  for (int32_t i = 0; i < pl->nregions; i++) {
    memcpy(at, pl->regions[i].name, pl->regions[i].len);
    at[pl->regions[i].len] = '\0';
    at += pl->regions[i].len + 1;
  }
  if (xlen > 0) memcpy(at, xblob, (size_t)xlen);
  *len = n;
  return 0;
}

/* Rank r's head; SP_EMPI when its blob cannot hold it and its parts (a
 * failed rank sent nothing; a damaged message). */
static int sp_col_head_of(const char *all, const int64_t *at, int r, sp_col_head_t *h) {
  const int64_t n = at[r + 1] - at[r];
  if (n < (int64_t)sizeof *h) return SP_EMPI;
  memcpy(h, all + at[r], sizeof *h);
  if (h->names_len < 0 || h->extras_len < 0 ||
      h->names_len + h->extras_len != n - (int64_t)sizeof *h)
    return SP_EMPI;
  if (h->names_len > 0 && all[at[r] + (int64_t)sizeof *h + h->names_len - 1] != '\0')
    return SP_EMPI;
  return 0;
}

static int sp_str_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether rank r's names are rank r - 1's, byte for byte (as when the
 * ranks run the same code): then they are in the set already. */
static int sp_col_names_repeat(const char *all, const int64_t *at, const sp_col_head_t *h, int r) {
  const int64_t hs = (int64_t)sizeof(sp_col_head_t);
  return r > 0 && h[r].names_len == h[r - 1].names_len &&
         memcmp(all + at[r] + hs, all + at[r - 1] + hs, (size_t)h[r].names_len) == 0;
}

/* Rank 0: the distinct names of all blobs, by a hash set, sorted. *out
 * (n entries) points into all. A rank whose names repeat the previous
 * rank's is passed over: hashing every rank's names was 1.2 ms of rank
 * 0's CPU at 16 ranks x 1,000 regions, on the way of every other rank
 * (docs/performance.md, "the columnar finalize's rounds"). */
static int sp_col_distinct(const char *all, const int64_t *at, const sp_col_head_t *h, int nranks,
                           char ***out, int64_t *n) {
  const int64_t hs = (int64_t)sizeof(sp_col_head_t);
  int64_t total = 0;
  for (int r = 0; r < nranks; r++)
    for (int64_t k = sp_col_names_repeat(all, at, h, r) ? h[r].names_len : 0; k < h[r].names_len;
         k++)
      total += all[at[r] + hs + k] == '\0';
  uint64_t cap = 16;
  while (cap < 2 * (uint64_t)total) cap *= 2;
  const char **set = calloc(cap, sizeof *set);
  *out = malloc((size_t)(total ? total : 1) * sizeof **out);
  if (!set || !*out) {
    free(set);
    return SP_ENOMEM;
  }
  *n = 0;
  for (int r = 0; r < nranks; r++) {
    const int64_t end = at[r] + hs + h[r].names_len;
    for (int64_t k = sp_col_names_repeat(all, at, h, r) ? end : at[r] + hs; k < end;) {
      const char *s = all + k;
      const size_t len = strlen(s);
      uint64_t x = sp__name_hash(s, len) & (cap - 1);
      while (set[x] && strcmp(set[x], s) != 0) x = (x + 1) & (cap - 1);
      if (!set[x]) (*out)[(*n)++] = (char *)(set[x] = s);
      k += (int64_t)len + 1;
    }
  }
  free(set);
  qsort(*out, (size_t)*n, sizeof **out, sp_str_cmp);
  return 0;
}

/* Rank 0: the sums of the counts over the ranks, each rank's place (the
 * pairs and events of the ranks below it), and every rank's extras. */
static int sp_col_sums(const char *all, const int64_t *at, const sp_col_head_t *h, int nranks,
                       sp_col_local_t *c) {
  c->before_all = calloc((size_t)nranks + 1, SP_COL_PLACE * sizeof *c->before_all);
  c->xat = calloc((size_t)nranks + 1, sizeof *c->xat);
  c->xall = malloc((size_t)(at[nranks] > 0 ? at[nranks] : 1));
  if (!c->before_all || !c->xat || !c->xall) return SP_ENOMEM;
  const int64_t hs = (int64_t)sizeof(sp_col_head_t);
  for (int r = 0; r < nranks; r++) {
    for (int k = 0; k < SP_COL_PLACE; k++)
      c->before_all[(size_t)r * SP_COL_PLACE + k] = c->total[k];
    for (int k = 0; k < SP_COL_COUNTS; k++) c->total[k] += h[r].count[k];
    memcpy(c->xall + c->xat[r], all + at[r] + hs + h[r].names_len, (size_t)h[r].extras_len);
    c->xat[r + 1] = c->xat[r] + h[r].extras_len;
  }
  return 0;
}

/* Rank 0: the table every rank receives (a head: rank 0's host and time,
 * lost events summed, most threads; the sorted distinct names), and into
 * c the sums over the ranks, each rank's place and the extras. */
static int sp_col_table_make(const char *all, const int64_t *at, int nranks, char **table,
                             int64_t *len, sp_col_local_t *c) {
  sp_col_head_t head = {0}, *h = calloc((size_t)nranks + 1, sizeof *h);
  int rc = h ? 0 : SP_ENOMEM;
  for (int r = 0; rc == 0 && r < nranks; r++) {
    rc = sp_col_head_of(all, at, r, &h[r]);
    if (rc != 0) break;
    if (r == 0) head = h[r];
    if (r > 0) head.events_lost += h[r].events_lost;
    if (h[r].nthreads > head.nthreads) head.nthreads = h[r].nthreads;
  }
  char **names = NULL;
  int64_t n = 0;
  if (rc == 0) rc = sp_col_distinct(all, at, h, nranks, &names, &n);
  int64_t bytes = (int64_t)sizeof head;
  for (int64_t i = 0; rc == 0 && i < n; i++) bytes += (int64_t)strlen(names[i]) + 1;
  *table = rc == 0 ? malloc((size_t)bytes) : NULL;
  if (rc == 0 && !*table) rc = SP_ENOMEM;
  if (rc == 0) {
    head.names_len = bytes - (int64_t)sizeof head;
    head.extras_len = 0;
    memcpy(*table, &head, sizeof head);
    char *p = *table + sizeof head;
    for (int64_t i = 0; i < n; i++) {
      size_t l = strlen(names[i]) + 1;
      memcpy(p, names[i], l);
      p += l;
    }
    *len = bytes;
  }
  if (rc == 0) rc = sp_col_sums(all, at, h, nranks, c);
  free(names);
  free(h);
  return rc;
}

/* Every rank: the received table into c (names point into it). */
static int sp_col_table_read(sp_col_local_t *c, char *table, int64_t len) {
  c->gathered = table;
  c->table_len = len;
  if (len < (int64_t)sizeof(sp_col_head_t)) return SP_EMPI;
  sp_col_head_t h;
  memcpy(&h, table, sizeof h);
  memcpy(c->host0, h.host, sizeof c->host0);
  c->host0[sizeof c->host0 - 1] = '\0';
  c->wall_time0 = h.wall_time;
  c->clock_tsc0 = h.clock_tsc;
  c->events_lost = h.events_lost;
  c->max_threads = h.nthreads;
  int64_t n = 0;
  for (int64_t k = (int64_t)sizeof h; k < len; k++) n += table[k] == '\0';
  c->names = malloc((size_t)(n ? n : 1) * sizeof *c->names);
  if (!c->names) return SP_ENOMEM;
  c->name_max = 1;
  for (int64_t k = (int64_t)sizeof h; k < len;) {
    size_t l = strlen(table + k) + 1;
    c->names[c->nnames++] = table + k;
    if (l > c->name_max) c->name_max = l;
    k += (int64_t)l;
  }
  return 0;
}

/* Every rank's blob gathered on rank 0, which makes the name table, the
 * sums and places and keeps the extras (into c). Rank 0 holds every
 * rank's names once (not every rank: at 100,000 ranks that would be
 * every rank sorting 2e7 names). */
static int sp_col_gather(sp_par_t *par, const sp_local_t *l, int64_t flag, const char *xblob,
                         int64_t xlen, sp_col_local_t *c) {
  char *blob = NULL, *all = NULL, *table = NULL;
  int64_t len = 0, *at = NULL, tlen = -1;
  /* xlen -1: this rank failed already; it sends nothing. */
  int rc = xlen < 0 ? SP_ENOMEM : sp_col_pack(l, c, flag, xblob, xlen, &blob, &len);
  if (!par->active) {
    int64_t one[2] = {0, len};
    if (rc == 0) rc = sp_col_table_make(blob, one, 1, &table, &tlen, c);
  } else {
    /* Taken part in even after a failure, with an empty blob. */
    int grc = sp__par_gather_root(par, rc == 0 ? blob : "", rc == 0 ? len : 0, &all, &at);
    if (rc == 0) rc = grc;
    if (par->rank == 0 && rc == 0) rc = sp_col_table_make(all, at, par->size, &table, &tlen, c);
  }
  free(blob);
  free(all);
  free(at);
  if (par->rank != 0) return rc;
  if (rc == 0) return sp_col_table_read(c, table, tlen);
  free(table);
  return rc;
}

/* The index arrays of l's regions: their first event and counts. */
static int sp_col_counts(const sp_local_t *l, sp_col_local_t *c) {
  memset(c, 0, sizeof *c);
  const sp_rank_plan_t *pl = &l->plan;
  c->npairs = pl->nregions;
  c->gid = calloc((size_t)c->npairs + 1, sizeof *c->gid);
  c->first = calloc((size_t)c->npairs + 1, sizeof *c->first);
  c->count = calloc((size_t)c->npairs + 1, sizeof *c->count);
  c->ncalls = calloc((size_t)c->npairs + 1, sizeof *c->ncalls);
  int rc = c->gid && c->first && c->count && c->ncalls ? 0 : SP_ENOMEM;
  for (int64_t p = 0; rc == 0 && p < c->npairs; p++) {
    c->first[p] = (uint64_t)c->nevents;
    c->count[p] = (uint64_t)pl->regions[p].nevents;
    c->ncalls[p] = pl->regions[p].ncalls;
    c->nevents += pl->regions[p].nevents;
  }
  /* As sp_col_events finds it, known before the events are in: the rank's
   * place and the file's columns do not wait for them. */
  for (int64_t p = 0; rc == 0 && c->nevents > 0 && p < c->npairs; p++)
    c->any_mpi |= pl->regions[p].mpi_extra;
  return rc;
}

/* With the name table in c: the regions' ids. */
static int sp_col_gids(const sp_local_t *l, sp_col_local_t *c) {
  const sp_rank_plan_t *pl = &l->plan;
  int rc = 0;
  for (int64_t p = 0; rc == 0 && p < c->npairs; p++) {
    const char *name = pl->regions[p].name;
    char **hit = bsearch(&name, c->names, (size_t)c->nnames, sizeof *c->names, sp_str_cmp);
    if (!hit) rc = SP_EMPI; /* its own name is in the table unless a message was damaged */
    if (hit) c->gid[p] = (uint32_t)(hit - c->names);
  }
  return rc;
}

int sp__col_local_begin(sp_par_t *par, const sp_local_t *l, int64_t flag, const char *xblob,
                        int64_t xlen, sp_col_local_t *c) {
  int rc = sp_col_counts(l, c);
  /* Collective: taken part in whatever rc is. */
  int grc = sp_col_gather(par, l, flag, xblob, xlen, c);
  if (rc == 0) rc = grc;
  if (rc == 0 && par->rank == 0) rc = sp_col_gids(l, c);
  return rc;
}

int sp__col_table_take(const sp_local_t *l, char *table, int64_t len, sp_col_local_t *c) {
  int rc = sp_col_table_read(c, table, len);
  return rc == 0 ? sp_col_gids(l, c) : rc;
}

int sp__col_local_finish(const sp_local_t *l, sp_col_local_t *c) {
  int rc = sp_col_events(l, c);
  if (rc == 0) rc = sp_col_ids(l, c);
  return rc;
}

int sp__col_table_serial(const sp_local_t *ls, int n, sp_col_local_t *t) {
  memset(t, 0, sizeof *t);
  int64_t *at = calloc((size_t)n + 1, sizeof *at);
  char **blob = calloc((size_t)n + 1, sizeof *blob), *all = NULL, *table = NULL;
  int rc = at && blob ? 0 : SP_ENOMEM;
  for (int r = 0; rc == 0 && r < n; r++) {
    int64_t len = 0;
    const sp_col_local_t no_counts = {0}; /* the caller sums them */
    rc = sp_col_pack(&ls[r], &no_counts, 0, NULL, 0, &blob[r], &len);
    at[r + 1] = at[r] + len;
  }
  all = rc == 0 ? malloc((size_t)at[n] + 1) : NULL;
  if (rc == 0 && !all) rc = SP_ENOMEM;
  for (int r = 0; rc == 0 && r < n; r++) memcpy(all + at[r], blob[r], (size_t)(at[r + 1] - at[r]));
  int64_t tlen = 0;
  if (rc == 0) rc = sp_col_table_make(all, at, n, &table, &tlen, t);
  if (rc == 0) {
    rc = sp_col_table_read(t, table, tlen);
  } else {
    free(table);
  }
  for (int r = 0; blob && r < n; r++) free(blob[r]);
  free(blob);
  free(all);
  free(at);
  return rc;
}

int sp__col_local_build_serial(const sp_local_t *l, const sp_col_local_t *t, int mpi_columns,
                               sp_col_local_t *c) {
  int rc = sp_col_counts(l, c);
  c->names = t->names;
  c->nnames = t->nnames;
  c->name_max = t->name_max;
  c->borrowed = 1;
  if (rc == 0) rc = sp_col_gids(l, c);
  if (rc == 0) rc = sp__col_local_finish(l, c);
  if (rc == 0 && mpi_columns) sp__col_local_mpi_fill(l, c);
  return rc;
}

void sp__col_local_free(sp_col_local_t *c) {
  free(c->gid);
  free(c->first);
  free(c->count);
  free(c->ncalls);
  free(c->call_id);
  free(c->parent_id);
  if (c->map) munmap(c->map, c->map_len);
  if (!c->borrowed) free(c->names);
  if (!c->borrowed) free(c->gathered);
  free(c->before_all);
  free(c->xall);
  free(c->xat);
  memset(c, 0, sizeof *c);
}
