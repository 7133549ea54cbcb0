/* layout.c - the documented layout in HDF5, created identically by every rank.
 *
 * With MPI every call here is collective metadata work (the file access
 * list asks for collective metadata reads and writes), so every rank
 * creates every rank's groups and datasets in the same order. Datasets are
 * contiguous and allocated at creation, never filled: their raw data is
 * written afterwards straight to the offsets returned here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_end.h"
#include "h5_attr.h"
#include "layout.h"
#include "layout_mem.h"
#include "par.h"
#include "layout_meta.h"

#define SP_LAYOUT_BLOCK (64 << 10)

static int sp_attr_i64(hid_t obj, const char *name, int64_t v) {
  return sp__h5_attr(obj, name, H5T_NATIVE_INT64, &v);
}

static int sp_attr_i32(hid_t obj, const char *name, int32_t v) {
  return sp__h5_attr(obj, name, H5T_NATIVE_INT32, &v);
}

static hid_t sp_dataset(hid_t group, const char *name, hid_t type, int64_t n, hid_t dcpl,
                        int64_t *offset) {
  hsize_t dims[1] = {(hsize_t)n};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t d = H5Dcreate2(group, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Sclose(space);
  if (d < 0) return -1;
  if (offset) {
    haddr_t a = n > 0 ? H5Dget_offset(d) : HADDR_UNDEF;
    *offset = a == HADDR_UNDEF ? -1 : (int64_t)a;
  }
  return d;
}

/* First value of OMP_NUM_THREADS (outermost level) when it is a positive
 * number, else recorded (at least 1). */
int64_t sp__omp_num_threads(int32_t recorded) {
  const char *env = getenv("OMP_NUM_THREADS");
  char *end;
  long v = env ? strtol(env, &end, 10) : 0;
  if (env && end != env && (*end == '\0' || *end == ',') && v > 0) return v;
  return recorded > 0 ? recorded : 1;
}

static int sp_metadata_group(hid_t file, const sp_rank_plan_t *plans, int nplans) {
  hid_t g = H5Gcreate2(file, "metadata", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return SP_EHDF5;
  int32_t threads = 0;
  int64_t lost = 0;
  for (int i = 0; i < nplans; i++) {
    if (plans[i].nthreads > threads) threads = plans[i].nthreads;
    lost += plans[i].events_lost;
  }
  char stamp[64];
  time_t wt = (time_t)plans[0].wall_time;
  struct tm tmv;
  gmtime_r(&wt, &tmv);
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  int rc = sp_attr_i32(g, "mpi_size", nplans);
  rc |= sp__h5_attr_str(g, "hostname", plans[0].host);
  rc |= sp__h5_attr_str(g, "timestamp", stamp);
  rc |= sp__h5_attr_str(g, "library_version", SP_VERSION_STRING);
  rc |= sp__h5_attr_str(g, "clock", "CLOCK_MONOTONIC");
  rc |= sp__h5_attr_str(g, "clock_source", plans[0].clock_tsc ? "tsc" : "monotonic");
  if (plans[0].recovered) rc |= sp_attr_i32(g, "recovered_from_spill", 1);
  rc |= sp_attr_i32(g, "omp_threads", threads);
  /* The reference tool's keys (speedup plots use them as an x-axis):
   * OMP_NUM_THREADS when set, else the threads that recorded. */
  int64_t omp = sp__omp_num_threads(threads);
  rc |= sp_attr_i64(g, "omp_num_threads", omp);
  rc |= sp_attr_i64(g, "total_cores", (int64_t)nplans * omp);
  rc |= sp_attr_i32(g, "time_trace", plans[0].time_trace);
  rc |= sp_attr_i64(g, "events_lost", lost);
  rc |= sp__layout_user_meta(g, plans, nplans);
  H5Gclose(g);
  return rc ? SP_EHDF5 : 0;
}

/* An MPI call region's bytes (int64), peer, tag and comm (int32)
 * datasets; o[0..3] their offsets (mpi_extra.h). An I/O call region
 * (profile_io: "io:*", "MPI_File_*") names its peer values file_ids
 * (docs/io.md). */
static int sp_mpi_extra_create(hid_t g, const char *name, int64_t n, hid_t dcpl, int64_t *o) {
  const int io = strncmp(name, "io:", 3) == 0 || strncmp(name, "MPI_File_", 9) == 0;
  const char *const names[4] = {"bytes", io ? "file_ids" : "peer", "tag", "comm"};
  for (int i = 0; i < 4; i++) {
    hid_t d = sp_dataset(g, names[i], i == 0 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32, n, dcpl, &o[i]);
    if (d < 0) return SP_EHDF5;
    H5Dclose(d);
  }
  return 0;
}

/* A one-dimensional int32 attribute of n values (n >= 1). */
static int sp_attr_i32s(hid_t obj, const char *name, const int32_t *v, int64_t n) {
  hsize_t dims[1] = {(hsize_t)n};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t a = H5Acreate2(obj, name, H5T_NATIVE_INT32, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t w = a >= 0 ? H5Awrite(a, H5T_NATIVE_INT32, v) : -1;
  if (a >= 0) H5Aclose(a);
  H5Sclose(space);
  return (a >= 0 && w >= 0) ? 0 : SP_EHDF5;
}

/* rank<N>/mpi: the communicators the MPI calls' comm ids name, as
 * attributes comm_sizes (by id) and comm_members (the world ranks of each
 * id's members in its rank order, one id after the other). Attributes, not
 * raw datasets: every rank writes the same metadata, so no raw write of
 * its own is needed. Nothing when no call named one. */
static int sp_comms_create(hid_t rg, const sp_rank_plan_t *p) {
  if (p->ncomms <= 0) return 0;
  hid_t g = H5Gcreate2(rg, "mpi", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return SP_EHDF5;
  int rc = sp_attr_i32s(g, "comm_sizes", p->comm_sizes, p->ncomms);
  if (rc == 0 && p->ncomm_members > 0)
    rc = sp_attr_i32s(g, "comm_members", p->comm_members, p->ncomm_members);
  H5Gclose(g);
  return rc;
}

/* One region group with its attributes and datasets. */
static int sp_region_create(hid_t regions, const sp_plan_region_t *r, int time_trace, hid_t gcpl,
                            hid_t dcpl, sp_region_offsets_t *off, char *link, size_t link_cap) {
  sp__link_name_encode(r->name, r->len, link, link_cap);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_char_encoding(lcpl, H5T_CSET_UTF8);
  hid_t g = H5Gcreate2(regions, link, lcpl, gcpl, H5P_DEFAULT);
  H5Pclose(lcpl);
  if (g < 0) return SP_EHDF5;
  int rc = sp__h5_attr_str(g, "name", r->name);
  rc |= sp_attr_i64(g, "num_calls", r->ncalls);
  rc |= sp__layout_region_source(g, r);
  int64_t o[7] = {-1, -1, -1, -1, -1, -1, -1};
  if (time_trace) {
    hid_t d = sp_dataset(g, "start_times", H5T_NATIVE_INT64, r->nevents, dcpl, &o[0]);
    if (d < 0)
      rc = SP_EHDF5;
    else
      H5Dclose(d);
    d = sp_dataset(g, "end_times", H5T_NATIVE_INT64, r->nevents, dcpl, &o[1]);
    if (d < 0)
      rc = SP_EHDF5;
    else
      H5Dclose(d);
    if (r->thread_ids) {
      d = sp_dataset(g, "thread_ids", H5T_NATIVE_INT32, r->nevents, dcpl, &o[2]);
      if (d < 0)
        rc = SP_EHDF5;
      else
        H5Dclose(d);
    }
    if (r->mpi_extra) rc |= sp_mpi_extra_create(g, r->name, r->nevents, dcpl, &o[3]);
  }
  if (off) {
    off->start_times = o[0];
    off->end_times = o[1];
    off->thread_ids = o[2];
    off->bytes = o[3];
    off->peer = o[4];
    off->tag = o[5];
    off->comm = o[6];
  }
  H5Gclose(g);
  return rc ? SP_EHDF5 : 0;
}

/* Bound of the file's size: the raw data plus 4 KiB per region group plus
 * 1 MiB (the superblock and partly used allocation blocks), plus the run
 * metadata and source locations (layout_meta.c). */
static int64_t sp_layout_bytes(const sp_rank_plan_t *plans, int nplans) {
  int64_t bytes = 16 * SP_LAYOUT_BLOCK;
  for (int r = 0; r < nplans; r++) {
    bytes += 4096 + sp__layout_meta_bytes(&plans[r]);
    if (plans[r].ncomms > 0) /* rank<N>/mpi, its attributes and their heap */
      bytes += 8192 + 8 * ((int64_t)plans[r].ncomms + plans[r].ncomm_members);
    for (int32_t i = 0; i < plans[r].nregions; i++) {
      const sp_plan_region_t *g = &plans[r].regions[i];
      bytes += 4096 + g->nevents * ((g->thread_ids ? 20 : 16) + (g->mpi_extra ? 20 : 0));
    }
  }
  return bytes;
}

/* Takes the disk space of the whole file (raw data included) for fd, so
 * no later write into it runs into a full disk, a quota or RLIMIT_FSIZE.
 * A file larger than RLIMIT_FSIZE is refused before any write: writing past
 * it would raise SIGXFSZ, which ends the host program. */
static int sp_layout_reserve_fd(int fd, int64_t bytes) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      (uint64_t)bytes > (uint64_t)rl.rlim_cur) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "the profile needs up to %.1f MB, more than the file size limit (ulimit -f) of "
            "%.1f MB",
            (double)bytes / 1e6, (double)rl.rlim_cur / 1e6);
    return SP_EIO;
  }
  int err = posix_fallocate(fd, 0, (off_t)bytes);
  if (err != 0 && err != EINVAL && err != EOPNOTSUPP) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "no room for the profile (%.1f MB needed): %s",
            (double)bytes / 1e6, strerror(err));
    return SP_EIO;
  }
  return 0;
}

/* The file's own descriptor where HDF5 writes through POSIX calls, else -1. */
static int sp_layout_fd(hid_t file, hid_t fapl) {
  void *handle = NULL;
  if (H5Pget_driver(fapl) != H5FD_SEC2 || H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 ||
      !handle)
    return -1;
  return *(int *)handle;
}

/* Takes the room through the file's own descriptor, or a second one on the
 * same file (MPI-IO). */
static int sp_layout_reserve_in(hid_t file, hid_t fapl, const char *path, int64_t bytes) {
  int fd = file >= 0 ? sp_layout_fd(file, fapl) : -1, own = fd < 0;
  if (own) fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return SP_EPATH;
  int rc = sp_layout_reserve_fd(fd, bytes);
  if (own) close(fd);
  return rc;
}

/* HDF5 1.10 does not survive a write that fails while it flushes a file:
 * every later flush fails ("slist already enabled"), so does the close,
 * and the half-closed file crashes HDF5's own cleanup at exit or at
 * MPI_Finalize. That is why the room is taken before HDF5 writes anything.
 * A file given up before any write failed (no room, a failed call) is not
 * closed onto the disk either: its descriptor is pointed at an anonymous
 * memory file, where the close writes what it still holds and succeeds;
 * the caller removes the file on disk. Only the POSIX driver allows this;
 * with MPI-IO the close is left to HDF5. (With the POSIX driver HDF5 now
 * writes the layout into memory from the start, layout_mem.c, so no
 * write of its own can fail for want of disk.) */
static void sp_layout_abandon(hid_t file, hid_t fapl) {
  int fd = sp_layout_fd(file, fapl);
  if (fd < 0) return;
  int mem = memfd_create("scope-profiler-abandoned", MFD_CLOEXEC);
  if (mem < 0) return;
  dup3(mem, fd, O_CLOEXEC);
  close(mem);
}

/* rank<N> attributes of the clock measurements that exist (docs/design.md
 * "Clock alignment"): clock_offset_ns, clock_offset_at_ns, clock_offset_error_ns
 * after setup, the same with _end_ at finalize. */
static int sp_clock_attrs(hid_t rg, const sp_rank_plan_t *p) {
  static const char *const names[2][3] = {
      {"clock_offset_ns", "clock_offset_at_ns", "clock_offset_error_ns"},
      {"clock_offset_end_ns", "clock_offset_end_at_ns", "clock_offset_end_error_ns"}};
  int rc = 0;
  for (int w = 0; w < 2; w++) {
    if (!p->clock[w].valid) continue;
    rc |= sp_attr_i64(rg, names[w][0], p->clock[w].offset_ns);
    rc |= sp_attr_i64(rg, names[w][1], p->clock[w].at_ns);
    rc |= sp_attr_i64(rg, names[w][2], p->clock[w].error_ns);
  }
  return rc;
}

/* Creates the groups and datasets of every plan in the open file. */
static int sp_layout_fill(hid_t file, const sp_rank_plan_t *plans, int nplans,
                          sp_region_offsets_t *const *offs) {
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_layout(dcpl, H5D_CONTIGUOUS);
  H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
  /* A region group's object header sized up front for its datasets' links
   * and its two attributes: without the hint, adding them allocates a
   * continuation block per group: a faster layout and a smaller file
   * (docs/performance.md, "Figures behind design choices in the code"). */
  hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_est_link_info(gcpl, 6, 16);
  size_t link_cap = 3 * SP_NAME_MAX + 1;
  char *link = malloc(link_cap);
  int rc = link ? 0 : SP_ENOMEM;
  if (rc == 0) rc = sp_attr_i32(file, "scope_profiler_schema", SP_SCHEMA_VERSION);
  if (rc == 0) rc = sp_metadata_group(file, plans, nplans);
  for (int r = 0; rc == 0 && r < nplans; r++) {
    char gname[32];
    snprintf(gname, sizeof gname, "rank%d", r);
    hid_t rg = H5Gcreate2(file, gname, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (rg < 0) {
      rc = SP_EHDF5;
      break;
    }
    rc = sp__h5_attr_str(rg, "hostname", plans[r].host);
    if (rc == 0) rc = sp_clock_attrs(rg, &plans[r]);
    if (rc == 0 && plans[r].trace_truncated_at > 0)
      rc = sp_attr_i64(rg, "trace_truncated_at", plans[r].trace_truncated_at);
    if (rc == 0) rc = sp__layout_rank_meta(rg, plans, nplans, r);
    if (rc == 0) rc = sp_comms_create(rg, &plans[r]);
    hid_t regions = H5Gcreate2(rg, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (regions < 0) rc = SP_EHDF5;
    for (int32_t i = 0; rc == 0 && i < plans[r].nregions; i++)
      rc = sp_region_create(regions, &plans[r].regions[i], plans[r].time_trace, gcpl, dcpl,
                            offs[r] ? &offs[r][i] : NULL, link, link_cap);
    if (regions >= 0) H5Gclose(regions);
    H5Gclose(rg);
  }
  free(link);
  H5Pclose(dcpl);
  H5Pclose(gcpl);
  return rc;
}

int sp__layout_create_par(hid_t fapl, const char *path, const sp_rank_plan_t *plans, int nplans,
                          sp_region_offsets_t *const *offs, sp_par_t *par,
                          int (*agree)(sp_par_t *, int)) {
  /* Groups in the 1.8 format keep their links in the object header
   * (compact storage) instead of a B-tree and a local heap each: the file's
   * metadata is about half the size (any HDF5 >= 1.8 reads it). */
  H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18);
  /* Metadata and small datasets are allocated from 64 KiB blocks instead
   * of 2 KiB ones, so they seldom sit between the datasets: the datasets of
   * consecutive regions are adjacent in the file and finalize writes a
   * round of them with one call instead of one per dataset (200 regions on
   * 64 ranks: ~400 writes per rank into one file serialised on its lock).
   * 1 MiB blocks were no faster and left up to 1 MiB unused in a file. */
  H5Pset_meta_block_size(fapl, SP_LAYOUT_BLOCK);
  H5Pset_small_data_block_size(fapl, SP_LAYOUT_BLOCK);
  /* The room is taken right after HDF5 wrote the superblock (checked by
   * sp__layout_reserve before), before it writes anything else. */
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (file < 0) return SP_EPATH;
  /* With the POSIX driver, HDF5 writes the rest into memory (layout_mem.c). */
  int mem = !par ? sp__layout_mem_take(sp_layout_fd(file, fapl)) : -1;
  const int reserver = !par || par->rank == 0;
  int rc = reserver ? sp_layout_reserve_in(mem >= 0 ? -1 : file, fapl, path,
                                           sp_layout_bytes(plans, nplans))
                    : 0;
  if (par) rc = agree(par, rc); /* collective: all ranks go on, or none */
  if (rc == 0) rc = sp_layout_fill(file, plans, nplans, offs);
  if (rc != 0) sp_layout_abandon(file, fapl);
  if (H5Fclose(file) < 0 && rc == 0) rc = SP_EHDF5;
  if (mem >= 0) {
    if (rc == 0) rc = sp__layout_mem_copy(mem, path);
    close(mem);
  }
  /* The reservation's unused end goes back: the file ends at its EOA, the
   * one stored at the close (file_end.h: HDF5 still allocates and writes
   * during H5Fclose; an EOA asked for before it cut those writes off). */
  uint64_t eoa = 0;
  struct stat sb;
  if (rc == 0 && reserver && sp__file_end_stored(path, &eoa) != 0) rc = SP_EHDF5;
  if (rc == 0 && reserver && stat(path, &sb) == 0 && (uint64_t)sb.st_size > eoa &&
      truncate(path, (off_t)eoa) != 0)
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "could not give back the unused end of '%s': %s", path,
            strerror(errno));
  return rc;
}

int sp__layout_create(hid_t fapl, const char *path, const sp_rank_plan_t *plans, int nplans,
                      sp_region_offsets_t *const *offs) {
  return sp__layout_create_par(fapl, path, plans, nplans, offs, NULL, NULL);
}

int sp__layout_reserve(const char *path, const sp_rank_plan_t *plans, int nplans) {
  /* A check before HDF5 creates the file (its superblock is written at
   * once); the room is then taken for real by sp__layout_create. The file
   * is this run's own temporary (out_temp.c made it, exclusively): it is
   * emptied again, never replaced or removed here. */
  int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return SP_EPATH;
  int rc = sp_layout_reserve_fd(fd, sp_layout_bytes(plans, nplans));
  if (ftruncate(fd, 0) != 0 && rc == 0) rc = SP_EIO;
  close(fd);
  return rc;
}
