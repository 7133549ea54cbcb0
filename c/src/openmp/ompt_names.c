/* ompt_names.c - the regions of the OpenMP tool's constructs.
 *
 * A construct's region is named by what it is and where it is in the
 * program, from the code pointer the runtime reports: "omp parallel @
 * solver.c:120" from the object's debug information (ompt_lines.c), else
 * "omp parallel @ solve+0x4a" (the exported function holding it), else
 * "omp parallel @ a.out+0x1239" (the object and the offset in it). Each thread
 * caches (construct, code pointer) -> handle in its own table, tagged with
 * the session: the callbacks take no lock; the first sight of a construct
 * on a thread in a session registers the name (sp_region takes the
 * registry's lock, once). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompt_lines.h"
#include "ompt_names.h"

static const char *const sp_omp_names[SP_OMP_NKINDS] = {
#define SP__XX(id, name) name,
    SP_OMP_KINDS(SP__XX)
#undef SP__XX
};

/* Where cp is, "file.c:120" from the debug information, else the
 * function and offset, else the object and offset. */
static void sp_omp_where_find(const void *cp, char *out, size_t cap) {
  Dl_info info;
  if (!dladdr(cp, &info)) {
    snprintf(out, cap, "%p", cp);
    return;
  }
  /* The program itself: dladdr names it by argv[0], not by a path. */
  const char *object = info.dli_fname;
  if (object && !strchr(object, '/')) object = NULL;
  if (info.dli_fbase && sp__omp_line(object, (uintptr_t)info.dli_fbase, (uintptr_t)cp, out, cap))
    return;
  if (info.dli_sname && info.dli_saddr) {
    snprintf(out, cap, "%s+0x%lx", info.dli_sname,
             (unsigned long)((const char *)cp - (const char *)info.dli_saddr));
  } else if (info.dli_fname && info.dli_fbase) {
    const char *base = strrchr(info.dli_fname, '/');
    snprintf(out, cap, "%s+0x%lx", base ? base + 1 : info.dli_fname,
             (unsigned long)((const char *)cp - (const char *)info.dli_fbase));
  } else {
    snprintf(out, cap, "%p", cp);
  }
}

/* The places found so far, once per code pointer in the process: reading
 * the line table takes milliseconds in a large program. Under a lock: a
 * thread's first sight of a construct in a session. Kept until the
 * process ends (one entry per construct of the program). */
typedef struct sp_omp_where {
  const void *cp;
  char *where;
} sp_omp_where_t;
static pthread_mutex_t sp_omp_where_lock = PTHREAD_MUTEX_INITIALIZER;
static sp_omp_where_t *sp_omp_wheres;
static size_t sp_omp_nwheres, sp_omp_where_cap;

static void sp_omp_where(const void *cp, char *out, size_t cap) {
  pthread_mutex_lock(&sp_omp_where_lock);
  for (size_t i = 0; i < sp_omp_nwheres; i++)
    if (sp_omp_wheres[i].cp == cp) {
      snprintf(out, cap, "%s", sp_omp_wheres[i].where);
      pthread_mutex_unlock(&sp_omp_where_lock);
      return;
    }
  sp_omp_where_find(cp, out, cap);
  if (sp_omp_nwheres == sp_omp_where_cap) {
    size_t n = sp_omp_where_cap ? 2 * sp_omp_where_cap : 64;
    sp_omp_where_t *w = realloc(sp_omp_wheres, n * sizeof *w);
    if (w) sp_omp_wheres = w, sp_omp_where_cap = n;
  }
  char *copy = sp_omp_nwheres < sp_omp_where_cap ? strdup(out) : NULL;
  if (copy) sp_omp_wheres[sp_omp_nwheres++] = (sp_omp_where_t){cp, copy};
  pthread_mutex_unlock(&sp_omp_where_lock);
}

/* "<construct> @ <where>" for cp into out. */
static void sp_omp_name(sp_omp_kind_t kind, const void *cp, char *out, size_t cap) {
  char where[512];
  if (!cp) {
    snprintf(out, cap, "%s", sp_omp_names[kind]);
    return;
  }
  sp_omp_where(cp, where, sizeof where);
  snprintf(out, cap, "%s @ %s", sp_omp_names[kind], where);
}

static __attribute__((noinline)) int32_t sp_omp_register(sp_omp_slot_t *s, sp_omp_kind_t kind,
                                                         const void *cp, unsigned session) {
  char name[SP_NAME_MAX + 1];
  int saved_errno = errno;
  sp_omp_name(kind, cp, name, sizeof name);
  int h = sp_region(name);
  errno = saved_errno;
  if (h < 0) return -1;
  s->cp = cp;
  s->kind = (uint16_t)kind;
  s->h = h;
  s->session = session;
  return h;
}

int32_t sp__omp_handle(sp_omp_thread_t *t, sp_omp_kind_t kind, const void *cp) {
  const unsigned session = sp__session;
  uintptr_t key = (uintptr_t)cp ^ ((uintptr_t)kind << 56);
  size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 56) & (SP_OMP_CACHE - 1);
  for (size_t probe = 0; probe < 8; probe++, i = (i + 1) & (SP_OMP_CACHE - 1)) {
    sp_omp_slot_t *s = &t->cache[i];
    if (SP_LIKELY(s->session == session && s->cp == cp && s->kind == kind)) return s->h;
    if (s->session != session) return sp_omp_register(s, kind, cp, session);
  }
  /* Eight slots of this session in a row: the first is replaced. */
  return sp_omp_register(
      &t->cache[(size_t)((key * 0x9E3779B97F4A7C15ull) >> 56) & (SP_OMP_CACHE - 1)], kind, cp,
      session);
}
