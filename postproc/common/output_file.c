/* output_file.c - the chart is written to a temporary file and renamed.
 *
 * PLplot's cairo devices do not report write errors: on a full disk the
 * chart came out empty or cut with exit 0 and "wrote ...", and an existing
 * good chart was truncated first. So the chart goes to a unique temporary
 * name in the output directory; it replaces DIR/gantt_plot.EXT only when
 * it ends as its format must (PNG: the IEND chunk, PDF: %%EOF, SVG:
 * </svg>) and fsync succeeds. On failure the temporary is removed and an
 * older chart stays as it was. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_file.h"

int sp_output_temp(const char *final, char *tmp, size_t cap) {
  const char *slash = strrchr(final, '/');
  int dir = slash ? (int)(slash - final + 1) : 0;
  /* Created here, exclusively and without following a link: a name that
   * already exists (a stale temporary, a planted symlink) is never reused. */
  for (int i = 0; i < 100; i++) {
    int n = snprintf(tmp, cap, "%.*s.%s.%ld.%d.tmp", dir, final, slash ? slash + 1 : final,
                     (long)getpid(), i);
    if (n < 0 || (size_t)n >= cap) {
      errno = ENAMETOOLONG;
      return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) return close(fd);
    if (errno != EEXIST) return -1;
  }
  return -1;
}

/* 1 if the last bytes of fd (of size bytes) end like a complete file of
 * kind f, or, when ending is not NULL, end with that text (then blanks). */
static int sp_output_complete(int fd, off_t size, sp_format_t f, const char *ending) {
  static const unsigned char png_end[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
  unsigned char tail[32];
  size_t want = sizeof tail;
  if (size < (off_t)want) return 0;
  if (pread(fd, tail, want, size - (off_t)want) != (ssize_t)want) return 0;
  const char *text = (const char *)tail;
  size_t len = want;
  while (len > 0 && (tail[len - 1] == '\n' || tail[len - 1] == '\r' || tail[len - 1] == ' ')) len--;
  if (ending) {
    size_t k = strlen(ending);
    return len >= k && memcmp(text + len - k, ending, k) == 0;
  }
  switch (f) {
  case SP_FORMAT_PNG:
    return memcmp(tail + want - 12, png_end, 12) == 0;
  case SP_FORMAT_PDF:
    return len >= 5 && memcmp(text + len - 5, "%%EOF", 5) == 0;
  case SP_FORMAT_SVG:
    return len >= 6 && memcmp(text + len - 6, "</svg>", 6) == 0;
  }
  return 0;
}

static int sp_output_finish(const char *tmp, const char *final, sp_format_t f, const char *ending) {
  int fd = open(tmp, O_RDONLY | O_CLOEXEC);
  struct stat st;
  const char *why = NULL;
  int err = 0;
  if (fd < 0 || fstat(fd, &st) != 0) {
    err = errno;
    why = strerror(err);
  } else if (!sp_output_complete(fd, st.st_size, f, ending)) {
    why = "the file came out incomplete (disk full or quota?)";
  } else if (fsync(fd) != 0) {
    err = errno;
    why = strerror(err);
  }
  if (fd >= 0) close(fd);
  if (!why && rename(tmp, final) != 0) why = strerror(errno);
  if (why) {
    sp_msg(SP_QUIET, "cannot write %s: %s%s", final, why,
           access(final, F_OK) == 0 ? " (the existing file is kept)" : "");
    remove(tmp);
    return SP_EXIT_IO;
  }
  return 0;
}

int sp_output_commit(const char *tmp, const char *final, sp_format_t f) {
  return sp_output_finish(tmp, final, f, NULL);
}

int sp_output_commit_text(const char *tmp, const char *final, const char *ending) {
  return sp_output_finish(tmp, final, SP_FORMAT_PNG, ending);
}

int sp_output_mkdirs(const char *dir) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char *p = path + 1;; p++) {
    char c = *p;
    if (c != '/' && c != '\0') continue;
    *p = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
    *p = c;
    if (c == '\0') break;
  }
  struct stat st;
  if (stat(path, &st) != 0) return -1;
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}

int sp_chart_path(const char *dir, const char *name, const char *ext, char *path) {
  /* Room for DIR, '/', NAME, '.' and EXT: a longer name would be cut. */
  size_t room = strlen(name) + strlen(ext) + 3;
  if (strlen(dir) + room > SP_PATH_MAX) {
    sp_msg(SP_QUIET, "output directory name too long (%zu bytes, at most %zu)", strlen(dir),
           (size_t)SP_PATH_MAX - room);
    return SP_EXIT_IO;
  }
  if (sp_output_mkdirs(dir) != 0) {
    sp_msg(SP_QUIET, "cannot create output directory %s: %s", dir, strerror(errno));
    return SP_EXIT_IO;
  }
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  snprintf(path, SP_PATH_MAX, "%.*s%s%s.%s", (int)n, dir, dir[n - 1] == '/' ? "" : "/", name, ext);
  return 0;
}
