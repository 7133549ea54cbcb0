/* reader_gheap.c - the global heap collections of a file checked before
 * HDF5 reads a variable-length string from one.
 *
 * Variable-length strings (hostnames, run metadata, region names, source
 * files) are kept in global heap collections ("GCOL"), and HDF5 1.10 trusts
 * what a collection says about its objects: a free-space object of size 0
 * makes its parse loop forever (a zeroed run hung every reader), an object
 * whose size runs past the collection makes H5HG_read copy past its buffer
 * (a flipped bit crashed them in memcpy). So before the file is opened,
 * every collection in it is parsed here as HDF5 will parse it: each object
 * must move the parse forward and end inside the collection, and the
 * collection inside the file. One that does not makes the open fail with
 * SP_READER_ELAYOUT and a message; HDF5 never sees it.
 *
 * Collections are found by their signature, anywhere in the file (their
 * addresses are only in the data that refers to them, and HDF5 puts them
 * between the raw data as it grows the file): the file is read in 1 MiB
 * blocks and searched for the signature (sp_find_gcol). That is one more pass over the file at
 * open, about 1.4 ms per MB from the page cache on the 2-core test machine
 * (330 ms for a 228 MB profile).
 * A signature whose version byte is not 1 is not one HDF5 would accept
 * either (it checks both and reports an error), so it is left alone, as is
 * one whose reserved bytes are not 0 (no writer leaves them so). What
 * The scan also keeps every object it walked (collection, index, size) in
 * r->gheap, so that a reference to one (a heap ID inside a variable-length
 * attribute: collection address, object index, length) can be checked
 * before HDF5 follows it (reader_heap_ids.c): HDF5 1.10 indexes its object
 * table with the ID's index unchecked (an index past it crashed every
 * reader) and copies the object's whole size into a buffer of the ID's
 * length. */
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "reader_internal.h"

#define SP_GCOL_HEAD 16    /* signature, version, 3 reserved, size (8 bytes) */
#define SP_GCOL_OBJHEAD 16 /* index (2), references (2), reserved (4), size (8) */
#define SP_GCOL_MIN 4096   /* H5HG_MINSIZE */

/* One object of a sound collection: where the collection starts (a file
 * offset), the object's index and size. */
typedef struct sp_gobj {
  uint64_t at;
  uint64_t size;
  uint32_t idx;
} sp_gobj_t;

struct sp_gheap {
  sp_gobj_t *obj; /* sorted by (at, idx) once the scan is done */
  size_t n, cap;
  uint64_t base; /* HDF5's base address: IDs hold addresses relative to it */
  int damaged;   /* a damaged heap ID was met (reader_heap_ids.c); why: */
  char why[512];
};

/* Keeps one object; -1 when out of memory (the table is then dropped). */
static int sp_gobj_add(struct sp_gheap *h, uint64_t at, unsigned idx, uint64_t size) {
  if (h->n == h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 256;
    sp_gobj_t *o = realloc(h->obj, cap * sizeof *o);
    if (!o) return -1;
    h->obj = o;
    h->cap = cap;
  }
  h->obj[h->n++] = (sp_gobj_t){at, size, idx};
  return 0;
}

/* Why the collection at offset at of the size bytes at b would crash or
 * hang HDF5, or NULL when it is sound (or not one HDF5 would read). */
static const char *sp_gcol_problem(const unsigned char *b, uint64_t size, uint64_t at,
                                   struct sp_gheap *keep, uint64_t file_at, int *lost) {
  if (size - at < SP_GCOL_HEAD) return "its header is cut off by the end of the file";
  /* HDF5 refuses another version itself; nonzero reserved bytes: not one
   * (the signature by chance in raw data, then followed by 1, 0, 0, 0,
   * where a refusal of a sound file would be worse than a missed check). */
  if (b[at + 4] != 1 || b[at + 5] || b[at + 6] || b[at + 7]) return NULL;
  const uint64_t len = sp__le(b + at + 8, 8);
  if (len < SP_GCOL_MIN) return "its size is below the smallest collection (4096 bytes)";
  if (len > size - at) return "its size runs past the end of the file";
  const uint64_t end = at + len;
  uint64_t p = at + SP_GCOL_HEAD;
  /* As H5HG__cache_heap_deserialize walks it. */
  while (p < end) {
    if (end - p < SP_GCOL_OBJHEAD) break; /* a tail too small for a header: free space */
    const unsigned idx = (unsigned)sp__le(b + p, 2);
    const uint64_t osize = sp__le(b + p + 8, 8);
    uint64_t need;
    if (idx > 0) {
      if (osize > end - p - SP_GCOL_OBJHEAD) return "an object runs past the collection's end";
      need = SP_GCOL_OBJHEAD + ((osize + 7) & ~(uint64_t)7);
      if (keep && !*lost && sp_gobj_add(keep, file_at, idx, osize) != 0) *lost = 1;
    } else {
      need = osize; /* the free space, its header included */
    }
    if (need == 0) return "its free space has size 0 (HDF5 would parse it forever)";
    if (need > end - p) return "an object runs past the collection's end";
    p += need;
  }
  return NULL;
}

/* Reads len bytes at off; 0 or -1. */
static int sp_pread_all(int fd, unsigned char *buf, size_t len, uint64_t off) {
  for (size_t done = 0; done < len;) {
    ssize_t n = pread(fd, buf + done, len - done, (off_t)(off + done));
    if (n <= 0) return -1;
    done += (size_t)n;
  }
  return 0;
}

/* The collection whose signature is at offset at of the file (size bytes):
 * NULL or why it is unusable (sp_gcol_problem on its bytes); its objects
 * go to keep, *lost set when they could not be (the table is incomplete). */
static const char *sp_gcol_at(int fd, uint64_t size, uint64_t at, struct sp_gheap *keep,
                              int *lost) {
  unsigned char head[SP_GCOL_HEAD];
  if (size - at < SP_GCOL_HEAD) return "its header is cut off by the end of the file";
  if (sp_pread_all(fd, head, sizeof head, at) != 0) { /* HDF5 will say why */
    *lost = 1;
    return NULL;
  }
  const uint64_t len = sp__le(head + 8, 8);
  if (head[4] != 1 || head[5] || head[6] || head[7] || len < SP_GCOL_MIN ||
      len > size - at) /* judged from the header alone */
    return sp_gcol_problem(head, size - at, 0, NULL, at, lost);
  unsigned char *c = malloc((size_t)len);
  const char *why = NULL;
  if (c && sp_pread_all(fd, c, (size_t)len, at) == 0)
    why = sp_gcol_problem(c, len, 0, keep, at, lost);
  else
    *lost = 1;
  free(c);
  return why;
}

/* The first "GCOL" in p[0..n), or NULL. memchr for its 'G' then a compare
 * of the rest: memchr is vectorised, glibc's memmem for a short needle goes
 * byte by byte (it was 5% of --export otf2 on a 191 MB file). */
static const unsigned char *sp_find_gcol(const unsigned char *p, size_t n) {
  const unsigned char *end = p + n;
  while ((size_t)(end - p) >= 4) {
    p = memchr(p, 'G', (size_t)(end - p) - 3);
    if (!p) return NULL;
    if (p[1] == 'C' && p[2] == 'O' && p[3] == 'L') return p;
    p++;
  }
  return NULL;
}

static int sp_gobj_cmp(const void *a, const void *b) {
  const sp_gobj_t *x = a, *y = b;
  if (x->at != y->at) return x->at < y->at ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

int sp__gheap_check(sp_reader_t *r, const char *path) {
  enum { BLOCK = 1 << 20 };
  if (r->file_size < SP_GCOL_HEAD) return 0;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  unsigned char *buf = fd >= 0 ? malloc(BLOCK) : NULL;
  if (!buf) { /* no check rather than no reading: HDF5 says why it cannot open it */
    if (fd >= 0) close(fd);
    return 0;
  }
  struct sp_gheap *keep = calloc(1, sizeof *keep);
  const uint64_t size = (uint64_t)r->file_size;
  const char *why = NULL;
  uint64_t at = 0;
  int lost = !keep;
  /* In blocks that overlap by 3 bytes, so a signature across two is seen. */
  for (uint64_t off = 0; !why && off < size; off += BLOCK - 3) {
    size_t n = size - off < BLOCK ? (size_t)(size - off) : BLOCK;
    if (n < 4 || sp_pread_all(fd, buf, n, off) != 0) break;
    for (const unsigned char *p = buf; !why && (size_t)(p - buf) + 4 <= n; p += 4) {
      p = sp_find_gcol(p, n - (size_t)(p - buf));
      if (!p) break;
      at = off + (uint64_t)(p - buf);
      why = sp_gcol_at(fd, size, at, keep, &lost);
    }
    if (n < BLOCK) break;
  }
  free(buf);
  close(fd);
  if (lost || why) { /* an incomplete table would refuse sound IDs: none */
    if (keep) free(keep->obj);
    free(keep);
  } else {
    if (keep->n > 1) qsort(keep->obj, keep->n, sizeof *keep->obj, sp_gobj_cmp);
    r->gheap = keep;
  }
  if (!why) return 0;
  return sp__reader_fail(r, SP_READER_ELAYOUT,
                         "%s: damaged file: the global heap collection at byte %llu (where its "
                         "variable-length strings are) is unusable: %s",
                         path, (unsigned long long)at, why);
}

void sp__gheap_set_base(sp_reader_t *r) {
  if (!r->gheap) return;
  hid_t fcpl = H5Fget_create_plist(r->file);
  hsize_t ub = 0;
  if (fcpl < 0 || H5Pget_userblock(fcpl, &ub) < 0) {
    sp__gheap_free(r); /* IDs could not be placed: no check */
  } else {
    r->gheap->base = ub; /* HDF5 takes the superblock's place as base */
  }
  if (fcpl >= 0) H5Pclose(fcpl);
}

int sp__gheap_object(const sp_reader_t *r, uint64_t addr, uint32_t idx, uint64_t *size) {
  const struct sp_gheap *h = r->gheap;
  if (addr > UINT64_MAX - h->base) return -1;
  const sp_gobj_t key = {h->base + addr, 0, idx};
  size_t lo = 0, hi = h->n; /* the first object not below key */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sp_gobj_cmp(&h->obj[mid], &key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < h->n && h->obj[lo].at == key.at && h->obj[lo].idx == idx) {
    *size = h->obj[lo].size;
    return 1;
  }
  /* Not there: is there a collection at that address at all? */
  int coll = (lo < h->n && h->obj[lo].at == key.at) || (lo > 0 && h->obj[lo - 1].at == key.at);
  return coll ? 0 : -1;
}

void sp__gheap_damage(const sp_reader_t *r, const char *why) {
  struct sp_gheap *h = r->gheap;
  if (!h) return;
  h->damaged = 1; /* the latest one is said: the call that met it reports it */
  snprintf(h->why, sizeof h->why, "%s", why);
}

const char *sp__gheap_damaged(const sp_reader_t *r) {
  return r->gheap && r->gheap->damaged ? r->gheap->why : NULL;
}

void sp__gheap_free(sp_reader_t *r) {
  if (r->gheap) free(r->gheap->obj);
  free(r->gheap);
  r->gheap = NULL;
}
