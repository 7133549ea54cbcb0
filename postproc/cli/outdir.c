/* outdir.c - files under -o DIR: the directory is created, each file is
 * written under a unique temporary name created exclusively (never through
 * a planted link, see output_file.c) and renamed into place once complete
 * and on disk, so that a failed run never leaves a truncated JSON file
 * behind and an older one stays as it was. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output_file.h"
#include "pproc.h"

char *sp_path_absolute(const char *path) { return realpath(path, NULL); }

int sp_outfile_open(sp_outfile_t *of, const char *dir, const char *name) {
  memset(of, 0, sizeof *of);
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  if (sp_output_mkdirs(dir) != 0) {
    sp_msg(SP_QUIET, "cannot create output directory %s: %s", dir, strerror(errno));
    return SP_EXIT_IO;
  }
  size_t cap = n + strlen(name) + 8, tcap = cap + strlen(name) + 48;
  of->path = malloc(cap);
  of->tmp = malloc(tcap);
  if (!of->path || !of->tmp) return SP_EXIT_IO;
  snprintf(of->path, cap, "%.*s%s%s", (int)n, dir, dir[n - 1] == '/' ? "" : "/", name);
  int made = sp_output_temp(of->path, of->tmp, tcap) == 0;
  int fd = made ? open(of->tmp, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC) : -1;
  of->f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!of->f) {
    int e = errno;
    if (fd >= 0) close(fd);
    sp_msg(SP_QUIET, "cannot write %s: %s", of->path, strerror(e));
    if (made) remove(of->tmp); /* only the temporary made here */
    return SP_EXIT_IO;
  }
  return 0;
}

int sp_outfile_close(sp_outfile_t *of, int rc) {
  if (of->f) {
    int bad = fflush(of->f) != 0 || ferror(of->f) || fsync(fileno(of->f)) != 0;
    if (fclose(of->f) != 0 || bad) {
      if (rc == 0) sp_msg(SP_QUIET, "cannot write %s: %s", of->path, strerror(errno));
      if (rc == 0) rc = SP_EXIT_IO;
    }
    if (rc == 0 && rename(of->tmp, of->path) != 0) {
      sp_msg(SP_QUIET, "cannot rename %s to %s: %s", of->tmp, of->path, strerror(errno));
      rc = SP_EXIT_IO;
    }
    if (rc != 0)
      remove(of->tmp);
    else
      sp_msg(SP_NORMAL, "wrote %s", of->path);
  }
  free(of->path);
  free(of->tmp);
  memset(of, 0, sizeof *of);
  return rc;
}
