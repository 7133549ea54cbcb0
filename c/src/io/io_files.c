/* io_files.c - the rank's per-file records (profile_io): a constant-size
 * record per file, Darshan-style.
 *
 * A path opened again is the same row (a hash of the names as given). Up
 * to SP_IO_MAX_FILES rows: calls on further files are recorded as calls
 * (file id -1) but in no record, and one message says so; memory stays
 * bounded however many files a run opens. Descriptors map to rows through
 * a flat table of SP_IO_MAX_FD entries (row and position, read without a
 * lock: a descriptor is the program's to race on); MPI_File handles
 * through a small list. One lock guards the records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_files.h"

#define SP_IO_MAX_FILES 4096
#define SP_IO_HASH (2 * SP_IO_MAX_FILES) /* open addressing, at most half full */
#define SP_IO_MAX_FD 65536
#define SP_IO_MAX_MPI 256 /* MPI files open at once with an id */

typedef struct sp_io_fd {
  int32_t row; /* row + 1; 0: not known */
  int32_t pad;
  int64_t pos; /* position for read/write, -1 unknown */
} sp_io_fd_t;

static struct {
  pthread_mutex_t lock;
  sp_io_file_rec_t *rec; /* SP_IO_MAX_FILES, allocated at the first file */
  char **names;
  int32_t *hash; /* row + 1 */
  int32_t n;
  int full_said;
  sp_io_fd_t *fds; /* SP_IO_MAX_FD */
  struct {
    uint64_t handle; /* 0: a free entry */
    int32_t row;
    int32_t plain; /* the default view: offsets are bytes */
  } mpi[SP_IO_MAX_MPI];
  int nmpi;
} sp_io = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint64_t sp_io_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static int sp_io_alloc(void) {
  if (sp_io.rec) return 0;
  sp_io.rec = calloc(SP_IO_MAX_FILES, sizeof *sp_io.rec);
  sp_io.names = calloc(SP_IO_MAX_FILES, sizeof *sp_io.names);
  sp_io.hash = calloc(SP_IO_HASH, sizeof *sp_io.hash);
  sp_io_fd_t *fds = calloc(SP_IO_MAX_FD, sizeof *fds);
  if (!sp_io.rec || !sp_io.names || !sp_io.hash || !fds) {
    free(sp_io.rec);
    free(sp_io.names);
    free(sp_io.hash);
    free(fds);
    sp_io.rec = NULL;
    sp_io.names = NULL;
    sp_io.hash = NULL;
    return SP_ENOMEM;
  }
  __atomic_store_n(&sp_io.fds, fds, __ATOMIC_RELEASE);
  return 0;
}

/* The row of name, a new one if needed; -1 when the table is full. Lock held. */
static int32_t sp_io_row_locked(const char *name, int api) {
  if (sp_io_alloc() != 0) return -1;
  uint64_t k = sp_io_hash(name) % SP_IO_HASH;
  while (sp_io.hash[k] != 0) {
    int32_t r = sp_io.hash[k] - 1;
    if (strcmp(sp_io.names[r], name) == 0) {
      sp_io.rec[r].apis |= api;
      return r;
    }
    k = (k + 1) % SP_IO_HASH;
  }
  char *copy = sp_io.n < SP_IO_MAX_FILES ? strdup(name) : NULL;
  if (!copy) {
    if (!sp_io.full_said)
      sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
              "profile_io: more than %d files (or no memory): calls on further files are "
              "recorded without a file record (file id -1)",
              SP_IO_MAX_FILES);
    sp_io.full_said = 1;
    return -1;
  }
  int32_t r = sp_io.n++;
  sp_io.names[r] = copy;
  sp_io_file_rec_t *f = &sp_io.rec[r];
  memset(f, 0, sizeof *f);
  f->max_offset = -1;
  f->first_ns = -1;
  f->slowest_ns = -1;
  f->apis = api;
  sp_io.hash[k] = r + 1;
  return r;
}

int32_t sp__io_file_row(const char *path, int api) {
  if (!path) return -1;
  const int saved = errno;
  pthread_mutex_lock(&sp_io.lock);
  int32_t r = sp_io_row_locked(path, api);
  pthread_mutex_unlock(&sp_io.lock);
  errno = saved;
  return r;
}

static sp_io_fd_t *sp_io_fd(int fd) {
  sp_io_fd_t *fds = __atomic_load_n(&sp_io.fds, __ATOMIC_ACQUIRE);
  return fds && fd >= 0 && fd < SP_IO_MAX_FD ? &fds[fd] : NULL;
}

void sp__io_fd_set(int fd, int32_t row, int64_t pos) {
  if (fd >= 0 && !sp_io.fds) {
    const int saved = errno;
    pthread_mutex_lock(&sp_io.lock);
    (void)sp_io_alloc();
    pthread_mutex_unlock(&sp_io.lock);
    errno = saved;
  }
  sp_io_fd_t *e = sp_io_fd(fd);
  if (!e) return;
  __atomic_store_n(&e->pos, pos, __ATOMIC_RELAXED);
  __atomic_store_n(&e->row, row + 1, __ATOMIC_RELAXED);
}

int32_t sp__io_fd_row(int fd, int api, int make) {
  if (fd < 0) return -1;
  sp_io_fd_t *e = sp_io_fd(fd);
  int32_t r = e ? __atomic_load_n(&e->row, __ATOMIC_RELAXED) - 1 : -1;
  if (r >= 0) {
    if (!(sp_io.rec[r].apis & api)) __atomic_fetch_or(&sp_io.rec[r].apis, api, __ATOMIC_RELAXED);
    return r;
  }
  if (!make) return -1;
  char name[32]; /* a descriptor never seen opened: inherited, dup'ed, from before the session */
  snprintf(name, sizeof name, "<fd %d>", fd);
  r = sp__io_file_row(name, api);
  if (r >= 0) sp__io_fd_set(fd, r, -1);
  return r;
}

int64_t sp__io_fd_pos(int fd) {
  sp_io_fd_t *e = sp_io_fd(fd);
  return e ? __atomic_load_n(&e->pos, __ATOMIC_RELAXED) : -1;
}

void sp__io_fd_pos_set(int fd, int64_t pos) {
  sp_io_fd_t *e = sp_io_fd(fd);
  if (e) __atomic_store_n(&e->pos, pos, __ATOMIC_RELAXED);
}

void sp__io_fd_drop(int fd) {
  sp_io_fd_t *e = sp_io_fd(fd);
  if (e) __atomic_store_n(&e->row, 0, __ATOMIC_RELAXED);
}

static void sp_io_add_locked(sp_io_file_rec_t *f, int kind, const char *op, int64_t bytes,
                             int64_t off, int64_t t0, int64_t t1) {
  const int64_t dt = t1 - t0;
  switch (kind) {
  case SP_IO_K_READ:
  case SP_IO_K_WRITE:
    if (kind == SP_IO_K_READ) {
      f->reads++;
      f->read_ns += dt;
      if (bytes > 0) f->bytes_read += bytes;
    } else {
      f->writes++;
      f->write_ns += dt;
      if (bytes > 0) f->bytes_written += bytes;
    }
    if (bytes >= 0) f->hist[sp_io_size_bin(bytes)]++;
    if (bytes > 0 && off >= 0 && off + bytes > f->max_offset) f->max_offset = off + bytes;
    break;
  case SP_IO_K_READ_END: /* a split collective's end: its begin was the operation */
    f->read_ns += dt;
    break;
  case SP_IO_K_WRITE_END:
    f->write_ns += dt;
    break;
  case SP_IO_K_SEEK:
    f->seeks++;
    f->meta_ops++;
    f->meta_ns += dt;
    break;
  case SP_IO_K_SYNC:
    f->syncs++;
    f->meta_ops++;
    f->meta_ns += dt;
    break;
  default:
    f->meta_ops++;
    f->meta_ns += dt;
    if (strstr(op, "open") || strcmp(op, "io:creat") == 0) f->opens++;
  }
  if (f->first_ns < 0 || t0 < f->first_ns) f->first_ns = t0;
  if (t1 > f->last_ns) f->last_ns = t1;
  if (dt > f->slowest_ns) {
    f->slowest_ns = dt;
    f->slowest_start_ns = t0;
    snprintf(f->slowest_op, sizeof f->slowest_op, "%s", op);
  }
}

void sp__io_file_add(int32_t row, int kind, int api, const char *op, int64_t bytes, int64_t off,
                     int64_t t0, int64_t t1) {
  if (row < 0 || row >= SP_IO_MAX_FILES || !sp_io.rec) return;
  pthread_mutex_lock(&sp_io.lock);
  sp_io.rec[row].apis |= api;
  sp_io_add_locked(&sp_io.rec[row], kind, op, bytes, off, t0, t1);
  pthread_mutex_unlock(&sp_io.lock);
}

void sp__io_file_mmap(int32_t row) {
  if (row < 0 || !sp_io.rec) return;
  __atomic_fetch_add(&sp_io.rec[row].mmaps, 1, __ATOMIC_RELAXED);
}

void sp__io_mpi_file_set(uint64_t handle, int32_t row) {
  pthread_mutex_lock(&sp_io.lock);
  int i = 0, free_at = -1;
  while (i < sp_io.nmpi && __atomic_load_n(&sp_io.mpi[i].handle, __ATOMIC_RELAXED) != handle) {
    if (free_at < 0 && sp_io.mpi[i].handle == 0) free_at = i;
    i++;
  }
  if (i == sp_io.nmpi) i = free_at >= 0 ? free_at : sp_io.nmpi < SP_IO_MAX_MPI ? sp_io.nmpi++ : -1;
  if (i >= 0) { /* row and view first: a reader that finds the handle finds them */
    __atomic_store_n(&sp_io.mpi[i].row, row, __ATOMIC_RELAXED);
    __atomic_store_n(&sp_io.mpi[i].plain, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&sp_io.mpi[i].handle, handle, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&sp_io.lock);
}

int32_t sp__io_mpi_file_row(uint64_t handle, int *plain_view) {
  const int n = __atomic_load_n(&sp_io.nmpi, __ATOMIC_ACQUIRE);
  for (int i = 0; handle && i < n; i++)
    if (__atomic_load_n(&sp_io.mpi[i].handle, __ATOMIC_ACQUIRE) == handle) {
      if (plain_view) *plain_view = __atomic_load_n(&sp_io.mpi[i].plain, __ATOMIC_RELAXED);
      return __atomic_load_n(&sp_io.mpi[i].row, __ATOMIC_RELAXED);
    }
  if (plain_view) *plain_view = 0;
  return -1;
}

void sp__io_mpi_file_view(uint64_t handle) {
  const int n = __atomic_load_n(&sp_io.nmpi, __ATOMIC_ACQUIRE);
  for (int i = 0; handle && i < n; i++)
    if (__atomic_load_n(&sp_io.mpi[i].handle, __ATOMIC_ACQUIRE) == handle)
      __atomic_store_n(&sp_io.mpi[i].plain, 0, __ATOMIC_RELAXED);
}

void sp__io_mpi_file_drop(uint64_t handle) {
  pthread_mutex_lock(&sp_io.lock);
  for (int i = 0; handle && i < sp_io.nmpi; i++)
    if (sp_io.mpi[i].handle == handle) __atomic_store_n(&sp_io.mpi[i].handle, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&sp_io.lock);
}

/* A stamp in ticks as CLOCK_MONOTONIC ns (the calibration's interpolation). */
static int64_t sp_io_ns(int64_t ticks) {
  if (ticks < 0) return ticks;
  sp_event_t e = {ticks, ticks};
  int64_t s = 0, en = 0, cursor = 0;
  sp__calib_convert_events(&sp__state.calib, &e, 1, &s, &en, &cursor);
  return s;
}

/* ns per tick over the calibration (1 without points: the ticks are ns). */
static double sp_io_ns_per_tick(void) {
  const sp_calib_t *c = &sp__state.calib;
  if (c->n < 2 || c->pts[c->n - 1].ticks <= c->pts[0].ticks) return 1.0;
  return (double)(c->pts[c->n - 1].ns - c->pts[0].ns) /
         (double)(c->pts[c->n - 1].ticks - c->pts[0].ticks);
}

/* A record's stamps and durations, kept in ticks, as ns. */
static void sp_io_rec_ns(sp_io_file_rec_t *f, double k) {
  f->first_ns = sp_io_ns(f->first_ns);
  f->last_ns = sp_io_ns(f->last_ns);
  f->slowest_start_ns = sp_io_ns(f->slowest_start_ns);
  f->read_ns = (int64_t)((double)f->read_ns * k + 0.5);
  f->write_ns = (int64_t)((double)f->write_ns * k + 0.5);
  f->meta_ns = (int64_t)((double)f->meta_ns * k + 0.5);
  if (f->slowest_ns > 0) f->slowest_ns = (int64_t)((double)f->slowest_ns * k + 0.5);
}

int sp__io_files_pack(char **blob, int64_t *len) {
  *blob = NULL;
  *len = 0;
  pthread_mutex_lock(&sp_io.lock);
  int rc = 0;
  if (sp_io.n > 0) {
    int64_t names_len = 0;
    for (int32_t r = 0; r < sp_io.n; r++) names_len += (int64_t)strlen(sp_io.names[r]) + 1;
    const int64_t n = sp_io.n;
    *len = (int64_t)sizeof(sp_io_blob_head_t) + n * (int64_t)sizeof(sp_io_file_rec_t) + names_len;
    char *b = malloc((size_t)*len);
    if (b) {
      sp_io_blob_head_t h = {SP_IO_BLOB_MAGIC, n, names_len};
      memcpy(b, &h, sizeof h);
      memcpy(b + sizeof h, sp_io.rec, (size_t)n * sizeof(sp_io_file_rec_t));
      const double k = sp_io_ns_per_tick();
      for (int64_t r = 0; r < n; r++) { /* in place: the blob's records are aligned */
        sp_io_file_rec_t f;
        memcpy(&f, b + sizeof h + (size_t)r * sizeof f, sizeof f);
        sp_io_rec_ns(&f, k);
        memcpy(b + sizeof h + (size_t)r * sizeof f, &f, sizeof f);
      }
      char *p = b + sizeof h + (size_t)n * sizeof(sp_io_file_rec_t);
      for (int32_t r = 0; r < sp_io.n; r++) {
        size_t l = strlen(sp_io.names[r]) + 1;
        memcpy(p, sp_io.names[r], l);
        p += l;
      }
      *blob = b;
    } else {
      *len = 0;
      rc = SP_ENOMEM;
    }
  }
  pthread_mutex_unlock(&sp_io.lock);
  return rc;
}

void sp__io_files_reset(void) {
  pthread_mutex_lock(&sp_io.lock);
  for (int32_t r = 0; r < sp_io.n; r++) free(sp_io.names[r]);
  sp_io.n = 0;
  sp_io.full_said = 0;
  sp_io.nmpi = 0;
  if (sp_io.hash) memset(sp_io.hash, 0, SP_IO_HASH * sizeof *sp_io.hash);
  if (sp_io.fds) memset(sp_io.fds, 0, SP_IO_MAX_FD * sizeof *sp_io.fds);
  pthread_mutex_unlock(&sp_io.lock);
}
