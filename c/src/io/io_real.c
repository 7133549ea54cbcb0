/* io_real.c - dlsym(RTLD_NEXT) for every interposed I/O call, once.
 *
 * RTLD_NEXT from this library is the definition after ours in the search
 * order: libc's, whether the program is linked with libscope_profiler or
 * loads it with LD_PRELOAD. dlsym may allocate, and an allocation may map
 * memory (mmap, interposed too): a thread already resolving gets 0 and
 * its mmap goes to the kernel (io_posix.c). */
#include <dlfcn.h>

#include "io_real.h"

sp_io_reals_t sp__io_real;

static __thread int sp_io_resolving __attribute__((tls_model("initial-exec")));

int sp__io_resolve(void) {
  if (sp_io_resolving) return 0;
  sp_io_resolving = 1;
  int saved = errno;
  sp_io_reals_t r;
#define SP__XX(name) r.name = (__typeof__(r.name))dlsym(RTLD_NEXT, #name);
  SP_IO_REALS(SP__XX)
#undef SP__XX
  /* Entry by entry: each word is written whole, every thread finds the same. */
#define SP__XX(name) \
  if (!sp__io_real.name) __atomic_store_n(&sp__io_real.name, r.name, __ATOMIC_RELAXED);
  SP_IO_REALS(SP__XX)
#undef SP__XX
  errno = saved;
  sp_io_resolving = 0;
  return 1;
}

__attribute__((constructor)) static void sp_io_resolve_at_load(void) { sp__io_resolve(); }
