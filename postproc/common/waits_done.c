/* waits_done.c - a rank's completion table (rank<N>/mpi/completions: each
 * request a wait or test completed, with the call that posted it) as
 * indices into its calls[]: the message a nonblocking receive got (source
 * and tag from its status) and the call that waited for it
 * (waits_match.c pairs it; docs/wait-states.md). The table names a call
 * by region, thread and index among that region's calls on the thread. */
#include <stdlib.h>
#include <string.h>

#include "waits.h"

/* A region's run of calls, indexed by (thread, seq) when the run holds
 * calls of threads other than 0: its calls were sorted by start, so the
 * region's intervals are read again (in recorded order, with their
 * thread ids) and each found in the run by its stamps. A run of thread 0
 * alone is in recorded order: call seq is at seq. */
typedef struct sp_dkey {
  int32_t thread, seq;
  int64_t at;
} sp_dkey_t;

typedef struct sp_dfind {
  sp_waits_t *w;
  int k;
  const sp_wrank_t *rk;
  int32_t *run_of;  /* reader region -> run, -1 */
  sp_dkey_t **keys; /* per run with workers, built when first needed */
  int64_t *nkeys;
  int8_t *mixed; /* per run: 1 when it has calls of other threads */
  int nregions;
} sp_dfind_t;

static int sp_dkey_cmp(const void *a, const void *b) {
  const sp_dkey_t *x = a, *y = b;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The position in calls[a .. a + len) (by start ascending, end descending)
 * of the call with these stamps, -1 when none. */
static int64_t sp_dat(const sp_wcall_t *calls, int64_t a, int64_t len, int64_t start, int64_t end) {
  int64_t lo = a, hi = a + len;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    const sp_wcall_t *c = &calls[mid];
    if (c->start < start || (c->start == start && c->end > end))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < a + len && calls[lo].start == start && calls[lo].end == end ? lo : -1;
}

/* Run r's (thread, seq) index from the region's intervals. 0 or an error. */
static int sp_dkeys(sp_dfind_t *f, int r, int32_t g) {
  int64_t a = f->rk->runs[r], len = f->rk->runs[r + 1] - a;
  sp_reader_intervals_t iv;
  int rc = sp_reader_load(f->w->reader, g, f->k, &iv);
  if (rc) return rc;
  int32_t nt = 0, *seq = NULL;
  for (int64_t i = 0; iv.thread_ids && i < iv.n; i++)
    if (iv.thread_ids[i] >= nt && iv.thread_ids[i] < (1 << 20)) nt = iv.thread_ids[i] + 1;
  f->keys[r] = malloc((size_t)(iv.n > 0 ? iv.n : 1) * sizeof **f->keys);
  seq = calloc((size_t)nt + 1, sizeof *seq);
  if (!f->keys[r] || !seq) rc = SP_READER_ENOMEM;
  for (int64_t i = 0; rc == 0 && i < iv.n; i++) {
    int32_t t = iv.thread_ids ? iv.thread_ids[i] : 0;
    int32_t q = t >= 0 && t < nt ? seq[t]++ : (int32_t)i;
    f->keys[r][i] = (sp_dkey_t){t, q, sp_dat(f->rk->calls, a, len, iv.start[i], iv.end[i])};
  }
  if (rc == 0 && iv.n > 1) qsort(f->keys[r], (size_t)iv.n, sizeof **f->keys, sp_dkey_cmp);
  f->nkeys[r] = rc == 0 ? iv.n : 0;
  free(seq);
  sp_reader_intervals_free(&iv);
  return rc;
}

/* calls[] index of region g's call seq on thread; -1 when none, or a
 * negative reader error (< -1). */
static int64_t sp_dfind(sp_dfind_t *f, int32_t g, int32_t thread, int64_t seq) {
  if (g < 0 || g >= f->nregions || seq < 0 || seq > INT32_MAX || f->run_of[g] < 0) return -1;
  int r = f->run_of[g];
  int64_t a = f->rk->runs[r], len = f->rk->runs[r + 1] - a;
  if (!f->mixed[r]) return thread == 0 && seq < len ? a + seq : -1;
  if (!f->keys[r]) {
    int rc = sp_dkeys(f, r, g);
    if (rc) return rc < -1 ? rc : SP_READER_ENOMEM;
  }
  sp_dkey_t want = {thread, (int32_t)seq, 0};
  const sp_dkey_t *hit = bsearch(&want, f->keys[r], (size_t)f->nkeys[r], sizeof want, sp_dkey_cmp);
  return hit ? hit->at : -1;
}

/* The world rank of rank peer of global communicator gc, or -1. */
static int32_t sp_dworld(const sp_waits_t *w, int32_t gc, int32_t peer) {
  if (gc < 0 || peer < 0 || peer >= w->comms[gc].size) return -1;
  return w->comms[gc].members[peer];
}

static int sp_dfill(sp_waits_t *w, sp_wrank_t *rk, sp_dfind_t *f, const sp_reader_mpi_done_t *d) {
  for (int64_t i = 0; i < d->n; i++) {
    int64_t post = sp_dfind(f, d->post_region[i], d->post_thread[i], d->post_call[i]);
    int64_t wait = post < -1 ? post : sp_dfind(f, d->wait_region[i], d->thread[i], d->wait_call[i]);
    if (wait < -1) return (int)wait;
    if (post >= 0 && d->send[i] && rk->calls[post].op == SP_OP_ISEND) continue; /* a send already */
    int32_t c = d->comm[i];
    int32_t gc = rk->gcomm && c >= 0 && c < rk->nlocal ? rk->gcomm[c] : -1;
    sp_wdone_t *e = &rk->done[rk->ndone++];
    *e = (sp_wdone_t){(int32_t)post,
                      (int32_t)wait,
                      sp_dworld(w, gc, d->peer[i]),
                      d->tag[i],
                      gc,
                      (int8_t)(d->send[i] != 0)};
    /* a Sendrecv with completions is paired through them alone (sp_p2p_call) */
    if (post >= 0 && (!e->send || rk->calls[post].op == SP_OP_SENDRECV)) rk->calls[post].done = 1;
  }
  return 0;
}

int sp__waits_done(sp_waits_t *w, int k) {
  sp_reader_mpi_done_t d;
  int rc = sp_reader_mpi_done_ids(w->reader, k, &d);
  if (rc || !d.present) return rc;
  w->has_done = 1;
  w->ndone += d.n;
  sp_wrank_t *rk = &w->ranks[k];
  sp_dfind_t f = {w, k, rk, NULL, NULL, NULL, NULL, sp_reader_num_regions(w->reader)};
  f.run_of = malloc((size_t)(f.nregions + 1) * sizeof *f.run_of);
  f.keys = calloc((size_t)rk->nruns + 1, sizeof *f.keys);
  f.nkeys = calloc((size_t)rk->nruns + 1, sizeof *f.nkeys);
  f.mixed = calloc((size_t)rk->nruns + 1, 1);
  rk->done = malloc((size_t)(d.n > 0 ? d.n : 1) * sizeof *rk->done);
  rc = f.run_of && f.keys && f.nkeys && f.mixed && rk->done ? 0 : SP_READER_ENOMEM;
  for (int g = 0; rc == 0 && g < f.nregions; g++) f.run_of[g] = -1;
  if (rc == 0 && rk->nruns > 0) rk->runs[rk->nruns] = rk->ncalls;
  for (int r = 0; rc == 0 && r < rk->nruns; r++) {
    f.run_of[rk->calls[rk->runs[r]].region] = r;
    f.mixed[r] = (rk->run_flags[r] & SP_RUN_MIXED) != 0;
  }
  if (rc == 0) rc = sp_dfill(w, rk, &f, &d);
  for (int r = 0; f.keys && r < rk->nruns; r++) free(f.keys[r]);
  free(f.keys);
  free(f.nkeys);
  free(f.mixed);
  free(f.run_of);
  sp_reader_mpi_done_free(&d);
  return rc;
}
