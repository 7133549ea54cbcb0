/* completions_write.c - the requests waits and tests completed, into the
 * file: rank<N>/mpi/completions (docs/automatic-regions.md "Completions").
 *
 * A rank's completions (mpi_extra.h sp_mpi_done_t) are its spill file's
 * SP_SPILL_MPI_DONE records, in order, then what its threads still hold.
 * At finalize every rank sends them with the names of its regions to rank
 * 0, which writes them after the stamps (as the samples, samples_write.c);
 * a merge of spill files writes each rank's own. The calls are named by
 * region handle, so each rank's blob carries its names by handle (the
 * attribute region_names). The columnar layout holds every rank's rows in
 * one table, mpi_completions/ (the same columns and `ranks`, ascending),
 * its regions as region_table indices (sp__done_columnar). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "par_gather.h"
#include "completions_write.h"
#include "h5_attr.h"
#include "mpi_extra.h"
#include "par.h"

#define SP_NAME_LEN 64 /* bytes of one region name in the blob and the attribute */

/* A rank's blob: this head, nnames names of SP_NAME_LEN bytes, n records. */
typedef struct sp_done_head {
  int64_t n;
  int64_t nnames;
} sp_done_head_t;

int sp__done_index_record(sp_spill_file_t *f, uint64_t len, int64_t off) {
  int64_t n = 0;
  if (len < sizeof n || pread(f->fd, &n, sizeof n, (off_t)off) != (ssize_t)sizeof n)
    return SP_ESPILL;
  if (n < 0 || (uint64_t)n != (len - sizeof n) / sizeof(sp_mpi_done_t) ||
      (len - sizeof n) % sizeof(sp_mpi_done_t) != 0)
    return SP_ESPILL;
  if ((f->ndone_chunks & (f->ndone_chunks + 1)) == 0) { /* 0, 1, 3, 7...: grow */
    size_t ncap = (size_t)(f->ndone_chunks + 1) * 2;
    sp_spill_chunk_t *nc = realloc(f->done, ncap * sizeof *nc);
    if (!nc) return SP_ENOMEM;
    f->done = nc;
  }
  f->done[f->ndone_chunks++] = (sp_spill_chunk_t){-1, -1, n, off + (int64_t)sizeof n, 0};
  return 0;
}

/* head, names[nnames] (NULL entries: ""), the spill file's completions,
 * then those of the threads in memory (mem 1), in one buffer. */
static int sp_done_pack(const sp_spill_file_t *spill, int mem, char *const *names, int32_t nnames,
                        char **out, int64_t *len) {
  int64_t n = 0;
  for (int64_t c = 0; spill && spill->fd >= 0 && c < spill->ndone_chunks; c++)
    n += spill->done[c].n;
  for (const sp_thread_t *t = mem ? sp__state.threads : NULL; t; t = t->next) {
    const sp_mpi_done_t *d;
    n += sp__mpi_done_mem(t, &d);
  }
  *out = NULL;
  *len = 0;
  if (n == 0) return 0;
  const int64_t names_len = (int64_t)nnames * SP_NAME_LEN;
  *len = (int64_t)sizeof(sp_done_head_t) + names_len + n * (int64_t)sizeof(sp_mpi_done_t);
  char *b = calloc(1, (size_t)*len);
  if (!b) return SP_ENOMEM;
  const sp_done_head_t h = {n, nnames};
  memcpy(b, &h, sizeof h);
  for (int32_t i = 0; i < nnames; i++)
    if (names[i]) snprintf(b + sizeof h + (size_t)i * SP_NAME_LEN, SP_NAME_LEN, "%s", names[i]);
  char *d = b + sizeof h + names_len;
  int rc = 0;
  for (int64_t c = 0; rc == 0 && spill && spill->fd >= 0 && c < spill->ndone_chunks; c++) {
    const size_t want = (size_t)spill->done[c].n * sizeof(sp_mpi_done_t);
    if (pread(spill->fd, d, want, (off_t)spill->done[c].offset) != (ssize_t)want) rc = SP_EIO;
    d += want;
  }
  for (const sp_thread_t *t = mem ? sp__state.threads : NULL; rc == 0 && t; t = t->next) {
    const sp_mpi_done_t *m;
    const int64_t k = sp__mpi_done_mem(t, &m);
    if (k > 0) memcpy(d, m, (size_t)k * sizeof *m);
    d += k * (int64_t)sizeof *m;
  }
  if (rc != 0) {
    free(b);
    *len = 0;
    return rc;
  }
  *out = b;
  return 0;
}

/* region_names: nnames fixed-length strings. */
static int sp_names_attr(hid_t g, const char *names, int64_t nnames) {
  hsize_t dims[1] = {(hsize_t)(nnames > 0 ? nnames : 1)};
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, SP_NAME_LEN);
  H5Tset_strpad(type, H5T_STR_NULLTERM);
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t a = H5Acreate2(g, "region_names", type, space, H5P_DEFAULT, H5P_DEFAULT);
  static const char none[SP_NAME_LEN];
  int rc = a >= 0 && H5Awrite(a, type, nnames > 0 ? names : none) >= 0 ? 0 : SP_EHDF5;
  if (a >= 0) H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
  return rc;
}

/* One column of the records: field at byte offset off, 4 or 8 bytes. */
static int sp_done_column(hid_t g, const char *name, const sp_mpi_done_t *d, int64_t n, size_t off,
                          int wide) {
  void *col = malloc((size_t)(n > 0 ? n : 1) * (wide ? 8 : 4));
  if (!col) return SP_ENOMEM;
  for (int64_t i = 0; i < n; i++) /* the blob may not be aligned for the records */
    memcpy((char *)col + i * (wide ? 8 : 4), (const char *)(d + i) + off, wide ? 8 : 4);
  int rc = sp__h5_dataset_1d(g, name, wide ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32,
                             wide ? H5T_STD_I64LE : H5T_STD_I32LE, n, col);
  free(col);
  return rc;
}

static int sp_done_columns(hid_t g, const sp_mpi_done_t *d, int64_t n);

/* rank<rank>/mpi/completions from one rank's blob. */
static int sp_done_write_rank(hid_t file, int rank, const char *blob, int64_t len) {
  sp_done_head_t h;
  if (len < (int64_t)sizeof h) return 0; /* a rank without completions */
  memcpy(&h, blob, sizeof h);
  if (h.n <= 0 || h.nnames < 0 ||
      len != (int64_t)sizeof h + h.nnames * SP_NAME_LEN + h.n * (int64_t)sizeof(sp_mpi_done_t))
    return 0;
  const char *names = blob + sizeof h;
  sp_mpi_done_t *d = malloc((size_t)h.n * sizeof *d);
  if (!d) return SP_ENOMEM;
  memcpy(d, names + h.nnames * SP_NAME_LEN, (size_t)h.n * sizeof *d);
  char path[48];
  snprintf(path, sizeof path, "rank%d/mpi", rank);
  hid_t mg = H5Lexists(file, path, H5P_DEFAULT) > 0
                 ? H5Gopen2(file, path, H5P_DEFAULT)
                 : H5Gcreate2(file, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t g = mg >= 0 ? H5Gcreate2(mg, "completions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  int rc = g >= 0 ? sp_done_columns(g, d, h.n) : SP_EHDF5;
  if (rc == 0) rc = sp_names_attr(g, names, h.nnames);
  if (g >= 0) H5Gclose(g);
  if (mg >= 0) H5Gclose(mg);
  free(d);
  return rc;
}

/* The records' columns under g. */
static int sp_done_columns(hid_t g, const sp_mpi_done_t *d, int64_t n) {
  int rc = 0;
#define SP_COL(field, wide) \
  if (rc == 0) rc = sp_done_column(g, #field, d, n, offsetof(sp_mpi_done_t, field), wide)
  SP_COL(wait_region, 0);
  SP_COL(wait_call, 1);
  SP_COL(thread, 0);
  SP_COL(post_region, 0);
  SP_COL(post_call, 1);
  SP_COL(post_thread, 0);
  SP_COL(peer, 0);
  SP_COL(tag, 0);
  SP_COL(comm, 0);
  SP_COL(bytes, 1);
  SP_COL(send, 0);
#undef SP_COL
  return rc;
}

int sp__done_blob(const sp_spill_file_t *spill, char **blob, int64_t *len) {
  const int32_t nnames = sp__region_count();
  char **names = calloc((size_t)(nnames > 0 ? nnames : 1), sizeof *names);
  for (int32_t i = 0; names && i < nnames; i++) names[i] = sp__region_get(i)->name;
  int rc = names ? sp_done_pack(spill, 1, names, nnames, blob, len) : SP_ENOMEM;
  free(names);
  return rc;
}

int sp__done_blob_spill(const sp_spill_file_t *spill, char **blob, int64_t *len) {
  *blob = NULL;
  *len = 0;
  if (spill->fd < 0 || spill->ndone_chunks == 0) return 0;
  return sp_done_pack(spill, 0, spill->names, spill->nnames, blob, len);
}

static int sp_done_name_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rows of one rank's blob appended at d + *n (ranks r), its regions
 * as indices of table (sorted, nt names; -1 when not found). */
static void sp_done_rows(const char *blob, int64_t len, int r, char *const *table, int64_t nt,
                         sp_mpi_done_t *d, int32_t *ranks, int64_t *n) {
  sp_done_head_t h;
  if (len < (int64_t)sizeof h) return;
  memcpy(&h, blob, sizeof h);
  if (h.n <= 0 || h.nnames < 0 ||
      len != (int64_t)sizeof h + h.nnames * SP_NAME_LEN + h.n * (int64_t)sizeof(sp_mpi_done_t))
    return;
  const char *names = blob + sizeof h;
  memcpy(d + *n, names + h.nnames * SP_NAME_LEN, (size_t)h.n * sizeof *d);
  for (int64_t i = *n; i < *n + h.n; i++) {
    int32_t *reg[2] = {&d[i].wait_region, &d[i].post_region};
    for (int k = 0; k < 2; k++) {
      char nm[SP_NAME_LEN + 1] = {0};
      if (*reg[k] >= 0 && *reg[k] < h.nnames)
        memcpy(nm, names + *reg[k] * SP_NAME_LEN, SP_NAME_LEN);
      const char *key = nm;
      char *const *hit =
          nm[0] ? bsearch(&key, table, (size_t)nt, sizeof *table, sp_done_name_cmp) : NULL;
      *reg[k] = hit ? (int32_t)(hit - table) : -1;
    }
    ranks[i] = r;
  }
  *n += h.n;
}

int sp__done_columnar(hid_t file, int nranks, const char *all, const int64_t *offs,
                      char *const *table, int64_t nt) {
  int64_t total = 0;
  for (int r = 0; r < nranks; r++)
    total += (offs[r + 1] - offs[r]) / (int64_t)sizeof(sp_mpi_done_t);
  if (total == 0) return 0;
  sp_mpi_done_t *d = malloc((size_t)total * sizeof *d);
  int32_t *ranks = malloc((size_t)total * sizeof *ranks);
  int rc = d && ranks ? 0 : SP_ENOMEM;
  int64_t n = 0;
  for (int r = 0; rc == 0 && r < nranks; r++)
    sp_done_rows(all + offs[r], offs[r + 1] - offs[r], r, table, nt, d, ranks, &n);
  hid_t g = rc == 0 && n > 0
                ? H5Gcreate2(file, "mpi_completions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                : -1;
  if (rc == 0 && n > 0 && g < 0) rc = SP_EHDF5;
  if (rc == 0 && n > 0)
    rc = sp__h5_dataset_1d(g, "ranks", H5T_NATIVE_INT32, H5T_STD_I32LE, n, ranks);
  if (rc == 0 && n > 0) rc = sp_done_columns(g, d, n);
  if (g >= 0) H5Gclose(g);
  free(d);
  free(ranks);
  return rc;
}

int sp__done_finalize(sp_par_t *par, const char *partial_path, const sp_spill_file_t *spill) {
  char *blob = NULL;
  int64_t len = 0;
  int rc = sp__done_blob(spill, &blob, &len);
  if (rc != 0) { /* the stamps are written all the same */
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "the MPI request completions are lost: %s",
            sp_strerror(rc));
    len = 0;
  }
  if (sp__par_agree(par, len > 0 ? -1 : 0) != -1) { /* no rank has any */
    free(blob);
    return 0;
  }
  char *all = NULL;
  int64_t *offs = NULL;
  int grc = sp__par_gather_own(par, blob, len, &all, &offs);
  if (grc == 0 && par->rank == 0) {
    hid_t f = H5Fopen(partial_path, H5F_ACC_RDWR, H5P_DEFAULT);
    grc = f >= 0 ? 0 : SP_EHDF5;
    for (int r = 0; grc == 0 && r < par->size; r++)
      grc = sp_done_write_rank(f, r, all + offs[r], offs[r + 1] - offs[r]);
    if (f >= 0 && H5Fclose(f) < 0 && grc == 0) grc = SP_EHDF5;
  }
  free(all);
  free(offs);
  return grc;
}

int sp__done_recover(hid_t file, int rank, const sp_spill_file_t *spill) {
  if (spill->fd < 0 || spill->ndone_chunks == 0) return 0;
  char *blob = NULL;
  int64_t len = 0;
  int rc = sp_done_pack(spill, 0, spill->names, spill->nnames, &blob, &len);
  if (rc == 0 && blob) rc = sp_done_write_rank(file, rank, blob, len);
  free(blob);
  return rc;
}
