/* write_fail_shim.c - LD_PRELOAD shim: writes into one file fail with
 * ENOSPC (or EIO) after a number of them succeeded.
 *
 * Interposes write, pwrite, pwrite64, writev and pwritev. A call counts
 * when its descriptor is open on a path containing SP_FAIL_PATH_PART
 * (default ".partial.": finalize's temporary file, out_temp.c); the first
 * SP_FAIL_AFTER (default 0) such calls go through, every later one fails
 * with errno SP_FAIL_ERRNO (default ENOSPC) without writing, as on a disk
 * that filled up and stays full. Used by test_layout_fail (issue 36,
 * item 16): a write error inside HDF5 while the layout is created. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long sp_counted;

/* True when fd's path contains the part asked for. */
static int sp_fail_target(int fd) {
  const char *part = getenv("SP_FAIL_PATH_PART");
  if (!part || !*part) part = ".partial.";
  char link[64], target[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n <= 0) return 0;
  target[n] = '\0';
  return strstr(target, part) != NULL;
}

/* 1 when this call must fail (errno set). */
static int sp_fail_now(int fd) {
  if (!sp_fail_target(fd)) return 0;
  const char *after = getenv("SP_FAIL_AFTER");
  long limit = after ? atol(after) : 0;
  if (__atomic_fetch_add(&sp_counted, 1, __ATOMIC_RELAXED) < limit) return 0;
  const char *e = getenv("SP_FAIL_ERRNO");
  errno = e ? atoi(e) : ENOSPC;
  return 1;
}

#define SP_REAL(name, args)   \
  static ssize_t(*real) args; \
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, name)

__attribute__((visibility("default"))) ssize_t write(int fd, const void *buf, size_t n) {
  SP_REAL("write", (int, const void *, size_t));
  if (sp_fail_now(fd)) return -1;
  return real(fd, buf, n);
}

__attribute__((visibility("default"))) ssize_t pwrite(int fd, const void *buf, size_t n, off_t o) {
  SP_REAL("pwrite", (int, const void *, size_t, off_t));
  if (sp_fail_now(fd)) return -1;
  return real(fd, buf, n, o);
}

__attribute__((visibility("default"))) ssize_t pwrite64(int fd, const void *buf, size_t n,
                                                        off_t o) {
  SP_REAL("pwrite64", (int, const void *, size_t, off_t));
  if (sp_fail_now(fd)) return -1;
  return real(fd, buf, n, o);
}

__attribute__((visibility("default"))) ssize_t writev(int fd, const struct iovec *v, int n) {
  SP_REAL("writev", (int, const struct iovec *, int));
  if (sp_fail_now(fd)) return -1;
  return real(fd, v, n);
}

__attribute__((visibility("default"))) ssize_t pwritev(int fd, const struct iovec *v, int n,
                                                       off_t o) {
  SP_REAL("pwritev", (int, const struct iovec *, int, off_t));
  if (sp_fail_now(fd)) return -1;
  return real(fd, v, n, o);
}
