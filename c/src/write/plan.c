/* plan.c - the finalize plan: regions, counts and data sources per rank. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi_extra.h"
#include "plan.h"
#include "region_source.h"
#include "serial.h"

static int64_t sp_spilled_events(const sp_spill_file_t *s, int32_t h, int32_t thread) {
  int64_t n = 0;
  for (int64_t i = 0; i < s->nchunks; i++)
    if (s->chunks[i].region == h && s->chunks[i].thread == thread) n += s->chunks[i].n;
  return n;
}

/* The communicator table of the MPI calls' ids (mpi_extra.h). */
static int sp_comms_copy(sp_rank_plan_t *p) {
  int32_t n;
  int64_t nm;
  if (sp__mpi_comms(&n, &p->comm_sizes, &nm, &p->comm_members) != 0) return SP_ENOMEM;
  p->ncomms = n;
  p->ncomm_members = nm;
  return 0;
}

int sp__local_build(sp_local_t *l, int rank) {
  const sp_state_t *st = &sp__state;
  memset(l, 0, sizeof *l);
  l->spill.fd = -1;
  const char *spill = sp__spill_path();
  if (spill) {
    int rc = sp__spill_index(spill, &l->spill);
    /* Our own file damaged in the middle: refuse, as before recovery learnt
     * to skip damaged records, so the spill file is kept for a merge that
     * names what it cannot read. */
    if (rc == 0 && l->spill.damaged > 0) rc = SP_ESPILL;
    if (rc != 0) {
      sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "cannot read back spill file '%s': %s", spill,
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
  p->trace_truncated_at = __atomic_load_n(&st->trace_truncated_ns, __ATOMIC_RELAXED);
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
      int64_t add = calls >= SP_CALLS_SAT ? INT64_MAX : calls;
      if (p->time_trace && __builtin_add_overflow(ev, add, &add)) add = INT64_MAX;
      if (__builtin_add_overflow(r.ncalls, add, &r.ncalls)) r.ncalls = INT64_MAX; /* saturates */
    }
    if (r.ncalls == 0) continue; /* registered but never completed here */
    const sp_region_entry_t *e = sp__region_get(h);
    r.name = e->name;
    r.len = e->len;
    const char *sf;
    if (sp__source_get(h, &sf, &r.src_line)) r.src_file = (char *)sf; /* the table's */
    if (!p->time_trace) r.nevents = 0;
    r.mpi_extra = r.nevents > 0 && sp__mpi_extra_any(h);
    l->handles[p->nregions] = h;
    p->regions[p->nregions++] = r;
  }
  p->nthreads = (int32_t)__builtin_popcountll(threads_used);
  if (threads_over > p->nthreads) p->nthreads = threads_over;
  /* The communicators the MPI calls' ids name: only when they were recorded. */
  if (p->time_trace && st->cfg.profile_mpi && sp_comms_copy(p) != 0) return SP_ENOMEM;
  return sp__meta_snapshot(&p->meta);
}

void sp__local_free(sp_local_t *l) {
  free(l->plan.comm_sizes);
  free(l->plan.comm_members);
  if (l->spill.fd >= 0 || l->spill.chunks) sp__spill_free(&l->spill);
  free(l->threads);
  free(l->plan.regions); /* names belong to the region table */
  free(l->handles);
  sp__meta_list_free(&l->plan.meta);
  memset(l, 0, sizeof *l);
}

/* ---- packing (serial.h) ------------------------------------------------ */

/* Source locations and run metadata, after the regions. */
static void sp_pack_extra(sp_buf_t *b, const sp_rank_plan_t *p) {
  for (int32_t i = 0; i < p->nregions; i++) {
    const sp_plan_region_t *r = &p->regions[i];
    sp__buf_i64(b, r->src_file != NULL);
    if (!r->src_file) continue;
    sp__buf_i64(b, r->src_line);
    sp__buf_str(b, r->src_file);
  }
  sp__buf_i64(b, p->meta.n);
  for (int32_t i = 0; i < p->meta.n; i++) {
    const sp_meta_entry_t *e = &p->meta.e[i];
    sp__buf_i64(b, e->type);
    sp__buf_str(b, e->key);
    sp__buf_bytes(b, e->val, e->len);
  }
  sp__buf_i64(b, p->trace_truncated_at);
  sp__buf_i64(b, p->ncomms);
  sp__buf_i64(b, p->ncomm_members);
  if (p->ncomms > 0) sp__buf_put(b, p->comm_sizes, (size_t)p->ncomms * sizeof *p->comm_sizes);
  if (p->ncomm_members > 0)
    sp__buf_put(b, p->comm_members, (size_t)p->ncomm_members * sizeof *p->comm_members);
}

/* The communicator table (sp_pack_extra); sizes must add up to the members. */
static int sp_unpack_comms(sp_rd_t *r, sp_rank_plan_t *p) {
  int64_t n = sp__rd_i64(r), nm = sp__rd_i64(r);
  const int64_t left = (int64_t)(r->end - r->p) / 4;
  if (r->failed || n < 0 || n > left || nm < 0 || nm > left) return SP_EMPI;
  if (n == 0) return 0;
  p->comm_sizes = malloc((size_t)n * sizeof *p->comm_sizes);
  p->comm_members = malloc((size_t)(nm > 0 ? nm : 1) * sizeof *p->comm_members);
  if (!p->comm_sizes || !p->comm_members) return SP_ENOMEM;
  sp__rd_get(r, p->comm_sizes, (size_t)n * sizeof *p->comm_sizes);
  if (nm > 0) sp__rd_get(r, p->comm_members, (size_t)nm * sizeof *p->comm_members);
  int64_t sum = 0;
  for (int64_t i = 0; i < n; i++) sum += p->comm_sizes[i] >= 0 ? p->comm_sizes[i] : INT32_MIN;
  if (r->failed || sum != nm) return SP_EMPI;
  p->ncomms = (int32_t)n;
  p->ncomm_members = nm;
  return 0;
}

static int sp_unpack_extra(sp_rd_t *r, sp_rank_plan_t *p) {
  for (int32_t i = 0; i < p->nregions; i++) {
    sp_plan_region_t *pr = &p->regions[i];
    if (!sp__rd_i64(r)) continue;
    pr->src_line = sp__rd_i64(r);
    pr->src_file = sp__rd_bytes(r, NULL);
    if (!pr->src_file) return r->nomem ? SP_ENOMEM : SP_EMPI;
  }
  int64_t n = sp__rd_i64(r);
  if (r->failed || n < 0 || n > SP_META_MAX_KEYS) return SP_EMPI;
  for (int64_t i = 0; i < n; i++) {
    uint32_t type = (uint32_t)sp__rd_i64(r);
    size_t klen = 0, vlen = 0;
    char *key = sp__rd_bytes(r, &klen), *val = key ? sp__rd_bytes(r, &vlen) : NULL;
    int rc = val        ? sp__meta_list_put(&p->meta, key, klen, type, val, vlen)
             : r->nomem ? SP_ENOMEM
                        : SP_EMPI;
    free(key);
    free(val);
    if (rc != 0) return rc;
  }
  p->trace_truncated_at = sp__rd_i64(r);
  if (r->failed) return SP_EMPI;
  return sp_unpack_comms(r, p);
}

int sp__plan_pack(const sp_rank_plan_t *p, char **blob, int64_t *len) {
  sp_buf_t b = {0};
  const int64_t head[] = {p->rank,      p->nthreads,  p->time_trace,  p->nregions,
                          p->clock_tsc, p->recovered, p->events_lost, p->wall_time};
  for (size_t i = 0; i < sizeof head / sizeof head[0]; i++) sp__buf_i64(&b, head[i]);
  sp__buf_put(&b, p->host, sizeof p->host);
  for (int w = 0; w < 2; w++) { /* clock offsets (clock_offset.c) */
    const sp_clock_offset_t *c = &p->clock[w];
    sp__buf_i64(&b, c->offset_ns);
    sp__buf_i64(&b, c->at_ns);
    sp__buf_i64(&b, c->error_ns);
    sp__buf_i64(&b, c->valid);
  }
  for (int32_t i = 0; i < p->nregions; i++) {
    const sp_plan_region_t *r = &p->regions[i];
    sp__buf_i64(&b, r->nevents);
    sp__buf_i64(&b, r->ncalls);
    sp__buf_i64(&b, r->thread_ids);
    sp__buf_i64(&b, r->mpi_extra);
    sp__buf_bytes(&b, r->name, r->len);
  }
  sp_pack_extra(&b, p);
  if (b.failed) {
    free(b.p);
    return SP_ENOMEM;
  }
  *blob = b.p;
  *len = (int64_t)b.n;
  return 0;
}

int sp__plan_unpack(const char *blob, int64_t len, sp_rank_plan_t *p) {
  memset(p, 0, sizeof *p);
  sp_rd_t r = {.p = blob, .end = blob + len};
  p->rank = (int32_t)sp__rd_i64(&r);
  p->nthreads = (int32_t)sp__rd_i64(&r);
  p->time_trace = (int32_t)sp__rd_i64(&r);
  int64_t nregions = sp__rd_i64(&r);
  p->clock_tsc = (int32_t)sp__rd_i64(&r);
  p->recovered = (int32_t)sp__rd_i64(&r);
  p->events_lost = sp__rd_i64(&r);
  p->wall_time = sp__rd_i64(&r);
  sp__rd_get(&r, p->host, sizeof p->host);
  p->host[sizeof p->host - 1] = '\0';
  for (int w = 0; w < 2; w++) {
    sp_clock_offset_t *c = &p->clock[w];
    c->offset_ns = sp__rd_i64(&r);
    c->at_ns = sp__rd_i64(&r);
    c->error_ns = sp__rd_i64(&r);
    c->valid = (int32_t)sp__rd_i64(&r);
  }
  if (r.failed || nregions < 0 || nregions > INT32_MAX) return SP_EMPI;
  p->regions = calloc((size_t)(nregions ? nregions : 1), sizeof *p->regions);
  if (!p->regions) return SP_ENOMEM;
  for (int32_t i = 0; i < (int32_t)nregions; i++) {
    sp_plan_region_t *pr = &p->regions[i];
    pr->nevents = sp__rd_i64(&r);
    pr->ncalls = sp__rd_i64(&r);
    pr->thread_ids = (int32_t)sp__rd_i64(&r);
    pr->mpi_extra = (int32_t)sp__rd_i64(&r);
    size_t n = 0;
    pr->name = sp__rd_bytes(&r, &n);
    if (!pr->name) return r.nomem ? SP_ENOMEM : SP_EMPI;
    pr->len = (uint32_t)n;
    p->nregions = i + 1;
  }
  return sp_unpack_extra(&r, p);
}

void sp__plan_free(sp_rank_plan_t *p) {
  for (int32_t i = 0; i < p->nregions; i++) {
    free(p->regions[i].name);
    free(p->regions[i].src_file);
  }
  free(p->regions);
  sp__meta_list_free(&p->meta);
  free(p->comm_sizes);
  free(p->comm_members);
  memset(p, 0, sizeof *p);
}
