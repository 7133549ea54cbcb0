/* aggregate_file.c - profile mode's public calls and its file:
 * sp_report (collective, like sp_finalize), sp_reset, sp_region_stats, and
 * the write that sp_finalize and sp_report share: every rank's snapshot is
 * gathered on rank 0, which writes the file under a temporary name of its
 * own and renames it into place (out_temp.c), as finalize does with the
 * trace. The file is small: it grows with the call paths, not the calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aggregate_file.h"
#include "aggregate_h5.h"
#include "aggregate_blob.h"
#include "aggregate_open.h"
#include "aggregate_reduce.h"
#include "file_end.h"
#include "out_temp.h"
#include "par.h"

/* Rank 0: every rank's blob merged into one snapshot. */
static int sp_agg_merge(const sp_par_t *par, const char *blob, int64_t len, const char *all,
                        const int64_t *offs, sp_agg_snap_t *out) {
  memset(out, 0, sizeof *out);
  if (!par->active) return sp__agg_snap_unpack_into(out, blob, len);
  int rc = 0;
  for (int r = 0; rc == 0 && r < par->size; r++)
    rc = sp__agg_snap_unpack_into(out, all + offs[r], offs[r + 1] - offs[r]);
  return rc;
}

/* Rank 0 writes the merged snapshot to a new temporary file and renames it. */
static int sp_agg_publish(const sp_agg_snap_t *s, int size, const char *path,
                          const sp_out_id_t *was) {
  char tmp[SP_TEMP_MAX];
  int rc = sp__out_temp_create(path, tmp, sizeof tmp);
  if (rc) return rc;
  H5E_auto2_t old_fn;
  void *old_data;
  H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our message says what failed */
  rc = sp__agg_h5_write(tmp, s, size);
  if (!rc) rc = sp__file_end_check(tmp, path); /* HDF5 opens it to its stored end */
  H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
  if (!rc) rc = sp__out_publish(tmp, path, was);
  if (rc && tmp[0]) unlink(tmp);
  return rc;
}

/* open_calls: sp_report's file, where the calls open on the calling thread
 * count with their duration so far (aggregate_open.c); sp_finalize's drops
 * them, as the trace does. */
static int sp_agg_write_at(sp_par_t *par, const char *path, const sp_out_id_t *was,
                           int open_calls) {
  sp_agg_snap_t mine, merged;
  char *blob = NULL, *all = NULL;
  int64_t len = 0, *offs = NULL;
  int rc = sp__agg_snap_take(&mine, par->rank);
  if (!rc && open_calls && (rc = sp__agg_snap_open_calls(&mine)) != 0) sp__agg_snap_free(&mine);
  if (sp__agg_reduce_on(par)) { /* across ranks in log P steps, never gathered whole */
    rc = sp__agg_reduce_write(par, rc, &mine, path, was);
    sp__agg_snap_free(&mine); /* zeroed already where taking it failed */
    return rc;
  }
  if (!rc) {
    rc = sp__agg_snap_pack(&mine, &blob, &len);
    sp__agg_snap_free(&mine);
  }
  if (par->active) { /* every rank takes part, even with nothing to send */
    int grc = sp__par_gather_root(par, rc ? "" : blob, rc ? 0 : len, &all, &offs);
    if (!rc) rc = grc;
  }
  rc = sp__par_agree(par, rc);
  if (!rc && par->rank == 0) {
    rc = sp_agg_merge(par, blob, len, all, offs, &merged);
    if (!rc) rc = sp_agg_publish(&merged, par->size, path, was);
    sp__agg_snap_free(&merged);
  }
  rc = sp__par_agree(par, rc);
  free(blob);
  free(all);
  free(offs);
  return rc;
}

int sp__agg_write(sp_par_t *par, const char *path, const sp_out_id_t *was) {
  return sp_agg_write_at(par, path, was, 0);
}

void sp__agg_path(const char *file_path, char *out, size_t cap) {
  const char *slash = strrchr(file_path, '/');
  const char *base = slash ? slash + 1 : file_path;
  const char *dot = strrchr(base, '.');
  int stem = dot && dot != base ? (int)(dot - file_path) : (int)strlen(file_path);
  snprintf(out, cap, "%.*s.aggregate%s", stem, file_path, file_path + stem);
}

/* Why a profile-mode call cannot run now: 0 when it can. */
static int sp_agg_usable(const char *what) {
  static int told;
  if (!sp__state.session || !sp__state.cfg.profiling_activated) return SP_ENOTSETUP;
  if (sp__state.cfg.aggregate) return 0;
  if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "%s needs profile mode (sp_config.aggregate = 1 or SCOPE_PROFILER_AGGREGATE=1): "
            "this session records no aggregates",
            what);
  return SP_EINVAL;
}

static int sp_report_impl(const char *path) {
  if (!path || !*path || strlen(path) >= SP_PATH_MAX) return SP_EINVAL;
  int rc = sp_agg_usable("sp_report");
  if (rc) return rc;
  sp_out_id_t was;
  sp__out_id_take(path, &was); /* an earlier report there is replaced */
  sp_par_t par;
  rc = sp__par_begin(&par, SP_PAR_REPORT);
  if (rc == 0) rc = sp_agg_write_at(&par, path, &was, 1);
  sp__par_end(&par, 0); /* a report's status is not always agreed: a fresh one next time */
  if (rc)
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "sp_report: could not write '%s': %s", path,
            sp_strerror(rc));
  return rc;
}

int sp_report(const char *path) {
  int rc;
  SP_KEEP_ERRNO(SP_OWN_IO(rc = sp_report_impl(path)));
  return rc;
}

int sp_reset(void) {
  int rc;
  SP_KEEP_ERRNO(rc = sp_agg_usable("sp_reset"));
  if (rc) return rc;
  __atomic_fetch_add(&sp__agg_gen, 1, __ATOMIC_ACQ_REL);
  return 0;
}

int sp_region_stats(int h, sp_region_stats_t *out) {
  if (!out) return SP_EINVAL;
  memset(out, 0, sizeof *out);
  int rc;
  SP_KEEP_ERRNO(rc = sp_agg_usable("sp_region_stats"));
  if (rc) return rc;
  if (h < 0 || h >= sp__region_count()) return SP_EINVAL;
  double rate = sp__agg_ns_per_tick(0);
  pthread_mutex_lock(&sp__state.lock);
  for (const sp_thread_t *t = sp__state.threads; t; t = t->next) {
    int32_t n;
    const sp_agg_t *a = sp__agg_current(t, &n);
    for (int32_t i = 0; a && i < n; i++) {
      const sp_agg_node_t *x = sp__agg_node(a, i);
      int64_t calls = __atomic_load_n(&x->calls, __ATOMIC_ACQUIRE);
      if (x->region != h || calls == 0) continue;
      int64_t mn = __atomic_load_n(&x->min, __ATOMIC_RELAXED);
      int64_t mx = __atomic_load_n(&x->max, __ATOMIC_RELAXED);
      if (out->calls == 0 || mn < out->min_ns) out->min_ns = mn;
      if (out->calls == 0 || mx > out->max_ns) out->max_ns = mx;
      out->calls += calls;
      out->total_ns += __atomic_load_n(&x->incl, __ATOMIC_RELAXED);
      out->exclusive_ns += __atomic_load_n(&x->excl, __ATOMIC_RELAXED);
    }
  }
  pthread_mutex_unlock(&sp__state.lock);
  out->total_ns = sp__agg_round((double)out->total_ns * rate); /* ticks to ns */
  out->exclusive_ns = sp__agg_round((double)out->exclusive_ns * rate);
  out->min_ns = sp__agg_round((double)out->min_ns * rate);
  out->max_ns = sp__agg_round((double)out->max_ns * rate);
  return 0;
}
