/* columnar_write.c - every rank's part of the columnar layout, written
 * together (columnar_write.h).
 *
 * Every rank's counts, names and extras are gathered on rank 0
 * (columnar_plan.c), which sums the counts into each rank's place in the
 * shared tables; the sums, the name table and each rank's place go back
 * in one broadcast (sp_col_send_table). Every dataset is created once,
 * two ways, chosen by SCOPE_PROFILER_METADATA as for the rank<N> layout:
 * - root (auto): rank 0 alone creates the file with serial HDF5 (a fixed
 *   number of objects: milliseconds at any rank count), the datasets
 *   contiguous and allocated, while the other ranks build their columns;
 *   the columns' offsets reach every rank in one more broadcast, and each
 *   rank writes its slice of every column with pwrite.
 * - collective: all ranks create the file together through parallel HDF5
 *   (collective metadata) and each rank's slice is one hyperslab of a
 *   collective H5Dwrite (MPI-IO collective buffering).
 * docs/design.md, "The columnar layout", has why root is the default (the
 * measurements are in docs/performance.md).
 *
 *   @scope_profiler_schema = 3, @storage_layout = "columnar"
 *   metadata/                          the attributes of the rank<N> layout's
 *   region_table/names                 fixed-length UTF-8 strings, sorted
 *   rank_region_index/region_ids       uint32[P]
 *                     ranks            uint32[P]
 *                     event_offsets    uint64[P]
 *                     event_counts     uint64[P]
 *                     num_calls        int64[P]   (ours: the rank<N> attribute)
 *   events/start_times, end_times      int64[E]   ns
 *   events/thread_ids                  int32[E]
 *   events/call_ids, parent_ids        int64[E]   unique within a rank; -1 none
 *   events/mpi_bytes, mpi_peers        int64[E], int32[E], -1 unknown (ours,
 *   events/mpi_tags, mpi_comms         int32[E], int32[E]; only when some rank
 *                                      profiled MPI)
 *   mpi_comms/...                      the communicator table (columnar_extras.c)
 *   rank_info/hostnames                fixed strings[ranks] (ours)
 *   rank_info/threads, events_lost     int32[ranks], int64[ranks] (ours)
 *   rank_info/clock_offset_ns, ..._error_ns, clock_offset_end_ns,
 *             clock_offset_end_error_ns, clock_offset_at_ns,
 *             clock_offset_end_at_ns int64[ranks], INT64_MIN unmeasured (ours)
 *   rank_info/trace_truncated_at       int64[ranks], 0: not truncated (ours)
 *   and the run metadata, source locations and samples (columnar_extras.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "columnar_extras.h"
#include "columnar_write.h"
#include "h5_attr.h"
#include "layout.h"

/* The extent a column is indexed by. */
enum { SP_BY_PAIR, SP_BY_EVENT, SP_BY_RANK };

/* One dataset of the file and this rank's slice of it. */
typedef struct sp_col_column {
  const char *group, *name;
  int by;          /* SP_BY_*: its length and this rank's place in it */
  hid_t type;      /* in memory and in the file (native: pwrite sends memory's bytes) */
  size_t size;     /* bytes per element */
  const void *buf; /* this rank's elements */
} sp_col_column_t;

enum { SP_COL_MAX = 26 };

/* This rank's values of the rank_info columns. */
typedef struct sp_col_rank {
  char host[64];
  int32_t threads;
  int64_t lost, clock[6];
  int64_t truncated; /* TRACE_MAX_MB's cut, CLOCK_MONOTONIC ns; 0: none */
} sp_col_rank_t;

/* The columns in file order; returns how many (the MPI ones only with any_mpi). */
static int sp_col_columns(const sp_col_local_t *c, const uint32_t *ranks, const uint64_t *offs,
                          const sp_col_rank_t *ri, hid_t host_type, int any_mpi,
                          sp_col_column_t *col) {
  const hid_t i64 = H5T_NATIVE_INT64, i32 = H5T_NATIVE_INT32;
  int n = 0;
  const char *ix = "rank_region_index", *ev = "events", *rk = "rank_info";
  col[n++] = (sp_col_column_t){ix, "region_ids", SP_BY_PAIR, H5T_NATIVE_UINT32, 4, c->gid};
  col[n++] = (sp_col_column_t){ix, "ranks", SP_BY_PAIR, H5T_NATIVE_UINT32, 4, ranks};
  col[n++] = (sp_col_column_t){ix, "event_offsets", SP_BY_PAIR, H5T_NATIVE_UINT64, 8, offs};
  col[n++] = (sp_col_column_t){ix, "event_counts", SP_BY_PAIR, H5T_NATIVE_UINT64, 8, c->count};
  col[n++] = (sp_col_column_t){ix, "num_calls", SP_BY_PAIR, i64, 8, c->ncalls};
  col[n++] = (sp_col_column_t){ev, "start_times", SP_BY_EVENT, i64, 8, c->start};
  col[n++] = (sp_col_column_t){ev, "end_times", SP_BY_EVENT, i64, 8, c->end};
  col[n++] = (sp_col_column_t){ev, "thread_ids", SP_BY_EVENT, i32, 4, c->tid};
  col[n++] = (sp_col_column_t){ev, "call_ids", SP_BY_EVENT, i64, 8, c->call_id};
  col[n++] = (sp_col_column_t){ev, "parent_ids", SP_BY_EVENT, i64, 8, c->parent_id};
  if (any_mpi) { /* -1 where not an MPI call region (columnar_plan.c) */
    col[n++] = (sp_col_column_t){ev, "mpi_bytes", SP_BY_EVENT, i64, 8, c->bytes};
    col[n++] = (sp_col_column_t){ev, "mpi_peers", SP_BY_EVENT, i32, 4, c->peer};
    col[n++] = (sp_col_column_t){ev, "mpi_tags", SP_BY_EVENT, i32, 4, c->tag};
    col[n++] = (sp_col_column_t){ev, "mpi_comms", SP_BY_EVENT, i32, 4, c->comm};
  }
  col[n++] = (sp_col_column_t){rk, "hostnames", SP_BY_RANK, host_type, 64, ri->host};
  col[n++] = (sp_col_column_t){rk, "threads", SP_BY_RANK, i32, 4, &ri->threads};
  col[n++] = (sp_col_column_t){rk, "events_lost", SP_BY_RANK, i64, 8, &ri->lost};
  static const char *const clock[6] = {"clock_offset_ns",     "clock_offset_error_ns",
                                       "clock_offset_end_ns", "clock_offset_end_error_ns",
                                       "clock_offset_at_ns",  "clock_offset_end_at_ns"};
  for (int k = 0; k < 6; k++)
    col[n++] = (sp_col_column_t){rk, clock[k], SP_BY_RANK, i64, 8, &ri->clock[k]};
  col[n++] = (sp_col_column_t){rk, "trace_truncated_at", SP_BY_RANK, i64, 8, &ri->truncated};
  return n;
}

/* A contiguous 1-D dataset of n elements, its storage allocated at once. */
static hid_t sp_col_dataset(hid_t loc, const char *name, hid_t type, int64_t n) {
  hsize_t dims[1] = {(hsize_t)n};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_layout(dcpl, H5D_CONTIGUOUS);
  H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
  hid_t d = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Sclose(space);
  return d;
}

/* Writes k elements of buf at element `at` of d; k may be 0 (a collective
 * transfer is still taken part in). */
static int sp_col_slab(hid_t d, hid_t mtype, int64_t at, int64_t k, const void *buf, hid_t dxpl) {
  hid_t fs = H5Dget_space(d);
  hsize_t cnt[1] = {(hsize_t)(k > 0 ? k : 1)}, off[1] = {(hsize_t)at};
  hid_t ms = H5Screate_simple(1, cnt, NULL);
  if (k > 0) {
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL);
  } else {
    H5Sselect_none(fs);
    H5Sselect_none(ms);
  }
  static const char nothing[64];
  int rc = H5Dwrite(d, mtype, ms, fs, dxpl, k > 0 ? buf : nothing) < 0 ? SP_EHDF5 : 0;
  H5Sclose(ms);
  H5Sclose(fs);
  return rc;
}

/* A fixed-length UTF-8 string type of size bytes. */
static hid_t sp_col_str(size_t size) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, size);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

/* The metadata group: the rank<N> layout's run-wide attributes. */
static int sp_col_metadata(hid_t file, const sp_col_local_t *c, int nranks) {
  hid_t g = H5Gcreate2(file, "metadata", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return SP_EHDF5;
  char stamp[64];
  time_t wt = (time_t)c->wall_time0;
  struct tm tmv;
  gmtime_r(&wt, &tmv);
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  int32_t size = nranks, threads = c->max_threads > 0 ? c->max_threads : 1, tt = 1;
  int64_t lost = c->events_lost, schema = 3, omp = sp__omp_num_threads(threads);
  int64_t cores = (int64_t)nranks * omp;
  int rc = sp__h5_attr(file, "scope_profiler_schema", H5T_NATIVE_INT64, &schema);
  rc |= sp__h5_attr_str(file, "storage_layout", "columnar");
  rc |= sp__h5_attr(g, "mpi_size", H5T_NATIVE_INT32, &size);
  rc |= sp__h5_attr_str(g, "hostname", c->host0);
  rc |= sp__h5_attr_str(g, "timestamp", stamp);
  rc |= sp__h5_attr_str(g, "library_version", SP_VERSION_STRING);
  rc |= sp__h5_attr_str(g, "clock", "CLOCK_MONOTONIC");
  rc |= sp__h5_attr_str(g, "clock_source", c->clock_tsc0 ? "tsc" : "monotonic");
  rc |= sp__h5_attr(g, "omp_threads", H5T_NATIVE_INT32, &threads);
  /* The reference tool's keys (its speedup plots' x-axis), as layout.c. */
  rc |= sp__h5_attr(g, "omp_num_threads", H5T_NATIVE_INT64, &omp);
  rc |= sp__h5_attr(g, "total_cores", H5T_NATIVE_INT64, &cores);
  rc |= sp__h5_attr(g, "time_trace", H5T_NATIVE_INT32, &tt);
  rc |= sp__h5_attr(g, "events_lost", H5T_NATIVE_INT64, &lost);
  H5Gclose(g);
  return rc ? SP_EHDF5 : 0;
}

/* region_table/names, written by rank 0 (every rank holds the same table). */
static int sp_col_names(hid_t file, const sp_col_local_t *c, int rank, hid_t dxpl) {
  hid_t g = H5Gcreate2(file, "region_table", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return SP_EHDF5;
  char *buf = rank == 0 ? calloc((size_t)(c->nnames ? c->nnames : 1), c->name_max) : NULL;
  int rc = rank == 0 && !buf ? SP_ENOMEM : 0;
  for (int64_t i = 0; buf && i < c->nnames; i++)
    memcpy(buf + (size_t)i * c->name_max, c->names[i], strlen(c->names[i]));
  hid_t t = sp_col_str(c->name_max);
  hid_t d = sp_col_dataset(g, "names", t, c->nnames);
  /* A rank without memory writes nothing, but still takes part. */
  int wrc = d < 0 ? SP_EHDF5 : sp_col_slab(d, t, 0, rank == 0 && buf ? c->nnames : 0, buf, dxpl);
  if (d >= 0 && H5Dclose(d) < 0 && wrc == 0) wrc = SP_EHDF5;
  if (rc == 0) rc = wrc;
  H5Tclose(t);
  free(buf);
  H5Gclose(g);
  return rc;
}

/* What the writing needs: the totals, this rank's places, its columns. */
typedef struct sp_col_job {
  sp_par_t *par;
  const sp_col_local_t *c;
  int64_t total[4], before[4]; /* pairs, events, ranks with MPI regions, the caller's flag */
  sp_col_column_t col[SP_COL_MAX];
  int ncol;
} sp_col_job_t;

static int64_t sp_col_len(const sp_col_job_t *j, int by) {
  return by == SP_BY_PAIR ? j->total[0] : by == SP_BY_EVENT ? j->total[1] : j->par->size;
}
static int64_t sp_col_at(const sp_col_job_t *j, int by) {
  return by == SP_BY_PAIR ? j->before[0] : by == SP_BY_EVENT ? j->before[1] : j->par->rank;
}
static int64_t sp_col_mine(const sp_col_job_t *j, int by) {
  return by == SP_BY_PAIR ? j->c->npairs : by == SP_BY_EVENT ? j->c->nevents : 1;
}

/* Creates the groups and the datasets of the columns, and the metadata and
 * names (written by rank 0); ds[i] the column's dataset. */
static int sp_col_create(hid_t file, const sp_col_job_t *j, hid_t dxpl, hid_t *ds) {
  int rc = sp_col_metadata(file, j->c, j->par->size);
  if (rc == 0) rc = sp_col_names(file, j->c, j->par->rank, dxpl);
  hid_t g = -1;
  for (int i = 0; rc == 0 && i < j->ncol; i++) {
    if (i == 0 || strcmp(j->col[i].group, j->col[i - 1].group) != 0) {
      if (g >= 0) H5Gclose(g);
      g = H5Gcreate2(file, j->col[i].group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      if (g < 0) rc = SP_EHDF5;
    }
    if (rc == 0)
      ds[i] = sp_col_dataset(g, j->col[i].name, j->col[i].type, sp_col_len(j, j->col[i].by));
    if (rc == 0 && ds[i] < 0) rc = SP_EHDF5;
  }
  if (g >= 0) H5Gclose(g);
  return rc;
}

static void sp_col_close_all(hid_t *ds, int n, int *rc) {
  for (int i = 0; i < n; i++)
    if (ds[i] >= 0 && H5Dclose(ds[i]) < 0 && *rc == 0) *rc = SP_EHDF5;
}

/* collective: all ranks create the file and write through parallel HDF5. */
static int sp_col_write_par(sp_col_job_t *j, const char *path) {
  hid_t fapl = sp__par_fapl(j->par);
  H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18);
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  /* The creation is collective: every rank got the file or none did. */
  int rc = sp__par_agree(j->par, file < 0 ? SP_EPATH : 0);
  hid_t ds[SP_COL_MAX];
  for (int i = 0; i < SP_COL_MAX; i++) ds[i] = -1;
  hid_t dxpl = sp__par_dxpl(j->par);
  if (rc == 0) rc = sp_col_create(file, j, dxpl, ds);
  for (int i = 0; rc == 0 && i < j->ncol; i++) {
    const sp_col_column_t *c = &j->col[i];
    rc = sp_col_slab(ds[i], c->type, sp_col_at(j, c->by), sp_col_mine(j, c->by), c->buf, dxpl);
  }
  sp_col_close_all(ds, j->ncol, &rc);
  H5Pclose(dxpl);
  if (file >= 0 && H5Fclose(file) < 0 && rc == 0) rc = SP_EHDF5;
  return rc;
}

/* root, rank 0's part: the file with its datasets allocated, and in off[i]
 * where column i's data begins (-1: no storage, a column of length 0). */
static int sp_col_root_create(sp_col_job_t *j, const char *path, int64_t *off) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18);
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  if (file < 0) return SP_EPATH;
  hid_t ds[SP_COL_MAX];
  for (int i = 0; i < SP_COL_MAX; i++) ds[i] = -1;
  int rc = sp_col_create(file, j, H5P_DEFAULT, ds);
  for (int i = 0; rc == 0 && i < j->ncol; i++) {
    haddr_t a = sp_col_len(j, j->col[i].by) > 0 ? H5Dget_offset(ds[i]) : HADDR_UNDEF;
    off[i] = a == HADDR_UNDEF ? -1 : (int64_t)a;
    if (off[i] < 0 && sp_col_len(j, j->col[i].by) > 0) rc = SP_EHDF5;
  }
  sp_col_close_all(ds, j->ncol, &rc);
  if (H5Fclose(file) < 0 && rc == 0) rc = SP_EHDF5;
  return rc;
}

static int sp_col_pwrite(int fd, const char *p, int64_t len, int64_t at) {
  while (len > 0) {
    ssize_t w = pwrite(fd, p, (size_t)len, (off_t)at);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return SP_EIO;
    p += w;
    at += w;
    len -= w;
  }
  return 0;
}

/* The columnar step's second exchange: rank 0 sends every rank its
 * status, the sums over the ranks and the name table, and each rank its
 * place in the columns; the others fail with rank 0's status. The others
 * wait for it (asleep where ranks share cores) before they build their
 * events: building them while rank 0 still took every rank's blob and
 * made the table took the CPU from it, 27 ms for the gather at 64 ranks
 * on 2 cores (docs/performance.md, "fewer exchanges, first pages kept").
 * Rank 0 does not wait for them to take it (sp__par_bcast_each): it goes
 * on to create the file. rc: this rank's status so far. */
enum { SP_COL_HEAD = 1 + SP_COL_COUNTS }; /* status, sums */
static int sp_col_send_table(sp_col_job_t *j, const sp_local_t *l, int rc) {
  sp_col_local_t *c = (sp_col_local_t *)j->c;
  int64_t head[SP_COL_HEAD] = {0};
  char *buf = NULL;
  int64_t len = -1;
  if (j->par->rank == 0) {
    memcpy(j->total, c->total, sizeof c->total);
    if (rc == 0 && (j->total[0] > UINT32_MAX || c->nnames > UINT32_MAX))
      rc = SP_EINVAL; /* uint32 region ids */
    head[0] = rc;
    memcpy(head + 1, j->total, sizeof j->total);
    const int64_t table = rc == 0 ? c->table_len : 0;
    buf = malloc(sizeof head + (size_t)table);
    if (buf) {
      memcpy(buf, head, sizeof head);
      if (table > 0) memcpy(buf + sizeof head, c->gathered, (size_t)table);
      len = (int64_t)sizeof head + table;
    }
    if (rc == 0 && !buf) rc = SP_ENOMEM;
  }
  int64_t mine[SP_COL_PLACE];
  int brc =
      sp__par_bcast_each(j->par, &buf, &len, rc == 0 ? c->before_all : NULL, SP_COL_PLACE, mine);
  if (rc == 0) rc = brc;
  if (rc == 0 && len < (int64_t)sizeof head) rc = SP_EMPI;
  if (rc == 0 && j->par->rank != 0) {
    memcpy(head, buf, sizeof head);
    memcpy(j->total, head + 1, sizeof j->total);
    rc = (int)head[0];
  }
  if (rc == 0 && j->par->rank != 0) {
    /* The table follows the head in the message: moved to its start, the
     * received buffer is kept by c (sp__col_table_take), not copied. */
    const int64_t n = len - (int64_t)sizeof head;
    memmove(buf, buf + sizeof head, (size_t)n);
    rc = sp__col_table_take(l, buf, n, c);
    buf = NULL;
    if (rc == 0 && (j->total[0] > UINT32_MAX || c->nnames > UINT32_MAX)) rc = SP_EINVAL;
  }
  free(buf);
  for (int i = 0; i < SP_COL_PLACE; i++) j->before[i] = mine[i];
  return rc;
}

/* root: rank 0 creates the file and sends every rank its status and the
 * columns' offsets (off[]) in one broadcast, before it builds its own
 * events; the others take it once they have built theirs, which they do
 * while rank 0 works in HDF5 (at 16 ranks on 2 cores that left one core
 * idle for 1-3 ms when every rank waited for the file). Rank 0 creates it
 * whatever the other ranks' status: a rank that failed writes nothing
 * into it, and the step's agreement (finalize.c) decides whether it is
 * kept. rc: this rank's status so far; off[i]: where column i begins (-1:
 * no storage). */
static int sp_col_root_send(sp_col_job_t *j, const char *path, int rc, int64_t *off) {
  int64_t msg[SP_COL_MAX + 1] = {0}; /* rank 0's status, then off[] */
  for (int i = 0; i <= SP_COL_MAX; i++) msg[i] = i == 0 ? 0 : -1;
  if (j->par->rank == 0) msg[0] = rc != 0 ? rc : sp_col_root_create(j, path, msg + 1);
  char *buf = j->par->rank == 0 ? (char *)msg : NULL; /* the others': malloc'd */
  int64_t len = (int64_t)sizeof msg;
  int brc = sp__par_bcast(j->par, &buf, &len);
  if (brc == 0 && len != (int64_t)sizeof msg) brc = SP_EMPI;
  if (brc == 0 && j->par->rank != 0) memcpy(msg, buf, sizeof msg);
  if (j->par->rank != 0) free(buf);
  memcpy(off, msg + 1, SP_COL_MAX * sizeof *off);
  if (rc == 0) rc = brc;
  if (rc == 0) rc = (int)msg[0];
  return rc;
}

/* root: this rank pwrites its slice of each column (off[i]: where column i
 * begins, -1: no storage). */
static int sp_col_pwrite_all(const sp_col_job_t *j, const char *path, const int64_t *off) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  int rc = fd < 0 ? SP_EIO : 0;
  for (int i = 0; rc == 0 && i < j->ncol; i++) {
    const sp_col_column_t *c = &j->col[i];
    const int64_t k = sp_col_mine(j, c->by), at = off[i];
    if (k > 0 && at >= 0)
      rc = sp_col_pwrite(fd, c->buf, k * (int64_t)c->size,
                         at + sp_col_at(j, c->by) * (int64_t)c->size);
  }
  if (fd >= 0 && close(fd) != 0 && rc == 0) rc = SP_EIO;
  return rc;
}

/* A rank's rank_info values from its plan. */
static void sp_col_rank_info(const sp_rank_plan_t *pl, sp_col_rank_t *ri) {
  memset(ri, 0, sizeof *ri);
  ri->threads = pl->nthreads;
  ri->lost = pl->events_lost;
  ri->truncated = pl->trace_truncated_at;
  memcpy(ri->host, pl->host, sizeof ri->host);
  ri->host[sizeof ri->host - 1] = '\0';
  for (int w = 0; w < 2; w++) {
    ri->clock[2 * w] = pl->clock[w].valid ? pl->clock[w].offset_ns : INT64_MIN;
    ri->clock[2 * w + 1] = pl->clock[w].valid ? pl->clock[w].error_ns : INT64_MIN;
    ri->clock[4 + w] = pl->clock[w].valid ? pl->clock[w].at_ns : INT64_MIN;
  }
}

/* Recovery: rank r's part (index rows from pair `pairs`, events from
 * `events` on) pwritten into the columns that begin at off[]. */
static int sp_col_serial_rank(int fd, const sp_local_t *l, const sp_col_local_t *t, int r,
                              const int64_t *before, int any_mpi, hid_t host_type,
                              const int64_t *off) {
  sp_col_local_t c;
  int rc = sp__col_local_build_serial(l, t, any_mpi, &c);
  const int64_t k = c.npairs;
  uint32_t *ranks = malloc((size_t)(k ? k : 1) * sizeof *ranks);
  uint64_t *offs = malloc((size_t)(k ? k : 1) * sizeof *offs);
  if (rc == 0 && (!ranks || !offs)) rc = SP_ENOMEM;
  for (int64_t p = 0; rc == 0 && p < k; p++) {
    ranks[p] = (uint32_t)r;
    offs[p] = (uint64_t)before[1] + c.first[p];
  }
  sp_col_rank_t ri;
  sp_col_rank_info(&l->plan, &ri);
  sp_col_column_t col[SP_COL_MAX];
  const int ncol = sp_col_columns(&c, ranks, offs, &ri, host_type, any_mpi, col);
  for (int i = 0; rc == 0 && i < ncol; i++) {
    const int by = col[i].by;
    const int64_t n = by == SP_BY_PAIR ? c.npairs : by == SP_BY_EVENT ? c.nevents : 1;
    const int64_t at = by == SP_BY_PAIR ? before[0] : by == SP_BY_EVENT ? before[1] : r;
    if (n > 0 && off[i] >= 0)
      rc = sp_col_pwrite(fd, col[i].buf, n * (int64_t)col[i].size,
                         off[i] + at * (int64_t)col[i].size);
  }
  free(ranks);
  free(offs);
  sp__col_local_free(&c);
  return rc;
}

int sp__columnar_write_serial(const char *path, const sp_local_t *ls, int nranks) {
  sp_col_local_t t;
  int rc = sp__col_table_serial(ls, nranks, &t);
  sp_par_t whole = {.active = 0, .rank = 0, .size = nranks}; /* rank 0 of nranks */
  sp_col_job_t j = {.par = &whole, .c = &t};
  for (int r = 0; r < nranks; r++)
    for (int32_t p = 0; p < ls[r].plan.nregions; p++) {
      j.total[0]++;
      j.total[1] += ls[r].plan.regions[p].nevents;
      j.total[2] |= ls[r].plan.regions[p].mpi_extra;
    }
  sp_col_rank_t ri = {0};
  hid_t host_type = sp_col_str(sizeof ri.host);
  j.ncol = sp_col_columns(&t, NULL, NULL, &ri, host_type, (int)j.total[2], j.col);
  if (rc == 0 && (j.total[0] > UINT32_MAX || t.nnames > UINT32_MAX)) rc = SP_EINVAL;
  int64_t off[SP_COL_MAX + 1] = {0}, before[3] = {0, 0, 0};
  if (rc == 0) rc = sp_col_root_create(&j, path, off);
  int fd = rc == 0 ? open(path, O_WRONLY | O_CLOEXEC) : -1;
  if (rc == 0 && fd < 0) rc = SP_EIO;
  for (int r = 0; rc == 0 && r < nranks; r++) {
    rc = sp_col_serial_rank(fd, &ls[r], &t, r, before, (int)j.total[2], host_type, off);
    before[0] += ls[r].plan.nregions;
    for (int32_t p = 0; p < ls[r].plan.nregions; p++) before[1] += ls[r].plan.regions[p].nevents;
  }
  if (fd >= 0 && close(fd) != 0 && rc == 0) rc = SP_EIO;
  if (rc == 0) rc = sp__columnar_extras_serial(path, ls, nranks, &t);
  H5Tclose(host_type);
  sp__col_local_free(&t);
  return rc;
}

/* This rank's index rows (its rank; its events' first index in the file)
 * into *ranks and *offs, and the columns over them and j->c. */
static int sp_col_rows(sp_col_job_t *j, const sp_col_rank_t *ri, hid_t host_type, uint32_t **ranks,
                       uint64_t **offs) {
  const sp_col_local_t *c = j->c;
  const int64_t k = c->npairs;
  *ranks = malloc((size_t)(k ? k : 1) * sizeof **ranks);
  *offs = malloc((size_t)(k ? k : 1) * sizeof **offs);
  if (!*ranks || !*offs) return SP_ENOMEM;
  for (int64_t p = 0; p < k; p++) {
    (*ranks)[p] = (uint32_t)j->par->rank;
    (*offs)[p] = (uint64_t)j->before[1] + c->first[p];
  }
  j->ncol = sp_col_columns(c, *ranks, *offs, ri, host_type, j->total[2] > 0, j->col);
  return 0;
}

int sp__columnar_write(sp_par_t *par, const char *path, const sp_local_t *l, int64_t flag,
                       int64_t *flag_total) {
  /* The extras travel with the names in the first exchange: rank 0 holds
   * them from the start and writes them without exchanges of their own,
   * which where ranks share cores cost every rank 3-5 wake-ups
   * (docs/performance.md, "fewer exchanges, first pages kept"). */
  char *xblob = NULL;
  int64_t xlen = 0;
  int rc = sp__columnar_extras_pack(l, &xblob, &xlen);
  sp_col_local_t c;
  int brc = sp__col_local_begin(par, l, flag, xblob, rc == 0 ? xlen : -1, &c);
  free(xblob);
  if (rc == 0) rc = brc;
  sp_col_job_t j = {.par = par, .c = &c};
  sp_col_rank_t ri;
  sp_col_rank_info(&l->plan, &ri);
  hid_t host_type = sp_col_str(sizeof ri.host);
  const int collective = par->active && sp__state.set.layout_collective;
  rc = sp_col_send_table(&j, l, rc);
  j.ncol = sp_col_columns(&c, NULL, NULL, &ri, host_type, j.total[2] > 0, j.col);
  /* root: rank 0 creates the file first and the others build their
   * events meanwhile, then take the broadcast (sp_col_root_send). */
  int64_t off[SP_COL_MAX];
  for (int i = 0; i < SP_COL_MAX; i++) off[i] = -1;
  if (!collective && par->rank == 0) rc = sp_col_root_send(&j, path, rc, off);
  if (rc == 0) rc = sp__col_local_finish(l, &c);
  if (!collective && par->rank != 0) rc = sp_col_root_send(&j, path, rc, off);
  *flag_total = j.total[3];
  if (rc == 0 && j.total[2] > 0) sp__col_local_mpi_fill(l, &c);
  uint32_t *ranks = NULL;
  uint64_t *offs = NULL;
  if (rc == 0) rc = sp_col_rows(&j, &ri, host_type, &ranks, &offs);
  if (collective) {
    /* A failure so far is agreed on before any collective HDF5 call. */
    rc = sp__par_agree(par, rc);
    if (rc == 0) rc = sp_col_write_par(&j, path);
  } else if (rc == 0) {
    rc = sp_col_pwrite_all(&j, path, off);
  }
  /* Rank 0 writes the extras once its own slices are in (the others'
   * may still be on their way: HDF5 touches only its own objects); the
   * step's agreement (finalize.c) decides whether the file is kept. */
  if (rc == 0 && par->rank == 0) rc = sp__columnar_extras_write(path, par->size, c.xall, c.xat, &c);
  /* Rank 0's sends of the table (sp_col_send_table), awaited last: by now
   * every rank has taken it. */
  const int lrc = sp__par_late_finish(par);
  if (rc == 0) rc = lrc;
  H5Tclose(host_type);
  free(ranks);
  free(offs);
  sp__col_local_free(&c);
  return rc;
}

int sp__columnar_chosen(const sp_par_t *par, int32_t nregions) {
  const int layout = sp__state.cfg.layout, big = par->size >= SP_COLUMNAR_RANKS;
  if (!sp__state.cfg.time_trace) return 0; /* count-only: num_calls attributes only */
  if (layout == SP_LAYOUT_RANKS && big && par->rank == 0)
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "SCOPE_PROFILER_LAYOUT=ranks at %d ranks: finalize creates one group and two "
            "datasets per (rank, region), about 100 us each, so about %.0f s with %d regions "
            "per rank; SCOPE_PROFILER_LAYOUT=columnar writes a file of a fixed number of objects",
            par->size, 100e-6 * par->size * (nregions > 0 ? nregions : 1), (int)nregions);
  return layout == SP_LAYOUT_COLUMNAR || layout == SP_LAYOUT_BOTH ||
         (layout == SP_LAYOUT_AUTO && big);
}
