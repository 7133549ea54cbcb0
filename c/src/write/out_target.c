/* out_target.c - what a profile's path names, settled at sp_setup
 * (out_target.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out_target.h"
#include "par.h"

static const char *sp_kind_of(mode_t m) {
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISDIR(m)) return "a directory";
  return NULL;
}

const char *sp__out_target_kind(const char *path) {
  struct stat sb;
  int saved = errno;
  const char *kind = lstat(path, &sb) == 0 ? sp_kind_of(sb.st_mode) : NULL;
  errno = saved;
  return kind;
}

/* 1 when path names the null device (following symlinks). */
static int sp_is_null(const char *path) {
  struct stat sb, dn;
  int saved = errno;
  int null = stat(path, &sb) == 0 && S_ISCHR(sb.st_mode) && stat("/dev/null", &dn) == 0 &&
             S_ISCHR(dn.st_mode) && sb.st_rdev == dn.st_rdev;
  errno = saved;
  return null;
}

/* path (cap bytes) made absolute against cwd; a leading "./" dropped. */
static int sp_absolute(char *path, size_t cap, const char *cwd, const char *what) {
  if (path[0] == '/' || !cwd) return 0;
  const char *rel = path;
  while (rel[0] == '.' && rel[1] == '/') rel += 2;
  char *abs = malloc(cap);
  if (!abs) return SP_ENOMEM;
  int n = snprintf(abs, cap, "%s/%s", strcmp(cwd, "/") ? cwd : "", rel);
  if (n < 0 || (size_t)n >= cap) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "%s '%s' in the working directory '%s' is longer than %zu bytes", what, path, cwd,
            cap - 1);
    free(abs);
    return SP_EINVAL;
  }
  memcpy(path, abs, (size_t)n + 1);
  free(abs);
  return 0;
}

int sp__out_target_resolve(sp_state_t *st, int spill_from_env) {
  char *cwd = NULL;
  if (st->file_path[0] != '/' || st->spill_dir[0] != '/') {
    cwd = getcwd(NULL, 0);
    if (!cwd)
      sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
              "the working directory is unknown (%s): '%s' stays relative, so a chdir() "
              "before sp_finalize moves it",
              strerror(errno), st->file_path);
  }
  int rc = sp_absolute(st->file_path, sizeof st->file_path, cwd, "file_path");
  if (rc == 0) rc = sp_absolute(st->spill_dir, sizeof st->spill_dir, cwd, "spill directory");
  free(cwd);
  if (rc != 0) return rc;
  st->discard = sp_is_null(st->file_path);
  if (st->discard) {
    /* Never "/dev/null.spill": the spill files go to $TMPDIR. */
    if (!spill_from_env) {
      const char *tmp = getenv("TMPDIR");
      if (snprintf(st->spill_dir, sizeof st->spill_dir, "%s/scope-profiler.%ld.spill",
                   tmp && *tmp && strlen(tmp) < SP_PATH_MAX - 64 ? tmp : "/tmp",
                   (long)getpid()) >= (int)sizeof st->spill_dir)
        return SP_EINVAL;
    }
    return 0;
  }
  const char *kind = sp__out_target_kind(st->file_path);
  if (kind && st->cfg.profiling_activated) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "'%s' is %s, not a regular file: sp_finalize will not replace it and fails; "
            "profiling continues with spill files in '%s' (choose another file_path or "
            "SCOPE_PROFILER_FILE; /dev/null discards the profile)",
            st->file_path, kind, st->spill_dir);
    return SP_EPATH;
  }
  return 0;
}

/* Rank 0: says which ranks' file_path (all[offs[r]..], "" for a rank that
 * records nothing) differ from its own. */
void sp__out_target_differing(const sp_par_t *par, const char *mine, const char *all,
                              const int64_t *offs) {
  int n = 0, first = -1;
  for (int r = 1; r < par->size; r++) {
    const char *p = all + offs[r];
    if (offs[r + 1] - offs[r] > 1 && p[offs[r + 1] - offs[r] - 1] == '\0' && strcmp(p, mine)) {
      if (first < 0) first = r;
      n++;
    }
  }
  if (n == 0) return;
  char more[64] = "";
  if (n > 1) snprintf(more, sizeof more, " and %d other rank(s)", n - 1);
  sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
          "the ranks passed different file_path values: rank %d%s passed '%s'; the profile of "
          "all ranks is written to rank 0's '%s', and sp_finalize returns SP_EPATH on those "
          "ranks (every rank should pass the same file_path)",
          first, more, all + offs[first], mine);
}

int sp__out_target_check(const sp_state_t *st, int *discard) {
  *discard = sp_is_null(st->file_path);
  const char *kind = *discard ? NULL : sp__out_target_kind(st->file_path);
  if (!kind) return 0;
  sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "'%s' is %s, not a regular file: not replaced",
          st->file_path, kind);
  return SP_EPATH;
}

void sp__earlier_path(const char *out_path, int k, char *out, size_t cap) {
  const char *slash = strrchr(out_path, '/');
  const char *base = slash ? slash + 1 : out_path;
  const char *dot = strrchr(base, '.');
  int stem = dot && dot != base ? (int)(dot - out_path) : (int)strlen(out_path);
  snprintf(out, cap, "%.*s.earlier%d%s", stem, out_path, k, out_path + stem);
}
