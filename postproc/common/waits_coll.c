/* waits_coll.c - pairs collective calls: MPI requires every member of a
 * communicator to call its collectives in the same order, so the i-th
 * collective call on a communicator of each member is one instance. A
 * communicator whose members' sequences differ in length or in the
 * calls' names (a member's call not recorded), or with a member not in
 * the file, is not paired: nothing is guessed. Wait states per instance
 * (Scalasca's): N x N and Barrier, each rank from its entry to the last
 * member's entry; Late Broadcast (1-to-n), a non-root from its entry to
 * the root's; Early Reduce (n-to-1), the root from its entry to the last
 * other member's. Each capped at the call's own duration. */
#include <stdlib.h>
#include <string.h>

#include "waits.h"

typedef struct sp_cref {
  int32_t comm, k, call;
  int64_t start;
} sp_cref_t;

static int sp_cref_cmp(const void *a, const void *b) {
  const sp_cref_t *x = a, *y = b;
  if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
  if (x->k != y->k) return x->k < y->k ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return (x->call > y->call) - (x->call < y->call);
}

static int sp_is_coll(int op) {
  return op == SP_OP_BARRIER || op == SP_OP_NXN || op == SP_OP_1N || op == SP_OP_N1 ||
         op == SP_OP_COLL;
}

static int64_t sp_cap(int64_t late, const sp_wcall_t *c) {
  int64_t d = c->end - c->start;
  return late < d ? late : d;
}

/* One instance: calls[m] of the members' rank indices ks[m], m < size. */
static int sp_coll_instance(sp_waits_t *w, const sp_wcomm_t *cm, sp_wcall_t **calls,
                            const int *ks) {
  int n = cm->size, op = calls[0]->op, last = 0, rc = 0;
  for (int m = 1; m < n; m++)
    if (calls[m]->start > calls[last]->start) last = m;
  if (op == SP_OP_NXN || op == SP_OP_BARRIER) {
    int st = op == SP_OP_NXN ? SP_WAIT_NXN : SP_WAIT_BARRIER;
    for (int m = 0; m < n; m++)
      if (m != last && calls[last]->start > calls[m]->start)
        rc |= sp__waits_mark(w, ks[m], calls[m], st,
                             sp_cap(calls[last]->start - calls[m]->start, calls[m]), ks[last],
                             calls[m]->start);
    return rc;
  }
  if (op != SP_OP_1N && op != SP_OP_N1) return 0;
  int root = calls[0]->peer;
  for (int m = 1; m < n; m++)
    if (calls[m]->peer != root) root = -1;
  if (root < 0 || root >= n) { /* the root not recorded (older files, Fortran) */
    w->unpaired[SP_UNP_UNKNOWN] += n;
    return rc;
  }
  if (op == SP_OP_1N) {
    for (int m = 0; m < n; m++)
      if (m != root && calls[root]->start > calls[m]->start)
        rc |= sp__waits_mark(w, ks[m], calls[m], SP_WAIT_LATE_BCAST,
                             sp_cap(calls[root]->start - calls[m]->start, calls[m]), ks[root],
                             calls[m]->start);
    return rc;
  }
  int lastsender = -1;
  for (int m = 0; m < n; m++)
    if (m != root && (lastsender < 0 || calls[m]->start > calls[lastsender]->start)) lastsender = m;
  if (lastsender >= 0 && calls[lastsender]->start > calls[root]->start)
    rc |= sp__waits_mark(w, ks[root], calls[root], SP_WAIT_EARLY_REDUCE,
                         sp_cap(calls[lastsender]->start - calls[root]->start, calls[root]),
                         ks[lastsender], calls[root]->start);
  return rc;
}

/* The collectives of communicator comm: refs[0..n), by member rank then start. */
static int sp_coll_comm(sp_waits_t *w, const sp_cref_t *refs, int64_t n) {
  const sp_wcomm_t *cm = &w->comms[refs[0].comm];
  int size = cm->size;
  int *ks = malloc((size_t)size * sizeof *ks);
  int64_t *first = malloc((size_t)(size + 1) * sizeof *first);
  sp_wcall_t **calls = malloc((size_t)size * sizeof *calls);
  int64_t *len = malloc((size_t)size * sizeof *len);
  if (!ks || !first || !calls || !len) {
    free(len);
    free(ks);
    free(first);
    free(calls);
    return SP_READER_ENOMEM;
  }
  int ok = 1;
  int64_t total = 0;
  for (int m = 0; m < size; m++) {
    ks[m] = sp_reader_rank_index(w->reader, cm->members[m]);
    int64_t lo = 0, hi = n; /* refs are by rank index: the member's block */
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (refs[mid].k < ks[m])
        lo = mid + 1;
      else
        hi = mid;
    }
    int64_t end = lo;
    while (end < n && refs[end].k == ks[m]) end++;
    first[m] = lo;
    len[m] = end - lo;
    total += len[m];
    if (ks[m] < 0) ok = -1;
  }
  int64_t count = len[0];
  for (int m = 1; m < size && ok > 0; m++)
    if (len[m] != count) ok = 0;
  if (total != n && ok > 0) ok = 0; /* calls of a rank its members do not list */
  for (int64_t i = 0; i < count && ok > 0; i++)
    for (int m = 1; m < size && ok > 0; m++)
      if (w->ranks[ks[m]].calls[refs[first[m] + i].call].region !=
          w->ranks[ks[0]].calls[refs[first[0] + i].call].region)
        ok = 0;
  if (ok <= 0) w->unpaired[ok < 0 ? SP_UNP_NOT_PROFILED : SP_UNP_NO_PARTNER] += n;
  for (int64_t i = 0; i < count && ok > 0; i++) {
    for (int m = 0; m < size; m++) calls[m] = &w->ranks[ks[m]].calls[refs[first[m] + i].call];
    w->colls++;
    if (sp_coll_instance(w, cm, calls, ks)) ok = -2;
  }
  free(len);
  free(ks);
  free(first);
  free(calls);
  return ok == -2 ? SP_READER_ENOMEM : 0;
}

int sp__waits_match_coll(sp_waits_t *w) {
  int64_t n = w->ncolls; /* counted at load */
  sp_cref_t *refs = malloc((size_t)(n + 1) * sizeof *refs);
  if (!refs) return SP_READER_ENOMEM;
  int64_t m = 0;
  /* Region by region (one op each): the runs of other calls are skipped whole. */
  for (int k = 0; k < w->nranks; k++) {
    const sp_wrank_t *rk = &w->ranks[k];
    for (int r = 0; r < rk->nruns; r++) {
      if (!sp_is_coll(rk->calls[rk->runs[r]].op)) continue;
      for (int64_t i = rk->runs[r]; i < rk->runs[r + 1]; i++) {
        const sp_wcall_t *c = &rk->calls[i];
        if (c->comm < 0) {
          w->unpaired[SP_UNP_UNKNOWN]++;
          continue;
        }
        refs[m++] = (sp_cref_t){c->comm, k, (int32_t)i, c->start};
      }
    }
  }
  if (m > 1) qsort(refs, (size_t)m, sizeof *refs, sp_cref_cmp);
  int rc = 0;
  for (int64_t a = 0; rc == 0 && a < m;) {
    int64_t b = a;
    while (b < m && refs[b].comm == refs[a].comm) b++;
    rc = sp_coll_comm(w, refs + a, b - a);
    a = b;
  }
  free(refs);
  return rc;
}
