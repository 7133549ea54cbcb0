/* mpi_extra.c - per-thread storage of the MPI calls' bytes and peers.
 *
 * Each thread keeps, per MPI call region, the values of its calls in the
 * order they completed. Up to SP_X_CAP of them stay in memory; a full
 * array goes to the spill file (one SP_SPILL_MPI_EXTRA_TC record) and
 * starts again, so memory stays bounded however many calls a run makes.
 * Whenever the thread's events go to the spill file, all its values and
 * completions go too (sp__up.mpi_extra_flush, thread_buffers.c), so a
 * SIGKILL leaves no event without its values. Reached
 * only from the MPI wrappers, never from sp_start/sp_stop of other
 * regions. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_extra.h"

_Static_assert(sizeof(sp_mpi_x_t) == sizeof(sp_event_t), "spill records of 16 bytes");
_Static_assert(sizeof(sp_mpi_done_t) == 56, "completion records of 56 bytes, no padding");

#define SP_X_FIRST 64 /* values in a region's first array */
#define SP_X_CAP 4096 /* values kept in memory before a spill (64 KiB) */

typedef struct sp_xbuf {
  sp_mpi_x_t *x;
  int64_t n, cap;
  int64_t spilled; /* values of this session already in the spill file */
} sp_xbuf_t;

struct sp_mpix {
  unsigned session; /* sp__session + 1 the values belong to */
  int32_t nbufs;    /* entries of bufs, indexed by region handle */
  sp_xbuf_t *bufs;
  sp_mpi_done_t *done; /* completions (sp__mpi_done_add) */
  int64_t ndone, done_cap;
};

/* t's arrays for this session, emptied when they hold an older one's. */
static struct sp_mpix *sp_mpix_of(sp_thread_t *t) {
  struct sp_mpix *m = t->mpix;
  if (!m) {
    m = calloc(1, sizeof *m);
    if (!m) return NULL;
    t->mpix = m;
  }
  if (m->session != sp__session + 1u) {
    for (int32_t h = 0; h < m->nbufs; h++) m->bufs[h].n = m->bufs[h].spilled = 0;
    m->ndone = 0;
    m->session = sp__session + 1u;
  }
  return m;
}

static sp_xbuf_t *sp_xbuf_of(sp_thread_t *t, int32_t h) {
  struct sp_mpix *m = sp_mpix_of(t);
  if (!m) return NULL;
  if (h >= m->nbufs) {
    int32_t ncap = m->nbufs ? m->nbufs : 16;
    while (ncap <= h) ncap *= 2;
    sp_xbuf_t *nb = realloc(m->bufs, (size_t)ncap * sizeof *nb);
    if (!nb) return NULL;
    memset(nb + m->nbufs, 0, (size_t)(ncap - m->nbufs) * sizeof *nb);
    m->bufs = nb;
    m->nbufs = ncap;
  }
  return &m->bufs[h];
}

/* Room for one more value: a larger array, or the spill file. */
static int sp_xbuf_room(sp_thread_t *t, int32_t h, sp_xbuf_t *b) {
  if (b->n < b->cap) return 0;
  if (b->cap >= SP_X_CAP && sp__spill_mpi_extra(h, t->index, b->x, b->n) == 0) {
    b->spilled += b->n;
    b->n = 0;
    return 0;
  }
  /* Spill file unusable: keep them in memory, as far as memory goes. */
  int64_t ncap = b->cap ? b->cap * 2 : SP_X_FIRST;
  sp_mpi_x_t *nx = realloc(b->x, (size_t)ncap * sizeof *nx);
  if (!nx) return SP_ENOMEM;
  b->x = nx;
  b->cap = ncap;
  return 0;
}

int sp__mpi_begin(int h) {
  sp_start(h);
  const sp_thread_t *t = sp__tls;
  if (!t || t->depth <= 0 || sp__skips_open() > 0) return 0; /* left out of the trace */
  const sp_frame_t *f = &t->stack[t->depth - 1];
  return f->region == h && f->slot >= 0;
}

int64_t sp__mpi_begin_ev(int h, int64_t *t0) {
  sp_start(h);
  *t0 = -1;
  const sp_thread_t *t = sp__tls;
  if (!t || t->depth <= 0 || sp__skips_open() > 0) return -1;
  const sp_frame_t *f = &t->stack[t->depth - 1];
  if (f->region != h || f->slot < 0) return -1;
  *t0 = t->bufs[h].ev[f->slot].start;
  return f->slot;
}

int64_t sp__mpi_ev_end(int h, int64_t slot) {
  const sp_thread_t *t = sp__tls;
  if (!t || slot < 0 || h >= t->nbufs || slot >= t->bufs[h].n) return -1;
  return t->bufs[h].ev[slot].end;
}

/* The slow way: a new array, a spilled one, or a lost value. */
static __attribute__((noinline)) void sp_note_slow(int h, sp_mpi_x_t x) {
  sp_thread_t *t = sp__tls;
  sp_xbuf_t *b = t ? sp_xbuf_of(t, h) : NULL;
  if (b && sp_xbuf_room(t, h, b) == 0) {
    b->x[b->n++] = x;
  } else { /* its event stays, its values are written as unknown */
    __atomic_fetch_add(&sp__state.events_lost, 1, __ATOMIC_RELAXED);
  }
}

/* On every recorded MPI call: a store into the thread's array when it has
 * room (no call, errno untouched); else the slow way, errno kept. */
void sp__mpi_note_tc(int h, int64_t bytes, int32_t peer, int32_t tag, int32_t comm) {
  const sp_mpi_x_t x = {sp__mpi_x_pack(bytes, comm), peer, tag};
  const sp_thread_t *t = sp__tls;
  struct sp_mpix *m = t ? t->mpix : NULL;
  if (SP_LIKELY(m && m->session == sp__session + 1u && h < m->nbufs)) {
    sp_xbuf_t *b = &m->bufs[h];
    if (SP_LIKELY(b->n < b->cap)) {
      b->x[b->n++] = x;
      return;
    }
  }
  SP_KEEP_ERRNO(sp_note_slow(h, x));
}

int64_t sp__mpi_x_count(int h) {
  const sp_thread_t *t = sp__tls;
  const struct sp_mpix *m = t ? t->mpix : NULL;
  if (!m || m->session != sp__session + 1u || h < 0 || h >= m->nbufs) return 0;
  return m->bufs[h].spilled + m->bufs[h].n;
}

int32_t sp__mpi_thread(void) {
  const sp_thread_t *t = sp__tls;
  return t ? t->index : -1;
}

static void sp_done_add(const sp_mpi_done_t *d) {
  sp_thread_t *t = sp__tls;
  struct sp_mpix *m = t ? sp_mpix_of(t) : NULL;
  if (!m) return;
  if (m->ndone == m->done_cap) {
    if (m->done_cap >= SP_X_CAP && sp__spill_mpi_done(m->done, m->ndone) == 0) {
      m->ndone = 0;
    } else { /* spill file unusable: kept in memory, as far as memory goes */
      int64_t ncap = m->done_cap ? 2 * m->done_cap : SP_X_FIRST;
      sp_mpi_done_t *nd = realloc(m->done, (size_t)ncap * sizeof *nd);
      if (!nd) return;
      m->done = nd;
      m->done_cap = ncap;
    }
  }
  m->done[m->ndone++] = *d;
}

void sp__mpi_done_add(const sp_mpi_done_t *d) { SP_KEEP_ERRNO(sp_done_add(d)); }

int64_t sp__mpi_done_mem(const sp_thread_t *t, const sp_mpi_done_t **d) {
  const struct sp_mpix *m = t ? t->mpix : NULL;
  if (!m || m->session != sp__session + 1u) return 0;
  *d = m->done;
  return m->ndone;
}

int64_t sp__mpi_extra_mem(const sp_thread_t *t, int32_t h, const sp_mpi_x_t **x) {
  const struct sp_mpix *m = t ? t->mpix : NULL;
  if (!m || m->session != sp__session + 1u || h >= m->nbufs) return 0;
  *x = m->bufs[h].x;
  return m->bufs[h].n;
}

int sp__mpi_extra_any(int32_t h) {
  for (const sp_thread_t *t = sp__state.threads; t; t = t->next) {
    const struct sp_mpix *m = t->mpix;
    if (m && m->session == sp__session + 1u && h < m->nbufs &&
        (m->bufs[h].n > 0 || m->bufs[h].spilled > 0))
      return 1;
  }
  return 0;
}

void sp__mpi_extra_flush(sp_thread_t *t) {
  struct sp_mpix *m = t->mpix;
  if (!m || m->session != sp__session + 1u) return;
  for (int32_t h = 0; h < m->nbufs; h++) {
    sp_xbuf_t *b = &m->bufs[h];
    if (b->n > 0 && sp__spill_mpi_extra(h, t->index, b->x, b->n) == 0) {
      b->spilled += b->n;
      b->n = 0;
    }
  }
  if (m->ndone > 0 && sp__spill_mpi_done(m->done, m->ndone) == 0) m->ndone = 0;
}
