/* io_real.h - the next definitions of the interposed calls (io_real.c).
 *
 * Each wrapper calls sp__io_real.<name>, found with dlsym(RTLD_NEXT) once:
 * at load (a constructor) or at the first call before it (another
 * library's constructor). A call made while dlsym itself runs (its
 * allocation reaching mmap) goes to the kernel directly (io_posix.c). */
#ifndef SP_IO_REAL_H
#define SP_IO_REAL_H

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sp_internal.h"

/* clang-format off */
#define SP_IO_REALS(XX)                                                         \
  XX(open) XX(open64) XX(openat) XX(openat64) XX(creat) XX(creat64) XX(close)   \
  XX(read) XX(write) XX(pread) XX(pread64) XX(pwrite) XX(pwrite64)              \
  XX(readv) XX(writev) XX(preadv) XX(preadv64) XX(pwritev) XX(pwritev64)        \
  XX(lseek) XX(lseek64) XX(fsync) XX(fdatasync) XX(ftruncate) XX(ftruncate64)   \
  XX(mmap) XX(mmap64)                                                           \
  XX(fopen) XX(fopen64) XX(fclose) XX(fread) XX(fwrite) XX(fflush)              \
  XX(vfprintf) XX(fputs) XX(fseek) XX(fseeko) XX(fseeko64)
/* clang-format on */

typedef struct sp_io_reals {
#define SP__XX(name) __typeof__(&name) name;
  SP_IO_REALS(SP__XX)
#undef SP__XX
} sp_io_reals_t;

extern SP_HIDDEN sp_io_reals_t sp__io_real;

/* Resolves every entry still NULL; 0 when this thread is inside that
 * already (dlsym's own allocation), then the caller uses the kernel. */
SP_HIDDEN int sp__io_resolve(void);

/* The next definition of name, resolved on first use; NULL while resolving. */
#define SP_IO_REAL(name) \
  (SP_LIKELY(sp__io_real.name != NULL) || sp__io_resolve() ? sp__io_real.name : NULL)

#endif
