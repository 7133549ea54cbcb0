/* sp_test_util.c - see sp_test_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "sp_test_util.h"

#include <dirent.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int sp_test_rank = -1;
static void (*sp_test_handler)(int code);

void sp_test_set_rank(int rank) { sp_test_rank = rank; }

void sp_test_on_failure(void (*handler)(int code)) { sp_test_handler = handler; }

void sp_test_fail(const char *file, int line, const char *fmt, ...) {
  fflush(stdout);
  fprintf(stderr, "%s:%d: ", file, line);
  if (sp_test_rank >= 0) fprintf(stderr, "rank %d: ", sp_test_rank);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  if (sp_test_handler) sp_test_handler(1);
  exit(1);
}

/* ---- expectations ------------------------------------------------------ */

void sp_test_expect_add(sp_test_expect_t *e, const char *name, long long calls) {
  for (int i = 0; i < e->n; i++)
    if (strcmp(e->names[i], name) == 0) {
      e->counts[i] += calls;
      return;
    }
  ASSERT(e->n < SP_TEST_EXPECT_MAX);
  e->names[e->n] = name;
  e->counts[e->n++] = calls;
}

static void sp_test_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

void sp_test_expect_write_table(const char *tag, int rank, const char *const *names,
                                const long long *counts, int n) {
  char path[512];
  snprintf(path, sizeof path, "%s.expect.rank%d.json", tag, rank);
  FILE *f = fopen(path, "w");
  if (!f) sp_test_fail(__FILE__, __LINE__, "cannot create %s", path);
  fputc('{', f);
  for (int i = 0; i < n; i++) {
    if (i) fputs(", ", f);
    sp_test_json_string(f, names[i]);
    fprintf(f, ": %lld", counts[i]);
  }
  fputs("}\n", f);
  ASSERT(fclose(f) == 0);
}

void sp_test_expect_write(const char *tag, int rank, const sp_test_expect_t *e) {
  sp_test_expect_write_table(tag, rank, e->names, e->counts, e->n);
}

/* ---- stderr and files -------------------------------------------------- */

static int sp_test_saved_fd = -1;
static FILE *sp_test_tmp;

void sp_test_stderr_begin(void) {
  fflush(stderr);
  sp_test_tmp = tmpfile();
  ASSERT(sp_test_tmp != NULL);
  sp_test_saved_fd = dup(2);
  ASSERT(sp_test_saved_fd >= 0);
  ASSERT(dup2(fileno(sp_test_tmp), 2) == 2);
}

char *sp_test_stderr_end(void) {
  fflush(stderr);
  ASSERT(sp_test_saved_fd >= 0);
  dup2(sp_test_saved_fd, 2);
  close(sp_test_saved_fd);
  sp_test_saved_fd = -1;
  long len = ftell(sp_test_tmp);
  if (len < 0) len = 0;
  char *text = malloc((size_t)len + 1);
  ASSERT(text != NULL);
  rewind(sp_test_tmp);
  size_t got = fread(text, 1, (size_t)len, sp_test_tmp);
  text[got] = '\0';
  fclose(sp_test_tmp);
  sp_test_tmp = NULL;
  fputs(text, stderr);
  return text;
}

int sp_test_count(const char *hay, const char *needle) {
  int n = 0;
  size_t len = strlen(needle);
  for (const char *p = strstr(hay, needle); p; p = strstr(p + len, needle)) n++;
  return n;
}

void sp_test_expect_msg(const char *text, const char *needle, int times) {
  int n = sp_test_count(text, needle);
  if (times < 0 ? n == 0 : n != times)
    sp_test_fail(__FILE__, __LINE__, "expected %s%d time(s) on stderr, found %d: \"%s\"",
                 times < 0 ? "at least " : "", times < 0 ? 1 : times, n, needle);
}

int sp_test_file_exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

int sp_test_partial_count(const char *file) {
  char dir[1024] = ".";
  const char *slash = strrchr(file, '/');
  const char *base = slash ? slash + 1 : file;
  if (slash) snprintf(dir, sizeof dir, "%.*s", (int)(slash - file), file);
  char prefix[1024];
  snprintf(prefix, sizeof prefix, "%s.partial", base);
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) n++;
  if (d) closedir(d);
  return n;
}
