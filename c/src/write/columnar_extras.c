/* columnar_extras.c - what the per-rank layout holds besides the events
 * and the rank attributes, in the columnar file (columnar_write.h): the
 * users' run metadata, source locations and the sampler's samples. Each is
 * a fixed number of objects whatever the number of ranks, beside the
 * reference tool's own, which its reader never looks for (it opens
 * region_table/names, rank_region_index/... and events/... by name):
 *
 *   metadata/@<key>             sp_metadata_set's keys: the lowest rank's
 *                               value, as /metadata of the per-rank layout
 *   rank_metadata/ranks         uint32[M]: one row per (rank, key) whose value
 *                keys           differs from /metadata's (the per-rank layout's
 *                types          rank<N>/metadata); int32 SP_META_* (1 string,
 *                str_values     2 int64, 3 float64), the value in its column
 *                int_values     ("", 0 in the others); only when M > 0
 *                float_values
 *   region_table/source_files   UTF-8 strings[names]: sp_region_at's file, ""
 *   region_table/source_lines   int64[names], 0: none (the lowest rank's that
 *                               has one); only when some region has one
 *   samples/..., rank_info/peak_rss_bytes   samples_write.c
 *   mpi_comms/ranks, ids, sizes  int32[C]: one row per (rank, communicator id)
 *             member_offsets     int64[C], the rank<N>/mpi table's entries of
 *             members            size > 0; members int32[sum of sizes]: the
 *                                world ranks of row k's members at
 *                                [member_offsets[k], + sizes[k]); only when
 *                                some rank has the table
 *   mpi_completions/ranks        int32[D]: one row per request a rank's wait or
 *             <columns>          test completed, ranks ascending; the columns
 *                                of rank<N>/mpi/completions (completions_write.c),
 *                                wait_region and post_region as region_table
 *                                indices; only when some rank has any
 *
 * Every rank sends rank 0 its metadata, its regions that have a source,
 * its samples and completions in one blob, with its names in the columnar
 * step's first exchange (columnar_plan.c); rank 0 writes them into the
 * file with serial HDF5 (as the per-rank layout's samples and LIKWID
 * results) once its own slices are in. */
#include <stdlib.h>
#include <string.h>

#include "columnar_extras.h"
#include "completions_write.h"
#include "h5_attr.h"
#include "layout_meta.h"
#include "samples_write.h"

/* A dataset of n UTF-8 strings (variable length) under g. */
static int sp_ex_strings(hid_t g, const char *name, const char *const *v, int64_t n) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  int rc = sp__h5_dataset_1d(g, name, t, t, n, v);
  H5Tclose(t);
  return rc;
}

/* A dataset of n numbers of type t (in memory and in the file) under g. */
static int sp_ex_numbers(hid_t g, const char *name, hid_t t, const void *v, int64_t n) {
  return sp__h5_dataset_1d(g, name, t, t, n, v);
}

static const sp_meta_entry_t *sp_ex_meta_get(const sp_meta_list_t *l, const char *key) {
  for (int32_t i = 0; i < l->n; i++)
    if (strcmp(l->e[i].key, key) == 0) return &l->e[i];
  return NULL;
}

/* Whether rank r's entry e is a row of rank_metadata: another rank below
 * it set the key, to another value (the rule of layout_meta.c). */
static int sp_ex_meta_row(const sp_rank_plan_t *plans, int r, const sp_meta_entry_t *e) {
  for (int q = 0; q < r; q++) {
    const sp_meta_entry_t *top = sp_ex_meta_get(&plans[q].meta, e->key);
    if (top)
      return !(top->type == e->type && top->len == e->len && memcmp(top->val, e->val, e->len) == 0);
  }
  return 0; /* the lowest rank that set it: /metadata holds it */
}

/* The rank_metadata table, when some rank's value differs. */
static int sp_ex_rank_meta(hid_t file, const sp_rank_plan_t *plans, int nranks) {
  int64_t m = 0;
  for (int r = 0; r < nranks; r++)
    for (int32_t i = 0; i < plans[r].meta.n; i++)
      m += sp_ex_meta_row(plans, r, &plans[r].meta.e[i]);
  if (m == 0) return 0;
  uint32_t *ranks = calloc((size_t)m, sizeof *ranks);
  int32_t *types = calloc((size_t)m, sizeof *types);
  const char **keys = calloc((size_t)m, sizeof *keys), **strs = calloc((size_t)m, sizeof *strs);
  int64_t *ints = calloc((size_t)m, sizeof *ints);
  double *reals = calloc((size_t)m, sizeof *reals);
  int rc = ranks && types && keys && strs && ints && reals ? 0 : SP_ENOMEM;
  int64_t k = 0;
  for (int r = 0; rc == 0 && r < nranks; r++)
    for (int32_t i = 0; i < plans[r].meta.n; i++) {
      const sp_meta_entry_t *e = &plans[r].meta.e[i];
      if (!sp_ex_meta_row(plans, r, e)) continue;
      ranks[k] = (uint32_t)r;
      types[k] = (int32_t)e->type;
      keys[k] = e->key;
      strs[k] = e->type == SP_META_STR ? e->val : "";
      if (e->type == SP_META_INT) memcpy(&ints[k], e->val, sizeof ints[k]);
      if (e->type == SP_META_REAL) memcpy(&reals[k], e->val, sizeof reals[k]);
      k++;
    }
  hid_t g = rc == 0 ? H5Gcreate2(file, "rank_metadata", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  if (rc == 0 && g < 0) rc = SP_EHDF5;
  if (rc == 0) rc = sp_ex_numbers(g, "ranks", H5T_NATIVE_UINT32, ranks, m);
  if (rc == 0) rc = sp_ex_strings(g, "keys", keys, m);
  if (rc == 0) rc = sp_ex_numbers(g, "types", H5T_NATIVE_INT32, types, m);
  if (rc == 0) rc = sp_ex_strings(g, "str_values", strs, m);
  if (rc == 0) rc = sp_ex_numbers(g, "int_values", H5T_NATIVE_INT64, ints, m);
  if (rc == 0) rc = sp_ex_numbers(g, "float_values", H5T_NATIVE_DOUBLE, reals, m);
  if (g >= 0) H5Gclose(g);
  free(ranks);
  free(types);
  free(keys);
  free(strs);
  free(ints);
  free(reals);
  return rc;
}

static int sp_ex_str_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* region_table/source_files and source_lines, by region id. */
static int sp_ex_sources(hid_t file, const sp_rank_plan_t *plans, int nranks,
                         const sp_col_local_t *c) {
  int any = 0;
  for (int r = 0; r < nranks; r++) any |= plans[r].nregions > 0;
  if (!any) return 0;
  const char **files = calloc((size_t)c->nnames + 1, sizeof *files);
  int64_t *lines = calloc((size_t)c->nnames + 1, sizeof *lines);
  int rc = files && lines ? 0 : SP_ENOMEM;
  for (int r = 0; rc == 0 && r < nranks; r++)
    for (int32_t i = 0; i < plans[r].nregions; i++) {
      const sp_plan_region_t *p = &plans[r].regions[i];
      const char *name = p->name;
      char **hit = bsearch(&name, c->names, (size_t)c->nnames, sizeof *c->names, sp_ex_str_cmp);
      if (!hit || !p->src_file || files[hit - c->names]) continue;
      files[hit - c->names] = p->src_file;
      lines[hit - c->names] = p->src_line;
    }
  for (int64_t i = 0; rc == 0 && i < c->nnames; i++)
    if (!files[i]) files[i] = "";
  hid_t g = rc == 0 ? H5Gopen2(file, "region_table", H5P_DEFAULT) : -1;
  if (rc == 0 && g < 0) rc = SP_EHDF5;
  if (rc == 0) rc = sp_ex_strings(g, "source_files", files, c->nnames);
  if (rc == 0) rc = sp_ex_numbers(g, "source_lines", H5T_NATIVE_INT64, lines, c->nnames);
  if (g >= 0) H5Gclose(g);
  free(files);
  free(lines);
  return rc;
}

/* This rank's metadata and the regions that have a source, as a plan
 * (plan.c packs it): the others' names are not sent again. */
static int sp_ex_pack(const sp_local_t *l, char **blob, int64_t *len) {
  sp_rank_plan_t p = l->plan;
  p.regions = calloc((size_t)p.nregions + 1, sizeof *p.regions);
  if (!p.regions) return SP_ENOMEM;
  p.nregions = 0;
  for (int32_t i = 0; i < l->plan.nregions; i++)
    if (l->plan.regions[i].src_file) p.regions[p.nregions++] = l->plan.regions[i];
  int rc = sp__plan_pack(&p, blob, len);
  free(p.regions);
  return rc;
}

/* The recovered file's marks: /metadata@recovered_from_spill, and
 * rank_info/missing (int32 per rank, 1: no spill file was found for it)
 * when a rank is missing, as the per-rank layout's rank<N>@missing. */
static int sp_ex_recovered(hid_t file, const sp_local_t *ls, int nranks) {
  hid_t g = H5Gopen2(file, "metadata", H5P_DEFAULT);
  const int32_t one = 1;
  int rc = g >= 0 ? sp__h5_attr(g, "recovered_from_spill", H5T_NATIVE_INT32, &one) : SP_EHDF5;
  if (g >= 0) H5Gclose(g);
  int32_t *missing = calloc((size_t)nranks + 1, sizeof *missing);
  int any = 0;
  if (rc == 0 && !missing) rc = SP_ENOMEM;
  for (int r = 0; rc == 0 && r < nranks; r++) any |= missing[r] = ls[r].spill.fd < 0;
  hid_t ri = rc == 0 && any ? H5Gopen2(file, "rank_info", H5P_DEFAULT) : -1;
  if (rc == 0 && any)
    rc = ri < 0 ? SP_EHDF5 : sp_ex_numbers(ri, "missing", H5T_NATIVE_INT32, missing, nranks);
  if (ri >= 0) H5Gclose(ri);
  free(missing);
  return rc;
}

/* mpi_comms/...: every rank's communicator table (plan.c) as rows. */
static int sp_ex_comms(hid_t file, const sp_rank_plan_t *plans, int nranks) {
  int64_t rows = 0, nm = 0;
  for (int r = 0; r < nranks; r++)
    for (int32_t id = 0; id < plans[r].ncomms; id++) rows += plans[r].comm_sizes[id] > 0;
  for (int r = 0; r < nranks; r++) nm += plans[r].ncomm_members;
  if (rows == 0) return 0;
  int32_t *ranks = malloc((size_t)rows * sizeof *ranks), *ids = malloc((size_t)rows * sizeof *ids);
  int32_t *sizes = malloc((size_t)rows * sizeof *sizes);
  int64_t *offs = malloc((size_t)rows * sizeof *offs);
  int32_t *members = malloc((size_t)(nm > 0 ? nm : 1) * sizeof *members);
  int rc = ranks && ids && sizes && offs && members ? 0 : SP_ENOMEM;
  int64_t k = 0, at = 0;
  for (int r = 0; rc == 0 && r < nranks; r++) {
    const sp_rank_plan_t *p = &plans[r];
    if (p->ncomm_members > 0)
      memcpy(members + at, p->comm_members, (size_t)p->ncomm_members * sizeof *members);
    for (int32_t id = 0, o = 0; id < p->ncomms; o += p->comm_sizes[id], id++) {
      if (p->comm_sizes[id] <= 0) continue; /* an id of others' communicators */
      ranks[k] = r, ids[k] = id, sizes[k] = p->comm_sizes[id], offs[k] = at + o;
      k++;
    }
    at += p->ncomm_members;
  }
  hid_t g = rc == 0 ? H5Gcreate2(file, "mpi_comms", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  if (rc == 0 && g < 0) rc = SP_EHDF5;
  if (rc == 0) rc = sp_ex_numbers(g, "ranks", H5T_NATIVE_INT32, ranks, rows);
  if (rc == 0) rc = sp_ex_numbers(g, "ids", H5T_NATIVE_INT32, ids, rows);
  if (rc == 0) rc = sp_ex_numbers(g, "sizes", H5T_NATIVE_INT32, sizes, rows);
  if (rc == 0) rc = sp_ex_numbers(g, "member_offsets", H5T_NATIVE_INT64, offs, rows);
  if (rc == 0) rc = sp_ex_numbers(g, "members", H5T_NATIVE_INT32, members, nm);
  if (g >= 0) H5Gclose(g);
  free(ranks);
  free(ids);
  free(sizes);
  free(offs);
  free(members);
  return rc;
}

/* Every rank's blobs: all[at[r] .. at[r + 1]) (at NULL: none). */
typedef struct sp_ex_blobs {
  char *all;
  int64_t *at;
} sp_ex_blobs_t;

/* Rank 0 (or recovery): every rank's plan, samples and completions (done)
 * into the file; ls: recovery's ranks (the recovered marks), else NULL. */
static int sp_ex_write(const char *path, const sp_rank_plan_t *plans, int nranks, const char *sall,
                       const int64_t *sat, const sp_ex_blobs_t *done, const sp_col_local_t *c,
                       const sp_local_t *ls) {
  hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  int rc = file >= 0 ? 0 : SP_EHDF5;
  hid_t g = rc == 0 ? H5Gopen2(file, "metadata", H5P_DEFAULT) : -1;
  if (rc == 0 && g < 0) rc = SP_EHDF5;
  if (rc == 0) rc = sp__layout_user_meta(g, plans, nranks);
  if (g >= 0) H5Gclose(g);
  if (rc == 0) rc = sp_ex_rank_meta(file, plans, nranks);
  if (rc == 0) rc = sp_ex_sources(file, plans, nranks, c);
  if (rc == 0 && sat) rc = sp__samples_columnar(file, nranks, sall, sat);
  if (rc == 0) rc = sp_ex_comms(file, plans, nranks);
  if (rc == 0 && done->at)
    rc = sp__done_columnar(file, nranks, done->all, done->at, c->names, c->nnames);
  if (rc == 0 && ls) rc = sp_ex_recovered(file, ls, nranks);
  if (file >= 0 && H5Fclose(file) < 0 && rc == 0) rc = SP_EHDF5;
  return rc;
}

/* Rank 0: the gathered plans (all, at) and samples into the file. */
static int sp_ex_write_gathered(const char *path, int nranks, const char *all, const int64_t *at,
                                const char *sall, const int64_t *sat, const sp_ex_blobs_t *done,
                                const sp_col_local_t *c) {
  /* A rank that failed sent nothing (a plan never packs to nothing): the
   * file is not kept, and that rank's status, not this one, says why. */
  for (int r = 0; r < nranks; r++)
    if (at[r + 1] == at[r]) return 0;
  sp_rank_plan_t *plans = calloc(nranks > 0 ? (size_t)nranks : 1, sizeof *plans);
  int rc = plans ? 0 : SP_ENOMEM;
  for (int r = 0; rc == 0 && r < nranks; r++)
    rc = sp__plan_unpack(all + at[r], at[r + 1] - at[r], &plans[r]);
  if (rc == 0) rc = sp_ex_write(path, plans, nranks, sall, sat, done, c, NULL);
  for (int r = 0; plans && r < nranks; r++) sp__plan_free(&plans[r]);
  free(plans);
  return rc;
}

/* Recovery: the ranks' completions from their spill files, one after the other. */
static int sp_ex_done_serial(const sp_local_t *ls, int nranks, sp_ex_blobs_t *out) {
  int64_t *at = calloc((size_t)nranks + 2, sizeof *at);
  char *all = NULL;
  int rc = at ? 0 : SP_ENOMEM;
  for (int r = 0; rc == 0 && r < nranks; r++) {
    char *b = NULL;
    int64_t len = 0;
    rc = sp__done_blob_spill(&ls[r].spill, &b, &len);
    char *na = rc == 0 && len > 0 ? realloc(all, (size_t)(at[r] + len)) : all;
    if (rc == 0 && len > 0 && !na) rc = SP_ENOMEM;
    if (rc == 0 && len > 0) memcpy((all = na) + at[r], b, (size_t)len);
    at[r + 1] = at[r] + (rc == 0 ? len : 0);
    free(b);
  }
  if (rc == 0 && at && at[nranks] > 0) {
    out->all = all;
    out->at = at;
    return 0;
  }
  free(all);
  free(at);
  return rc;
}

int sp__columnar_extras_serial(const char *path, const sp_local_t *ls, int nranks,
                               const sp_col_local_t *c) {
  sp_rank_plan_t *plans = calloc((size_t)nranks + 1, sizeof *plans);
  int64_t *sat = calloc((size_t)nranks + 2, sizeof *sat);
  char **blob = calloc((size_t)nranks + 1, sizeof *blob), *sall = NULL;
  int rc = plans && sat && blob ? 0 : SP_ENOMEM;
  int any = 0;
  for (int r = 0; rc == 0 && r < nranks; r++) {
    plans[r] = ls[r].plan; /* shallow: only read */
    int64_t len = 0;
    rc = sp__samples_blob_spill(&ls[r].spill, &blob[r], &len);
    sat[r + 1] = sat[r] + len;
    any |= len > 0;
  }
  sp_ex_blobs_t done = {NULL, NULL};
  if (rc == 0) rc = sp_ex_done_serial(ls, nranks, &done);
  sall = rc == 0 ? malloc((size_t)sat[nranks] + 1) : NULL;
  if (rc == 0 && !sall) rc = SP_ENOMEM;
  for (int r = 0; rc == 0 && r < nranks; r++)
    if (sat[r + 1] > sat[r]) memcpy(sall + sat[r], blob[r], (size_t)(sat[r + 1] - sat[r]));
  if (rc == 0) rc = sp_ex_write(path, plans, nranks, sall, any ? sat : NULL, &done, c, ls);
  free(done.all);
  free(done.at);
  for (int r = 0; blob && r < nranks; r++) free(blob[r]);
  free(blob);
  free(sall);
  free(sat);
  free(plans);
  return rc;
}

/* The three lengths that begin a rank's extras blob. */
typedef struct sp_ex_head {
  int64_t plan, samples, done;
} sp_ex_head_t;

int sp__columnar_extras_pack(const sp_local_t *l, char **blob, int64_t *len) {
  char *b[3] = {NULL, NULL, NULL};
  int64_t n[3] = {0, 0, 0};
  int rc = sp_ex_pack(l, &b[0], &n[0]);
  if (rc == 0) sp__samples_blob(&l->spill, &b[1], &n[1]);
  if (rc == 0 && sp__done_blob(&l->spill, &b[2], &n[2]) != 0) {
    /* the rest is written all the same */
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "the MPI request completions are lost");
    free(b[2]);
    b[2] = NULL;
    n[2] = 0;
  }
  const sp_ex_head_t h = {n[0], n[1], n[2]};
  *len = (int64_t)sizeof h + n[0] + n[1] + n[2];
  *blob = rc == 0 ? malloc((size_t)*len) : NULL;
  if (rc == 0 && !*blob) rc = SP_ENOMEM;
  if (rc == 0) {
    memcpy(*blob, &h, sizeof h);
    char *at = *blob + sizeof h;
    for (int k = 0; k < 3; k++) {
      if (n[k] > 0) memcpy(at, b[k], (size_t)n[k]);
      at += n[k];
    }
  }
  for (int k = 0; k < 3; k++) free(b[k]);
  if (rc != 0) *len = 0;
  return rc;
}

/* Every rank's blob split into its three parts (0 plan, 1 samples, 2
 * completions): part k of rank r at out[k] + outat[k][r]; any[k]: some
 * rank has one of length > 0. A damaged blob: SP_EMPI. */
static int sp_ex_split(int nranks, const char *all, const int64_t *at, char *out[3],
                       int64_t *outat[3], int any[3]) {
  for (int k = 0; k < 3; k++) {
    outat[k] = calloc((size_t)nranks + 1, sizeof *outat[k]);
    out[k] = malloc((size_t)(at[nranks] > 0 ? at[nranks] : 1));
    if (!outat[k] || !out[k]) return SP_ENOMEM;
    any[k] = 0;
  }
  for (int r = 0; r < nranks; r++) {
    const int64_t n = at[r + 1] - at[r];
    sp_ex_head_t h = {0, 0, 0};
    if (n > 0 && n < (int64_t)sizeof h) return SP_EMPI;
    if (n > 0) memcpy(&h, all + at[r], sizeof h);
    const int64_t len[3] = {h.plan, h.samples, h.done};
    if (len[0] < 0 || len[1] < 0 || len[2] < 0 ||
        (n > 0 && len[0] + len[1] + len[2] != n - (int64_t)sizeof h))
      return SP_EMPI;
    int64_t from = at[r] + (int64_t)sizeof h;
    for (int k = 0; k < 3; k++) {
      if (len[k] > 0) memcpy(out[k] + outat[k][r], all + from, (size_t)len[k]);
      outat[k][r + 1] = outat[k][r] + len[k];
      any[k] |= len[k] > 0;
      from += len[k];
    }
  }
  return 0;
}

int sp__columnar_extras_write(const char *path, int nranks, const char *all, const int64_t *at,
                              const sp_col_local_t *c) {
  char *part[3] = {NULL, NULL, NULL};
  int64_t *pat[3] = {NULL, NULL, NULL};
  int any[3] = {0, 0, 0};
  int rc = sp_ex_split(nranks, all, at, part, pat, any);
  sp_ex_blobs_t done = {part[2], any[2] ? pat[2] : NULL};
  if (rc == 0)
    rc = sp_ex_write_gathered(path, nranks, part[0], pat[0], part[1], any[1] ? pat[1] : NULL, &done,
                              c);
  for (int k = 0; k < 3; k++) {
    free(part[k]);
    free(pat[k]);
  }
  return rc;
}
