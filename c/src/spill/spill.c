/* spill.c - appending full buffers to the rank's spill file.
 *
 * Called from whichever thread filled a buffer; one mutex orders the
 * records. Each record goes out in one writev, so after a crash the file
 * holds every record whose write returned. A failed write is cut off again
 * (ftruncate) so later records still follow a complete one. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "host_guard.h"
#include "mpi_comms.h"
#include "mpi_extra.h"
#include "region_source.h"
#include "run_meta.h"
#include "sampler.h"
#include "sp_internal.h"
#include "spill_format.h"

#define SP_SPILL_PART 16384 /* events per EVENTS record (256 KiB), as the writer's parts */

/* This process's spill file, opened at the first flush of a session;
 * changed only under sp__state.lock (or by one thread at setup, finalize
 * and fork). */
static struct {
  int fd; /* -1 while no file is open */
  char path[SP_PATH_MAX];
  int failed;     /* a flush could not be written: data lost */
  uint8_t *named; /* per handle: REGION record written */
  int32_t named_cap;
  int rank_written;      /* RANK record written */
  int32_t comms_written; /* communicators of the MPI table written (sp__mpi_comms_spill) */
  int truncated_written; /* TRUNCATED record written (this session) */
  int64_t events_failed; /* events whose spill write failed */
} sp_spill = {.fd = -1};

const char *sp__spill_path(void) { return sp_spill.fd >= 0 ? sp_spill.path : NULL; }

int64_t sp__spill_events_failed(void) { return sp_spill.events_failed; }

void sp__spill_session_begin(void) {
  sp_spill.truncated_written = 0;
  sp_spill.failed = 0;
  sp_spill.events_failed = 0;
}

void sp__spill_fork_child(void) {
  if (sp_spill.fd >= 0) SP_OWN_IO(close(sp_spill.fd)); /* the parent's stays open */
  sp_spill.fd = -1;
  sp_spill.comms_written = 0; /* a file of its own gets the whole table */
}

/* Writes one whole record or nothing. */
static int sp_spill_write_own(int fd, uint32_t type, const void *p1, size_t n1, const void *p2,
                              size_t n2);

/* The library's own I/O: never one of the program's recorded calls. */
static int sp_spill_write(int fd, uint32_t type, const void *p1, size_t n1, const void *p2,
                          size_t n2) {
  int rc;
  SP_OWN_IO(rc = sp_spill_write_own(fd, type, p1, n1, p2, n2));
  return rc;
}

static int sp_spill_write_own(int fd, uint32_t type, const void *p1, size_t n1, const void *p2,
                              size_t n2) {
  sp_spill_rec_head_t head = {SP_SPILL_MAGIC, type, (uint64_t)(n1 + n2)};
  uint32_t trailer = SP_SPILL_TRAILER;
  struct iovec iov[4] = {
      {&head, sizeof head}, {(void *)p1, n1}, {(void *)p2, n2}, {&trailer, sizeof trailer}};
  size_t total = sizeof head + n1 + n2 + sizeof trailer;
  off_t before = lseek(fd, 0, SEEK_END);
  size_t done = 0;
  int idx = 0;
  while (done < total) {
    ssize_t w = writev(fd, iov + idx, 4 - idx);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      int err = errno ? errno : EIO;
      if (before >= 0 && ftruncate(fd, before) != 0) { /* nothing more to do */
      }
      errno = err;
      return SP_EIO;
    }
    done += (size_t)w;
    size_t adv = (size_t)w;
    while (idx < 4 && adv >= iov[idx].iov_len) adv -= iov[idx++].iov_len;
    if (idx < 4) {
      iov[idx].iov_base = (char *)iov[idx].iov_base + adv;
      iov[idx].iov_len -= adv;
    }
  }
  return 0;
}

/* One record of one piece, for run_meta.c and region_source.c. */
static int sp_spill_rec(uint32_t type, const void *p, size_t n) {
  return sp_spill_write(sp_spill.fd, type, p, n, NULL, 0);
}

void sp__spill_meta_now(void) {
  pthread_mutex_lock(&sp__state.lock);
  if (sp_spill.fd >= 0) sp__meta_spill(sp_spill_rec); /* a failure: the next flush tries again */
  pthread_mutex_unlock(&sp__state.lock);
}

/* The first records of a file: its header, its run id and layout, the calibration points and,
 * once MPI told it, the rank (a file killed right after being named still
 * says whose it is). */
static int sp_spill_write_head(int fd, const char *host) {
  sp_state_t *st = &sp__state;
  sp_spill_header_t h;
  memset(&h, 0, sizeof h);
  h.version = SP_SPILL_VERSION;
  h.clock_tsc = (uint32_t)st->clock_tsc;
  h.pid = (int64_t)getpid();
  h.wall_time = (int64_t)time(NULL);
  memcpy(h.host, host, sizeof h.host);
  int rc = sp_spill_write(fd, SP_SPILL_HEADER, &h, sizeof h, NULL, 0);
  if (rc == 0) rc = sp_spill_write(fd, SP_SPILL_RUN, &st->run_id, sizeof st->run_id, NULL, 0);
  const int32_t layout[2] = {st->cfg.layout, 0};
  if (rc == 0) rc = sp_spill_write(fd, SP_SPILL_LAYOUT, layout, sizeof layout, NULL, 0);
  for (int64_t i = 0; rc == 0 && i < st->calib.n; i++)
    rc = sp_spill_write(fd, SP_SPILL_CALIB, &st->calib.pts[i], sizeof st->calib.pts[i], NULL, 0);
  if (rc == 0 && sp__mpi_rank_if_known() >= 0) {
    int32_t rs[2] = {st->rank, st->size};
    rc = sp_spill_write(fd, SP_SPILL_RANK, rs, sizeof rs, NULL, 0);
    if (rc == 0) sp_spill.rank_written = 1;
  }
  return rc;
}

/* The k-th name to try: pid and host in it, so that a rerun never
 * overwrites the spill files of a run that died and has not been recovered
 * yet. Pids repeat (in containers every job may be pid 7): a name already
 * taken is left as it is and the next of <name>.1.spill, <name>.2.spill ...
 * is used. */
static int sp_spill_name(int k, const char *host, int rank) {
  char nth[16] = "";
  if (k > 0) snprintf(nth, sizeof nth, ".%d", k);
  int n;
  if (rank >= 0) {
    n = snprintf(sp_spill.path, sizeof sp_spill.path, "%s/rank%d.%s.%ld%s.spill",
                 sp__state.spill_dir, rank, host, (long)getpid(), nth);
  } else {
    n = snprintf(sp_spill.path, sizeof sp_spill.path, "%s/%s.%ld%s.spill", sp__state.spill_dir,
                 host, (long)getpid(), nth);
  }
  return n < 0 || (size_t)n >= sizeof sp_spill.path ? SP_EPATH : 0;
}

/* A file without a name in the spill directory, its head written, then
 * named (linkat, which never replaces): a process killed at any moment
 * (mpirun tearing down the ranks during their exit drain, issue 36 item 8)
 * leaves no spill file or one whose header is whole, never an empty one.
 * Returns the descriptor, -1 when the file system has no O_TMPFILE (the
 * caller creates the file by its name), -2 on an error. */
static int sp_spill_open_unnamed(const char *host, int rank) {
  int fd = open(sp__state.spill_dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  if (fd <= 2 && (fd = sp__fd_above_std(fd)) < 0) return -2;
  if (fcntl(fd, F_SETFL, O_APPEND) != 0 || sp_spill_write_head(fd, host) != 0) {
    close(fd);
    return -2;
  }
  char self[64];
  snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  for (int k = 0; k < 1000; k++) {
    if (sp_spill_name(k, host, rank) != 0) break;
    /* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc/self/fd does not. */
    if (linkat(fd, "", AT_FDCWD, sp_spill.path, AT_EMPTY_PATH) == 0 ||
        linkat(AT_FDCWD, self, AT_FDCWD, sp_spill.path, AT_SYMLINK_FOLLOW) == 0)
      return fd;
    if (errno != EEXIST) break;
  }
  close(fd);
  return errno == EEXIST ? -2 : -1; /* no link (no /proc?): by name */
}

static int sp_spill_open_own(void);

/* The library's own I/O (a spill from the hot path of a program's thread
 * too): never one of the program's recorded calls. */
static int sp_spill_open(void) {
  int rc;
  SP_OWN_IO(rc = sp_spill_open_own());
  return rc;
}

static int sp_spill_open_own(void) {
  sp_state_t *st = &sp__state;
  if (mkdir(st->spill_dir, 0755) != 0 && errno != EEXIST) return SP_EIO;
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  int rank = sp__mpi_rank_if_known();
  int fd = sp_spill_open_unnamed(host, rank);
  if (fd >= 0) {
    sp_spill.fd = fd;
    return 0;
  }
  if (fd == -2) return SP_EIO;
  for (int k = 0; fd < 0 && k < 1000; k++) {
    if (sp_spill_name(k, host, rank) != 0) return SP_EPATH;
    fd = open(sp_spill.path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) return SP_EIO;
  }
  if (fd >= 0 && fd <= 2 && (fd = sp__fd_above_std(fd)) < 0) unlink(sp_spill.path);
  if (fd < 0) return SP_EIO;
  int rc = sp_spill_write_head(fd, host);
  if (rc != 0) {
    close(fd);
    unlink(sp_spill.path);
    return rc;
  }
  sp_spill.fd = fd;
  return 0;
}

void sp__spill_head_now(void) {
  sp_state_t *st = &sp__state;
  if (!st->session || !st->cfg.profiling_activated || !st->cfg.time_trace) return;
  pthread_mutex_lock(&st->lock);
  int opened = 0;
  if (sp_spill.fd < 0 && sp__mpi_rank_if_known() >= 0) opened = sp_spill_open() == 0;
  if (opened) sp__meta_spill(sp_spill_rec); /* a failure: the first flush says so, as without this */
  pthread_mutex_unlock(&st->lock);
}

/* Records, before events of region h (or samples: h < 0), what a reader
 * needs to use them. */
static int sp_spill_prepare(int32_t h) {
  sp_state_t *st = &sp__state;
  int rc = 0;
  if (!sp_spill.rank_written && sp__mpi_rank_if_known() >= 0) {
    int32_t rs[2] = {st->rank, st->size};
    rc = sp_spill_write(sp_spill.fd, SP_SPILL_RANK, rs, sizeof rs, NULL, 0);
    if (rc == 0) sp_spill.rank_written = 1;
  }
  for (int w = 0; rc == 0 && w < 2; w++) {
    sp_clock_offset_t *o = &st->clock_off[w];
    if (!o->valid || o->spilled) continue;
    sp_spill_clock_t c = {w, 0, o->offset_ns, o->at_ns, o->error_ns};
    rc = sp_spill_write(sp_spill.fd, SP_SPILL_CLOCK, &c, sizeof c, NULL, 0);
    if (rc == 0) o->spilled = 1;
  }
  if (rc == 0 && h >= 0 && h >= sp_spill.named_cap) {
    int32_t ncap = sp_spill.named_cap ? sp_spill.named_cap : 64;
    while (ncap <= h) ncap *= 2;
    uint8_t *nn = realloc(sp_spill.named, (size_t)ncap);
    if (!nn) return SP_ENOMEM;
    memset(nn + sp_spill.named_cap, 0, (size_t)(ncap - sp_spill.named_cap));
    sp_spill.named = nn;
    sp_spill.named_cap = ncap;
  }
  if (rc == 0 && h >= 0 && !sp_spill.named[h]) {
    const sp_region_entry_t *e = sp__region_get(h);
    int32_t hl[2] = {h, (int32_t)e->len};
    rc = sp_spill_write(sp_spill.fd, SP_SPILL_REGION, hl, sizeof hl, e->name, e->len);
    if (rc == 0) sp_spill.named[h] = 1;
  }
  /* The trace's truncation (TRACE_MAX_MB), so a merged run carries
   * trace_truncated_at as a finished one does. */
  const int64_t cut = __atomic_load_n(&st->trace_truncated_ns, __ATOMIC_RELAXED);
  if (rc == 0 && cut > 0 && !sp_spill.truncated_written) {
    rc = sp_spill_write(sp_spill.fd, SP_SPILL_TRUNCATED, &cut, sizeof cut, NULL, 0);
    if (rc == 0) sp_spill.truncated_written = 1;
  }
  if (rc == 0) rc = sp__source_spill(h, sp_spill_rec);
  /* The communicators the MPI values about to follow may name. */
  if (rc == 0 && st->cfg.profile_mpi)
    rc = sp__mpi_comms_spill(sp_spill_rec, &sp_spill.comms_written);
  if (rc == 0) rc = sp__meta_spill(sp_spill_rec);
  /* A calibration point at most once a second keeps the list short while
   * following the NTP slew of CLOCK_MONOTONIC. */
  if (rc == 0 && st->clock_tsc) {
    int64_t now = sp__monotonic_ns();
    if (now - st->last_calib_ns >= 1000000000) {
      sp_calib_point_t p;
      int64_t before = st->calib.n;
      rc = sp__calib_add_now(&st->calib, 1, &p);
      if (rc == 0 && st->calib.n > before)
        rc = sp_spill_write(sp_spill.fd, SP_SPILL_CALIB, &p, sizeof p, NULL, 0);
      st->last_calib_ns = now;
    }
  }
  return rc;
}

int sp__spill_events(int32_t region, int32_t thread, const sp_event_t *ev, int64_t n) {
  sp_state_t *st = &sp__state;
  pthread_mutex_lock(&st->lock);
  int rc = 0;
  if (sp_spill.fd < 0) rc = sp_spill_open();
  if (rc == 0) rc = sp_spill_prepare(region);
  /* In records of SP_SPILL_PART events at most: a process killed while
   * writing a large buffer (the exit drain of a run without flushes) keeps
   * every record before the one cut (issue 36 item 8). */
  int64_t done = 0;
  while (rc == 0 && done < n) {
    int64_t part = n - done < SP_SPILL_PART ? n - done : SP_SPILL_PART;
    sp_spill_events_t h = {region, thread, part};
    rc = sp_spill_write(sp_spill.fd, SP_SPILL_EVENTS, &h, sizeof h, ev + done,
                        (size_t)part * sizeof *ev);
    if (rc == 0) done += part;
  }
  if (rc != 0) {
    int err = errno;
    sp_spill.failed = 1;
    st->events_lost += n - done;
    sp_spill.events_failed += n - done;
    pthread_mutex_unlock(&st->lock);
    sp__log(SP_LOG_ERROR, SP_LOG_ONCE_SPILL,
            "cannot write spill file in '%s' (%s); events of full buffers are being dropped, "
            "what is on disk stays valid",
            st->spill_dir, strerror(err));
    return rc;
  }
  pthread_mutex_unlock(&st->lock);
  return 0;
}

/* Like sp__spill_events; a failure is the caller's to count. */
int sp__spill_mpi_extra(int32_t region, int32_t thread, const sp_mpi_x_t *x, int64_t n) {
  pthread_mutex_lock(&sp__state.lock);
  int rc = sp_spill.fd < 0 ? sp_spill_open() : 0;
  if (rc == 0) rc = sp_spill_prepare(region);
  if (rc == 0) {
    sp_spill_events_t h = {region, thread, n};
    rc = sp_spill_write(sp_spill.fd, SP_SPILL_MPI_EXTRA_TC, &h, sizeof h, x, (size_t)n * sizeof *x);
  }
  pthread_mutex_unlock(&sp__state.lock);
  return rc;
}

/* The trace was truncated (trace_window.c): its time goes to the spill
 * file now, as no event may follow it there before a SIGKILL. */
void sp__spill_truncated(void) {
  if (!sp__state.cfg.flush_to_disk) return;
  pthread_mutex_lock(&sp__state.lock);
  int rc = sp_spill.fd < 0 ? sp_spill_open() : 0;
  if (rc == 0) sp_spill_prepare(-1); /* a failure: the next spill write tries again */
  pthread_mutex_unlock(&sp__state.lock);
}

/* Like sp__spill_mpi_extra: an int64 count, then the completions. */
int sp__spill_mpi_done(const sp_mpi_done_t *d, int64_t n) {
  pthread_mutex_lock(&sp__state.lock);
  int rc = sp_spill.fd < 0 ? sp_spill_open() : 0;
  if (rc == 0) rc = sp_spill_prepare(-1);
  if (rc == 0)
    rc = sp_spill_write(sp_spill.fd, SP_SPILL_MPI_DONE, &n, sizeof n, d, (size_t)n * sizeof *d);
  pthread_mutex_unlock(&sp__state.lock);
  return rc;
}

/* Like sp__spill_mpi_extra; a key record names its region first. */
int sp__spill_values(const void *head, size_t hlen, const void *body, size_t blen) {
  const sp_spill_values_t *vh = head;
  pthread_mutex_lock(&sp__state.lock);
  int rc = sp_spill.fd < 0 ? sp_spill_open() : 0;
  if (rc == 0) rc = sp_spill_prepare(vh->what == SP_VREC_KEY ? vh->region : -1);
  if (rc == 0) rc = sp_spill_write(sp_spill.fd, SP_SPILL_VALUES, head, hlen, body, blen);
  pthread_mutex_unlock(&sp__state.lock);
  return rc;
}

int sp__spill_samples(const struct sp_sample *s, int64_t n, int64_t maxrss, int64_t period_ns) {
  sp_state_t *st = &sp__state;
  pthread_mutex_lock(&st->lock);
  int rc = sp_spill.fd < 0 ? sp_spill_open() : 0;
  if (rc == 0) rc = sp_spill_prepare(-1);
  if (rc == 0) {
    sp_spill_samples_t h = {n, maxrss, period_ns};
    rc = sp_spill_write(sp_spill.fd, SP_SPILL_SAMPLES, &h, sizeof h, s, (size_t)n * sizeof *s);
  }
  if (rc != 0) sp_spill.failed = 1;
  pthread_mutex_unlock(&st->lock);
  return rc;
}

int sp__spill_io_files(const void *blob, size_t len) {
  sp_state_t *st = &sp__state;
  pthread_mutex_lock(&st->lock);
  int rc = sp_spill.fd < 0 ? sp_spill_open() : 0;
  if (rc == 0) rc = sp_spill_prepare(-1);
  if (rc == 0) rc = sp_spill_write(sp_spill.fd, SP_SPILL_IO_FILES, blob, len, NULL, 0);
  if (rc != 0) sp_spill.failed = 1;
  pthread_mutex_unlock(&st->lock);
  return rc;
}

void sp__spill_close(int remove_file) {
  sp_state_t *st = &sp__state;
  if (sp_spill.fd >= 0) {
    SP_OWN_IO(close(sp_spill.fd));
    sp_spill.fd = -1;
    if (remove_file) {
      unlink(sp_spill.path);
      rmdir(st->spill_dir); /* only succeeds when no other rank's file is left */
    }
  }
  sp_spill.path[0] = '\0';
  free(sp_spill.named);
  sp_spill.named = NULL;
  sp_spill.named_cap = 0;
  sp_spill.rank_written = 0;
  sp_spill.comms_written = 0;
}
