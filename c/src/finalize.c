/* finalize.c - writing the session's profile: plan, layout, raw data, publish.
 *
 * 1. every rank builds its plan (regions, counts) and all plans are gathered;
 * 2. rank 0 creates the whole layout in a temporary file of this run's own
 *    (out_temp.c) and sends each rank its datasets' offsets (or all ranks
 *    create it collectively, see "Who creates the layout" below);
 * 3. every rank streams its events to its datasets' offsets (pwrite or
 *    MPI-IO, see sp_raw_mode);
 * 4. if every rank succeeded, rank 0 renames the file into place unless
 *    another writer did so first (a reader never sees a half-written file)
 *    and each rank removes its spill file.
 * On failure the spill files are kept, with the in-memory events appended,
 * so `scope-profiler-pproc merge` can rebuild the profile. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "aggregate.h"
#include "aggregate_file.h"
#include "aggregate_recover.h"
#include "file_end.h"
#include "hdf5_room.h"
#include "layout.h"
#include "out_target.h"
#include "out_temp.h"
#include "par.h"
#include "plan.h"
#include "raw_write.h"
#include "samples_write.h"

/* SCOPE_PROFILER_RAW_WRITE=auto (default; "independent" means the same)
 * |posix|mpiio|collective, read at setup (config.c). auto: where rank 0
 * created the layout with serial HDF5 nothing else opened the file through
 * MPI-IO, and a collective open of it costs more than the writes unless
 * they are large (docs/performance.md, "finalize at scale", "Many ranks"),
 * so each rank pwrites; where the layout was created through
 * parallel HDF5, MPI-IO, which may have a file system's own driver behind
 * it. */
static sp_raw_mode_t sp_raw_mode(const sp_par_t *par, int layout_by_root) {
  if (!par->active) return SP_RAW_POSIX; /* no MPI: the only way */
  if (sp__state.set.raw_write >= 0) return (sp_raw_mode_t)sp__state.set.raw_write;
  return layout_by_root ? SP_RAW_POSIX : SP_RAW_MPIIO;
}

static const char *sp_raw_mode_name(sp_raw_mode_t m) {
  return m == SP_RAW_COLLECTIVE ? "collective" : m == SP_RAW_MPIIO ? "mpiio" : "posix";
}

/* SCOPE_PROFILER_ROUND_BYTES, else 1 MiB for independent writes (fits in
 * cache: a 16 MiB buffer was slower, page faults and cache misses;
 * docs/performance.md, "Figures behind design choices in the code") and
 * 16 MiB (few collective calls) for collective. */
static int64_t sp_round_bytes(sp_raw_mode_t mode) {
  if (sp__state.set.round_bytes > 0) return sp__state.set.round_bytes; /* >= 4096 (config.c) */
  return mode == SP_RAW_COLLECTIVE ? (16 << 20) : (1 << 20);
}

/* Gathers all plans; plans[r] is rank r's. With root_only only rank 0
 * gets them all (it alone creates the layout), the others their own: every
 * rank unpacking every plan is ranks^2 x regions work, which on 128 ranks
 * sharing 2 cores took longer than the layout. */
static int sp_gather_plans(sp_par_t *par, const sp_rank_plan_t *mine, int root_only,
                           sp_rank_plan_t **out) {
  sp_rank_plan_t *plans = calloc((size_t)par->size, sizeof *plans);
  if (!plans) return SP_ENOMEM;
  *out = plans;
  char *blob = NULL, *all = NULL;
  int64_t len = 0, *offs = NULL;
  int rc = sp__plan_pack(mine, &blob, &len);
  if (par->active) {
    /* Always take part in the collective, even with nothing to send. */
    const char *b = rc == 0 ? blob : "";
    int64_t n = rc == 0 ? len : 0;
    int grc = root_only ? sp__par_gather_root(par, b, n, &all, &offs)
                        : sp__par_allgather(par, b, n, &all, &offs);
    if (rc == 0) rc = grc;
    if (root_only && par->rank != 0) {
      if (rc == 0) rc = sp__plan_unpack(blob, len, &plans[par->rank]);
    } else {
      for (int r = 0; rc == 0 && r < par->size; r++)
        rc = sp__plan_unpack(all + offs[r], offs[r + 1] - offs[r], &plans[r]);
    }
  } else if (rc == 0) {
    rc = sp__plan_unpack(blob, len, &plans[0]);
  }
  free(blob);
  free(all);
  free(offs);
  return rc;
}

/* Keeps what only memory holds when the file could not be written. */
static void sp_spill_remaining(const sp_local_t *l) {
  int64_t ns = 0, period_ns = 0;
  const sp_sample_t *tail = sp__sampler_tail(&ns, &period_ns);
  if (ns > 0) sp__spill_samples(tail, ns, sp__sampler_maxrss(), period_ns);
  if (!sp__state.cfg.time_trace) return;
  for (int32_t ti = 0; ti < l->nthreads; ti++) {
    const sp_thread_t *t = l->threads[ti];
    for (int32_t h = 0; t && h < t->nbufs; h++)
      if (t->bufs[h].n > 0) sp__spill_events(h, ti, t->bufs[h].ev, t->bufs[h].n);
  }
}

/* Who creates the layout (SCOPE_PROFILER_METADATA, read at setup into
 * sp__state.set.layout_collective):
 * - root (auto, the default): rank 0 alone with the serial driver; it sends
 *   each rank its offsets.
 * - collective: all ranks together through parallel HDF5 with collective
 *   metadata. Every rank does the whole layout's work, so at best it takes
 *   the wall time of rank 0 doing it alone, plus the collective's sync
 *   points and a collective MPI-IO open. It was slower at every point
 *   measured, even with a core per rank, and far slower where every
 *   rank's copy of the work queues for the same cores (docs/design.md,
 *   "How finalize writes"; docs/performance.md, the designs table of
 *   "finalize at scale"). Kept for file systems that want the metadata
 *   written through MPI-IO.
 * sp_layout_by_root is the first way; the second is sp__layout_create with
 * sp__par_fapl in sp_write_profile. */
static int sp_layout_by_root(sp_par_t *par, const sp_rank_plan_t *plans, const char *partial,
                             sp_region_offsets_t **by_rank, sp_region_offsets_t *mine,
                             int32_t nmine) {
  int rc = 0;
  if (par->rank == 0) {
    for (int r = 1; r < par->size && rc == 0; r++) {
      by_rank[r] = calloc((size_t)(plans[r].nregions + 1), sizeof **by_rank);
      if (!by_rank[r]) rc = SP_ENOMEM;
    }
    if (rc == 0) {
      hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
      rc = sp__layout_create(fapl, partial, plans, par->size, by_rank);
      H5Pclose(fapl);
    }
  }
  rc = sp__par_agree(par, rc);
  if (rc == 0) rc = sp__par_agree(par, sp__par_scatter_offsets(par, plans, by_rank, mine, nmine));
  for (int r = 1; par->rank == 0 && r < par->size; r++) {
    free(by_rank[r]);
    by_rank[r] = NULL;
  }
  return rc;
}

/* Phase times and modes of one finalize, printed with
 * SCOPE_PROFILER_VERBOSE=1. The process CPU time of the layout phase tells
 * whether a slow layout was work or waiting for a CPU (ranks sharing cores,
 * a hypervisor taking the CPU). */
typedef struct sp_finalize_times {
  double phase[3];       /* s: gathering the plans, the layout, the raw data */
  double layout_cpu;     /* s of this process's CPU time in the layout phase */
  int ranks_per_cpu;     /* most ranks sharing a CPU on a node */
  const char *layout_by; /* "root", "collective" or "serial" */
  sp_raw_mode_t raw_by;
} sp_finalize_times_t;

static double sp_seconds(void) { return (double)sp__monotonic_ns() / 1e9; }

static double sp_cpu_seconds(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0.0;
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int sp_write_profile(sp_par_t *par, sp_local_t *l, const char *partial,
                            sp_finalize_times_t *times) {
  sp_rank_plan_t *plans = NULL;
  double t0 = sp_seconds();
  /* Without MPI the one process creates the layout through the path below,
   * with a serial file access list. */
  const int by_root = par->active && !sp__state.set.layout_collective;
  times->layout_by = by_root ? "root" : par->active ? "collective" : "serial";
  int rc = sp_gather_plans(par, &l->plan, by_root, &plans);
  rc = sp__par_agree(par, rc);
  sp_region_offsets_t *offs = calloc((size_t)(l->plan.nregions + 1), sizeof *offs);
  sp_region_offsets_t **by_rank = calloc((size_t)par->size, sizeof *by_rank);
  if (rc == 0 && (!offs || !by_rank)) rc = SP_ENOMEM;
  if (by_rank) by_rank[par->rank] = offs;
  rc = sp__par_agree(par, rc);
  double t1 = sp_seconds();
  double cpu1 = sp_cpu_seconds();
  /* HDF5 crashes where an allocation fails: room for it first (hdf5_room.c). */
  if (rc == 0 && (par->rank == 0 || !by_root)) rc = sp__hdf5_room(plans, par->size);
  if (rc == 0 && par->rank == 0) rc = sp__layout_reserve(partial, plans, par->size);
  rc = sp__par_agree(par, rc);
  if (rc == 0 && by_root) {
    rc = sp_layout_by_root(par, plans, partial, by_rank, offs, l->plan.nregions);
  } else if (rc == 0) {
    hid_t fapl = sp__par_fapl(par);
    rc = sp__layout_create_par(fapl, partial, plans, par->size, by_rank, par->active ? par : NULL,
                               sp__par_agree);
    H5Pclose(fapl);
    rc = sp__par_agree(par, rc);
  }
  double t2 = sp_seconds();
  times->layout_cpu = sp_cpu_seconds() - cpu1;
  sp_raw_mode_t mode = times->raw_by = sp_raw_mode(par, by_root);
  if (rc == 0)
    rc = sp__par_agree(par, sp__raw_write(par, partial, l, offs, mode, sp_round_bytes(mode)));
  double t3 = sp_seconds();
  times->phase[0] = t1 - t0;
  times->phase[1] = t2 - t1;
  times->phase[2] = t3 - t2;
  if (rc == 0 && sp__state.cfg.use_likwid)
    rc = sp__par_agree(par, sp__likwid_finalize(par, partial));
  if (rc == 0) rc = sp__par_agree(par, sp__samples_finalize(par, partial, &l->spill));
  for (int r = 0; plans && r < par->size; r++) sp__plan_free(&plans[r]);
  free(plans);
  free(offs);
  free(by_rank);
  return rc;
}

/* Profile mode: the aggregate file, at file_path, or beside the trace
 * (sp__agg_path) when time_trace writes that too. */
static int sp_write_aggregates(sp_par_t *par) {
  const sp_state_t *st = &sp__state;
  int rc;
  if (!st->cfg.time_trace) {
    rc = sp__agg_write(par, st->file_path, &st->out_at_setup);
  } else {
    char path[SP_PATH_MAX + 16];
    sp__agg_path(st->file_path, path, sizeof path);
    sp_out_id_t was;
    sp__out_id_take(path, &was);
    rc = sp__agg_write(par, path, &was);
  }
  if (rc == 0) sp__agg_exit_forget(); /* written at exit, then finalized after all */
  /* Lose nothing: what was aggregated stays recoverable, as spilled events do. */
  if (rc != 0 && sp__agg_exit_save("sp_finalize could not write the aggregates") == 0)
    sp__agg_exit_keep();
  return rc;
}

int sp__finalize_session(void) {
  sp_state_t *st = &sp__state;
  double t_begin = sp_seconds();
  double cpu_begin = sp_cpu_seconds();
  sp_finalize_times_t times = {.layout_by = "collective", .raw_by = SP_RAW_POSIX};
  sp__threads_drop_open_calls();
  if (st->clock_tsc && sp__monotonic_ns() - st->last_calib_ns >= 2000000)
    sp__calib_add_now(&st->calib, 1, NULL);

  sp_par_t par;
  int rc = sp__par_begin(&par, SP_PAR_FINALIZE);
  /* Without MPI's help (ranks missing, MPI finalized) the spill files are
   * kept, with what is still in memory, as after any failure. */
  const int began = rc == 0;
  /* A rank with profiling off takes part with an empty plan (its ranks
   * would wait for it the whole timeout); when no rank records, nothing is
   * written. Such a rank that could not join has lost nothing of its own. */
  const int active = st->cfg.profiling_activated;
  int any = active;
  if (began && par.active) any = sp__par_agree(&par, active ? -1 : 0) == -1;
  if (!any || (!began && !active)) {
    sp__par_end(&par);
    return 0;
  }
  times.ranks_per_cpu = par.ranks_per_cpu;
  /* The second clock measurement, before the plan takes both. */
  if (began) {
    sp_clock_offset_t o;
    if (sp__par_clock_offset(&par, &o) != 0 || !o.valid)
      sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "clock offset to rank 0 not measured at finalize");
    pthread_mutex_lock(&st->lock);
    if (o.valid) st->clock_off[1] = o;
    pthread_mutex_unlock(&st->lock);
  }
  sp_local_t local;
  int lrc = sp__local_build(&local, began ? par.rank : st->rank > 0 ? st->rank : 0);
  rc = sp__par_agree(&par, rc != 0 ? rc : lrc);

  /* Rank 0's file_path: discarded (/dev/null), never a FIFO or device
   * replaced, other ranks' paths compared with it (out_target.c). */
  int discard = 0, differs = 0;
  if (rc == 0) rc = sp__out_target_agree(&par, st, active, &discard, &differs);
  /* Profile mode without time_trace writes only the aggregate file. */
  const int agg_only = st->cfg.aggregate && !st->cfg.time_trace;
  const int trace_file = !discard && !agg_only;
  /* A name of this run's own, agreed by all ranks (out_temp.c). */
  char partial[SP_TEMP_MAX] = "";
  if (rc == 0 && trace_file) rc = sp__out_temp_agree(&par, st->file_path, partial, sizeof partial);
  /* HDF5 crashes where an allocation fails, in its first call too: it is
   * entered only with room for it (hdf5_room.c). */
  const int h5 = sp__hdf5_room(NULL, 0) == 0;
  rc = sp__par_agree(&par, rc == 0 && !h5 && (trace_file || st->cfg.aggregate) ? SP_ENOMEM : rc);
  /* HDF5 prints its own error stacks; ours say what happened instead. */
  H5E_auto2_t old_fn = NULL;
  void *old_data = NULL;
  if (h5) H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
  if (h5) H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  if (rc == 0 && trace_file) rc = sp_write_profile(&par, &local, partial, &times);
  /* Published only when HDF5 can open it, to its stored end (file_end.h). */
  if (rc == 0 && trace_file && par.rank == 0) rc = sp__file_end_check(partial, st->file_path);
  if (rc == 0 && trace_file && par.rank == 0) {
    sp__spill_note_publish(partial, st->file_path); /* spill_published.c */
    rc = sp__out_publish(partial, st->file_path, &st->out_at_setup);
  }
  rc = sp__par_agree(&par, rc);
  if (rc == 0 && st->cfg.aggregate && !discard) rc = sp_write_aggregates(&par);
  if (h5) H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);

  if (rc == 0) {
    if (st->events_lost > 0 && !discard) {
      /* The file holds everything else; the status says it is incomplete. */
      sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
              "%lld event(s) could not be recorded (memory or disk); '%s' lacks them",
              (long long)st->events_lost, st->file_path);
      rc = SP_ELOST;
    }
    int64_t agg_lost = st->cfg.aggregate && !discard ? sp__agg_lost_now() : 0;
    if (agg_lost > 0) { /* in the file too, as metadata/events_lost */
      sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
              "profile mode: %lld call(s) could not be recorded (more than %d call paths on a "
              "thread, or no memory); the aggregates lack them",
              (long long)agg_lost, SP_AGG_MAX_CHUNKS << SP_AGG_CHUNK_BITS);
      rc = SP_ELOST;
    }
    sp__spill_close(1);
    if (trace_file) { /* every rank's spill file is gone: then the note */
      sp__par_agree(&par, 0);
      if (par.rank == 0) sp__spill_note_clear();
    }
    if (differs) rc = SP_EPATH; /* the profile is at rank 0's file_path (said there) */
  } else {
    if (began && par.rank == 0 && partial[0]) unlink(partial);
    if (par.rank == 0 && trace_file) sp__spill_note_clear(); /* not published */
    if (lrc == 0) sp_spill_remaining(&local);
    char lost[96] = "";
    if (st->events_lost > 0)
      snprintf(lost, sizeof lost, " %lld event(s) could not be recorded (memory or disk).",
               (long long)st->events_lost);
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "could not write '%s': %s.%s %s", st->file_path,
            sp_strerror(rc), lost,
            sp__spill_path() ? "Recorded events are kept in the spill directory; rebuild the "
                               "profile with: scope-profiler-pproc merge SPILL_DIR -o FILE"
                             : "No events were saved.");
    if (sp__spill_path()) sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "spill file: %s", sp__spill_path());
    sp__spill_close(0);
  }
  sp__local_free(&local);
  sp__par_end(&par);
  if (sp__state.set.verbose)
    sp__log(SP_LOG_INFO, SP_LOG_ALWAYS,
            "finalize: plans %.4f s, layout (%s) %.4f s, raw data (%s) %.4f s, total %.4f s;"
            " CPU time of this process: layout %.4f s, total %.4f s; ranks per CPU (most on a"
            " node): %d",
            times.phase[0], times.layout_by, times.phase[1], sp_raw_mode_name(times.raw_by),
            times.phase[2], sp_seconds() - t_begin, times.layout_cpu, sp_cpu_seconds() - cpu_begin,
            times.ranks_per_cpu);
  return rc;
}
