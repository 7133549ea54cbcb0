/* reader_direct.c - interval arrays read at their byte offset in the file.
 *
 * Opening a dataset costs HDF5 far more than reading its few kilobytes:
 * on a file of 12,800 region groups (64 ranks x 200 regions x 500 calls)
 * H5Dopen took about 40% of --summary. A dataset that is contiguous,
 * unfiltered, fully allocated and stored as the host's own integer type
 * is its bytes at H5Dget_offset: the reader notes that offset at open,
 * where it opens the dataset anyway for its checks, and later reads the
 * array with pread on its own descriptor of the same file. Anything else
 * (chunked, compressed, another byte order, an offset or size that does
 * not fit in the file) is read through H5Dread as before.
 *
 * SCOPE_PROFILER_READER_DIRECT=0 in the environment turns this off (every
 * array through H5Dread), to compare the two paths. */
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader_internal.h"

/* Elements per read when scanning an array without keeping it: 512 KiB (a bound on
 * memory that 1e6-call pairs already reach, so peak RSS stays flat in calls). */
#define SP_DIRECT_CHUNK ((int64_t)1 << 16)

/* Small reads (a pair of a few calls, a first start) through a cache of
 * file blocks: the per-rank layout keeps a rank's arrays side by side
 * (50 pairs of 4 calls in 3.2 KB), read 32 bytes at a time, one pread
 * each: 250,000 preads for --summary of 1,000 ranks x 50 regions. Each
 * block is read once with one pread; direct-mapped, SP_DC_SLOTS blocks
 * (16 MiB at most, allocated on first use). */
enum { SP_DC_BLOCK = 4096, SP_DC_SLOTS = 4096, SP_DC_SMALL = 1024 };

struct sp_dcache {
  int64_t at[SP_DC_SLOTS];   /* block number + 1 held by the slot, 0: none */
  uint32_t len[SP_DC_SLOTS]; /* bytes of it in the file */
  unsigned char *data;       /* SP_DC_SLOTS x SP_DC_BLOCK */
};

/* 1 when the environment turns direct reads off. */
static int sp_direct_disabled(void) {
  const char *v = getenv("SCOPE_PROFILER_READER_DIRECT");
  return v && (strcmp(v, "0") == 0 || strcmp(v, "off") == 0 || strcmp(v, "OFF") == 0);
}

/* The file HDF5 opened, when its driver keeps one POSIX descriptor. */
static int sp_h5_fd(hid_t file) {
  hid_t fapl = H5Fget_access_plist(file);
  if (fapl < 0) return -1;
  hid_t drv = H5Pget_driver(fapl);
  H5Pclose(fapl);
  void *h = NULL;
  if (drv != H5FD_SEC2 || H5Fget_vfd_handle(file, H5P_DEFAULT, &h) < 0 || !h) return -1;
  return *(int *)h;
}

void sp__direct_open(sp_reader_t *r, const char *path) {
  r->fd = -1;
  if (sp_direct_disabled() || r->file < 0) return;
  int saved = errno;
  /* O_NONBLOCK: the path was checked to be a regular file, but may have
   * been replaced since; the identity check below settles it. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  int h5 = sp_h5_fd(r->file);
  struct stat a, b;
  /* Offsets are only meaningful in the very file HDF5 reads, of the size
   * the guards checked. */
  if (fd < 0 || h5 < 0 || fstat(fd, &a) != 0 || fstat(h5, &b) != 0 || !S_ISREG(a.st_mode) ||
      a.st_dev != b.st_dev || a.st_ino != b.st_ino || (int64_t)a.st_size != r->file_size) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  r->fd = fd;
#ifdef _SC_PHYS_PAGES
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  r->phys_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
#endif
  errno = saved;
}

void *sp__direct_alloc(const sp_reader_t *r, int64_t n, size_t elem) {
  if (n < 0 || (uint64_t)n > SIZE_MAX / elem) return NULL;
  if (r->phys_bytes > 0 && (uint64_t)n * elem > r->phys_bytes) return NULL;
  return malloc((size_t)n * elem);
}

void sp__direct_close(sp_reader_t *r) {
  if (r->fd >= 0) close(r->fd);
  r->fd = -1;
  if (r->dcache) free(r->dcache->data);
  free(r->dcache);
  r->dcache = NULL;
}

int64_t sp__direct_addr(const sp_reader_t *r, hid_t d, hid_t t, hid_t native, int64_t n,
                        size_t elem) {
  if (r->fd < 0 || n <= 0 || (uint64_t)n > (uint64_t)INT64_MAX / elem || H5Tequal(t, native) <= 0)
    return 0;
  /* Defined for contiguous storage only: chunked (so any filtered),
   * compact, virtual and unallocated datasets give HADDR_UNDEF; external
   * storage was refused by sp__dataset_size_check. No property list is
   * copied for this: H5Dget_create_plist cost 8% of --summary. */
  haddr_t addr = H5Dget_offset(d);
  uint64_t bytes = (uint64_t)n * elem;
  /* All of the array stored (not a larger or smaller allocation), and
   * inside the file as it was when opened. */
  if (addr == HADDR_UNDEF || addr == 0 || (uint64_t)H5Dget_storage_size(d) != bytes ||
      r->file_size <= 0 || addr > (uint64_t)r->file_size || bytes > (uint64_t)r->file_size - addr)
    return 0;
  return (int64_t)addr;
}

static int sp_plain_read(const sp_reader_t *r, int64_t addr, void *buf, size_t bytes);

/* Bytes [addr, addr + bytes) of one block from the cache (read when
 * missing); -1 when the block does not hold them all (end of file). */
static int sp_dc_take(struct sp_dcache *c, int fd, int64_t addr, unsigned char *out, size_t bytes) {
  int64_t blk = addr / SP_DC_BLOCK;
  size_t s = (size_t)(((uint64_t)blk * 0x9E3779B97F4A7C15ull) >> 52) % SP_DC_SLOTS;
  unsigned char *d = c->data + s * SP_DC_BLOCK;
  if (c->at[s] != blk + 1) {
    ssize_t got;
    do got = pread(fd, d, SP_DC_BLOCK, (off_t)blk * SP_DC_BLOCK);
    while (got < 0 && errno == EINTR);
    c->at[s] = got > 0 ? blk + 1 : 0;
    c->len[s] = got > 0 ? (uint32_t)got : 0;
  }
  size_t off = (size_t)(addr - blk * SP_DC_BLOCK);
  if (c->at[s] == 0 || off + bytes > c->len[s]) return -1;
  memcpy(out, d + off, bytes);
  return 0;
}

int sp__direct_read(const sp_reader_t *r, int64_t addr, void *buf, size_t bytes) {
  struct sp_dcache *c = r->dcache;
  if (bytes > SP_DC_SMALL || addr < 0 || r->fd < 0) return sp_plain_read(r, addr, buf, bytes);
  if (!c) {
    c = calloc(1, sizeof *c);
    if (c) c->data = malloc((size_t)SP_DC_SLOTS * SP_DC_BLOCK);
    if (c && !c->data) {
      free(c);
      c = NULL;
    }
    ((sp_reader_t *)r)->dcache = c; /* the cache, not the reader's state, changes */
    if (!c) return sp_plain_read(r, addr, buf, bytes);
  }
  int saved = errno;
  unsigned char *out = buf;
  int64_t at = addr;
  size_t left = bytes;
  int rc = 0;
  while (rc == 0 && left > 0) { /* one or two blocks */
    size_t in = SP_DC_BLOCK - (size_t)(at % SP_DC_BLOCK);
    size_t take = left < in ? left : in;
    rc = sp_dc_take(c, r->fd, at, out, take);
    at += (int64_t)take;
    out += take;
    left -= take;
  }
  errno = saved;
  /* Past the blocks read (the file shrank): as before, one pread says so. */
  return rc == 0 ? 0 : sp_plain_read(r, addr, buf, bytes);
}

static int sp_plain_read(const sp_reader_t *r, int64_t addr, void *buf, size_t bytes) {
  int saved = errno; /* the caller's errno is not ours to change */
  int rc = 0;
  char *p = buf;
  off_t at = (off_t)addr;
  while (bytes > 0) {
    /* At most 1 GiB per call: Linux returns at most ~2 GiB anyway. */
    size_t want = bytes < ((size_t)1 << 30) ? bytes : ((size_t)1 << 30);
    ssize_t got = pread(r->fd, p, want, at);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) { /* error, or the file shrank since open */
      rc = SP_READER_EHDF5;
      break;
    }
    p += got;
    at += got;
    bytes -= (size_t)got;
  }
  errno = saved;
  return rc;
}

int sp__direct_minmax(const sp_reader_t *r, int64_t addr, int64_t n, int64_t *min, int64_t *max) {
  *min = INT64_MAX;
  *max = INT64_MIN;
  int64_t chunk = n < SP_DIRECT_CHUNK ? n : SP_DIRECT_CHUNK;
  if (chunk <= 0) return 0;
  int64_t *buf = malloc((size_t)chunk * sizeof *buf);
  if (!buf) return SP_READER_ENOMEM;
  int rc = 0;
  int64_t lo = INT64_MAX, hi = INT64_MIN; /* locals, not *min and *max: the loop vectorises */
  for (int64_t off = 0; rc == 0 && off < n; off += chunk) {
    int64_t cnt = n - off < chunk ? n - off : chunk;
    rc = sp__direct_read(r, addr + off * 8, buf, (size_t)cnt * sizeof *buf);
    if (rc) break;
    for (int64_t i = 0; i < cnt; i++) {
      lo = buf[i] < lo ? buf[i] : lo;
      hi = buf[i] > hi ? buf[i] : hi;
    }
  }
  *min = lo;
  *max = hi;
  free(buf);
  return rc;
}
