/* io_posix.c - POSIX I/O calls as regions (profile_io): open, openat,
 * creat, close, read, write, pread, pwrite, readv, writev, preadv,
 * pwritev, lseek, fsync, fdatasync, ftruncate and their 64-bit variants;
 * mmap of a file counted in its record, not timed.
 *
 * Off (sp__io_on 0) or inside the library's own I/O a wrapper forwards at
 * once. On, it forwards between sp__io_enter and sp__io_leave: the call's
 * bytes are its return value as the program sees it (-1 on an error, 0 for
 * the metadata calls), its file the row of its descriptor. */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "io_calls.h"
#include "io_real.h"

#define SP_IO_EXPORT __attribute__((visibility("default")))
#define SP_IO_AT_POS (-2) /* the access is at the descriptor's position */

/* The real call, or ENOSYS when there is none (a static program). */
#define SP_IO_BEGIN(ID, fn, ...)                                                  \
  __typeof__(&fn) real_ = SP_IO_REAL(fn);                                         \
  if (SP_UNLIKELY(!real_)) {                                                      \
    errno = ENOSYS;                                                               \
    return -1;                                                                    \
  }                                                                               \
  sp_io_rec_t c_;                                                                 \
  if (SP_LIKELY(!sp__io_is_on()) || sp__io_own || !sp__io_enter(&c_, SP_IO_##ID)) \
  return real_(__VA_ARGS__)

/* The end of a call on descriptor fd: ret its return value, off the offset
 * of its access (SP_IO_AT_POS: the descriptor's position, advanced). */
static void sp_io_fd_done(sp_io_rec_t *c, int fd, int64_t ret, int64_t off) {
  const int saved = errno;
  const int32_t row = sp__io_fd_row(fd, c->api, ret >= 0); /* EBADF makes no row */
  int64_t at = off;
  if (off == SP_IO_AT_POS) {
    at = sp__io_fd_pos(fd);
    if (at >= 0 && ret > 0) sp__io_fd_pos_set(fd, at + ret);
  }
  const int64_t bytes = ret < 0                                               ? -1
                        : c->kind == SP_IO_K_READ || c->kind == SP_IO_K_WRITE ? ret
                                                                              : 0;
  errno = saved;
  sp__io_leave(c, row, bytes, at);
}

static int sp_io_open_done(sp_io_rec_t *c, const char *path, int flags, int fd) {
  int32_t row = -1;
  if (fd >= 0) {
    const int saved = errno;
    row = sp__io_file_row(path, SP_IO_API_POSIX);
    sp__io_fd_set(fd, row, (flags & O_APPEND) ? -1 : 0);
    errno = saved;
  }
  sp__io_leave(c, row, fd >= 0 ? 0 : -1, -1);
  return fd;
}

static mode_t sp_io_mode(int flags, va_list ap) {
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

#define SP_IO_OPEN(fn)                                                  \
  SP_IO_EXPORT int fn(const char *path, int flags, ...) {               \
    va_list ap;                                                         \
    va_start(ap, flags);                                                \
    const mode_t mode = sp_io_mode(flags, ap);                          \
    va_end(ap);                                                         \
    SP_IO_BEGIN(OPEN, fn, path, flags, mode);                           \
    return sp_io_open_done(&c_, path, flags, real_(path, flags, mode)); \
  }
#define SP_IO_OPENAT(fn)                                                     \
  SP_IO_EXPORT int fn(int dir, const char *path, int flags, ...) {           \
    va_list ap;                                                              \
    va_start(ap, flags);                                                     \
    const mode_t mode = sp_io_mode(flags, ap);                               \
    va_end(ap);                                                              \
    SP_IO_BEGIN(OPENAT, fn, dir, path, flags, mode);                         \
    return sp_io_open_done(&c_, path, flags, real_(dir, path, flags, mode)); \
  }
#define SP_IO_CREAT(fn)                                                                 \
  SP_IO_EXPORT int fn(const char *path, mode_t mode) {                                  \
    SP_IO_BEGIN(CREAT, fn, path, mode);                                                 \
    return sp_io_open_done(&c_, path, O_CREAT | O_WRONLY | O_TRUNC, real_(path, mode)); \
  }
SP_IO_OPEN(open)
SP_IO_OPEN(open64)
SP_IO_OPENAT(openat)
SP_IO_OPENAT(openat64)
SP_IO_CREAT(creat)
SP_IO_CREAT(creat64)

SP_IO_EXPORT int close(int fd) {
  SP_IO_BEGIN(CLOSE, close, fd);
  const int saved0 = errno;
  const int32_t row = sp__io_fd_row(fd, SP_IO_API_POSIX, 0);
  errno = saved0;
  const int rc = real_(fd);
  const int saved = errno;
  if (rc == 0) sp__io_fd_drop(fd);
  errno = saved;
  sp__io_leave(&c_, rc == 0 ? row : -1, rc == 0 ? 0 : -1, -1);
  return rc;
}

/* read and write: at the descriptor's position. */
SP_IO_EXPORT ssize_t read(int fd, void *buf, size_t n) {
  SP_IO_BEGIN(READ, read, fd, buf, n);
  const ssize_t r = real_(fd, buf, n);
  sp_io_fd_done(&c_, fd, r, SP_IO_AT_POS);
  return r;
}

SP_IO_EXPORT ssize_t write(int fd, const void *buf, size_t n) {
  SP_IO_BEGIN(WRITE, write, fd, buf, n);
  const ssize_t r = real_(fd, buf, n);
  sp_io_fd_done(&c_, fd, r, SP_IO_AT_POS);
  return r;
}

SP_IO_EXPORT ssize_t readv(int fd, const struct iovec *iov, int n) {
  SP_IO_BEGIN(READV, readv, fd, iov, n);
  const ssize_t r = real_(fd, iov, n);
  sp_io_fd_done(&c_, fd, r, SP_IO_AT_POS);
  return r;
}

SP_IO_EXPORT ssize_t writev(int fd, const struct iovec *iov, int n) {
  SP_IO_BEGIN(WRITEV, writev, fd, iov, n);
  const ssize_t r = real_(fd, iov, n);
  sp_io_fd_done(&c_, fd, r, SP_IO_AT_POS);
  return r;
}

/* The positioned forms: at the offset given. */
#define SP_IO_PRW(ID, fn, CONST, OFF)                                   \
  SP_IO_EXPORT ssize_t fn(int fd, CONST void *buf, size_t n, OFF off) { \
    SP_IO_BEGIN(ID, fn, fd, buf, n, off);                               \
    const ssize_t r = real_(fd, buf, n, off);                           \
    sp_io_fd_done(&c_, fd, r, (int64_t)off);                            \
    return r;                                                           \
  }
#define SP_IO_PRWV(ID, fn, OFF)                                              \
  SP_IO_EXPORT ssize_t fn(int fd, const struct iovec *iov, int n, OFF off) { \
    SP_IO_BEGIN(ID, fn, fd, iov, n, off);                                    \
    const ssize_t r = real_(fd, iov, n, off);                                \
    sp_io_fd_done(&c_, fd, r, (int64_t)off);                                 \
    return r;                                                                \
  }
SP_IO_PRW(PREAD, pread, , off_t)
SP_IO_PRW(PREAD, pread64, , off64_t)
SP_IO_PRW(PWRITE, pwrite, const, off_t)
SP_IO_PRW(PWRITE, pwrite64, const, off64_t)
SP_IO_PRWV(PREADV, preadv, off_t)
SP_IO_PRWV(PREADV, preadv64, off64_t)
SP_IO_PRWV(PWRITEV, pwritev, off_t)
SP_IO_PRWV(PWRITEV, pwritev64, off64_t)

#define SP_IO_LSEEK(fn, OFF)                         \
  SP_IO_EXPORT OFF fn(int fd, OFF off, int whence) { \
    SP_IO_BEGIN(LSEEK, fn, fd, off, whence);         \
    const OFF r = real_(fd, off, whence);            \
    const int saved = errno;                         \
    if (r >= 0) sp__io_fd_pos_set(fd, (int64_t)r);   \
    errno = saved;                                   \
    sp_io_fd_done(&c_, fd, r < 0 ? -1 : 0, -1);      \
    return r;                                        \
  }
SP_IO_LSEEK(lseek, off_t)
SP_IO_LSEEK(lseek64, off64_t)

#define SP_IO_FD_META(ID, fn)      \
  SP_IO_EXPORT int fn(int fd) {    \
    SP_IO_BEGIN(ID, fn, fd);       \
    const int r = real_(fd);       \
    sp_io_fd_done(&c_, fd, r, -1); \
    return r;                      \
  }
SP_IO_FD_META(FSYNC, fsync)
SP_IO_FD_META(FDATASYNC, fdatasync)

#define SP_IO_FTRUNCATE(fn, OFF)         \
  SP_IO_EXPORT int fn(int fd, OFF len) { \
    SP_IO_BEGIN(FTRUNCATE, fn, fd, len); \
    const int r = real_(fd, len);        \
    sp_io_fd_done(&c_, fd, r, -1);       \
    return r;                            \
  }
SP_IO_FTRUNCATE(ftruncate, off_t)
SP_IO_FTRUNCATE(ftruncate64, off64_t)

/* mmap: counted in the file's record, not timed (the accesses are loads
 * and stores). While dlsym itself maps memory, the kernel's call. */
#define SP_IO_MMAP(fn, OFF)                                                                  \
  SP_IO_EXPORT void *fn(void *addr, size_t len, int prot, int flags, int fd, OFF off) {      \
    __typeof__(&fn) real_ = sp__io_real.fn || sp__io_resolve() ? sp__io_real.fn : NULL;      \
    if (SP_UNLIKELY(!real_))                                                                 \
      return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, (off_t)off);              \
    void *p = real_(addr, len, prot, flags, fd, off);                                        \
    if (SP_UNLIKELY(sp__io_is_on()) && !sp__io_own && fd >= 0 && !(flags & MAP_ANONYMOUS) && \
        p != MAP_FAILED) {                                                                   \
      const int saved = errno;                                                               \
      sp__io_own++;                                                                          \
      sp__io_file_mmap(sp__io_fd_row(fd, SP_IO_API_POSIX, 1));                               \
      sp__io_own--;                                                                          \
      errno = saved;                                                                         \
    }                                                                                        \
    return p;                                                                                \
  }
SP_IO_MMAP(mmap, off_t)
SP_IO_MMAP(mmap64, off64_t)
