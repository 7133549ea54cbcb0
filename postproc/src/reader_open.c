/* reader_open.c - open a profile file and read its structure (no interval data).
 *
 * Everything here is metadata: link names, attributes, dataset shapes and
 * types, plus the first start of each (region, rank) pair so that regions
 * can be ordered by first start as the reference reader does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

/* Parses "rank<digits>" without leading zeros; returns the id or -1. */
static int sp_rank_name_parse(const char *name) {
  if (strncmp(name, "rank", 4) != 0) return -1;
  const char *d = name + 4;
  size_t len = strlen(d);
  if (len == 0 || len > 9 || (d[0] == '0' && len > 1)) return -1;
  int id = 0;
  for (size_t i = 0; i < len; i++) {
    if (d[i] < '0' || d[i] > '9') return -1;
    id = id * 10 + (d[i] - '0');
  }
  return id;
}

/* Type of the object linked as name in g: H5I_GROUP, H5I_DATASET, or H5I_BADID. */
static H5I_type_t sp_object_type(hid_t g, const char *name) {
  /* Links to other files are never followed (see reader_guard.c). */
  if (sp__link_kind(g, name) != SP_LINK_LOCAL) return H5I_BADID;
  hid_t o = H5Oopen(g, name, H5P_DEFAULT);
  if (o < 0) return H5I_BADID;
  H5I_type_t t = H5Iget_type(o);
  H5Oclose(o);
  return t;
}

/* Opens the group linked as name in g, as sp_object_type and H5Gopen2
 * would, with two lookups of name instead of five (a rank's regions group
 * holds hundreds of links), or none when at, the address a hard link named
 * name gave in a pass over g's links, is defined. *kind is name's
 * sp__link_kind; returns the group, or a negative value when name is
 * absent, foreign or not a group. */
static hid_t sp_group_open(hid_t g, const char *name, int *kind, haddr_t at) {
  if (at != HADDR_UNDEF) {
    hid_t o = sp__object_open_at(g, at);
    if (o >= 0 && H5Iget_type(o) == H5I_GROUP) {
      *kind = SP_LINK_LOCAL;
      return o;
    }
    if (o >= 0) H5Oclose(o);
    /* Not a group, or not opened: by name, for the same answer and message. */
  }
  H5L_info_t li;
  *kind = H5Lget_info(g, name, &li, H5P_DEFAULT) < 0             ? SP_LINK_NONE
          : li.type == H5L_TYPE_HARD || li.type == H5L_TYPE_SOFT ? SP_LINK_LOCAL
                                                                 : SP_LINK_FOREIGN;
  if (*kind != SP_LINK_LOCAL) return -1;
  hid_t o = H5Oopen(g, name, H5P_DEFAULT);
  if (o >= 0 && H5Iget_type(o) != H5I_GROUP) {
    H5Oclose(o);
    return -1;
  }
  return o;
}

/* Short description of an HDF5 type for messages ("float64", "uint32"). */
static void sp_type_describe(hid_t t, char *out, size_t cap) {
  size_t bits = H5Tget_size(t) * 8;
  switch (H5Tget_class(t)) {
  case H5T_INTEGER:
    snprintf(out, cap, "%sint%zu", H5Tget_sign(t) == H5T_SGN_NONE ? "u" : "", bits);
    break;
  case H5T_FLOAT:
    snprintf(out, cap, "float%zu", bits);
    break;
  case H5T_STRING:
    snprintf(out, cap, "string");
    break;
  default:
    snprintf(out, cap, "a non-numeric type");
  }
}

/* Checks that dataset name in g is 1-D with an integer type (signed 64-bit
 * when want_i64) and returns its length in *n. */
static int sp_dataset_check_h5(sp_reader_t *r, hid_t g, const char *where, const char *name,
                               int want_i64, int64_t *n, int64_t *addr) {
  *addr = 0;
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0) return sp__reader_fail(r, SP_READER_EHDF5, "%s/%s: cannot open dataset", where, name);
  hid_t t = H5Dget_type(d);
  hid_t s = H5Dget_space(d);
  int rc = 0;
  int ok_type = t >= 0 && H5Tget_class(t) == H5T_INTEGER &&
                (want_i64 ? H5Tget_size(t) == 8 && H5Tget_sign(t) == H5T_SGN_2 : 1);
  int ndims = s >= 0 ? H5Sget_simple_extent_ndims(s) : -1;
  if (!ok_type) {
    char desc[32] = "an unreadable type";
    if (t >= 0) sp_type_describe(t, desc, sizeof desc);
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s/%s has type %s, expected %s", where, name, desc,
                         want_i64 ? "int64" : "an integer type");
  } else if (ndims != 1) {
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s/%s has %d dimensions, expected 1", where, name,
                         ndims);
  } else {
    hsize_t dims[1];
    H5Sget_simple_extent_dims(s, dims, NULL);
    *n = dims[0] > (hsize_t)INT64_MAX ? INT64_MAX : (int64_t)dims[0];
    rc = sp__dataset_size_check(r, d, where, name, *n, H5Tget_size(t));
    /* Where a later load can read the array itself (reader_direct.c). */
    if (rc == 0)
      *addr = want_i64 ? sp__direct_addr(r, d, t, H5T_NATIVE_INT64, *n, 8)
                       : sp__direct_addr(r, d, t, H5T_NATIVE_INT32, *n, 4);
  }
  if (s >= 0) H5Sclose(s);
  if (t >= 0) H5Tclose(t);
  H5Dclose(d);
  return rc;
}

/* sp_dataset_check_h5, from the object header at oh when the dataset is
 * plain (reader_ohdr.c): the first such dataset of a file is opened with
 * HDF5 as well and the answers compared. */
static int sp_dataset_check(sp_reader_t *r, hid_t g, const char *where, const char *name,
                            int want_i64, int64_t *n, int64_t *addr, haddr_t oh) {
  int64_t pn = 0, pa = 0;
  int plain = sp__ohdr_dataset(r, oh, want_i64 ? 8 : 4, &pn, &pa);
  if (plain && sp__ohdr_trusted(r)) {
    *n = pn;
    *addr = pa;
    return 0;
  }
  int rc = sp_dataset_check_h5(r, g, where, name, want_i64, n, addr);
  if (plain) sp__ohdr_verify(r, rc == 0 && *n == pn && *addr == pa);
  return rc;
}

/* Reads an integer attribute as int64; returns 1 if read, 0 otherwise. */
static int sp_attr_i64(hid_t obj, const char *name, int64_t *v) {
  if (H5Aexists(obj, name) <= 0) return 0;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) return 0;
  hid_t t = H5Aget_type(a);
  int ok = t >= 0 && H5Tget_class(t) == H5T_INTEGER && H5Aread(a, H5T_NATIVE_INT64, v) >= 0;
  if (t >= 0) H5Tclose(t);
  H5Aclose(a);
  return ok;
}

/* First start of a region: element 0 when one thread recorded it (starts
 * are non-decreasing), else the minimum over the whole array. */
static int sp_first_start(sp_reader_t *r, hid_t g, const char *where, sp_rank_region_t *rr) {
  rr->first_start = INT64_MAX;
  if (!rr->has_times || rr->n == 0) return 0;
  if (rr->addr[0] > 0) {
    int64_t mx;
    int rc = rr->has_tid ? sp__direct_minmax(r, rr->addr[0], rr->n, &rr->first_start, &mx)
                         : sp__direct_read(r, rr->addr[0], &rr->first_start, 8);
    if (rc) return sp__reader_fail(r, rc, "%s/start_times: read failed (truncated file?)", where);
    return 0;
  }
  hid_t d = H5Dopen2(g, "start_times", H5P_DEFAULT);
  if (d < 0) return sp__reader_fail(r, SP_READER_EHDF5, "%s/start_times: cannot open", where);
  int rc = 0;
  if (rr->has_tid) {
    int64_t mx;
    rc = sp__scan_minmax(d, rr->n, &rr->first_start, &mx);
  } else {
    hid_t fs = H5Dget_space(d);
    hsize_t off[1] = {0}, cnt[1] = {1};
    hid_t ms = H5Screate_simple(1, cnt, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL);
    if (H5Dread(d, H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, &rr->first_start) < 0)
      rc = SP_READER_EHDF5;
    H5Sclose(ms);
    H5Sclose(fs);
  }
  H5Dclose(d);
  if (rc) return sp__reader_fail(r, rc, "%s/start_times: read failed (truncated file?)", where);
  return 0;
}

/* The region group at `at` read from its symbol table (reader_stab.c),
 * without opening it: 1 when that holds start_times and end_times, no
 * attribute (so no name or num_calls) and every dataset is plain
 * (reader_ohdr.c), both kinds of parse having agreed with HDF5 in this
 * file; kind[] and oh[] as sp__link_kinds_at gives them. 0: open it. */
static int sp_region_parsed(const sp_reader_t *r, haddr_t at, const char *const *dsets, int *kind,
                            haddr_t *oh) {
  if (!sp__stab_trusted(r) || !sp__ohdr_trusted(r) || !sp__stab_links(r, at, dsets, 3, kind, oh))
    return 0;
  int64_t n, a;
  if (kind[0] != SP_LINK_LOCAL || kind[1] != SP_LINK_LOCAL) return 0;
  for (int i = 0; i < 3; i++)
    if (kind[i] == SP_LINK_LOCAL && !sp__ohdr_dataset(r, oh[i], i < 2 ? 8 : 4, &n, &a)) return 0;
  return 1;
}

/* The first region group of a file opened with HDF5 is also read from its
 * symbol table, and the answers compared: after that, groups that parse
 * are not opened (sp_region_parsed). */
static void sp_region_verify(sp_reader_t *r, haddr_t at, const char *const *dsets, const int *kind,
                             const haddr_t *oh, int attrs) {
  int pk[3];
  haddr_t po[3];
  if (sp__stab_trusted(r) || !sp__stab_usable(r) || !sp__stab_links(r, at, dsets, 3, pk, po))
    return;
  int agree = !attrs;
  for (int i = 0; i < 3; i++) agree = agree && pk[i] == kind[i] && po[i] == oh[i];
  sp__stab_verify(r, agree);
}

/* Reads one region group: name, num_calls, datasets and their consistency. */
static hid_t sp_regions_hid(sp_reader_t *r, sp_rank_t *rk);

static int sp_region_scan(sp_reader_t *r, sp_rank_t *rk, sp_rank_region_t *rr, char **name,
                          haddr_t at) {
  char where[512];
  snprintf(where, sizeof where, "rank%d/regions/%s", rk->id, rr->link);
  static const char *const dsets[3] = {"start_times", "end_times", "thread_ids"};
  int kind[3];
  haddr_t oh[3];
  hid_t g = -1;
  int rc = 0;
  if (sp_region_parsed(r, at, dsets, kind, oh)) {
    size_t len = sp_reader_name_decode(rr->link, NULL, 0);
    *name = malloc(len + 1);
    if (*name) sp_reader_name_decode(rr->link, *name, len + 1);
    rc = *name ? 0 : SP_READER_ENOMEM;
    rr->has_num_calls = 0;
  } else {
    int gkind = SP_LINK_NONE;
    g = sp_group_open(sp_regions_hid(r, rk), rr->link, &gkind, at);
    if (gkind == SP_LINK_FOREIGN)
      return sp__reader_fail(r, SP_READER_ELAYOUT, "%s is a link to another file: not followed",
                             where);
    if (g < 0) return sp__reader_fail(r, SP_READER_ELAYOUT, "%s is not a group", where);
    *name = sp__attr_string(r, g, "name");
    int attrs = *name != NULL;
    if (!*name) {
      size_t len = sp_reader_name_decode(rr->link, NULL, 0);
      *name = malloc(len + 1);
      if (*name) sp_reader_name_decode(rr->link, *name, len + 1);
    }
    rc = *name ? 0 : SP_READER_ENOMEM;
    rr->has_num_calls = sp_attr_i64(g, "num_calls", &rr->num_calls);
    attrs = attrs || rr->has_num_calls || H5Aexists(g, "num_calls") > 0;
    sp__link_kinds_at(g, dsets, 3, kind, oh);
    sp_region_verify(r, at, dsets, kind, oh, attrs);
  }
  for (int i = 0; i < 3; i++) {
    if (rc == 0 && kind[i] == SP_LINK_FOREIGN)
      rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s/%s is a link to another file: not followed",
                           where, dsets[i]);
  }
  int has_start = kind[0] == SP_LINK_LOCAL, has_end = kind[1] == SP_LINK_LOCAL;
  rr->has_tid = kind[2] == SP_LINK_LOCAL;
  rr->has_times = has_start && has_end;
  if (rc == 0 && has_start != has_end)
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s has %s but no %s", where,
                         has_start ? "start_times" : "end_times",
                         has_start ? "end_times" : "start_times");
  int64_t ns = 0, ne = 0, nt = 0;
  if (rc == 0 && rr->has_times)
    rc = sp_dataset_check(r, g, where, "start_times", 1, &ns, &rr->addr[0], oh[0]);
  if (rc == 0 && rr->has_times)
    rc = sp_dataset_check(r, g, where, "end_times", 1, &ne, &rr->addr[1], oh[1]);
  if (rc == 0 && rr->has_times && ns != ne)
    rc = sp__reader_fail(r, SP_READER_ELAYOUT,
                         "%s: start_times has %lld elements but end_times has %lld", where,
                         (long long)ns, (long long)ne);
  if (rc == 0 && rr->has_tid && rr->has_times) {
    rc = sp_dataset_check(r, g, where, "thread_ids", 0, &nt, &rr->addr[2], oh[2]);
    if (rc == 0 && nt != ns)
      rc = sp__reader_fail(r, SP_READER_ELAYOUT,
                           "%s: thread_ids has %lld elements but start_times has %lld", where,
                           (long long)nt, (long long)ns);
  }
  rr->has_tid = rr->has_tid && rr->has_times;
  if (!rr->has_tid) rr->addr[2] = 0;
  rr->n = ns;
  if (!rr->has_num_calls) rr->num_calls = ns;
  if (rc == 0) rc = sp_first_start(r, g, where, rr);
  if (g >= 0) H5Gclose(g);
  return rc;
}

/* Open-addressing map from region name to global index, so merging the
 * regions of 1000s of ranks stays linear. */
typedef struct sp_name_map {
  size_t cap; /* power of two */
  int *slot;  /* region index or -1 */
} sp_name_map_t;

static size_t sp_hash(const char *s) {
  size_t h = 1469598103934665603u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
  return h;
}

/* Returns the index of name, adding it (taking ownership) when new, or -1 on ENOMEM. */
static int sp_region_intern(sp_reader_t *r, sp_name_map_t *m, char *name) {
  if ((size_t)(r->nregions + 1) * 2 > m->cap) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    int *ns = malloc(ncap * sizeof *ns);
    sp_region_t *nr = realloc(r->regions, ncap / 2 * sizeof *nr);
    if (!ns || !nr) {
      free(ns);
      if (nr) r->regions = nr;
      return -1;
    }
    r->regions = nr;
    for (size_t i = 0; i < ncap; i++) ns[i] = -1;
    for (int g = 0; g < r->nregions; g++) {
      size_t h = sp_hash(r->regions[g].name) & (ncap - 1);
      while (ns[h] >= 0) h = (h + 1) & (ncap - 1);
      ns[h] = g;
    }
    free(m->slot);
    m->slot = ns;
    m->cap = ncap;
  }
  size_t h = sp_hash(name) & (m->cap - 1);
  while (m->slot[h] >= 0) {
    if (strcmp(r->regions[m->slot[h]].name, name) == 0) {
      free(name);
      return m->slot[h];
    }
    h = (h + 1) & (m->cap - 1);
  }
  m->slot[h] = r->nregions;
  r->regions[r->nregions].name = name;
  r->regions[r->nregions].first_start = INT64_MAX;
  r->regions[r->nregions].first_start_raw = INT64_MAX;
  r->regions[r->nregions].old = r->nregions;
  return r->nregions++;
}

/* The address of g's object header, or HADDR_UNDEF. */
static haddr_t sp_object_addr(hid_t g) {
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t oi;
  haddr_t a = HADDR_UNDEF;
  if (H5Oget_info3(g, &oi, H5O_INFO_BASIC) < 0) return HADDR_UNDEF;
  return H5VLnative_token_to_addr(g, oi.token, &a) >= 0 ? a : HADDR_UNDEF;
#else
  H5O_info_t oi;
  return H5Oget_info2(g, &oi, H5O_INFO_BASIC) >= 0 ? oi.addr : HADDR_UNDEF;
#endif
}

/* A rank's regions group listed from its symbol table (reader_stab.c)
 * once symbol tables have agreed with HDF5 in this file: 1 with the links
 * and their addresses, as sp__region_links and sp__link_addrs give them. */
static int sp_regions_listed(const sp_reader_t *r, hid_t regions, char ***links, haddr_t **at,
                             size_t *n) {
  if (!sp__stab_trusted(r)) return 0;
  return sp__stab_list(r, sp_object_addr(regions), links, at, n);
}

/* Before symbol tables are trusted: the listing of HDF5 (links, at: n
 * addresses) compared with the parse's; on disagreement parsing stops. */
static void sp_regions_compare(sp_reader_t *r, hid_t regions, char **links, const haddr_t *at,
                               size_t n) {
  char **pl = NULL;
  haddr_t *pa = NULL;
  size_t pn = 0;
  if (sp__stab_trusted(r) || !sp__stab_usable(r) ||
      !sp__stab_list(r, sp_object_addr(regions), &pl, &pa, &pn))
    return;
  int agree = pn == n;
  for (size_t i = 0; agree && i < n; i++) agree = strcmp(pl[i], links[i]) == 0 && pa[i] == at[i];
  if (!agree) sp__stab_verify(r, 0);
  sp__names_free(pl, pn);
  free(pa);
}

/* rank<N>/regions, opened now if the rank was read without HDF5
 * (sp_rank_parsed) and a region needs HDF5 after all; -1 on failure. */
static hid_t sp_regions_hid(sp_reader_t *r, sp_rank_t *rk) {
  if (rk->regions_gid == SP_REGIONS_LAZY) {
    char path[48];
    snprintf(path, sizeof path, "rank%d/regions", rk->id);
    rk->regions_gid = H5Gopen2(r->file, path, H5P_DEFAULT);
  }
  return rk->regions_gid;
}

/* rank<N> read from its symbol table (reader_stab.c) once symbol tables
 * have agreed with HDF5 in this file: 1 when the rank group has no
 * attribute (so no clock offsets or host name), no likwid group and a
 * regions group that parses, with that group's links and addresses; the
 * regions group is then opened only when a region needs HDF5. */
static int sp_rank_parsed(sp_reader_t *r, sp_rank_t *rk, char ***links, haddr_t **at, size_t *n) {
  static const char *const kids[2] = {"regions", "likwid"};
  int kind[2];
  haddr_t oh[2];
  if (!sp__stab_trusted(r) || rk->oh == HADDR_UNDEF ||
      !sp__stab_links(r, rk->oh, kids, 2, kind, oh) || kind[0] != SP_LINK_LOCAL ||
      kind[1] != SP_LINK_NONE || !sp__stab_list(r, oh[0], links, at, n))
    return 0;
  memset(&rk->clock, 0, sizeof rk->clock);
  rk->regions_gid = SP_REGIONS_LAZY;
  return 1;
}

/* rank<N>/regions and its links through HDF5 (nested names of the reference
 * tool expanded later, reader_nested.c); *none when the rank recorded nothing. */
static int sp_rank_links(sp_reader_t *r, sp_rank_t *rk, const char *gname, char ***links,
                         haddr_t **at, size_t *nlinks, size_t *nat, int *none) {
  hid_t rg = H5Gopen2(r->file, gname, H5P_DEFAULT);
  if (rg < 0) return sp__reader_fail(r, SP_READER_EHDF5, "%s: cannot open group", gname);
  int rc = 0;
  sp__reader_clock_read(r, rg, rk);
  /* LIKWID results are optional: only their group name is read here. */
  if (sp_object_type(rg, "likwid") == H5I_GROUP) {
    hid_t lw = H5Gopen2(rg, "likwid", H5P_DEFAULT);
    if (lw >= 0) {
      rk->likwid_group = sp__attr_string(r, lw, "group");
      if (!rk->likwid_group) rk->likwid_group = strdup("");
      H5Gclose(lw);
    }
    if (!rk->likwid_group) rc = SP_READER_ENOMEM;
  }
  H5I_type_t t = sp_object_type(rg, "regions");
  if (rc == 0 && sp__link_kind(rg, "regions") == SP_LINK_FOREIGN)
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s/regions is a link to another file: not followed",
                         gname);
  if (rc == 0 && t == H5I_BADID) {
    H5Gclose(rg);
    *none = 1;
    return 0; /* a rank that recorded nothing */
  }
  if (rc == 0 && t != H5I_GROUP)
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s/regions is not a group", gname);
  hid_t regions = rc ? -1 : H5Gopen2(rg, "regions", H5P_DEFAULT);
  rk->regions_gid = regions; /* closed by sp_reader_close */
  H5Gclose(rg);
  if (rc == 0 && regions < 0)
    rc = sp__reader_fail(r, SP_READER_EHDF5, "%s/regions: cannot read (truncated file?)", gname);
  if (rc == 0 && sp_regions_listed(r, regions, links, at, nlinks)) {
    *nat = *nlinks;
    return 0;
  }
  if (rc == 0) rc = sp__region_links(r, regions, gname, links, nlinks);
  /* The region groups' addresses, so each opens without a name lookup
   * (none known: each is looked up by name, as for the nested names). */
  *nat = rc == 0 ? *nlinks : 0;
  *at = *nat ? malloc(*nat * sizeof **at) : NULL;
  if (*at)
    sp__link_addrs(regions, *links, *nat, *at);
  else
    *nat = 0;
  if (rc == 0) sp_regions_compare(r, regions, *links, *at, *nat);
  return rc;
}

/* Scans rank<id>/regions. */
static int sp_rank_scan(sp_reader_t *r, sp_rank_t *rk, sp_name_map_t *map) {
  char gname[32];
  snprintf(gname, sizeof gname, "rank%d", rk->id);
  char **links = NULL;
  size_t nlinks = 0, cap = 0, nat = 0;
  haddr_t *at = NULL;
  int rc = 0, none = 0;
  if (sp_rank_parsed(r, rk, &links, &at, &nlinks))
    nat = nlinks;
  else
    rc = sp_rank_links(r, rk, gname, &links, &at, &nlinks, &nat, &none);
  if (none) return 0;
  cap = nlinks;
  if (rc == 0 && nlinks > 0) {
    rk->regions = calloc(nlinks, sizeof *rk->regions);
    if (!rk->regions) rc = SP_READER_ENOMEM;
  }
  for (size_t i = 0; rc == 0 && i < nlinks; i++) {
    sp_rank_region_t *rr = &rk->regions[rk->nregions];
    memset(rr, 0, sizeof *rr);
    rr->link = links[i];
    links[i] = NULL;
    rk->nregions++;
    char *name = NULL;
    rc = sp_region_scan(r, rk, rr, &name, i < nat ? at[i] : HADDR_UNDEF);
    /* No data: maybe a level of a nested name (reader_nested.c); then its
     * leaves are appended to the links and this record is dropped. */
    size_t before = nlinks;
    if (rc == 0 && !rr->has_times && !rr->has_num_calls)
      rc = sp__region_expand(r, sp_regions_hid(r, rk), rr->link, &links, &nlinks, &cap);
    if (rc == 0 && nlinks > before) {
      free(name);
      free(rr->link);
      rk->nregions--;
      sp_rank_region_t *nr = realloc(rk->regions, nlinks * sizeof *nr);
      if (nr)
        rk->regions = nr;
      else
        rc = SP_READER_ENOMEM;
      continue;
    }
    if (rc == 0) {
      rr->region = sp_region_intern(r, map, name);
      if (rr->region < 0) rc = SP_READER_ENOMEM;
    } else {
      free(name);
    }
    if (rc == 0) {
      sp_region_t *g = &r->regions[rr->region];
      int64_t aligned = sp__reader_align_at(r, (int)(rk - r->ranks), rr->first_start, 1);
      if (aligned < g->first_start) g->first_start = aligned;
      if (rr->first_start < g->first_start_raw) g->first_start_raw = rr->first_start;
    }
  }
  for (size_t i = 0; i < nlinks; i++) free(links[i]);
  free(links);
  free(at);
  return rc;
}

/* The root's links read from its symbol table (reader_stab.c): their
 * addresses, one per name of HDF5's listing (names, n), when the two
 * listings name the same links in the same order; else NULL. */
static haddr_t *sp_root_listed(const sp_reader_t *r, char **names, hsize_t n) {
  char **pl = NULL;
  haddr_t *pa = NULL;
  size_t pn = 0;
  if (!sp__stab_usable(r) || !sp__stab_list(r, sp_object_addr(r->file), &pl, &pa, &pn)) return NULL;
  int agree = pn == n;
  for (size_t i = 0; agree && i < pn; i++) agree = strcmp(pl[i], names[i]) == 0;
  sp__names_free(pl, pn);
  if (!agree) free(pa);
  return agree ? pa : NULL;
}

/* Collects the rank<N> groups of the root, sorted by id. */
static int sp_ranks_find(sp_reader_t *r) {
  H5G_info_t info;
  if (H5Gget_info(r->file, &info) < 0)
    return sp__reader_fail(r, SP_READER_ENOTHDF5, "cannot list the root group (truncated file?)");
  r->ranks = calloc(info.nlinks ? info.nlinks : 1, sizeof *r->ranks);
  if (!r->ranks) return SP_READER_ENOMEM;
  hsize_t got = 0;
  char **names = sp__link_names(r->file, info.nlinks, &got);
  if (!names) return SP_READER_ENOMEM;
  int rc =
      got < info.nlinks ? sp__reader_fail(r, SP_READER_ENOTHDF5, "cannot read root link names") : 0;
  haddr_t *oh = rc == 0 ? sp_root_listed(r, names, got) : NULL;
  for (hsize_t i = 0; rc == 0 && i < got; i++) {
    int id = sp_rank_name_parse(names[i]);
    /* A hard link to an old-style group, as the root's symbol table says
     * (sp_root_listed), needs no lookup: it is local and a group. */
    int group = id >= 0 && oh && sp__stab_group(r, oh[i]);
    if (id >= 0 && !group && sp__link_kind(r->file, names[i]) == SP_LINK_FOREIGN)
      rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s is a link to another file: not followed",
                           names[i]);
    if (rc == 0 && id >= 0 && (group || sp_object_type(r->file, names[i]) == H5I_GROUP)) {
      r->ranks[r->nranks].regions_gid = -1;
      r->ranks[r->nranks].oh = group ? oh[i] : HADDR_UNDEF;
      r->ranks[r->nranks++].id = id;
    }
  }
  free(oh);
  sp__names_free(names, got);
  if (rc) return rc;
  if (r->nranks == 0 && info.nlinks == 1 && sp_object_type(r->file, "metadata") == H5I_GROUP)
    return sp__reader_fail(r, SP_READER_ELAYOUT,
                           "the file holds only /metadata and no timings (written by the "
                           "reference tool with time_trace=False or flush_to_disk=False?)");
  if (r->nranks == 0)
    return sp__reader_fail(r, SP_READER_ELAYOUT,
                           "no rank<N> groups at the root: not a scope-profiler file");
  return 0;
}

static int sp_rank_cmp(const void *a, const void *b) {
  const sp_rank_t *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

static int sp_region_cmp(const void *a, const void *b) {
  const sp_region_t *x = a, *y = b;
  if (x->first_start != y->first_start) return x->first_start < y->first_start ? -1 : 1;
  return strcmp(x->name, y->name);
}

static int sp_rank_region_cmp(const void *a, const void *b) {
  const sp_rank_region_t *x = a, *y = b;
  return (x->region > y->region) - (x->region < y->region);
}

/* Sorts regions by first start and renumbers the per-rank records. */
static int sp_regions_order(sp_reader_t *r) {
  int *newidx = malloc((r->nregions ? (size_t)r->nregions : 1) * sizeof *newidx);
  if (!newidx) return SP_READER_ENOMEM;
  /* qsort needs a valid array even for 0 elements; files without regions have none. */
  if (r->nregions > 1) qsort(r->regions, (size_t)r->nregions, sizeof *r->regions, sp_region_cmp);
  for (int g = 0; g < r->nregions; g++) newidx[r->regions[g].old] = g;
  for (int k = 0; k < r->nranks; k++) {
    sp_rank_t *rk = &r->ranks[k];
    for (int i = 0; i < rk->nregions; i++) rk->regions[i].region = newidx[rk->regions[i].region];
    if (rk->nregions > 1)
      qsort(rk->regions, (size_t)rk->nregions, sizeof *rk->regions, sp_rank_region_cmp);
  }
  free(newidx);
  return 0;
}

static int sp_open_file(sp_reader_t *r, const char *path) {
  int rc = sp__file_check(r, path);
  if (rc == 0) rc = sp__gheap_init(r, path); /* its checks, made when HDF5 would need them */
  if (rc) return rc;
#if H5_VERSION_GE(1, 12, 0)
  if (H5Fis_accessible(path, H5P_DEFAULT) <= 0)
#else
  if (H5Fis_hdf5(path) <= 0)
#endif
    return sp__reader_fail(r, SP_READER_ENOTHDF5, "%s: not an HDF5 file", path);
  r->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (r->file < 0 && sp__h5_lock_failed())
    return sp__reader_fail(r, SP_READER_EIO,
                           "%s: locked by a process that has it open for writing (a run still "
                           "writing it?): retry when it has finished, or set "
                           "HDF5_USE_FILE_LOCKING=FALSE to read it as it is now",
                           path);
  if (r->file < 0)
    return sp__reader_fail(r, SP_READER_ENOTHDF5,
                           "%s: cannot open as HDF5 (truncated or damaged file)", path);
  sp__direct_open(r, path);
  sp__ohdr_open(r);
  sp__gheap_set_base(r);
  sp__heap_ids_open(r);
  int64_t schema = 0;
  if (sp_attr_i64(r->file, "scope_profiler_schema", &schema)) r->schema = (int)schema;
  if (r->schema > SP_READER_SCHEMA_MAX)
    return sp__reader_fail(r, SP_READER_ESCHEMA,
                           "%s: layout version %d is newer than this reader (%d); upgrade "
                           "scope-profiler",
                           path, r->schema, SP_READER_SCHEMA_MAX);
  return 0;
}

/* The open's reads met a damaged heap ID (sp__attr_string left the
 * attribute unread), or /metadata holds one: the file is refused, with why. */
static int sp_open_damaged(sp_reader_t *r, const char *path, int rc) {
  if (rc == 0) sp__metadata_ids_check(r);
  const char *why = rc == 0 ? sp__gheap_damaged(r) : NULL;
  return why ? sp__reader_fail(r, SP_READER_ELAYOUT, "%s: %s", path, why) : rc;
}

static int sp_open_quiet(sp_reader_t *r, const char *path) {
  int rc = sp_open_file(r, path);
  if (rc == 0 && sp__columnar_detect(r, r->file)) {
    rc = sp__columnar_open(r, path);
    if (rc == 0) rc = sp_regions_order(r);
    if (rc == SP_READER_ENOMEM) sp__reader_fail(r, rc, "out of memory reading %s", path);
    return sp_open_damaged(r, path, rc);
  }
  if (rc == 0) rc = sp_ranks_find(r);
  if (rc == 0 && r->nranks > 1) qsort(r->ranks, (size_t)r->nranks, sizeof *r->ranks, sp_rank_cmp);
  /* A damaged link table can list one name twice (found by fuzzing). */
  for (int k = 1; rc == 0 && k < r->nranks; k++)
    if (r->ranks[k].id == r->ranks[k - 1].id)
      rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s: group rank%d appears twice (damaged file)",
                           path, r->ranks[k].id);
  sp_name_map_t map = {0, NULL};
  for (int k = 0; rc == 0 && k < r->nranks; k++) rc = sp_rank_scan(r, &r->ranks[k], &map);
  free(map.slot);
  if (rc == 0) rc = sp_regions_order(r);
  if (rc == 0) rc = sp__reader_hosts_count(r);
  if (rc == SP_READER_ENOMEM) sp__reader_fail(r, rc, "out of memory reading %s", path);
  return sp_open_damaged(r, path, rc);
}

int sp_reader_open(const char *path, sp_reader_t **out, char *errbuf, size_t errcap) {
  if (errbuf && errcap) errbuf[0] = '\0';
  if (!out || !path) return SP_READER_EINVAL;
  *out = NULL;
  sp_reader_t *r = calloc(1, sizeof *r);
  if (!r) return SP_READER_ENOMEM;
  r->file = -1;
  r->fd = -1;
  r->heap_id_type = -1;
  for (int c = 0; c < 5; c++) r->col[c] = -1;
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  int rc = sp_open_quiet(r, path);
  sp__ohdr_close(r); /* headers are read at open only */
  sp__h5_quiet_end(&q);
  if (rc < 0) {
    if (errbuf && errcap) snprintf(errbuf, errcap, "%s", r->errmsg);
    sp_reader_close(r);
    return rc;
  }
  r->errmsg[0] = '\0';
  *out = r;
  return 0;
}

void sp_reader_close(sp_reader_t *r) {
  if (!r) return;
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  for (int k = 0; k < r->nranks; k++) {
    if (r->ranks[k].regions_gid >= 0) H5Gclose(r->ranks[k].regions_gid);
    for (int i = 0; i < r->ranks[k].nregions; i++) free(r->ranks[k].regions[i].link);
    free(r->ranks[k].regions);
    free(r->ranks[k].likwid_group);
    free(r->ranks[k].host);
  }
  free(r->ranks);
  for (int g = 0; g < r->nregions; g++) free(r->regions[g].name);
  free(r->regions);
  sp__columnar_close(r);
  sp__ohdr_close(r);
  sp__source_cache_free(r);
  sp__heap_ids_close(r);
  sp__gheap_free(r);
  sp__direct_close(r); /* after the heap's checks: they may read through its descriptor */
  if (r->file >= 0) H5Fclose(r->file);
  sp__h5_quiet_end(&q);
  free(r);
}
