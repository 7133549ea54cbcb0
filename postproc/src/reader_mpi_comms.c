/* reader_mpi_comms.c - the communicators of one rank (rank<N>/mpi).
 *
 * The core writes them at finalize as two attributes: comm_sizes (one
 * size per id) and comm_members (the world ranks of each id's members,
 * one id after the other); docs/automatic-regions.md "Tags and
 * communicators". Absent in files recorded before issue 50 and without
 * SCOPE_PROFILER_PROFILE_MPI: not an error. A columnar file holds every
 * rank's as rows of mpi_comms/ (ranks, ids, sizes, member_offsets,
 * members; ranks ascending), given here as the same table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

void sp_reader_mpi_comms_free(sp_reader_mpi_comms_t *c) {
  if (!c) return;
  free(c->sizes);
  free(c->offsets);
  free(c->members);
  memset(c, 0, sizeof *c);
}

/* Reads attribute name of obj (1-D integers) into a new array; *n its length. */
static int sp_comms_attr(sp_reader_t *r, hid_t obj, const char *name, int32_t **out, int64_t *n) {
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) return sp__reader_fail(r, SP_READER_EHDF5, "rank/mpi: cannot open %s", name);
  hid_t s = H5Aget_space(a), t = H5Aget_type(a);
  hssize_t np = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
  int rc = 0;
  if (np < 0 || t < 0 || H5Tget_class(t) != H5T_INTEGER || np > (1 << 26))
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "rank/mpi: %s is not integers", name);
  if (rc == 0) {
    *out = malloc((size_t)(np > 0 ? np : 1) * sizeof **out);
    if (!*out) rc = sp__reader_fail(r, SP_READER_ENOMEM, "out of memory");
  }
  if (rc == 0 && np > 0 && H5Aread(a, H5T_NATIVE_INT32, *out) < 0)
    rc = sp__reader_fail(r, SP_READER_EHDF5, "rank/mpi: %s: read failed", name);
  *n = np;
  if (t >= 0) H5Tclose(t);
  if (s >= 0) H5Sclose(s);
  H5Aclose(a);
  return rc;
}

static int sp_comms_read(sp_reader_t *r, hid_t g, sp_reader_mpi_comms_t *out) {
  int64_t ns = 0, nm = 0;
  int rc = sp_comms_attr(r, g, "comm_sizes", &out->sizes, &ns);
  if (rc == 0) rc = sp_comms_attr(r, g, "comm_members", &out->members, &nm);
  if (rc == 0) {
    out->offsets = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *out->offsets);
    if (!out->offsets) return sp__reader_fail(r, SP_READER_ENOMEM, "out of memory");
  }
  int64_t off = 0;
  for (int64_t c = 0; rc == 0 && c < ns; c++) {
    out->offsets[c] = off;
    if (out->sizes[c] < 0) out->sizes[c] = 0;
    off += out->sizes[c];
  }
  if (rc == 0 && off != nm)
    rc = sp__reader_fail(r, SP_READER_ELAYOUT,
                         "rank/mpi: comm_sizes sum to %lld, comm_members has %lld", (long long)off,
                         (long long)nm);
  out->n = (int)ns;
  out->present = rc == 0;
  return rc;
}

/* The rank's rows [lo, lo + m) as the table by id (gaps: size 0). */
static int sp_comms_table(sp_reader_t *r, hid_t g, int64_t lo, int64_t m,
                          sp_reader_mpi_comms_t *out) {
  int32_t *ids = malloc((size_t)m * sizeof *ids), *sz = malloc((size_t)m * sizeof *sz);
  int64_t *mo = malloc((size_t)m * sizeof *mo);
  int rc = ids && sz && mo ? 0 : sp__reader_fail(r, SP_READER_ENOMEM, "out of memory");
  if (rc == 0) rc = sp__read_int_rows(r, g, "mpi_comms", "ids", lo, m, H5T_NATIVE_INT32, ids);
  if (rc == 0) rc = sp__read_int_rows(r, g, "mpi_comms", "sizes", lo, m, H5T_NATIVE_INT32, sz);
  if (rc == 0)
    rc = sp__read_int_rows(r, g, "mpi_comms", "member_offsets", lo, m, H5T_NATIVE_INT64, mo);
  int32_t n = 0;
  int64_t nm = 0;
  for (int64_t i = 0; rc == 0 && i < m; i++) {
    if (ids[i] < 0 || ids[i] >= (1 << 20) || sz[i] < 0 || sz[i] > (1 << 26) || mo[i] < 0)
      rc = sp__reader_fail(r, SP_READER_ELAYOUT, "mpi_comms: a bad row");
    else if (ids[i] >= n)
      n = ids[i] + 1;
    nm += rc == 0 ? sz[i] : 0;
  }
  if (rc == 0) {
    out->sizes = calloc((size_t)n + 1, sizeof *out->sizes);
    out->offsets = calloc((size_t)n + 1, sizeof *out->offsets);
    out->members = malloc((size_t)(nm > 0 ? nm : 1) * sizeof *out->members);
    if (!out->sizes || !out->offsets || !out->members)
      rc = sp__reader_fail(r, SP_READER_ENOMEM, "out of memory");
  }
  for (int64_t i = 0; rc == 0 && i < m; i++) out->sizes[ids[i]] = sz[i];
  int64_t at = 0;
  for (int32_t c = 0; rc == 0 && c < n; c++) { /* members in id order */
    out->offsets[c] = at;
    for (int64_t i = 0; rc == 0 && i < m && out->sizes[c] > 0; i++)
      if (ids[i] == c)
        rc = sp__read_int_rows(r, g, "mpi_comms", "members", mo[i], sz[i], H5T_NATIVE_INT32,
                               out->members + at);
    at += out->sizes[c];
  }
  out->n = n;
  out->present = rc == 0;
  free(ids);
  free(sz);
  free(mo);
  return rc;
}

static int sp_comms_columnar(sp_reader_t *r, int id, sp_reader_mpi_comms_t *out) {
  if (sp__link_kind(r->file, "mpi_comms") != SP_LINK_LOCAL) return 0;
  hid_t g = H5Gopen2(r->file, "mpi_comms", H5P_DEFAULT);
  if (g < 0) return 0;
  int64_t total = -1;
  hid_t d = H5Dopen2(g, "ranks", H5P_DEFAULT);
  if (d >= 0) {
    hid_t s = H5Dget_space(d);
    hsize_t dims[1] = {0};
    if (s >= 0 && H5Sget_simple_extent_ndims(s) == 1 &&
        H5Sget_simple_extent_dims(s, dims, NULL) == 1)
      total = (int64_t)dims[0];
    if (s >= 0) H5Sclose(s);
    H5Dclose(d);
  }
  int64_t lo = total >= 0 ? sp__ranks_lower(r, g, "mpi_comms", total, id) : -1;
  int64_t hi = lo >= 0 ? sp__ranks_lower(r, g, "mpi_comms", total, id + 1) : -1;
  int rc = lo >= 0 && hi >= lo
               ? 0
               : sp__reader_fail(r, SP_READER_ELAYOUT, "mpi_comms/ranks: unreadable");
  if (rc == 0 && hi > lo) rc = sp_comms_table(r, g, lo, hi - lo, out);
  H5Gclose(g);
  return rc;
}

int sp_reader_mpi_comms(sp_reader_t *r, int k, sp_reader_mpi_comms_t *out) {
  if (!out) return SP_READER_EINVAL;
  memset(out, 0, sizeof *out);
  if (!r || k < 0 || k >= r->nranks || r->aggregate) return r ? 0 : SP_READER_EINVAL;
  if (r->columnar) {
    sp_h5_quiet_t q;
    sp__h5_quiet_begin(&q);
    int rc = sp_comms_columnar(r, r->ranks[k].id, out);
    sp__h5_quiet_end(&q);
    if (rc) sp_reader_mpi_comms_free(out);
    return rc;
  }
  char path[64];
  snprintf(path, sizeof path, "rank%d/mpi", r->ranks[k].id);
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  int rc = 0;
  if (H5Lexists(r->file, path, H5P_DEFAULT) > 0) {
    hid_t g = H5Gopen2(r->file, path, H5P_DEFAULT);
    if (g >= 0 && H5Aexists(g, "comm_sizes") > 0 && H5Aexists(g, "comm_members") > 0)
      rc = sp_comms_read(r, g, out);
    if (g >= 0) H5Gclose(g);
  }
  sp__h5_quiet_end(&q);
  if (rc) sp_reader_mpi_comms_free(out);
  return rc;
}
