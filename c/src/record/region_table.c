/* region_table.c - region names and their handles.
 *
 * Registration takes the state lock; lookup by name (sp_start_name) takes
 * none: entries live in fixed chunks that never move, and the open-
 * addressing index is replaced, never changed in place, when it grows, so
 * a reader sees either the old or the new index, both valid. Old indexes
 * are freed only when the session ends. */
#include <stdlib.h>
#include <string.h>

#include "region_source.h"
#include "sp_internal.h"

#define SP_CHUNK_BITS SP_REGION_CHUNK_BITS
#define SP_CHUNK_SIZE (1 << SP_CHUNK_BITS)
#define SP_MAX_CHUNKS 1024 /* up to 1,048,576 regions */

typedef struct sp_name_index {
  uint32_t mask;               /* slots - 1, slots a power of two */
  int32_t *slots;              /* handle + 1, 0 = empty; atomic */
  struct sp_name_index *older; /* retired indexes, freed at reset */
} sp_name_index_t;

/* Not static: the by-name hot path reads them inline (sp__region_at). */
sp_region_entry_t *sp__region_chunks[SP_MAX_CHUNKS];
int32_t sp__nregions;             /* published count; atomic */
static sp_name_index_t *sp_index; /* current index; atomic pointer */

uint64_t sp__name_hash(const char *s, size_t len) {
  /* 8 bytes per step with a multiply-xorshift mix: a few ns for the short
   * names regions have, and sp_start_name pays it on every call. */
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)len;
  while (len >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    s += 8;
    len -= 8;
  }
  if (len) {
    uint64_t w = 0;
    memcpy(&w, s, len);
    h = (h ^ w) * 0x94D049BB133111EBull;
    h ^= h >> 29;
  }
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 32);
}

const sp_region_entry_t *sp__region_get(int32_t h) {
  return &sp__region_chunks[h >> SP_CHUNK_BITS][h & (SP_CHUNK_SIZE - 1)];
}

int32_t sp__region_count(void) { return __atomic_load_n(&sp__nregions, __ATOMIC_ACQUIRE); }

int sp__region_lookup(const char *name, size_t len, uint64_t hash) {
  sp_name_index_t *idx = __atomic_load_n(&sp_index, __ATOMIC_ACQUIRE);
  if (!idx) return -1;
  for (uint32_t i = (uint32_t)hash & idx->mask;; i = (i + 1) & idx->mask) {
    int32_t v = __atomic_load_n(&idx->slots[i], __ATOMIC_ACQUIRE);
    if (v == 0) return -1;
    const sp_region_entry_t *e = sp__region_get(v - 1);
    if (e->hash == hash && e->len == len && memcmp(e->name, name, len) == 0) return v - 1;
  }
}

static void sp_index_insert(sp_name_index_t *idx, int32_t h, uint64_t hash) {
  uint32_t i = (uint32_t)hash & idx->mask;
  while (idx->slots[i] != 0) i = (i + 1) & idx->mask;
  __atomic_store_n(&idx->slots[i], h + 1, __ATOMIC_RELEASE);
}

/* Keeps the index at most half full; called with the lock held. */
static int sp_index_ensure(int32_t want) {
  sp_name_index_t *old = sp_index;
  if (old && (uint64_t)want * 2 <= (uint64_t)old->mask + 1) return 0;
  uint32_t slots = old ? (old->mask + 1) * 2 : 1024; /* 4 KiB: no growth for most programs */
  while ((uint64_t)want * 2 > slots) slots *= 2;
  sp_name_index_t *idx = calloc(1, sizeof *idx);
  int32_t *s = calloc(slots, sizeof *s);
  if (!idx || !s) {
    free(idx);
    free(s);
    return SP_ENOMEM;
  }
  idx->mask = slots - 1;
  idx->slots = s;
  idx->older = old;
  for (int32_t h = 0; h < sp__nregions; h++) sp_index_insert(idx, h, sp__region_get(h)->hash);
  __atomic_store_n(&sp_index, idx, __ATOMIC_RELEASE);
  return 0;
}

/* A name holding a NUL byte (possible through the length forms and
 * Fortran) is refused: HDF5's string attribute @name would end at the NUL,
 * so "a\0b" and "a\0c" would read as one region. */
static int sp_refuse_nul(void) {
  __atomic_fetch_add(&sp__state.misuse[SP_MISUSE_BAD_NAME], 1, __ATOMIC_RELAXED);
  sp__log(SP_LOG_WARNING, SP_LOG_ONCE_BAD_NAME, "region name holds a NUL byte; ignored");
  return SP_EINVAL;
}

int sp__region_register(const char *name, size_t len) {
  if (memchr(name, '\0', len)) return sp_refuse_nul();
  uint64_t hash = sp__name_hash(name, len);
  pthread_mutex_lock(&sp__state.lock);
  int h = sp__region_lookup(name, len, hash);
  if (h >= 0) goto out;
  int32_t n = sp__nregions;
  if (n >= SP_MAX_CHUNKS * SP_CHUNK_SIZE) {
    h = SP_ETOOMANY;
    goto out;
  }
  if (!sp__region_chunks[n >> SP_CHUNK_BITS]) {
    sp__region_chunks[n >> SP_CHUNK_BITS] = calloc(SP_CHUNK_SIZE, sizeof(sp_region_entry_t));
    if (!sp__region_chunks[n >> SP_CHUNK_BITS]) {
      h = SP_ENOMEM;
      goto out;
    }
  }
  h = sp_index_ensure(n + 1);
  if (h < 0) goto out;
  sp_region_entry_t *e = &sp__region_chunks[n >> SP_CHUNK_BITS][n & (SP_CHUNK_SIZE - 1)];
  e->name = malloc(len + 1);
  if (!e->name) {
    h = SP_ENOMEM;
    goto out;
  }
  memcpy(e->name, name, len);
  e->name[len] = '\0';
  e->len = (uint32_t)len;
  e->hash = hash;
  __atomic_store_n(&sp__nregions, n + 1, __ATOMIC_RELEASE);
  sp_index_insert(sp_index, n, hash);
  h = n;
out:
  pthread_mutex_unlock(&sp__state.lock);
  return h;
}

void sp__region_table_reset(void) {
  sp__source_reset();
  for (int32_t h = 0; h < sp__nregions; h++) {
    sp_region_entry_t *e = &sp__region_chunks[h >> SP_CHUNK_BITS][h & (SP_CHUNK_SIZE - 1)];
    free(e->name);
    memset(e, 0, sizeof *e);
  }
  sp__nregions = 0;
  for (sp_name_index_t *idx = sp_index; idx;) {
    sp_name_index_t *older = idx->older;
    free(idx->slots);
    free(idx);
    idx = older;
  }
  sp_index = NULL;
}

int sp__region_rename(int32_t h, const char *name, size_t len) {
  pthread_mutex_lock(&sp__state.lock);
  int rc = 0;
  uint64_t hash = sp__name_hash(name, len);
  int other = sp__region_lookup(name, len, hash);
  char *copy = NULL;
  if (h < 0 || h >= sp__nregions || (other >= 0 && other != h)) {
    rc = SP_EINVAL;
  } else if (other != h) {
    copy = malloc(len + 1);
    if (!copy) rc = SP_ENOMEM;
  }
  if (rc == 0 && copy) {
    memcpy(copy, name, len);
    copy[len] = '\0';
    sp_region_entry_t *e = &sp__region_chunks[h >> SP_CHUNK_BITS][h & (SP_CHUNK_SIZE - 1)];
    free(e->name);
    e->name = copy;
    e->len = (uint32_t)len;
    e->hash = hash;
    /* The old name's slot still points at h; a fresh index forgets it. */
    sp_name_index_t *old = sp_index;
    sp_index = NULL;
    rc = sp_index_ensure(sp__nregions);
    if (rc == 0) {
      sp_index->older = old;
    } else {
      sp_index = old;
    }
  }
  pthread_mutex_unlock(&sp__state.lock);
  return rc;
}
