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
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "aggregate.h"
#include "aggregate_file.h"
#include "aggregate_recover.h"
#include "columnar_write.h"
#include "file_end.h"
#include "hdf5_room.h"
#include "io_calls.h"
#include "io_finalize.h"
#include "layout.h"
#include "out_target.h"
#include "out_temp.h"
#include "par.h"
#include "plan.h"
#include "raw_write.h"
#include "completions_write.h"
#include "samples_write.h"
#include "values_write.h"

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
  if (sp__state.cfg.profile_io) sp__io_spill();
  for (int32_t ti = 0; ti < l->nthreads; ti++) {
    const sp_thread_t *t = l->threads[ti];
    for (int32_t h = 0; t && h < t->nbufs; h++)
      if (t->bufs[h].n > 0) sp__spill_events(h, ti, t->bufs[h].ev, t->bufs[h].n);
  }
}

/* Phase times and modes of one finalize, printed with
 * SCOPE_PROFILER_VERBOSE=1. The process CPU time of the layout phase tells
 * whether a slow layout was work or waiting for a CPU (ranks sharing cores,
 * a hypervisor taking the CPU). */
enum { SP_FIN_PLANS, SP_FIN_LAYOUT, SP_FIN_RAW, SP_FIN_PHASES, SP_FIN_UNTIMED = -1 };
typedef struct sp_finalize_times {
  double phase[SP_FIN_PHASES]; /* s: gathering the plans, the layout, the raw data */
  double cpu[SP_FIN_PHASES];   /* s of this process's CPU time in each (layout's printed) */
  int ranks_per_cpu;           /* most ranks sharing a CPU on a node */
  const char *layout_by;       /* "root", "collective" or "serial" */
  sp_raw_mode_t raw_by;
} sp_finalize_times_t;

static double sp_seconds(void) { return (double)sp__monotonic_ns() / 1e9; }

static double sp_cpu_seconds(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0.0;
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What the steps of one finalize share. */
typedef struct sp_fin {
  sp_par_t *par;
  sp_local_t *local;
  int lrc;            /* of sp__local_build: this rank's events in memory */
  int active;         /* this rank records (profiling_activated) */
  int discard;        /* rank 0's file_path discards (out_target.c) */
  int differs;        /* this rank's file_path differs from rank 0's */
  int by_root;        /* rank 0 alone creates the layout */
  int columnar;       /* the columnar layout (columnar_write.h), else rank<N> groups */
  int both;           /* SCOPE_PROFILER_LAYOUT=both: the two, columnar into col_partial */
  int h5;             /* HDF5 has room to be entered (hdf5_room.c) */
  int any_vals;       /* 0: the columnar step's exchange found no rank with values per call
                       * (the same on every rank), so their step is skipped */
  char *partial;      /* SP_TEMP_MAX bytes: this run's temporary file */
  H5E_auto2_t old_fn; /* HDF5's error printer, put back at the end */
  void *old_data;
  sp_rank_plan_t *plans;
  sp_region_offsets_t *offs;     /* this rank's datasets' offsets */
  sp_region_offsets_t **by_rank; /* by_rank[r]: rank r's (by_rank[par->rank] == offs) */
  sp_finalize_times_t *times;

  char col_partial[SP_TEMP_MAX + 8]; /* with both: the columnar file's temporary name */
} sp_fin_t;

/* Profile mode without time_trace writes only the aggregate file. */
static int sp_fin_trace_file(const sp_fin_t *f) {
  return !f->discard && !(sp__state.cfg.aggregate && !sp__state.cfg.time_trace);
}

/* The plans and offsets, once the layout and the raw data are written or
 * given up. */
static void sp_fin_release(sp_fin_t *f) {
  for (int r = 0; f->by_rank && r < f->par->size; r++)
    if (r != f->par->rank) free(f->by_rank[r]);
  for (int r = 0; f->plans && r < f->par->size; r++) sp__plan_free(&f->plans[r]);
  free(f->plans);
  free(f->offs);
  free(f->by_rank);
  f->plans = NULL;
  f->offs = NULL;
  f->by_rank = NULL;
}

/* The steps, in the order of sp_fin_steps below. Each returns this rank's
 * status; the loop in sp_fin_run agrees on it between the ranks. */

/* Which layout: the same answer on every rank (settings and the size). */
static void sp_fin_choose(sp_fin_t *f) {
  f->columnar = sp__columnar_chosen(f->par, f->local->plan.nregions);
  f->both = f->columnar && sp__state.cfg.layout == SP_LAYOUT_BOTH;
  if (f->columnar) f->times->layout_by = "columnar";
  if (f->both) snprintf(f->col_partial, sizeof f->col_partial, "%s.col", f->partial);
}

static int sp_fin_output(sp_fin_t *f) {
  sp_state_t *st = &sp__state;
  /* Rank 0's file_path: discarded (/dev/null), never a FIFO or device
   * replaced, other ranks' paths compared with it (out_target.c); and a
   * name of this run's own for the trace file, made by rank 0 and sent
   * with that: one gather and one broadcast (out_temp.c). */
  const int temp = !(st->cfg.aggregate && !st->cfg.time_trace); /* sp_fin_trace_file */
  int rc =
      sp__out_agree(f->par, st, f->active, temp, &f->discard, &f->differs, f->partial, SP_TEMP_MAX);
  /* HDF5 crashes where an allocation fails, in its first call too: it is
   * entered only with room for it (hdf5_room.c). */
  f->h5 = sp__hdf5_room(NULL, 0) == 0;
  if (rc == 0 && !f->h5 && (sp_fin_trace_file(f) || st->cfg.aggregate)) rc = SP_ENOMEM;
  /* HDF5 prints its own error stacks; ours say what happened instead. */
  if (f->h5) H5Eget_auto2(H5E_DEFAULT, &f->old_fn, &f->old_data);
  if (f->h5) H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  /* The layout, chosen here rather than in a step of its own: it cannot
   * fail, and each step's agreement costs every rank two wake-ups where
   * ranks share cores. */
  if (rc == 0 && f->lrc == 0 && sp_fin_trace_file(f)) sp_fin_choose(f);
  /* And whether this rank could gather its events (sp__local_build, done
   * before; a rank that could not keeps them in its spill file all the
   * same), agreed with the rest rather than in a step of its own. */
  return rc != 0 ? rc : f->lrc;
}

/* Every rank's events into the columnar layout, collectively. */
static int sp_fin_columnar(sp_fin_t *f) {
  int64_t ranks_with_values = -1;
  int rc = sp__columnar_write(f->par, f->both ? f->col_partial : f->partial, f->local,
                              sp__values_maybe(f->local), &ranks_with_values);
  f->any_vals = ranks_with_values != 0; /* used only where agreed to be 0 */
  return rc;
}

static int sp_fin_plans(sp_fin_t *f) {
  /* Without MPI the one process creates the layout through the path of
   * sp_fin_layout that all ranks take together, with a serial file access
   * list. */
  f->by_root = f->par->active && !sp__state.set.layout_collective;
  f->times->layout_by = f->by_root ? "root" : f->par->active ? "collective" : "serial";
  f->times->raw_by = sp_raw_mode(f->par, f->by_root);
  return sp_gather_plans(f->par, &f->local->plan, f->by_root, &f->plans);
}

static int sp_fin_offsets_alloc(sp_fin_t *f) {
  f->offs = calloc((size_t)(f->local->plan.nregions + 1), sizeof *f->offs);
  f->by_rank = calloc((size_t)f->par->size, sizeof *f->by_rank);
  if (f->by_rank) f->by_rank[f->par->rank] = f->offs;
  return f->offs && f->by_rank ? 0 : SP_ENOMEM;
}

/* HDF5 crashes where an allocation fails: room for it first
 * (hdf5_room.c), and the disk space of the whole file. */
static int sp_fin_room(sp_fin_t *f) {
  int rc = 0;
  if (f->par->rank == 0 || !f->by_root) rc = sp__hdf5_room(f->plans, f->par->size);
  if (rc == 0 && f->par->rank == 0) rc = sp__layout_reserve(f->partial, f->plans, f->par->size);
  return rc;
}

/* Who creates the layout (SCOPE_PROFILER_METADATA, read at setup into
 * sp__state.set.layout_collective):
 * - root (auto, the default): rank 0 alone with the serial driver; it sends
 *   each rank its offsets (sp_fin_offsets_send).
 * - collective: all ranks together through parallel HDF5 with collective
 *   metadata. Every rank does the whole layout's work, so at best it takes
 *   the wall time of rank 0 doing it alone, plus the collective's sync
 *   points and a collective MPI-IO open. It was slower at every point
 *   measured, even with a core per rank, and far slower where every
 *   rank's copy of the work queues for the same cores (docs/design.md,
 *   "How finalize writes"; docs/performance.md, the designs table of
 *   "finalize at scale"). Kept for file systems that want the metadata
 *   written through MPI-IO. */
static int sp_fin_layout(sp_fin_t *f) {
  sp_par_t *par = f->par;
  int rc = 0;
  if (f->by_root) {
    if (par->rank != 0) return 0;
    for (int r = 1; r < par->size && rc == 0; r++) {
      f->by_rank[r] = calloc((size_t)(f->plans[r].nregions + 1), sizeof **f->by_rank);
      if (!f->by_rank[r]) rc = SP_ENOMEM;
    }
    if (rc == 0) {
      hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
      rc = sp__layout_create(fapl, f->partial, f->plans, par->size, f->by_rank);
      H5Pclose(fapl);
    }
    return rc;
  }
  hid_t fapl = sp__par_fapl(par);
  rc = sp__layout_create_par(fapl, f->partial, f->plans, par->size, f->by_rank,
                             par->active ? par : NULL, sp__par_agree);
  H5Pclose(fapl);
  return rc;
}

/* Rank 0 sends each rank its datasets' offsets (layout by root). */
static int sp_fin_offsets_send(sp_fin_t *f) {
  int rc = sp__par_scatter_offsets(f->par, f->plans, f->by_rank, f->offs, f->local->plan.nregions);
  for (int r = 1; f->par->rank == 0 && r < f->par->size; r++) {
    free(f->by_rank[r]);
    f->by_rank[r] = NULL;
  }
  return rc;
}

static int sp_fin_raw(sp_fin_t *f) {
  const sp_raw_mode_t mode = f->times->raw_by;
  int rc = sp__raw_write(f->par, f->partial, f->local, f->offs, mode, sp_round_bytes(mode));
  sp_fin_release(f);
  return rc;
}

/* LIKWID's results into the per-rank file, the columnar one, or both. */
static int sp_fin_likwid(sp_fin_t *f) {
  const char *ranks = !f->columnar || f->both ? f->partial : NULL;
  const char *col = !f->columnar ? NULL : f->both ? f->col_partial : f->partial;
  return sp__likwid_finalize(f->par, ranks, col);
}

static int sp_fin_samples(sp_fin_t *f) {
  return sp__samples_finalize(f->par, f->partial, &f->local->spill);
}

/* The MPI requests waits and tests completed (trace mode, per-rank layout). */
static int sp_fin_done(sp_fin_t *f) {
  return sp__done_finalize(f->par, f->partial, &f->local->spill);
}

/* profile_io's file records into the per-rank file, the columnar one, or both. */
static int sp_fin_io(sp_fin_t *f) {
  const char *ranks = !f->columnar || f->both ? f->partial : NULL;
  const char *col = !f->columnar ? NULL : f->both ? f->col_partial : f->partial;
  return sp__io_finalize(f->par, ranks, col);
}

/* The values per call (values_write.c) into the per-rank file, the
 * columnar one, or both. */
static int sp_fin_values(sp_fin_t *f) {
  const char *ranks = !f->columnar || f->both ? f->partial : NULL;
  const char *col = !f->columnar ? NULL : f->both ? f->col_partial : f->partial;
  return sp__values_finalize(f->par, f->local, ranks, col);
}

/* Published only when HDF5 can open it, to its stored end (file_end.h). */
static int sp_fin_publish(sp_fin_t *f) {
  sp_state_t *st = &sp__state;
  if (f->par->rank != 0) return 0;
  int rc = sp__file_end_check(f->partial, st->file_path);
  if (rc == 0) {
    sp__spill_note_publish(f->partial, st->file_path); /* spill_published.c */
    rc = sp__out_publish(f->partial, st->file_path, &st->out_at_setup);
  }
  if (rc == 0 && f->both) { /* beside it, replaced as a rerun replaces file_path */
    char col[sizeof st->file_path + sizeof SP_COLUMNAR_SUFFIX];
    size_t n = strnlen(st->file_path, sizeof st->file_path - 1);
    memcpy(col, st->file_path, n);
    memcpy(col + n, SP_COLUMNAR_SUFFIX, sizeof SP_COLUMNAR_SUFFIX);
    if (rename(f->col_partial, col) != 0) rc = SP_EIO;
  }
  return rc;
}

/* profile_io's file records, per rank, into the aggregate file just
 * written at path (rc its status): every rank takes part or none. */
static int sp_write_io_records(sp_par_t *par, int rc, const char *path) {
  if (!sp__state.cfg.profile_io) return rc;
  rc = sp__par_agree(par, rc);
  return rc == 0 ? sp__io_finalize(par, path, NULL) : rc;
}

/* Profile mode: the aggregate file, at file_path, or beside the trace
 * (sp__agg_path) when time_trace writes that too. */
static int sp_write_aggregates(sp_par_t *par) {
  const sp_state_t *st = &sp__state;
  int rc;
  if (!st->cfg.time_trace) {
    rc = sp__agg_write(par, st->file_path, &st->out_at_setup);
    rc = sp_write_io_records(par, rc, st->file_path);
  } else {
    char path[SP_PATH_MAX + 16];
    sp__agg_path(st->file_path, path, sizeof path);
    sp_out_id_t was;
    sp__out_id_take(path, &was);
    rc = sp__agg_write(par, path, &was);
    rc = sp_write_io_records(par, rc, path);
  }
  if (rc == 0) sp__agg_exit_forget(); /* written at exit, then finalized after all */
  /* Lose nothing: what was aggregated stays recoverable, as spilled events do. */
  if (rc != 0 && sp__agg_exit_save("sp_finalize could not write the aggregates") == 0)
    sp__agg_exit_keep();
  return rc;
}

static int sp_fin_aggregates(sp_fin_t *f) { return sp_write_aggregates(f->par); }

/* Which steps run: the same on every rank (settings and agreed values), so
 * that every rank takes part in the same agreements. */
static int sp_fin_if_trace(const sp_fin_t *f) { return sp_fin_trace_file(f); }
static int sp_fin_if_values(const sp_fin_t *f) { return sp_fin_trace_file(f) && f->any_vals; }
static int sp_fin_if_ranks(const sp_fin_t *f) {
  return sp_fin_trace_file(f) && (!f->columnar || f->both);
}
static int sp_fin_if_columnar(const sp_fin_t *f) { return sp_fin_trace_file(f) && f->columnar; }
static int sp_fin_if_by_root(const sp_fin_t *f) { return sp_fin_if_ranks(f) && f->by_root; }
static int sp_fin_if_io(const sp_fin_t *f) {
  return sp_fin_trace_file(f) && sp__state.cfg.profile_io;
}
static int sp_fin_if_likwid(const sp_fin_t *f) {
  return sp_fin_trace_file(f) && sp__state.cfg.use_likwid;
}
static int sp_fin_if_aggregates(const sp_fin_t *f) {
  return sp__state.cfg.aggregate && !f->discard;
}

/* One step of finalize: run by every rank for which `when` holds (the same
 * ranks: all or none), then agreed on by the loop in sp_fin_run. */
typedef struct sp_fin_step {
  const char *name;               /* what it does, for a reader and a debugger */
  int (*run)(sp_fin_t *f);        /* this rank's part: 0 or an SP_E code */
  int (*when)(const sp_fin_t *f); /* NULL: always */
  int slot;                       /* SP_FIN_PLANS.. of the verbose phase times, or UNTIMED */
  int root_alone;                 /* run by rank 0 alone (0 elsewhere): inside the
                                   * previous step's agreement (sp_fin_run) */
} sp_fin_step_t;

static const sp_fin_step_t sp_fin_steps[] = {
    {"output and layout choice", sp_fin_output, NULL, SP_FIN_UNTIMED, 0},
    {"columnar", sp_fin_columnar, sp_fin_if_columnar, SP_FIN_LAYOUT, 0},
    {"plans", sp_fin_plans, sp_fin_if_ranks, SP_FIN_PLANS, 0},
    {"offset arrays", sp_fin_offsets_alloc, sp_fin_if_ranks, SP_FIN_PLANS, 0},
    {"room", sp_fin_room, sp_fin_if_ranks, SP_FIN_LAYOUT, 0},
    {"layout", sp_fin_layout, sp_fin_if_ranks, SP_FIN_LAYOUT, 0},
    {"offsets sent", sp_fin_offsets_send, sp_fin_if_by_root, SP_FIN_LAYOUT, 0},
    {"raw data", sp_fin_raw, sp_fin_if_ranks, SP_FIN_RAW, 0},
    {"likwid", sp_fin_likwid, sp_fin_if_likwid, SP_FIN_UNTIMED, 0},
    {"samples", sp_fin_samples, sp_fin_if_ranks, SP_FIN_UNTIMED, 0},
    {"completions", sp_fin_done, sp_fin_if_ranks, SP_FIN_UNTIMED, 0},
    {"io files", sp_fin_io, sp_fin_if_io, SP_FIN_UNTIMED, 0},
    {"values", sp_fin_values, sp_fin_if_values, SP_FIN_UNTIMED, 0},
    {"publish", sp_fin_publish, sp_fin_if_trace, SP_FIN_UNTIMED, 1},
    {"aggregates", sp_fin_aggregates, sp_fin_if_aggregates, SP_FIN_UNTIMED, 0},
};

/* A step to run inside an agreement (sp__par_agree_then). */
typedef struct sp_fin_call {
  sp_fin_t *f;
  const sp_fin_step_t *step;
} sp_fin_call_t;

static int sp_fin_call(void *arg) {
  const sp_fin_call_t *c = arg;
  return c->step->run(c->f);
}

/* The deadlock rule, kept here once: every rank takes part in every
 * agreement, a rank that failed arrives with its status instead of
 * skipping it, and once the ranks have agreed on a failure no step (none
 * of their collectives) runs any more, on any rank. rc is this rank's
 * status on entry (sp__par_begin's); the agreed one is returned. */
static int sp_fin_run(sp_fin_t *f, int rc) {
  const size_t n = sizeof sp_fin_steps / sizeof *sp_fin_steps;
  for (size_t i = 0; i < n; i++) {
    const sp_fin_step_t *s = &sp_fin_steps[i];
    if (s->when && !s->when(f)) continue;
    const double t0 = sp_seconds(), cpu0 = sp_cpu_seconds();
    if (rc == 0) rc = s->run(f);
    /* A next step of rank 0 alone runs inside this agreement: where ranks
     * share cores its own agreement cost every rank another wake-up, 1-5 ms
     * of a 16-rank finalize on 2 cores (docs/performance.md, "fewer
     * exchanges, first pages kept"). Ranks that disagree on which step is next have
     * failed: the agreement's answer is that failure on every rank. */
    size_t k = i + 1;
    while (k < n && sp_fin_steps[k].when && !sp_fin_steps[k].when(f)) k++;
    if (k < n && sp_fin_steps[k].root_alone) {
      sp_fin_call_t call = {f, &sp_fin_steps[k]};
      rc = sp__par_agree_then(f->par, rc, sp_fin_call, &call);
      i = k;
    } else {
      rc = sp__par_agree(f->par, rc);
    }
    if (s->slot != SP_FIN_UNTIMED) {
      f->times->phase[s->slot] += sp_seconds() - t0;
      f->times->cpu[s->slot] += sp_cpu_seconds() - cpu0;
    }
    if (rc != 0) break; /* agreed: every rank stops here */
  }
  return rc;
}

/* Returns on rank 0 once every rank has removed its spill file, at once
 * on the others: a notice to rank 0 (a gather of nothing), not an
 * agreement, whose answer kept every rank waiting on rank 0's wake-up
 * and its sends one rank after the other, 1-5 ms of a 16-rank finalize
 * on 2 cores (docs/performance.md, "fewer exchanges, first pages kept"). */
static void sp_fin_spill_gone(sp_par_t *par) {
  if (!par->active) return;
  char *all = NULL;
  int64_t *at = NULL;
  (void)sp__par_gather_root(par, "", 0, &all, &at); /* MPI failing here fails no file */
  free(all);
  free(at);
}

/* The second clock measurement (clock_offset.c). */
static void sp_fin_clock(sp_par_t *par) {
  sp_clock_offset_t o;
  if (sp__par_clock_offset(par, &o) != 0 || !o.valid)
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "clock offset to rank 0 not measured at finalize");
  pthread_mutex_lock(&sp__state.lock);
  if (o.valid) sp__state.clock_off[1] = o;
  pthread_mutex_unlock(&sp__state.lock);
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
  if (began && par.active)
    any = par.any_active >= 0 ? par.any_active : sp__par_agree(&par, active ? -1 : 0) == -1;
  if (!any || (!began && !active)) {
    sp__par_end(&par, 1); /* agreed: no rank records */
    return 0;
  }
  times.ranks_per_cpu = par.ranks_per_cpu;
  if (began) sp_fin_clock(&par); /* before the plan takes both measurements */
  sp_local_t local;
  int lrc = sp__local_build(&local, began ? par.rank : st->rank > 0 ? st->rank : 0);
  char partial[SP_TEMP_MAX] = "";
  sp_fin_t f = {.par = &par,
                .local = &local,
                .lrc = lrc,
                .active = active,
                .partial = partial,
                .any_vals = 1,
                .times = &times};
  rc = sp_fin_run(&f, rc);
  const int agreed_ok = rc == 0; /* the same on every rank (sp_fin_run agrees) */
  if (f.h5) H5Eset_auto2(H5E_DEFAULT, f.old_fn, f.old_data);
  sp_fin_release(&f);
  const int discard = f.discard, differs = f.differs, trace_file = sp_fin_trace_file(&f);

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
      sp_fin_spill_gone(&par);
      if (par.rank == 0) sp__spill_note_clear();
    }
    if (differs) rc = SP_EPATH; /* the profile is at rank 0's file_path (said there) */
  } else {
    if (began && par.rank == 0 && partial[0]) unlink(partial);
    if (began && par.rank == 0 && f.both) unlink(f.col_partial);
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
  sp__par_end(&par, agreed_ok);
  if (sp__state.set.verbose)
    sp__log(SP_LOG_INFO, SP_LOG_ALWAYS,
            "finalize: plans %.4f s, layout (%s) %.4f s, raw data (%s) %.4f s, total %.4f s;"
            " CPU time of this process: layout %.4f s, total %.4f s; ranks per CPU (most on a"
            " node): %d",
            times.phase[0], times.layout_by, times.phase[1], sp_raw_mode_name(times.raw_by),
            times.phase[2], sp_seconds() - t_begin, times.cpu[SP_FIN_LAYOUT],
            sp_cpu_seconds() - cpu_begin, times.ranks_per_cpu);
  return rc;
}
