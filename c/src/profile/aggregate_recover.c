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
#include <time.h>
#include <unistd.h>

#include "aggregate_recover.h"
#include "aggregate_file.h"
#include "aggregate_h5.h"
#include "aggregate_blob.h"
#include "file_end.h"
#include "host_guard.h"
#include "out_target.h"
#include "out_temp.h"

static char sp_saved[SP_PATH_MAX + 512]; /* the file written at exit, "" if none */

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
  sp_aggspill_head_t h = {SP_AGGSPILL_MAGIC, SP_AGGSPILL_VERSION, len};
  sp_aggspill_run_t w = {st->run_id, (int64_t)time(NULL), (int64_t)getpid(),
                         sp__mpi_rank_if_known() >= 0 ? st->rank : -1, st->size};
  if (!rc) rc = sp_write_all(fd, (const char *)&h, sizeof h);
  if (!rc) rc = sp_write_all(fd, (const char *)&w, sizeof w);
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

/* One .aggspill of the inputs, read whole (they are small: one process's
 * call paths). */
typedef struct sp_agg_in {
  char *path;
  char *buf; /* NULL when unreadable */
  int64_t n;
  sp_aggspill_run_t run; /* its writer (zero for a version-1 file) */
  uint64_t group;        /* its run: its run id, or 0 (see sp_read_one) */
} sp_agg_in_t;

typedef struct sp_agg_inputs {
  sp_agg_in_t *v;
  int n, cap;
} sp_agg_inputs_t;

/* Reads one file into in->buf; a torn, damaged or foreign file is refused
 * (aggregate_blob.c checks every count and index in it). */
static int sp_read_one(sp_agg_in_t *in) {
  int fd = open(in->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
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
  close(fd);
  /* Parsed once here too, so that a damaged file (its writer's fields
   * included) never counts as a run of its own. */
  sp_agg_snap_t trial;
  memset(&trial, 0, sizeof trial);
  if (!rc) rc = sp__aggspill_parse(buf, (int64_t)sb.st_size, &trial, &in->run);
  sp__agg_snap_free(&trial);
  if (rc) {
    free(buf);
    return rc;
  }
  in->buf = buf;
  in->n = (int64_t)sb.st_size;
  /* Runs of one process (no MPI rank, or MPI of size 1) are told apart by
   * their run id; the ranks of larger MPI jobs (each with its own id) and
   * files of older writers (no id) go together, as before. */
  in->group = in->run.rank < 0 || in->run.size <= 1 ? in->run.run_id : 0;
  return 0;
}

static int sp_ends_with(const char *s, const char *tail) {
  size_t a = strlen(s), b = strlen(tail);
  return a > b && strcmp(s + a - b, tail) == 0;
}

static void sp_add_input(sp_agg_inputs_t *l, const char *path, sp_agg_recovery_t *r) {
  r->agg_files++;
  if (l->n == l->cap) {
    int ncap = l->cap ? 2 * l->cap : 16;
    sp_agg_in_t *nv = realloc(l->v, (size_t)ncap * sizeof *nv);
    if (!nv) {
      r->unreadable++;
      return;
    }
    l->v = nv;
    l->cap = ncap;
  }
  sp_agg_in_t *in = &l->v[l->n];
  memset(in, 0, sizeof *in);
  in->path = strdup(path);
  if (!in->path || sp_read_one(in) != 0) {
    r->unreadable++;
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "'%s': not a complete aggregate spill file; skipped",
            path);
    free(in->path);
    return;
  }
  l->n++;
}

/* Reads the .aggspill files of one input (a directory or a file). */
static void sp_scan(const char *input, sp_agg_inputs_t *l, sp_agg_recovery_t *r) {
  struct stat sb;
  if (stat(input, &sb) != 0) return;
  if (!S_ISDIR(sb.st_mode)) {
    if (sp_ends_with(input, ".spill")) r->event_files++;
    if (sp_ends_with(input, ".aggspill")) sp_add_input(l, input, r);
    return;
  }
  DIR *d = opendir(input);
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    char full[SP_PATH_MAX];
    if (snprintf(full, sizeof full, "%s/%s", input, e->d_name) >= (int)sizeof full) continue;
    if (sp_ends_with(e->d_name, ".spill")) r->event_files++;
    if (sp_ends_with(e->d_name, ".aggspill")) sp_add_input(l, full, r);
  }
  if (d) closedir(d);
}

/* Writes the snapshot s (of nfiles processes) to path. */
static int sp_agg_publish(sp_agg_snap_t *s, int nfiles, const char *path, int replace) {
  char tmp[SP_TEMP_MAX + 16];
  struct stat sb;
  if (!replace && lstat(path, &sb) == 0) { /* the spill files stay for a rerun with replace */
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "'%s' exists: the aggregates are not written over it",
            path);
    return SP_EPATH;
  }
  int size = 1;
  for (int64_t i = 0; i < s->nrows; i++)
    if (s->rows[i].rank + 1 > size) size = s->rows[i].rank + 1;
  int rc = sp__out_temp_create(path, tmp, sizeof tmp);
  if (!rc) rc = sp__agg_h5_write(tmp, s, size);
  if (!rc) rc = sp__file_end_check(tmp, path); /* HDF5 opens it to its stored end */
  /* As the trace's merge: never over a FIFO or device, nor over a file
   * without replace (then kept aside under a name of its own, said so). */
  int aside = 0;
  if (!rc) {
    rc = sp__out_publish_merge(tmp, path, replace);
    aside = rc == SP_EPATH;
  }
  if (rc && !aside) unlink(tmp);
  if (!rc) {
    sp__log(SP_LOG_INFO, SP_LOG_ALWAYS, "recovered the aggregates of %d process(es) into '%s'",
            nfiles, path);
    if (s->lost > 0) /* in the file too, as metadata/events_lost */
      sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
              "'%s': %lld call(s) could not be recorded by the processes (more than %d call "
              "paths on a thread, or no memory); the aggregates lack them",
              path, (long long)s->lost, SP_AGG_MAX_CHUNKS << SP_AGG_CHUNK_BITS);
  } else if (!aside)
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "recovery of the aggregates into '%s' failed: %s", path,
            sp_strerror(rc));
  return rc;
}

/* 1 when a was written after b: later, or in the same second a larger pid. */
static int sp_later(const sp_aggspill_run_t *a, const sp_aggspill_run_t *b) {
  if (a->wall_time != b->wall_time) return a->wall_time > b->wall_time;
  return a->pid > b->pid;
}

/* The index of the latest file of a group not written yet, or -1. */
static int sp_next_group(const sp_agg_inputs_t *l, const uint8_t *done) {
  int best = -1;
  for (int i = 0; i < l->n; i++)
    if (!done[i] && (best < 0 || sp_later(&l->v[i].run, &l->v[best].run))) best = i;
  return best;
}

int sp__agg_recover(const char *const *inputs, int ninputs, const char *out_path, int replace,
                    sp_agg_recovery_t *r) {
  memset(r, 0, sizeof *r);
  sp_agg_inputs_t l = {NULL, 0, 0};
  for (int i = 0; i < ninputs; i++) sp_scan(inputs[i], &l, r);
  if (r->agg_files == 0) return 0;
  uint8_t *done = calloc((size_t)(l.n ? l.n : 1), 1);
  int err = done ? 0 : SP_ENOMEM, written = 0;
  /* One file per run, the latest run's first (at out_path), then each
   * earlier one at "<stem>.earlier<k><ext>" as the trace's merge does. */
  for (int k = 0, at; done && (at = sp_next_group(&l, done)) >= 0; k++) {
    const uint64_t group = l.v[at].group;
    sp_agg_snap_t s;
    memset(&s, 0, sizeof s);
    int nfiles = 0;
    for (int i = 0; i < l.n; i++) {
      if (done[i] || l.v[i].group != group) continue;
      done[i] = 1;
      if (sp__aggspill_parse(l.v[i].buf, l.v[i].n, &s, NULL) == 0) {
        nfiles++;
      } else {
        r->unreadable++;
        sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "'%s': not a complete aggregate spill file; skipped",
                l.v[i].path);
      }
    }
    char base[SP_PATH_MAX + 32], path[SP_PATH_MAX + 64];
    if (k)
      sp__earlier_path(out_path, k, base, sizeof base);
    else
      snprintf(base, sizeof base, "%s", out_path);
    if (r->event_files > 0)
      sp__agg_path(base, path, sizeof path);
    else
      snprintf(path, sizeof path, "%s", base);
    if (k)
      sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
              "aggregate spill file(s) of an earlier run (runs without an MPI rank wrote one "
              "spill directory): merged apart into '%s'",
              path);
    int grc = nfiles ? sp_agg_publish(&s, nfiles, path, replace) : SP_ESPILL;
    if (grc == 0) written++;
    if (grc && (!err || err == SP_ESPILL)) err = grc;
    sp__agg_snap_free(&s);
  }
  int rc = err && err != SP_ESPILL ? err : !written ? SP_ESPILL : r->unreadable ? SP_EPARTIAL : 0;
  for (int i = 0; i < l.n; i++) {
    free(l.v[i].path);
    free(l.v[i].buf);
  }
  free(l.v);
  free(done);
  return rc;
}
