/* name_encoding.c - region names to HDF5 link names and back.
 *
 * HDF5 link names cannot contain '/' and "." names the group itself, so
 * '%' -> "%25", '/' -> "%2F", NUL -> "%00" and a name that is exactly "."
 * -> "%2E"; all other bytes (spaces, dots, UTF-8) are kept. Only the
 * encoding is here: the reader decodes every %XX back into its byte
 * (sp_reader_name_decode, postproc/src/reader_errors.c). */
#include <string.h>

#include "sp_internal.h"

/* Writes the encoded name (NUL-terminated) to out if it fits; returns the
 * encoded length (without NUL) either way. */
size_t sp__link_name_encode(const char *name, size_t len, char *out, size_t cap) {
  static const char hex[] = "0123456789ABCDEF";
  size_t o = 0;
  if (len == 1 && name[0] == '.') {
    if (cap > 3) memcpy(out, "%2E", 4);
    return 3;
  }
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)name[i];
    if (c == '%' || c == '/' || c == '\0') {
      if (o + 3 < cap) {
        out[o] = '%';
        out[o + 1] = hex[c >> 4];
        out[o + 2] = hex[c & 15];
      }
      o += 3;
    } else {
      if (o + 1 < cap) out[o] = (char)c;
      o++;
    }
  }
  if (o < cap) out[o] = '\0';
  return o;
}

int sp__utf8_ok(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s, *end = p + n;
  while (p < end) {
    unsigned c = *p++;
    if (c == 0) return 0;
    if (c < 0x80) continue;
    int more;
    unsigned min;
    if ((c & 0xE0) == 0xC0) {
      more = 1, min = 0x80, c &= 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      more = 2, min = 0x800, c &= 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      more = 3, min = 0x10000, c &= 0x07;
    } else {
      return 0;
    }
    if (end - p < more) return 0;
    for (int i = 0; i < more; i++) {
      if ((p[i] & 0xC0) != 0x80) return 0;
      c = (c << 6) | (p[i] & 0x3F);
    }
    p += more;
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  }
  return 1;
}
