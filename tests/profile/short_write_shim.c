/* short_write_shim.c - LD_PRELOAD fault shim for the profile-mode file
 * tests: a file system that drops writes silently. pwrite() calls on a
 * temporary profile (".partial." in its name) whose name also contains
 * $SP_SHORT_WRITE, at offsets from 2048 on, report every byte written and
 * write none, so the file the library is about to publish ends short of
 * (or lacks metadata below) HDF5's stored end. Every other write goes to
 * the kernel unchanged. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static int sp_shim_drops(int fd, off_t off) {
  const char *want = getenv("SP_SHORT_WRITE");
  if (!want || !*want || off < 2048) return 0;
  char link[64], target[1024];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t k = readlink(link, target, sizeof target - 1);
  if (k <= 0) return 0;
  target[k] = '\0';
  return strstr(target, ".partial.") && strstr(target, want);
}

__attribute__((visibility("default"))) ssize_t pwrite(int fd, const void *buf, size_t n,
                                                      off_t off);
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
  if (sp_shim_drops(fd, off)) return (ssize_t)n;
  return (ssize_t)syscall(SYS_pwrite64, fd, buf, n, off);
}

__attribute__((visibility("default"))) ssize_t pwrite64(int fd, const void *buf, size_t n,
                                                        off_t off);
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) { return pwrite(fd, buf, n, off); }
