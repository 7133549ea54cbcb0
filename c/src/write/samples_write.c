/* samples_write.c - the sampler's samples into the file: rank<N>/samples
 * and rank<N>@peak_rss_bytes (docs/the-file.md).
 *
 * A rank's samples are its spill file's SP_SPILL_SAMPLES records, in
 * order, then what the sampler still holds in memory. At finalize every
 * rank sends them to rank 0, which writes them after the stamps (as
 * LIKWID's results); a merge of spill files writes each rank's own.
 *
 * peak_rss_bytes: at finalize getrusage's ru_maxrss (the kernel's
 * high-water mark, which also sees peaks between two samples), or the
 * largest sample if that is higher; after a merge, the largest ru_maxrss
 * a spill record holds, or the largest sample. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "par_gather.h"
#include "h5_attr.h"
#include "par.h"
#include "samples_write.h"

/* A rank's samples and peak as they travel to rank 0. */
typedef struct sp_samples_head {
  int64_t n;
  int64_t peak;
  int64_t period_ns;
} sp_samples_head_t;

int sp__samples_index_record(sp_spill_file_t *f, uint64_t len, int64_t off) {
  sp_spill_samples_t h;
  if (len < sizeof h || sp__pread_full(f->fd, &h, sizeof h, off)) return SP_ESPILL;
  if (h.n < 0 || (len - sizeof h) % sizeof(sp_sample_t) != 0 ||
      (uint64_t)h.n != (len - sizeof h) / sizeof(sp_sample_t) || h.period_ns <= 0)
    return SP_ESPILL;
  if ((f->nsamples_chunks & (f->nsamples_chunks + 1)) == 0) { /* 0, 1, 3, 7...: grow */
    size_t ncap = (size_t)(f->nsamples_chunks + 1) * 2;
    sp_spill_chunk_t *nc = realloc(f->samples, ncap * sizeof *nc);
    if (!nc) return SP_ENOMEM;
    f->samples = nc;
  }
  f->samples[f->nsamples_chunks++] = (sp_spill_chunk_t){-1, 0, h.n, off + (int64_t)sizeof h, 0};
  if (h.maxrss > f->samples_maxrss) f->samples_maxrss = h.maxrss;
  f->samples_period_ns = h.period_ns;
  return 0;
}

/* head + samples of the spill file, then tail[0..ntail), in one buffer. */
static int sp_samples_pack(const sp_spill_file_t *spill, const sp_sample_t *tail, int64_t ntail,
                           int64_t maxrss, int64_t period_ns, char **out, int64_t *len) {
  int64_t n = ntail;
  for (int64_t c = 0; spill && spill->fd >= 0 && c < spill->nsamples_chunks; c++)
    n += spill->samples[c].n;
  *len = (int64_t)sizeof(sp_samples_head_t) + n * (int64_t)sizeof(sp_sample_t);
  char *b = malloc((size_t)*len);
  if (!b) return SP_ENOMEM;
  sp_sample_t *s = (sp_sample_t *)(b + sizeof(sp_samples_head_t));
  int64_t at = 0;
  int rc = 0;
  for (int64_t c = 0; rc == 0 && spill && spill->fd >= 0 && c < spill->nsamples_chunks; c++) {
    const sp_spill_chunk_t *ch = &spill->samples[c];
    rc = sp__pread_full(spill->fd, s + at, (size_t)ch->n * sizeof *s, ch->offset) ? SP_EIO : 0;
    at += ch->n;
  }
  if (ntail > 0) memcpy(s + at, tail, (size_t)ntail * sizeof *s);
  sp_samples_head_t h = {n, maxrss, period_ns};
  for (int64_t i = 0; i < n; i++)
    if (s[i].rss > h.peak) h.peak = s[i].rss;
  memcpy(b, &h, sizeof h);
  if (rc != 0) free(b);
  *out = rc == 0 ? b : NULL;
  return rc;
}

static int sp_attr_i64(hid_t obj, const char *name, int64_t v) {
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t a = space >= 0 ? H5Acreate2(obj, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
  int rc = a >= 0 && H5Awrite(a, H5T_NATIVE_INT64, &v) >= 0 ? 0 : SP_EHDF5;
  if (a >= 0) H5Aclose(a);
  if (space >= 0) H5Sclose(space);
  return rc;
}

/* One int64 column of the samples (stride 3) as a dataset of g. */
static int sp_write_column(hid_t g, const char *name, const sp_sample_t *s, int64_t n, int field) {
  int64_t *col = malloc((size_t)(n ? n : 1) * sizeof *col);
  if (!col) return SP_ENOMEM;
  for (int64_t i = 0; i < n; i++)
    col[i] = field == 0 ? s[i].t_ns : field == 1 ? s[i].rss : s[i].cpu_ns;
  hsize_t dims[1] = {(hsize_t)n};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t d = space >= 0
                ? H5Dcreate2(g, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                : -1;
  int rc =
      d >= 0 && (n == 0 || H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, col) >= 0)
          ? 0
          : SP_EHDF5;
  if (d >= 0) H5Dclose(d);
  if (space >= 0) H5Sclose(space);
  free(col);
  return rc;
}

/* rank<rank>/samples/{times,rss_bytes,cpu_ns} and rank<rank>@peak_rss_bytes
 * from one packed blob. */
static int sp_samples_write_rank(hid_t file, int rank, const char *blob, int64_t len) {
  sp_samples_head_t h;
  if (len < (int64_t)sizeof h) return 0; /* a rank that did not sample */
  memcpy(&h, blob, sizeof h);
  if (h.period_ns <= 0) return 0;
  const sp_sample_t *s = (const sp_sample_t *)(blob + sizeof h);
  char name[32];
  snprintf(name, sizeof name, "rank%d", rank);
  hid_t rg = H5Gopen2(file, name, H5P_DEFAULT);
  if (rg < 0) return SP_EHDF5;
  hid_t g = H5Gcreate2(rg, "samples", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rc = g >= 0 ? 0 : SP_EHDF5;
  static const char *const cols[3] = {"times", "rss_bytes", "cpu_ns"};
  for (int c = 0; rc == 0 && c < 3; c++) rc = sp_write_column(g, cols[c], s, h.n, c);
  if (rc == 0) rc = sp_attr_i64(g, "period_ns", h.period_ns);
  if (rc == 0) rc = sp_attr_i64(rg, "peak_rss_bytes", h.peak);
  if (g >= 0) H5Gclose(g);
  H5Gclose(rg);
  return rc;
}

void sp__samples_blob(const sp_spill_file_t *spill, char **blob, int64_t *len) {
  int64_t ntail = 0, period_ns = 0;
  const sp_sample_t *tail = sp__sampler_tail(&ntail, &period_ns);
  *blob = NULL;
  *len = 0;
  if (period_ns <= 0) return; /* this rank did not sample */
  int rc = sp_samples_pack(spill, tail, ntail, sp__sampler_maxrss(), period_ns, blob, len);
  if (rc != 0) { /* the stamps are written all the same */
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "the samples of RSS and CPU time are lost: %s",
            sp_strerror(rc));
    *blob = NULL;
    *len = 0;
  }
}

/* Finalize, collective over par: this rank's samples gathered on rank 0
 * (*all, offs[r] where rank r's blob starts; the caller frees both).
 * *any: some rank sampled, the same on every rank; nothing is gathered
 * when none did. */
static int sp_samples_gather(sp_par_t *par, const sp_spill_file_t *spill, char **all,
                             int64_t **offs, int *any) {
  *all = NULL;
  *offs = NULL;
  int64_t ntail = 0, period_ns = 0;
  (void)sp__sampler_tail(&ntail, &period_ns);
  *any = sp__par_agree(par, period_ns > 0 ? -1 : 0) == -1;
  if (!*any) return 0; /* no rank sampled */
  char *blob = NULL;
  int64_t len = 0;
  sp__samples_blob(spill, &blob, &len);
  return sp__par_gather_own(par, blob, len, all, offs);
}

int sp__samples_finalize(sp_par_t *par, const char *partial_path, const sp_spill_file_t *spill) {
  char *all = NULL;
  int64_t *offs = NULL;
  int any = 0;
  int rc = sp_samples_gather(par, spill, &all, &offs, &any);
  if (rc == 0 && any && par->rank == 0) {
    hid_t f = H5Fopen(partial_path, H5F_ACC_RDWR, H5P_DEFAULT);
    int wrc = f >= 0 ? 0 : SP_EHDF5;
    for (int r = 0; wrc == 0 && r < par->size; r++)
      wrc = sp_samples_write_rank(f, r, all + offs[r], offs[r + 1] - offs[r]);
    if (f >= 0 && H5Fclose(f) < 0 && wrc == 0) wrc = SP_EHDF5;
    rc = wrc;
  }
  free(all);
  free(offs);
  return rc;
}

/* One int64 dataset of n values under g. */
static int sp_col_i64(hid_t g, const char *name, const int64_t *v, int64_t n) {
  return sp__h5_dataset_1d(g, name, H5T_NATIVE_INT64, H5T_STD_I64LE, n, v);
}

/* The samples of every rank as columns: a fixed number of datasets
 * whatever the number of ranks (columnar_write.c lists them). */
int sp__samples_columnar(hid_t file, int nranks, const char *all, const int64_t *offs) {
  int64_t total = 0;
  sp_samples_head_t *head = calloc((size_t)nranks + 1, sizeof *head);
  if (!head) return SP_ENOMEM;
  for (int r = 0; r < nranks; r++) {
    head[r].peak = -1;
    if (offs[r + 1] - offs[r] < (int64_t)sizeof *head) continue; /* did not sample */
    memcpy(&head[r], all + offs[r], sizeof *head);
    if (head[r].period_ns <= 0 || head[r].n < 0 ||
        (offs[r + 1] - offs[r] - (int64_t)sizeof *head) / (int64_t)sizeof(sp_sample_t) != head[r].n)
      head[r] = (sp_samples_head_t){0, -1, 0};
    total += head[r].n;
  }
  int64_t *col = malloc((size_t)(3 * total + 4 * (int64_t)nranks + 1) * sizeof *col);
  int rc = col ? 0 : SP_ENOMEM;
  int64_t *off = col + 3 * total, *cnt = off + nranks, *per = cnt + nranks, *peak = per + nranks;
  int64_t at = 0;
  for (int r = 0; rc == 0 && r < nranks; r++) {
    off[r] = at;
    cnt[r] = head[r].n;
    per[r] = head[r].period_ns;
    peak[r] = head[r].peak;
    for (int64_t i = 0; i < head[r].n; i++, at++) { /* n > 0: the blob holds them */
      sp_sample_t v;                                /* the blob is not aligned for it */
      memcpy(&v, all + offs[r] + (int64_t)sizeof *head + i * (int64_t)sizeof v, sizeof v);
      col[at] = v.t_ns;
      col[total + at] = v.rss;
      col[2 * total + at] = v.cpu_ns;
    }
  }
  hid_t g = rc == 0 ? H5Gcreate2(file, "samples", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  if (rc == 0 && g < 0) rc = SP_EHDF5;
  static const char *const name[3] = {"times", "rss_bytes", "cpu_ns"};
  for (int c = 0; rc == 0 && c < 3; c++) rc = sp_col_i64(g, name[c], col + c * total, total);
  if (rc == 0) rc = sp_col_i64(g, "offsets", off, nranks);
  if (rc == 0) rc = sp_col_i64(g, "counts", cnt, nranks);
  if (rc == 0) rc = sp_col_i64(g, "period_ns", per, nranks);
  if (g >= 0) H5Gclose(g);
  hid_t ri = rc == 0 ? H5Gopen2(file, "rank_info", H5P_DEFAULT) : -1;
  if (rc == 0 && ri < 0) rc = SP_EHDF5;
  if (rc == 0) rc = sp_col_i64(ri, "peak_rss_bytes", peak, nranks);
  if (ri >= 0) H5Gclose(ri);
  free(col);
  free(head);
  return rc;
}

int sp__samples_blob_spill(const sp_spill_file_t *spill, char **blob, int64_t *len) {
  *blob = NULL;
  *len = 0;
  if (spill->fd < 0 || spill->samples_period_ns <= 0) return 0;
  return sp_samples_pack(spill, NULL, 0, spill->samples_maxrss, spill->samples_period_ns, blob,
                         len);
}

int sp__samples_recover(hid_t file, int rank, const sp_spill_file_t *spill) {
  if (spill->fd < 0 || spill->samples_period_ns <= 0) return 0;
  char *blob = NULL;
  int64_t len = 0;
  int rc =
      sp_samples_pack(spill, NULL, 0, spill->samples_maxrss, spill->samples_period_ns, &blob, &len);
  if (rc == 0) rc = sp_samples_write_rank(file, rank, blob, len);
  free(blob);
  return rc;
}
