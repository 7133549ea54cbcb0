/* io_write.c - profile_io's per-file records into the file: rank<N>/io
 * (per-rank layout, profile mode's file, recovery) and io_files/ (the
 * columnar layout), docs/io.md.
 *
 *   rank<N>/io@size_bins      int64[10]: the access-size buckets' upper bounds
 *   rank<N>/io/files/names    UTF-8 strings[F], apis int32[F], the int64[F]
 *                             counts and times of sp_io_file_rec_t (SP_IO_COLS),
 *                             slowest_ops UTF-8 strings[F], size_hist int64[F][10]
 *   io_files/ranks            int32[R] and the same columns over (rank, file) rows */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_attr.h"
#include "io_write.h"

/* The int64 columns: name and field. */
static const struct {
  const char *name;
  size_t off;
} sp_io_cols[] = {
    {"opens", offsetof(sp_io_file_rec_t, opens)},
    {"reads", offsetof(sp_io_file_rec_t, reads)},
    {"writes", offsetof(sp_io_file_rec_t, writes)},
    {"seeks", offsetof(sp_io_file_rec_t, seeks)},
    {"syncs", offsetof(sp_io_file_rec_t, syncs)},
    {"meta_ops", offsetof(sp_io_file_rec_t, meta_ops)},
    {"bytes_read", offsetof(sp_io_file_rec_t, bytes_read)},
    {"bytes_written", offsetof(sp_io_file_rec_t, bytes_written)},
    {"max_offset", offsetof(sp_io_file_rec_t, max_offset)},
    {"read_ns", offsetof(sp_io_file_rec_t, read_ns)},
    {"write_ns", offsetof(sp_io_file_rec_t, write_ns)},
    {"meta_ns", offsetof(sp_io_file_rec_t, meta_ns)},
    {"first_ns", offsetof(sp_io_file_rec_t, first_ns)},
    {"last_ns", offsetof(sp_io_file_rec_t, last_ns)},
    {"slowest_ns", offsetof(sp_io_file_rec_t, slowest_ns)},
    {"slowest_start_ns", offsetof(sp_io_file_rec_t, slowest_start_ns)},
    {"mmaps", offsetof(sp_io_file_rec_t, mmaps)},
};
#define SP_IO_NCOLS (sizeof sp_io_cols / sizeof *sp_io_cols)

/* The records and names of a set of rows, aligned, and whose rank each is. */
typedef struct sp_io_rows {
  int64_t n;
  sp_io_file_rec_t *rec;
  const char **names;
  const char **ops;
  int32_t *ranks;
} sp_io_rows_t;

static void sp_io_rows_free(sp_io_rows_t *t) {
  free(t->rec);
  free(t->names);
  free(t->ops);
  free(t->ranks);
}

/* The number of rows a blob holds (0 for an empty or damaged one). */
static int64_t sp_io_blob_rows(const char *blob, int64_t len) {
  sp_io_blob_head_t h;
  if (len < (int64_t)sizeof h) return 0;
  memcpy(&h, blob, sizeof h);
  if (h.magic != SP_IO_BLOB_MAGIC || h.nfiles <= 0 || h.names_len < h.nfiles ||
      (len - (int64_t)sizeof h - h.names_len) / (int64_t)sizeof(sp_io_file_rec_t) != h.nfiles ||
      blob[len - 1] != '\0')
    return 0;
  return h.nfiles;
}

/* Appends a blob's rows (checked by sp_io_blob_rows) for rank at t->n. */
static void sp_io_rows_add(sp_io_rows_t *t, const char *blob, int64_t nf, int32_t rank) {
  const char *recs = blob + sizeof(sp_io_blob_head_t);
  const char *name = recs + nf * (int64_t)sizeof(sp_io_file_rec_t);
  for (int64_t i = 0; i < nf; i++, t->n++) {
    memcpy(&t->rec[t->n], recs + i * (int64_t)sizeof(sp_io_file_rec_t), sizeof *t->rec);
    t->rec[t->n].slowest_op[SP_IO_OP_MAX - 1] = '\0';
    t->names[t->n] = name;
    t->ops[t->n] = t->rec[t->n].slowest_op;
    t->ranks[t->n] = rank;
    name += strlen(name) + 1;
  }
}

static int sp_io_rows_alloc(sp_io_rows_t *t, int64_t n) {
  memset(t, 0, sizeof *t);
  size_t k = (size_t)(n ? n : 1);
  t->rec = malloc(k * sizeof *t->rec);
  t->names = malloc(k * sizeof *t->names);
  t->ops = malloc(k * sizeof *t->ops);
  t->ranks = malloc(k * sizeof *t->ranks);
  if (t->rec && t->names && t->ops && t->ranks) return 0;
  sp_io_rows_free(t);
  return SP_ENOMEM;
}

static int sp_io_strings(hid_t g, const char *name, const char *const *v, int64_t n) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  int rc = sp__h5_dataset_1d(g, name, t, t, n, v);
  H5Tclose(t);
  return rc;
}

static int sp_io_size_bins_attr(hid_t g) {
  hsize_t dims[1] = {SP_IO_NBINS};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t a = H5Acreate2(g, "size_bins", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  int rc = a >= 0 && H5Awrite(a, H5T_NATIVE_INT64, sp_io_size_bins) >= 0 ? 0 : SP_EHDF5;
  if (a >= 0) H5Aclose(a);
  H5Sclose(space);
  return rc;
}

/* The columns of t's rows under g. */
static int sp_io_columns(hid_t g, const sp_io_rows_t *t) {
  const int64_t n = t->n;
  int64_t *col = malloc((size_t)(n ? n : 1) * SP_IO_NBINS * sizeof *col);
  int32_t *apis = malloc((size_t)(n ? n : 1) * sizeof *apis);
  int rc = col && apis ? 0 : SP_ENOMEM;
  if (rc == 0) rc = sp_io_strings(g, "names", t->names, n);
  for (int64_t i = 0; rc == 0 && i < n; i++) apis[i] = t->rec[i].apis;
  if (rc == 0) rc = sp__h5_dataset_1d(g, "apis", H5T_NATIVE_INT32, H5T_STD_I32LE, n, apis);
  for (size_t c = 0; rc == 0 && c < SP_IO_NCOLS; c++) {
    for (int64_t i = 0; i < n; i++)
      memcpy(&col[i], (const char *)&t->rec[i] + sp_io_cols[c].off, sizeof *col);
    rc = sp__h5_dataset_1d(g, sp_io_cols[c].name, H5T_NATIVE_INT64, H5T_STD_I64LE, n, col);
  }
  if (rc == 0) rc = sp_io_strings(g, "slowest_ops", t->ops, n);
  if (rc == 0) {
    for (int64_t i = 0; i < n; i++)
      memcpy(&col[i * SP_IO_NBINS], t->rec[i].hist, sizeof t->rec[i].hist);
    hsize_t dims[2] = {(hsize_t)n, SP_IO_NBINS};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t d =
        H5Dcreate2(g, "size_hist", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (d < 0 || (n > 0 && H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, col) < 0))
      rc = SP_EHDF5;
    if (d >= 0) H5Dclose(d);
    H5Sclose(space);
  }
  free(col);
  free(apis);
  return rc;
}

int sp__io_write_rank(hid_t file, int rank, const char *blob, int64_t len) {
  const int64_t nf = sp_io_blob_rows(blob, len);
  if (nf == 0) return 0;
  sp_io_rows_t t;
  if (sp_io_rows_alloc(&t, nf) != 0) return SP_ENOMEM;
  sp_io_rows_add(&t, blob, nf, rank);
  char name[32];
  snprintf(name, sizeof name, "rank%d", rank);
  hid_t rg = H5Lexists(file, name, H5P_DEFAULT) > 0
                 ? H5Gopen2(file, name, H5P_DEFAULT)
                 : H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t io = rg >= 0 ? H5Gcreate2(rg, "io", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  hid_t g = io >= 0 ? H5Gcreate2(io, "files", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  int rc = g >= 0 ? 0 : SP_EHDF5;
  if (rc == 0) rc = sp_io_size_bins_attr(io);
  if (rc == 0) rc = sp_io_columns(g, &t);
  if (g >= 0) H5Gclose(g);
  if (io >= 0) H5Gclose(io);
  if (rg >= 0) H5Gclose(rg);
  sp_io_rows_free(&t);
  return rc;
}

int sp__io_write_columnar(hid_t file, int nranks, const char *all, const int64_t *offs) {
  int64_t total = 0;
  for (int r = 0; r < nranks; r++) total += sp_io_blob_rows(all + offs[r], offs[r + 1] - offs[r]);
  if (total == 0) return 0;
  sp_io_rows_t t;
  if (sp_io_rows_alloc(&t, total) != 0) return SP_ENOMEM;
  for (int r = 0; r < nranks; r++) {
    const int64_t nf = sp_io_blob_rows(all + offs[r], offs[r + 1] - offs[r]);
    if (nf > 0) sp_io_rows_add(&t, all + offs[r], nf, r);
  }
  hid_t g = H5Gcreate2(file, "io_files", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rc = g >= 0 ? 0 : SP_EHDF5;
  if (rc == 0) rc = sp_io_size_bins_attr(g);
  if (rc == 0) rc = sp__h5_dataset_1d(g, "ranks", H5T_NATIVE_INT32, H5T_STD_I32LE, t.n, t.ranks);
  if (rc == 0) rc = sp_io_columns(g, &t);
  if (g >= 0) H5Gclose(g);
  sp_io_rows_free(&t);
  return rc;
}
