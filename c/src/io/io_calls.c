/* io_calls.c - one recorded I/O call: its region, its values, its file.
 *
 * Regions "io:<name>" are registered on a call's first use in a session
 * (as MPI call regions, mpi_profile.c), so a rank's file lists only the
 * calls it made. A call holds sp__io_own from its start to its end: what
 * the call itself does underneath (stdio's write, HDF5's, a spill of a
 * full buffer by sp_start) is not recorded again. errno is the program's
 * throughout: saved and given back around every piece of our work. The
 * file records take the hot path's ticks: the call's region's own start
 * and end stamps when it has an event (no clock read of ours; the record's
 * times are its calls' durations), else sp__ticks (the TSC where it is
 * used); converted to ns when the records are packed (io_files.c). */
#include "io_calls.h"
#include "mpi_extra.h"

int sp__io_on;

static const char *const sp_io_names[SP_IO_NCALLS] = {
#define SP__XX(id, name, kind, api) name,
    SP_IO_CALLS(SP__XX)
#undef SP__XX
};
static const signed char sp_io_kinds[SP_IO_NCALLS] = {
#define SP__XX(id, name, kind, api) SP_IO_K_##kind,
    SP_IO_CALLS(SP__XX)
#undef SP__XX
};
static const signed char sp_io_apis[SP_IO_NCALLS] = {
#define SP__XX(id, name, kind, api) api,
    SP_IO_CALLS(SP__XX)
#undef SP__XX
};

static int32_t sp_io_handles[SP_IO_NCALLS]; /* handle + 1; 0: not yet registered */
static unsigned sp_io_handles_session;      /* sp__session + 1 they belong to */
static pthread_mutex_t sp_io_lock = PTHREAD_MUTEX_INITIALIZER;

static __attribute__((noinline)) int sp_io_register(sp_io_call_t call) {
  pthread_mutex_lock(&sp_io_lock);
  if (__atomic_load_n(&sp_io_handles_session, __ATOMIC_ACQUIRE) != sp__session + 1u) {
    for (int i = 0; i < SP_IO_NCALLS; i++) __atomic_store_n(&sp_io_handles[i], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&sp_io_handles_session, sp__session + 1u, __ATOMIC_RELEASE);
  }
  int h = __atomic_load_n(&sp_io_handles[call], __ATOMIC_ACQUIRE) - 1;
  if (h < 0) {
    h = sp_region(sp_io_names[call]);
    if (h >= 0) __atomic_store_n(&sp_io_handles[call], h + 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&sp_io_lock);
  return h < 0 ? -1 : h;
}

static int sp_io_handle(sp_io_call_t call) {
  if (SP_UNLIKELY(sp__mode == SP_MODE_OFF)) return -1;
  if (SP_LIKELY(__atomic_load_n(&sp_io_handles_session, __ATOMIC_ACQUIRE) == sp__session + 1u)) {
    int h = __atomic_load_n(&sp_io_handles[call], __ATOMIC_ACQUIRE) - 1;
    if (SP_LIKELY(h >= 0)) return h;
  }
  return sp_io_register(call);
}

int sp__io_enter(sp_io_rec_t *c, sp_io_call_t call) {
  const int saved = errno;
  sp__io_own++; /* before the region starts: a spill it causes is ours */
  const int h = sp_io_handle(call);
  if (h < 0) {
    sp__io_own--;
    errno = saved;
    return 0;
  }
  c->h = h;
  c->kind = sp_io_kinds[call];
  c->api = sp_io_apis[call];
  c->op = sp_io_names[call];
  c->slot = sp__mpi_begin_ev(h, &c->t0);
  if (c->slot < 0) c->t0 = sp__ticks(); /* no event (profile mode, paused): its own stamp */
  errno = saved;
  return 1;
}

void sp__io_enter_mpi(sp_io_rec_t *c, int kind, const char *op) {
  sp__io_own++;
  *c = (sp_io_rec_t){.h = -1, .slot = -1, .kind = kind, .api = SP_IO_API_MPIIO, .op = op};
}

void sp__io_leave_at(sp_io_rec_t *c, int32_t row, int64_t bytes, int64_t off, int64_t t1) {
  const int saved = errno;
  if (t1 < c->t0) t1 = sp__ticks(); /* no end stamp of its event */
  if (row >= 0) sp__io_file_add(row, c->kind, c->api, c->op, bytes, off, c->t0, t1);
  sp__io_own--;
  errno = saved;
}

void sp__io_leave(sp_io_rec_t *c, int32_t row, int64_t bytes, int64_t off) {
  int64_t t1 = -1;
  sp_stop(c->h);
  if (c->slot >= 0) {
    t1 = sp__mpi_ev_end(c->h, c->slot);
    sp__mpi_note(c->h, bytes, row);
  }
  sp__io_leave_at(c, row, bytes, off, t1);
}

void sp__io_session_start(int on) {
  if (on) sp__io_files_reset();
  __atomic_store_n(&sp__io_on, on, __ATOMIC_RELEASE);
}

void sp__io_session_stop(void) { __atomic_store_n(&sp__io_on, 0, __ATOMIC_RELEASE); }
