/* reader_io.c - the I/O records of SCOPE_PROFILER_PROFILE_IO (docs/io.md):
 * one rank's per-file records and the bytes and file id of each call of an
 * I/O call region.
 *
 *   rank<N>/io@size_bins, rank<N>/io/files/<column>[F]   per-rank trace and
 *                                                        profile-mode files
 *   io_files@size_bins, io_files/ranks + <column>[rows]  columnar: rows of
 *                                                        rank after rank
 *   rank<N>/regions/<io region>/{bytes,file_ids}         per call
 *   events/{mpi_bytes,mpi_peers} of I/O call regions     per call, columnar
 *
 * Everything is read on demand, one rank at a time (a columnar rank's rows
 * are found by bisecting io_files/ranks element by element), so memory
 * follows the largest rank's files. Absence is not an error: most files
 * have no I/O records. */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

static const char *const sp_io_col_names[SP_READER_IO_NCOLS] = {
#define SP__XX(id, name) name,
    SP_READER_IO_COLUMNS(SP__XX)
#undef SP__XX
};

const char *sp_reader_io_column_name(int c) {
  return c >= 0 && c < SP_READER_IO_NCOLS ? sp_io_col_names[c] : NULL;
}

void sp_reader_io_files_free(sp_reader_io_files_t *f) {
  if (!f) return;
  for (int64_t i = 0; f->names && i < f->n; i++) free(f->names[i]);
  for (int64_t i = 0; f->slowest_ops && i < f->n; i++) free(f->slowest_ops[i]);
  free(f->names);
  free(f->slowest_ops);
  for (int c = 0; c < SP_READER_IO_NCOLS; c++) free(f->v[c]);
  free(f->apis);
  free(f->size_hist);
  memset(f, 0, sizeof *f);
}

void sp_reader_io_calls_free(sp_reader_io_calls_t *c) {
  if (!c) return;
  free(c->bytes);
  free(c->file_ids);
  memset(c, 0, sizeof *c);
}

/* Dataset name of g: its rank (1 or 2), dims, and whether its class is cls. */
static int sp_io_shape(hid_t d, H5T_class_t cls, hsize_t dims[2]) {
  hid_t s = H5Dget_space(d), t = H5Dget_type(d);
  int nd = s >= 0 ? H5Sget_simple_extent_ndims(s) : -1;
  int ok = t >= 0 && H5Tget_class(t) == cls && nd >= 1 && nd <= 2;
  dims[0] = dims[1] = 1;
  if (ok && H5Sget_simple_extent_dims(s, dims, NULL) < 0) ok = 0;
  if (t >= 0) H5Tclose(t);
  if (s >= 0) H5Sclose(s);
  return ok ? nd : -1;
}

/* Rows [lo, lo + n) of dataset path under g (width columns per row) as
 * mem_type into buf; 0 or an error. */
static int sp_io_read_rows(sp_reader_t *r, hid_t g, const char *where, const char *name,
                           H5T_class_t cls, hid_t mem_type, int64_t total, int64_t lo, int64_t n,
                           int width, void *buf) {
  if (sp__link_kind(g, name) != SP_LINK_LOCAL)
    return sp__reader_fail(r, SP_READER_ELAYOUT, "%s/%s: missing", where, name);
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0) return sp__reader_fail(r, SP_READER_EHDF5, "%s/%s: cannot open", where, name);
  hsize_t dims[2];
  int nd = sp_io_shape(d, cls, dims), rc = 0;
  if (nd != (width > 1 ? 2 : 1) || (int64_t)dims[0] != total ||
      (width > 1 && dims[1] != (hsize_t)width))
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s/%s: not %lld %s", where, name, (long long)total,
                         width > 1 ? "rows of 10 integers" : "values");
  if (rc == 0 && n > 0) {
    hid_t fs = H5Dget_space(d);
    hsize_t start[2] = {(hsize_t)lo, 0}, count[2] = {(hsize_t)n, (hsize_t)width};
    hid_t ms = H5Screate_simple(nd, count, NULL);
    if (fs < 0 || ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
        H5Dread(d, mem_type, ms, fs, H5P_DEFAULT, buf) < 0)
      rc = sp__reader_fail(r, SP_READER_EHDF5, "%s/%s: cannot read", where, name);
    if (ms >= 0) H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
  }
  H5Dclose(d);
  return rc;
}

/* Strings [lo, lo + n) of the variable-length string dataset name into
 * out[n] (malloc'd copies). */
static int sp_io_read_strings(sp_reader_t *r, hid_t g, const char *where, const char *name,
                              int64_t total, int64_t lo, int64_t n, char **out) {
  int grc = sp__gheap_guard(r); /* variable-length strings: from the global heap */
  if (grc) return grc;
  char **raw = calloc(n > 0 ? (size_t)n : 1, sizeof *raw);
  hid_t mt = H5Tcopy(H5T_C_S1);
  if (!raw || mt < 0 || H5Tset_size(mt, H5T_VARIABLE) < 0 || H5Tset_cset(mt, H5T_CSET_UTF8) < 0) {
    free(raw);
    if (mt >= 0) H5Tclose(mt);
    return sp__reader_fail(r, SP_READER_ENOMEM, "%s: out of memory", where);
  }
  int rc = sp_io_read_rows(r, g, where, name, H5T_STRING, mt, total, lo, n, 1, raw);
  for (int64_t i = 0; rc == 0 && i < n; i++) {
    out[i] = strdup(raw[i] ? raw[i] : "");
    if (!out[i]) rc = sp__reader_fail(r, SP_READER_ENOMEM, "%s: out of memory", where);
  }
  for (int64_t i = 0; i < n; i++) H5free_memory(raw[i]); /* HDF5 allocated them */
  free(raw);
  H5Tclose(mt);
  return rc;
}

/* The attribute size_bins of obj into bins (10 int64), when it has it. */
static void sp_io_bins(hid_t obj, int64_t bins[SP_READER_IO_NBINS]) {
  if (H5Aexists(obj, "size_bins") <= 0) return;
  hid_t a = H5Aopen(obj, "size_bins", H5P_DEFAULT);
  hid_t s = a >= 0 ? H5Aget_space(a) : -1;
  int64_t v[SP_READER_IO_NBINS];
  if (s >= 0 && H5Sget_simple_extent_npoints(s) == SP_READER_IO_NBINS &&
      H5Aread(a, H5T_NATIVE_INT64, v) >= 0)
    memcpy(bins, v, sizeof v);
  if (s >= 0) H5Sclose(s);
  if (a >= 0) H5Aclose(a);
}

/* Rows [lo, lo + n) of the files table g (total rows) into *out. */
static int sp_io_table(sp_reader_t *r, hid_t g, const char *where, int64_t total, int64_t lo,
                       int64_t n, sp_reader_io_files_t *out) {
  if (sp__memory_check(n * (SP_READER_IO_NCOLS + SP_READER_IO_NBINS + 3), 8) != 0)
    return sp__reader_fail(r, SP_READER_ENOMEM, "%s: too large", where);
  size_t m = n > 0 ? (size_t)n : 1;
  out->n = n;
  out->names = calloc(m, sizeof *out->names);
  out->slowest_ops = calloc(m, sizeof *out->slowest_ops);
  out->apis = calloc(m, sizeof *out->apis);
  out->size_hist = calloc(m * SP_READER_IO_NBINS, sizeof *out->size_hist);
  int rc = out->names && out->slowest_ops && out->apis && out->size_hist
               ? 0
               : sp__reader_fail(r, SP_READER_ENOMEM, "%s: out of memory", where);
  for (int c = 0; rc == 0 && c < SP_READER_IO_NCOLS; c++) {
    out->v[c] = malloc(m * sizeof *out->v[c]);
    if (!out->v[c]) rc = sp__reader_fail(r, SP_READER_ENOMEM, "%s: out of memory", where);
    if (rc == 0)
      rc = sp_io_read_rows(r, g, where, sp_io_col_names[c], H5T_INTEGER, H5T_NATIVE_INT64, total,
                           lo, n, 1, out->v[c]);
  }
  if (rc == 0) rc = sp_io_read_strings(r, g, where, "names", total, lo, n, out->names);
  if (rc == 0) rc = sp_io_read_strings(r, g, where, "slowest_ops", total, lo, n, out->slowest_ops);
  if (rc == 0)
    rc = sp_io_read_rows(r, g, where, "apis", H5T_INTEGER, H5T_NATIVE_INT32, total, lo, n, 1,
                         out->apis);
  if (rc == 0)
    rc = sp_io_read_rows(r, g, where, "size_hist", H5T_INTEGER, H5T_NATIVE_INT64, total, lo, n,
                         SP_READER_IO_NBINS, out->size_hist);
  return rc;
}

/* Element i of the int32 dataset d. */
static int sp_io_at(hid_t d, int64_t i, int32_t *v) {
  hid_t fs = H5Dget_space(d);
  hsize_t start[1] = {(hsize_t)i}, one[1] = {1};
  hid_t ms = H5Screate_simple(1, one, NULL);
  int ok = fs >= 0 && ms >= 0 &&
           H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, one, NULL) >= 0 &&
           H5Dread(d, H5T_NATIVE_INT32, ms, fs, H5P_DEFAULT, v) >= 0;
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  return ok ? 0 : -1;
}

/* First row of io_files/ranks (sorted, total rows) whose rank is >= id. */
static int64_t sp_io_lower(hid_t d, int64_t total, int32_t id) {
  int64_t lo = 0, hi = total;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    int32_t v;
    if (sp_io_at(d, mid, &v) != 0) return -1;
    if (v < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int sp_io_columnar(sp_reader_t *r, int id, sp_reader_io_files_t *out) {
  if (sp__link_kind(r->file, "io_files") != SP_LINK_LOCAL) return 0;
  hid_t g = H5Gopen2(r->file, "io_files", H5P_DEFAULT);
  if (g < 0) return 0;
  int64_t total = sp__dataset_len(g, "ranks");
  int rc = 0;
  hid_t d = total >= 0 ? H5Dopen2(g, "ranks", H5P_DEFAULT) : -1;
  int64_t lo = d >= 0 ? sp_io_lower(d, total, id) : -1;
  int64_t hi = d >= 0 && lo >= 0 && id < INT32_MAX ? sp_io_lower(d, total, id + 1) : -1;
  if (d >= 0) H5Dclose(d);
  if (lo < 0 || hi < lo)
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "io_files/ranks: missing or unreadable");
  if (rc == 0 && hi > lo) {
    out->present = 1;
    sp_io_bins(g, out->size_bins);
    rc = sp_io_table(r, g, "io_files", total, lo, hi - lo, out);
  }
  H5Gclose(g);
  return rc;
}

static int sp_io_per_rank(sp_reader_t *r, int id, sp_reader_io_files_t *out) {
  char path[64];
  snprintf(path, sizeof path, "rank%d", id);
  if (sp__link_kind(r->file, path) != SP_LINK_LOCAL) return 0;
  hid_t rg = H5Gopen2(r->file, path, H5P_DEFAULT);
  if (rg < 0) return 0;
  int rc = 0;
  if (sp__link_kind(rg, "io") == SP_LINK_LOCAL) {
    hid_t io = H5Gopen2(rg, "io", H5P_DEFAULT);
    if (io >= 0 && sp__link_kind(io, "files") == SP_LINK_LOCAL) {
      hid_t g = H5Gopen2(io, "files", H5P_DEFAULT);
      snprintf(path, sizeof path, "rank%d/io/files", id);
      int64_t total = g >= 0 ? sp__dataset_len(g, "names") : -1;
      if (total < 0) rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s/names: missing", path);
      out->present = rc == 0;
      sp_io_bins(io, out->size_bins);
      if (rc == 0) rc = sp_io_table(r, g, path, total, 0, total, out);
      if (g >= 0) H5Gclose(g);
    }
    if (io >= 0) H5Gclose(io);
  }
  H5Gclose(rg);
  return rc;
}

int sp_reader_io_files_load(sp_reader_t *r, int k, sp_reader_io_files_t *out) {
  if (!out) return SP_READER_EINVAL;
  memset(out, 0, sizeof *out);
  if (!r || k < 0 || k >= r->nranks) {
    if (r) sp__reader_fail(r, SP_READER_EINVAL, "rank index %d out of range", k);
    return SP_READER_EINVAL;
  }
  static const int64_t bins[SP_READER_IO_NBINS] = {
      100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824, INT64_MAX};
  memcpy(out->size_bins, bins, sizeof bins);
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  int id = r->ranks[k].id;
  /* A profile-mode file is columnar too, but keeps rank<N>/io. */
  int rc = sp_io_per_rank(r, id, out);
  if (rc == 0 && !out->present && r->columnar) rc = sp_io_columnar(r, id, out);
  sp__h5_quiet_end(&q);
  if (rc) sp_reader_io_files_free(out);
  return rc;
}

/* Per call, per-rank layout: the pair's bytes and file_ids. */
static int sp_io_calls_group(sp_reader_t *r, int k, const sp_rank_region_t *rr,
                             sp_reader_io_calls_t *out) {
  hid_t g = sp__reader_open_region(r, k, rr);
  if (g < 0) return 0;
  int rc = 0;
  if (sp__link_kind(g, "bytes") == SP_LINK_LOCAL && sp__link_kind(g, "file_ids") == SP_LINK_LOCAL) {
    rc = sp_io_read_rows(r, g, "region", "bytes", H5T_INTEGER, H5T_NATIVE_INT64, rr->n, 0, rr->n, 1,
                         out->bytes);
    if (rc == 0)
      rc = sp_io_read_rows(r, g, "region", "file_ids", H5T_INTEGER, H5T_NATIVE_INT32, rr->n, 0,
                           rr->n, 1, out->file_ids);
    out->present = rc == 0;
  }
  H5Gclose(g);
  return rc;
}

/* Per call, columnar: the pair's slice of events/mpi_bytes and mpi_peers,
 * which hold an I/O call's bytes and file id (docs/io.md) as they hold an
 * MPI call's bytes and peer: read for I/O call regions only. */
static int sp_io_calls_columnar(sp_reader_t *r, const sp_rank_region_t *rr,
                                sp_reader_io_calls_t *out) {
  const char *name = r->regions[rr->region].name;
  if (!(strncmp(name, "io:", 3) == 0 || strncmp(name, "MPI_File_", 9) == 0)) return 0;
  if (sp__link_kind(r->file, "events") != SP_LINK_LOCAL) return 0;
  hid_t g = H5Gopen2(r->file, "events", H5P_DEFAULT);
  if (g < 0) return 0;
  int rc = 0;
  int64_t total = sp__dataset_len(g, "mpi_bytes");
  if (total >= 0 && sp__dataset_len(g, "mpi_peers") == total) {
    if (rr->offset < 0 || rr->offset + rr->n > total)
      rc =
          sp__reader_fail(r, SP_READER_ELAYOUT,
                          "events/mpi_bytes: %lld values, fewer than the events", (long long)total);
    if (rc == 0)
      rc = sp_io_read_rows(r, g, "events", "mpi_bytes", H5T_INTEGER, H5T_NATIVE_INT64, total,
                           rr->offset, rr->n, 1, out->bytes);
    if (rc == 0)
      rc = sp_io_read_rows(r, g, "events", "mpi_peers", H5T_INTEGER, H5T_NATIVE_INT32, total,
                           rr->offset, rr->n, 1, out->file_ids);
    out->present = rc == 0;
  }
  H5Gclose(g);
  return rc;
}

int sp_reader_io_calls_load(sp_reader_t *r, int g, int k, sp_reader_io_calls_t *out) {
  if (!out) return SP_READER_EINVAL;
  memset(out, 0, sizeof *out);
  int bad = sp__reader_check_pair(r, g, k);
  if (bad) return bad;
  const sp_rank_region_t *rr = sp__reader_find(r, g, k);
  if (!rr || !rr->has_times || r->aggregate || rr->n <= 0) return 0; /* profile mode: none */
  if (sp__memory_check(rr->n, 12) != 0)
    return sp__reader_fail(r, SP_READER_ENOMEM, "I/O calls: too many");
  out->bytes = malloc((size_t)rr->n * sizeof *out->bytes);
  out->file_ids = malloc((size_t)rr->n * sizeof *out->file_ids);
  if (!out->bytes || !out->file_ids) {
    sp_reader_io_calls_free(out);
    return sp__reader_fail(r, SP_READER_ENOMEM, "I/O calls: out of memory");
  }
  out->n = rr->n;
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  int rc = r->columnar ? sp_io_calls_columnar(r, rr, out) : sp_io_calls_group(r, k, rr, out);
  sp__h5_quiet_end(&q);
  if (rc || !out->present) {
    sp_reader_io_calls_free(out);
    out->n = rc ? 0 : rr->n;
  }
  return rc;
}
