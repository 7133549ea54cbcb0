/* event_arrays.c - memory for the arrays that hold recorded events.
 *
 * A region's buffer grows 4 KiB, 8 KiB, ... up to buffer_limit events
 * (1.6 MB at the default) and lives until finalize. From malloc, every
 * array from 128 KiB up is its own mapping, unmapped one by one at
 * finalize, each munmap with TLB shootdowns (what that cost:
 * docs/performance.md, "Figures behind design choices in the code").
 * So once a buffer outgrows its first page it moves into a slot of a
 * slab: a slot has room for buffer_limit events, is cut from a 32 MiB
 * mapping (one of its own past 16 MiB), and the buffer grows inside it
 * without a copy, faulting in only the pages it uses (ahead of it, by
 * array_stock.c's thread, when it can). Slots freed on the way (arrays the flush
 * writer traded back) wait on a free list, and all mappings are unmapped
 * together at finalize. Arrays that grow past the limit (a region open
 * across a full buffer, or no flush_to_disk) and small ones stay with
 * malloc/realloc; first buffers come from first_pages.c.
 *
 * The flush writer trades arrays between threads, so the slab belongs to
 * the process, under one mutex; it is used when an array is created,
 * freed or resized, never on the hot path. How an array grows with the
 * stock's help is event_grow.c's: the slab < the stock < the growth. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_ANONYMOUS */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sp_internal.h"

#define SP_SLAB_CHUNK ((size_t)32 << 20) /* one mapping of several slots */
#define SP_SLAB_MAX_CHUNKS 1024          /* then malloc */

/* Faults the pages of fresh memory in now, off the hot path. (memset of
 * zeros right after malloc does not: compilers merge the two into calloc,
 * which leaves fresh pages unmapped, and the recording thread then took a
 * page fault every 256 events.) */
void sp__event_pages_touch(void *p, size_t bytes) {
  volatile char *c = p;
  for (size_t i = 0; i < bytes; i += 4096) c[i] = 0;
}

typedef struct sp_slab_chunk {
  char *base;
  size_t bytes;
} sp_slab_chunk_t;

static struct {
  pthread_mutex_t mu;
  int64_t slot_cap;  /* events per slot (buffer_limit); 0: no slab */
  size_t slot_bytes; /* slot_cap events, rounded up to pages */
  sp_slab_chunk_t chunk[SP_SLAB_MAX_CHUNKS];
  int nchunks;
  char *cut, *cut_end; /* the rest of the newest shared chunk */
  void *free_list;     /* free slots, linked through their first word */
  int64_t in_use;
  int64_t made; /* slots cut this session (for the verbose line) */
} sp_slab = {.mu = PTHREAD_MUTEX_INITIALIZER};

void sp__event_arrays_configure(int64_t full_cap) {
  pthread_mutex_lock(&sp_slab.mu);
  /* A slab kept by an earlier session (an array was still held at its
   * finalize) keeps its slot size rather than mix two. */
  if (sp_slab.nchunks == 0) {
    int fits = full_cap > 0 && full_cap <= (int64_t)(SIZE_MAX / 4 / sizeof(sp_event_t)) &&
               (size_t)full_cap * sizeof(sp_event_t) >= SP_SLAB_MIN;
    sp_slab.slot_cap = fits ? full_cap : 0;
    sp_slab.slot_bytes = fits ? ((size_t)full_cap * sizeof(sp_event_t) + 4095) & ~(size_t)4095 : 0;
  }
  pthread_mutex_unlock(&sp_slab.mu);
}

static char *sp_slab_map_locked(size_t bytes) {
  if (sp_slab.nchunks == SP_SLAB_MAX_CHUNKS) return NULL;
  char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  sp_slab.chunk[sp_slab.nchunks++] = (sp_slab_chunk_t){p, bytes};
  return p;
}

/* A slot from the free list, the newest chunk or a new mapping, or NULL. */
void *sp__slab_take(void) {
  void *p = NULL;
  pthread_mutex_lock(&sp_slab.mu);
  const size_t bytes = sp_slab.slot_bytes;
  if (bytes == 0) {
    /* no slab this session */
  } else if (sp_slab.free_list) {
    p = sp_slab.free_list;
    sp_slab.free_list = *(void **)p;
  } else if (bytes > SP_SLAB_CHUNK / 2) {
    p = sp_slab_map_locked(bytes);
  } else {
    if ((size_t)(sp_slab.cut_end - sp_slab.cut) < bytes) {
      sp_slab.cut = sp_slab_map_locked(SP_SLAB_CHUNK);
      sp_slab.cut_end = sp_slab.cut ? sp_slab.cut + SP_SLAB_CHUNK : NULL;
    }
    if (sp_slab.cut) {
      p = sp_slab.cut;
      sp_slab.cut += bytes;
    }
  }
  if (p) {
    sp_slab.in_use++;
    sp_slab.made++;
  }
  pthread_mutex_unlock(&sp_slab.mu);
  return p;
}

int sp__slab_owns(const void *p) {
  int owns = 0;
  pthread_mutex_lock(&sp_slab.mu);
  for (int i = 0; i < sp_slab.nchunks && !owns; i++) {
    const char *b = sp_slab.chunk[i].base;
    owns = (const char *)p >= b && (const char *)p < b + sp_slab.chunk[i].bytes;
  }
  pthread_mutex_unlock(&sp_slab.mu);
  return owns;
}

int64_t sp__slab_slot_cap(void) {
  pthread_mutex_lock(&sp_slab.mu);
  int64_t cap = sp_slab.slot_cap;
  pthread_mutex_unlock(&sp_slab.mu);
  return cap;
}

sp_event_t *sp__event_array_new_cold(int64_t cap) {
  void *p = sp__first_take(cap); /* first_pages.c: a first or second buffer */
  if (!p && cap > 0 && cap == sp__slab_slot_cap()) p = sp__slab_take();
  if (!p) p = malloc((size_t)cap * sizeof(sp_event_t)); /* also when no slot could be mapped */
  return p;
}

sp_event_t *sp__event_array_new(int64_t cap) {
  sp_event_t *p = sp__event_array_new_cold(cap);
  /* Pages touched now, not in the hot path (a no-op on a reused slot). */
  if (p) sp__event_pages_touch(p, (size_t)cap * sizeof(sp_event_t));
  return p;
}

void sp__event_array_free(sp_event_t *ev) {
  if (!ev) return;
  if (sp__first_owns(ev)) {
    sp__first_give(ev);
    return;
  }
  if (!sp__slab_owns(ev)) {
    free(ev);
    return;
  }
  pthread_mutex_lock(&sp_slab.mu);
  *(void **)ev = sp_slab.free_list;
  sp_slab.free_list = ev;
  sp_slab.in_use--;
  pthread_mutex_unlock(&sp_slab.mu);
}

void sp__event_arrays_release(void) {
  pthread_mutex_lock(&sp_slab.mu);
  if (sp__state.set.verbose && sp_slab.nchunks > 0)
    sp__log(SP_LOG_INFO, SP_LOG_ALWAYS,
            "event arrays: %lld slot(s) of %zu KiB taken from %d mapping(s), %s",
            (long long)sp_slab.made, sp_slab.slot_bytes >> 10, sp_slab.nchunks,
            sp_slab.in_use == 0 ? "unmapped" : "kept: arrays still held");
  /* Only when every slot is back: an array still held must stay mapped. */
  if (sp_slab.in_use == 0) {
    for (int i = 0; i < sp_slab.nchunks; i++) munmap(sp_slab.chunk[i].base, sp_slab.chunk[i].bytes);
    sp_slab.nchunks = 0;
    sp_slab.cut = sp_slab.cut_end = NULL;
    sp_slab.free_list = NULL;
    sp_slab.made = 0;
  }
  pthread_mutex_unlock(&sp_slab.mu);
}

/* Held across fork() so the child's copy of the slab is consistent. */
void sp__event_arrays_fork_lock(void) {
  pthread_mutex_lock(&sp_slab.mu);
  sp__first_fork_lock();
}

void sp__event_arrays_fork_unlock(void) {
  sp__first_fork_unlock();
  pthread_mutex_unlock(&sp_slab.mu);
}
