/* serial.c - the one serializer (serial.h). */
#include "serial.h"

#include <stdlib.h>
#include <string.h>

void sp__buf_put(sp_buf_t *b, const void *v, size_t len) {
  if (b->failed) return;
  if (b->n + len > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 4096;
    while (cap < b->n + len) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->failed = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  if (len) memcpy(b->p + b->n, v, len);
  b->n += len;
}

void sp__buf_i64(sp_buf_t *b, int64_t v) { sp__buf_put(b, &v, sizeof v); }

void sp__buf_f64(sp_buf_t *b, double v) { sp__buf_put(b, &v, sizeof v); }

void sp__buf_bytes(sp_buf_t *b, const char *s, size_t len) {
  sp__buf_i64(b, (int64_t)len);
  sp__buf_put(b, s, len);
}

void sp__buf_str(sp_buf_t *b, const char *s) { sp__buf_bytes(b, s, strlen(s)); }

void sp__rd_get(sp_rd_t *r, void *v, size_t len) {
  if (r->failed || (size_t)(r->end - r->p) < len) {
    r->failed = 1;
    memset(v, 0, len);
    return;
  }
  memcpy(v, r->p, len);
  r->p += len;
}

int64_t sp__rd_i64(sp_rd_t *r) {
  int64_t v;
  sp__rd_get(r, &v, sizeof v);
  return v;
}

double sp__rd_f64(sp_rd_t *r) {
  double v;
  sp__rd_get(r, &v, sizeof v);
  return v;
}

char *sp__rd_bytes(sp_rd_t *r, size_t *len) {
  int64_t n = sp__rd_i64(r);
  if (r->failed || n < 0 || n > r->end - r->p) {
    r->failed = 1;
    return NULL;
  }
  char *s = malloc((size_t)n + 1);
  if (!s) {
    r->failed = r->nomem = 1;
    return NULL;
  }
  memcpy(s, r->p, (size_t)n);
  s[n] = '\0';
  r->p += n;
  if (len) *len = (size_t)n;
  return s;
}
