/* text_safe.c - names from the file written so that every output stays valid.
 *
 * Region names are bytes: the C API takes any name, and a damaged or
 * foreign file may hold anything. Outputs must stay valid UTF-8 (JSON,
 * PLplot's text, terminals) and keep their structure (a newline in a name
 * must not start a new row of --list). A byte that does not belong to a
 * valid UTF-8 sequence is written as the four characters \xNN (lower-case
 * hex, as Python's errors="backslashreplace"); valid UTF-8 passes unchanged. */
#include <stdio.h>
#include <string.h>

#include "pproc.h"

size_t sp_utf8_seq(const unsigned char *s) {
  unsigned char c = s[0];
  if (c < 0x80) return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
  if (c >= 0xC2 && c <= 0xDF)
    len = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0)
      lo = 0xA0; /* no overlong forms */
    else if (c == 0xED)
      hi = 0x9F; /* no UTF-16 surrogates */
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0)
      lo = 0x90;
    else if (c == 0xF4)
      hi = 0x8F; /* nothing above U+10FFFF */
  } else {
    return 0;
  }
  if (s[1] < lo || s[1] > hi) return 0;
  for (size_t i = 2; i < len; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  return len;
}

void sp_text_put(FILE *f, const char *text, int mode) {
  const unsigned char *s = (const unsigned char *)text;
  while (*s) {
    size_t len = sp_utf8_seq(s);
    unsigned char c = *s;
    if (len == 0) {
      fprintf(f, mode == SP_TEXT_JSON ? "\\\\x%02x" : "\\x%02x", c);
      len = 1;
    } else if (mode == SP_TEXT_JSON && (c == '"' || c == '\\')) {
      fprintf(f, "\\%c", c);
    } else if (mode == SP_TEXT_JSON && c < 0x20) {
      fprintf(f, "\\u%04x", c);
    } else if (mode == SP_TEXT_PLAIN && (c < 0x20 || c == 0x7F)) {
      fprintf(f, "\\x%02x", c);
    } else if (mode == SP_TEXT_CSV && c == '"') {
      fputs("\"\"", f);
    } else {
      fwrite(s, 1, len, f);
    }
    s += len;
  }
}

void sp_plot_text(const char *text, char *out, size_t cap, int max_chars) {
  size_t o = 0;
  int chars = 0;
  for (const unsigned char *s = (const unsigned char *)text; *s;) {
    char piece[8];
    size_t len = sp_utf8_seq(s), plen = len;
    if (len == 0) {
      plen = (size_t)snprintf(piece, sizeof piece, "\\x%02x", *s);
      len = 1;
    } else if (*s < 0x20 || *s == 0x7F) {
      piece[0] = ' ';
    } else if (*s == '#') {
      memcpy(piece, "##", 2); /* PLplot's escape character */
    } else {
      memcpy(piece, s, len);
    }
    if (chars == max_chars) {
      memcpy(out + o, "...", 3);
      o += 3;
      break;
    }
    if (o + plen + 4 > cap) break; /* keep room for "..." and the NUL */
    memcpy(out + o, piece, plen);
    o += plen;
    chars++;
    s += len;
  }
  out[o] = '\0';
}
