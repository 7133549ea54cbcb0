/* spill_read.c - indexing and reading spill files.
 *
 * The same code reads a finished run's spill file at finalize and a dead
 * run's files at recovery, so recovery is exercised by every flushed run. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "region_source.h"
#include "completions_write.h"
#include "samples_write.h"
#include "mpi_extra.h"
#include "spill_read.h"

static int sp_push_chunk(sp_spill_chunk_t **chunks, int64_t *n, sp_spill_chunk_t c) {
  if ((*n & (*n - 1)) == 0) { /* grow at powers of two */
    int64_t ncap = *n ? *n * 2 : 16;
    sp_spill_chunk_t *nc = realloc(*chunks, (size_t)ncap * sizeof *nc);
    if (!nc) return SP_ENOMEM;
    *chunks = nc;
  }
  (*chunks)[(*n)++] = c;
  return 0;
}

static int sp_set_name(sp_spill_file_t *f, int32_t h, const char *name, uint32_t len) {
  if (h < 0 || h >= SP_SPILL_MAX_HANDLES) return SP_ESPILL;
  if (h >= f->nnames) {
    int32_t ncap = f->nnames ? f->nnames : 64;
    while (ncap <= h) ncap *= 2;
    char **nn = realloc(f->names, (size_t)ncap * sizeof *nn);
    if (!nn) return SP_ENOMEM;
    memset(nn + f->nnames, 0, (size_t)(ncap - f->nnames) * sizeof *nn);
    f->names = nn;
    f->nnames = ncap;
  }
  free(f->names[h]);
  f->names[h] = malloc((size_t)len + 1);
  if (!f->names[h]) return SP_ENOMEM;
  memcpy(f->names[h], name, len);
  f->names[h][len] = '\0';
  return 0;
}

static int sp_set_source(sp_spill_file_t *f, int32_t h, const char *file, size_t flen,
                         int64_t line) {
  if (h >= SP_SPILL_MAX_HANDLES) return SP_ESPILL;
  if (h >= f->nsrc) {
    int32_t ncap = f->nsrc ? f->nsrc : 64;
    while (ncap <= h) ncap *= 2;
    char **nf = realloc(f->src_file, (size_t)ncap * sizeof *nf);
    if (!nf) return SP_ENOMEM;
    f->src_file = nf;
    int64_t *nl = realloc(f->src_line, (size_t)ncap * sizeof *nl);
    if (!nl) return SP_ENOMEM;
    f->src_line = nl;
    memset(nf + f->nsrc, 0, (size_t)(ncap - f->nsrc) * sizeof *nf);
    f->nsrc = ncap;
  }
  char *c = malloc(flen + 1);
  if (!c) return SP_ENOMEM;
  memcpy(c, file, flen);
  c[flen] = '\0';
  free(f->src_file[h]);
  f->src_file[h] = c;
  f->src_line[h] = line;
  return 0;
}

/* A META or SOURCE record (run_meta.c, region_source.c). */
static int sp_index_meta(sp_spill_file_t *f, const sp_spill_rec_head_t *h, int64_t off) {
  if (h->len > 2 * (uint64_t)SP_META_VALUE_MAX + 64) return SP_ESPILL;
  char *p = malloc(h->len ? (size_t)h->len : 1);
  if (!p) return SP_ENOMEM;
  int rc = sp__pread_full(f->fd, p, (size_t)h->len, off) ? SP_ESPILL : 0;
  if (rc == 0 && h->type == SP_SPILL_META) {
    rc = sp__meta_from_spill(&f->meta, p, (size_t)h->len);
  } else if (rc == 0) {
    int32_t region;
    int64_t line;
    const char *file;
    size_t flen;
    rc = sp__source_from_spill(p, (size_t)h->len, &region, &line, &file, &flen);
    if (rc == 0) rc = sp_set_source(f, region, file, flen, line);
  }
  free(p);
  return rc;
}

/* A communicator of the MPI table: int32 id, int32 size, size world ranks
 * (read by recovery). */
static int sp_index_comms(sp_spill_file_t *f, const sp_spill_rec_head_t *h, int64_t off) {
  int32_t is[2];
  if (h->len < sizeof is || sp__pread_full(f->fd, is, sizeof is, off)) return SP_ESPILL;
  if (is[0] < 0 || is[1] < 0 || is[1] > (1 << 24) ||
      h->len != sizeof is + (uint64_t)is[1] * sizeof(int32_t))
    return SP_ESPILL;
  if (is[0] >= 0xFFFF) return 0; /* no call names it (mpi_extra.h sp__mpi_x_pack) */
  sp_spill_chunk_t c = {is[0], -1, is[1], off + (int64_t)sizeof is, 0};
  return sp_push_chunk(&f->comms, &f->ncomms_chunks, c);
}

/* Handles one whole record whose payload starts at off; SP_ESPILL when it
 * is inconsistent (the caller skips it). */
static int sp_index_record(sp_spill_file_t *f, const sp_spill_rec_head_t *h, int64_t off) {
  switch (h->type) {
  case SP_SPILL_HEADER:
    return SP_ESPILL; /* only the first record may be one */
  case SP_SPILL_RANK: {
    int32_t rs[2];
    if (h->len != sizeof rs || sp__pread_full(f->fd, rs, sizeof rs, off)) return SP_ESPILL;
    if (rs[1] <= 0 || rs[1] > (1 << 24) || rs[0] < 0 || rs[0] >= rs[1]) return SP_ESPILL;
    f->rank = rs[0];
    f->size = rs[1];
    return 0;
  }
  case SP_SPILL_REGION: {
    int32_t hl[2];
    if (h->len < sizeof hl || sp__pread_full(f->fd, hl, sizeof hl, off)) return SP_ESPILL;
    if (hl[1] <= 0 || hl[1] > SP_NAME_MAX || h->len != sizeof hl + (uint64_t)hl[1])
      return SP_ESPILL;
    char name[SP_NAME_MAX];
    if (sp__pread_full(f->fd, name, (size_t)hl[1], off + (int64_t)sizeof hl)) return SP_ESPILL;
    return sp_set_name(f, hl[0], name, (uint32_t)hl[1]);
  }
  case SP_SPILL_EVENTS:
  case SP_SPILL_MPI_EXTRA:
  case SP_SPILL_MPI_EXTRA_TC: { /* all: a head, then n records of 16 bytes */
    sp_spill_events_t e;
    const uint64_t rec = sizeof(sp_event_t);
    if (h->len < sizeof e || sp__pread_full(f->fd, &e, sizeof e, off)) return SP_ESPILL;
    /* Division, not e.n * rec: a crafted count must not wrap into a match. */
    if (e.n < 0 || (h->len - sizeof e) % rec != 0 || (uint64_t)e.n != (h->len - sizeof e) / rec)
      return SP_ESPILL;
    if (e.region < 0 || e.region >= f->nnames || !f->names[e.region]) return SP_ESPILL;
    if (e.thread < 0 || e.thread >= SP_SPILL_MAX_THREADS) return SP_ESPILL;
    sp_spill_chunk_t c = {e.region, e.thread, e.n, off + (int64_t)sizeof e,
                          h->type == SP_SPILL_MPI_EXTRA ? 1 : 0};
    if (h->type != SP_SPILL_EVENTS) return sp_push_chunk(&f->xchunks, &f->nxchunks, c);
    return sp_push_chunk(&f->chunks, &f->nchunks, c);
  }
  case SP_SPILL_LAYOUT: {
    int32_t v[2];
    if (h->len != sizeof v || sp__pread_full(f->fd, v, sizeof v, off) || v[0] < SP_LAYOUT_AUTO ||
        v[0] > SP_LAYOUT_BOTH)
      return SP_ESPILL;
    f->layout = v[0];
    return 0;
  }
  case SP_SPILL_TRUNCATED: {
    int64_t ns;
    if (h->len != sizeof ns || sp__pread_full(f->fd, &ns, sizeof ns, off) || ns <= 0)
      return SP_ESPILL;
    if (f->truncated_ns == 0) f->truncated_ns = ns;
    return 0;
  }
  case SP_SPILL_RUN: {
    uint64_t id;
    if (h->len != sizeof id || sp__pread_full(f->fd, &id, sizeof id, off) || id == 0)
      return SP_ESPILL;
    f->run_id = id;
    return 0;
  }
  case SP_SPILL_CALIB: {
    sp_calib_point_t p;
    if (h->len != sizeof p || sp__pread_full(f->fd, &p, sizeof p, off)) return SP_ESPILL;
    return sp__calib_push(&f->calib, p);
  }
  case SP_SPILL_CLOCK: {
    sp_spill_clock_t c;
    if (h->len != sizeof c || sp__pread_full(f->fd, &c, sizeof c, off)) return SP_ESPILL;
    if (c.which < 0 || c.which > 1 || c.error_ns < 0) return SP_ESPILL;
    f->clock[c.which] = (sp_clock_offset_t){c.offset_ns, c.at_ns, c.error_ns, 1, 1};
    return 0;
  }
  case SP_SPILL_META:
  case SP_SPILL_SOURCE:
    return sp_index_meta(f, h, off);
  case SP_SPILL_SAMPLES:
    return sp__samples_index_record(f, h->len, off); /* samples_write.c */
  case SP_SPILL_MPI_DONE:
    return sp__done_index_record(f, h->len, off); /* completions_write.c */
  case SP_SPILL_MPI_COMMS:
    return sp_index_comms(f, h, off);
  case SP_SPILL_IO_FILES: /* read by recovery (io_write.c), the last one whole */
    f->io_off = off;
    f->io_len = (int64_t)h->len;
    return 0;
  case SP_SPILL_VALUES: { /* checked whole when read (values_write.c) */
    if (h->len < sizeof(sp_spill_values_t)) return SP_ESPILL;
    sp_spill_chunk_t c = {-1, -1, (int64_t)h->len, off, 0};
    return sp_push_chunk(&f->vchunks, &f->nvchunks, c);
  }
  default:
    return 0; /* a newer writer's record type: skip it */
  }
}

/* 1 when a whole record (head, payload, trailer) starts at off; *next is
 * where the following one starts. */
static int sp_whole_record(const sp_spill_file_t *f, int64_t off, int64_t size,
                           sp_spill_rec_head_t *h, int64_t *next) {
  uint32_t trailer = 0;
  const int64_t payload = off + (int64_t)sizeof *h;
  if (size - off < (int64_t)sizeof *h || sp__pread_full(f->fd, h, sizeof *h, off)) return 0;
  if (h->magic != SP_SPILL_MAGIC || h->len > (uint64_t)(size - payload)) return 0;
  const int64_t end = payload + (int64_t)h->len;
  if (size - end < (int64_t)sizeof trailer || sp__pread_full(f->fd, &trailer, sizeof trailer, end))
    return 0;
  *next = end + (int64_t)sizeof trailer;
  return trailer == SP_SPILL_TRAILER;
}

/* The first offset >= from where a whole record starts, or -1. Scans for
 * the magic in blocks, so a damaged span costs one read per 64 KiB. */
static int64_t sp_resync(const sp_spill_file_t *f, int64_t from, int64_t size) {
  enum { BLOCK = 1 << 16 };
  static const uint32_t magic = SP_SPILL_MAGIC;
  unsigned char *buf = malloc(BLOCK); /* not on the stack: finalize may run on a small one */
  int64_t found = -1;
  for (int64_t base = from; buf && found < 0 && base < size; base += BLOCK - 3) {
    size_t want = size - base < BLOCK ? (size_t)(size - base) : BLOCK;
    if (want < sizeof magic || sp__pread_full(f->fd, buf, want, base)) break;
    for (size_t i = 0; found < 0 && i + sizeof magic <= want; i++) {
      sp_spill_rec_head_t h;
      int64_t next;
      if (memcmp(buf + i, &magic, sizeof magic) == 0 &&
          sp_whole_record(f, base + (int64_t)i, size, &h, &next))
        found = base + (int64_t)i;
    }
    if (want < BLOCK) break;
  }
  free(buf);
  return found;
}

static void sp_note_damage(sp_spill_file_t *f, int64_t off) {
  if (f->damaged++ == 0) f->first_damage = off;
}

int sp__spill_index(const char *path, sp_spill_file_t *f) {
  memset(f, 0, sizeof *f);
  f->rank = -1;
  f->layout = -1;
  f->size = 0;
  f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (f->fd < 0) return SP_EIO;
  struct stat sb;
  if (fstat(f->fd, &sb) != 0) return SP_EIO;
  if (!S_ISREG(sb.st_mode)) return SP_ESPILL; /* a FIFO or device would block or never end */
  const int64_t size = (int64_t)sb.st_size;
  /* The first record must be a valid header of this version: without it
   * neither the clock nor the layout of the rest can be trusted. */
  sp_spill_rec_head_t h;
  int64_t off = 0;
  /* Cut before its header was whole (created by name by a process killed
   * at once; O_TMPFILE files are named with their header): no events. */
  uint32_t magic = SP_SPILL_MAGIC;
  f->head_cut = size < (int64_t)(sizeof h + sizeof f->header + sizeof(uint32_t)) &&
                (size < (int64_t)sizeof magic ||
                 (sp__pread_full(f->fd, &magic, sizeof magic, 0) == 0 && magic == SP_SPILL_MAGIC));
  if (!sp_whole_record(f, 0, size, &h, &off) || h.type != SP_SPILL_HEADER ||
      h.len != sizeof f->header ||
      sp__pread_full(f->fd, &f->header, sizeof f->header, (int64_t)sizeof h))
    return SP_ESPILL;
  f->header.host[sizeof f->header.host - 1] = '\0';
  if (f->header.version != SP_SPILL_VERSION || f->header.clock_tsc > 1) return SP_ESPILL;
  while (off < size) {
    int64_t next;
    if (!sp_whole_record(f, off, size, &h, &next)) {
      int64_t again = sp_resync(f, off + 1, size);
      if (again < 0) break; /* the torn tail */
      sp_note_damage(f, off);
      off = again;
      continue;
    }
    int rc = sp_index_record(f, &h, off + (int64_t)sizeof h);
    if (rc == SP_ESPILL)
      sp_note_damage(f, off);
    else if (rc != 0)
      return rc;
    off = next;
  }
  f->damaged_bytes = size - off;
  return 0;
}

int sp__spill_read(const sp_spill_file_t *f, const sp_spill_chunk_t *c, int64_t first,
                   int64_t count, sp_event_t *out) {
  if (first < 0 || count < 0 || first + count > c->n) return SP_EINVAL;
  int64_t off = c->offset + first * (int64_t)sizeof(sp_event_t);
  return sp__pread_full(f->fd, out, (size_t)count * sizeof(sp_event_t), off) ? SP_EIO : 0;
}

int sp__spill_read_x(const sp_spill_file_t *f, const sp_spill_chunk_t *c, int64_t first,
                     int64_t count, void *out) {
  if (first < 0 || count < 0 || first + count > c->n) return SP_EINVAL;
  if (sp__pread_full(f->fd, out, (size_t)count * 16, c->offset + first * 16)) return SP_EIO;
  if (!c->old) return 0;
  /* An older file's {int64 bytes, int32 peer, 0}: no tag, no communicator. */
  sp_mpi_x_t *x = out;
  for (int64_t i = 0; i < count; i++) {
    x[i].bytes_comm = sp__mpi_x_pack((int64_t)x[i].bytes_comm, -1);
    x[i].tag = -1;
  }
  return 0;
}

void sp__spill_free(sp_spill_file_t *f) {
  if (f->fd > 0) close(f->fd);
  for (int32_t i = 0; i < f->nnames; i++) free(f->names[i]);
  free(f->names);
  free(f->chunks);
  free(f->xchunks);
  free(f->vchunks);
  free(f->comms);
  for (int32_t i = 0; i < f->nsrc; i++) free(f->src_file[i]);
  free(f->src_file);
  free(f->src_line);
  sp__meta_list_free(&f->meta);
  free(f->samples);
  free(f->done);
  sp__calib_reset(&f->calib);
  memset(f, 0, sizeof *f);
  f->fd = -1;
}
