/* reader_errors.c - error codes, messages, version and name decoding of the reader. */
#include <stdarg.h>
#include <stdio.h>

#include "reader_internal.h"

unsigned sp_reader_version_number(void) { return SP_READER_VERSION_NUMBER; }

const char *sp_reader_version_string(void) { return SP_READER_VERSION_STRING; }

const char *sp_reader_strerror(int err) {
  switch (err) {
#define SP_READER__XX(name, value, text) \
  case value:                            \
    return text;
    SP_READER_ERRNO_MAP(SP_READER__XX)
#undef SP_READER__XX
  case 0:
    return "success";
  default:
    return "unknown error";
  }
}

const char *sp_reader_err_name(int err) {
  switch (err) {
#define SP_READER__XX(name, value, text) \
  case value:                            \
    return "SP_READER_" #name;
    SP_READER_ERRNO_MAP(SP_READER__XX)
#undef SP_READER__XX
  case 0:
    return "SP_READER_OK";
  default:
    return "SP_READER_UNKNOWN";
  }
}

int sp__reader_fail(sp_reader_t *r, int err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->errmsg, sizeof r->errmsg, fmt, ap);
  va_end(ap);
  return err;
}

const char *sp_reader_errmsg(const sp_reader_t *r) { return r ? r->errmsg : ""; }

void sp__h5_quiet_begin(sp_h5_quiet_t *q) {
  H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void sp__h5_quiet_end(const sp_h5_quiet_t *q) { H5Eset_auto2(H5E_DEFAULT, q->func, q->data); }

static int sp_hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

size_t sp_reader_name_decode(const char *link, char *out, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; link[i] != '\0'; i++) {
    char c = link[i];
    if (c == '%') {
      int hi = sp_hex_value(link[i + 1]);
      int lo = hi >= 0 ? sp_hex_value(link[i + 2]) : -1;
      if (hi >= 0 && lo >= 0) {
        c = (char)(hi * 16 + lo);
        i += 2;
      }
    }
    if (o + 1 < cap) out[o] = c;
    o++;
  }
  if (cap > 0) out[o < cap ? o : cap - 1] = '\0';
  return o;
}
