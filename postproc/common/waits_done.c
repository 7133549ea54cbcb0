/* waits_done.c - a rank's completion table (rank<N>/mpi/completions: each
 * request a wait or test completed, with the call that posted it) as
 * indices into its calls[]: the message a nonblocking receive got (source
 * and tag from its status) and the call that waited for it
 * (waits_match.c pairs it; docs/wait-states.md). The table names a call
 * by region, thread and index among that region's calls on the thread. */
#include <stdlib.h>
#include <string.h>

#include "waits.h"

/* A region's run of calls, indexed by (thread, seq) when they are not
 * simply in seq order on thread 0 (calls of several threads). */
typedef struct sp_dkey {
  int32_t thread, seq;
  int64_t at;
} sp_dkey_t;

typedef struct sp_dfind {
  const sp_wrank_t *rk;
  int32_t *run_of;  /* reader region -> run, -1 */
  sp_dkey_t **keys; /* per run, built when first needed */
  int nregions;
} sp_dfind_t;

static int sp_dkey_cmp(const void *a, const void *b) {
  const sp_dkey_t *x = a, *y = b;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

/* calls[] index of region g's call seq on thread, -1 when none; -2 out of memory. */
static int64_t sp_dfind(sp_dfind_t *f, int32_t g, int32_t thread, int64_t seq) {
  if (g < 0 || g >= f->nregions || seq < 0 || seq > INT32_MAX || f->run_of[g] < 0) return -1;
  int r = f->run_of[g];
  int64_t a = f->rk->runs[r], len = f->rk->runs[r + 1] - a;
  if (seq < len) {
    const sp_wcall_t *c = &f->rk->calls[a + seq];
    if (c->thread == thread && c->seq == seq) return a + seq; /* one thread: in order */
  }
  if (!f->keys[r]) {
    f->keys[r] = malloc((size_t)(len > 0 ? len : 1) * sizeof **f->keys);
    if (!f->keys[r]) return -2;
    for (int64_t i = 0; i < len; i++)
      f->keys[r][i] = (sp_dkey_t){f->rk->calls[a + i].thread, f->rk->calls[a + i].seq, a + i};
    if (len > 1) qsort(f->keys[r], (size_t)len, sizeof **f->keys, sp_dkey_cmp);
  }
  sp_dkey_t want = {thread, (int32_t)seq, 0};
  const sp_dkey_t *hit = bsearch(&want, f->keys[r], (size_t)len, sizeof want, sp_dkey_cmp);
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
    int64_t wait = sp_dfind(f, d->wait_region[i], d->thread[i], d->wait_call[i]);
    if (post == -2 || wait == -2) return SP_READER_ENOMEM;
    int32_t c = d->comm[i];
    int32_t gc = rk->gcomm && c >= 0 && c < rk->nlocal ? rk->gcomm[c] : -1;
    sp_wdone_t *e = &rk->done[rk->ndone++];
    *e = (sp_wdone_t){(int32_t)post,
                      (int32_t)wait,
                      sp_dworld(w, gc, d->peer[i]),
                      d->tag[i],
                      gc,
                      (int8_t)(d->send[i] != 0)};
    if (post >= 0 && !e->send) rk->calls[post].done = 1;
  }
  return 0;
}

int sp__waits_done(sp_waits_t *w, int k) {
  sp_reader_mpi_done_t d;
  int rc = sp_reader_mpi_done(w->reader, k, &d);
  if (rc || !d.present) return rc;
  w->has_done = 1;
  w->ndone += d.n;
  sp_wrank_t *rk = &w->ranks[k];
  sp_dfind_t f = {rk, NULL, NULL, sp_reader_num_regions(w->reader)};
  f.run_of = malloc((size_t)(f.nregions + 1) * sizeof *f.run_of);
  f.keys = calloc((size_t)rk->nruns + 1, sizeof *f.keys);
  rk->done = malloc((size_t)(d.n > 0 ? d.n : 1) * sizeof *rk->done);
  rc = f.run_of && f.keys && rk->done ? 0 : SP_READER_ENOMEM;
  for (int g = 0; rc == 0 && g < f.nregions; g++) f.run_of[g] = -1;
  if (rc == 0 && rk->nruns > 0) rk->runs[rk->nruns] = rk->ncalls;
  for (int r = 0; rc == 0 && r < rk->nruns; r++) f.run_of[rk->calls[rk->runs[r]].region] = r;
  if (rc == 0) rc = sp_dfill(w, rk, &f, &d);
  for (int r = 0; f.keys && r < rk->nruns; r++) free(f.keys[r]);
  free(f.keys);
  free(f.run_of);
  sp_reader_mpi_done_free(&d);
  return rc;
}
