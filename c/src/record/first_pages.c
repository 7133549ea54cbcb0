/* first_pages.c - the memory of regions' first buffers (SP_FIRST_CAP
 * events, 4 KiB), cut from one mapping reserved at first use and kept for
 * the process.
 *
 * From malloc, each first buffer was a chunk of its own, freed one by one
 * at finalize: at 1,000 regions that was 0.35 ms of a rank's 2.4 ms of
 * CPU in the columnar finalize (glibc's bookkeeping and the heap's pages
 * given back to the kernel), and where ranks share cores every rank does
 * it after the last agreement, one after the other (docs/performance.md,
 * "fewer exchanges, first pages kept"). Here a buffer given back waits on a
 * free list for the next session, and the pages stay mapped: resident are
 * those of the most first buffers held at once, at most SP_FIRST_PIECES
 * of them (16 MiB); past that, malloc as before. Each piece is aligned to
 * its size, so a buffer is one page, where a malloc'd one (after a 16-byte
 * header) spans two. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#endif
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#include "sp_internal.h"

#define SP_FIRST_BYTES ((size_t)SP_FIRST_CAP * sizeof(sp_event_t))
#define SP_FIRST_PIECES ((size_t)4096)

static struct {
  pthread_mutex_t mu;
  char *base;      /* the mapping, SP_FIRST_PIECES pieces; NULL before first use */
  int failed;      /* it could not be mapped: malloc only */
  size_t cut;      /* pieces handed out from base so far */
  void *free_list; /* pieces given back, linked through their first word */
} sp_first = {.mu = PTHREAD_MUTEX_INITIALIZER};

void *sp__first_take(void) {
  void *p = NULL;
  pthread_mutex_lock(&sp_first.mu);
  if (!sp_first.base && !sp_first.failed) {
    void *m = mmap(NULL, SP_FIRST_PIECES * SP_FIRST_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
      sp_first.failed = 1;
    else
      __atomic_store_n(&sp_first.base, (char *)m, __ATOMIC_RELEASE);
  }
  if (sp_first.free_list) {
    p = sp_first.free_list;
    sp_first.free_list = *(void **)p;
  } else if (sp_first.base && sp_first.cut < SP_FIRST_PIECES) {
    p = sp_first.base + sp_first.cut++ * SP_FIRST_BYTES;
  }
  pthread_mutex_unlock(&sp_first.mu);
  return p;
}

int sp__first_owns(const void *p) {
  /* Set once and never moved: read without the lock. */
  const char *b = __atomic_load_n(&sp_first.base, __ATOMIC_ACQUIRE);
  return b && (const char *)p >= b && (const char *)p < b + SP_FIRST_PIECES * SP_FIRST_BYTES;
}

void sp__first_give(void *p) {
  pthread_mutex_lock(&sp_first.mu);
  *(void **)p = sp_first.free_list;
  sp_first.free_list = p;
  pthread_mutex_unlock(&sp_first.mu);
}

void sp__first_fork_lock(void) { pthread_mutex_lock(&sp_first.mu); }

void sp__first_fork_unlock(void) { pthread_mutex_unlock(&sp_first.mu); }
