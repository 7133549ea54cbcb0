/* host_guard.c - the library's threads and descriptors stay out of the
 * host program's way: threads are created with every signal blocked, and
 * no descriptor of ours is ever 0, 1 or 2 (issue 36, items 11 and 12). */
#include "host_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

__thread int sp__io_own __attribute__((tls_model("initial-exec")));

/* A library thread's function and argument, until it runs. */
typedef struct sp_spawned {
  void *(*fn)(void *);
  void *arg;
} sp_spawned_t;

/* The library's threads do only the library's I/O: never recorded. */
static void *sp_spawned_main(void *p) {
  sp_spawned_t s = *(sp_spawned_t *)p;
  free(p);
  sp__io_own = 1;
  return s.fn(s.arg);
}

int sp__thread_spawn(pthread_t *tid, void *(*fn)(void *), void *arg) {
  sp_spawned_t *s = malloc(sizeof *s);
  if (!s) return ENOMEM;
  *s = (sp_spawned_t){fn, arg};
  sigset_t all, old;
  sigfillset(&all);
  int mask_rc = pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(tid, NULL, sp_spawned_main, s);
  if (mask_rc == 0) pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) free(s);
  return rc;
}

int sp__fd_above_std(int fd) {
  if (fd < 0 || fd > 2) return fd;
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  int err = errno;
  close(fd);
  errno = err;
  return high;
}

/* The descriptors 0-2 held on /dev/null, and which file that was. */
static struct {
  int held[3];
  dev_t dev;
  ino_t ino;
} sp_std;

void sp__std_fds_hold(void) {
  for (int fd = 0; fd < 3; fd++) {
    if (sp_std.held[fd] || fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    /* open() returns the lowest free descriptor: fd, as lower ones are open. */
    int got = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY);
    if (got < 0) return;
    if (got != fd) { /* another thread took fd meanwhile */
      close(got);
      continue;
    }
    struct stat sb;
    if (fstat(fd, &sb) == 0) {
      sp_std.dev = sb.st_dev;
      sp_std.ino = sb.st_ino;
    }
    sp_std.held[fd] = 1;
  }
}

void sp__std_fds_release(void) {
  for (int fd = 0; fd < 3; fd++) {
    if (!sp_std.held[fd]) continue;
    sp_std.held[fd] = 0;
    /* Still our /dev/null (close-on-exec, as dup2 onto it would clear)? */
    struct stat sb;
    int flags = fcntl(fd, F_GETFD);
    if (flags >= 0 && (flags & FD_CLOEXEC) && fstat(fd, &sb) == 0 && sb.st_dev == sp_std.dev &&
        sb.st_ino == sp_std.ino)
      close(fd);
  }
}
