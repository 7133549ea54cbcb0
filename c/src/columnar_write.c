/* columnar_write.c - every rank's part of the columnar layout, written
 * together (columnar.h).
 *
 * Each rank's place in the shared tables comes from one MPI_Exscan of its
 * pair and event counts; every dataset is created once, by all ranks
 * together (parallel HDF5, collective metadata), and each rank's slice is
 * one hyperslab of a collective H5Dwrite, so MPI-IO's collective buffering
 * lets a few aggregators write large extents. The file has the same 26
 * objects at 1 rank and at 100,000 (docs/design.md, "The columnar layout").
 *
 *   @scope_profiler_schema = 3, @storage_layout = "columnar"
 *   metadata/                          the attributes of the rank<N> layout's
 *   region_table/names                 fixed-length UTF-8 strings, sorted
 *   rank_region_index/region_ids       uint32[P]
 *                     ranks            uint32[P]
 *                     event_offsets    uint64[P]
 *                     event_counts     uint64[P]
 *                     num_calls        int64[P]   (ours: the rank<N> attribute)
 *   events/start_times, end_times      int64[E]   ns
 *   events/thread_ids                  int32[E]
 *   events/call_ids, parent_ids        int64[E]   unique within a rank; -1 none
 *   events/mpi_bytes, mpi_peers        int64[E], int32[E], -1 unknown (ours,
 *                                      only when some rank profiled MPI)
 *   rank_info/hostnames                fixed strings[ranks] (ours)
 *   rank_info/threads, events_lost     int32[ranks], int64[ranks] (ours)
 *   rank_info/clock_offset_ns, ..._error_ns, clock_offset_end_ns,
 *             clock_offset_end_error_ns int64[ranks], INT64_MIN unmeasured (ours) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "columnar.h"
#include "h5_attr.h"

/* A contiguous 1-D dataset of n elements, its storage allocated at once. */
static hid_t sp_col_dataset(hid_t loc, const char *name, hid_t type, int64_t n) {
  hsize_t dims[1] = {(hsize_t)n};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_layout(dcpl, H5D_CONTIGUOUS);
  H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
  hid_t d = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Sclose(space);
  return d;
}

/* Creates loc/name of n elements and writes buf as elements [at, at + k):
 * every rank calls it (the write is collective), k may be 0. */
static int sp_col_put(hid_t loc, const char *name, hid_t type, hid_t mtype, int64_t n, int64_t at,
                      int64_t k, const void *buf, hid_t dxpl) {
  hid_t d = sp_col_dataset(loc, name, type, n);
  if (d < 0) return SP_EHDF5;
  hid_t fs = H5Dget_space(d);
  hsize_t cnt[1] = {(hsize_t)(k > 0 ? k : 1)}, off[1] = {(hsize_t)at};
  hid_t ms = H5Screate_simple(1, cnt, NULL);
  if (k > 0) {
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL);
  } else {
    H5Sselect_none(fs);
    H5Sselect_none(ms);
  }
  static const char nothing[8];
  int rc = H5Dwrite(d, mtype, ms, fs, dxpl, k > 0 ? buf : nothing) < 0 ? SP_EHDF5 : 0;
  H5Sclose(ms);
  H5Sclose(fs);
  if (H5Dclose(d) < 0 && rc == 0) rc = SP_EHDF5;
  return rc;
}

/* A fixed-length UTF-8 string type of size bytes. */
static hid_t sp_col_str(size_t size) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, size);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

/* The metadata group: the rank<N> layout's run-wide attributes. */
static int sp_col_metadata(hid_t file, const sp_col_local_t *c, int nranks) {
  hid_t g = H5Gcreate2(file, "metadata", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return SP_EHDF5;
  char stamp[64];
  time_t wt = (time_t)c->wall_time0;
  struct tm tmv;
  gmtime_r(&wt, &tmv);
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  int32_t size = nranks, threads = c->max_threads > 0 ? c->max_threads : 1, tt = 1;
  int64_t lost = c->events_lost;
  int rc = sp__h5_attr(g, "mpi_size", H5T_NATIVE_INT32, &size);
  rc |= sp__h5_attr_str(g, "hostname", c->host0);
  rc |= sp__h5_attr_str(g, "timestamp", stamp);
  rc |= sp__h5_attr_str(g, "library_version", SP_VERSION_STRING);
  rc |= sp__h5_attr_str(g, "clock", "CLOCK_MONOTONIC");
  rc |= sp__h5_attr_str(g, "clock_source", c->clock_tsc0 ? "tsc" : "monotonic");
  rc |= sp__h5_attr(g, "omp_threads", H5T_NATIVE_INT32, &threads);
  rc |= sp__h5_attr(g, "time_trace", H5T_NATIVE_INT32, &tt);
  rc |= sp__h5_attr(g, "events_lost", H5T_NATIVE_INT64, &lost);
  H5Gclose(g);
  return rc ? SP_EHDF5 : 0;
}

/* region_table/names, written by rank 0 (every rank holds the same table). */
static int sp_col_names_write(hid_t file, const sp_col_local_t *c, int rank, hid_t dxpl) {
  hid_t g = H5Gcreate2(file, "region_table", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return SP_EHDF5;
  char *buf = rank == 0 ? calloc((size_t)(c->nnames ? c->nnames : 1), c->name_max) : NULL;
  int rc = rank == 0 && !buf ? SP_ENOMEM : 0;
  for (int64_t i = 0; buf && i < c->nnames; i++)
    memcpy(buf + (size_t)i * c->name_max, c->names[i], strlen(c->names[i]));
  hid_t t = sp_col_str(c->name_max);
  /* A rank without memory writes nothing, but still takes part. */
  int wrc = sp_col_put(g, "names", t, t, c->nnames, 0, rank == 0 && buf ? c->nnames : 0, buf, dxpl);
  if (rc == 0) rc = wrc;
  H5Tclose(t);
  free(buf);
  H5Gclose(g);
  return rc;
}

/* rank_region_index: this rank's rows at pair_at, its events at ev_at. */
static int sp_col_index_write(hid_t file, const sp_col_local_t *c, int rank, int64_t pair_at,
                              int64_t ev_at, int64_t npairs, hid_t dxpl) {
  hid_t g = H5Gcreate2(file, "rank_region_index", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return SP_EHDF5;
  const int64_t k = c->npairs;
  uint32_t *ranks = malloc((size_t)(k ? k : 1) * sizeof *ranks);
  uint64_t *offs = malloc((size_t)(k ? k : 1) * sizeof *offs);
  int rc = ranks && offs ? 0 : SP_ENOMEM;
  for (int64_t p = 0; rc == 0 && p < k; p++) {
    ranks[p] = (uint32_t)rank;
    offs[p] = (uint64_t)ev_at + c->first[p];
  }
  const int64_t mine = rc == 0 ? k : 0;
  int w[5];
  w[0] = sp_col_put(g, "region_ids", H5T_STD_U32LE, H5T_NATIVE_UINT32, npairs, pair_at, mine,
                    c->gid, dxpl);
  w[1] =
      sp_col_put(g, "ranks", H5T_STD_U32LE, H5T_NATIVE_UINT32, npairs, pair_at, mine, ranks, dxpl);
  w[2] = sp_col_put(g, "event_offsets", H5T_STD_U64LE, H5T_NATIVE_UINT64, npairs, pair_at, mine,
                    offs, dxpl);
  w[3] = sp_col_put(g, "event_counts", H5T_STD_U64LE, H5T_NATIVE_UINT64, npairs, pair_at, mine,
                    c->count, dxpl);
  w[4] = sp_col_put(g, "num_calls", H5T_STD_I64LE, H5T_NATIVE_INT64, npairs, pair_at, mine,
                    c->ncalls, dxpl);
  for (int i = 0; i < 5; i++)
    if (rc == 0) rc = w[i];
  free(ranks);
  free(offs);
  H5Gclose(g);
  return rc;
}

/* events/: this rank's events at ev_at of nev. */
static int sp_col_events_write(hid_t file, const sp_col_local_t *c, int64_t ev_at, int64_t nev,
                               int any_mpi, hid_t dxpl) {
  hid_t g = H5Gcreate2(file, "events", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return SP_EHDF5;
  const int64_t k = c->nevents;
  const hid_t i64 = H5T_STD_I64LE, m64 = H5T_NATIVE_INT64;
  int rc = sp_col_put(g, "start_times", i64, m64, nev, ev_at, k, c->start, dxpl);
  rc |= sp_col_put(g, "end_times", i64, m64, nev, ev_at, k, c->end, dxpl);
  rc |= sp_col_put(g, "thread_ids", H5T_STD_I32LE, H5T_NATIVE_INT32, nev, ev_at, k, c->tid, dxpl);
  rc |= sp_col_put(g, "call_ids", i64, m64, nev, ev_at, k, c->call_id, dxpl);
  rc |= sp_col_put(g, "parent_ids", i64, m64, nev, ev_at, k, c->parent_id, dxpl);
  if (any_mpi) { /* -1 where not an MPI call region (columnar_plan.c) */
    rc |= sp_col_put(g, "mpi_bytes", i64, m64, nev, ev_at, k, c->bytes, dxpl);
    rc |= sp_col_put(g, "mpi_peers", H5T_STD_I32LE, H5T_NATIVE_INT32, nev, ev_at, k, c->peer, dxpl);
  }
  H5Gclose(g);
  return rc ? SP_EHDF5 : 0;
}

/* rank_info/: one element per rank, each rank its own. */
static int sp_col_rank_info(hid_t file, const sp_local_t *l, int rank, int nranks, hid_t dxpl) {
  hid_t g = H5Gcreate2(file, "rank_info", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return SP_EHDF5;
  const sp_rank_plan_t *pl = &l->plan;
  char host[64];
  memcpy(host, pl->host, sizeof host);
  host[sizeof host - 1] = '\0';
  hid_t t = sp_col_str(sizeof host);
  int rc = sp_col_put(g, "hostnames", t, t, nranks, rank, 1, host, dxpl);
  H5Tclose(t);
  int32_t threads = pl->nthreads;
  rc |= sp_col_put(g, "threads", H5T_STD_I32LE, H5T_NATIVE_INT32, nranks, rank, 1, &threads, dxpl);
  rc |= sp_col_put(g, "events_lost", H5T_STD_I64LE, H5T_NATIVE_INT64, nranks, rank, 1,
                   &pl->events_lost, dxpl);
  static const char *const names[2][2] = {{"clock_offset_ns", "clock_offset_error_ns"},
                                          {"clock_offset_end_ns", "clock_offset_end_error_ns"}};
  for (int w = 0; w < 2; w++) {
    const sp_clock_offset_t *o = &pl->clock[w];
    int64_t v[2] = {o->valid ? o->offset_ns : INT64_MIN, o->valid ? o->error_ns : INT64_MIN};
    for (int j = 0; j < 2; j++)
      rc |=
          sp_col_put(g, names[w][j], H5T_STD_I64LE, H5T_NATIVE_INT64, nranks, rank, 1, &v[j], dxpl);
  }
  H5Gclose(g);
  return rc ? SP_EHDF5 : 0;
}

/* The file's objects, in the same order on every rank. */
static int sp_col_fill(hid_t file, sp_par_t *par, const sp_local_t *l, const sp_col_local_t *c,
                       const int64_t *before, const int64_t *total) {
  hid_t dxpl = sp__par_dxpl(par);
  int64_t schema = 3;
  int rc = sp__h5_attr(file, "scope_profiler_schema", H5T_NATIVE_INT64, &schema);
  rc |= sp__h5_attr_str(file, "storage_layout", "columnar");
  if (rc == 0) rc = sp_col_metadata(file, c, par->size);
  if (rc == 0) rc = sp_col_names_write(file, c, par->rank, dxpl);
  if (rc == 0) rc = sp_col_index_write(file, c, par->rank, before[0], before[1], total[0], dxpl);
  if (rc == 0) rc = sp_col_events_write(file, c, before[1], total[1], total[2] > 0, dxpl);
  if (rc == 0) rc = sp_col_rank_info(file, l, par->rank, par->size, dxpl);
  H5Pclose(dxpl);
  return rc ? SP_EHDF5 : 0;
}

int sp__columnar_write(sp_par_t *par, const char *path, const sp_local_t *l) {
  sp_col_local_t c;
  int rc = sp__col_local_build(par, l, &c);
  int64_t mine[3] = {c.npairs, c.nevents, c.any_mpi}, before[3], total[3];
  if (rc != 0) mine[0] = mine[1] = mine[2] = 0;
  int src = sp__par_scan_i64(par, mine, 3, before, total);
  if (rc == 0) rc = src;
  /* A failure so far is agreed on before any collective HDF5 call. */
  rc = sp__par_agree(par, rc);
  if (rc == 0 && (total[0] > UINT32_MAX || c.nnames > UINT32_MAX || par->size > 999999999))
    rc = SP_EINVAL; /* uint32 region ids and ranks */
  hid_t fapl = rc == 0 ? sp__par_fapl(par) : -1;
  hid_t file = -1;
  if (rc == 0) {
    H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18);
    file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0) rc = SP_EPATH;
  }
  /* The creation is collective: every rank got the file or none did. */
  if (fapl >= 0) rc = sp__par_agree(par, rc);
  if (rc == 0) rc = sp_col_fill(file, par, l, &c, before, total);
  if (file >= 0 && H5Fclose(file) < 0 && rc == 0) rc = SP_EHDF5;
  if (fapl >= 0) H5Pclose(fapl);
  sp__col_local_free(&c);
  return rc;
}

int sp__columnar_chosen(const sp_par_t *par, int32_t nregions) {
  const int layout = sp__state.set.layout, big = par->size >= SP_COLUMNAR_RANKS;
  if (!sp__state.cfg.time_trace) return 0; /* count-only: num_calls attributes only */
  if (layout == SP_LAYOUT_RANKS && big && par->rank == 0)
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "SCOPE_PROFILER_LAYOUT=ranks at %d ranks: finalize creates one group and two "
            "datasets per (rank, region), about 100 us each, so about %.0f s with %d regions "
            "per rank; SCOPE_PROFILER_LAYOUT=columnar writes a file of a fixed number of objects",
            par->size, 100e-6 * par->size * (nregions > 0 ? nregions : 1), (int)nregions);
  return layout == SP_LAYOUT_COLUMNAR || layout == SP_LAYOUT_BOTH ||
         (layout == SP_LAYOUT_AUTO && big);
}
