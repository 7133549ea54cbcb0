/* nvtx_glue.c - SCOPE_PROFILER_NVTX=1: each region's start and stop also an
 * NVTX push and pop, so that Nsight Systems (or any NVTX tool) shows the
 * regions on its timeline. Called only in SP_MODE_GENERAL with cfg.nvtx
 * set (hot_path.c through sp__up): a session without it pays nothing.
 *
 * The ranges go into the domain "scope-profiler", each with its region's
 * name registered once as an NVTX string (a tool then compares no text per
 * call). libscope_profiler_nvtx ignores that domain, so capturing and
 * forwarding in one process does not loop. */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sp_internal.h"

static nvtxDomainHandle_t sp_nv_domain;
/* Registered names by region handle, grown under sp_nv_lock and published
 * whole (its size with it); entries never change within a session. */
typedef struct sp_nv_tab {
  int32_t cap;
  nvtxStringHandle_t s[];
} sp_nv_tab_t;
static pthread_mutex_t sp_nv_lock = PTHREAD_MUTEX_INITIALIZER;
static sp_nv_tab_t *sp_nv_tab;
/* Set when NVTX registers no strings (no tool attached, or one without
 * them): the names then go as text, without the table's lock per call. */
static int sp_nv_noreg;

int sp__nvtx_available(void) { return 1; }

void sp__nvtx_init(void) {
  pthread_mutex_lock(&sp_nv_lock);
  if (!sp_nv_domain) sp_nv_domain = nvtxDomainCreateA("scope-profiler");
  /* A new session numbers its regions anew (no thread records meanwhile). */
  sp_nv_noreg = 0; /* a tool may have come since */
  if (sp_nv_tab) memset(sp_nv_tab->s, 0, (size_t)sp_nv_tab->cap * sizeof *sp_nv_tab->s);
  pthread_mutex_unlock(&sp_nv_lock);
}

static __attribute__((noinline)) nvtxStringHandle_t sp_nv_name_make(int32_t h) {
  nvtxStringHandle_t s = NULL;
  pthread_mutex_lock(&sp_nv_lock);
  sp_nv_tab_t *t = sp_nv_tab;
  if (!t || h >= t->cap) {
    int32_t cap = t ? t->cap : 256;
    while (cap <= h) cap *= 2;
    sp_nv_tab_t *n = calloc(1, sizeof *n + (size_t)cap * sizeof *n->s);
    if (n) {
      n->cap = cap;
      if (t) memcpy(n->s, t->s, (size_t)t->cap * sizeof *t->s);
      /* The old table stays readable by threads that loaded its address:
       * kept, not freed (it doubles, so all of them sum to one more). */
      __atomic_store_n(&sp_nv_tab, n, __ATOMIC_RELEASE);
      t = n;
    }
  }
  if (t && h < t->cap) {
    s = t->s[h];
    if (!s) {
      s = nvtxDomainRegisterStringA(sp_nv_domain, sp__region_get(h)->name);
      if (s)
        __atomic_store_n(&t->s[h], s, __ATOMIC_RELEASE);
      else
        __atomic_store_n(&sp_nv_noreg, 1, __ATOMIC_RELAXED);
    }
  }
  pthread_mutex_unlock(&sp_nv_lock);
  return s;
}

void sp__nvtx_start(int32_t h) {
  const sp_nv_tab_t *t = __atomic_load_n(&sp_nv_tab, __ATOMIC_ACQUIRE);
  nvtxStringHandle_t s = t && h < t->cap ? __atomic_load_n(&t->s[h], __ATOMIC_ACQUIRE) : NULL;
  if (!s && !__atomic_load_n(&sp_nv_noreg, __ATOMIC_RELAXED)) s = sp_nv_name_make(h);
  nvtxEventAttributes_t a = {0};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  if (s) {
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = s;
  } else { /* no registered strings, or no memory for the table */
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = sp__region_get(h)->name;
  }
  nvtxDomainRangePushEx(sp_nv_domain, &a);
}

void sp__nvtx_stop(int32_t h) {
  (void)h;
  nvtxDomainRangePop(sp_nv_domain);
}
