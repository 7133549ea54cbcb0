/* kill_shim.c - LD_PRELOAD shim: SIGKILL right after the spill file's
 * SP_KILL_AFTER-th events record is written.
 *
 * Interposes writev (spill.c writes each record with one writev). A call
 * counts when its descriptor is open on a path containing ".spill/" and
 * its first piece is a whole record head of type SP_SPILL_EVENTS; once the
 * SP_KILL_AFTER-th such record has gone out whole, the shim says so on
 * stderr and the process is killed before the thread that wrote it (the
 * writer thread, or a recording thread with SCOPE_PROFILER_ASYNC_FLUSH=0)
 * does anything else. That is the moment a SIGKILL from outside hits
 * only by chance: events of some calls on disk, whatever the library
 * meant to write after them not (killed_merge.py, docs/values.md).
 * With SP_KILL_RANK set, only the MPI rank of that number (Open MPI's
 * OMPI_COMM_WORLD_RANK) is killed (check_mpi_bytes_spill.py). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "spill_format.h"

static long sp_events_written;

static int sp_is_spill(int fd) {
  char link[64], target[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n <= 0) return 0;
  target[n] = '\0';
  return strstr(target, ".spill/") != NULL;
}

__attribute__((visibility("default"))) ssize_t writev(int fd, const struct iovec *v, int n) {
  static ssize_t (*real)(int, const struct iovec *, int);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "writev");
  ssize_t w = real(fd, v, n);
  size_t total = 0;
  for (int i = 0; i < n; i++) total += v[i].iov_len;
  sp_spill_rec_head_t head;
  if (w < 0 || (size_t)w != total || n < 1 || v[0].iov_len != sizeof head || !sp_is_spill(fd))
    return w;
  memcpy(&head, v[0].iov_base, sizeof head);
  if (head.magic != SP_SPILL_MAGIC || head.type != SP_SPILL_EVENTS) return w;
  const char *after = getenv("SP_KILL_AFTER");
  const char *rank = getenv("SP_KILL_RANK"), *mine = getenv("OMPI_COMM_WORLD_RANK");
  if (rank && (!mine || strcmp(rank, mine) != 0)) return w;
  const long k = __atomic_add_fetch(&sp_events_written, 1, __ATOMIC_RELAXED);
  if (after && k == atol(after)) {
    char msg[96];
    int len = snprintf(msg, sizeof msg, "kill_shim: SIGKILL after events record %ld\n", k);
    if (write(2, msg, (size_t)len) < 0) { /* killed anyway */
    }
    kill(getpid(), SIGKILL);
    pause(); /* never returns: the signal ends the process */
  }
  return w;
}
