/* layout_mem.c - the layout built in memory, copied to disk by our own writes.
 *
 * HDF5 1.10 does not survive a write that fails while it closes a file:
 * H5Fclose frees the file's structure, fails, and leaves its id behind;
 * HDF5's exit handler then closes it again and dies of SIGSEGV in the
 * host program (issue 36, item 16: ENOSPC or EIO on the temporary file
 * after 1, 3, 8 or 13 writes). So with the POSIX driver HDF5 creates the
 * layout in an anonymous memory file (memfd): right after H5Fcreate the
 * file's descriptor is pointed at it (HDF5 opens files by path, and
 * refuses a /proc/self/fd link), so a write does not fail for want of disk; the datasets are
 * never filled (fill time never), so the memory file stays sparse and only
 * the metadata takes memory (pages of tmpfs: not in RLIMIT_AS either).
 * Once HDF5 has closed it, its data extents are copied to the temporary
 * file with pwrite, and a failed write is an error of ours: SP_EIO, the
 * spill kept, and nothing of HDF5's left open. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create, SEEK_DATA */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout_mem.h"

#define SP_MEM_COPY_BLOCK ((size_t)1 << 20)

/* Writes all of buf at off, through short writes and EINTR. */
static int sp_pwrite_all(int fd, const char *buf, size_t n, off_t off) {
  while (n > 0) {
    ssize_t w = pwrite(fd, buf, n, off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    buf += w;
    n -= (size_t)w;
    off += w;
  }
  return 0;
}

/* Copies [from, to) of mem to the same offsets of out. */
static int sp_copy_range(int mem, int out, off_t from, off_t to, char *buf) {
  while (from < to) {
    size_t n = (size_t)(to - from) < SP_MEM_COPY_BLOCK ? (size_t)(to - from) : SP_MEM_COPY_BLOCK;
    ssize_t r = pread(mem, buf, n, from);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0 || sp_pwrite_all(out, buf, (size_t)r, from) != 0) return -1;
    from += r;
  }
  return 0;
}

int sp__layout_mem_take(int fd) {
  if (fd < 0) return -1;
  int mem = memfd_create("scope-profiler-layout", MFD_CLOEXEC);
  if (mem < 0) return -1;
  /* What HDF5 wrote so far (the superblock, if any) comes along: HDF5
   * may read it back. */
  struct stat sb;
  char *buf = malloc(SP_MEM_COPY_BLOCK);
  int ok = buf && fstat(fd, &sb) == 0 && sp_copy_range(fd, mem, 0, sb.st_size, buf) == 0 &&
           dup3(mem, fd, O_CLOEXEC) == fd;
  free(buf);
  if (!ok) {
    close(mem); /* HDF5 goes on writing to the disk, as before */
    return -1;
  }
  return mem;
}

int sp__layout_mem_copy(int mem, const char *path) {
  struct stat sb;
  if (fstat(mem, &sb) != 0) return SP_EIO;
  int out = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW); /* not O_WRONLY: the raw data's */
  if (out < 0) return SP_EPATH;
  char *buf = malloc(SP_MEM_COPY_BLOCK);
  int rc = buf ? 0 : SP_ENOMEM;
  /* Only the extents HDF5 wrote: the datasets' room is a hole (tmpfs
   * reports holes; where SEEK_DATA is refused, everything is copied). */
  off_t at = 0;
  while (rc == 0 && at < sb.st_size) {
    off_t data = lseek(mem, at, SEEK_DATA);
    if (data < 0 && errno == ENXIO) break; /* only a hole left */
    off_t hole = data < 0 ? sb.st_size : lseek(mem, data, SEEK_HOLE);
    if (data < 0) data = at;
    if (hole < 0) hole = sb.st_size;
    if (sp_copy_range(mem, out, data, hole, buf) != 0) rc = SP_EIO;
    at = hole;
  }
  int err = errno;
  /* As long as HDF5 left it (its end of allocation), at least. */
  struct stat ob;
  if (rc == 0 &&
      (fstat(out, &ob) != 0 || (ob.st_size < sb.st_size && ftruncate(out, sb.st_size) != 0))) {
    err = errno;
    rc = SP_EIO;
  }
  if (close(out) != 0 && rc == 0) {
    err = errno;
    rc = SP_EIO;
  }
  if (rc == SP_EIO)
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "could not write the profile's layout to '%s': %s", path,
            strerror(err));
  free(buf);
  return rc;
}
