/* layout_meta.c - run metadata and source locations in the documented
 * layout (docs/the-file.md):
 *
 *   /metadata/@<key>             the users' keys (sp_metadata_set): string
 *                                (UTF-8), int64 or float64, from the lowest
 *                                rank that set the key (rank 0 normally)
 *   /rank<N>/metadata/@<key>     only the keys whose value on rank N
 *                                differs from /metadata's (or that only
 *                                other ranks set); no group when none
 *   rank<N>/regions/<r>/@source_file    UTF-8 string  (the reference
 *   rank<N>/regions/<r>/@source_lineno  int64          tool's names)
 */
#include <string.h>

#include "layout.h"
#include "layout_meta.h"

static int sp_attr(hid_t obj, const char *name, uint32_t type, const void *val) {
  hid_t t = -1;
  if (type == SP_META_STR) {
    t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
  }
  hid_t mt = type == SP_META_STR ? t : type == SP_META_INT ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t acpl = H5Pcreate(H5P_ATTRIBUTE_CREATE);
  H5Pset_char_encoding(acpl, H5T_CSET_UTF8); /* the name is UTF-8 too */
  hid_t a = H5Acreate2(obj, name, mt, space, acpl, H5P_DEFAULT);
  const char *s = val;
  herr_t w = a >= 0 ? H5Awrite(a, mt, type == SP_META_STR ? (const void *)&s : val) : -1;
  if (a >= 0) H5Aclose(a);
  H5Pclose(acpl);
  H5Sclose(space);
  if (t >= 0) H5Tclose(t);
  return (a >= 0 && w >= 0) ? 0 : SP_EHDF5;
}

static const sp_meta_entry_t *sp_meta_get(const sp_meta_list_t *l, const char *key) {
  for (int32_t i = 0; i < l->n; i++)
    if (strcmp(l->e[i].key, key) == 0) return &l->e[i];
  return NULL;
}

/* The entry /metadata holds for key: the lowest rank's. */
static const sp_meta_entry_t *sp_meta_first(const sp_rank_plan_t *plans, int nplans,
                                            const char *key, int *rank) {
  for (int r = 0; r < nplans; r++) {
    const sp_meta_entry_t *e = sp_meta_get(&plans[r].meta, key);
    if (e) {
      *rank = r;
      return e;
    }
  }
  return NULL;
}

int sp__layout_user_meta(hid_t g, const sp_rank_plan_t *plans, int nplans) {
  int rc = 0;
  for (int r = 0; rc == 0 && r < nplans; r++)
    for (int32_t i = 0; rc == 0 && i < plans[r].meta.n; i++) {
      const sp_meta_entry_t *e = &plans[r].meta.e[i];
      int first = -1;
      sp_meta_first(plans, nplans, e->key, &first);
      if (first == r) rc = sp_attr(g, e->key, e->type, e->val);
    }
  return rc;
}

static int sp_meta_same(const sp_meta_entry_t *a, const sp_meta_entry_t *b) {
  return a->type == b->type && a->len == b->len && memcmp(a->val, b->val, a->len) == 0;
}

int sp__layout_rank_meta(hid_t rg, const sp_rank_plan_t *plans, int nplans, int r) {
  hid_t g = -1;
  int rc = 0;
  for (int32_t i = 0; rc == 0 && i < plans[r].meta.n; i++) {
    const sp_meta_entry_t *e = &plans[r].meta.e[i];
    int first = -1;
    const sp_meta_entry_t *top = sp_meta_first(plans, nplans, e->key, &first);
    if (first == r || sp_meta_same(top, e)) continue;
    if (g < 0) g = H5Gcreate2(rg, "metadata", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    rc = g < 0 ? SP_EHDF5 : sp_attr(g, e->key, e->type, e->val);
  }
  if (g >= 0) H5Gclose(g);
  return rc;
}

int sp__layout_meta_list(hid_t g, const sp_meta_list_t *l) {
  int rc = 0;
  for (int32_t i = 0; rc == 0 && i < l->n; i++)
    rc = sp_attr(g, l->e[i].key, l->e[i].type, l->e[i].val);
  return rc;
}

int64_t sp__layout_meta_bytes(const sp_rank_plan_t *p) {
  int64_t bytes = 0; /* each string twice (the attribute and its global heap), 512 B per object */
  for (int32_t i = 0; i < p->meta.n; i++)
    bytes += 512 + 2 * ((int64_t)strlen(p->meta.e[i].key) + p->meta.e[i].len);
  for (int32_t i = 0; i < p->nregions; i++)
    if (p->regions[i].src_file) bytes += 512 + 2 * (int64_t)strlen(p->regions[i].src_file);
  return bytes;
}

int sp__layout_region_source(hid_t g, const sp_plan_region_t *r) {
  if (!r->src_file) return 0;
  int rc = sp_attr(g, "source_file", SP_META_STR, r->src_file);
  if (rc == 0) rc = sp_attr(g, "source_lineno", SP_META_INT, &r->src_line);
  return rc;
}
