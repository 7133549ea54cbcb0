/* io_files.c - the files a run read and wrote (SCOPE_PROFILER_PROFILE_IO),
 * walked for --io (cli/listing.c) and the report: each selected rank's
 * records as read (one rank in memory at a time), then each file summed
 * over the selected ranks (one sum per distinct path, by name), with its
 * slowest rank: the largest read + write + metadata time on the file. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdlib.h>
#include <string.h>

#include "pproc.h"

typedef struct sp_io_sum {
  char *name;
  int64_t v[SP_READER_IO_NCOLS];
  int ranks;
  int slow_rank;
  int64_t slow_ns; /* -1 before the first rank */
} sp_io_sum_t;

typedef struct sp_io_sums {
  sp_io_sum_t *v;
  int n, cap;
  int *slot; /* open addressing over v, size hcap (a power of two), -1 empty */
  int hcap;
} sp_io_sums_t;

static uint64_t sp_io_hash(const char *s) {
  uint64_t h = 1469598103934665603ULL; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

static int sp_io_rehash(sp_io_sums_t *t, int hcap) {
  int *slot = malloc((size_t)hcap * sizeof *slot);
  if (!slot) return -1;
  for (int i = 0; i < hcap; i++) slot[i] = -1;
  for (int i = 0; i < t->n; i++) {
    uint64_t h = sp_io_hash(t->v[i].name) & (uint64_t)(hcap - 1);
    while (slot[h] >= 0) h = (h + 1) & (uint64_t)(hcap - 1);
    slot[h] = i;
  }
  free(t->slot);
  t->slot = slot;
  t->hcap = hcap;
  return 0;
}

/* The sum of the file named name, made when new; NULL without memory. */
static sp_io_sum_t *sp_io_sum_of(sp_io_sums_t *t, const char *name) {
  if (2 * (t->n + 1) > t->hcap && sp_io_rehash(t, t->hcap ? 2 * t->hcap : 64) != 0) return NULL;
  uint64_t h = sp_io_hash(name) & (uint64_t)(t->hcap - 1);
  for (; t->slot[h] >= 0; h = (h + 1) & (uint64_t)(t->hcap - 1))
    if (strcmp(t->v[t->slot[h]].name, name) == 0) return &t->v[t->slot[h]];
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 64;
    sp_io_sum_t *v = realloc(t->v, (size_t)cap * sizeof *v);
    if (!v) return NULL;
    t->v = v;
    t->cap = cap;
  }
  sp_io_sum_t *s = &t->v[t->n];
  memset(s, 0, sizeof *s);
  s->name = strdup(name);
  if (!s->name) return NULL;
  s->slow_ns = -1;
  t->slot[h] = t->n++;
  return s;
}

/* The walk: the visitor and the sums. */
typedef struct sp_io_run {
  const sp_io_visit_t *visit;
  void *ctx;
  int begun;
  sp_io_sums_t sums;
} sp_io_run_t;

/* The rows of rank index j's files, added into the sums. */
static int sp_io_rank(const sp_selection_t *sel, int j, sp_io_run_t *run) {
  sp_reader_io_files_t f;
  int rc = sp_reader_io_files_load(sel->reader, sel->ranks[j], &f);
  if (rc != 0) {
    sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
    return sp_exit_for_reader(rc);
  }
  int id = sp_reader_rank_id(sel->reader, sel->ranks[j]);
  if (f.present && !run->begun) {
    if (run->visit->begin) run->visit->begin(run->ctx);
    run->begun = 1;
  }
  for (int64_t i = 0; rc == 0 && i < f.n; i++) {
    int64_t v[SP_READER_IO_NCOLS];
    for (int c = 0; c < SP_READER_IO_NCOLS; c++) v[c] = f.v[c][i];
    if (run->visit->rank_row) run->visit->rank_row(run->ctx, id, v, f.names[i]);
    sp_io_sum_t *s = sp_io_sum_of(&run->sums, f.names[i]);
    if (!s) {
      rc = SP_EXIT_IO;
      break;
    }
    int64_t sat = 0;
    for (int c = 0; c < SP_READER_IO_NCOLS; c++) s->v[c] = sp_add_sat(s->v[c], v[c], &sat);
    int64_t t = sp_add_sat(sp_add_sat(v[SP_READER_IO_READ_NS], v[SP_READER_IO_WRITE_NS], &sat),
                           v[SP_READER_IO_META_NS], &sat);
    if (t > s->slow_ns) s->slow_ns = t, s->slow_rank = id;
    s->ranks++;
  }
  sp_reader_io_files_free(&f);
  return rc;
}

static int sp_io_name_cmp(const void *a, const void *b) {
  return strcmp(((const sp_io_sum_t *)a)->name, ((const sp_io_sum_t *)b)->name);
}

int sp_io_files_walk(const sp_selection_t *sel, const sp_io_visit_t *visit, void *ctx, int *found) {
  sp_io_run_t run;
  memset(&run, 0, sizeof run);
  run.visit = visit;
  run.ctx = ctx;
  int rc = 0;
  for (int j = 0; rc == 0 && j < sel->nranks; j++) rc = sp_io_rank(sel, j, &run);
  sp_io_sums_t *t = &run.sums;
  if (rc == 0 && run.begun) {
    if (t->n > 1) qsort(t->v, (size_t)t->n, sizeof *t->v, sp_io_name_cmp);
    for (int i = 0; visit->file_row && i < t->n; i++)
      visit->file_row(ctx, t->v[i].v, t->v[i].name, t->v[i].slow_rank, t->v[i].slow_ns,
                      t->v[i].ranks);
  }
  for (int i = 0; i < t->n; i++) free(t->v[i].name);
  free(t->v);
  free(t->slot);
  *found = run.begun;
  return rc;
}
