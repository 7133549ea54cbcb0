/* session.c - sp_setup and sp_finalize: the lifecycle of a session. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "aggregate.h"
#include "host_guard.h"
#include "mpi_extra.h"
#include "io_calls.h"
#include "par.h"
#include "openmp.h"
#include "out_temp.h"
#include "run_meta.h"
#include "sampler.h"
#include "sp_internal.h"

int sp_is_active(void) { return sp__mode != SP_MODE_OFF; }

int sp__profile_only(void) {
  return sp__mode != SP_MODE_OFF && sp__state.cfg.aggregate && !sp__state.cfg.time_trace;
}

/* Release: a thread that reads the mode on (hot_path.c, acquire) sees the
 * session set up before it. */
static void sp_mode_set(int mode) {
  __atomic_store_n(&sp__mode, mode, __ATOMIC_RELEASE);
  __atomic_store_n(&sp__enabled, mode != SP_MODE_OFF, __ATOMIC_RELEASE);
}

/* Forgets the running session's regions and events without writing them. */
static void sp_session_discard(void) {
  sp_mode_set(SP_MODE_OFF);
  sp__io_session_stop();
  sp__writer_stop();
  sp__stock_stop();
  sp__sampler_stop();
  sp__sampler_forget();
  sp__threads_discard();
  sp__event_arrays_release();
  sp__spill_close(1);
  sp__region_table_reset();
  sp__calib_reset(&sp__state.calib);
  __atomic_store_n(&sp__state.session, 0, __ATOMIC_RELAXED);
}

/* Refuses a setup from a finalize hook or while other threads are inside a
 * profiler call; else discards the running session, if any. */
static int sp_setup_replace(sp_state_t *st) {
  if (st->finalizing) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "sp_setup called while sp_finalize runs (from a finalize hook?): refused "
            "(SP_EBUSY), the profile is written first");
    return SP_EBUSY;
  }
  if (st->session) {
    const int mode = sp__mode;
    sp_mode_set(SP_MODE_OFF); /* other threads' calls from now on touch nothing */
    int busy = sp__threads_quiesce(sp__tls);
    if (busy > 0) {
      /* SP_MODE_TRACE_SKIP only through the gate (trace_window.c) */
      sp_mode_set(mode == SP_MODE_TRACE_SKIP ? SP_MODE_TRACE : mode);
      sp__trace_mode_sync();
      sp__log(SP_LOG_ERROR, SP_LOG_ONCE_BUSY,
              "sp_setup called again while %d other thread(s) are inside a profiler call "
              "(or, without membarrier(), have recorded in the running session): refused "
              "(SP_EBUSY), the session goes on; call sp_finalize first",
              busy);
      return SP_EBUSY;
    }
    sp__log(SP_LOG_INFO, SP_LOG_ALWAYS,
            "sp_setup called again: the previous session's regions are discarded");
    sp_session_discard();
    sp__threads_end_discard();
  }
  return 0;
}

/* The per-session counters and notes, cleared before the settings are read. */
static void sp_setup_reset(sp_state_t *st) {
  sp__std_fds_hold(); /* before any descriptor of the session opens */
  sp__meta_session_reset();
  sp__log_reset_once();
  memset(st->misuse, 0, sizeof st->misuse);
  sp__spill_session_begin();
  st->events_lost = 0;
  sp__par_session_begin();
  st->exit_flushed = 0;
  memset(st->clock_off, 0, sizeof st->clock_off);
  /* A new run id for every session. */
  uint64_t id;
  while ((id = sp__random64()) == 0) {}
  st->run_id = id;
}

/* The clock and its calibration, with the thread buffers' arrays stocked
 * meanwhile. */
static void sp_setup_clock(sp_state_t *st) {
  sp__event_arrays_configure(st->cfg.flush_to_disk ? st->cfg.buffer_limit : 0);
  /* Arrays faulted in ahead (array_stock.c), started before the 2 ms of
   * the calibration below so that most of it is done during them. */
  const int stocked = st->cfg.profiling_activated && st->cfg.time_trace;
  if (stocked)
    sp__stock_start(st->cfg.flush_to_disk && st->cfg.buffer_limit < SP_FIRST_CAP
                        ? st->cfg.buffer_limit
                        : SP_FIRST_CAP,
                    st->cfg.flush_to_disk ? st->cfg.buffer_limit : 0);
  /* Profile mode with the trace reads CLOCK_MONOTONIC: both then hold the
   * same ns from the same stamps (docs/profile-mode.md, "Clock"). */
  const int agg_and_trace = st->cfg.aggregate && st->cfg.time_trace;
  st->clock_tsc = agg_and_trace ? 0 : sp__clock_detect_tsc(st->set.clock);
  sp__trace_window_setup(st);
  sp__calib_reset(&st->calib);
  sp__calib_add_now(&st->calib, st->clock_tsc, NULL);
  if (st->clock_tsc) {
    /* A second point 2 ms later gives every conversion, even recovery of a
     * run that died at once, a rate measured over a long enough base:
     * points microseconds apart would turn read jitter into a wrong slope. */
    struct timespec two_ms = {0, 2000000};
    nanosleep(&two_ms, NULL);
    sp__calib_add_now(&st->calib, 1, NULL);
  }
  if (stocked) sp__stock_wait_filled();
  st->last_calib_ns = sp__monotonic_ns();
  sp__agg_rate_setup(); /* profile mode's histogram buckets in ns (aggregate.c) */
}

/* The fork, MPI, exit and signal hooks of the new session. */
static void sp_setup_hooks(sp_state_t *st) {
  __atomic_store_n(&st->session, 1, __ATOMIC_RELAXED);
  sp__fork_guard_install();
  sp__mpi_note_setup(); /* may start HDF5, whose atexit handler must run after ours */
  sp__exit_flush_install();
  sp__signal_setup(&st->set);
}

/* The recording mode the settings ask for, LIKWID turned off where it
 * cannot work. */
static int sp_setup_mode(sp_state_t *st) {
  int mode = SP_MODE_OFF;
  if (st->cfg.profiling_activated) {
    if (st->cfg.use_likwid && !sp__likwid_available()) {
      sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
              "use_likwid requested but this library was built without LIKWID "
              "(SCOPE_PROFILER_ENABLE_LIKWID=OFF); profiling continues without counters");
      st->cfg.use_likwid = 0;
    }
    if (st->cfg.use_likwid && st->cfg.aggregate && !st->cfg.time_trace) {
      sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
              "use_likwid with profile mode alone (aggregate = 1, time_trace = 0): LIKWID's "
              "results go into the trace file, which this mode does not write; LIKWID markers "
              "are off for this session (time_trace = 1 keeps both)");
      st->cfg.use_likwid = 0;
    }
    if (st->cfg.nvtx && !sp__nvtx_available()) {
      sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
              "nvtx (SCOPE_PROFILER_NVTX=1) requested but this library was built without the "
              "NVTX3 headers (SCOPE_PROFILER_ENABLE_NVTX); regions are not forwarded to NVTX");
      st->cfg.nvtx = 0;
    }
    /* NVTX's push and pop live in the general paths, so that a session
     * without them keeps the fast paths (docs/gpu.md). */
    if (st->cfg.use_likwid || st->cfg.aggregate || st->cfg.nvtx) {
      mode = SP_MODE_GENERAL;
    } else {
      mode = st->cfg.time_trace ? SP_MODE_TRACE : SP_MODE_COUNT;
    }
  }
  return mode;
}

/* Recording starts: LIKWID, the mode, then the sampler. */
static void sp_setup_start(sp_state_t *st, int mode) {
  if (mode == SP_MODE_GENERAL && st->cfg.use_likwid) sp__likwid_init();
  if (mode == SP_MODE_GENERAL && st->cfg.nvtx) sp__nvtx_init();
  sp__session++;
  sp_mode_set(mode);
  sp__io_session_start(mode != SP_MODE_OFF && st->cfg.profile_io);
  sp__openmp_setup(&st->cfg); /* says once when OpenMP regions cannot be recorded */
  sp__spill_head_now(); /* MPI ranks: every rank's file from the start */
  if (mode != SP_MODE_OFF && st->cfg.sample_ms > 0) {
    if (st->cfg.time_trace)
      sp__sampler_start(st->cfg.sample_ms);
    else /* the samples go into the trace file, which this mode does not write */
      sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
              "sample_ms (SCOPE_PROFILER_SAMPLE_MS) needs time_trace = 1: no samples are taken");
  }
}

/* The calls up a floor (sp__up, sp_internal.h; docs/design.md, "Rooms"):
 * the record, MPI and spill rooms reach the spill writer, the signal
 * flush, LIKWID's markers and sp_finalize through sp__up, never by name,
 * so that calls run one way between rooms and files. Set once. */
static void sp_rooms_connect(void) {
  sp__up.writer_swap = sp__writer_swap;
  sp__up.spill_events = sp__spill_events;
  sp__up.mpi_extra_flush = sp__mpi_extra_flush;
  sp__up.spill_values = sp__spill_values;
  sp__up.spill_truncated = sp__spill_truncated;
  sp__up.writer_values = sp__writer_values;
  sp__up.signal_flush_self = sp__signal_flush_self;
  sp__up.likwid_thread_init = sp__likwid_thread_init;
  sp__up.likwid_start = sp__likwid_start;
  sp__up.likwid_stop = sp__likwid_stop;
  sp__up.nvtx_start = sp__nvtx_start;
  sp__up.nvtx_stop = sp__nvtx_stop;
  sp__up.mpi_finalize = sp_finalize;
  sp__up.mpi_rank_known = sp__spill_head_now;
  sp__up.meta_changed = sp__spill_meta_now;
  sp__up.writer_behind = sp__writer_behind;
  sp__up.writer_progress = sp__writer_progress;
  sp__up.openmp_env = sp__config_openmp_env;
  sp__up.tool_setup = sp_setup;
  sp__up.tool_finalize = sp_finalize;
}

/* The OpenMP runtime may start the tool (openmp/ompt_tool.c) before any
 * sp_setup: the table is wired when the library loads as well. */
static pthread_once_t sp_rooms_wired = PTHREAD_ONCE_INIT;
__attribute__((constructor)) static void sp_rooms_connect_at_load(void) {
  (void)pthread_once(&sp_rooms_wired, sp_rooms_connect);
}

/* The phases in order. SP_EPATH from the settings (the output path refused
 * or its directory not writable) still sets the session up, and is returned. */
static int sp_setup_session(const sp_config *cfg) {
  sp_state_t *st = &sp__state;
  (void)pthread_once(&sp_rooms_wired, sp_rooms_connect); /* before anything records */
  int rc = sp_setup_replace(st);
  if (rc != 0) return rc;
  sp_setup_reset(st);
  rc = sp__config_resolve(cfg, st);
  if (rc != 0 && rc != SP_EPATH) return rc;
  sp_setup_clock(st);
  sp_setup_hooks(st);
  sp_setup_start(st, sp_setup_mode(st));
  return rc;
}

int sp_setup(const sp_config *cfg) {
  int rc;
  SP_KEEP_ERRNO(SP_OWN_IO(rc = sp_setup_session(cfg)));
  if (!sp__state.session) SP_KEEP_ERRNO(sp__std_fds_release());
  return rc;
}

#define SP_MAX_HOOKS 16
static struct {
  void (*fn)(void *);
  void *arg;
} sp_hooks[SP_MAX_HOOKS];
static int sp_nhooks;

int sp_finalize_hook_add(void (*fn)(void *arg), void *arg) {
  if (!fn) return SP_EINVAL;
  if (sp_nhooks == SP_MAX_HOOKS) return SP_ETOOMANY;
  sp_hooks[sp_nhooks].fn = fn;
  sp_hooks[sp_nhooks].arg = arg;
  sp_nhooks++;
  return 0;
}

int sp_region_rename(int h, const char *name) {
  if (!name) return SP_EINVAL;
  size_t len = strnlen(name, SP_NAME_MAX + 1);
  if (len == 0) return SP_EINVAL;
  if (len > SP_NAME_MAX) return SP_ENAMETOOLONG;
  int rc;
  SP_KEEP_ERRNO(rc = sp__region_rename(h, name, len));
  return rc;
}

static int sp_finalize_session(void) {
  for (int i = 0; i < sp_nhooks; i++) sp_hooks[i].fn(sp_hooks[i].arg);
  sp__openmp_finalize(&sp__state.cfg);
  sp__meta_report_refused();
  sp_mode_set(SP_MODE_OFF);
  sp__io_session_stop(); /* the calls of other threads from now on are not recorded */
  sp__writer_stop(); /* every handed buffer is in the spill file now */
  sp__stock_stop();
  sp__sampler_stop(); /* its samples are written with the stamps */
  int rc = 0;
  /* With MPI every rank takes part, one that records nothing too. */
  if (sp__state.cfg.profiling_activated || sp__par_usable()) rc = sp__finalize_session();
  if (sp__state.exit_flushed && rc == 0) /* an atexit handler of the program's */
    sp__log(SP_LOG_INFO, SP_LOG_ALWAYS,
            "sp_finalize ran at exit after all: '%s' is written, no merge needed",
            sp__state.file_path);
  sp__sampler_forget();
  sp__threads_discard();
  sp__event_arrays_release();
  sp__region_table_reset();
  sp__meta_session_reset();
  sp__calib_reset(&sp__state.calib);
  __atomic_store_n(&sp__state.session, 0, __ATOMIC_RELAXED);
  sp__session++;
  sp__std_fds_release();
  return rc;
}

int sp_finalize(void) {
  if (!sp__state.session) return 0;
  if (sp__state.finalizing) return SP_EBUSY; /* from a finalize hook: the outer one writes */
  int rc;
  sp__state.finalizing = 1; /* a hook's sp_setup and sp_finalize are refused */
  SP_KEEP_ERRNO(SP_OWN_IO(rc = sp_finalize_session()));
  sp__state.finalizing = 0;
  return rc;
}
