/* reader_nested.c - region links, with the reference tool's nested names.
 *
 * The core encodes '/' in a region name as %2F, so its region groups sit
 * directly under rank<N>/regions. The reference tool (h5py) creates the
 * group "solver/rhs" as regions/solver/rhs: a group "solver" holding no
 * data and a group "rhs" with the datasets. Read as it is, that would be an
 * empty region "solver". So a region group without start_times, end_times
 * and num_calls whose members are all groups is a level, not a region: its
 * children take its place, named by their path ("solver/rhs"). Groups with
 * data, the common case, cost nothing here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

/* Names of the links of group g (malloc'd), listed in one pass; NULL on
 * failure or when the group cannot be read to its end. */
static char **sp_links(hid_t g, hsize_t *n) {
  H5G_info_t info;
  if (H5Gget_info(g, &info) < 0) return NULL;
  hsize_t got = 0;
  char **v = sp__link_names(g, info.nlinks, &got);
  if (v && got < info.nlinks) {
    sp__names_free(v, got);
    return NULL;
  }
  *n = info.nlinks;
  return v;
}

/* 1 if name in g is a group reached without leaving the file: links to
 * other files are never followed (reader_guard.c). */
static int sp_is_group(hid_t g, const char *name) {
  if (sp__link_kind(g, name) != SP_LINK_LOCAL) return 0;
  H5O_info_t oi;
#if H5_VERSION_GE(1, 12, 0)
  return H5Oget_info_by_name3(g, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) >= 0 &&
         oi.type == H5O_TYPE_GROUP;
#else
  return H5Oget_info_by_name2(g, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) >= 0 &&
         oi.type == H5O_TYPE_GROUP;
#endif
}

int sp__region_links(sp_reader_t *r, hid_t regions, const char *where, char ***links, size_t *n) {
  hsize_t nl = 0;
  *links = sp_links(regions, &nl);
  *n = (size_t)nl;
  if (!*links)
    return sp__reader_fail(r, SP_READER_EHDF5, "%s/regions: cannot read (truncated file?)", where);
  return 0;
}

int sp__region_expand(sp_reader_t *r, hid_t regions, const char *path, char ***links, size_t *n,
                      size_t *cap) {
  int depth = 0;
  for (const char *p = path; *p; p++) depth += *p == '/';
  if (depth >= 32 || !sp_is_group(regions, path)) return 0; /* the bound stops a cyclic file */
  hid_t g = H5Gopen2(regions, path, H5P_DEFAULT);
  if (g < 0) return 0;
  hsize_t nk = 0;
  char **kids = sp_links(g, &nk);
  int level = kids && nk > 0;
  for (hsize_t i = 0; level && i < nk; i++) level = sp_is_group(g, kids[i]);
  H5Gclose(g);
  int rc = 0;
  if (level && *n + nk > *cap) {
    size_t c = (*n + nk) * 2;
    char **v = realloc(*links, c * sizeof *v);
    if (v) {
      *links = v;
      *cap = c;
    } else {
      rc = SP_READER_ENOMEM;
    }
  }
  for (hsize_t i = 0; rc == 0 && level && i < nk; i++) {
    size_t len = strlen(path) + strlen(kids[i]) + 2;
    char *child = malloc(len);
    if (!child) {
      rc = SP_READER_ENOMEM;
      break;
    }
    snprintf(child, len, "%s/%s", path, kids[i]);
    (*links)[(*n)++] = child;
  }
  sp__names_free(kids, kids ? nk : 0);
  return rc == SP_READER_ENOMEM ? sp__reader_fail(r, rc, "out of memory listing regions") : 0;
}
