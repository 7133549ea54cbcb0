/* html_json.c - the report's JSON text: strings safe inside <script> and
 * base64 bytes, for every part that writes the report's data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

/* A JSON string safe inside <script>: sp_text_put's JSON escaping, and
 * '<', '>', '&' as \u00XX so a name cannot close the script element. */
void sp_html_json_str(FILE *f, const char *s) {
  size_t len = strlen(s);
  char *buf = malloc(len + 1);
  fputc('"', f);
  if (buf) {
    memcpy(buf, s, len + 1);
    char *seg = buf;
    for (char *p = buf;; p++) {
      char ch = *p;
      if (ch != '<' && ch != '>' && ch != '&' && ch != '\0') continue;
      *p = '\0';
      sp_text_put(f, seg, SP_TEXT_JSON);
      if (ch == '\0') break;
      fprintf(f, "\\u%04x", (unsigned)(unsigned char)ch);
      seg = p + 1;
    }
    free(buf);
  }
  fputc('"', f);
}

void sp_html_base64(FILE *f, const unsigned char *b, size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    unsigned v = (unsigned)b[i] << 16 | (unsigned)b[i + 1] << 8 | b[i + 2];
    fputc(tab[v >> 18], f), fputc(tab[(v >> 12) & 63], f);
    fputc(tab[(v >> 6) & 63], f), fputc(tab[v & 63], f);
  }
  if (i < n) {
    unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0);
    fputc(tab[v >> 18], f), fputc(tab[(v >> 12) & 63], f);
    fputc(i + 1 < n ? tab[(v >> 6) & 63] : '=', f), fputc('=', f);
  }
}
