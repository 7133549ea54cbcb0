/* io_stdio.c - stdio calls on files as regions (profile_io): fopen,
 * fclose, fread, fwrite, fflush, fprintf/vfprintf, fputs, fseek/fseeko.
 *
 * A stream's file is the row of its descriptor (fileno). The stdio call
 * is recorded, not the write or read it makes underneath (glibc's own
 * calls do not reach our wrappers, and sp__io_own is held through the
 * call in any case). Bytes: fwrite and fread count x size, fprintf its
 * return value, fputs the string's length; -1 on an error. */
#include <string.h>

#include "io_calls.h"
#include "io_real.h"

#define SP_IO_EXPORT __attribute__((visibility("default")))

#define SP_IO_ON(ID) (SP_UNLIKELY(sp__io_is_on()) && !sp__io_own && sp__io_enter(&c_, SP_IO_##ID))

/* A stream's descriptor, -1 for NULL (fflush(NULL)) or a memory stream. */
static int sp_io_fd_of(FILE *fp) { return fp ? fileno(fp) : -1; }

/* The end of an access of bytes (-1 error) on fp's file at its position. */
static void sp_io_stream_done(sp_io_rec_t *c, int fd, int64_t bytes) {
  const int saved = errno;
  const int32_t row = sp__io_fd_row(fd, SP_IO_API_STDIO, bytes >= 0);
  int64_t at = -1;
  if (c->kind == SP_IO_K_READ || c->kind == SP_IO_K_WRITE) {
    at = sp__io_fd_pos(fd);
    if (at >= 0 && bytes > 0) sp__io_fd_pos_set(fd, at + bytes);
  }
  errno = saved;
  sp__io_leave(c, row, bytes, at);
}

static FILE *sp_io_fopen_done(sp_io_rec_t *c, const char *path, const char *mode, FILE *fp) {
  int32_t row = -1;
  if (fp) {
    const int saved = errno;
    row = sp__io_file_row(path, SP_IO_API_STDIO);
    sp__io_fd_set(fileno(fp), row, mode && mode[0] == 'a' ? -1 : 0);
    errno = saved;
  }
  sp__io_leave(c, row, fp ? 0 : -1, -1);
  return fp;
}

#define SP_IO_FOPEN(fn)                                          \
  SP_IO_EXPORT FILE *fn(const char *path, const char *mode) {    \
    __typeof__(&fn) real_ = SP_IO_REAL(fn);                      \
    sp_io_rec_t c_;                                              \
    if (SP_UNLIKELY(!real_)) {                                   \
      errno = ENOSYS;                                            \
      return NULL;                                               \
    }                                                            \
    if (!SP_IO_ON(FOPEN)) return real_(path, mode);              \
    return sp_io_fopen_done(&c_, path, mode, real_(path, mode)); \
  }
SP_IO_FOPEN(fopen)
SP_IO_FOPEN(fopen64)

SP_IO_EXPORT int fclose(FILE *fp) {
  sp_io_rec_t c_;
  if (!SP_IO_ON(FCLOSE)) return SP_IO_REAL(fclose)(fp);
  const int fd = sp_io_fd_of(fp);
  const int32_t row = sp__io_fd_row(fd, SP_IO_API_STDIO, 0);
  const int rc = SP_IO_REAL(fclose)(fp);
  const int saved = errno;
  if (fd >= 0) sp__io_fd_drop(fd); /* the stream is gone, its descriptor with it */
  errno = saved;
  sp__io_leave(&c_, row, rc == 0 ? 0 : -1, -1);
  return rc;
}

SP_IO_EXPORT size_t fread(void *buf, size_t size, size_t n, FILE *fp) {
  sp_io_rec_t c_;
  if (!SP_IO_ON(FREAD)) return SP_IO_REAL(fread)(buf, size, n, fp);
  const size_t r = SP_IO_REAL(fread)(buf, size, n, fp);
  sp_io_stream_done(&c_, sp_io_fd_of(fp),
                    r == 0 && n > 0 && size > 0 && ferror(fp) ? -1 : (int64_t)(r * size));
  return r;
}

SP_IO_EXPORT size_t fwrite(const void *buf, size_t size, size_t n, FILE *fp) {
  sp_io_rec_t c_;
  if (!SP_IO_ON(FWRITE)) return SP_IO_REAL(fwrite)(buf, size, n, fp);
  const size_t r = SP_IO_REAL(fwrite)(buf, size, n, fp);
  sp_io_stream_done(&c_, sp_io_fd_of(fp), r < n && ferror(fp) && r == 0 ? -1 : (int64_t)(r * size));
  return r;
}

SP_IO_EXPORT int fflush(FILE *fp) {
  sp_io_rec_t c_;
  if (!SP_IO_ON(FFLUSH)) return SP_IO_REAL(fflush)(fp);
  const int r = SP_IO_REAL(fflush)(fp);
  sp_io_stream_done(&c_, sp_io_fd_of(fp), r == 0 ? 0 : -1);
  return r;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral" /* the program's own format */
SP_IO_EXPORT int vfprintf(FILE *fp, const char *fmt, va_list ap) {
  sp_io_rec_t c_;
  if (!SP_IO_ON(FPRINTF)) return SP_IO_REAL(vfprintf)(fp, fmt, ap);
  const int r = SP_IO_REAL(vfprintf)(fp, fmt, ap);
  sp_io_stream_done(&c_, sp_io_fd_of(fp), r < 0 ? -1 : r);
  return r;
}

SP_IO_EXPORT int fprintf(FILE *fp, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int r = vfprintf(fp, fmt, ap);
  va_end(ap);
  return r;
}
#pragma GCC diagnostic pop

SP_IO_EXPORT int fputs(const char *s, FILE *fp) {
  sp_io_rec_t c_;
  if (!SP_IO_ON(FPUTS)) return SP_IO_REAL(fputs)(s, fp);
  const int r = SP_IO_REAL(fputs)(s, fp);
  sp_io_stream_done(&c_, sp_io_fd_of(fp), r < 0 ? -1 : (int64_t)strlen(s));
  return r;
}

#define SP_IO_FSEEK(fn, OFF)                                             \
  SP_IO_EXPORT int fn(FILE *fp, OFF off, int whence) {                   \
    sp_io_rec_t c_;                                                      \
    if (!SP_IO_ON(FSEEK)) return SP_IO_REAL(fn)(fp, off, whence);        \
    const int r = SP_IO_REAL(fn)(fp, off, whence);                       \
    const int saved = errno;                                             \
    if (r == 0) sp__io_fd_pos_set(sp_io_fd_of(fp), (int64_t)ftello(fp)); \
    errno = saved;                                                       \
    sp_io_stream_done(&c_, sp_io_fd_of(fp), r == 0 ? 0 : -1);            \
    return r;                                                            \
  }
SP_IO_FSEEK(fseek, long)
SP_IO_FSEEK(fseeko, off_t)
SP_IO_FSEEK(fseeko64, off64_t)
