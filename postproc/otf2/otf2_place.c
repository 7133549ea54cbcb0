/* otf2_place.c - where an OTF2 archive is written and how it replaces an
 * earlier one in DIR (traces.otf2, traces.def, traces/<n>.evt|def).
 *
 * The archive is written into a directory of its own beside them,
 * DIR/.traces.<pid>.<n>.tmp (created exclusively), and moved into place
 * only once it is complete: a failed export leaves an earlier archive as it
 * was, as the charts' temporary files do (output_file.c). Nothing is ever
 * reached through a symbolic link: the earlier archive is removed entry by
 * entry with unlinkat() under a directory opened O_NOFOLLOW, so a link at
 * DIR/traces (or inside it) is removed as a link and what it points to is
 * never touched. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "otf2_internal.h"

/* 1 for the names OTF2 gives location files: digits, then .evt or .def. */
static int sp_location_file(const char *name) {
  const char *p = name;
  while (*p >= '0' && *p <= '9') p++;
  return p > name && (strcmp(p, ".evt") == 0 || strcmp(p, ".def") == 0);
}

/* Removes the location files of the directory traces/ (opened without
 * following a link), then traces/ itself; dry: only checks. Anything else
 * in it fails with ENOTEMPTY before anything is removed. */
static int sp_locations_remove(int dfd, int dry) {
  int fd = openat(dfd, "traces", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    int err = errno;
    if (fd >= 0) close(fd);
    errno = err;
    return -1;
  }
  int err = 0;
  for (int pass = 0; err == 0 && pass < (dry ? 1 : 2); pass++) { /* check, then remove */
    rewinddir(d);
    struct dirent *e;
    while (err == 0 && (e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      if (!sp_location_file(e->d_name))
        err = ENOTEMPTY;
      else if (pass == 1 && unlinkat(fd, e->d_name, 0) != 0) /* a link there: the link */
        err = errno;
    }
  }
  closedir(d);
  if (err == 0 && !dry && unlinkat(dfd, "traces", AT_REMOVEDIR) != 0) err = errno;
  errno = err;
  return err ? -1 : 0;
}

/* Removes (dry: only checks) the archive in the directory dfd: traces/
 * with its location files (a link at traces: the link), traces.def and
 * traces.otf2. traces a regular file fails with ENOTDIR. Returns 0, or -1
 * with errno set. */
static int sp_archive_remove_at(int dfd, int dry) {
  struct stat st;
  if (fstatat(dfd, "traces", &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) return -1;
  } else if (S_ISDIR(st.st_mode)) {
    if (sp_locations_remove(dfd, dry) != 0) return -1;
  } else if (S_ISLNK(st.st_mode)) {
    if (!dry && unlinkat(dfd, "traces", 0) != 0) return -1; /* the link, not its target */
  } else {
    errno = ENOTDIR;
    return -1;
  }
  if (dry) return 0;
  if (unlinkat(dfd, "traces.def", 0) != 0 && errno != ENOENT) return -1;
  if (unlinkat(dfd, "traces.otf2", 0) != 0 && errno != ENOENT) return -1;
  return 0;
}

int sp__otf2_place_check(const char *dir) {
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) {
    sp_msg(SP_QUIET, "cannot open %s: %s", dir, strerror(errno));
    return SP_EXIT_IO;
  }
  struct stat st;
  int rc = 0;
  if (fstatat(dfd, "traces", &st, AT_SYMLINK_NOFOLLOW) != 0) {
    close(dfd);
    return 0; /* no earlier archive */
  }
  /* OTF2 will not write into an existing archive: an earlier export is
   * replaced, but only when it is one (its anchor file is there). */
  if (fstatat(dfd, "traces.otf2", &st, AT_SYMLINK_NOFOLLOW) != 0) {
    sp_msg(SP_QUIET, "%s/traces exists and is not part of an OTF2 archive: not replacing it", dir);
    rc = SP_EXIT_IO;
  } else if (sp_archive_remove_at(dfd, 1) != 0) {
    sp_msg(SP_QUIET, "cannot replace the archive in %s: %s/traces %s", dir, dir,
           errno == ENOTEMPTY ? "holds files OTF2 did not write"
           : errno == ENOTDIR ? "is not a directory"
                              : strerror(errno));
    rc = SP_EXIT_IO;
  }
  close(dfd);
  return rc;
}

int sp__otf2_place_begin(const char *dir, char *tmp, size_t cap) {
  for (int k = 0; k < 100; k++) {
    int n = snprintf(tmp, cap, "%s/.traces.%ld.%d.tmp", dir, (long)getpid(), k);
    if (n < 0 || (size_t)n >= cap) {
      sp_msg(SP_QUIET, "output directory name too long: %s", dir);
      return SP_EXIT_IO;
    }
    if (mkdir(tmp, 0777) == 0) return 0;
    if (errno != EEXIST) break;
  }
  sp_msg(SP_QUIET, "cannot create a temporary directory in %s: %s", dir, strerror(errno));
  return SP_EXIT_IO;
}

void sp__otf2_place_abort(const char *tmp) {
  int fd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    sp_archive_remove_at(fd, 0);
    close(fd);
  }
  rmdir(tmp);
}

int sp__otf2_place_commit(const char *tmp, const char *dir) {
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int tfd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  int rc = dfd >= 0 && tfd >= 0 ? sp_archive_remove_at(dfd, 0) : -1;
  /* The anchor file last: an archive is there once traces.otf2 is. */
  static const char *const names[] = {"traces", "traces.def", "traces.otf2"};
  for (int i = 0; rc == 0 && i < 3; i++) rc = renameat(tfd, names[i], dfd, names[i]);
  int err = errno;
  if (dfd >= 0) close(dfd);
  if (tfd >= 0) close(tfd);
  if (rc != 0) {
    sp_msg(SP_QUIET, "cannot move the archive into %s: %s", dir, strerror(err));
    sp__otf2_place_abort(tmp);
    return SP_EXIT_IO;
  }
  rmdir(tmp);
  return 0;
}
