/* pread_full.c - a whole pread through short reads, for the readers of
 * spill files (spill_read.c and the writers of samples and values). */
#include <unistd.h>

#include "sp_internal.h"

int sp__pread_full(int fd, void *buf, size_t len, int64_t off) {
  size_t done = 0;
  while (done < len) {
    ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(off + (int64_t)done));
    if (r <= 0) return -1;
    done += (size_t)r;
  }
  return 0;
}
