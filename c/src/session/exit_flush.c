/* exit_flush.c - the process ends while a session runs (exit(), a return
 * from main, Fortran `stop`, exit() under MPI without MPI_Finalize).
 *
 * sp_finalize cannot run here (with MPI it is collective, and the other
 * ranks may never call it), so everything recorded goes where a crash would leave
 * it, the spill files: the writer thread's queue is drained, then each
 * thread's finished calls are appended, and one line names the spill
 * directory and the merge command (docs/recovery.md).
 *
 * An atexit handler registered at the first sp_setup: it runs before the
 * handlers registered earlier (HDF5's, MPI's) and early in exit(), which
 * matters under mpirun, where the first rank to end without MPI_Finalize
 * makes mpirun kill the others. The session is left in place with
 * everything in the spill files, so a handler the program registered
 * earlier that calls sp_finalize still writes the profile (and removes the
 * spill files). Threads still recording at that moment may lose
 * their last calls; calls still open are dropped as at sp_finalize. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "aggregate_recover.h"
#include "io_finalize.h"
#include "mpi_extra.h"
#include "sampler.h"
#include "sp_internal.h"

/* Appends every thread's finished calls; returns the events flushed
 * during the session (written or lost), now and before. */
static int64_t sp_exit_spill_threads(void) {
  int64_t total = 0;
  for (sp_thread_t *t = sp__state.threads; t; t = t->next) {
    for (int32_t h = 0; h < t->nbufs; h++) {
      if (t->bufs[h].n > 0) sp__thread_spill_done(t, h);
      total += t->bufs[h].spilled;
    }
    sp__mpi_extra_flush(t);
    sp__vals_flush(t);
  }
  return total;
}

static void sp_exit_report(int64_t flushed) {
  sp_state_t *st = &sp__state;
  int64_t lost = st->events_lost;
  char lost_text[96] = "";
  if (lost > 0)
    snprintf(lost_text, sizeof lost_text, "; %lld event(s) could not be recorded (memory or disk)",
             (long long)lost);
  if (!sp__spill_path()) {
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "the program ended without sp_finalize: no profile written, and "
            "no event reached a spill file%s",
            lost_text);
    return;
  }
  int64_t kept = flushed - sp__spill_events_failed();
  sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
          "the program ended without sp_finalize: %lld event(s) are in the spill directory "
          "'%s'%s; rebuild the profile with: scope-profiler-merge -o %s %s",
          (long long)(kept > 0 ? kept : 0), st->spill_dir, lost_text, st->file_path, st->spill_dir);
}

static void sp_exit_flush(void) {
  sp_state_t *st = &sp__state;
  if (!st->session || !st->cfg.profiling_activated || sp__mode == SP_MODE_OFF) return;
  int saved_errno = errno;
  sp__io_own++; /* from here on only the library's own I/O: never recorded */
  sp__mode = SP_MODE_OFF;
  sp__enabled = 0;
  sp__writer_stop(); /* every queued buffer is in the spill file now */
  st->exit_flushed = 1;
  if (st->cfg.aggregate) /* profile mode: aggregate_recover.c */
    sp__agg_exit_save("the program ended without sp_finalize");
  /* SCOPE_PROFILER_SAMPLE_MS's samples (sampler.c), kept where events are. */
  sp__sampler_exit_spill(!st->discard && st->cfg.time_trace);
  if (st->discard) { /* file_path is /dev/null: nothing to keep */
    sp__spill_close(1);
  } else if (!st->cfg.time_trace && !st->cfg.aggregate) {
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "the program ended without sp_finalize: the call counts of this session are lost "
            "(count-only mode keeps them in memory only)");
  } else if (!st->cfg.time_trace) {
    /* Profile mode alone: the aggregates saved above are all it has (said). */
  } else {
    for (sp_thread_t *t = sp__state.threads; t; t = t->next) sp__frames_drop_above(t, -1);
    sp_exit_report(sp_exit_spill_threads());
    if (st->cfg.profile_io) sp__io_spill(); /* the per-file records, for a merge */
  }
  sp__io_own--;
  errno = saved_errno;
}

static pthread_once_t sp_exit_once = PTHREAD_ONCE_INIT;

static void sp_exit_register(void) { atexit(sp_exit_flush); }

void sp__exit_flush_install(void) { pthread_once(&sp_exit_once, sp_exit_register); }
