/* messages.c - diagnostics on stderr, verbosity, progress and timing. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "pproc.h"

/* The verbosity chosen by -q / -v: the one piece of global state. */
static int sp_level = SP_NORMAL;

void sp_msg_set_level(int level) { sp_level = level; }

int sp_msg_level(void) { return sp_level; }

void sp_msg(int level, const char *fmt, ...) {
  if (level > sp_level) return;
  /* Messages quote names from the file: one line, valid UTF-8 (text_safe.c). */
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fputs(SP_PROG ": ", stderr);
  sp_text_put(stderr, buf, SP_TEXT_PLAIN);
  fputc('\n', stderr);
}

void sp_progress(const char *what, int64_t i, int64_t n) {
  /* Job scripts redirect stderr to a file: progress would only clutter it. */
  if (sp_level < SP_NORMAL || n < 64 || !isatty(STDERR_FILENO)) return;
  if (i % (n / 64) != 0) return;
  fprintf(stderr, "\r" SP_PROG ": %s %lld/%lld", what, (long long)i, (long long)n);
  fflush(stderr);
}

void sp_progress_done(void) {
  if (sp_level >= SP_NORMAL && isatty(STDERR_FILENO)) fputs("\r\033[K", stderr);
}

double sp_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int sp_exit_for_reader(int err) {
  switch (err) {
  case 0:
    return SP_EXIT_OK;
  case SP_READER_EIO:
  case SP_READER_ENOMEM:
    return SP_EXIT_IO;
  case SP_READER_EPATTERN:
  case SP_READER_EINVAL:
    return SP_EXIT_USAGE;
  default:
    return SP_EXIT_DATA;
  }
}

int sp_load_intervals(sp_reader_t *r, int g, int k, sp_reader_intervals_t *iv) {
  int err = sp_reader_load(r, g, k, iv);
  if (err >= 0) return 0;
  sp_msg(SP_QUIET, "%s", sp_reader_errmsg(r));
  return sp_exit_for_reader(err);
}
