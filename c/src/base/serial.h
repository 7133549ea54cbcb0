/* serial.h - the one serializer of the library: a growing buffer to write
 * values into and a bounded reader to take them out again, for the blobs
 * ranks exchange at finalize (plans, plan.c; LIKWID results, likwid_glue.c).
 * Host byte order: writer and reader are the same library on one job's
 * machines. Errors are sticky: after one, writes are dropped and reads
 * give zeros, and the caller checks `failed` once at the end. */
#ifndef SP_SERIAL_H
#define SP_SERIAL_H

#include <stddef.h>
#include <stdint.h>

#include "sp_internal.h"

typedef struct sp_buf {
  char *p; /* malloc'd; the caller frees it */
  size_t n, cap;
  int failed; /* out of memory */
} sp_buf_t;

SP_HIDDEN void sp__buf_put(sp_buf_t *b, const void *v, size_t len);
SP_HIDDEN void sp__buf_i64(sp_buf_t *b, int64_t v);
SP_HIDDEN void sp__buf_f64(sp_buf_t *b, double v);
/* len bytes (any, NUL included), preceded by their count. */
SP_HIDDEN void sp__buf_bytes(sp_buf_t *b, const char *s, size_t len);
/* A NUL-terminated string, as sp__buf_bytes. */
SP_HIDDEN void sp__buf_str(sp_buf_t *b, const char *s);

typedef struct sp_rd {
  const char *p, *end;
  int failed; /* read past the end, or out of memory */
  int nomem;  /* of those: out of memory */
} sp_rd_t;

SP_HIDDEN void sp__rd_get(sp_rd_t *r, void *v, size_t len);
SP_HIDDEN int64_t sp__rd_i64(sp_rd_t *r);
SP_HIDDEN double sp__rd_f64(sp_rd_t *r);
/* What sp__buf_bytes wrote: a malloc'd copy with a NUL after it, its
 * length in *len (if len); NULL on failure. */
SP_HIDDEN char *sp__rd_bytes(sp_rd_t *r, size_t *len);

#endif
