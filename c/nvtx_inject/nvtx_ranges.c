/* nvtx_ranges.c - nvtxRangePush/Pop and marks on the calling thread.
 *
 * Each thread keeps the stack of its open pushed ranges (region handle and
 * domain): a pop needs no lookup. NVTX keeps a stack per domain; the file
 * keeps one call tree per thread, so a pop closes the innermost open range
 * of its domain, and ranges of other domains opened inside it end with it
 * (their own pops then find nothing and return -1). A range whose name is
 * not recorded (no session, our own forwarding domain) still takes a slot,
 * so that pushes and pops stay paired. The domain scope-profiler, where the
 * core forwards its regions (SCOPE_PROFILER_NVTX=1) from inside our own
 * sp_start and sp_stop, takes no slot at all (nvtx_inject.c). */
#include <pthread.h>
#include <stdlib.h>

#include "nvtx_inject.h"
#include "scope_profiler.h"

typedef struct sp_nframe {
  int32_t h; /* -1: not recorded */
  unsigned session;
  const sp_nvtx_domain_t *dom;
} sp_nframe_t;

typedef struct sp_nstack {
  sp_nframe_t *f;
  int32_t depth, cap;
} sp_nstack_t;

static __thread sp_nstack_t sp_ns;
static pthread_key_t sp_ns_key;
static pthread_once_t sp_ns_once = PTHREAD_ONCE_INIT;

static void sp_ns_free(void *p) { free(p); }
static void sp_ns_key_make(void) { pthread_key_create(&sp_ns_key, sp_ns_free); }

static __attribute__((noinline)) int sp_ns_grow(void) {
  int32_t cap = sp_ns.cap ? sp_ns.cap * 2 : 64;
  sp_nframe_t *f = realloc(sp_ns.f, (size_t)cap * sizeof *f);
  if (!f) return -1;
  if (!sp_ns.f) {
    pthread_once(&sp_ns_once, sp_ns_key_make);
  }
  pthread_setspecific(sp_ns_key, f); /* freed when the thread ends */
  sp_ns.f = f;
  sp_ns.cap = cap;
  return 0;
}

int sp__nvtx_push(sp_nvtx_domain_t *dom, int32_t h) {
  if (__builtin_expect(sp_ns.depth == sp_ns.cap, 0) && sp_ns_grow() != 0) return -1;
  sp_nframe_t *f = &sp_ns.f[sp_ns.depth];
  f->h = h;
  f->session = sp__session;
  f->dom = dom;
  const int level = sp_ns.depth++; /* before sp_start, which may push again (below) */
  if (h >= 0) sp_start(h);
  return level;
}

/* Closes frame i (a call of the running session only: a handle of an
 * earlier session means another region now). */
static void sp_close(const sp_nframe_t *f) {
  if (f->h >= 0 && f->session == sp__session) sp_stop(f->h);
}

int sp__nvtx_pop(sp_nvtx_domain_t *dom) {
  int32_t d = sp_ns.depth - 1;
  if (__builtin_expect(d >= 0 && sp_ns.f[d].dom == dom, 1)) {
    sp_close(&sp_ns.f[d]);
    sp_ns.depth = d;
    return d;
  }
  while (d >= 0 && sp_ns.f[d].dom != dom) d--;
  if (d < 0) return -1; /* a pop without a push (NVTX returns a negative level) */
  for (int32_t i = sp_ns.depth - 1; i >= d; i--) sp_close(&sp_ns.f[i]);
  sp_ns.depth = d;
  return d;
}

void sp__nvtx_mark(int32_t h) {
  if (h < 0) return;
  /* A mark is an instant: a call of its region that ends as it starts
   * (its duration is the two clock reads between). */
  sp_start(h);
  sp_stop(h);
}

void sp__nvtx_ranges_finalize(void) {
  for (int32_t i = sp_ns.depth - 1; i >= 0; i--) sp_close(&sp_ns.f[i]);
  sp_ns.depth = 0;
}
