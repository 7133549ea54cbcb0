/* plan.c - the finalize plan: regions, counts and data sources per rank. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plan.h"

static int64_t sp_spilled_events(const sp_spill_file_t *s, int32_t h, int32_t thread) {
  int64_t n = 0;
  for (int64_t i = 0; i < s->nchunks; i++)
    if (s->chunks[i].region == h && s->chunks[i].thread == thread) n += s->chunks[i].n;
  return n;
}

int sp__local_build(sp_local_t *l, int rank) {
  const sp_state_t *st = &sp__state;
  memset(l, 0, sizeof *l);
  l->spill.fd = -1;
  if (st->spill_fd >= 0) {
    int rc = sp__spill_index(st->spill_path, &l->spill);
    /* Our own file damaged in the middle: refuse, as before recovery learnt
     * to skip damaged records, so the spill file is kept for a merge that
     * names what it cannot read. */
    if (rc == 0 && l->spill.damaged > 0) rc = SP_ESPILL;
    if (rc != 0) {
      sp__log(0, SP_LOG_ALWAYS, "cannot read back spill file '%s': %s", st->spill_path,
              sp_strerror(rc));
      sp__spill_free(&l->spill);
      return rc;
    }
  }
  l->nthreads = st->nthreads;
  l->calib = &st->calib;
  l->threads = calloc((size_t)(l->nthreads ? l->nthreads : 1), sizeof *l->threads);
  int32_t nreg = sp__region_count();
  l->plan.regions = calloc((size_t)(nreg ? nreg : 1), sizeof *l->plan.regions);
  l->handles = calloc((size_t)(nreg ? nreg : 1), sizeof *l->handles);
  if (!l->threads || !l->plan.regions || !l->handles) return SP_ENOMEM;
  for (sp_thread_t *t = st->threads; t; t = t->next) l->threads[t->index] = t;

  sp_rank_plan_t *p = &l->plan;
  p->rank = rank;
  p->time_trace = st->cfg.time_trace;
  p->clock_tsc = st->clock_tsc;
  p->events_lost = st->events_lost;
  p->wall_time = (int64_t)time(NULL);
  gethostname(p->host, sizeof p->host - 1);
  pthread_mutex_lock(&sp__state.lock);
  memcpy(p->clock, st->clock_off, sizeof p->clock);
  pthread_mutex_unlock(&sp__state.lock);
  uint64_t threads_used = 0; /* bitmask of the first 64 threads, for counting */
  int32_t threads_over = 0;
  for (int32_t h = 0; h < nreg; h++) {
    sp_plan_region_t r = {0};
    for (int32_t ti = 0; ti < l->nthreads; ti++) {
      const sp_thread_t *t = l->threads[ti];
      int64_t ev = sp_spilled_events(&l->spill, h, ti);
      int64_t calls = 0;
      if (t && h < t->nbufs) {
        ev += t->bufs[h].n;
        calls = t->bufs[h].calls;
      }
      if (ev > 0 && ti != 0) r.thread_ids = 1;
      if (ev > 0 || calls > 0) {
        if (ti < 64) {
          threads_used |= 1ull << ti;
        } else if (ti + 1 > threads_over) {
          threads_over = ti + 1;
        }
      }
      r.nevents += ev;
      /* In trace mode calls holds calls counted without stamps
       * (sp_region_add_calls); in count-only mode all of them. */
      r.ncalls += p->time_trace ? ev + calls : calls;
    }
    if (r.ncalls == 0) continue; /* registered but never completed here */
    const sp_region_entry_t *e = sp__region_get(h);
    r.name = e->name;
    r.len = e->len;
    if (!p->time_trace) r.nevents = 0;
    l->handles[p->nregions] = h;
    p->regions[p->nregions++] = r;
  }
  p->nthreads = (int32_t)__builtin_popcountll(threads_used);
  if (threads_over > p->nthreads) p->nthreads = threads_over;
  return 0;
}

void sp__local_free(sp_local_t *l) {
  if (l->spill.fd >= 0 || l->spill.chunks) sp__spill_free(&l->spill);
  free(l->threads);
  free(l->plan.regions); /* names belong to the region table */
  free(l->handles);
  memset(l, 0, sizeof *l);
}

/* ---- packing --------------------------------------------------------- */

typedef struct sp_packed_head {
  int32_t rank, nthreads, time_trace, nregions, clock_tsc, recovered;
  int64_t events_lost, wall_time;
  char host[64];
  sp_clock_offset_t clock[2];
} sp_packed_head_t;

typedef struct sp_packed_region {
  int64_t nevents, ncalls;
  int32_t thread_ids;
  uint32_t len; /* name bytes follow, then padding to 8 */
} sp_packed_region_t;

static size_t sp_pad8(size_t n) { return (n + 7) & ~(size_t)7; }

int sp__plan_pack(const sp_rank_plan_t *p, char **blob, int64_t *len) {
  size_t total = sizeof(sp_packed_head_t);
  for (int32_t i = 0; i < p->nregions; i++)
    total += sizeof(sp_packed_region_t) + sp_pad8(p->regions[i].len);
  char *b = calloc(1, total);
  if (!b) return SP_ENOMEM;
  sp_packed_head_t h = {p->rank,      p->nthreads,   p->time_trace, p->nregions,
                        p->clock_tsc, p->recovered, p->events_lost, p->wall_time, {0}, {{0}}};
  memcpy(h.host, p->host, sizeof h.host);
  memcpy(h.clock, p->clock, sizeof h.clock);
  memcpy(b, &h, sizeof h);
  size_t off = sizeof h;
  for (int32_t i = 0; i < p->nregions; i++) {
    const sp_plan_region_t *r = &p->regions[i];
    sp_packed_region_t pr = {r->nevents, r->ncalls, r->thread_ids, r->len};
    memcpy(b + off, &pr, sizeof pr);
    memcpy(b + off + sizeof pr, r->name, r->len);
    off += sizeof pr + sp_pad8(r->len);
  }
  *blob = b;
  *len = (int64_t)total;
  return 0;
}

int sp__plan_unpack(const char *blob, int64_t len, sp_rank_plan_t *p) {
  memset(p, 0, sizeof *p);
  sp_packed_head_t h;
  if (len < (int64_t)sizeof h) return SP_EMPI;
  memcpy(&h, blob, sizeof h);
  p->rank = h.rank;
  p->nthreads = h.nthreads;
  p->time_trace = h.time_trace;
  p->clock_tsc = h.clock_tsc;
  p->recovered = h.recovered;
  p->events_lost = h.events_lost;
  p->wall_time = h.wall_time;
  memcpy(p->host, h.host, sizeof p->host);
  p->host[sizeof p->host - 1] = '\0';
  memcpy(p->clock, h.clock, sizeof p->clock);
  if (h.nregions < 0) return SP_EMPI;
  p->regions = calloc((size_t)(h.nregions ? h.nregions : 1), sizeof *p->regions);
  if (!p->regions) return SP_ENOMEM;
  size_t off = sizeof h;
  for (int32_t i = 0; i < h.nregions; i++) {
    sp_packed_region_t pr;
    if (off + sizeof pr > (size_t)len) return SP_EMPI;
    memcpy(&pr, blob + off, sizeof pr);
    if (off + sizeof pr + pr.len > (size_t)len) return SP_EMPI;
    sp_plan_region_t *r = &p->regions[i];
    r->name = malloc((size_t)pr.len + 1);
    if (!r->name) return SP_ENOMEM;
    memcpy(r->name, blob + off + sizeof pr, pr.len);
    r->name[pr.len] = '\0';
    r->len = pr.len;
    r->nevents = pr.nevents;
    r->ncalls = pr.ncalls;
    r->thread_ids = pr.thread_ids;
    p->nregions = i + 1;
    off += sizeof pr + sp_pad8(pr.len);
  }
  return 0;
}

void sp__plan_free(sp_rank_plan_t *p) {
  for (int32_t i = 0; i < p->nregions; i++) free(p->regions[i].name);
  free(p->regions);
  memset(p, 0, sizeof *p);
}
