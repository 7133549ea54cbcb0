/* reader_gheap.c - the global heap collections of a file checked before
 * HDF5 reads a variable-length string from one.
 *
 * Variable-length strings (hostnames, run metadata, region names, source
 * files) are kept in global heap collections ("GCOL"), and HDF5 1.10 trusts
 * what a collection says about its objects: a free-space object of size 0
 * makes its parse loop forever (a zeroed run hung every reader), an object
 * whose size runs past the collection makes H5HG_read copy past its buffer
 * (a flipped bit crashed them in memcpy). So every collection in the file
 * is parsed here as HDF5 will parse it: each object must move the parse
 * forward and end inside the collection, and the collection inside the
 * file. One that does not makes the read fail with SP_READER_ELAYOUT and a
 * message; HDF5 never sees it.
 *
 * Collections are found by their signature, anywhere in the file (their
 * addresses are only in the data that refers to them, and HDF5 puts them
 * between the raw data as it grows the file): the file is read in 1 MiB
 * blocks and searched for the signature (sp_find_gcol). That is one more
 * pass over the file, about 0.15 ms per MB from the page cache on the
 * 2-core test machine (30 ms for a 200 MB profile, 8 % of an export's
 * CPU), so it is made once per open file and only when needed: by
 * sp__gheap_guard, which every read of variable-length data from a dataset
 * calls first (values, LIKWID, source lines, I/O names, columnar layouts,
 * histograms' and trees' labels), and every dataset whose type holds
 * variable-length data before its creation properties are copied (HDF5
 * converts a fill value then). A file that refuses the scan fails that
 * read, and every later one, with the message the open gave before.
 * A signature whose version byte is not 1 is not one HDF5 would accept
 * either (it checks both and reports an error), so it is left alone, as is
 * one whose reserved bytes are not 0 (no writer leaves them so).
 *
 * Attributes need no whole-file scan: HDF5 reads only the collections
 * their heap IDs name (collection address, object index, length), and
 * reader_heap_ids.c checks each ID before HDF5 follows it, through
 * sp__gheap_object, which parses the named collection by the same rule
 * (once; its objects are kept): HDF5 1.10 indexes its object table with the
 * ID's index unchecked (an index past it crashed every reader) and copies
 * the object's whole size into a buffer of the ID's length. A named
 * collection that fails the rule runs the whole-file scan, whose message
 * (the file's first unusable collection) the read then gives. */
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

/* What the check of one collection, named by a heap ID, found. */
enum { SP_GC_SOUND, SP_GC_NONE, SP_GC_UNKNOWN, SP_GC_DAMAGED };

typedef struct sp_gcoll {
  uint64_t at; /* file offset */
  int state;   /* SP_GC_* */
} sp_gcoll_t;

struct sp_gheap {
  sp_gobj_t *obj; /* objects of the collections checked one by one, sorted by (at, idx) */
  size_t n, cap;
  sp_gcoll_t *coll; /* those collections, in the order met */
  size_t ncoll, capcoll;
  uint64_t base; /* HDF5's base address: IDs hold addresses relative to it */
  int base_ok;   /* base known (sp__gheap_set_base) */
  int fd;        /* the file, opened before HDF5 opens it; once it is open, the direct
                  * reads' descriptor of the same file when there is one (one fewer) */
  int own_fd;    /* fd is ours to close */
  uint64_t size; /* its size at open */
  int scan;      /* the whole-file scan: 0 not made, 1 sound, -1 failed (why in scan_why) */
  char scan_why[400];
  int damaged; /* a damaged heap ID was met (reader_heap_ids.c); why: */
  char why[512];
  char path[]; /* for the messages */
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

int sp__gheap_init(sp_reader_t *r, const char *path) {
  size_t len = strlen(path);
  struct sp_gheap *h = calloc(1, sizeof *h + len + 1);
  if (!h) return SP_READER_ENOMEM;
  h->fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (h->fd < 0) { /* no check rather than no reading: HDF5 says why it cannot open it */
    free(h);
    return 0;
  }
  h->own_fd = 1;
  memcpy(h->path, path, len + 1);
  h->size = r->file_size > 0 ? (uint64_t)r->file_size : 0;
  r->gheap = h;
  return 0;
}

/* The whole-file scan: h->scan 1 when every collection is sound, else -1
 * with why in h->scan_why. */
static void sp_gheap_scan(struct sp_gheap *h) {
  enum { BLOCK = 1 << 20 };
  const uint64_t size = h->size;
  unsigned char *buf = size >= SP_GCOL_HEAD ? malloc(BLOCK) : NULL;
  h->scan = 1;
  if (!buf) return; /* no check rather than no reading, as when the file cannot be opened */
  const char *why = NULL;
  uint64_t at = 0;
  int lost = 0; /* no objects are kept by the scan: not used */
  /* In blocks that overlap by 3 bytes, so a signature across two is seen. */
  for (uint64_t off = 0; !why && off < size; off += BLOCK - 3) {
    size_t n = size - off < BLOCK ? (size_t)(size - off) : BLOCK;
    if (n < 4 || sp_pread_all(h->fd, buf, n, off) != 0) break;
    for (const unsigned char *p = buf; !why && (size_t)(p - buf) + 4 <= n; p += 4) {
      p = sp_find_gcol(p, n - (size_t)(p - buf));
      if (!p) break;
      at = off + (uint64_t)(p - buf);
      why = sp_gcol_at(h->fd, size, at, NULL, &lost);
    }
    if (n < BLOCK) break;
  }
  free(buf);
  if (!why) return;
  h->scan = -1;
  snprintf(h->scan_why, sizeof h->scan_why,
           "damaged file: the global heap collection at byte %llu (where its variable-length "
           "strings are) is unusable: %s",
           (unsigned long long)at, why);
}

/* 0 when the whole file's collections are sound (scanned now if not yet),
 * -1 when not (why in h->scan_why). */
static int sp_gheap_sound(struct sp_gheap *h) {
  if (h->scan == 0) sp_gheap_scan(h);
  return h->scan > 0 ? 0 : -1;
}

int sp__gheap_sound(const sp_reader_t *r) { return r && r->gheap ? sp_gheap_sound(r->gheap) : 0; }

int sp__gheap_guard(sp_reader_t *r) {
  if (sp__gheap_sound(r) == 0) return 0;
  return sp__reader_fail(r, SP_READER_ELAYOUT, "%s: %s", r->gheap->path, r->gheap->scan_why);
}

const char *sp__gheap_scan_failed(const sp_reader_t *r) {
  return r->gheap && r->gheap->scan < 0 ? r->gheap->scan_why : NULL;
}

int sp__gheap_vl_type(hid_t t) {
  if (t < 0) return 0;
  H5T_class_t c = H5Tget_class(t);
  if (c == H5T_VLEN || c == H5T_REFERENCE) return 1;
  if (c == H5T_STRING) return H5Tis_variable_str(t) != 0; /* an error: as if it were */
  if (c != H5T_COMPOUND && c != H5T_ARRAY) return 0;
  /* A member of any of these kinds may hold heap IDs: the scan, to be sure. */
  return H5Tdetect_class(t, H5T_VLEN) != 0 || H5Tdetect_class(t, H5T_STRING) != 0 ||
         H5Tdetect_class(t, H5T_REFERENCE) != 0;
}

int sp__gheap_dataset_guard(sp_reader_t *r, hid_t d) {
  if (!r || !r->gheap || r->gheap->scan > 0) return 0;
  hid_t t = H5Dget_type(d);
  int vl = t < 0 || sp__gheap_vl_type(t);
  if (t >= 0) H5Tclose(t);
  return vl ? sp__gheap_guard(r) : 0;
}

void sp__gheap_set_base(sp_reader_t *r) {
  if (!r->gheap) return;
  if (r->fd >= 0 && r->gheap->own_fd) { /* the same file (sp__direct_open checked it) */
    close(r->gheap->fd);
    r->gheap->fd = r->fd;
    r->gheap->own_fd = 0;
  }
  hid_t fcpl = H5Fget_create_plist(r->file);
  hsize_t ub = 0;
  if (fcpl >= 0 && H5Pget_userblock(fcpl, &ub) >= 0) {
    r->gheap->base = ub; /* HDF5 takes the superblock's place as base */
    r->gheap->base_ok = 1;
  } /* else IDs cannot be placed: attributes take the whole-file scan */
  if (fcpl >= 0) H5Pclose(fcpl);
}

/* The state of the collection at file offset at, checked now if not yet
 * (its objects kept in h->obj). */
static int sp_gcoll_state(struct sp_gheap *h, uint64_t at) {
  for (size_t i = 0; i < h->ncoll; i++)
    if (h->coll[i].at == at) return h->coll[i].state;
  if (h->ncoll == h->capcoll) {
    size_t cap = h->capcoll ? 2 * h->capcoll : 8;
    sp_gcoll_t *c = realloc(h->coll, cap * sizeof *c);
    if (!c) return SP_GC_UNKNOWN;
    h->coll = c;
    h->capcoll = cap;
  }
  unsigned char head[8];
  int state = SP_GC_NONE, lost = 0;
  if (at < h->size && h->size - at >= 4) {
    size_t got = h->size - at < sizeof head ? 4 : sizeof head;
    if (sp_pread_all(h->fd, head, got, at) != 0) {
      state = SP_GC_UNKNOWN;
    } else if (memcmp(head, "GCOL", 4) == 0) {
      /* As the scan judges the signature it finds there. */
      const size_t n0 = h->n;
      const char *why = sp_gcol_at(h->fd, h->size, at, h, &lost);
      if (why)
        state = SP_GC_DAMAGED;
      else if (lost)
        state = SP_GC_UNKNOWN;
      else if (got == sizeof head && head[4] == 1 && !head[5] && !head[6] && !head[7])
        state = SP_GC_SOUND;
      if (state != SP_GC_SOUND) h->n = n0; /* its objects, if any, are not to be found */
      if (h->n > n0 && h->n > 1) qsort(h->obj, h->n, sizeof *h->obj, sp_gobj_cmp);
    }
  }
  h->coll[h->ncoll++] = (sp_gcoll_t){at, state};
  return state;
}

int sp__gheap_object(const sp_reader_t *r, uint64_t addr, uint32_t idx, uint64_t *size) {
  struct sp_gheap *h = r->gheap;
  int state = SP_GC_UNKNOWN;
  if (h->scan >= 0 && h->base_ok && addr <= UINT64_MAX - h->base)
    state = sp_gcoll_state(h, h->base + addr);
  else if (h->scan >= 0 && h->base_ok)
    state = SP_GC_NONE;
  /* Not judged by itself (not read, no base): the whole file's are. A
   * damaged one: the whole file's scan gives the message. */
  if (state == SP_GC_UNKNOWN || state == SP_GC_DAMAGED) {
    if (sp_gheap_sound(h) != 0) return -3;
    if (state == SP_GC_UNKNOWN) return 2;
    /* Sound by the scan, damaged by itself: only if the file changed. */
    h->scan = -1;
    snprintf(h->scan_why, sizeof h->scan_why,
             "damaged file: the global heap collection at byte %llu (where its variable-length "
             "strings are) is unusable",
             (unsigned long long)(h->base + addr));
    return -3;
  }
  if (state == SP_GC_NONE) return -1;
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
  return 0; /* the collection is there, without that object */
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
  if (r->gheap) {
    free(r->gheap->obj);
    free(r->gheap->coll);
    if (r->gheap->own_fd) close(r->gheap->fd);
  }
  free(r->gheap);
  r->gheap = NULL;
}
