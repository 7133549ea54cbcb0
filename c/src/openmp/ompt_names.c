/* ompt_names.c - the regions of the OpenMP tool's constructs.
 *
 * A construct's region is named by what it is and where it is in the
 * program: "omp parallel @ solve+0x4a" (the function holding the code
 * pointer the runtime reports, from the dynamic symbols), else
 * "omp parallel @ a.out+0x1239" (the object and the offset in it, which
 * `addr2line -e a.out 0x1238` turns into a file and line). Each thread
 * caches (construct, code pointer) -> handle in its own table, tagged with
 * the session: the callbacks take no lock; the first sight of a construct
 * on a thread in a session registers the name (sp_region takes the
 * registry's lock, once). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompt_names.h"

static const char *const sp_omp_names[SP_OMP_NKINDS] = {
#define SP__XX(id, name) name,
    SP_OMP_KINDS(SP__XX)
#undef SP__XX
};

/* "<construct> @ <where>" for cp into out. */
static void sp_omp_name(sp_omp_kind_t kind, const void *cp, char *out, size_t cap) {
  Dl_info info;
  const char *what = sp_omp_names[kind];
  if (!cp) {
    snprintf(out, cap, "%s", what);
  } else if (dladdr(cp, &info) && info.dli_sname && info.dli_saddr) {
    snprintf(out, cap, "%s @ %s+0x%lx", what, info.dli_sname,
             (unsigned long)((const char *)cp - (const char *)info.dli_saddr));
  } else if (info.dli_fname && info.dli_fbase) {
    const char *base = strrchr(info.dli_fname, '/');
    snprintf(out, cap, "%s @ %s+0x%lx", what, base ? base + 1 : info.dli_fname,
             (unsigned long)((const char *)cp - (const char *)info.dli_fbase));
  } else {
    snprintf(out, cap, "%s @ %p", what, cp);
  }
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
