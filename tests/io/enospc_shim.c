/* enospc_shim.c - a full disk for one file (issue 49's ENOSPC case): write
 * to a descriptor whose file's name holds "full_disk" fails with ENOSPC,
 * every other call goes on to libc. Loaded after libscope_profiler in
 * LD_PRELOAD, so the profiler's write wrapper reaches this one. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Exported: the build hides symbols by default. */
__attribute__((visibility("default"))) ssize_t write(int fd, const void *b, size_t n) {
  static ssize_t (*real)(int, const void *, size_t);
  if (!real) real = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
  char link[64], target[512];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t k = fd >= 0 ? readlink(link, target, sizeof target - 1) : -1;
  if (k > 0) {
    target[k] = '\0';
    if (strstr(target, "full_disk")) {
      errno = ENOSPC;
      return -1;
    }
  }
  return real(fd, b, n);
}
