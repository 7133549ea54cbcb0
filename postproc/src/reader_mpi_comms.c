/* reader_mpi_comms.c - the communicators of one rank (rank<N>/mpi).
 *
 * The core writes them at finalize as two attributes: comm_sizes (one
 * size per id) and comm_members (the world ranks of each id's members,
 * one id after the other); docs/automatic-regions.md "Tags and
 * communicators". Absent in files recorded before issue 50 and without
 * SCOPE_PROFILER_PROFILE_MPI: not an error. */
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

int sp_reader_mpi_comms(sp_reader_t *r, int k, sp_reader_mpi_comms_t *out) {
  if (!out) return SP_READER_EINVAL;
  memset(out, 0, sizeof *out);
  if (!r || k < 0 || k >= r->nranks || r->columnar || r->aggregate) return r ? 0 : SP_READER_EINVAL;
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
