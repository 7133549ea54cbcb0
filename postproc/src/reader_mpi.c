/* reader_mpi.c - the bytes and peer of each MPI call (profile_mpi).
 *
 * Read on demand like the interval arrays; absent datasets are not an
 * error (only MPI call regions of files recorded with
 * SCOPE_PROFILER_PROFILE_MPI=1 have them). Their length is checked
 * against the pair's intervals before anything is allocated. */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

void sp_reader_mpi_free(sp_reader_mpi_t *m) {
  if (!m) return;
  free(m->bytes);
  free(m->peer);
  free(m->tag);
  free(m->comm);
  memset(m, 0, sizeof *m);
}

/* Reads the 1-D integer dataset name of g, n elements, as mem_type. */
static int sp_mpi_read(sp_reader_t *r, hid_t g, const char *name, int64_t n, hid_t mem_type,
                       void *buf) {
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0) return sp__reader_fail(r, SP_READER_ELAYOUT, "%s is not a dataset", name);
  hid_t sp = H5Dget_space(d), t = H5Dget_type(d);
  hsize_t dims[1] = {0};
  int ok = sp >= 0 && t >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
           H5Sget_simple_extent_dims(sp, dims, NULL) == 1 && (int64_t)dims[0] == n &&
           H5Tget_class(t) == H5T_INTEGER;
  int rc = ok ? 0
              : sp__reader_fail(r, SP_READER_ELAYOUT, "%s: not %lld integers (as start_times)",
                                name, (long long)n);
  if (rc == 0 && n > 0 && H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
    rc = sp__reader_fail(r, SP_READER_EHDF5, "%s: read failed (truncated file?)", name);
  if (t >= 0) H5Tclose(t);
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  return rc;
}

static int sp_mpi_load_quiet(sp_reader_t *r, int k, const sp_rank_region_t *rr,
                             sp_reader_mpi_t *out, int bytes) {
  hid_t g = sp__reader_open_region(r, k, rr);
  if (g < 0) return 0;
  int rc = 0;
  /* MPI-IO calls store their file's id (file_ids, docs/io.md) where the
   * others store their peer: their bytes count as before, with no peer. */
  const int file_ids = rr->link && strncmp(rr->link, "MPI_File_", 9) == 0 &&
                       H5Lexists(g, "file_ids", H5P_DEFAULT) > 0;
  if (H5Lexists(g, "bytes", H5P_DEFAULT) > 0 &&
      (file_ids || H5Lexists(g, "peer", H5P_DEFAULT) > 0)) {
    size_t n = (size_t)(rr->n > 0 ? rr->n : 1);
    out->bytes = bytes ? malloc(n * sizeof *out->bytes) : NULL;
    out->peer = malloc(n * sizeof *out->peer);
    if ((bytes && !out->bytes) || !out->peer)
      rc = sp__reader_fail(r, SP_READER_ENOMEM, "out of memory");
    if (rc == 0 && bytes) rc = sp_mpi_read(r, g, "bytes", rr->n, H5T_NATIVE_INT64, out->bytes);
    if (rc == 0 && !file_ids) rc = sp_mpi_read(r, g, "peer", rr->n, H5T_NATIVE_INT32, out->peer);
    for (int64_t i = 0; rc == 0 && file_ids && i < rr->n; i++) out->peer[i] = -1;
    out->n = rr->n;
    out->present = rc == 0;
  }
  /* tag and comm (issue 50): optional, files written before them lack them. */
  if (rc == 0 && out->present && H5Lexists(g, "tag", H5P_DEFAULT) > 0 &&
      H5Lexists(g, "comm", H5P_DEFAULT) > 0) {
    size_t n = (size_t)(rr->n > 0 ? rr->n : 1);
    out->tag = malloc(n * sizeof *out->tag);
    out->comm = malloc(n * sizeof *out->comm);
    if (!out->tag || !out->comm) rc = sp__reader_fail(r, SP_READER_ENOMEM, "out of memory");
    if (rc == 0) rc = sp_mpi_read(r, g, "tag", rr->n, H5T_NATIVE_INT32, out->tag);
    if (rc == 0) rc = sp_mpi_read(r, g, "comm", rr->n, H5T_NATIVE_INT32, out->comm);
  }
  H5Gclose(g);
  return rc;
}

static int sp_mpi_read_part(sp_reader_t *r, hid_t g, const char *name, int64_t len, int64_t first,
                            int64_t n, hid_t mem_type, void *buf);

/* Columnar: an MPI call region's slice of events/mpi_peers, mpi_tags and
 * mpi_comms (what the wait states pair by) and, when asked, of mpi_bytes.
 * MPI-IO calls hold file ids in mpi_peers: their bytes alone, no peer. */
static int sp_mpi_load_columnar(sp_reader_t *r, const sp_rank_region_t *rr, sp_reader_mpi_t *out,
                                int bytes) {
  const char *name = r->regions[rr->region].name;
  const int io = strncmp(name, "MPI_File_", 9) == 0;
  if (strncmp(name, "MPI_", 4) != 0 || (io && !bytes) || rr->n <= 0) return 0;
  if (sp__link_kind(r->file, "events") != SP_LINK_LOCAL) return 0;
  hid_t g = H5Gopen2(r->file, "events", H5P_DEFAULT);
  if (g < 0) return 0;
  int64_t len = sp__dataset_len(g, "mpi_peers");
  const int ids = !io && sp__dataset_len(g, "mpi_tags") == len &&
                  sp__dataset_len(g, "mpi_comms") == len;
  int rc = 0;
  if (len >= 0 && (io || ids) && (!bytes || sp__dataset_len(g, "mpi_bytes") == len)) {
    if (rr->offset < 0 || rr->offset + rr->n > len)
      rc = sp__reader_fail(r, SP_READER_ELAYOUT, "events/mpi_peers: fewer values than events");
    size_t n = (size_t)rr->n;
    out->peer = rc == 0 ? malloc(n * sizeof *out->peer) : NULL;
    out->tag = rc == 0 && ids ? malloc(n * sizeof *out->tag) : NULL;
    out->comm = rc == 0 && ids ? malloc(n * sizeof *out->comm) : NULL;
    out->bytes = rc == 0 && bytes ? malloc(n * sizeof *out->bytes) : NULL;
    if (rc == 0 && (!out->peer || (ids && (!out->tag || !out->comm)) || (bytes && !out->bytes)))
      rc = sp__reader_fail(r, SP_READER_ENOMEM, "out of memory");
    if (rc == 0 && ids)
      rc = sp_mpi_read_part(r, g, "mpi_peers", len, rr->offset, rr->n, H5T_NATIVE_INT32, out->peer);
    for (int64_t i = 0; rc == 0 && io && i < rr->n; i++) out->peer[i] = -1;
    if (rc == 0 && ids)
      rc = sp_mpi_read_part(r, g, "mpi_tags", len, rr->offset, rr->n, H5T_NATIVE_INT32, out->tag);
    if (rc == 0 && ids)
      rc = sp_mpi_read_part(r, g, "mpi_comms", len, rr->offset, rr->n, H5T_NATIVE_INT32, out->comm);
    if (rc == 0 && bytes)
      rc = sp_mpi_read_part(r, g, "mpi_bytes", len, rr->offset, rr->n, H5T_NATIVE_INT64, out->bytes);
    out->n = rr->n;
    out->present = rc == 0;
  }
  H5Gclose(g);
  return rc;
}

static int sp_mpi_load(sp_reader_t *r, int g, int k, sp_reader_mpi_t *out, int bytes) {
  if (!out) return SP_READER_EINVAL;
  memset(out, 0, sizeof *out);
  int bad = sp__reader_check_pair(r, g, k);
  if (bad) return bad;
  const sp_rank_region_t *rr = sp__reader_find(r, g, k);
  if (!rr || !rr->has_times || r->aggregate) return 0; /* none */
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  int rc = r->columnar ? sp_mpi_load_columnar(r, rr, out, bytes)
                       : sp_mpi_load_quiet(r, k, rr, out, bytes);
  sp__h5_quiet_end(&q);
  if (rc) sp_reader_mpi_free(out);
  return rc;
}

int sp_reader_mpi_load(sp_reader_t *r, int g, int k, sp_reader_mpi_t *out) {
  return sp_mpi_load(r, g, k, out, 1);
}

int sp_reader_mpi_load_ids(sp_reader_t *r, int g, int k, sp_reader_mpi_t *out) {
  return sp_mpi_load(r, g, k, out, 0);
}

/* Elements [first, first + n) of the 1-D integer dataset name of g, which
 * must hold len, as mem_type. */
static int sp_mpi_read_part(sp_reader_t *r, hid_t g, const char *name, int64_t len, int64_t first,
                            int64_t n, hid_t mem_type, void *buf) {
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0) return sp__reader_fail(r, SP_READER_ELAYOUT, "%s is not a dataset", name);
  hid_t sp = H5Dget_space(d), t = H5Dget_type(d);
  hsize_t dims[1] = {0}, off[1] = {(hsize_t)first}, cnt[1] = {(hsize_t)n};
  int ok = sp >= 0 && t >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
           H5Sget_simple_extent_dims(sp, dims, NULL) == 1 && (int64_t)dims[0] == len &&
           H5Tget_class(t) == H5T_INTEGER;
  int rc = ok ? 0
              : sp__reader_fail(r, SP_READER_ELAYOUT, "%s: not %lld integers (as start_times)",
                                name, (long long)len);
  hid_t mem = rc == 0 ? H5Screate_simple(1, cnt, NULL) : -1;
  if (rc == 0 && (mem < 0 || H5Sselect_hyperslab(sp, H5S_SELECT_SET, off, NULL, cnt, NULL) < 0 ||
                  H5Dread(d, mem_type, mem, sp, H5P_DEFAULT, buf) < 0))
    rc = sp__reader_fail(r, SP_READER_EHDF5, "%s: read failed (truncated file?)", name);
  if (mem >= 0) H5Sclose(mem);
  if (t >= 0) H5Tclose(t);
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  return rc;
}

/* Columnar: calls [first, first + n) of the pair's slice of events/mpi_bytes
 * and mpi_peers (-1 for MPI-IO calls, whose mpi_peers are file ids). n, 0
 * when the file has no such columns, or an error. */
static int64_t sp_mpi_range_columnar(sp_reader_t *r, const sp_rank_region_t *rr, int64_t first,
                                     int64_t n, int64_t *bytes, int32_t *peer) {
  const char *name = r->regions[rr->region].name;
  const int io = strncmp(name, "MPI_File_", 9) == 0;
  if (strncmp(name, "MPI_", 4) != 0 || sp__link_kind(r->file, "events") != SP_LINK_LOCAL) return 0;
  hid_t g = H5Gopen2(r->file, "events", H5P_DEFAULT);
  if (g < 0) return 0;
  int64_t len = sp__dataset_len(g, "mpi_bytes"), rc = 0;
  if (len >= 0 && sp__dataset_len(g, "mpi_peers") == len) {
    if (rr->offset < 0 || rr->offset + rr->n > len)
      rc = sp__reader_fail(r, SP_READER_ELAYOUT, "events/mpi_bytes: fewer values than events");
    if (rc == 0)
      rc = sp_mpi_read_part(r, g, "mpi_bytes", len, rr->offset + first, n, H5T_NATIVE_INT64, bytes);
    if (rc == 0 && !io)
      rc = sp_mpi_read_part(r, g, "mpi_peers", len, rr->offset + first, n, H5T_NATIVE_INT32, peer);
    for (int64_t i = 0; rc == 0 && io && i < n; i++) peer[i] = -1;
    if (rc == 0) rc = n;
  }
  H5Gclose(g);
  return rc;
}

int64_t sp_reader_mpi_read_range(sp_reader_t *r, int g, int k, int64_t first, int64_t count,
                                 int64_t *bytes, int32_t *peer) {
  int bad = sp__reader_check_pair(r, g, k);
  if (bad) return bad;
  if (!bytes || !peer || first < 0 || count < 0)
    return sp__reader_fail(r, SP_READER_EINVAL, "sp_reader_mpi_read_range: bad arguments");
  const sp_rank_region_t *rr = sp__reader_find(r, g, k);
  if (!rr || !rr->has_times || r->aggregate || first >= rr->n) return 0;
  int64_t n = rr->n - first < count ? rr->n - first : count;
  if (n == 0) return 0;
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  int64_t rc = 0;
  hid_t h = r->columnar ? -1 : sp__reader_open_region(r, k, rr);
  if (r->columnar) rc = sp_mpi_range_columnar(r, rr, first, n, bytes, peer);
  if (h >= 0) {
    /* MPI-IO calls store file ids where the others store peers (as the
     * whole load reads them: bytes, no peer). */
    const int file_ids = rr->link && strncmp(rr->link, "MPI_File_", 9) == 0 &&
                         H5Lexists(h, "file_ids", H5P_DEFAULT) > 0;
    if (H5Lexists(h, "bytes", H5P_DEFAULT) > 0 &&
        (file_ids || H5Lexists(h, "peer", H5P_DEFAULT) > 0)) {
      rc = sp_mpi_read_part(r, h, "bytes", rr->n, first, n, H5T_NATIVE_INT64, bytes);
      if (rc == 0 && !file_ids)
        rc = sp_mpi_read_part(r, h, "peer", rr->n, first, n, H5T_NATIVE_INT32, peer);
      for (int64_t i = 0; rc == 0 && file_ids && i < n; i++) peer[i] = -1;
      if (rc == 0) rc = n;
    }
    H5Gclose(h);
  }
  sp__h5_quiet_end(&q);
  return rc;
}
