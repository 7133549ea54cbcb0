/* reader_guard.c - checks that keep a hostile or damaged file from hanging,
 * crashing or exhausting the reader: what FILE is, which links are followed,
 * and whether a dataset's declared size is backed by stored data.
 *
 * A profile is one regular file with its data inside. FIFOs and devices
 * would block or never end; external links, external raw storage and
 * virtual datasets would make HDF5 open other files (maybe such a FIFO);
 * a dataset may declare 2^62 elements that were never written (HDF5 then
 * returns fill values for the whole extent). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader_internal.h"

/* A filtered (compressed) dataset may expand this much: deflate's limit is
 * about 1032:1, a shuffle in front does not change that; other filters are
 * given room too. Unfiltered data must be stored in full. */
#define SP_MAX_EXPANSION 65536

static const char *sp_file_kind(mode_t m) {
  if (S_ISDIR(m)) return "is a directory";
  if (S_ISFIFO(m)) return "is a FIFO (named pipe), not a regular file";
  if (S_ISCHR(m)) return "is a character device, not a regular file";
  if (S_ISBLK(m)) return "is a block device, not a regular file";
  if (S_ISSOCK(m)) return "is a socket, not a regular file";
  return "is not a regular file";
}

int sp__file_check(sp_reader_t *r, const char *path) {
  /* O_NONBLOCK: opening a FIFO without a writer must not block. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    struct stat st;
    if (e == ENXIO || (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
      return sp__reader_fail(r, SP_READER_EIO, "%s: %s", path,
                             stat(path, &st) == 0 ? sp_file_kind(st.st_mode) : strerror(e));
    return sp__reader_fail(r, SP_READER_EIO, "%s: %s", path, strerror(e));
  }
  struct stat st;
  int rc = fstat(fd, &st);
  int e = errno;
  close(fd);
  if (rc != 0) return sp__reader_fail(r, SP_READER_EIO, "%s: %s", path, strerror(e));
  if (!S_ISREG(st.st_mode))
    return sp__reader_fail(r, SP_READER_EIO, "%s: %s", path, sp_file_kind(st.st_mode));
  r->file_size = (int64_t)st.st_size;
  return 0;
}

int sp__link_kind(hid_t g, const char *name) {
  if (H5Lexists(g, name, H5P_DEFAULT) <= 0) return SP_LINK_NONE;
  H5L_info_t li;
  if (H5Lget_info(g, name, &li, H5P_DEFAULT) < 0) return SP_LINK_NONE;
  return li.type == H5L_TYPE_HARD || li.type == H5L_TYPE_SOFT ? SP_LINK_LOCAL : SP_LINK_FOREIGN;
}

int64_t sp__dataset_len(hid_t g, const char *name) {
  if (sp__link_kind(g, name) != SP_LINK_LOCAL) return -1;
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t s = H5Dget_space(d);
  hsize_t dims[1] = {0};
  int ok =
      s >= 0 && H5Sget_simple_extent_ndims(s) == 1 && H5Sget_simple_extent_dims(s, dims, NULL) == 1;
  if (s >= 0) H5Sclose(s);
  H5Dclose(d);
  return ok ? (int64_t)dims[0] : -1;
}

int sp__read_int_rows(sp_reader_t *r, hid_t g, const char *what, const char *name, int64_t first,
                      int64_t n, hid_t mem, void *buf) {
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0) return sp__reader_fail(r, SP_READER_ELAYOUT, "%s: no %s", what, name);
  hid_t fs = H5Dget_space(d), t = H5Dget_type(d);
  hsize_t dims[1] = {0}, off[1] = {(hsize_t)first}, cnt[1] = {(hsize_t)n};
  int ok = fs >= 0 && t >= 0 && H5Sget_simple_extent_ndims(fs) == 1 &&
           H5Sget_simple_extent_dims(fs, dims, NULL) == 1 && (int64_t)dims[0] >= first + n &&
           H5Tget_class(t) == H5T_INTEGER;
  int rc = ok ? 0 : sp__reader_fail(r, SP_READER_ELAYOUT, "%s: %s is short", what, name);
  hid_t ms = rc == 0 && n > 0 ? H5Screate_simple(1, cnt, NULL) : -1;
  if (rc == 0 && n > 0 &&
      (ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL) < 0 ||
       H5Dread(d, mem, ms, fs, H5P_DEFAULT, buf) < 0))
    rc = sp__reader_fail(r, SP_READER_EHDF5, "%s: %s: read failed", what, name);
  if (ms >= 0) H5Sclose(ms);
  if (t >= 0) H5Tclose(t);
  if (fs >= 0) H5Sclose(fs);
  H5Dclose(d);
  return rc;
}

int64_t sp__ranks_lower(sp_reader_t *r, hid_t g, const char *what, int64_t total, int32_t id) {
  int64_t lo = 0, hi = total;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    int32_t v;
    if (sp__read_int_rows(r, g, what, "ranks", mid, 1, H5T_NATIVE_INT32, &v) != 0) return -1;
    if (v < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Link kinds of up to this many links are collected in one pass over the
 * group; a larger group is asked name by name (one lookup each). */
#define SP_KINDS_SCAN_MAX 16

typedef struct sp_kinds {
  const char *const *names;
  int n, seen;
  int *kinds;
  haddr_t *addrs; /* or NULL */
} sp_kinds_t;

/* Object header address of a hard link (reader_ohdr.c reads it). */
static haddr_t sp_link_addr(hid_t g, const H5L_info_t *li) {
  if (li->type != H5L_TYPE_HARD) return HADDR_UNDEF;
#if H5_VERSION_GE(1, 12, 0) && !(defined(H5L_info_t_vers) && H5L_info_t_vers == 1)
  haddr_t a = HADDR_UNDEF;
  return H5VLnative_token_to_addr(g, li->u.token, &a) >= 0 ? a : HADDR_UNDEF;
#else
  (void)g;
  return li->u.address;
#endif
}

static herr_t sp_kind_note(hid_t g, const char *name, const H5L_info_t *li, void *data) {
  sp_kinds_t *k = data;
  if (++k->seen > SP_KINDS_SCAN_MAX) return 1;
  for (int i = 0; i < k->n; i++)
    if (strcmp(name, k->names[i]) == 0) {
      k->kinds[i] =
          li->type == H5L_TYPE_HARD || li->type == H5L_TYPE_SOFT ? SP_LINK_LOCAL : SP_LINK_FOREIGN;
      if (k->addrs) k->addrs[i] = sp_link_addr(g, li);
    }
  return 0;
}

void sp__link_kinds_at(hid_t g, const char *const *names, int n, int *kinds, haddr_t *addrs) {
  for (int i = 0; i < n; i++) {
    kinds[i] = SP_LINK_NONE;
    if (addrs) addrs[i] = HADDR_UNDEF;
  }
  sp_kinds_t k = {names, n, 0, kinds, addrs};
  /* A region group holds two or three links: one pass over them costs
   * less than H5Lexists and H5Lget_info of each name (a B-tree search
   * each in the core's groups). */
  if (H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, sp_kind_note, &k) >= 0 &&
      k.seen <= SP_KINDS_SCAN_MAX)
    return;
  for (int i = 0; i < n; i++) {
    kinds[i] = sp__link_kind(g, names[i]);
    if (addrs) addrs[i] = HADDR_UNDEF;
  }
}

typedef struct sp_addrs {
  char *const *names;
  size_t n, i;
  haddr_t *addrs;
} sp_addrs_t;

static herr_t sp_addr_note(hid_t g, const char *name, const H5L_info_t *li, void *data) {
  sp_addrs_t *a = data;
  if (a->i >= a->n) return 1;
  if (strcmp(name, a->names[a->i]) == 0) a->addrs[a->i] = sp_link_addr(g, li);
  a->i++;
  return 0;
}

void sp__link_addrs(hid_t g, char *const *names, size_t n, haddr_t *addrs) {
  for (size_t i = 0; i < n; i++) addrs[i] = HADDR_UNDEF;
  sp_addrs_t a = {names, n, 0, addrs};
  hsize_t idx = 0;
  H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, sp_addr_note, &a);
}

hid_t sp__object_open_at(hid_t loc, haddr_t at) {
#if H5_VERSION_GE(1, 12, 0)
  H5O_token_t token;
  if (H5VLnative_addr_to_token(loc, at, &token) < 0) return -1;
  return H5Oopen_by_token(loc, token);
#else
  return H5Oopen_by_addr(loc, at);
#endif
}

void sp__link_kinds(hid_t g, const char *const *names, int n, int *kinds) {
  sp__link_kinds_at(g, names, n, kinds, NULL);
}

/* 1 when dataset d's object header holds neither an external file list
 * nor a filter pipeline message and its storage is contiguous at a known
 * address (so not virtual, chunked or compact): then its creation
 * property list would say contiguous, no external files, no filters, and
 * copying that list (H5Dget_create_plist and H5Pclose: 16% of opening a
 * file of 2,048 datasets) can be skipped. */
static int sp_dataset_plain(hid_t d) {
  /* Message type ids of the file format (H5Oprivate.h). */
  const uint64_t efl = (uint64_t)1 << 0x0007, pline = (uint64_t)1 << 0x000B;
  if (H5Dget_offset(d) == HADDR_UNDEF) return 0;
#if H5_VERSION_GE(1, 12, 0)
  H5O_native_info_t oi;
  if (H5Oget_native_info(d, &oi, H5O_NATIVE_INFO_HDR) < 0) return 0;
#else
  H5O_info_t oi;
  if (H5Oget_info2(d, &oi, H5O_INFO_HDR) < 0) return 0;
#endif
  return (oi.hdr.mesg.present & (efl | pline)) == 0;
}

/* Refuses storage outside the file: external raw files, virtual datasets. */
static int sp_storage_local(sp_reader_t *r, hid_t dcpl, const char *where, const char *name) {
  H5D_layout_t layout = H5Pget_layout(dcpl);
  if (layout == H5D_VIRTUAL)
    return sp__reader_fail(r, SP_READER_ELAYOUT,
                           "%s/%s is a virtual dataset (data in other files): not read", where,
                           name);
  if (layout < 0 || H5Pget_external_count(dcpl) != 0)
    return sp__reader_fail(r, SP_READER_ELAYOUT,
                           "%s/%s stores its data in an external file: not read", where, name);
  return 0;
}

int sp__dataset_local(hid_t d) {
  hid_t dcpl = H5Dget_create_plist(d);
  if (dcpl < 0) return 0;
  int local = H5Pget_layout(dcpl) != H5D_VIRTUAL && H5Pget_layout(dcpl) >= 0 &&
              H5Pget_external_count(dcpl) == 0;
  H5Pclose(dcpl);
  return local;
}

int sp__dataset_size_check(sp_reader_t *r, hid_t d, const char *where, const char *name, int64_t n,
                           size_t elem) {
  int filtered = 0;
  if (!sp_dataset_plain(d)) {
    /* Copying the list converts a fill value: of strings, from the heap. */
    int grc = sp__gheap_dataset_guard(r, d);
    if (grc) return grc;
    hid_t dcpl = H5Dget_create_plist(d);
    if (dcpl < 0)
      return sp__reader_fail(r, SP_READER_EHDF5, "%s/%s: cannot read its layout", where, name);
    int rc = sp_storage_local(r, dcpl, where, name);
    filtered = H5Pget_nfilters(dcpl) > 0;
    H5Pclose(dcpl);
    if (rc) return rc;
  }
  if (n == 0) return 0;
  /* Bytes the extent needs, saturated (n is at most 2^64 - 1 elements). */
  uint64_t need = (uint64_t)n > UINT64_MAX / elem ? UINT64_MAX : (uint64_t)n * elem;
  uint64_t stored = (uint64_t)H5Dget_storage_size(d);
  uint64_t file = r->file_size > 0 ? (uint64_t)r->file_size : 0;
  if (stored > file)
    return sp__reader_fail(r, SP_READER_ENOTHDF5,
                           "%s/%s claims %llu bytes of storage in a file of %llu bytes "
                           "(damaged file)",
                           where, name, (unsigned long long)stored, (unsigned long long)file);
  /* Contiguous data must lie inside the file: HDF5 reads the part past
   * its end as zeros (found with a patched layout address). */
  haddr_t at = H5Dget_offset(d);
  if (at != HADDR_UNDEF && (at > file || stored > file - at))
    return sp__reader_fail(r, SP_READER_ENOTHDF5,
                           "%s/%s: its %llu bytes at byte %llu run past the end of the file "
                           "(%llu bytes): truncated or damaged file",
                           where, name, (unsigned long long)stored, (unsigned long long)at,
                           (unsigned long long)file);
  uint64_t limit =
      filtered ? (stored > UINT64_MAX / SP_MAX_EXPANSION ? UINT64_MAX : stored * SP_MAX_EXPANSION)
               : stored;
  if (need > limit)
    return sp__reader_fail(r, SP_READER_ELAYOUT,
                           "%s/%s declares %lld elements but stores only %llu bytes%s: "
                           "unwritten or damaged dataset",
                           where, name, (long long)n, (unsigned long long)stored,
                           filtered ? " compressed" : "");
  return 0;
}

int sp__memory_check(int64_t n, size_t elem) {
  if (n < 0 || (uint64_t)n > SIZE_MAX / elem) return SP_READER_ENOMEM;
#ifdef _SC_PHYS_PAGES
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && (uint64_t)n * elem > (uint64_t)pages * (uint64_t)page)
    return SP_READER_ENOMEM;
#endif
  return 0;
}

static herr_t sp_lock_walk(unsigned n, const H5E_error2_t *e, void *data) {
  (void)n;
  if (e->min_num == H5E_CANTLOCKFILE) *(int *)data = 1;
  return 0;
}

int sp__h5_lock_failed(void) {
  int locked = 0;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, sp_lock_walk, &locked);
  return locked;
}
