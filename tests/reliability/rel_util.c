/* rel_util.c - see rel_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "rel_util.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int rel_saved_fd = -1;
static FILE *rel_tmp;

void rel_stderr_begin(void) {
  fflush(stderr);
  rel_tmp = tmpfile();
  REL_ASSERT(rel_tmp != NULL);
  rel_saved_fd = dup(2);
  REL_ASSERT(rel_saved_fd >= 0);
  REL_ASSERT(dup2(fileno(rel_tmp), 2) == 2);
}

char *rel_stderr_end(void) {
  fflush(stderr);
  REL_ASSERT(rel_saved_fd >= 0);
  dup2(rel_saved_fd, 2);
  close(rel_saved_fd);
  rel_saved_fd = -1;
  long len = ftell(rel_tmp);
  if (len < 0) len = 0;
  char *text = malloc((size_t)len + 1);
  REL_ASSERT(text != NULL);
  rewind(rel_tmp);
  size_t got = fread(text, 1, (size_t)len, rel_tmp);
  text[got] = '\0';
  fclose(rel_tmp);
  rel_tmp = NULL;
  fputs(text, stderr);
  return text;
}

int rel_count(const char *hay, const char *needle) {
  int n = 0;
  size_t len = strlen(needle);
  for (const char *p = strstr(hay, needle); p; p = strstr(p + len, needle)) n++;
  return n;
}

void rel_expect_msg(const char *text, const char *needle, int times) {
  int n = rel_count(text, needle);
  if (times < 0 ? n == 0 : n != times) {
    fprintf(stderr, "expected %s%d time(s) on stderr, found %d: \"%s\"\n",
            times < 0 ? "at least " : "", times < 0 ? 1 : times, n, needle);
    exit(1);
  }
}

int rel_file_exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

static void rel_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

void rel_expect_write(const char *tag, int rank, const char *const *names, const long long *counts,
                      int n) {
  char path[512];
  snprintf(path, sizeof path, "%s.expect.rank%d.json", tag, rank);
  FILE *f = fopen(path, "w");
  REL_ASSERT(f != NULL);
  fputc('{', f);
  for (int i = 0; i < n; i++) {
    if (i) fputs(", ", f);
    rel_json_string(f, names[i]);
    fprintf(f, ": %lld", counts[i]);
  }
  fputs("}\n", f);
  REL_ASSERT(fclose(f) == 0);
}
