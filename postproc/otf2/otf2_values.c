/* otf2_values.c - values per call (sp_call_set*; docs/values.md) as OTF2
 * attributes of the calls' ENTER events.
 *
 * One attribute definition per (key, kind): the key as its name, type
 * INT64, DOUBLE or STRING. A string value is a string definition: the
 * distinct values found while the events are written get the ids from 0
 * (a hash table finds a value again), and otf2_defs.c writes them first,
 * numbering its own strings after them. Memory: the distinct string values
 * of the export, besides each pair's values (otf2_merge.c). */
#include <stdlib.h>
#include <string.h>

#include "otf2_internal.h"

static uint32_t sp_hash(const char *s) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

static int sp_vt_grow(sp_otf2_vtab_t *vt) {
  uint32_t cap = vt->hcap ? 2 * vt->hcap : 1024;
  uint32_t *h = calloc(cap, sizeof *h);
  char **strs = realloc(vt->strs, (size_t)cap * sizeof *strs);
  if (!h || !strs) {
    free(h);
    if (strs) vt->strs = strs;
    return -1;
  }
  vt->strs = strs;
  for (uint32_t i = 0; i < vt->nstrs; i++) {
    uint32_t at = sp_hash(strs[i]) & (cap - 1);
    while (h[at]) at = (at + 1) & (cap - 1);
    h[at] = i + 1;
  }
  free(vt->hash);
  vt->hash = h;
  vt->hcap = cap;
  return 0;
}

/* The string id of s, a new one when first seen; -1 when out of memory. */
static int64_t sp_vt_string(sp_otf2_vtab_t *vt, const char *s) {
  if (2 * (vt->nstrs + 1) > vt->hcap && sp_vt_grow(vt) < 0) return -1;
  uint32_t at = sp_hash(s) & (vt->hcap - 1);
  for (; vt->hash[at]; at = (at + 1) & (vt->hcap - 1))
    if (!strcmp(vt->strs[vt->hash[at] - 1], s)) return vt->hash[at] - 1;
  if (!(vt->strs[vt->nstrs] = strdup(s))) return -1;
  vt->hash[at] = ++vt->nstrs;
  return vt->nstrs - 1;
}

/* The attribute id of (key, type), a new one when first seen. */
static int64_t sp_vt_attr(sp_otf2_vtab_t *vt, const char *key, OTF2_Type type) {
  for (int i = 0; i < vt->nattrs; i++)
    if (vt->attrs[i].type == type && !strcmp(vt->attrs[i].key, key)) return i;
  if (vt->nattrs == vt->capattrs) {
    int cap = vt->capattrs ? 2 * vt->capattrs : 16;
    sp_otf2_attr_t *a = realloc(vt->attrs, (size_t)cap * sizeof *a);
    if (!a) return -1;
    vt->attrs = a;
    vt->capattrs = cap;
  }
  if (!(vt->attrs[vt->nattrs].key = strdup(key))) return -1;
  vt->attrs[vt->nattrs].type = type;
  return vt->nattrs++;
}

OTF2_AttributeList *sp__otf2_values_list(sp_otf2_run_t *run, const sp_reader_values_t *v, int64_t e,
                                         int *rc) {
  sp_otf2_vtab_t *vt = &run->vt;
  *rc = 0;
  if (!v || !v->present || e < 0 || e >= v->n) return NULL;
  if (!vt->list && !(vt->list = OTF2_AttributeList_New())) *rc = SP_EXIT_IO;
  if (*rc) return NULL;
  OTF2_AttributeList_RemoveAllAttributes(vt->list);
  int any = 0;
  for (int k = 0; *rc == 0 && k < v->nkeys; k++) {
    const sp_reader_value_key_t *c = &v->keys[k];
    if (!sp_reader_value_set(c, e)) continue;
    OTF2_Type t = c->kind == SP_READER_VALUE_INT    ? OTF2_TYPE_INT64
                  : c->kind == SP_READER_VALUE_REAL ? OTF2_TYPE_DOUBLE
                                                    : OTF2_TYPE_STRING;
    int64_t a = sp_vt_attr(vt, c->key, t);
    int64_t s = t == OTF2_TYPE_STRING && a >= 0 ? sp_vt_string(vt, c->strings[e]) : 0;
    OTF2_ErrorCode x = OTF2_ERROR_MEM_ALLOC_FAILED;
    if (a >= 0 && s >= 0 && t == OTF2_TYPE_INT64)
      x = OTF2_AttributeList_AddInt64(vt->list, (OTF2_AttributeRef)a, c->ints[e]);
    else if (a >= 0 && s >= 0 && t == OTF2_TYPE_DOUBLE)
      x = OTF2_AttributeList_AddDouble(vt->list, (OTF2_AttributeRef)a, c->reals[e]);
    else if (a >= 0 && s >= 0)
      x = OTF2_AttributeList_AddStringRef(vt->list, (OTF2_AttributeRef)a, (OTF2_StringRef)s);
    if (x != OTF2_SUCCESS) {
      sp_msg(SP_QUIET, "OTF2: cannot add the value of %s: %s", c->key,
             OTF2_Error_GetDescription(x));
      *rc = SP_EXIT_IO;
    }
    any = 1;
  }
  return any && *rc == 0 ? vt->list : NULL;
}

void sp__otf2_values_free(sp_otf2_run_t *run) {
  sp_otf2_vtab_t *vt = &run->vt;
  for (int i = 0; i < vt->nattrs; i++) free(vt->attrs[i].key);
  for (uint32_t i = 0; i < vt->nstrs; i++) free(vt->strs[i]);
  free(vt->attrs);
  free(vt->strs);
  free(vt->hash);
  if (vt->list) OTF2_AttributeList_Delete(vt->list);
  memset(vt, 0, sizeof *vt);
}
