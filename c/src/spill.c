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

#include "sp_internal.h"
#include "spill_format.h"

/* Writes one whole record or nothing. */
static int sp_spill_write(int fd, uint32_t type, const void *p1, size_t n1, const void *p2, size_t n2) {
  sp_spill_rec_head_t head = {SP_SPILL_MAGIC, type, (uint64_t)(n1 + n2)};
  uint32_t trailer = SP_SPILL_TRAILER;
  struct iovec iov[4] = {{&head, sizeof head}, {(void *)p1, n1}, {(void *)p2, n2}, {&trailer, sizeof trailer}};
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

static int sp_spill_open(void) {
  sp_state_t *st = &sp__state;
  if (mkdir(st->spill_dir, 0755) != 0 && errno != EEXIST) return SP_EIO;
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  int rank = sp__mpi_rank_if_known();
  /* pid and host in the name: a rerun must never overwrite the spill files
   * of a run that died and has not been recovered yet. */
  int n;
  if (rank >= 0) {
    n = snprintf(st->spill_path, sizeof st->spill_path, "%s/rank%d.%s.%ld.spill", st->spill_dir,
                 rank, host, (long)getpid());
  } else {
    n = snprintf(st->spill_path, sizeof st->spill_path, "%s/%s.%ld.spill", st->spill_dir, host,
                 (long)getpid());
  }
  if (n < 0 || (size_t)n >= sizeof st->spill_path) return SP_EPATH;
  int fd = open(st->spill_path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return SP_EIO;
  sp_spill_header_t h;
  memset(&h, 0, sizeof h);
  h.version = SP_SPILL_VERSION;
  h.clock_tsc = (uint32_t)st->clock_tsc;
  h.pid = (int64_t)getpid();
  h.wall_time = (int64_t)time(NULL);
  memcpy(h.host, host, sizeof h.host);
  int rc = sp_spill_write(fd, SP_SPILL_HEADER, &h, sizeof h, NULL, 0);
  for (int64_t i = 0; rc == 0 && i < st->calib.n; i++)
    rc = sp_spill_write(fd, SP_SPILL_CALIB, &st->calib.pts[i], sizeof st->calib.pts[i], NULL, 0);
  if (rc != 0) {
    close(fd);
    unlink(st->spill_path);
    return rc;
  }
  st->spill_fd = fd;
  return 0;
}

/* Records, before events of region h, what a reader needs to use them. */
static int sp_spill_prepare(int32_t h) {
  sp_state_t *st = &sp__state;
  int rc = 0;
  if (!st->spill_rank_written && sp__mpi_rank_if_known() >= 0) {
    int32_t rs[2] = {st->rank, st->size};
    rc = sp_spill_write(st->spill_fd, SP_SPILL_RANK, rs, sizeof rs, NULL, 0);
    if (rc == 0) st->spill_rank_written = 1;
  }
  for (int w = 0; rc == 0 && w < 2; w++) {
    sp_clock_offset_t *o = &st->clock_off[w];
    if (!o->valid || o->spilled) continue;
    sp_spill_clock_t c = {w, 0, o->offset_ns, o->at_ns, o->error_ns};
    rc = sp_spill_write(st->spill_fd, SP_SPILL_CLOCK, &c, sizeof c, NULL, 0);
    if (rc == 0) o->spilled = 1;
  }
  if (rc == 0 && h >= st->spill_named_cap) {
    int32_t ncap = st->spill_named_cap ? st->spill_named_cap : 64;
    while (ncap <= h) ncap *= 2;
    uint8_t *nn = realloc(st->spill_named, (size_t)ncap);
    if (!nn) return SP_ENOMEM;
    memset(nn + st->spill_named_cap, 0, (size_t)(ncap - st->spill_named_cap));
    st->spill_named = nn;
    st->spill_named_cap = ncap;
  }
  if (rc == 0 && !st->spill_named[h]) {
    const sp_region_entry_t *e = sp__region_get(h);
    int32_t hl[2] = {h, (int32_t)e->len};
    rc = sp_spill_write(st->spill_fd, SP_SPILL_REGION, hl, sizeof hl, e->name, e->len);
    if (rc == 0) st->spill_named[h] = 1;
  }
  /* A calibration point at most once a second keeps the list short while
   * following the NTP slew of CLOCK_MONOTONIC. */
  if (rc == 0 && st->clock_tsc) {
    int64_t now = sp__monotonic_ns();
    if (now - st->last_calib_ns >= 1000000000) {
      sp_calib_point_t p;
      int64_t before = st->calib.n;
      rc = sp__calib_add_now(&st->calib, 1, &p);
      if (rc == 0 && st->calib.n > before)
        rc = sp_spill_write(st->spill_fd, SP_SPILL_CALIB, &p, sizeof p, NULL, 0);
      st->last_calib_ns = now;
    }
  }
  return rc;
}

int sp__spill_events(int32_t region, int32_t thread, const sp_event_t *ev, int64_t n) {
  sp_state_t *st = &sp__state;
  pthread_mutex_lock(&st->lock);
  int rc = 0;
  if (st->spill_fd < 0) rc = sp_spill_open();
  if (rc == 0) rc = sp_spill_prepare(region);
  if (rc == 0) {
    sp_spill_events_t h = {region, thread, n};
    rc = sp_spill_write(st->spill_fd, SP_SPILL_EVENTS, &h, sizeof h, ev, (size_t)n * sizeof *ev);
  }
  if (rc != 0) {
    int err = errno;
    st->spill_failed = 1;
    st->events_lost += n;
    st->events_spill_failed += n;
    pthread_mutex_unlock(&st->lock);
    sp__log(0, SP_LOG_ONCE_SPILL,
            "cannot write spill file in '%s' (%s); events of full buffers are being dropped, "
            "what is on disk stays valid",
            st->spill_dir, strerror(err));
    return rc;
  }
  pthread_mutex_unlock(&st->lock);
  return 0;
}

void sp__spill_close(int remove_file) {
  sp_state_t *st = &sp__state;
  if (st->spill_fd >= 0) {
    close(st->spill_fd);
    st->spill_fd = -1;
    if (remove_file) {
      unlink(st->spill_path);
      rmdir(st->spill_dir); /* only succeeds when no other rank's file is left */
    }
  }
  st->spill_path[0] = '\0';
  free(st->spill_named);
  st->spill_named = NULL;
  st->spill_named_cap = 0;
  st->spill_rank_written = 0;
}
