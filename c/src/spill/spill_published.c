/* spill_published.c - a profile published by sp_finalize makes the spill
 * files it came from redundant; a process killed between the publish and
 * their removal (a SIGKILL during a 4-rank finalize, issue 36 item 23)
 * left them looking like the data of a dead run, beside the complete file,
 * and `merge` into that file failed (exit 4: it exists).
 *
 * Before the publish, rank 0 writes <spill_dir>/published: the device and
 * inode of the file about to be renamed into place (a rename keeps them)
 * and its path. After every rank removed its spill file, rank 0 removes
 * the note and the directory. A merge that finds the note, and that file
 * still at that path, says so; merged into that very path it returns 0
 * without writing (the data is there). A note left by a publish that did
 * not happen names a file that is not there: the merge goes on as usual. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_guard.h"
#include "sp_internal.h"

#define SP_PUBLISHED_NOTE "published"

static int sp_note_path(const char *dir, char *out, size_t cap) {
  int n = snprintf(out, cap, "%s/%s", dir, SP_PUBLISHED_NOTE);
  return n > 0 && (size_t)n < cap;
}

void sp__spill_note_publish(const char *partial, const char *final) {
  struct stat dir, sb;
  char note[SP_PATH_MAX + 16];
  if (stat(sp__state.spill_dir, &dir) != 0 || !S_ISDIR(dir.st_mode)) return; /* no spill files */
  if (stat(partial, &sb) != 0 || !sp_note_path(sp__state.spill_dir, note, sizeof note)) return;
  int fd = open(note, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return;
  fd = sp__fd_above_std(fd);
  if (fd < 0) return;
  char text[SP_PATH_MAX + 64];
  int n = snprintf(text, sizeof text, "%llu %llu\n%s\n", (unsigned long long)sb.st_dev,
                   (unsigned long long)sb.st_ino, final);
  if (n > 0 && (size_t)n < sizeof text && write(fd, text, (size_t)n) != n) { /* no note */
  }
  close(fd);
}

void sp__spill_note_clear(void) {
  char note[SP_PATH_MAX + 16];
  if (!sp_note_path(sp__state.spill_dir, note, sizeof note)) return;
  if (unlink(note) == 0) rmdir(sp__state.spill_dir); /* only when nothing else is left */
}

int sp__spill_note_check(const char *dir, const char *out_path) {
  char note[SP_PATH_MAX + 16], text[SP_PATH_MAX + 64], path[SP_PATH_MAX + 1];
  unsigned long long dev, ino;
  if (!sp_note_path(dir, note, sizeof note)) return 0;
  FILE *f = fopen(note, "re");
  if (!f) return 0;
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  int off = 0;
  if (sscanf(text, "%llu %llu\n%n", &dev, &ino, &off) != 2 || off <= 0) return 0;
  snprintf(path, sizeof path, "%s", text + off);
  path[strcspn(path, "\n")] = '\0';
  struct stat sb, ob;
  if (!path[0] || stat(path, &sb) != 0 || sb.st_dev != dev || sb.st_ino != ino) return 0;
  int same = stat(out_path, &ob) == 0 && ob.st_dev == sb.st_dev && ob.st_ino == sb.st_ino;
  sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
          "the events in '%s' were already written to '%s' by the run's sp_finalize (it ended "
          "before removing them): nothing was lost%s; remove '%s'",
          dir, path, same ? ", nothing to merge" : "", dir);
  return same;
}
