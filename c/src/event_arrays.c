/* event_arrays.c - memory for the arrays that hold recorded events.
 *
 * A region's buffer grows 16 KiB, 32 KiB, ... up to buffer_limit events
 * (1.6 MB at the default) and lives until finalize. From malloc, every
 * array from 128 KiB up is its own mapping: faulted in 4 KiB pages (~7 us
 * per fault on these VMs) and unmapped one by one at finalize, which cost
 * 0.3 ms per munmap here (TLB shootdowns; 200 regions: 68 ms on one rank,
 * 0.4 s with 8 ranks on 2 cores). So arrays from 64 KiB up come from a
 * slab instead: 32 MiB chunks, 2 MiB aligned and offered to transparent
 * huge pages, cut into power-of-two size classes plus one class of exactly
 * buffer_limit events; freed arrays wait on their class's free list for
 * the next buffer that grows, and all chunks are unmapped together at
 * finalize. A full array larger than half a chunk gets a chunk of its
 * own; other large arrays (growth past the limit, or without
 * flush_to_disk) and small ones stay with malloc/realloc.
 *
 * The flush writer trades arrays between threads, so the slab belongs to
 * the process, under one mutex; it is used when an array is created,
 * freed or resized, never on the hot path. SCOPE_PROFILER_HUGE_PAGES=0
 * keeps the slab but does not ask for huge pages. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sp_internal.h"

#define SP_SLAB_MIN ((size_t)64 << 10)    /* smaller arrays: malloc */
#define SP_SLAB_CHUNK ((size_t)32 << 20)  /* one mapping */
#define SP_HUGE_PAGE ((size_t)2 << 20)
#define SP_SLAB_MAX_CHUNKS 1024           /* 32 GiB of chunks; then malloc */
#define SP_POW2_CLASSES 9                 /* 64 KiB .. 16 MiB */
#define SP_FULL_CLASS SP_POW2_CLASSES     /* exactly full_cap events */

typedef struct sp_slab_chunk {
  char *base;
  size_t bytes;
} sp_slab_chunk_t;

static struct {
  pthread_mutex_t mu;
  int64_t full_cap; /* events in a full buffer; 0: no full class */
  int huge_pages;
  sp_slab_chunk_t chunk[SP_SLAB_MAX_CHUNKS];
  int nchunks;
  size_t carved;                          /* bytes handed out of the newest shared chunk */
  int newest_shared;                      /* index of that chunk, -1 before the first */
  void *free_list[SP_POW2_CLASSES + 1];   /* linked through each array's first word */
  int64_t in_use;
  int64_t made; /* arrays cut this session (for the verbose line) */
} sp_slab = {.mu = PTHREAD_MUTEX_INITIALIZER, .newest_shared = -1};

void sp__event_arrays_configure(int64_t full_cap, int huge_pages) {
  pthread_mutex_lock(&sp_slab.mu);
  /* A slab kept by an earlier session (an array was still held at its
   * finalize) keeps its classes rather than mix two full sizes. */
  if (sp_slab.nchunks == 0) {
    int fits = full_cap > 0 && full_cap <= (int64_t)(SIZE_MAX / 4 / sizeof(sp_event_t)) &&
               (size_t)full_cap * sizeof(sp_event_t) >= SP_SLAB_MIN;
    sp_slab.full_cap = fits ? full_cap : 0;
    sp_slab.huge_pages = huge_pages;
  }
  pthread_mutex_unlock(&sp_slab.mu);
}

/* The class of an array of cap events, or -1 for malloc. */
static int sp_slab_class_locked(int64_t cap) {
  if (cap <= 0) return -1;
  if (cap == sp_slab.full_cap) return SP_FULL_CLASS;
  size_t bytes = (size_t)cap * sizeof(sp_event_t);
  for (int c = 0; c < SP_POW2_CLASSES; c++)
    if (bytes == SP_SLAB_MIN << c) return c;
  return -1;
}

/* Maps bytes (a multiple of SP_HUGE_PAGE) aligned to SP_HUGE_PAGE, so that
 * whole huge pages fit; records it as a chunk. */
static char *sp_slab_map_locked(size_t bytes) {
  if (sp_slab.nchunks == SP_SLAB_MAX_CHUNKS) return NULL;
  char *raw = mmap(NULL, bytes + SP_HUGE_PAGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  char *base = (char *)(((uintptr_t)raw + SP_HUGE_PAGE - 1) & ~(uintptr_t)(SP_HUGE_PAGE - 1));
  if (base > raw) munmap(raw, (size_t)(base - raw));
  size_t tail = (size_t)(raw + bytes + SP_HUGE_PAGE - (base + bytes));
  if (tail) munmap(base + bytes, tail);
#ifdef MADV_HUGEPAGE
  if (sp_slab.huge_pages) madvise(base, bytes, MADV_HUGEPAGE); /* advice only */
#endif
  sp_slab.chunk[sp_slab.nchunks++] = (sp_slab_chunk_t){base, bytes};
  return base;
}

/* Cuts bytes from the newest shared chunk, or from a new one. */
static char *sp_slab_cut_locked(size_t bytes) {
  bytes = (bytes + 4095) & ~(size_t)4095;
  if (bytes > SP_SLAB_CHUNK / 2) /* a full array of its own */
    return sp_slab_map_locked((bytes + SP_HUGE_PAGE - 1) & ~(SP_HUGE_PAGE - 1));
  if (sp_slab.newest_shared < 0 || sp_slab.carved + bytes > SP_SLAB_CHUNK) {
    if (!sp_slab_map_locked(SP_SLAB_CHUNK)) return NULL;
    sp_slab.newest_shared = sp_slab.nchunks - 1;
    sp_slab.carved = 0;
  }
  char *p = sp_slab.chunk[sp_slab.newest_shared].base + sp_slab.carved;
  sp_slab.carved += bytes;
  return p;
}

/* An array of class c, or NULL; *fresh says whether its pages were never
 * touched. */
static void *sp_slab_take(int64_t cap, int *fresh) {
  void *p = NULL;
  pthread_mutex_lock(&sp_slab.mu);
  int c = sp_slab_class_locked(cap);
  if (c >= 0 && sp_slab.free_list[c]) {
    p = sp_slab.free_list[c];
    sp_slab.free_list[c] = *(void **)p;
    *fresh = 0;
  } else if (c >= 0 && (p = sp_slab_cut_locked((size_t)cap * sizeof(sp_event_t)))) {
    sp_slab.made++;
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
  int fresh = 1;
  void *p = bytes >= SP_SLAB_MIN ? sp_slab_take(cap, &fresh) : NULL;
  if (!p) p = malloc(bytes); /* no class, or no chunk could be mapped */
  /* Pages touched now, not in the hot path; a reused array already is. */
  if (p && fresh) sp__touch_pages(p, bytes);
  return p;
}

void sp__event_array_free(sp_event_t *ev, int64_t cap) {
  if (!ev) return;
  pthread_mutex_lock(&sp_slab.mu);
  int c = sp_slab_owns_locked(ev) ? sp_slab_class_locked(cap) : -1;
  if (c >= 0) {
    *(void **)ev = sp_slab.free_list[c];
    sp_slab.free_list[c] = ev;
    sp_slab.in_use--;
  }
  pthread_mutex_unlock(&sp_slab.mu);
  if (c < 0) free(ev);
}

sp_event_t *sp__event_array_resize(sp_event_t *ev, int64_t used, int64_t cap, int64_t ncap) {
  pthread_mutex_lock(&sp_slab.mu);
  int move = (ev && sp_slab_owns_locked(ev)) ||
             ((size_t)ncap * sizeof *ev >= SP_SLAB_MIN && sp_slab_class_locked(ncap) >= 0);
  pthread_mutex_unlock(&sp_slab.mu);
  if (move) {
    sp_event_t *ne = sp__event_array_new(ncap);
    if (!ne) return NULL;
    if (used > 0) memcpy(ne, ev, (size_t)used * sizeof *ev);
    sp__event_array_free(ev, cap);
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
    sp__log(2, SP_LOG_ALWAYS, "event arrays: %lld cut from %d slab chunk(s)%s (full: %zu KiB), %s",
            (long long)sp_slab.made, sp_slab.nchunks,
            sp_slab.huge_pages ? " offered to huge pages" : "",
            (size_t)sp_slab.full_cap * sizeof(sp_event_t) >> 10,
            sp_slab.in_use == 0 ? "unmapped" : "kept: arrays still held");
  /* Only when every array is back: one still held must stay mapped. */
  if (sp_slab.in_use == 0) {
    for (int i = 0; i < sp_slab.nchunks; i++) munmap(sp_slab.chunk[i].base, sp_slab.chunk[i].bytes);
    sp_slab.nchunks = 0;
    sp_slab.newest_shared = -1;
    sp_slab.carved = 0;
    sp_slab.made = 0;
    memset(sp_slab.free_list, 0, sizeof sp_slab.free_list);
  }
  pthread_mutex_unlock(&sp_slab.mu);
}
