/* reader_ohdr.c - a plain dataset's shape and storage read from its object
 * header by the reader itself, instead of opening it with HDF5.
 *
 * sp_reader_open needs four facts of each interval dataset: its type, its
 * length, where its bytes are and that nothing else (filters, external
 * files) stands between them and the array. H5Dopen2 + H5Dclose cost
 * about 80,000 instructions per dataset for those (property lists copied
 * and freed, the metadata cache, the open-object list): two thirds of
 * opening a file of 2,048 datasets (docs/performance.md, "reading every
 * interval from Python"). The object header holds them in three messages.
 *
 * Only the plain case is taken here, and only when the file has 8-byte
 * addresses and lengths and direct reads are on (reader_direct.c):
 * object header version 1 or 2 (checksums verified), every message of a
 * kind in sp_msg (anything else: a filter pipeline, an external file list,
 * a shared message, a group's messages, a kind HDF5 added later, means
 * "not plain"), a 1-D simple dataspace of at least one element, a
 * little-endian two's complement integer of exactly the host's int64 (or
 * int32) layout, contiguous storage at a defined address holding exactly
 * the extent, inside the file. Whatever is not plain is opened with HDF5
 * as before, so damaged or unusual datasets get the same checks and
 * messages. The first dataset parsed in a file is also opened with HDF5
 * and the answers compared; if they differ, parsing stays off for the
 * file (sp__ohdr_verify).
 *
 * SCOPE_PROFILER_READER_DIRECT=data keeps the direct reads of the arrays
 * but opens every dataset with HDF5 (to compare); =0 turns both off. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

#include "reader_internal.h"

/* Bytes read around a header: the headers of a region group's datasets
 * usually sit in the same few KiB, so one read serves several. */
#define SP_OHDR_WIN 32768
/* Windows kept, the least recently used replaced: a rank's region groups
 * in the per-rank layout interleave their headers, B-tree nodes, heaps and
 * symbol nodes over some 100 KiB (reader_stab.c reads them all). */
#define SP_OHDR_NWIN 8
/* Continuation blocks followed per header (a plain dataset has none or one). */
#define SP_OHDR_CONTS 4

struct sp_ohdr {
  int trusted;          /* 1 once a parse agreed with HDF5 (sp__ohdr_verify) */
  int stab;             /* group symbol tables (reader_stab.c): 0 unchecked, 1 agreed, -1 off */
  uint64_t base;        /* base address: addresses in the file are relative to it */
  uint64_t tick;        /* uses so far, for the windows' recency */
  struct {
    uint64_t at;        /* file offset of win[0] */
    size_t len;         /* valid bytes in win, 0: empty */
    uint64_t used;      /* tick of the last use */
    unsigned char win[SP_OHDR_WIN];
  } w[SP_OHDR_NWIN];
};

/* What the messages of one header said. */
typedef struct sp_facts {
  int elem;                        /* wanted integer width: 8 or 4 */
  int space, type, layout;         /* messages seen */
  uint64_t dim;                    /* the extent */
  uint64_t data, size;             /* contiguous storage: relative address, bytes */
  int nconts;                      /* continuation blocks to read */
  uint64_t cont_at[SP_OHDR_CONTS]; /* their relative addresses and lengths */
  uint64_t cont_len[SP_OHDR_CONTS];
} sp_facts_t;

/* HDF5's metadata checksum: Bob Jenkins' lookup3 hashlittle, byte by byte
 * (H5_checksum_lookup3 with initval 0). */
#define SP_ROT(x, k) (((x) << (k)) | ((x) >> (32 - (k))))
static uint32_t sp_lookup3(const unsigned char *k, size_t len) {
  uint32_t a, b, c;
  a = b = c = 0xdeadbeefu + (uint32_t)len;
  while (len > 0) {
    unsigned char t[12] = {0};
    size_t take = len < 12 ? len : 12;
    memcpy(t, k, take);
    a += (uint32_t)sp__le(t, 4);
    b += (uint32_t)sp__le(t + 4, 4);
    c += (uint32_t)sp__le(t + 8, 4);
    if (len > 12) { /* mix */
      a -= c, a ^= SP_ROT(c, 4), c += b;
      b -= a, b ^= SP_ROT(a, 6), a += c;
      c -= b, c ^= SP_ROT(b, 8), b += a;
      a -= c, a ^= SP_ROT(c, 16), c += b;
      b -= a, b ^= SP_ROT(a, 19), a += c;
      c -= b, c ^= SP_ROT(b, 4), b += a;
    } else { /* final */
      c ^= b, c -= SP_ROT(b, 14);
      a ^= c, a -= SP_ROT(c, 11);
      b ^= a, b -= SP_ROT(a, 25);
      c ^= b, c -= SP_ROT(b, 16);
      a ^= c, a -= SP_ROT(c, 4);
      b ^= a, b -= SP_ROT(a, 14);
      c ^= b, c -= SP_ROT(b, 24);
    }
    k += take;
    len -= take;
  }
  return c;
}

/* len bytes at absolute offset at, from a window (the least recently used
 * one read anew when none holds them), or NULL when they are not all in
 * the file. */
static const unsigned char *sp_bytes(const sp_reader_t *r, uint64_t at, size_t len) {
  if (!r->ohdr || r->fd < 0) return NULL;
  struct sp_ohdr *o = r->ohdr;
  uint64_t fsize = (uint64_t)r->file_size;
  if (len == 0 || len > SP_OHDR_WIN || at > fsize || len > fsize - at) return NULL;
  int old = 0;
  o->tick++;
  for (int k = 0; k < SP_OHDR_NWIN; k++) {
    if (o->w[k].len && at >= o->w[k].at && at - o->w[k].at + len <= o->w[k].len) {
      o->w[k].used = o->tick;
      return o->w[k].win + (at - o->w[k].at);
    }
    if (o->w[k].used < o->w[old].used) old = k;
  }
  /* Windows at multiples of their size do not overlap, so a pass over a
   * rank's metadata reads each byte once; one across a boundary starts at
   * the page (or the byte) asked for. */
  uint64_t start = at & ~(uint64_t)(SP_OHDR_WIN - 1);
  if (at - start + len > SP_OHDR_WIN) start = at & ~(uint64_t)4095;
  if (at - start + len > SP_OHDR_WIN) start = at;
  size_t want = fsize - start < SP_OHDR_WIN ? (size_t)(fsize - start) : SP_OHDR_WIN;
  int saved = errno;
  ssize_t got;
  do
    got = pread(r->fd, o->w[old].win, want, (off_t)start);
  while (got < 0 && errno == EINTR);
  errno = saved;
  o->w[old].len = got > 0 ? (size_t)got : 0;
  o->w[old].at = start;
  o->w[old].used = o->tick;
  if (at - start + len > o->w[old].len) return NULL;
  return o->w[old].win + (at - start);
}

/* Dataspace message: version 1 or 2, rank 1, simple. */
static int sp_msg_space(sp_facts_t *f, const unsigned char *d, size_t size) {
  if (f->space || size < 4) return -1;
  unsigned version = d[0], rank = d[1];
  size_t at = version == 1 ? 8 : 4;
  if (version < 1 || version > 2 || rank != 1 || (version == 2 && d[3] != 1) || size < at + 8)
    return -1;
  f->dim = sp__le(d + at, 8);
  f->space = 1;
  return 0;
}

/* Datatype message: a fixed-point type of exactly the host's int64 (or
 * int32): little-endian, signed, no padding, offset 0, full precision. */
static int sp_msg_type(sp_facts_t *f, const unsigned char *d, size_t size) {
  if (f->type || size < 12) return -1;
  unsigned version = d[0] >> 4, cls = d[0] & 0x0F;
  if (version < 1 || version > 3 || cls != 0) return -1;
  /* bit 0 byte order (0: little), bits 1-2 padding, bit 3 signed. */
  if (d[1] != 0x08 || d[2] != 0 || d[3] != 0) return -1;
  if (sp__le(d + 4, 4) != (uint64_t)f->elem || sp__le(d + 8, 2) != 0 ||
      sp__le(d + 10, 2) != (uint64_t)f->elem * 8)
    return -1;
  f->type = 1;
  return 0;
}

/* Data layout message: version 3 or 4, contiguous. */
static int sp_msg_layout(sp_facts_t *f, const unsigned char *d, size_t size) {
  if (f->layout || size < 18 || d[0] < 3 || d[0] > 4 || d[1] != 1) return -1;
  f->data = sp__le(d + 2, 8);
  f->size = sp__le(d + 10, 8);
  f->layout = 1;
  return 0;
}

/* One message; 0 when it keeps the dataset plain, -1 when it does not. */
static int sp_msg(sp_facts_t *f, unsigned type, unsigned flags, const unsigned char *d,
                  size_t size) {
  if (flags & 0x02) return -1; /* shared: stored elsewhere */
  switch (type) {
  case 0x00: /* NIL */
  case 0x04: /* old fill value: not used for data stored in full */
  case 0x0C: /* attribute */
  case 0x0E: /* old modification time */
  case 0x12: /* modification time */
  case 0x15: /* attribute info */
  case 0x16: /* reference count */
    return 0;
  case 0x05: /* fill value: HDF5 decodes versions 1-3 */
    return size >= 1 && d[0] >= 1 && d[0] <= 3 ? 0 : -1;
  case 0x01:
    return sp_msg_space(f, d, size);
  case 0x03:
    return sp_msg_type(f, d, size);
  case 0x08:
    return sp_msg_layout(f, d, size);
  case 0x10: /* continuation: address and length of the next block */
    if (size < 16 || f->nconts == SP_OHDR_CONTS) return -1;
    f->cont_at[f->nconts] = sp__le(d, 8);
    f->cont_len[f->nconts++] = sp__le(d + 8, 8);
    return 0;
  default:
    return -1;
  }
}

/* The messages of one block of len bytes: version 1 (8-byte message
 * headers, 8-byte aligned sizes, no gap) or 2 (4 bytes, 6 with creation
 * order, a gap shorter than a message header allowed at the end). */
static int sp_msgs(sp_facts_t *f, int version, int crt, const unsigned char *p, size_t len) {
  size_t hdr = version == 1 ? 8 : (crt ? 6 : 4), i = 0;
  while (i < len) {
    if (len - i < hdr) return version == 1 ? -1 : 0;
    unsigned type = version == 1 ? (unsigned)sp__le(p + i, 2) : p[i];
    size_t off = version == 1 ? 2 : 1;
    size_t size = (size_t)sp__le(p + i + off, 2);
    unsigned flags = p[i + off + 2];
    i += hdr;
    if (size > len - i || (version == 1 && size % 8 != 0)) return -1;
    if (sp_msg(f, type, flags, p + i, size) < 0) return -1;
    i += size;
  }
  return 0;
}

/* Header version 1 at absolute offset at: a 16-byte prefix, then chunk 0. */
static int sp_header_v1(const sp_reader_t *r, uint64_t at, sp_facts_t *f) {
  const unsigned char *p = sp_bytes(r, at, 16);
  if (!p || p[0] != 1) return -1;
  size_t len = (size_t)sp__le(p + 8, 4);
  p = sp_bytes(r, at + 16, len);
  return p ? sp_msgs(f, 1, 0, p, len) : -1;
}

/* Header version 2: "OHDR", version, flags, optional times and attribute
 * phase change values, chunk 0's size in 1-8 bytes, chunk 0, checksum. */
static int sp_header_v2(const sp_reader_t *r, uint64_t at, sp_facts_t *f, int *crt) {
  const unsigned char *p = sp_bytes(r, at, 6);
  if (!p || memcmp(p, "OHDR", 4) != 0 || p[4] != 2 || (p[5] & ~0x3Fu)) return -1;
  unsigned flags = p[5];
  size_t pre = 6 + (flags & 0x20 ? 16 : 0) + (flags & 0x10 ? 4 : 0);
  int nsize = 1 << (flags & 0x03);
  p = sp_bytes(r, at, pre + (size_t)nsize);
  if (!p) return -1;
  uint64_t len = sp__le(p + pre, nsize);
  pre += (size_t)nsize;
  if (len > SP_OHDR_WIN) return -1;
  size_t total = pre + (size_t)len + 4;
  p = sp_bytes(r, at, total);
  if (!p || sp_lookup3(p, total - 4) != (uint32_t)sp__le(p + total - 4, 4)) return -1;
  *crt = (flags & 0x04) != 0;
  return sp_msgs(f, 2, *crt, p + pre, (size_t)len);
}

/* The continuation blocks noted so far (more may be noted while reading). */
static int sp_conts(const sp_reader_t *r, int version, int crt, sp_facts_t *f) {
  for (int c = 0; c < f->nconts; c++) {
    uint64_t at = f->cont_at[c], len = f->cont_len[c];
    if (at > UINT64_MAX - r->ohdr->base || len > SP_OHDR_WIN || len < 8)
      return -1;
    const unsigned char *p = sp_bytes(r, r->ohdr->base + at, (size_t)len);
    if (!p) return -1;
    if (version == 1) {
      if (sp_msgs(f, 1, 0, p, (size_t)len) < 0) return -1;
    } else if (memcmp(p, "OCHK", 4) != 0 ||
               sp_lookup3(p, (size_t)len - 4) != (uint32_t)sp__le(p + len - 4, 4) ||
               sp_msgs(f, 2, crt, p + 4, (size_t)len - 8) < 0) {
      return -1;
    }
  }
  return 0;
}

int sp__ohdr_dataset(const sp_reader_t *r, haddr_t oh, int elem, int64_t *n, int64_t *addr) {
  struct sp_ohdr *o = r->ohdr;
  if (!o || r->fd < 0 || oh == HADDR_UNDEF || oh > UINT64_MAX - o->base) return 0;
  sp_facts_t f;
  memset(&f, 0, sizeof f);
  f.elem = elem;
  uint64_t at = o->base + oh;
  const unsigned char *p = sp_bytes(r, at, 1);
  int version = p && p[0] == 1 ? 1 : 2, crt = 0;
  int rc = !p ? -1 : version == 1 ? sp_header_v1(r, at, &f) : sp_header_v2(r, at, &f, &crt);
  if (rc == 0) rc = sp_conts(r, version, crt, &f);
  if (rc < 0 || !f.space || !f.type || !f.layout) return 0;
  /* The extent stored in full at a defined address inside the file. */
  uint64_t fsize = (uint64_t)r->file_size;
  if (f.dim == 0 || f.dim > (uint64_t)INT64_MAX / (uint64_t)elem || f.data == HADDR_UNDEF ||
      f.size != f.dim * (uint64_t)elem || f.data > fsize || o->base > fsize - f.data ||
      f.size > fsize - o->base - f.data || o->base + f.data == 0)
    return 0;
  *n = (int64_t)f.dim;
  *addr = (int64_t)(o->base + f.data);
  return 1;
}

int sp__ohdr_trusted(const sp_reader_t *r) { return r->ohdr && r->ohdr->trusted; }

const unsigned char *sp__ohdr_bytes(const sp_reader_t *r, uint64_t at, size_t len) {
  return sp_bytes(r, at, len);
}

uint64_t sp__ohdr_base(const sp_reader_t *r) { return r->ohdr ? r->ohdr->base : 0; }

int sp__stab_usable(const sp_reader_t *r) { return r->ohdr && r->fd >= 0 && r->ohdr->stab >= 0; }

int sp__stab_trusted(const sp_reader_t *r) { return r->ohdr && r->ohdr->stab == 1; }

void sp__stab_verify(sp_reader_t *r, int agree) {
  if (r->ohdr) r->ohdr->stab = agree ? 1 : -1;
}

void sp__ohdr_verify(sp_reader_t *r, int agree) {
  if (!r->ohdr) return;
  if (agree) {
    r->ohdr->trusted = 1;
  } else {
    sp__ohdr_close(r);
  }
}

void sp__ohdr_open(sp_reader_t *r) {
  r->ohdr = NULL;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const char *v = getenv("SCOPE_PROFILER_READER_DIRECT");
  if (r->fd < 0 || r->file < 0 || (v && strcmp(v, "data") == 0)) return;
  hid_t fcpl = H5Fget_create_plist(r->file);
  if (fcpl < 0) return;
  size_t sa = 0, ss = 0;
  hsize_t ub = 0;
  int ok = H5Pget_sizes(fcpl, &sa, &ss) >= 0 && H5Pget_userblock(fcpl, &ub) >= 0 && sa == 8 &&
           ss == 8;
  H5Pclose(fcpl);
  if (!ok) return;
  r->ohdr = calloc(1, sizeof *r->ohdr);
  if (r->ohdr) r->ohdr->base = ub; /* HDF5 takes the superblock's place as base */
#endif
}

void sp__ohdr_close(sp_reader_t *r) {
  free(r->ohdr);
  r->ohdr = NULL;
}
