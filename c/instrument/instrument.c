/* instrument.c - every function of a program compiled with
 * -finstrument-functions (gcc, gfortran) recorded as a region.
 *
 * Per call: the compiler calls __cyg_profile_func_enter/exit with the
 * function's address. Each thread maps addresses to region handles in its
 * own open-addressing table (no lock, one multiply and usually one compare)
 * and keeps a shadow stack of open calls, so an exit needs no lookup.
 *
 * First sight of a function (once per thread, then once per process under
 * a lock): the process-wide registry gives it a region named after its
 * address ("0x55d0c0ffee"). Names are resolved at finalize, in a finalize
 * hook that renames the regions (symbols.c) - except when an include or
 * exclude pattern is set: the name is then resolved at first sight, once
 * per function, to decide whether to record it at all, so that excluded
 * functions cost a table lookup per call and never appear in the file.
 *
 * Cap: past SCOPE_PROFILER_INSTRUMENT_MAX_CALLS traced calls of a function
 * on a thread, its calls are only counted (handed to the core with
 * sp_region_add_calls at finalize): a hot tiny function then costs a
 * counter increment instead of two clock reads and 16 bytes per call.
 *
 * Environment (read at each session's first instrumented call):
 *   SCOPE_PROFILER_INSTRUMENT_INCLUDE=ERE  record only functions matching
 *   SCOPE_PROFILER_INSTRUMENT_EXCLUDE=ERE  never record functions matching
 *   SCOPE_PROFILER_INSTRUMENT_MAX_CALLS=n  traced calls per function and
 *                                          thread (default 10000, 0 = no cap;
 *                                          no cap in profile mode alone)
 *   SCOPE_PROFILER_INSTRUMENT_AUTO=0|1     sp_setup at load and sp_finalize
 *                                          at exit (default 1)
 * Patterns are POSIX extended regular expressions searched in the resolved
 * name (anchor with ^...$ for whole names). */
#include <pthread.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scope_profiler.h"
#include "symbols.h"

#define SP_NI __attribute__((no_instrument_function))
#define SP_IN_LIKELY(x) __builtin_expect(!!(x), 1)
#define SP_IN_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The compiler's hooks; exported from the library. */
SP_EXPORT void __cyg_profile_func_enter(void *fn, void *site) SP_NI;
SP_EXPORT void __cyg_profile_func_exit(void *fn, void *site) SP_NI;

/* One function as a thread sees it. */
typedef struct sp_fn {
  const void *fn; /* NULL: empty slot */
  int32_t h;      /* region handle, -1: not recorded */
  int32_t unused;
  int64_t calls;    /* calls entered in this session on this thread */
  int64_t untraced; /* calls past the cap, not yet handed to the core */
} sp_fn_t;

typedef struct sp_iframe {
  const void *fn;
  int32_t h;
  int32_t traced;
} sp_iframe_t;

typedef struct sp_ithread {
  sp_fn_t *tab;
  uint32_t mask, n;
  sp_iframe_t *stack;
  int32_t depth, cap;
  unsigned session; /* sp__session the table belongs to */
  int retired;
  struct sp_ithread *next;
} sp_ithread_t;

static __thread sp_ithread_t *sp_it __attribute__((tls_model("initial-exec")));

/* Process-wide registry of the session's functions, under sp_reg_lock. */
typedef struct sp_reg_entry {
  const void *fn;
  int32_t h;
  char *name; /* resolved name, or NULL until finalize */
} sp_reg_entry_t;

static pthread_mutex_t sp_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static sp_reg_entry_t *sp_reg;
static uint32_t sp_reg_mask, sp_reg_n;
static unsigned sp_reg_session;
static int sp_reg_valid; /* sp_reg_session holds a real session */
static sp_ithread_t *sp_threads;
static pthread_key_t sp_thread_key;
static pthread_once_t sp_thread_key_once = PTHREAD_ONCE_INIT;

/* Settings, read once per session. */
static int64_t sp_max_calls = 10000;
static regex_t sp_include, sp_exclude;
static int sp_have_include, sp_have_exclude;

static inline SP_NI uint32_t sp_addr_hash(const void *fn) {
  uint64_t x = (uint64_t)(uintptr_t)fn * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(x >> 32);
}

/* ---- settings and registry (under sp_reg_lock) ------------------------- */

static SP_NI void sp_settings_read(void) {
  if (sp_have_include) regfree(&sp_include);
  if (sp_have_exclude) regfree(&sp_exclude);
  sp_have_include = sp_have_exclude = 0;
  const char *inc = getenv("SCOPE_PROFILER_INSTRUMENT_INCLUDE");
  const char *exc = getenv("SCOPE_PROFILER_INSTRUMENT_EXCLUDE");
  if (inc && *inc) {
    sp_have_include = regcomp(&sp_include, inc, REG_EXTENDED | REG_NOSUB) == 0;
    if (!sp_have_include)
      fprintf(stderr,
              "scope-profiler: SCOPE_PROFILER_INSTRUMENT_INCLUDE='%s' is not a valid "
              "extended regular expression; ignored\n",
              inc);
  }
  if (exc && *exc) {
    sp_have_exclude = regcomp(&sp_exclude, exc, REG_EXTENDED | REG_NOSUB) == 0;
    if (!sp_have_exclude)
      fprintf(stderr,
              "scope-profiler: SCOPE_PROFILER_INSTRUMENT_EXCLUDE='%s' is not a valid "
              "extended regular expression; ignored\n",
              exc);
  }
  const char *mc = getenv("SCOPE_PROFILER_INSTRUMENT_MAX_CALLS");
  /* The cap bounds a trace's size; profile mode alone keeps no trace, and
   * its statistics would lose every call past the cap. */
  sp_max_calls = sp__profile_only() ? INT64_MAX : 10000;
  if (mc && *mc) {
    char *end;
    long long v = strtoll(mc, &end, 10);
    if (*end || v < 0) {
      fprintf(stderr, "scope-profiler: ignoring SCOPE_PROFILER_INSTRUMENT_MAX_CALLS=%s\n", mc);
    } else {
      sp_max_calls = v == 0 ? INT64_MAX : (int64_t)v;
    }
  }
}

static SP_NI void sp_reg_clear(void) {
  for (uint32_t i = 0; sp_reg && i <= sp_reg_mask; i++) free(sp_reg[i].name);
  free(sp_reg);
  sp_reg = NULL;
  sp_reg_mask = sp_reg_n = 0;
}

/* Makes the registry belong to the running session. */
static SP_NI void sp_reg_sync(void) {
  if (sp_reg_valid && sp_reg_session == sp__session) return;
  sp_reg_clear();
  sp_settings_read();
  sp_reg_session = sp__session;
  sp_reg_valid = 1;
}

static SP_NI sp_reg_entry_t *sp_reg_slot(const void *fn) {
  uint32_t i = sp_addr_hash(fn) & sp_reg_mask;
  while (sp_reg[i].fn && sp_reg[i].fn != fn) i = (i + 1) & sp_reg_mask;
  return &sp_reg[i];
}

static SP_NI int sp_reg_grow(void) {
  if (sp_reg && (sp_reg_n + 1) * 2 <= sp_reg_mask + 1) return 0;
  uint32_t slots = sp_reg ? (sp_reg_mask + 1) * 2 : 1024;
  sp_reg_entry_t *old = sp_reg, *nt = calloc(slots, sizeof *nt);
  uint32_t oldslots = sp_reg ? sp_reg_mask + 1 : 0;
  if (!nt) return -1;
  sp_reg = nt;
  sp_reg_mask = slots - 1;
  for (uint32_t i = 0; i < oldslots; i++)
    if (old[i].fn) *sp_reg_slot(old[i].fn) = old[i];
  free(old);
  return 0;
}

/* Whether a function of this name is recorded under the patterns. */
static SP_NI int sp_name_selected(const char *name) {
  if (sp_have_include && regexec(&sp_include, name, 0, NULL, 0) != 0) return 0;
  if (sp_have_exclude && regexec(&sp_exclude, name, 0, NULL, 0) == 0) return 0;
  return 1;
}

/* The handle of fn in this session (-1: not recorded), registering it. */
static SP_NI int32_t sp_reg_handle(const void *fn) {
  pthread_mutex_lock(&sp_reg_lock);
  sp_reg_sync();
  int32_t h = -1;
  if (sp_reg_grow() != 0) goto out;
  sp_reg_entry_t *e = sp_reg_slot(fn);
  if (e->fn) {
    h = e->h;
    goto out;
  }
  char name[1024];
  char *resolved = NULL;
  if (sp_have_include || sp_have_exclude) {
    sp_sym_resolve(fn, name, sizeof name);
    resolved = strdup(name);
    if (!sp_name_selected(name)) {
      free(resolved);
      resolved = NULL;
      goto store;
    }
  }
  snprintf(name, sizeof name, "%p", fn);
  h = sp_region(name);
  if (h < 0) h = -1;
store:
  e->fn = fn;
  e->h = h;
  e->name = resolved;
  sp_reg_n++;
out:
  pthread_mutex_unlock(&sp_reg_lock);
  return h;
}

/* ---- per-thread state ---------------------------------------------------- */

static SP_NI void sp_thread_retire(void *p) {
  sp_ithread_t *t = p;
  pthread_mutex_lock(&sp_reg_lock);
  t->retired = 1;
  pthread_mutex_unlock(&sp_reg_lock);
}

static SP_NI void sp_thread_key_make(void) { pthread_key_create(&sp_thread_key, sp_thread_retire); }

/* The calling thread's record, reset for the running session. */
static SP_NI __attribute__((noinline)) sp_ithread_t *sp_thread_refresh(void) {
  sp_ithread_t *t = sp_it;
  if (!t) {
    pthread_once(&sp_thread_key_once, sp_thread_key_make);
    pthread_mutex_lock(&sp_reg_lock);
    for (sp_ithread_t *r = sp_threads; r && !t; r = r->next)
      if (r->retired) t = r;
    if (t) {
      t->retired = 0;
      t->session = sp__session - 1; /* force the reset below */
    } else if ((t = calloc(1, sizeof *t)) != NULL) {
      t->session = sp__session - 1;
      t->next = sp_threads;
      sp_threads = t;
    }
    pthread_mutex_unlock(&sp_reg_lock);
    if (!t) return NULL;
    pthread_setspecific(sp_thread_key, t);
    sp_it = t;
  }
  if (t->session != sp__session) {
    if (t->tab) memset(t->tab, 0, ((size_t)t->mask + 1) * sizeof *t->tab);
    t->n = 0;
    t->depth = 0;
    t->session = sp__session;
  }
  return t;
}

static SP_NI int sp_table_grow(sp_ithread_t *t) {
  uint32_t slots = t->tab ? (t->mask + 1) * 2 : 256;
  sp_fn_t *nt = calloc(slots, sizeof *nt), *old = t->tab;
  uint32_t oldslots = t->tab ? t->mask + 1 : 0;
  if (!nt) return -1;
  for (uint32_t i = 0; i < oldslots; i++) {
    if (!old[i].fn) continue;
    uint32_t j = sp_addr_hash(old[i].fn) & (slots - 1);
    while (nt[j].fn) j = (j + 1) & (slots - 1);
    nt[j] = old[i];
  }
  /* Another thread may read old in the finalize hook: swap under the lock. */
  pthread_mutex_lock(&sp_reg_lock);
  t->tab = nt;
  t->mask = slots - 1;
  pthread_mutex_unlock(&sp_reg_lock);
  free(old);
  return 0;
}

/* First sight of fn on this thread: its entry, or NULL without memory. */
static SP_NI __attribute__((noinline)) sp_fn_t *sp_fn_insert(sp_ithread_t *t, const void *fn) {
  if ((!t->tab || (t->n + 1) * 2 > t->mask + 1) && sp_table_grow(t) != 0) return NULL;
  int32_t h = sp_reg_handle(fn);
  uint32_t i = sp_addr_hash(fn) & t->mask;
  while (t->tab[i].fn) i = (i + 1) & t->mask;
  t->tab[i].fn = fn;
  t->tab[i].h = h;
  t->n++;
  return &t->tab[i];
}

static SP_NI __attribute__((noinline)) int sp_stack_grow(sp_ithread_t *t) {
  int32_t cap = t->cap ? t->cap * 2 : 256;
  sp_iframe_t *s = realloc(t->stack, (size_t)cap * sizeof *s);
  if (!s) return -1;
  t->stack = s;
  t->cap = cap;
  return 0;
}

/* ---- the compiler's hooks -------------------------------------------------- */

void __cyg_profile_func_enter(void *fn, void *site) {
  (void)site;
  if (SP_IN_UNLIKELY(!sp__enabled)) return;
  sp_ithread_t *t = sp_it;
  if (SP_IN_UNLIKELY(!t || t->session != sp__session)) {
    t = sp_thread_refresh();
    if (!t) return;
  }
  sp_fn_t *e = NULL;
  if (SP_IN_LIKELY(t->tab != NULL)) {
    uint32_t i = sp_addr_hash(fn) & t->mask;
    while (t->tab[i].fn != fn && t->tab[i].fn) i = (i + 1) & t->mask;
    if (SP_IN_LIKELY(t->tab[i].fn == fn)) e = &t->tab[i];
  }
  if (SP_IN_UNLIKELY(!e) && !(e = sp_fn_insert(t, fn))) return;
  if (SP_IN_UNLIKELY(t->depth == t->cap) && sp_stack_grow(t) != 0) return;
  sp_iframe_t *f = &t->stack[t->depth++];
  f->fn = fn;
  f->h = e->h;
  f->traced = 0;
  if (SP_IN_UNLIKELY(e->h < 0)) return;
  if (SP_IN_LIKELY(++e->calls <= sp_max_calls)) {
    f->traced = 1;
    sp_start(e->h);
  } else {
    e->untraced++;
  }
}

/* An exit that is not the innermost open call (longjmp, exceptions, or a
 * call entered before the session): closes the calls above it. */
static SP_NI __attribute__((noinline)) void sp_exit_unusual(sp_ithread_t *t, const void *fn) {
  int32_t d = t->depth - 1;
  while (d >= 0 && t->stack[d].fn != fn) d--;
  if (d < 0) return;
  while (t->depth > d) {
    sp_iframe_t *f = &t->stack[--t->depth];
    if (f->traced) sp_stop(f->h);
  }
}

void __cyg_profile_func_exit(void *fn, void *site) {
  (void)site;
  if (SP_IN_UNLIKELY(!sp__enabled)) return;
  sp_ithread_t *t = sp_it;
  if (SP_IN_UNLIKELY(!t || t->session != sp__session || t->depth == 0)) return;
  sp_iframe_t *f = &t->stack[t->depth - 1];
  if (SP_IN_UNLIKELY(f->fn != fn)) {
    sp_exit_unusual(t, fn);
    return;
  }
  t->depth--;
  if (f->traced) sp_stop(f->h);
}

/* ---- finalize: counts past the cap, names -------------------------------- */

static SP_NI void sp_rename(sp_reg_entry_t *e) {
  char name[1024];
  if (e->name) {
    snprintf(name, sizeof name, "%s", e->name);
  } else {
    sp_sym_resolve(e->fn, name, sizeof name);
  }
  if (sp_region_rename(e->h, name) == 0) return;
  /* Taken: a hand-placed region, or two copies of one static function. */
  char alt[1100];
  snprintf(alt, sizeof alt, "%s@%p", name, e->fn);
  sp_region_rename(e->h, alt);
}

static SP_NI void sp_instrument_finalize(void *arg) {
  (void)arg;
  /* Calls still open on this thread (main and its callers of sp_finalize)
   * end here rather than be reported as unbalanced. */
  sp_ithread_t *t = sp_it;
  if (t && t->session == sp__session) {
    while (t->depth > 0) {
      sp_iframe_t *f = &t->stack[--t->depth];
      if (f->traced) sp_stop(f->h);
    }
  }
  pthread_mutex_lock(&sp_reg_lock);
  for (sp_ithread_t *r = sp_threads; r; r = r->next) {
    if (r->session != sp__session || !r->tab) continue;
    for (uint32_t i = 0; i <= r->mask; i++) {
      sp_fn_t *e = &r->tab[i];
      if (e->fn && e->h >= 0 && e->untraced > 0) sp_region_add_calls(e->h, e->untraced);
      e->untraced = 0;
    }
  }
  if (sp_reg_valid && sp_reg_session == sp__session) {
    for (uint32_t i = 0; sp_reg && i <= sp_reg_mask; i++)
      if (sp_reg[i].fn && sp_reg[i].h >= 0) sp_rename(&sp_reg[i]);
  }
  pthread_mutex_unlock(&sp_reg_lock);
  sp_sym_cache_free();
}

/* ---- automatic session ------------------------------------------------------ */

static SP_NI void sp_instrument_atexit(void) {
  if (sp_is_active()) sp_finalize();
}

static SP_NI __attribute__((constructor)) void sp_instrument_load(void) {
  sp_finalize_hook_add(sp_instrument_finalize, NULL);
  const char *a = getenv("SCOPE_PROFILER_INSTRUMENT_AUTO");
  if (a && (!strcmp(a, "0") || !strcmp(a, "off") || !strcmp(a, "no") || !strcmp(a, "false")))
    return;
  if (!sp_is_active() && sp_setup(NULL) != SP_ENOMEM) atexit(sp_instrument_atexit);
}
