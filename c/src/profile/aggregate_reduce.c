/* aggregate_reduce.c - profile mode's file reduced across ranks
 * (SCOPE_PROFILER_REDUCE; docs/profile-mode.md, "Reduced across ranks").
 *
 * 1. Each rank turns its snapshot into a table keyed by call path
 *    (aggregate_red_table.c): its figures as one rank's, its histograms,
 *    and itself as a candidate for each region's k largest and smallest.
 * 2. A binomial tree merges the tables towards rank 0 in ceil(log2 P)
 *    steps: a rank receives its children's tables, merges them into its
 *    own and sends the result up. Paths are unified by their chain of
 *    names as they merge, so no step needs ids agreed beforehand, and no
 *    rank ever holds more than one table per child: rank 0 never gathers
 *    every rank's rows.
 * 3. Rank 0 sends the kept ranks (the union of every region's k largest and
 *    smallest) down the same tree; each of them sends rank 0 its snapshot,
 *    whose rows of its kept regions go into the file whole.
 * The file's size thus grows with the call paths and k, not with the ranks.
 *
 * Every rank sends and receives the same messages whatever failed (a
 * failed table goes as length -1), so a failure never leaves a rank
 * waiting; the status is agreed at the end. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aggregate_blob.h"
#include "aggregate_h5.h"
#include "aggregate_reduce.h"
#include "file_end.h"
#include "par.h"

enum { SP_TAG_UP = 7410, SP_TAG_DOWN = 7411, SP_TAG_KEPT = 7412 };

int sp__agg_reduce_on(const sp_par_t *par) {
  int r = sp__state.cfg.reduce;
  return r == 1 || (r < 0 && par->size >= SP_REDUCE_AUTO_RANKS);
}

/* Step 2: rank 0 ends with every rank's table merged into t (valid when
 * the returned status is 0 there). */
static int sp_reduce_up(sp_par_t *par, int rc, sp_red_t *t, int k) {
  for (int mask = 1; par->active && mask < par->size; mask <<= 1) {
    if (par->rank & mask) { /* my table is whole: up it goes, and I am done */
      char *blob = NULL;
      int64_t len = -1;
      if (!rc) rc = sp__red_pack(t, &blob, &len);
      int src = sp__par_send_blob(par, par->rank - mask, SP_TAG_UP, blob, rc ? -1 : len);
      free(blob);
      return rc ? rc : src;
    }
    if (par->rank + mask >= par->size) continue;
    char *blob;
    int64_t len;
    int rrc = sp__par_recv_blob(par, par->rank + mask, SP_TAG_UP, &blob, &len);
    if (!rrc && len < 0) rrc = SP_EMPI; /* the child's subtree failed */
    sp_red_t child;
    if (!rrc && !rc && (rrc = sp__red_unpack(&child, blob, len)) == 0) {
      rrc = sp__red_merge(t, &child, k);
      sp__red_free(&child);
    }
    free(blob);
    if (!rc) rc = rrc;
  }
  return rc;
}

static int sp_i32_cmp(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* The kept ranks, sorted and unique, from t's tops (rank 0): up to 2k a
 * region, so sorted, not searched (1e5 regions make 1.6e6 entries). */
static int sp_kept_ranks(const sp_red_t *t, int32_t **out, int64_t *n) {
  int32_t *r = malloc((size_t)(t->ntops ? t->ntops : 1) * sizeof *r);
  if (!r) return SP_ENOMEM;
  for (int64_t i = 0; i < t->ntops; i++) r[i] = t->tops[i].rank;
  qsort(r, (size_t)t->ntops, sizeof *r, sp_i32_cmp);
  int64_t m = 0;
  for (int64_t i = 0; i < t->ntops; i++)
    if (m == 0 || r[m - 1] != r[i]) r[m++] = r[i];
  *out = r;
  *n = m;
  return 0;
}

/* Step 3a: rank 0's list of kept ranks to every rank, down the tree (the
 * mirror of sp_reduce_up). len -1: rank 0 failed, nobody sends. */
static int sp_bcast_down(sp_par_t *par, char **blob, int64_t *len) {
  int mask = 1;
  while (mask < par->size && !(par->rank & mask)) mask <<= 1;
  int rc = 0;
  if (par->rank != 0) rc = sp__par_recv_blob(par, par->rank - mask, SP_TAG_DOWN, blob, len);
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (par->rank + mask < par->size) {
      int src = sp__par_send_blob(par, par->rank + mask, SP_TAG_DOWN, *blob, rc ? -1 : *len);
      if (!rc) rc = src;
    }
  return rc;
}

static int sp_in(const int32_t *r, int64_t n, int32_t x) {
  for (int64_t lo = 0, hi = n; lo < hi;) {
    int64_t mid = (lo + hi) / 2;
    if (r[mid] == x) return 1;
    if (r[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}

/* Step 3b: the kept ranks' snapshots to rank 0, into *kept there. */
static int sp_collect_kept(sp_par_t *par, int rc, const sp_agg_snap_t *mine, const int32_t *r,
                           int64_t n, sp_agg_snap_t *kept) {
  memset(kept, 0, sizeof *kept);
  if (par->rank != 0) {
    if (!sp_in(r, n, par->rank)) return rc;
    char *blob = NULL;
    int64_t len = -1;
    if (!rc) rc = sp__agg_snap_pack(mine, &blob, &len);
    int src = sp__par_send_blob(par, 0, SP_TAG_KEPT, blob, rc ? -1 : len);
    free(blob);
    return rc ? rc : src;
  }
  for (int64_t i = 0; i < n; i++) {
    if (r[i] == 0) {
      char *blob = NULL;
      int64_t len = 0;
      int prc = rc ? rc : sp__agg_snap_pack(mine, &blob, &len);
      if (!prc) prc = sp__agg_snap_unpack_into(kept, blob, len);
      free(blob);
      if (!rc) rc = prc;
      continue;
    }
    char *blob;
    int64_t len;
    int rrc = sp__par_recv_blob(par, r[i], SP_TAG_KEPT, &blob, &len);
    if (!rrc && len < 0) rrc = SP_EMPI;
    if (!rrc && !rc) rrc = sp__agg_snap_unpack_into(kept, blob, len);
    free(blob);
    if (!rc) rc = rrc;
  }
  return rc;
}

/* 1 when (rank, name) is one of t's kept pairs (tops sorted by name). */
static int sp_kept_pair(const sp_red_t *t, int64_t name, int32_t rank) {
  int64_t lo = 0, hi = t->ntops;
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    if (t->tops[mid].name < name)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (int64_t i = lo; i < t->ntops && t->tops[i].name == name; i++)
    if (t->tops[i].rank == rank) return 1;
  return 0;
}

/* Rank 0: the kept snapshot's rows of kept pairs, their regions renamed to
 * t's ids and each with its path of t (paths, malloc'ed), their buckets
 * renumbered; every other row and bucket dropped. */
static int sp_kept_rows(const sp_red_t *t, sp_agg_snap_t *kept, int64_t **paths) {
  size_t m = (size_t)(kept->nrows ? kept->nrows : 1);
  int64_t *gp = malloc(m * sizeof *gp), *keep = malloc(m * sizeof *keep);
  *paths = malloc(m * sizeof **paths);
  if (!gp || !keep || !*paths) {
    free(gp), free(keep), free(*paths), *paths = NULL;
    return SP_ENOMEM;
  }
  int64_t n = 0, *nm = malloc((size_t)(kept->nnames ? kept->nnames : 1) * sizeof *nm);
  if (!nm) {
    free(gp), free(keep), free(*paths), *paths = NULL;
    return SP_ENOMEM;
  }
  for (int64_t g = 0; g < kept->nnames; g++) nm[g] = sp__red_name_find(t, kept->names[g]);
  for (int64_t i = 0; i < kept->nrows; i++) {
    sp_agg_row_t *r = &kept->rows[i];
    int64_t name = nm[r->region];
    int64_t parent = r->parent >= 0 ? gp[r->parent] : -1;
    gp[i] = name < 0 || (r->parent >= 0 && parent < 0)
                ? -1
                : sp__red_find(t, (int32_t)parent, (int32_t)name);
    keep[i] = -1;
    if (gp[i] < 0 || !sp_kept_pair(t, name, r->rank)) continue;
    keep[i] = n;
    (*paths)[n] = gp[i];
    kept->rows[n] = *r;
    kept->rows[n].region = (int32_t)name;
    kept->rows[n].parent = -1;
    n++;
  }
  kept->nrows = n;
  int64_t nb = 0;
  for (int64_t i = 0; i < kept->nbks; i++)
    if (keep[kept->bks[i].row] >= 0) {
      kept->bks[nb] = kept->bks[i];
      kept->bks[nb++].row = keep[kept->bks[i].row];
    }
  kept->nbks = nb;
  free(gp), free(keep), free(nm);
  return 0;
}

/* Rank 0: the file at path, through a temporary file renamed into place. */
static int sp_reduce_publish(const sp_red_t *t, sp_agg_snap_t *kept, int size, int k,
                             const char *path, const sp_out_id_t *was) {
  int64_t *paths = NULL;
  int rc = sp_kept_rows(t, kept, &paths);
  if (rc) return rc;
  sp_agg_snap_t view = *kept; /* the kept rows under the table's names */
  view.names = t->names, view.nnames = t->nnames, view.srcs = NULL, view.nsrcs = 0;
  view.lost = t->lost, view.nopen = t->nopen;
  char tmp[SP_TEMP_MAX];
  rc = sp__out_temp_create(path, tmp, sizeof tmp);
  if (!rc) {
    H5E_auto2_t old_fn;
    void *old_data;
    H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our message says what failed */
    rc = sp__agg_h5_write_reduced(tmp, &view, size, t, paths, k);
    if (!rc) rc = sp__file_end_check(tmp, path);
    H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
    if (!rc) rc = sp__out_publish(tmp, path, was);
    if (rc && tmp[0]) unlink(tmp);
  }
  free(paths);
  return rc;
}

int sp__agg_reduce_write(sp_par_t *par, int rc, const sp_agg_snap_t *mine, const char *path,
                         const sp_out_id_t *was) {
  int k = (int)sp__state.set.reduce_keep;
  sp_red_t t;
  memset(&t, 0, sizeof t);
  if (!rc) rc = sp__red_from_snap(&t, mine, par->rank, k);
  rc = sp_reduce_up(par, rc, &t, k);
  /* The kept ranks, rank 0's failure as length -1. */
  int32_t *kept_ranks = NULL;
  int64_t nkept = 0, len = -1;
  char *blob = NULL;
  if (par->rank == 0 && !rc && (rc = sp_kept_ranks(&t, &kept_ranks, &nkept)) == 0)
    blob = (char *)kept_ranks, len = nkept * (int64_t)sizeof *kept_ranks;
  if (par->active) {
    int brc = sp_bcast_down(par, &blob, &len);
    if (!rc) rc = brc;
    if (par->rank != 0) kept_ranks = (int32_t *)blob, nkept = len > 0 ? len / 4 : 0;
  }
  /* A failure anywhere (a rank that got no list) stops every rank here,
   * before rank 0 would wait for a snapshot that never comes. */
  rc = sp__par_agree(par, rc);
  sp_agg_snap_t kept;
  memset(&kept, 0, sizeof kept);
  if (!rc) rc = sp_collect_kept(par, rc, mine, kept_ranks, nkept, &kept);
  rc = sp__par_agree(par, rc);
  if (!rc && par->rank == 0) rc = sp_reduce_publish(&t, &kept, par->size, k, path, was);
  rc = sp__par_agree(par, rc);
  sp__agg_snap_free(&kept);
  sp__red_free(&t);
  free(kept_ranks);
  return rc;
}
