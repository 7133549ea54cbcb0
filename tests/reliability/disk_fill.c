/* disk_fill.c - the full disk of the disk tests (see disk_fill.h). */
#define _GNU_SOURCE
#include "disk_fill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sp_test_util.h"

char sp_disk_mnt[256];
const char *sp_disk_taken_suffix;
long sp_disk_taken_leave;
int sp_disk_taken_done;

void sp_disk_fill_leaving(long leave) {
  char path[512];
  snprintf(path, sizeof path, "%s/filler", sp_disk_mnt);
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  ASSERT(fd >= 0);
  static char block[4096];
  long size = 0;
  for (;;) {
    ssize_t w = write(fd, block, sizeof block);
    if (w <= 0) break;
    size += w;
  }
  ASSERT_EQ(errno, ENOSPC);
  ASSERT_EQ(ftruncate(fd, size > leave ? size - leave : 0), 0);
  close(fd);
}

void sp_disk_unfill(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/filler", sp_disk_mnt);
  ASSERT_EQ(unlink(path), 0);
}

/* True when fd is open on a file whose path contains part. */
static int fd_path_has(int fd, const char *part) {
  char link[64], target[1024];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n <= 0) return 0;
  target[n] = '\0';
  return strstr(target, part) != NULL;
}

/* The executable's ftruncate comes first in symbol lookup, so the library's
 * calls land here too. */
__attribute__((visibility("default"))) int ftruncate(int fd, off_t len);
int ftruncate(int fd, off_t len) {
  int rc = (int)syscall(SYS_ftruncate, fd, len);
  if (sp_disk_taken_suffix && !sp_disk_taken_done && len == 0 &&
      fd_path_has(fd, sp_disk_taken_suffix)) {
    int err = errno;
    sp_disk_taken_done = 1;
    sp_disk_fill_leaving(sp_disk_taken_leave);
    errno = err;
  }
  return rc;
}

int sp_disk_run(char *const argv[]) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    execv(argv[0], argv);
    _exit(127);
  }
  int st;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
