/* first_pages.c - the memory of regions' first two buffers, kept for the
 * process: the first (SP_FIRST_CAP events, 256 B: sixteen to a page) and
 * the one it grows into (SP_SECOND_CAP events, 4 KiB: one page). Each size
 * is cut from one mapping of its own, reserved at first use.
 *
 * From malloc, each buffer was a chunk of its own, freed one by one at
 * finalize: at 1,000 regions that was 0.35 ms of a rank's 2.4 ms of CPU
 * in the columnar finalize (glibc's bookkeeping and the heap's pages given
 * back to the kernel), and where ranks share cores every rank does it
 * after the last agreement, one after the other (docs/performance.md,
 * "fewer exchanges, first pages kept"). Here a buffer given back waits on
 * its size's free list for the next session, and the pages stay mapped:
 * resident are those of the most buffers held at once, at most
 * SP_FIRST_PIECES first ones (4 MiB) and SP_SECOND_PIECES second ones
 * (16 MiB); past that, malloc as before. Each piece is aligned to its
 * size, so a second buffer is one page, where a malloc'd one (after a
 * 16-byte header) spans two.
 *
 * The first buffers are small so that a region of a few calls does not
 * hold a page of its own: with a page each, finalize read a thousand such
 * regions' events from a thousand pages, one TLB and cache miss each, a
 * third of the columnar finalize's CPU (docs/performance.md, "first
 * buffers of 16 events"). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#endif
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#include "sp_internal.h"

#define SP_FIRST_PIECES ((size_t)16384)
#define SP_SECOND_PIECES ((size_t)4096)

typedef struct sp_piece_pool {
  size_t bytes, pieces; /* of each piece; pieces in the mapping */
  char *base;           /* the mapping; NULL before first use */
  int failed;           /* it could not be mapped: malloc only */
  size_t cut;           /* pieces handed out from base so far */
  void *free_list;      /* pieces given back, linked through their first word */
} sp_piece_pool_t;

static struct {
  pthread_mutex_t mu;
  sp_piece_pool_t pool[2]; /* first buffers, second buffers */
} sp_first = {.mu = PTHREAD_MUTEX_INITIALIZER,
              .pool = {{.bytes = SP_FIRST_CAP * sizeof(sp_event_t), .pieces = SP_FIRST_PIECES},
                       {.bytes = SP_SECOND_CAP * sizeof(sp_event_t), .pieces = SP_SECOND_PIECES}}};

void *sp__first_take(int64_t cap) {
  if (cap != SP_FIRST_CAP && cap != SP_SECOND_CAP) return NULL;
  sp_piece_pool_t *pl = &sp_first.pool[cap == SP_SECOND_CAP];
  void *p = NULL;
  pthread_mutex_lock(&sp_first.mu);
  if (!pl->base && !pl->failed) {
    void *m = mmap(NULL, pl->pieces * pl->bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
      pl->failed = 1;
    else
      __atomic_store_n(&pl->base, (char *)m, __ATOMIC_RELEASE);
  }
  if (pl->free_list) {
    p = pl->free_list;
    pl->free_list = *(void **)p;
  } else if (pl->base && pl->cut < pl->pieces) {
    p = pl->base + pl->cut++ * pl->bytes;
  }
  pthread_mutex_unlock(&sp_first.mu);
  return p;
}

/* The pool whose mapping holds p, or NULL. */
static sp_piece_pool_t *sp_pool_of(const void *p) {
  for (int k = 0; k < 2; k++) {
    sp_piece_pool_t *pl = &sp_first.pool[k];
    /* Set once and never moved: read without the lock. */
    const char *b = __atomic_load_n(&pl->base, __ATOMIC_ACQUIRE);
    if (b && (const char *)p >= b && (const char *)p < b + pl->pieces * pl->bytes) return pl;
  }
  return NULL;
}

int sp__first_owns(const void *p) { return sp_pool_of(p) != NULL; }

void sp__first_give(void *p) {
  sp_piece_pool_t *pl = sp_pool_of(p);
  pthread_mutex_lock(&sp_first.mu);
  *(void **)p = pl->free_list;
  pl->free_list = p;
  pthread_mutex_unlock(&sp_first.mu);
}

void sp__first_fork_lock(void) { pthread_mutex_lock(&sp_first.mu); }

void sp__first_fork_unlock(void) { pthread_mutex_unlock(&sp_first.mu); }
