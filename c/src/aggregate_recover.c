/* aggregate_recover.c - profile mode when the process ends without
 * sp_finalize, and its recovery by scope-profiler-merge.
 *
 * At exit (exit_flush.c) each process writes its aggregates, the blob of
 * aggregate_snap.c behind a small header, to
 * <spill_dir>/rank<R>.<host>.<pid>.aggspill: under a temporary name first,
 * then renamed, so a file there is complete. sp_spill_merge reads every
 * *.aggspill of its inputs and writes the aggregate file: at the output
 * path when there are no event spill files (time_trace = 0), else beside
 * the recovered trace as "<stem>.aggregate<ext>" (sp__agg_path). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aggregate_recover.h"
#include "aggregate_file.h"
#include "aggregate_h5.h"
#include "aggregate_blob.h"
#include "file_end.h"
#include "host_guard.h"
#include "out_temp.h"

static char sp_saved[SP_PATH_MAX + 256]; /* the file written at exit, "" if none */

static int sp_write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w <= 0) return SP_EIO;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

int sp__agg_exit_save(const char *why) {
  sp_state_t *st = &sp__state;
  sp_agg_snap_t s;
  int rank = st->rank >= 0 ? st->rank : 0;
  int rc = sp__agg_snap_take(&s, rank);
  char *blob = NULL;
  int64_t len = 0;
  if (rc == 0) {
    rc = sp__agg_snap_pack(&s, &blob, &len);
    sp__agg_snap_free(&s);
  }
  if (rc) return rc;
  char host[64] = "", tmp[sizeof sp_saved + 8];
  gethostname(host, sizeof host - 1);
  if (mkdir(st->spill_dir, 0755) != 0 && access(st->spill_dir, W_OK) != 0) rc = SP_EIO;
  int n = snprintf(sp_saved, sizeof sp_saved, "%s/rank%d.%s.%ld.aggspill", st->spill_dir, rank,
                   host, (long)getpid());
  if (!rc && (n < 0 || (size_t)n >= sizeof sp_saved)) rc = SP_EPATH;
  snprintf(tmp, sizeof tmp, "%s.tmp", sp_saved);
  int fd = rc ? -1 : open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd >= 0 && fd <= 2) fd = sp__fd_above_std(fd); /* never the host's stdin/out/err */
  if (!rc && fd < 0) rc = SP_EIO;
  /* Version 1 still: what was added since rides in the blob's optional tail. */
  sp_aggspill_head_t h = {SP_AGGSPILL_MAGIC, 1, len};
  if (!rc) rc = sp_write_all(fd, (const char *)&h, sizeof h);
  if (!rc) rc = sp_write_all(fd, blob, (size_t)len);
  if (fd >= 0 && close(fd) != 0 && !rc) rc = SP_EIO;
  if (!rc && rename(tmp, sp_saved) != 0) rc = SP_EIO;
  if (rc) {
    unlink(tmp);
    sp_saved[0] = '\0';
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "%s: its aggregates could not be saved in '%s' (%s)", why,
            st->spill_dir, sp_strerror(rc));
  } else {
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "%s: the aggregates of this process are in '%s'; "
            "rebuild the file with: scope-profiler-merge -o %s %s",
            why, sp_saved, st->file_path, st->spill_dir);
  }
  free(blob);
  return rc;
}

void sp__agg_exit_keep(void) { sp_saved[0] = '\0'; }

void sp__agg_exit_forget(void) {
  if (!sp_saved[0]) return;
  unlink(sp_saved);
  rmdir(sp__state.spill_dir); /* only when nothing else is left there */
  sp_saved[0] = '\0';
}

/* Reads one .aggspill into s; a torn, damaged or foreign file is refused
 * whole (aggregate_blob.c checks every count and index in it). */
static int sp_read_one(const char *path, sp_agg_snap_t *s) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  struct stat sb;
  if (fd < 0) return SP_ESPILL;
  int rc =
      fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 && sb.st_size < ((off_t)1 << 40)
          ? 0
          : SP_ESPILL;
  char *buf = rc ? NULL : malloc((size_t)sb.st_size);
  if (!rc && !buf) rc = SP_ENOMEM;
  for (off_t got = 0; !rc && got < sb.st_size;) {
    ssize_t r = pread(fd, buf + got, (size_t)(sb.st_size - got), got);
    if (r <= 0) rc = SP_ESPILL;
    got += r > 0 ? r : 0;
  }
  if (!rc) rc = sp__aggspill_parse(buf, (int64_t)sb.st_size, s);
  free(buf);
  close(fd);
  return rc;
}

static int sp_ends_with(const char *s, const char *tail) {
  size_t a = strlen(s), b = strlen(tail);
  return a > b && strcmp(s + a - b, tail) == 0;
}

/* Reads the .aggspill files of one input (a directory or a file). */
static void sp_scan(const char *input, sp_agg_snap_t *s, sp_agg_recovery_t *r) {
  struct stat sb;
  if (stat(input, &sb) != 0) return;
  if (!S_ISDIR(sb.st_mode)) {
    if (sp_ends_with(input, ".spill")) r->event_files++;
    if (!sp_ends_with(input, ".aggspill")) return;
    r->agg_files++;
    if (sp_read_one(input, s) != 0) r->unreadable++;
    return;
  }
  DIR *d = opendir(input);
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    char full[SP_PATH_MAX];
    if (snprintf(full, sizeof full, "%s/%s", input, e->d_name) >= (int)sizeof full) continue;
    if (sp_ends_with(e->d_name, ".spill")) r->event_files++;
    if (!sp_ends_with(e->d_name, ".aggspill")) continue;
    r->agg_files++;
    if (sp_read_one(full, s) != 0) {
      r->unreadable++;
      sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "'%s': not a complete aggregate spill file; skipped",
              full);
    }
  }
  if (d) closedir(d);
}

int sp__agg_recover(const char *const *inputs, int ninputs, const char *out_path, int replace,
                    sp_agg_recovery_t *r) {
  memset(r, 0, sizeof *r);
  sp_agg_snap_t s;
  memset(&s, 0, sizeof s);
  for (int i = 0; i < ninputs; i++) sp_scan(inputs[i], &s, r);
  if (r->agg_files == 0) return 0;
  char path[SP_PATH_MAX + 16], tmp[SP_TEMP_MAX + 16];
  if (r->event_files > 0)
    sp__agg_path(out_path, path, sizeof path);
  else
    snprintf(path, sizeof path, "%s", out_path);
  struct stat sb;
  if (!replace && lstat(path, &sb) == 0) { /* the spill files stay for a rerun with replace */
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "'%s' exists: the aggregates are not written over it",
            path);
    sp__agg_snap_free(&s);
    return SP_EPATH;
  }
  int size = 1;
  for (int64_t i = 0; i < s.nrows; i++)
    if (s.rows[i].rank + 1 > size) size = s.rows[i].rank + 1;
  int rc = r->agg_files > r->unreadable ? sp__out_temp_create(path, tmp, sizeof tmp) : SP_ESPILL;
  if (!rc) rc = sp__agg_h5_write(tmp, &s, size);
  if (!rc) rc = sp__file_end_check(tmp, path); /* HDF5 opens it to its stored end */
  /* As the trace's merge: never over a FIFO or device, nor over a file
   * without replace (then kept aside under a name of its own, said so). */
  int aside = 0;
  if (!rc) {
    rc = sp__out_publish_merge(tmp, path, replace);
    aside = rc == SP_EPATH;
  }
  if (rc && rc != SP_ESPILL && !aside) unlink(tmp);
  if (!rc) {
    sp__log(SP_LOG_INFO, SP_LOG_ALWAYS, "recovered the aggregates of %d process(es) into '%s'",
            r->agg_files - r->unreadable, path);
    if (s.lost > 0) /* in the file too, as metadata/events_lost */
      sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
              "'%s': %lld call(s) could not be recorded by the processes (more than %d call "
              "paths on a thread, or no memory); the aggregates lack them",
              path, (long long)s.lost, SP_AGG_MAX_CHUNKS << SP_AGG_CHUNK_BITS);
    if (r->unreadable) rc = SP_EPARTIAL;
  } else if (!aside) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "recovery of the aggregates into '%s' failed: %s", path,
            sp_strerror(rc));
  }
  sp__agg_snap_free(&s);
  return rc;
}
