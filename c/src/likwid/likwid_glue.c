/* likwid_glue.c - LIKWID marker calls around regions, and LIKWID's
 * results stored beside the timings (built with SCOPE_PROFILER_ENABLE_LIKWID).
 *
 * Marker tags. LIKWID keys its regions by tag, and its marker file holds
 * one "id:tag-group" line per region, read back with a 100-byte buffer; a
 * newline ends a line. So the tag of a region is its name with every
 * control or white-space byte replaced by '_', cut to SP_LW_TAG_MAX bytes
 * at a UTF-8 character boundary; when two regions would share a tag, the
 * later one gets "~<handle>" appended. Tags are made on a region's first
 * start and kept for the session.
 *
 * Nesting. LIKWID cannot nest a region inside itself ("Region already
 * started"), but scope-profiler regions recurse: only the outermost call of
 * a region on a thread starts and stops its LIKWID region (a per-thread
 * depth per region).
 *
 * Results. Under `likwid-perfctr -m` the marker API is live. At finalize,
 * the group's event names are read from perfmon, LIKWID_MARKER_CLOSE writes
 * LIKWID's marker file (LIKWID_FILEPATH, format of likwid_markerClose in
 * LIKWID 5: "nthreads nregions ngroups", then "id:tag-group" lines, then
 * "id group cpu count time nevents v..." lines), and that file is parsed to
 * get every thread's counts (likwid_markerGetRegion only sees the calling
 * thread). Rank 0 gathers all ranks' results and adds, to the finished file:
 *
 *   rank<N>/likwid                      attribute group (string)
 *   rank<N>/likwid/regions/<link name>  attributes name, tag (strings)
 *     cpus    int32[T]        hardware thread of each measured thread
 *     counts  int64[T]        calls LIKWID counted
 *     times   float64[T]      seconds LIKWID measured
 *     events  float64[T][E]   counter values
 *     event_names  string[E]  (variable-length UTF-8)
 *
 * The columnar layout holds the same records in likwid/ (likwid_columnar.c).
 *
 * Outside likwid-perfctr the marker calls report "not initialised" and
 * nothing is added. SCOPE_PROFILER_LIKWID_MARKER_FILE=<path> (for tests)
 * reads that marker file instead, with event names from LIKWID_EVENTS. */
#ifndef LIKWID_PERFMON
#define LIKWID_PERFMON /* the marker macros call LIKWID only with it */
#endif
#include <likwid-marker.h>
#include <likwid.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_attr.h"
#include "layout.h"
#include "likwid_columnar.h"
#include "par.h"
#include "serial.h"

#define SP_LW_TAG_MAX 64
#define SP_LW_CHUNK_BITS 10
#define SP_LW_CHUNK (1 << SP_LW_CHUNK_BITS)
#define SP_LW_MAX_CHUNKS 1024

/* Tag of each handle; chunks never move, a slot is set once (atomic). */
static char **sp_lw_tags[SP_LW_MAX_CHUNKS];
static pthread_mutex_t sp_lw_lock = PTHREAD_MUTEX_INITIALIZER;
static int sp_lw_live; /* a marker start succeeded: likwid-perfctr -m is running */

/* Per thread: open depth of each region, valid for session sp_lw_depth_session. */
static __thread int32_t *sp_lw_depth;
static __thread int32_t sp_lw_depth_cap;
static __thread unsigned sp_lw_depth_session;

int sp__likwid_available(void) { return 1; }

/* ---- tags ------------------------------------------------------------ */

static void sp_lw_tags_reset(void) {
  for (int c = 0; c < SP_LW_MAX_CHUNKS && sp_lw_tags[c]; c++) {
    for (int i = 0; i < SP_LW_CHUNK; i++) free(sp_lw_tags[c][i]);
    memset(sp_lw_tags[c], 0, SP_LW_CHUNK * sizeof(char *));
  }
}

static char *sp_lw_tag_get(int32_t h) {
  char **chunk = __atomic_load_n(&sp_lw_tags[h >> SP_LW_CHUNK_BITS], __ATOMIC_ACQUIRE);
  return chunk ? __atomic_load_n(&chunk[h & (SP_LW_CHUNK - 1)], __ATOMIC_ACQUIRE) : NULL;
}

static int sp_lw_tag_taken(const char *tag) {
  int32_t n = sp__region_count();
  for (int32_t h = 0; h < n; h++) {
    const char *t = sp_lw_tag_get(h);
    if (t && strcmp(t, tag) == 0) return 1;
  }
  return 0;
}

/* Builds the tag of name (see the file comment) into out[SP_LW_TAG_MAX + 16]. */
static void sp_lw_tag_make(const char *name, int32_t h, char *out) {
  size_t n = strlen(name), o = 0;
  if (n > SP_LW_TAG_MAX) {
    n = SP_LW_TAG_MAX;
    while (n > 0 && ((unsigned char)name[n] & 0xC0) == 0x80) n--; /* continuation byte */
  }
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)name[i];
    out[o++] = (c <= ' ' || c == 0x7F) ? '_' : (char)c;
  }
  out[o] = '\0';
  if (sp_lw_tag_taken(out)) snprintf(out + o, 16, "~%d", (int)h);
}

/* Slow path: the first start of h in this session. */
static __attribute__((noinline)) const char *sp_lw_tag_create(int32_t h) {
  if (h < 0 || h >= SP_LW_MAX_CHUNKS * SP_LW_CHUNK || h >= sp__region_count()) return NULL;
  pthread_mutex_lock(&sp_lw_lock);
  char *tag = sp_lw_tag_get(h);
  if (!tag) {
    int c = h >> SP_LW_CHUNK_BITS;
    if (!sp_lw_tags[c])
      __atomic_store_n(&sp_lw_tags[c], calloc(SP_LW_CHUNK, sizeof(char *)), __ATOMIC_RELEASE);
    char buf[SP_LW_TAG_MAX + 16];
    sp_lw_tag_make(sp__region_get(h)->name, h, buf);
    tag = sp_lw_tags[c] ? strdup(buf) : NULL;
    if (tag) __atomic_store_n(&sp_lw_tags[c][h & (SP_LW_CHUNK - 1)], tag, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&sp_lw_lock);
  return tag;
}

/* ---- markers ----------------------------------------------------------- */

void sp__likwid_init(void) {
  pthread_mutex_lock(&sp_lw_lock);
  sp_lw_tags_reset();
  sp_lw_live = 0;
  pthread_mutex_unlock(&sp_lw_lock);
  LIKWID_MARKER_INIT;
}

void sp__likwid_thread_init(void) { LIKWID_MARKER_THREADINIT; }

/* The calling thread's depth counter of h, or NULL without memory. */
static int32_t *sp_lw_depth_of(int32_t h) {
  if (SP_UNLIKELY(sp_lw_depth_session != sp__session)) {
    if (sp_lw_depth) memset(sp_lw_depth, 0, (size_t)sp_lw_depth_cap * sizeof *sp_lw_depth);
    sp_lw_depth_session = sp__session;
  }
  if (SP_UNLIKELY(h >= sp_lw_depth_cap)) {
    int32_t cap = sp_lw_depth_cap ? sp_lw_depth_cap : 64;
    while (cap <= h) cap *= 2;
    int32_t *d = realloc(sp_lw_depth, (size_t)cap * sizeof *d);
    if (!d) return NULL;
    memset(d + sp_lw_depth_cap, 0, (size_t)(cap - sp_lw_depth_cap) * sizeof *d);
    sp_lw_depth = d;
    sp_lw_depth_cap = cap;
  }
  return &sp_lw_depth[h];
}

void sp__likwid_start(int32_t h) {
  if (h < 0) return;
  int32_t *depth = sp_lw_depth_of(h);
  if (!depth || (*depth)++ > 0) return;
  const char *tag = sp_lw_tag_get(h);
  if (!tag) tag = sp_lw_tag_create(h);
  if (!tag) return;
  if (LIKWID_MARKER_START(tag) == 0 && !sp_lw_live)
    __atomic_store_n(&sp_lw_live, 1, __ATOMIC_RELAXED);
}

void sp__likwid_stop(int32_t h) {
  if (h < 0) return;
  int32_t *depth = sp_lw_depth_of(h);
  if (!depth || *depth == 0 || --(*depth) > 0) return;
  const char *tag = sp_lw_tag_get(h);
  if (tag) LIKWID_MARKER_STOP(tag);
}

/* ---- results: one rank's packed form ----------------------------------- */

/* ---- results: reading LIKWID's marker file ----------------------------- */

/* Group and event names of the live measurement, taken from perfmon
 * before LIKWID_MARKER_CLOSE finalizes it. */
#define SP_LW_MAX_EVENTS 64
static char sp_lw_group_name[256];
static char sp_lw_event_names[SP_LW_MAX_EVENTS][128];
static int sp_lw_nevent_names;

static void sp_lw_snapshot_names(void) {
  const char *g = perfmon_getGroupName(-1);
  snprintf(sp_lw_group_name, sizeof sp_lw_group_name, "%s", g ? g : "");
  int n = perfmon_getNumberOfEvents(-1);
  sp_lw_nevent_names = n < 0 ? 0 : n > SP_LW_MAX_EVENTS ? SP_LW_MAX_EVENTS : n;
  for (int e = 0; e < sp_lw_nevent_names; e++) {
    const char *en = perfmon_getEventName(-1, e);
    snprintf(sp_lw_event_names[e], sizeof sp_lw_event_names[e], "%s", en ? en : "");
  }
}

/* Packs nevents event names of group g: from the snapshot when LIKWID was
 * live, else from LIKWID_EVENTS ("EV:CTR,EV:CTR|..." per group). */
static void sp_lw_pack_event_names(sp_buf_t *b, int g, int nevents, int live) {
  const char *grp = getenv("LIKWID_EVENTS");
  for (int i = 0; i < g && grp; i++) {
    grp = strchr(grp, '|');
    if (grp) grp++;
  }
  sp__buf_i64(b, nevents);
  for (int e = 0; e < nevents; e++) {
    char name[256] = "";
    if (live && e < sp_lw_nevent_names) {
      snprintf(name, sizeof name, "%s", sp_lw_event_names[e]);
    } else if (grp) {
      size_t len = strcspn(grp, ":,|");
      snprintf(name, sizeof name, "%.*s", (int)len, grp);
      grp += strcspn(grp, ",|");
      grp = *grp == ',' ? grp + 1 : NULL;
    }
    if (!name[0]) snprintf(name, sizeof name, "event%d", e);
    sp__buf_str(b, name);
  }
}

/* The region whose tag is tag, or -1. */
static int32_t sp_lw_handle_of_tag(const char *tag) {
  int32_t n = sp__region_count();
  for (int32_t h = 0; h < n; h++) {
    const char *t = sp_lw_tag_get(h);
    if (t && strcmp(t, tag) == 0) return h;
  }
  return -1;
}

typedef struct sp_lw_row {
  int region, group, cpu;
  int64_t count;
  double time;
  int nevents;
  double ev[64];
} sp_lw_row_t;

/* Parses the marker file at path into b: group name, then per region of
 * ours: name, tag, event names, T, and T rows (cpu, count, time, events). */
static int sp_lw_pack_file(const char *path, sp_buf_t *b, int live) {
  FILE *f = fopen(path, "re");
  if (!f) return SP_EIO;
  int nthreads = 0, nregions = 0, ngroups = 0, rc = 0;
  char line[4096];
  if (!fgets(line, sizeof line, f) ||
      sscanf(line, "%d %d %d", &nthreads, &nregions, &ngroups) != 3 || nregions < 0 ||
      nthreads < 0) {
    fclose(f);
    return SP_EIO;
  }
  char **tags = calloc((size_t)nregions + 1, sizeof *tags);
  int *groups = calloc((size_t)nregions + 1, sizeof *groups);
  sp_lw_row_t *rows = NULL;
  int nrows = 0, caprows = 0;
  if (!tags || !groups) rc = SP_ENOMEM;
  while (rc == 0 && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    char *colon = strchr(line, ':');
    if (colon) { /* "id:tag-group" */
      int id = atoi(line);
      char *dash = strrchr(colon, '-');
      if (id < 0 || id >= nregions || !dash) continue;
      *dash = '\0';
      groups[id] = atoi(dash + 1);
      free(tags[id]);
      tags[id] = strdup(colon + 1);
      continue;
    }
    sp_lw_row_t r;
    int used = 0;
    long long cnt = 0;
    if (sscanf(line, "%d %d %d %lld %lf %d %n", &r.region, &r.group, &r.cpu, &cnt, &r.time,
               &r.nevents, &used) < 6 ||
        r.region < 0 || r.region >= nregions || r.nevents < 0)
      continue;
    r.count = cnt;
    if (r.nevents > 64) r.nevents = 64;
    const char *p = line + used;
    for (int e = 0; e < r.nevents; e++) {
      char *end;
      r.ev[e] = strtod(p, &end);
      p = end;
    }
    if (nrows == caprows) {
      caprows = caprows ? 2 * caprows : 64;
      sp_lw_row_t *nr = realloc(rows, (size_t)caprows * sizeof *rows);
      if (!nr) {
        rc = SP_ENOMEM;
        break;
      }
      rows = nr;
    }
    rows[nrows++] = r;
  }
  fclose(f);
  sp__buf_str(b, live ? sp_lw_group_name : "");
  for (int id = 0; rc == 0 && id < nregions; id++) {
    int32_t h = tags[id] ? sp_lw_handle_of_tag(tags[id]) : -1;
    if (h < 0) continue; /* a region of the program's own markers */
    int t = 0, nev = 0;
    for (int i = 0; i < nrows; i++)
      if (rows[i].region == id && rows[i].group == groups[id]) {
        t++;
        nev = rows[i].nevents;
      }
    sp__buf_str(b, sp__region_get(h)->name);
    sp__buf_str(b, tags[id]);
    sp_lw_pack_event_names(b, groups[id], nev, live);
    sp__buf_i64(b, t);
    for (int i = 0; i < nrows; i++) {
      if (rows[i].region != id || rows[i].group != groups[id]) continue;
      sp__buf_i64(b, rows[i].cpu);
      sp__buf_i64(b, rows[i].count);
      sp__buf_f64(b, rows[i].time);
      for (int e = 0; e < nev; e++) sp__buf_f64(b, e < rows[i].nevents ? rows[i].ev[e] : 0.0);
    }
  }
  for (int i = 0; tags && i < nregions; i++) free(tags[i]);
  free(tags);
  free(groups);
  free(rows);
  if (rc == 0 && b->failed) rc = SP_ENOMEM;
  return rc;
}

/* ---- results: writing them into the file (rank 0) ----------------------- */

static int sp_lw_dataset(hid_t g, const char *name, hid_t type, int rank, const hsize_t *dims,
                         const void *data) {
  hid_t space = H5Screate_simple(rank, dims, NULL);
  hid_t d = H5Dcreate2(g, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t w = d >= 0 ? H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) : -1;
  if (d >= 0) H5Dclose(d);
  H5Sclose(space);
  return (d >= 0 && w >= 0) ? 0 : SP_EHDF5;
}

/* Writes one region record read from r into group regions. */
static int sp_lw_write_region(sp_rd_t *r, hid_t regions) {
  char *name = sp__rd_bytes(r, NULL), *tag = sp__rd_bytes(r, NULL);
  int64_t nev = sp__rd_i64(r);
  int rc = (r->failed || nev < 0 || nev > 64) ? SP_EIO : 0;
  char *evn[64] = {0};
  for (int64_t e = 0; rc == 0 && e < nev; e++) evn[e] = sp__rd_bytes(r, NULL);
  int64_t t = rc == 0 ? sp__rd_i64(r) : 0;
  if (r->failed || t < 0 || t > (r->end - r->p)) rc = SP_EIO;
  int32_t *cpus = rc == 0 ? calloc((size_t)t + 1, sizeof *cpus) : NULL;
  int64_t *counts = rc == 0 ? calloc((size_t)t + 1, sizeof *counts) : NULL;
  double *times = rc == 0 ? calloc((size_t)t + 1, sizeof *times) : NULL;
  double *ev = rc == 0 ? calloc((size_t)(t * nev) + 1, sizeof *ev) : NULL;
  if (rc == 0 && !(cpus && counts && times && ev)) rc = SP_ENOMEM;
  for (int64_t i = 0; rc == 0 && i < t; i++) {
    cpus[i] = (int32_t)sp__rd_i64(r);
    counts[i] = sp__rd_i64(r);
    times[i] = sp__rd_f64(r);
    for (int64_t e = 0; e < nev; e++) ev[i * nev + e] = sp__rd_f64(r);
  }
  if (rc == 0 && r->failed) rc = SP_EIO;
  hid_t g = -1;
  if (rc == 0) {
    char link[4 * SP_NAME_MAX];
    sp__link_name_encode(name, strlen(name), link, sizeof link);
    g = H5Gcreate2(regions, link, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) rc = SP_EHDF5;
  }
  if (rc == 0) {
    hsize_t d1[1] = {(hsize_t)t}, d2[2] = {(hsize_t)t, (hsize_t)nev}, de[1] = {(hsize_t)nev};
    rc |= sp__h5_attr_str(g, "name", name);
    rc |= sp__h5_attr_str(g, "tag", tag);
    rc |= sp_lw_dataset(g, "cpus", H5T_NATIVE_INT32, 1, d1, cpus);
    rc |= sp_lw_dataset(g, "counts", H5T_NATIVE_INT64, 1, d1, counts);
    rc |= sp_lw_dataset(g, "times", H5T_NATIVE_DOUBLE, 1, d1, times);
    rc |= sp_lw_dataset(g, "events", H5T_NATIVE_DOUBLE, 2, d2, ev);
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, H5T_VARIABLE);
    H5Tset_cset(st, H5T_CSET_UTF8);
    rc |= sp_lw_dataset(g, "event_names", st, 1, de, evn);
    H5Tclose(st);
    H5Gclose(g);
    if (rc) rc = SP_EHDF5;
  }
  for (int e = 0; e < 64; e++) free(evn[e]);
  free(name);
  free(tag);
  free(cpus);
  free(counts);
  free(times);
  free(ev);
  return rc;
}

/* Adds rank's results (blob of len bytes) as rank<rank>/likwid. */
static int sp_lw_write_rank(hid_t file, int rank, const char *blob, int64_t len) {
  if (len == 0) return 0; /* LIKWID was not measuring on that rank */
  sp_rd_t r = {.p = blob, .end = blob + len};
  char path[64];
  snprintf(path, sizeof path, "rank%d/likwid", rank);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  hid_t lw = H5Gcreate2(file, path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  H5Pclose(lcpl);
  if (lw < 0) return SP_EHDF5;
  char *group = sp__rd_bytes(&r, NULL);
  int rc = group ? sp__h5_attr_str(lw, "group", group) : SP_EIO;
  free(group);
  hid_t regions = H5Gcreate2(lw, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (regions < 0) rc = SP_EHDF5;
  while (rc == 0 && r.p < r.end) rc = sp_lw_write_region(&r, regions);
  if (regions >= 0) H5Gclose(regions);
  H5Gclose(lw);
  return rc;
}

/* This rank's results, packed; empty when LIKWID was not measuring. The
 * close also writes LIKWID_FILEPATH for likwid-perfctr, as without us. */
static int sp_lw_collect(sp_buf_t *b) {
  int live = __atomic_load_n(&sp_lw_live, __ATOMIC_RELAXED);
  if (live) sp_lw_snapshot_names();
  LIKWID_MARKER_CLOSE;
  /* LIKWID_FILEPATH is LIKWID's own variable; ours was read at setup. */
  const char *path = live ? getenv("LIKWID_FILEPATH") : sp__state.set.likwid_marker_file;
  return (path && *path) ? sp_lw_pack_file(path, b, live) : 0;
}

int sp__likwid_finalize(struct sp_par *par, const char *partial_path, const char *columnar_path) {
  sp_buf_t b = {0};
  int rc = sp_lw_collect(&b);
  if (rc != 0) {
    sp__log(SP_LOG_WARNING, SP_LOG_ONCE_LIKWID,
            "could not read LIKWID's results (%s); the profile has no counters", sp_strerror(rc));
    b.n = 0;
  }
  char *all = NULL;
  int64_t *offs = NULL;
  int64_t one[2] = {0, (int64_t)b.n};
  rc = 0;
  if (par->active) {
    rc = sp__par_allgather(par, b.p ? b.p : "", (int64_t)b.n, &all, &offs);
  } else {
    all = b.p;
    offs = one;
  }
  if (rc == 0 && par->rank == 0 && offs[par->size] > 0 && partial_path) {
    hid_t f = H5Fopen(partial_path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0) rc = SP_EHDF5;
    for (int r = 0; rc == 0 && r < par->size; r++)
      rc = sp_lw_write_rank(f, r, all + offs[r], offs[r + 1] - offs[r]);
    if (f >= 0 && H5Fclose(f) < 0 && rc == 0) rc = SP_EHDF5;
  }
  if (rc == 0 && par->rank == 0 && offs[par->size] > 0 && columnar_path)
    rc = sp__likwid_columnar_write(columnar_path, par->size, all, offs);
  if (par->active) {
    free(all);
    free(offs);
  }
  free(b.p);
  return rc;
}
