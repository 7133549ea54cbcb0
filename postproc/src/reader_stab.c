/* reader_stab.c - the links of the per-rank layout's groups read from
 * their symbol tables by the reader itself, instead of opening the groups
 * with HDF5.
 *
 * The per-rank layout holds one group per (rank, region): 5 million at
 * 100,000 ranks x 50 regions. Opening each with HDF5 (H5Oopen_by_addr,
 * H5Literate over its links, H5Aexists for its attributes, H5Gclose) cost
 * about 20 us of CPU a group, and H5Fclose much again tearing down the
 * metadata cache they filled; listing each rank's regions group
 * (H5Gget_info, H5Literate) and checking its rank group (H5Lexists,
 * H5Oopen) as much (docs/performance.md, "--tree on the per-rank layout").
 * A group of the original file format (what h5py writes by default, the
 * reference tool's files) is a version 1 object header with one symbol
 * table message: a version 1 B-tree whose leaves are symbol nodes (SNOD)
 * of (name offset, object header address, cache type), and a local heap
 * holding the names. The root, each rank<N>, its regions group and each
 * region group are read so (reader_open.c).
 *
 * Only the plain case is taken, through reader_ohdr.c's windows of the
 * file (8-byte addresses and lengths, direct reads on): object header
 * version 1, its messages only NIL, modification times, reference count,
 * continuations and exactly one symbol table (attributes too when only the
 * links are listed, sp__stab_list; sp__stab_links refuses them, so a region
 * group with a "name" or "num_calls" attribute or a rank group with clock
 * offsets is opened with HDF5 as before), every link a hard link (cache
 * type 0 or 1; a soft link, type 2, is left to HDF5), names inside the
 * heap's data segment. Any other group (new-style link messages, dense
 * links) is opened with HDF5. The first region group and regions group of
 * a file are also read with HDF5 and the answers compared; on any
 * disagreement parsing stops for the file (sp__stab_verify, reader_ohdr.c).
 * SCOPE_PROFILER_READER_DIRECT=data or =0 turns it off with the headers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

#define SP_STAB_DEPTH 8    /* B-tree levels followed (a cyclic file stops here) */
#define SP_STAB_FANOUT 256 /* children of one B-tree node read here (HDF5's default: 32) */
#define SP_STAB_HEAP 4096  /* bytes of names kept in place (a region group's: 88) */
#define SP_STAB_HEAP_MAX ((uint64_t)1 << 28) /* more: HDF5 (the root of 10^5 ranks: 1.6 MB) */
#define SP_STAB_LINKS ((size_t)1 << 24)      /* links of one group read here */
#define SP_STAB_CONTS 4

typedef struct sp_stab {
  const sp_reader_t *r;
  uint64_t base;
  const char *const *names; /* the links asked for */
  int n;
  int *kinds;
  haddr_t *addrs;
  size_t heap_len;
  char *names_at; /* the heap's data: heap below, or big_heap */
  char *big_heap; /* a data segment of more than SP_STAB_HEAP bytes (malloc'd), or NULL */
  size_t links;
  /* sp__stab_list: every link's name and address, in the B-tree's order */
  int list;
  char **lnames;
  haddr_t *laddrs;
  size_t ln, lcap;
  char heap[SP_STAB_HEAP];
} sp_stab_t;

/* bytes at relative address rel, or NULL. */
static const unsigned char *sp_at(const sp_stab_t *s, uint64_t rel, size_t len) {
  if (rel == HADDR_UNDEF || rel > UINT64_MAX - s->base) return NULL;
  return sp__ohdr_bytes(s->r, s->base + rel, len);
}

/* The messages of one block of a version 1 header: the symbol table's
 * B-tree and heap addresses noted, continuations noted; -1 when not plain. */
static int sp_msgs(int attrs_ok, const unsigned char *p, size_t len, uint64_t *btree,
                   uint64_t *heap, int *nstab, uint64_t *cont_at, uint64_t *cont_len, int *nconts) {
  size_t i = 0;
  while (i < len) {
    if (len - i < 8) return -1;
    unsigned type = (unsigned)sp__le(p + i, 2);
    size_t size = (size_t)sp__le(p + i + 2, 2);
    unsigned flags = p[i + 4];
    i += 8;
    if (size > len - i || size % 8 != 0 || (flags & 0x02)) return -1;
    const unsigned char *d = p + i;
    switch (type) {
    case 0x00: /* NIL */
    case 0x0E: /* old modification time */
    case 0x12: /* modification time */
    case 0x16: /* reference count */
      break;
    case 0x0C: /* attribute: only listing links may pass over it */
      if (!attrs_ok) return -1;
      break;
    case 0x11: /* symbol table: B-tree address, local heap address */
      if (size < 16 || ++*nstab > 1) return -1;
      *btree = sp__le(d, 8);
      *heap = sp__le(d + 8, 8);
      break;
    case 0x10:
      if (size < 16 || *nconts == SP_STAB_CONTS) return -1;
      cont_at[*nconts] = sp__le(d, 8);
      cont_len[(*nconts)++] = sp__le(d + 8, 8);
      break;
    default: /* attributes, new-style links, anything else */
      return -1;
    }
    i += size;
  }
  return 0;
}

/* The object header at oh: *btree and *heap of its only symbol table. */
static int sp_header(const sp_stab_t *s, uint64_t oh, uint64_t *btree, uint64_t *heap) {
  const unsigned char *p = sp_at(s, oh, 16);
  if (!p || p[0] != 1) return -1;
  size_t len = (size_t)sp__le(p + 8, 4);
  uint64_t cont_at[SP_STAB_CONTS], cont_len[SP_STAB_CONTS];
  int nstab = 0, nconts = 0;
  p = sp_at(s, oh + 16, len);
  if (!p || sp_msgs(s->list, p, len, btree, heap, &nstab, cont_at, cont_len, &nconts) < 0)
    return -1;
  for (int c = 0; c < nconts; c++) {
    if (cont_len[c] < 8 || cont_len[c] > 8192) return -1;
    p = sp_at(s, cont_at[c], (size_t)cont_len[c]);
    if (!p || sp_msgs(s->list, p, (size_t)cont_len[c], btree, heap, &nstab, cont_at, cont_len,
                      &nconts) < 0)
      return -1;
  }
  return nstab == 1 ? 0 : -1;
}

/* The local heap's data segment, copied (later reads move the window). */
static int sp_heap(sp_stab_t *s, uint64_t heap) {
  const unsigned char *p = sp_at(s, heap, 32);
  if (!p || memcmp(p, "HEAP", 4) != 0 || p[4] != 0) return -1;
  uint64_t len = sp__le(p + 8, 8), data = sp__le(p + 24, 8);
  if (len == 0 || len > SP_STAB_HEAP_MAX || data > UINT64_MAX - s->base) return -1;
  s->heap_len = (size_t)len;
  if (len <= SP_STAB_HEAP) {
    p = sp_at(s, data, (size_t)len);
    if (!p) return -1;
    memcpy(s->heap, p, (size_t)len);
    s->names_at = s->heap;
    return 0;
  }
  s->big_heap = malloc((size_t)len);
  s->names_at = s->big_heap;
  return s->big_heap &&
                 sp__direct_read(s->r, (int64_t)(s->base + data), s->big_heap, (size_t)len) == 0
             ? 0
             : -1;
}

/* One more link for sp__stab_list. The B-tree holds names in strcmp order,
 * each once (H5Literate's order by name): any other order is a damaged
 * file, left to HDF5. */
static int sp_list_add(sp_stab_t *s, const char *name, uint64_t addr) {
  if (s->ln > 0 && strcmp(s->lnames[s->ln - 1], name) >= 0) return -1;
  if (s->ln == s->lcap) {
    size_t cap = s->lcap ? s->lcap * 2 : 64;
    char **nn = realloc(s->lnames, cap * sizeof *nn);
    if (nn) s->lnames = nn;
    haddr_t *na = nn ? realloc(s->laddrs, cap * sizeof *na) : NULL;
    if (!na) return -1;
    s->laddrs = na;
    s->lcap = cap;
  }
  char *copy = strdup(name);
  if (!copy) return -1;
  s->lnames[s->ln] = copy;
  s->laddrs[s->ln++] = (haddr_t)addr;
  return 0;
}

/* One symbol node: its entries' names matched against the ones asked for. */
static int sp_snod(sp_stab_t *s, uint64_t at) {
  const unsigned char *p = sp_at(s, at, 8);
  if (!p || memcmp(p, "SNOD", 4) != 0 || p[4] != 1) return -1;
  size_t nsym = (size_t)sp__le(p + 6, 2);
  if (nsym == 0) return 0;
  if (nsym > 8192 / 40 || (s->links += nsym) > SP_STAB_LINKS) return -1;
  p = sp_at(s, at + 8, nsym * 40);
  if (!p) return -1;
  for (size_t e = 0; e < nsym; e++, p += 40) {
    uint64_t off = sp__le(p, 8), addr = sp__le(p + 8, 8);
    uint32_t cache = (uint32_t)sp__le(p + 16, 4);
    const char *name = s->names_at + off;
    if (cache > 1 || off >= s->heap_len || !memchr(name, '\0', s->heap_len - off))
      return -1; /* a soft link (2), something newer, or a name outside the heap */
    if (s->list && sp_list_add(s, name, addr) < 0) return -1;
    for (int i = 0; i < s->n; i++) {
      if (strcmp(name, s->names[i]) != 0) continue;
      if (s->kinds[i] != SP_LINK_NONE) return -1; /* twice: damaged */
      s->kinds[i] = SP_LINK_LOCAL;
      s->addrs[i] = (haddr_t)addr;
    }
  }
  return 0;
}

/* A group B-tree node at level `level` (its children: symbol nodes at level 0). */
static int sp_btree(sp_stab_t *s, uint64_t at, int level, int depth) {
  if (depth > SP_STAB_DEPTH) return -1;
  const unsigned char *p = sp_at(s, at, 24);
  if (!p || memcmp(p, "TREE", 4) != 0 || p[4] != 0) return -1;
  if (level >= 0 && p[5] != level) return -1;
  int lvl = p[5];
  size_t used = (size_t)sp__le(p + 6, 2);
  if (used > SP_STAB_FANOUT) return -1;
  if (used == 0) return 0;
  /* key 0, then (child, key) pairs: 8-byte heap offsets and addresses. */
  p = sp_at(s, at + 24, 8 + used * 16);
  if (!p) return -1;
  uint64_t kids[SP_STAB_FANOUT];
  for (size_t i = 0; i < used; i++) kids[i] = sp__le(p + 8 + i * 16, 8);
  for (size_t i = 0; i < used; i++) {
    int rc = lvl == 0 ? sp_snod(s, kids[i]) : sp_btree(s, kids[i], lvl - 1, depth + 1);
    if (rc < 0) return -1;
  }
  return 0;
}

/* Reads the group at oh into s (set up by the caller); 0 when it parsed. */
static int sp_group(sp_stab_t *s, haddr_t oh) {
  uint64_t btree = 0, heap = 0;
  if (!sp__stab_usable(s->r) || oh == HADDR_UNDEF) return -1;
  s->base = sp__ohdr_base(s->r);
  s->heap_len = 0;
  s->big_heap = NULL;
  s->links = 0;
  int rc = sp_header(s, oh, &btree, &heap) == 0 && sp_heap(s, heap) == 0 &&
                   sp_btree(s, btree, -1, 0) == 0
               ? 0
               : -1;
  free(s->big_heap);
  s->big_heap = NULL;
  return rc;
}

int sp__stab_group(const sp_reader_t *r, haddr_t oh) {
  sp_stab_t s;
  uint64_t btree = 0, heap = 0;
  s.r = r;
  s.base = sp__ohdr_base(r);
  s.list = 1; /* attributes allowed */
  return sp__stab_usable(r) && oh != HADDR_UNDEF && sp_header(&s, oh, &btree, &heap) == 0;
}

int sp__stab_list(const sp_reader_t *r, haddr_t oh, char ***names, haddr_t **addrs, size_t *n) {
  sp_stab_t *s = calloc(1, sizeof *s);
  if (!s) return 0;
  s->r = r;
  s->list = 1;
  int ok = sp_group(s, oh) == 0;
  if (ok) {
    *names = s->lnames;
    *addrs = s->laddrs;
    *n = s->ln;
    if (!s->lnames) { /* no links: an empty list all the same */
      *names = malloc(sizeof **names);
      *addrs = malloc(sizeof **addrs);
      ok = *names && *addrs;
      if (!ok) {
        free(*names);
        free(*addrs);
      }
    }
  } else {
    for (size_t i = 0; i < s->ln; i++) free(s->lnames[i]);
    free(s->lnames);
    free(s->laddrs);
  }
  free(s);
  return ok;
}

int sp__stab_links(const sp_reader_t *r, haddr_t oh, const char *const *names, int n, int *kinds,
                   haddr_t *addrs) {
  for (int i = 0; i < n; i++) {
    kinds[i] = SP_LINK_NONE;
    addrs[i] = HADDR_UNDEF;
  }
  sp_stab_t s;
  s.r = r;
  s.names = names;
  s.n = n;
  s.kinds = kinds;
  s.addrs = addrs;
  s.list = 0;
  int ok = sp_group(&s, oh) == 0;
  if (ok) return 1;
  for (int i = 0; i < n; i++) {
    kinds[i] = SP_LINK_NONE;
    addrs[i] = HADDR_UNDEF;
  }
  return 0;
}
