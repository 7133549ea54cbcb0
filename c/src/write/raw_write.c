/* raw_write.c - streaming every event into the datasets' storage.
 *
 * Events are converted to ns and de-interleaved into a round buffer of
 * fixed size; a full buffer is written in one round. Memory stays bounded
 * by the round size whatever the number of events.
 *
 * Independent modes: each rank writes its own blocks and never waits for
 * another rank; the 1 MiB round buffer stays in cache. POSIX: the rank
 * opens the file itself and pwrites (also the serial build's way). MPI-IO:
 * MPI_File_write_at through a collectively opened file, which costs a
 * collective open and close (with many ranks more than small writes:
 * docs/performance.md, "finalize at scale", "Many ranks"). Collective
 * mode: each round is one MPI_File_write_all (two-phase I/O) over all
 * ranks, in 16 MiB rounds so that the number of collective calls stays
 * small. It was several times slower than independent writes (the designs
 * table of "finalize at scale", and "Figures behind design choices in the
 * code"): the blocks are large and every rank's own, so aggregation buys
 * nothing and a synchronisation per round costs. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_extra.h"
#include "par.h"
#include "raw_write.h"

typedef struct sp_sink {
  sp_par_t *par;
  sp_raw_mode_t mode;
  int fd; /* SP_RAW_POSIX */
  char *buf;
  int64_t cap, used;
  sp_block_t *blocks;
  int nblocks, blocks_cap;
  int rc;
  char *mem; /* sp__raw_write_mem: the "file" is this memory, mem_len bytes */
  int64_t mem_len;
} sp_sink_t;

/* Merges blocks that follow each other both in the buffer and in the file
 * (a region's start_times then end_times, then the next region's: the
 * layout keeps them adjacent), so a round takes few write calls. */
static int sp_blocks_merge(sp_block_t *b, int n) {
  int m = 0;
  for (int i = 0; i < n; i++) {
    if (m > 0 && b[i].file_off == b[m - 1].file_off + b[m - 1].len &&
        b[i].mem_off == b[m - 1].mem_off + b[m - 1].len) {
      b[m - 1].len += b[i].len;
    } else {
      b[m++] = b[i];
    }
  }
  return m;
}

static int sp_round(sp_sink_t *s, int active, int *any) {
  int rc = 0;
  if (s->mode != SP_RAW_COLLECTIVE) s->nblocks = sp_blocks_merge(s->blocks, s->nblocks);
  if (s->mem) {
    *any = 0;
    for (int i = 0; i < s->nblocks && rc == 0; i++) {
      const sp_block_t *b = &s->blocks[i];
      if (b->file_off < 0 || b->len > s->mem_len - b->file_off)
        rc = SP_EIO; /* outside the memory: offsets that do not fit it */
      else
        memcpy(s->mem + b->file_off, s->buf + b->mem_off, (size_t)b->len);
    }
  } else if (s->mode == SP_RAW_MPIIO) {
    *any = 0; /* no closing rounds to take part in */
    rc = sp__par_raw_write_at(s->par, s->blocks, s->nblocks, s->buf);
  } else if (s->mode == SP_RAW_COLLECTIVE) {
    rc = sp__par_raw_round(s->par, s->blocks, s->nblocks, s->buf, active, any);
  } else {
    *any = 0;
    for (int i = 0; i < s->nblocks && rc == 0; i++) {
      const sp_block_t *b = &s->blocks[i];
      int64_t done = 0;
      while (done < b->len) {
        ssize_t w = pwrite(s->fd, s->buf + b->mem_off + done, (size_t)(b->len - done),
                           (off_t)(b->file_off + done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
          rc = SP_EIO;
          break;
        }
        done += w;
      }
    }
  }
  s->used = 0;
  s->nblocks = 0;
  if (rc != 0 && s->rc == 0) s->rc = rc;
  return rc;
}

static void *sp_block_add(sp_sink_t *s, int64_t file_off, int64_t len) {
  /* Into memory (sp__raw_write_mem): straight into place, no round buffer
   * to fill and copy (docs/performance.md, "the columnar finalize's CPU"). */
  if (s->mem) {
    if (file_off >= 0 && len <= s->mem_len - file_off) return s->mem + file_off;
    s->rc = SP_EIO; /* outside the memory: offsets that do not fit it */
    return NULL;
  }
  if (s->nblocks == s->blocks_cap) {
    int ncap = s->blocks_cap ? s->blocks_cap * 2 : 64;
    sp_block_t *nb = realloc(s->blocks, (size_t)ncap * sizeof *nb);
    if (!nb) return NULL;
    s->blocks = nb;
    s->blocks_cap = ncap;
  }
  sp_block_t *b = &s->blocks[s->nblocks++];
  b->file_off = file_off;
  b->mem_off = s->used;
  b->len = len;
  s->used += (len + 7) & ~(int64_t)7;
  return s->buf + b->mem_off;
}

/* Per event: 8 + 8 bytes of stamps, 4 (padded) of thread id. */
static int64_t sp_events_fitting(const sp_sink_t *s, int tids) {
  int64_t per = 16 + (tids ? 4 : 0);
  int64_t room = s->cap - s->used - 3 * 8; /* padding of three blocks */
  return room > 0 ? room / per : 0;
}

/* Writes events ev[0..k) of one thread as positions pos.. of a region. */
static int sp_put(sp_sink_t *s, const sp_region_offsets_t *o, int64_t pos, const sp_event_t *ev,
                  int64_t k, int32_t thread, const sp_calib_t *calib, int64_t *cursor) {
  int64_t *st = sp_block_add(s, o->start_times + pos * 8, k * 8);
  int64_t *en = sp_block_add(s, o->end_times + pos * 8, k * 8);
  int32_t *ti = o->thread_ids >= 0 ? sp_block_add(s, o->thread_ids + pos * 4, k * 4) : NULL;
  if (!st || !en || (o->thread_ids >= 0 && !ti)) return SP_ENOMEM;
  sp__calib_convert_events(calib, ev, k, st, en, cursor);
  for (int64_t j = 0; ti && j < k; j++) ti[j] = thread;
  return 0;
}

/* Streams one source of events (spill chunk or memory buffer). */
static int sp_put_source(sp_sink_t *s, const sp_local_t *l, const sp_region_offsets_t *o,
                         int64_t *pos, const sp_spill_chunk_t *chunk, const sp_event_t *mem,
                         int64_t n, int32_t thread, sp_event_t *tmp, int64_t tmp_cap) {
  int64_t cursor = 0, done = 0;
  int any;
  while (done < n) {
    int64_t k = sp_events_fitting(s, o->thread_ids >= 0);
    if (k > n - done) k = n - done;
    if (chunk && k > tmp_cap) k = tmp_cap;
    if (k <= 0) {
      sp_round(s, 1, &any);
      continue;
    }
    const sp_event_t *ev = mem ? mem + done : tmp;
    if (chunk) {
      int rc = sp__spill_read(&l->spill, chunk, done, k, tmp);
      if (rc != 0) return rc;
    }
    int rc = sp_put(s, o, *pos, ev, k, thread, l->calib, &cursor);
    if (rc != 0) return rc;
    done += k;
    *pos += k;
  }
  return 0;
}

/* Chunks ordered by (region, thread, place in the file): each region's
 * chunks are one run, thread by thread, in the order they were recorded. */
static int sp_chunk_cmp(const void *a, const void *b, void *arg) {
  const sp_spill_chunk_t *c = arg;
  const int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
  if (c[i].region != c[j].region) return c[i].region < c[j].region ? -1 : 1;
  if (c[i].thread != c[j].thread) return c[i].thread < c[j].thread ? -1 : 1;
  return (i > j) - (i < j);
}

/* The first entry of order whose chunk belongs to region h (or n). */
static int64_t sp_first_chunk(const sp_spill_file_t *f, const int64_t *order, int32_t h) {
  int64_t lo = 0, hi = f->nchunks;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (f->chunks[order[mid]].region < h)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Thread by thread: its spilled chunks, then what it still holds in
 * memory. Only threads that have either are visited, so the work is the
 * region's chunks plus the rank's threads (none when recovering). */
static int sp_put_region(sp_sink_t *s, const sp_local_t *l, int32_t i, const sp_region_offsets_t *o,
                         const int64_t *order, sp_event_t *tmp, int64_t tmp_cap) {
  const int32_t h = l->handles[i];
  const sp_spill_chunk_t *ch = l->spill.chunks;
  const int64_t n = l->spill.nchunks;
  const int32_t nt = l->threads ? l->nthreads : 0;
  int64_t pos = 0, k = n > 0 ? sp_first_chunk(&l->spill, order, h) : 0;
  int32_t ti = 0;
  while ((k < n && ch[order[k]].region == h) || ti < nt) {
    const int more = k < n && ch[order[k]].region == h;
    const int32_t next = more ? ch[order[k]].thread : INT32_MAX;
    const int mem_turn = ti < nt && ti <= next;
    const int32_t t = mem_turn ? ti : next;
    for (; k < n && ch[order[k]].region == h && ch[order[k]].thread == t; k++) {
      const sp_spill_chunk_t *c = &ch[order[k]];
      int rc = sp_put_source(s, l, o, &pos, c, NULL, c->n, t, tmp, tmp_cap);
      if (rc != 0) return rc;
    }
    if (!mem_turn) continue;
    const sp_thread_t *th = l->threads[ti];
    if (th && h < th->nbufs && th->bufs[h].n > 0) {
      int rc = sp_put_source(s, l, o, &pos, NULL, th->bufs[h].ev, th->bufs[h].n, ti, tmp, tmp_cap);
      if (rc != 0) return rc;
    }
    ti++;
  }
  return pos == l->plan.regions[i].nevents ? 0 : SP_ESPILL;
}

/* ---- MPI call regions: bytes and peer (mpi_extra.h) ---- */

/* Writes values x[0..k) as positions pos.. of the bytes, peer, tag and
 * comm datasets (the last two where o has them); x NULL: k values not
 * known (-1 each). */
static int sp_put_x(sp_sink_t *s, const sp_region_offsets_t *o, int64_t pos, const sp_mpi_x_t *x,
                    int64_t k) {
  int64_t *by = sp_block_add(s, o->bytes + pos * 8, k * 8);
  int32_t *pe = sp_block_add(s, o->peer + pos * 4, k * 4);
  int32_t *tg = o->tag >= 0 ? sp_block_add(s, o->tag + pos * 4, k * 4) : NULL;
  int32_t *cm = o->comm >= 0 ? sp_block_add(s, o->comm + pos * 4, k * 4) : NULL;
  if (!by || !pe || (o->tag >= 0 && !tg) || (o->comm >= 0 && !cm)) return SP_ENOMEM;
  for (int64_t j = 0; j < k; j++) {
    by[j] = x ? sp__mpi_x_bytes(&x[j]) : -1;
    pe[j] = x ? x[j].peer : -1;
    if (tg) tg[j] = x ? x[j].tag : -1;
    if (cm) cm[j] = x ? sp__mpi_x_comm(&x[j]) : -1;
  }
  return 0;
}

/* Streams n values (from a chunk through tmp, from memory, or unknown). */
static int sp_put_x_source(sp_sink_t *s, const sp_local_t *l, const sp_region_offsets_t *o,
                           int64_t *pos, const sp_spill_chunk_t *chunk, const sp_mpi_x_t *mem,
                           int64_t n, sp_mpi_x_t *tmp, int64_t tmp_cap) {
  int64_t done = 0;
  int any;
  while (done < n) {
    int64_t room = s->cap - s->used - 4 * 8; /* padding of four blocks */
    int64_t k = room > 0 ? room / 20 : 0;
    if (k > n - done) k = n - done;
    if (chunk && k > tmp_cap) k = tmp_cap;
    if (k <= 0) {
      sp_round(s, 1, &any);
      continue;
    }
    if (chunk) {
      int rc = sp__spill_read_x(&l->spill, chunk, done, k, tmp);
      if (rc != 0) return rc;
    }
    int rc = sp_put_x(s, o, *pos, chunk ? tmp : mem ? mem + done : NULL, k);
    if (rc != 0) return rc;
    done += k;
    *pos += k;
  }
  return 0;
}

/* Thread t's values of region h as positions *pos.. up to end. */
static int sp_put_extras_thread(sp_sink_t *s, const sp_local_t *l, int32_t h, int32_t t,
                                const sp_thread_t *th, const sp_region_offsets_t *o, int64_t *at,
                                const int64_t end, sp_mpi_x_t *tmp, int64_t tmp_cap) {
  const sp_spill_file_t *f = &l->spill;
  int64_t pos = *at;
  for (int64_t c = 0; c < f->nxchunks && pos < end; c++) {
    const sp_spill_chunk_t *x = &f->xchunks[c];
    if (x->region != h || x->thread != t) continue;
    int rc =
        sp_put_x_source(s, l, o, &pos, x, NULL, x->n < end - pos ? x->n : end - pos, tmp, tmp_cap);
    if (rc != 0) return rc;
  }
  const sp_mpi_x_t *mem = NULL;
  int64_t nm = th ? sp__mpi_extra_mem(th, h, &mem) : 0;
  if (nm > end - pos) nm = end - pos;
  int rc = nm > 0 ? sp_put_x_source(s, l, o, &pos, NULL, mem, nm, NULL, 0) : 0;
  if (rc == 0 && pos < end) rc = sp_put_x_source(s, l, o, &pos, NULL, NULL, end - pos, NULL, 0);
  *at = pos;
  return rc;
}

/* Thread by thread, as sp_put_region placed the events: each thread's
 * values (spilled, then in memory) line up with its events; values
 * beyond its events are dropped, missing ones written as unknown. */
static int sp_put_extras(sp_sink_t *s, const sp_local_t *l, int32_t i, const sp_region_offsets_t *o,
                         const int64_t *order, sp_mpi_x_t *tmp, int64_t tmp_cap) {
  const int32_t h = l->handles[i];
  const sp_spill_file_t *f = &l->spill;
  /* The region's spilled events per thread: its run of the sorted chunks. */
  int64_t *spilled = calloc((size_t)(l->nthreads > 0 ? l->nthreads : 1), sizeof *spilled);
  if (!spilled) return SP_ENOMEM;
  for (int64_t k = f->nchunks > 0 ? sp_first_chunk(f, order, h) : 0;
       k < f->nchunks && f->chunks[order[k]].region == h; k++)
    if (f->chunks[order[k]].thread < l->nthreads)
      spilled[f->chunks[order[k]].thread] += f->chunks[order[k]].n;
  int64_t pos = 0;
  int rc = 0;
  for (int32_t t = 0; rc == 0 && t < l->nthreads; t++) {
    const sp_thread_t *th = l->threads ? l->threads[t] : NULL;
    int64_t need = spilled[t];
    if (th && h < th->nbufs) need += th->bufs[h].n;
    rc = sp_put_extras_thread(s, l, h, t, th, o, &pos, pos + need, tmp, tmp_cap);
  }
  free(spilled);
  return rc;
}

/* Every region's events (and MPI extras) of l through the sink's rounds.
 * rc0: this rank's status so far (the file could not be opened: it still
 * takes part in the collective rounds); opened: the MPI-IO file is open. */
static int sp_raw_stream(sp_sink_t s, const sp_local_t *l, const sp_region_offsets_t *offs, int rc0,
                         int opened) {
  const sp_raw_mode_t mode = s.mode;
  sp_par_t *par = s.par;
  const int64_t round_bytes = s.cap;
  int64_t tmp_cap = round_bytes / 20;
  sp_event_t *tmp = malloc((size_t)tmp_cap * sizeof *tmp);
  s.buf = s.mem ? NULL : malloc((size_t)round_bytes); /* memory: written in place */
  int64_t *order = malloc((size_t)(l->spill.nchunks ? l->spill.nchunks : 1) * sizeof *order);
  for (int64_t c = 0; order && c < l->spill.nchunks; c++) order[c] = c;
  if (order && l->spill.nchunks > 1)
    qsort_r(order, (size_t)l->spill.nchunks, sizeof *order, sp_chunk_cmp, l->spill.chunks);
  int rc = (tmp && (s.buf || s.mem) && order) ? 0 : SP_ENOMEM;
  if (rc == 0) rc = rc0;
  /* Even after an error this rank takes part in every collective round
   * until all ranks are done, or the others would wait forever in it. */
  for (int32_t i = 0; rc == 0 && i < l->plan.nregions; i++)
    if (l->plan.regions[i].nevents > 0) {
      rc = sp_put_region(&s, l, i, &offs[i], order, tmp, tmp_cap);
      if (rc == 0 && offs[i].bytes >= 0)
        rc = sp_put_extras(&s, l, i, &offs[i], order, (sp_mpi_x_t *)(void *)tmp, tmp_cap);
    }
  if (rc != 0) s.nblocks = 0;
  int any = 1;
  if (mode == SP_RAW_POSIX || opened) {
    sp_round(&s, s.nblocks > 0, &any);
    while (any) sp_round(&s, 0, &any);
  }
  if (opened && sp__par_raw_close(par) != 0 && rc == 0) rc = SP_EIO;
  if (s.fd >= 0 && close(s.fd) != 0 && rc == 0) rc = SP_EIO;
  if (rc == 0 || (s.mem && s.rc != 0)) rc = s.rc;
  free(s.buf);
  free(s.blocks);
  free(tmp);
  free(order);
  return rc;
}

int sp__raw_write_mem(const sp_local_t *l, const sp_region_offsets_t *offs, char *mem,
                      int64_t mem_len, int64_t round_bytes) {
  sp_par_t serial = {.active = 0, .rank = 0, .size = 1};
  sp_sink_t s = {.par = &serial,
                 .mode = SP_RAW_POSIX,
                 .fd = -1,
                 .cap = round_bytes,
                 .mem = mem,
                 .mem_len = mem_len};
  return sp_raw_stream(s, l, offs, 0, 0);
}

int sp__raw_write(sp_par_t *par, const char *path, const sp_local_t *l,
                  const sp_region_offsets_t *offs, sp_raw_mode_t mode, int64_t round_bytes) {
  sp_sink_t s = {.par = par, .mode = mode, .fd = -1, .cap = round_bytes};
  int rc = 0;
  int opened = 0; /* the collective MPI-IO open succeeded */
  if (mode != SP_RAW_POSIX) {
    int orc = sp__par_raw_open(par, path);
    if (orc == 0)
      opened = 1;
    else
      rc = orc;
  } else {
    s.fd = open(path, O_WRONLY | O_CLOEXEC);
    if (s.fd < 0) rc = SP_EIO;
  }
  return sp_raw_stream(s, l, offs, rc, opened);
}
