/* otf2_defs.c - the global definitions of an exported archive.
 *
 * Clock: 1 ns resolution, the global offset at the earliest stamp written.
 * System tree: a machine node, one node per host name, and under it one
 * location group "MPI Rank N" per selected rank; a location per (rank,
 * thread) ("thread T"), and "thread T overlap L" for the calls of that
 * thread that overlap others without nesting. Regions: one per selected
 * region, named exactly as recorded; the MPI calls the core records
 * (MPI_Send, MPI_Allreduce...) carry the MPI paradigm and its role, the
 * others the user paradigm. The run's /metadata: properties of the
 * machine node, by their exact names, and trace file properties. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_internal.h"

typedef struct sp_defs {
  OTF2_GlobalDefWriter *w;
  OTF2_StringRef nstrings;
  OTF2_ErrorCode err; /* first failure */
} sp_defs_t;

static OTF2_StringRef sp_str(sp_defs_t *d, const char *s) {
  OTF2_StringRef id = d->nstrings++;
  OTF2_ErrorCode e = OTF2_GlobalDefWriter_WriteString(d->w, id, s);
  if (d->err == OTF2_SUCCESS) d->err = e;
  return id;
}

static void sp_check(sp_defs_t *d, OTF2_ErrorCode e) {
  if (d->err == OTF2_SUCCESS) d->err = e;
}

/* Paradigm and role of a region by its name: the core records the MPI
 * calls it wraps as "MPI_<Name>" (c/src/mpi_profile/mpi_profile.c). */
static void sp_region_kind(const char *name, OTF2_Paradigm *paradigm, OTF2_RegionRole *role) {
  static const struct {
    const char *name;
    OTF2_RegionRole role;
  } mpi[] = {
      {"MPI_Send", OTF2_REGION_ROLE_POINT2POINT},
      {"MPI_Recv", OTF2_REGION_ROLE_POINT2POINT},
      {"MPI_Isend", OTF2_REGION_ROLE_POINT2POINT},
      {"MPI_Irecv", OTF2_REGION_ROLE_POINT2POINT},
      {"MPI_Sendrecv", OTF2_REGION_ROLE_POINT2POINT},
      {"MPI_Wait", OTF2_REGION_ROLE_FUNCTION},
      {"MPI_Waitall", OTF2_REGION_ROLE_FUNCTION},
      {"MPI_Barrier", OTF2_REGION_ROLE_BARRIER},
      {"MPI_Bcast", OTF2_REGION_ROLE_COLL_ONE2ALL},
      {"MPI_Reduce", OTF2_REGION_ROLE_COLL_ALL2ONE},
      {"MPI_Allreduce", OTF2_REGION_ROLE_COLL_ALL2ALL},
      {"MPI_Allgather", OTF2_REGION_ROLE_COLL_ALL2ALL},
      {"MPI_Alltoall", OTF2_REGION_ROLE_COLL_ALL2ALL},
  };
  *paradigm = OTF2_PARADIGM_USER;
  *role = OTF2_REGION_ROLE_FUNCTION;
  for (size_t i = 0; i < sizeof mpi / sizeof mpi[0]; i++)
    if (strcmp(name, mpi[i].name) == 0) {
      *paradigm = OTF2_PARADIGM_MPI;
      *role = mpi[i].role;
    }
}

static void sp_defs_regions(sp_defs_t *d, const sp_selection_t *sel) {
  OTF2_StringRef none = sp_str(d, "");
  for (int i = 0; i < sel->nregions; i++) {
    const char *name = sp_reader_region_name(sel->reader, sel->regions[i]);
    OTF2_Paradigm paradigm;
    OTF2_RegionRole role;
    sp_region_kind(name, &paradigm, &role);
    OTF2_StringRef s = sp_str(d, name);
    /* Where the profile records the region's source (sp_region_at, the
     * bindings' SP_SCOPE...): its file and line; else both undefined. */
    char file[4096];
    int64_t line = 0;
    OTF2_StringRef src = OTF2_UNDEFINED_STRING;
    if (sp_reader_region_source(sel->reader, sel->regions[i], file, sizeof file, &line) == 1 &&
        file[0])
      src = sp_str(d, file);
    else
      line = 0;
    uint32_t begin = line > 0 && line <= UINT32_MAX ? (uint32_t)line : 0;
    sp_check(d, OTF2_GlobalDefWriter_WriteRegion(d->w, (OTF2_RegionRef)i, s, s, none, role,
                                                 paradigm, OTF2_REGION_FLAG_NONE, src, begin, 0));
  }
}

typedef struct sp_host_rank {
  const char *host; /* NULL: not recorded */
  int j;            /* position in sel->ranks */
} sp_host_rank_t;

static int sp_host_cmp(const void *pa, const void *pb) {
  const sp_host_rank_t *a = pa, *b = pb;
  if (!a->host || !b->host) return !!a->host - !!b->host;
  int c = strcmp(a->host, b->host);
  return c ? c : (a->j > b->j) - (a->j < b->j);
}

/* The machine (node 0), one node per host name (1.., by name; ranks
 * without one under "unknown host"), a location group per rank under its
 * host. Sorted, not compared pairwise: a run may have 100,000 ranks. */
static int sp_defs_tree(sp_defs_t *d, const sp_otf2_run_t *run, const char *label) {
  const sp_selection_t *sel = run->sel;
  size_t n = (size_t)(sel->nranks ? sel->nranks : 1);
  int *node = malloc(n * sizeof *node);
  sp_host_rank_t *hr = malloc(n * sizeof *hr);
  if (!node || !hr) {
    free(node);
    free(hr);
    return SP_EXIT_IO;
  }
  sp_check(d,
           OTF2_GlobalDefWriter_WriteSystemTreeNode(d->w, 0, sp_str(d, label), sp_str(d, "machine"),
                                                    OTF2_UNDEFINED_SYSTEM_TREE_NODE));
  for (int j = 0; j < sel->nranks; j++)
    hr[j] = (sp_host_rank_t){sp_reader_rank_host(sel->reader, sel->ranks[j]), j};
  qsort(hr, (size_t)sel->nranks, sizeof *hr, sp_host_cmp);
  int nnodes = 0;
  for (int i = 0; i < sel->nranks; i++) {
    const char *h = hr[i].host;
    int same =
        i > 0 && ((!h && !hr[i - 1].host) || (h && hr[i - 1].host && !strcmp(h, hr[i - 1].host)));
    if (!same)
      sp_check(d, OTF2_GlobalDefWriter_WriteSystemTreeNode(d->w, (OTF2_SystemTreeNodeRef)++nnodes,
                                                           sp_str(d, h ? h : "unknown host"),
                                                           sp_str(d, "node"), 0));
    node[hr[i].j] = nnodes;
  }
  for (int j = 0; j < sel->nranks; j++) {
    char name[64];
    snprintf(name, sizeof name, "MPI Rank %d", sp_reader_rank_id(sel->reader, sel->ranks[j]));
    sp_check(d,
             OTF2_GlobalDefWriter_WriteLocationGroup(
                 d->w, (OTF2_LocationGroupRef)j, sp_str(d, name), OTF2_LOCATION_GROUP_TYPE_PROCESS,
                 (OTF2_SystemTreeNodeRef)node[j], OTF2_UNDEFINED_LOCATION_GROUP));
  }
  free(hr);
  free(node);
  return 0;
}

static void sp_defs_locations(sp_defs_t *d, const sp_otf2_run_t *run) {
  for (int i = 0; i < run->nlocs; i++) {
    const sp_otf2_loc_t *l = &run->locs[i];
    char name[64];
    if (l->layer == 0)
      snprintf(name, sizeof name, "thread %d", (int)l->thread);
    else
      snprintf(name, sizeof name, "thread %d overlap %d", (int)l->thread, l->layer);
    sp_check(d, OTF2_GlobalDefWriter_WriteLocation(d->w, (OTF2_LocationRef)i, sp_str(d, name),
                                                   OTF2_LOCATION_TYPE_CPU_THREAD, l->nevents,
                                                   (OTF2_LocationGroupRef)l->rank_j));
  }
}

/* The communicators of the MPI events (otf2_mpi.c, otf2_comms.c): group 0
 * lists, per world rank 0..max, the location of its first thread (OTF2's
 * rank -> location map); group 1, the members 0..max of MPI_COMM_WORLD
 * (comm 0); group 1 + i, the members of communicator i (comm i). */
static int sp_defs_comm(sp_defs_t *d, const sp_otf2_run_t *run) {
  const sp_selection_t *sel = run->sel;
  const sp_otf2_comms_t *cs = &run->comms;
  int max = cs->n ? cs->max_member : -1;
  for (int j = 0; j < sel->nranks; j++) {
    int id = sp_reader_rank_id(sel->reader, sel->ranks[j]);
    if (id > max) max = id;
  }
  if (max < 0) return 0;
  uint64_t *loc = malloc((size_t)(max + 1) * sizeof *loc);
  uint64_t *members = malloc((size_t)(max + 1) * sizeof *members);
  if (!loc || !members) {
    free(loc);
    free(members);
    return SP_EXIT_IO;
  }
  for (int r = 0; r <= max; r++) {
    loc[r] = OTF2_UNDEFINED_LOCATION;
    members[r] = (uint64_t)r;
  }
  for (int i = run->nlocs - 1; i >= 0; i--) {
    const sp_otf2_loc_t *l = &run->locs[i];
    int id = sp_reader_rank_id(sel->reader, sel->ranks[l->rank_j]);
    if (l->layer == 0 && id >= 0) loc[id] = (uint64_t)i; /* the first thread's, from the end */
  }
  OTF2_StringRef empty = sp_str(d, "");
  sp_check(d, OTF2_GlobalDefWriter_WriteGroup(d->w, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                              OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                              (uint32_t)(max + 1), loc));
  sp_check(d, OTF2_GlobalDefWriter_WriteGroup(d->w, 1, empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                              OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                              (uint32_t)(max + 1), members));
  sp_check(d, OTF2_GlobalDefWriter_WriteComm(d->w, SP_OTF2_COMM_WORLD, sp_str(d, "MPI_COMM_WORLD"),
                                             1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
  for (int i = 0; i < cs->n; i++) {
    const sp_otf2_comm_t *c = &cs->all[i];
    for (int32_t m = 0; m < c->size; m++) members[m] = (uint64_t)c->members[m];
    char name[64];
    if (c->id == 1)
      snprintf(name, sizeof name, "MPI_COMM_SELF");
    else
      snprintf(name, sizeof name, "MPI communicator %d (%d ranks)", (int)c->id, (int)c->size);
    sp_check(d, OTF2_GlobalDefWriter_WriteGroup(d->w, (OTF2_GroupRef)(i + 2), empty,
                                                OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                                OTF2_GROUP_FLAG_NONE, (uint32_t)c->size, members));
    sp_check(d, OTF2_GlobalDefWriter_WriteComm(d->w, (OTF2_CommRef)(i + 1), sp_str(d, name),
                                               (OTF2_GroupRef)(i + 2), SP_OTF2_COMM_WORLD,
                                               OTF2_COMM_FLAG_NONE));
  }
  free(loc);
  free(members);
  return 0;
}

/* /metadata as string properties of the machine node, names as recorded. */
static void sp_defs_metadata(sp_defs_t *d, sp_reader_t *r) {
  int n = sp_reader_metadata_count(r);
  for (int i = 0; i < n; i++) {
    char name[256], value[4096];
    int kind;
    if (sp_reader_metadata_entry(r, i, name, sizeof name, value, sizeof value, &kind) != 0 ||
        kind == SP_READER_META_OTHER)
      continue;
    OTF2_AttributeValue v;
    v.stringRef = sp_str(d, value);
    sp_check(d, OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(d->w, 0, sp_str(d, name),
                                                                 OTF2_TYPE_STRING, v));
  }
}

int sp__otf2_defs(sp_otf2_run_t *run, const char *label) {
  sp_defs_t d = {OTF2_Archive_GetGlobalDefWriter(run->archive), 0, OTF2_SUCCESS};
  if (!d.w) {
    sp_msg(SP_QUIET, "OTF2: cannot open the global definition writer");
    return SP_EXIT_IO;
  }
  /* The string values of the events' attributes hold ids 0.. (otf2_values.c). */
  for (uint32_t i = 0; i < run->vt.nstrs; i++) sp_str(&d, run->vt.strs[i]);
  uint64_t first = run->calls ? sp_otf2_time(run, run->first) : 0;
  uint64_t length = run->calls ? sp_otf2_time(run, run->last) - first : 0;
  sp_check(&d, OTF2_GlobalDefWriter_WriteClockProperties(d.w, 1000000000u, first, length,
                                                         OTF2_UNDEFINED_TIMESTAMP));
  sp_check(&d, OTF2_GlobalDefWriter_WriteParadigm(d.w, OTF2_PARADIGM_USER, sp_str(&d, "User"),
                                                  OTF2_PARADIGM_CLASS_PROCESS));
  sp_check(&d, OTF2_GlobalDefWriter_WriteParadigm(d.w, OTF2_PARADIGM_MPI, sp_str(&d, "MPI"),
                                                  OTF2_PARADIGM_CLASS_PROCESS));
  int rc = sp_defs_tree(&d, run, label);
  if (rc == 0) {
    sp_defs_locations(&d, run);
    sp_defs_regions(&d, run->sel);
    sp_defs_metadata(&d, run->sel->reader);
    for (int i = 0; i < run->vt.nattrs; i++) /* values per call: the key, its type */
      sp_check(&d, OTF2_GlobalDefWriter_WriteAttribute(
                       d.w, (OTF2_AttributeRef)i, sp_str(&d, run->vt.attrs[i].key),
                       sp_str(&d, "value per call (sp_call_set*)"), run->vt.attrs[i].type));
    if (run->mpi_events > 0) rc = sp_defs_comm(&d, run);
  }
  OTF2_ErrorCode e = OTF2_Archive_CloseGlobalDefWriter(run->archive, d.w);
  if (d.err == OTF2_SUCCESS) d.err = e;
  if (rc == 0 && d.err != OTF2_SUCCESS) {
    sp_msg(SP_QUIET, "OTF2: cannot write the definitions: %s", OTF2_Error_GetDescription(d.err));
    rc = SP_EXIT_IO;
  }
  return rc;
}

int sp__otf2_properties(sp_otf2_run_t *run) {
  sp_reader_t *r = run->sel->reader;
  int n = sp_reader_metadata_count(r);
  for (int i = 0; i < n; i++) {
    char name[256], value[4096], key[300] = "SCOPE_PROFILER::";
    int kind;
    if (sp_reader_metadata_entry(r, i, name, sizeof name, value, sizeof value, &kind) != 0 ||
        kind == SP_READER_META_OTHER || !value[0])
      continue;
    size_t k = strlen(key);
    for (const char *p = name; *p && k + 1 < sizeof key; p++) {
      char c = *p;
      key[k++] = (c >= 'a' && c <= 'z')                             ? (char)(c - 'a' + 'A')
                 : (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c
                                                                    : '_';
    }
    key[k] = '\0';
    OTF2_ErrorCode e = OTF2_Archive_SetProperty(run->archive, key, value, 1);
    if (e != OTF2_SUCCESS) {
      sp_msg(SP_QUIET, "OTF2: cannot set the trace property %s: %s", key,
             OTF2_Error_GetDescription(e));
      return SP_EXIT_IO;
    }
  }
  return 0;
}
