/* reader_lookup.c - what every part of the reader looks up in an open file:
 * link names and string attributes (HDF5), a rank's index by its id and a
 * (region, rank) pair; kept apart so that the parts that open, read and
 * align call it without calling each other back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

/* Collects link names for H5Literate: stops past cap (a group that grew). */
typedef struct sp_names {
  char **names;
  hsize_t n, cap;
} sp_names_t;

static herr_t sp_name_collect(hid_t g, const char *name, const H5L_info_t *info, void *data) {
  (void)g;
  (void)info;
  sp_names_t *ns = data;
  if (ns->n == ns->cap) return 1;
  ns->names[ns->n] = strdup(name);
  if (!ns->names[ns->n]) return -1;
  ns->n++;
  return 0;
}

/* Names of the first n links of g in name order: an array of *got malloc'd
 * strings (*got < n when the group cannot be read to its end), or NULL.
 * One pass: H5Lget_name_by_idx builds and sorts the link table of a large
 * group on every call, so a rank of 10^5 regions took over 10 minutes. */
char **sp__link_names(hid_t g, hsize_t n, hsize_t *got) {
  sp_names_t ns = {calloc(n ? n : 1, sizeof(char *)), 0, n};
  *got = 0;
  if (!ns.names) return NULL;
  hsize_t idx = 0;
  H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, sp_name_collect, &ns);
  *got = ns.n;
  return ns.names;
}

void sp__names_free(char **names, hsize_t n) {
  for (hsize_t i = 0; names && i < n; i++) free(names[i]);
  free(names);
}

char *sp__attr_string(const sp_reader_t *r, hid_t obj, const char *name) {
  if (H5Aexists(obj, name) <= 0) return NULL;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) return NULL;
  hid_t t = H5Aget_type(a);
  char *out = NULL;
  if (t >= 0 && H5Tget_class(t) == H5T_STRING) {
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_cset(mt, H5Tget_cset(t));
    if (H5Tis_variable_str(t) > 0) {
      char *v = NULL;
      H5Tset_size(mt, H5T_VARIABLE);
      if (sp__heap_ids_check(r, obj, a, t, name) == 0 && H5Aread(a, mt, &v) >= 0 && v)
        out = strdup(v);
      if (v) H5free_memory(v);
    } else {
      size_t sz = H5Tget_size(t);
      H5Tset_size(mt, sz + 1);
      H5Tset_strpad(mt, H5T_STR_NULLTERM);
      out = calloc(sz + 2, 1);
      if (out && H5Aread(a, mt, out) < 0) {
        free(out);
        out = NULL;
      }
    }
    H5Tclose(mt);
  }
  if (t >= 0) H5Tclose(t);
  H5Aclose(a);
  return out;
}

int sp_reader_rank_index(const sp_reader_t *r, int id) {
  int lo = 0, hi = r ? r->nranks - 1 : -1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (r->ranks[mid].id == id) return mid;
    if (r->ranks[mid].id < id)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

int sp__reader_check_pair(sp_reader_t *r, int g, int k) {
  if (r && k >= 0 && k < r->nranks && g >= 0 && g < r->nregions) return 0;
  return r ? sp__reader_fail(r, SP_READER_EINVAL, "region %d / rank index %d out of range", g, k)
           : SP_READER_EINVAL;
}

const sp_rank_region_t *sp__reader_find(const sp_reader_t *r, int g, int k) {
  if (!r || k < 0 || k >= r->nranks || g < 0 || g >= r->nregions) return NULL;
  const sp_rank_t *rk = &r->ranks[k];
  /* The records are sorted by region and unique: a rank that has every
   * region (the common case) holds region g at g, found without a search. */
  if (g < rk->nregions && rk->regions[g].region == g) return &rk->regions[g];
  int lo = 0, hi = rk->nregions - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (rk->regions[mid].region == g) return &rk->regions[mid];
    if (rk->regions[mid].region < g)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}
