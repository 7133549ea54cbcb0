/* reader_samples.c - the sampler's samples of a rank (SCOPE_PROFILER_SAMPLE_MS):
 *
 *   rank<N>/samples            attribute period_ns (int64)
 *     times      int64[S]  ns, CLOCK_MONOTONIC (the stamps' clock)
 *     rss_bytes  int64[S]  resident set size
 *     cpu_ns     int64[S]  CPU time of the process, all threads
 *   rank<N>                    attribute peak_rss_bytes (int64)
 *
 * A columnar file (the core's columnar_extras.c) holds every rank's in
 * samples/{times,rss_bytes,cpu_ns}, rank k's at [offsets[k], +counts[k]),
 * with samples/period_ns[k] (0: not sampled) and rank_info/peak_rss_bytes.
 *
 * Read on demand; absent samples are not an error (most files have none).
 * The three arrays must have one length, checked before anything is
 * allocated; times are put on rank 0's clock like the stamps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

void sp_reader_samples_free(sp_reader_samples_t *s) {
  if (!s) return;
  free(s->times);
  free(s->rss_bytes);
  free(s->cpu_ns);
  memset(s, 0, sizeof *s);
}

static int64_t sp_attr_i64_or(hid_t obj, const char *name, int64_t dflt) {
  if (H5Aexists(obj, name) <= 0) return dflt;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  int64_t v = dflt;
  if (a < 0) return dflt;
  hid_t s = H5Aget_space(a);
  if (s >= 0 && H5Sget_simple_extent_npoints(s) == 1 && H5Aread(a, H5T_NATIVE_INT64, &v) < 0)
    v = dflt;
  if (s >= 0) H5Sclose(s);
  H5Aclose(a);
  return v;
}

/* Dataset name of g into *out (n elements); 0 or an error with the message. */
static int sp_samples_column(sp_reader_t *r, hid_t g, const char *where, const char *name,
                             int64_t *n, int64_t **out) {
  if (sp__link_kind(g, name) != SP_LINK_LOCAL)
    return sp__reader_fail(r, SP_READER_ELAYOUT, "%s/%s: missing", where, name);
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0) return sp__reader_fail(r, SP_READER_EHDF5, "%s/%s: cannot open", where, name);
  hid_t s = H5Dget_space(d), t = H5Dget_type(d);
  int rc = 0;
  hsize_t dims[1] = {0};
  if (s < 0 || t < 0 || H5Sget_simple_extent_ndims(s) != 1 ||
      H5Sget_simple_extent_dims(s, dims, NULL) < 0 || H5Tget_class(t) != H5T_INTEGER)
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s/%s: not a 1-D integer dataset", where, name);
  if (rc == 0 && *n >= 0 && (int64_t)dims[0] != *n)
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s/%s: %lld values, times has %lld", where, name,
                         (long long)dims[0], (long long)*n);
  if (rc == 0) rc = sp__dataset_size_check(r, d, where, name, (int64_t)dims[0], 8);
  if (rc == 0 && sp__memory_check((int64_t)dims[0], 8) != 0)
    rc = sp__reader_fail(r, SP_READER_ENOMEM, "%s/%s: too large", where, name);
  int64_t *v = rc == 0 ? malloc(dims[0] ? (size_t)dims[0] * 8 : 8) : NULL;
  if (rc == 0 && !v) rc = sp__reader_fail(r, SP_READER_ENOMEM, "%s: out of memory", where);
  if (rc == 0 && dims[0] > 0 && H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
    rc = sp__reader_fail(r, SP_READER_EHDF5, "%s/%s: cannot read", where, name);
  if (t >= 0) H5Tclose(t);
  if (s >= 0) H5Sclose(s);
  H5Dclose(d);
  if (rc != 0) {
    free(v);
    return rc;
  }
  *n = (int64_t)dims[0];
  *out = v;
  return 0;
}

/* n int64 values of the 1-D integer dataset path from element off into
 * *out (malloc'd); 0, 1 when path is absent (no samples), or an error. */
static int sp_samples_slice(sp_reader_t *r, const char *path, int64_t off, int64_t n,
                            int64_t **out) {
  *out = NULL;
  if (H5Lexists(r->file, "samples", H5P_DEFAULT) <= 0 ||
      sp__link_kind(r->file, "samples") != SP_LINK_LOCAL ||
      H5Lexists(r->file, path, H5P_DEFAULT) <= 0)
    return 1;
  hid_t d = H5Dopen2(r->file, path, H5P_DEFAULT);
  if (d < 0) return sp__reader_fail(r, SP_READER_EHDF5, "%s: cannot open", path);
  hid_t s = H5Dget_space(d), t = H5Dget_type(d);
  hsize_t dims[1] = {0};
  int rc = 0;
  if (s < 0 || t < 0 || H5Sget_simple_extent_ndims(s) != 1 ||
      H5Sget_simple_extent_dims(s, dims, NULL) < 0 || H5Tget_class(t) != H5T_INTEGER || off < 0 ||
      n < 0 || (uint64_t)off + (uint64_t)n > dims[0])
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s: not a 1-D integer dataset holding [%lld, %lld)",
                         path, (long long)off, (long long)(off + n));
  if (rc == 0 && sp__memory_check(n, 8) != 0)
    rc = sp__reader_fail(r, SP_READER_ENOMEM, "%s: too large", path);
  int64_t *v = rc == 0 ? malloc(n ? (size_t)n * 8 : 8) : NULL;
  if (rc == 0 && !v) rc = sp__reader_fail(r, SP_READER_ENOMEM, "%s: out of memory", path);
  if (rc == 0 && n > 0) {
    hsize_t o[1] = {(hsize_t)off}, c[1] = {(hsize_t)n};
    hid_t ms = H5Screate_simple(1, c, NULL);
    if (H5Sselect_hyperslab(s, H5S_SELECT_SET, o, NULL, c, NULL) < 0 ||
        H5Dread(d, H5T_NATIVE_INT64, ms, s, H5P_DEFAULT, v) < 0)
      rc = sp__reader_fail(r, SP_READER_EHDF5, "%s: cannot read", path);
    H5Sclose(ms);
  }
  if (t >= 0) H5Tclose(t);
  if (s >= 0) H5Sclose(s);
  H5Dclose(d);
  if (rc != 0) free(v);
  *out = rc == 0 ? v : NULL;
  return rc;
}

/* A columnar file's samples of rank k: samples/{offsets,counts,period_ns}
 * give its slice of samples/{times,rss_bytes,cpu_ns};
 * rank_info/peak_rss_bytes its peak (the core's columnar_extras.c). */
static int sp_samples_columnar(sp_reader_t *r, int k, sp_reader_samples_t *out) {
  const int64_t id = r->ranks[k].id;
  int64_t *o = NULL, *n = NULL, *per = NULL, *peak = NULL;
  int rc = sp_samples_slice(r, "samples/offsets", id, 1, &o);
  if (rc == 0) rc = sp_samples_slice(r, "samples/counts", id, 1, &n);
  if (rc == 0) rc = sp_samples_slice(r, "samples/period_ns", id, 1, &per);
  if (rc == 0) rc = sp_samples_slice(r, "rank_info/peak_rss_bytes", id, 1, &peak);
  int64_t **col[3] = {&out->times, &out->rss_bytes, &out->cpu_ns};
  static const char *const name[3] = {"samples/times", "samples/rss_bytes", "samples/cpu_ns"};
  const int sampled = rc == 0 && per[0] > 0;
  for (int c = 0; sampled && rc == 0 && c < 3; c++)
    rc = sp_samples_slice(r, name[c], o[0], n[0], col[c]);
  if (rc == 0) {
    out->peak_rss_bytes = peak[0];
    if (sampled) {
      out->period_ns = per[0];
      out->n = n[0];
      out->present = 1;
      for (int64_t i = 0; i < out->n; i++)
        out->times[i] = sp_reader_time_align(r, k, out->times[i]);
    }
  }
  free(o);
  free(n);
  free(per);
  free(peak);
  if (rc == 1) rc = 0; /* no samples in the file: not an error */
  if (rc != 0) sp_reader_samples_free(out);
  return rc;
}

int sp_reader_samples_load(sp_reader_t *r, int k, sp_reader_samples_t *out) {
  if (!out) return SP_READER_EINVAL;
  memset(out, 0, sizeof *out);
  if (!r || k < 0 || k >= r->nranks) return SP_READER_EINVAL;
  /* A columnar file: its samples columns, when it has them; an aggregate
   * file has no rank groups: no samples, and no HDF5 error stack printed
   * for a group that is not there. */
  if (r->columnar) {
    sp_h5_quiet_t q;
    sp__h5_quiet_begin(&q);
    out->peak_rss_bytes = -1;
    int rc = sp_samples_columnar(r, k, out);
    sp__h5_quiet_end(&q);
    return rc;
  }
  char where[48];
  snprintf(where, sizeof where, "rank%d", r->ranks[k].id);
  hid_t rg = H5Gopen2(r->file, where, H5P_DEFAULT);
  if (rg < 0) return 0; /* a columnar or aggregate file: no rank groups */
  out->peak_rss_bytes = sp_attr_i64_or(rg, "peak_rss_bytes", -1);
  if (sp__link_kind(rg, "samples") != SP_LINK_LOCAL) {
    H5Gclose(rg);
    return 0;
  }
  hid_t g = H5Gopen2(rg, "samples", H5P_DEFAULT);
  H5Gclose(rg);
  if (g < 0) return 0;
  snprintf(where, sizeof where, "rank%d/samples", r->ranks[k].id);
  out->period_ns = sp_attr_i64_or(g, "period_ns", 0);
  int64_t n = -1;
  int rc = sp_samples_column(r, g, where, "times", &n, &out->times);
  if (rc == 0) rc = sp_samples_column(r, g, where, "rss_bytes", &n, &out->rss_bytes);
  if (rc == 0) rc = sp_samples_column(r, g, where, "cpu_ns", &n, &out->cpu_ns);
  H5Gclose(g);
  if (rc != 0) {
    sp_reader_samples_free(out);
    return rc;
  }
  out->present = 1;
  out->n = n;
  for (int64_t i = 0; i < n; i++) out->times[i] = sp_reader_time_align(r, k, out->times[i]);
  return 0;
}
