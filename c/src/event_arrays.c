/* event_arrays.c - memory for the arrays that hold recorded events.
 *
 * With flush_to_disk every busy region's buffer ends at buffer_limit
 * events (1.6 MB at the default) and lives until finalize: 200 regions
 * hold 320 MB per thread. From malloc each is its own mapping, faulted in
 * 4 KiB pages (~7 us per fault on these VMs: 2.4 s for 320 MB) and
 * unmapped one by one at finalize (45-200 ms for 320 MB, ranks sharing
 * cores). Full-size arrays therefore come from a slab: chunks of fixed
 * slots, 2 MiB aligned and offered to transparent huge pages (320 MB
 * faulted in 1.1-1.4 s, unmapped in ~1 ms), reused through a free list and
 * unmapped together at finalize. Smaller arrays (growth steps, small
 * limits) and arrays grown past the limit stay with malloc/realloc.
 *
 * The flush writer trades arrays between threads, so the slab is shared
 * by the process; it is used only when an array is created, freed or
 * resized (never on the hot path), under one mutex.
 * SCOPE_PROFILER_HUGE_PAGES=0 keeps the slab but does not ask for huge
 * pages. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sp_internal.h"

#define SP_SLAB_MIN_SLOT ((size_t)256 << 10) /* smaller full arrays: malloc */
#define SP_SLAB_CHUNK ((size_t)32 << 20)     /* target chunk size */
#define SP_HUGE_PAGE ((size_t)2 << 20)
#define SP_SLAB_MAX_CHUNKS 1024

typedef struct sp_slab_chunk {
  char *base;
  size_t bytes;
} sp_slab_chunk_t;

static struct {
  pthread_mutex_t mu;
  int64_t slot_cap;   /* events per slot; 0: slab off */
  size_t slot_bytes;
  int slots_per_chunk;
  int huge_pages;
  sp_slab_chunk_t chunk[SP_SLAB_MAX_CHUNKS];
  int nchunks;
  int carved;         /* slots handed out of the newest chunk so far */
  int64_t slots_made; /* slots carved this session (for the verbose line) */
  void *free_list;    /* free slots, linked through their first word */
  int64_t in_use;
} sp_slab = {.mu = PTHREAD_MUTEX_INITIALIZER};

void sp__event_arrays_configure(int64_t full_cap, int huge_pages) {
  pthread_mutex_lock(&sp_slab.mu);
  /* Slots of an earlier size may still be mapped (their release failed):
   * keep that size rather than mix two. */
  if (sp_slab.nchunks == 0) {
    size_t bytes = full_cap > 0 ? (size_t)full_cap * sizeof(sp_event_t) : 0;
    int on = bytes >= SP_SLAB_MIN_SLOT && full_cap <= (int64_t)(SIZE_MAX / 4 / sizeof(sp_event_t));
    sp_slab.slot_cap = on ? full_cap : 0;
    sp_slab.slot_bytes = on ? bytes : 0;
    sp_slab.slots_per_chunk = on && bytes < SP_SLAB_CHUNK ? (int)(SP_SLAB_CHUNK / bytes) : 1;
    sp_slab.huge_pages = huge_pages;
  }
  pthread_mutex_unlock(&sp_slab.mu);
}

/* Maps a chunk aligned to SP_HUGE_PAGE so whole huge pages fit in it. */
static int sp_slab_map_chunk_locked(void) {
  if (sp_slab.nchunks == SP_SLAB_MAX_CHUNKS) return -1;
  size_t want = (size_t)sp_slab.slots_per_chunk * sp_slab.slot_bytes;
  size_t bytes = (want + SP_HUGE_PAGE - 1) & ~(SP_HUGE_PAGE - 1);
  char *raw = mmap(NULL, bytes + SP_HUGE_PAGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return -1;
  char *base = (char *)(((uintptr_t)raw + SP_HUGE_PAGE - 1) & ~(uintptr_t)(SP_HUGE_PAGE - 1));
  if (base > raw) munmap(raw, (size_t)(base - raw));
  size_t tail = (size_t)(raw + bytes + SP_HUGE_PAGE - (base + bytes));
  if (tail) munmap(base + bytes, tail);
#ifdef MADV_HUGEPAGE
  if (sp_slab.huge_pages) madvise(base, bytes, MADV_HUGEPAGE); /* advice only */
#endif
  sp_slab.chunk[sp_slab.nchunks++] = (sp_slab_chunk_t){base, bytes};
  sp_slab.carved = 0;
  return 0;
}

/* A slot, or NULL; *fresh says whether its pages were never touched. */
static void *sp_slab_take(int *fresh) {
  void *p = NULL;
  pthread_mutex_lock(&sp_slab.mu);
  if (sp_slab.free_list) {
    p = sp_slab.free_list;
    sp_slab.free_list = *(void **)p;
    *fresh = 0;
  } else if ((sp_slab.nchunks > 0 && sp_slab.carved < sp_slab.slots_per_chunk) ||
             sp_slab_map_chunk_locked() == 0) {
    p = sp_slab.chunk[sp_slab.nchunks - 1].base + (size_t)sp_slab.carved++ * sp_slab.slot_bytes;
    sp_slab.slots_made++;
    *fresh = 1;
  }
  if (p) sp_slab.in_use++;
  pthread_mutex_unlock(&sp_slab.mu);
  return p;
}

static int sp_slab_owns_locked(const void *p) {
  for (int i = 0; i < sp_slab.nchunks; i++) {
    const char *b = sp_slab.chunk[i].base;
    if ((const char *)p >= b && (const char *)p < b + sp_slab.chunk[i].bytes) return 1;
  }
  return 0;
}

sp_event_t *sp__event_array_new(int64_t cap) {
  size_t bytes = (size_t)cap * sizeof(sp_event_t);
  pthread_mutex_lock(&sp_slab.mu);
  int slot = sp_slab.slot_cap > 0 && cap == sp_slab.slot_cap;
  pthread_mutex_unlock(&sp_slab.mu);
  int fresh = 1;
  void *p = slot ? sp_slab_take(&fresh) : NULL;
  if (!p) p = malloc(bytes); /* also when mapping a chunk failed */
  /* Pages touched now, not in the hot path; a reused slot already is. */
  if (p && fresh) sp__touch_pages(p, bytes);
  return p;
}

void sp__event_array_free(sp_event_t *ev) {
  if (!ev) return;
  pthread_mutex_lock(&sp_slab.mu);
  int slot = sp_slab_owns_locked(ev);
  if (slot) {
    *(void **)ev = sp_slab.free_list;
    sp_slab.free_list = ev;
    sp_slab.in_use--;
  }
  pthread_mutex_unlock(&sp_slab.mu);
  if (!slot) free(ev);
}

sp_event_t *sp__event_array_resize(sp_event_t *ev, int64_t used, int64_t cap, int64_t ncap) {
  pthread_mutex_lock(&sp_slab.mu);
  int move = (ev && sp_slab_owns_locked(ev)) || (sp_slab.slot_cap > 0 && ncap == sp_slab.slot_cap);
  pthread_mutex_unlock(&sp_slab.mu);
  if (move) {
    sp_event_t *ne = sp__event_array_new(ncap);
    if (!ne) return NULL;
    if (used > 0) memcpy(ne, ev, (size_t)used * sizeof *ev);
    sp__event_array_free(ev);
    return ne;
  }
  /* realloc moves a large block by remapping it, without a copy. */
  sp_event_t *ne = realloc(ev, (size_t)ncap * sizeof *ne);
  if (ne && ncap > cap) sp__touch_pages(ne + cap, (size_t)(ncap - cap) * sizeof *ne);
  return ne;
}

void sp__event_arrays_release(void) {
  pthread_mutex_lock(&sp_slab.mu);
  const char *verbose = getenv("SCOPE_PROFILER_VERBOSE");
  if (verbose && *verbose == '1' && sp_slab.nchunks > 0)
    sp__log(2, SP_LOG_ALWAYS, "event arrays: %lld of %zu KiB in %d slab chunk(s)%s, %s",
            (long long)sp_slab.slots_made, sp_slab.slot_bytes >> 10, sp_slab.nchunks,
            sp_slab.huge_pages ? " offered to huge pages" : "",
            sp_slab.in_use == 0 ? "unmapped" : "kept: arrays still held");
  /* Only when every slot is back: an array still held must stay mapped. */
  if (sp_slab.in_use == 0) {
    sp_slab.slots_made = 0;
    for (int i = 0; i < sp_slab.nchunks; i++) munmap(sp_slab.chunk[i].base, sp_slab.chunk[i].bytes);
    sp_slab.nchunks = 0;
    sp_slab.carved = 0;
    sp_slab.free_list = NULL;
  }
  pthread_mutex_unlock(&sp_slab.mu);
}
