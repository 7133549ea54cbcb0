/* reader_colcache.c - the columnar layout's events columns read through a
 * small page cache.
 *
 * A pair of the columnar layout (reader_columnar.c) holds a few calls: on a
 * file of 100,000 ranks x 50 regions x 4 calls each pair is 32 bytes of a
 * column, and reading it with its own H5Dread hyperslab cost HDF5 ~10 us,
 * ~100 times the copy, done 3 times per pair (its first start at open, the
 * call tree, the summary). Here a read of a few calls is copied from pages
 * of SP_CC_PAGE elements, each page read once (with pread at the column's
 * offset when the column is plain, reader_direct.c, else H5Dread) into a
 * direct-mapped table of SP_CC_SLOTS pages per column. Callers that walk
 * the pairs in file order, or rank by rank over blocks of ranks, read each
 * page once; a large read bypasses the pages. Memory: at most
 * SP_CC_SLOTS x SP_CC_PAGE x 8 bytes (16 MiB) per column used. */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

/* Elements per page (64 KiB of int64) and pages kept per column. */
#define SP_CC_PAGE ((int64_t)8192)
#define SP_CC_SLOTS 256

typedef struct sp_cc_col {
  int64_t tag[SP_CC_SLOTS]; /* page number held by each slot, -1 when empty */
  unsigned char *data;      /* SP_CC_SLOTS pages of SP_CC_PAGE elements */
} sp_cc_col_t;

struct sp_colcache {
  sp_cc_col_t col[5]; /* one per r->col[] */
};

/* The element size and memory type of column c: thread ids as int32, the
 * others as int64. */
static size_t sp_cc_elem(int c) { return c == 2 ? 4 : 8; }
static hid_t sp_cc_type(int c) { return c == 2 ? H5T_NATIVE_INT32 : H5T_NATIVE_INT64; }

/* Reads n elements of column c from offset into buf: pread when the column
 * is plain, else an H5Dread hyperslab. 0 or SP_READER_EHDF5. */
static int sp_cc_fetch(sp_reader_t *r, int c, int64_t offset, int64_t n, void *buf) {
  size_t elem = sp_cc_elem(c);
  if (r->col_addr[c] > 0)
    return sp__direct_read(r, r->col_addr[c] + offset * (int64_t)elem, buf, (size_t)n * elem);
  sp_h5_quiet_t q; /* a damaged file's failure is an answer, not a print */
  sp__h5_quiet_begin(&q);
  hid_t fs = H5Dget_space(r->col[c]);
  hsize_t off[1] = {(hsize_t)offset}, cnt[1] = {(hsize_t)n};
  hid_t ms = H5Screate_simple(1, cnt, NULL);
  int rc = fs < 0 || ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL) < 0 ||
                   H5Dread(r->col[c], sp_cc_type(c), ms, fs, H5P_DEFAULT, buf) < 0
               ? SP_READER_EHDF5
               : 0;
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  sp__h5_quiet_end(&q);
  return rc;
}

/* Column c's cache, allocated on first use; NULL without memory. */
static sp_cc_col_t *sp_cc_col(sp_reader_t *r, int c) {
  if (!r->cc && !(r->cc = calloc(1, sizeof *r->cc))) return NULL;
  sp_cc_col_t *k = &r->cc->col[c];
  if (!k->data) {
    k->data = malloc((size_t)SP_CC_SLOTS * (size_t)SP_CC_PAGE * sp_cc_elem(c));
    if (!k->data) return NULL;
    for (int s = 0; s < SP_CC_SLOTS; s++) k->tag[s] = -1;
  }
  return k;
}

int sp__colcache_read(sp_reader_t *r, int c, int64_t offset, int64_t n, void *out) {
  size_t elem = sp_cc_elem(c);
  if (n <= 0) return 0;
  if (n > 2 * SP_CC_PAGE) return sp_cc_fetch(r, c, offset, n, out); /* large: no copy twice */
  sp_cc_col_t *k = sp_cc_col(r, c);
  if (!k) return sp_cc_fetch(r, c, offset, n, out);
  unsigned char *dst = out;
  for (int64_t at = offset; at < offset + n;) {
    int64_t page = at / SP_CC_PAGE, first = page * SP_CC_PAGE;
    int s = (int)(page % SP_CC_SLOTS);
    unsigned char *slot = k->data + (size_t)s * (size_t)SP_CC_PAGE * elem;
    if (k->tag[s] != page) {
      int64_t len = r->col_len[c] - first < SP_CC_PAGE ? r->col_len[c] - first : SP_CC_PAGE;
      k->tag[s] = -1;
      /* A page that will not read (the file shrank since open) may still
       * hold the asked elements: read those alone, as before the cache. */
      if (len <= 0 || sp_cc_fetch(r, c, first, len, slot) != 0)
        return sp_cc_fetch(r, c, offset, n, out);
      k->tag[s] = page;
    }
    int64_t take =
        first + SP_CC_PAGE - at < offset + n - at ? first + SP_CC_PAGE - at : offset + n - at;
    memcpy(dst, slot + (size_t)(at - first) * elem, (size_t)take * elem);
    dst += (size_t)take * elem;
    at += take;
  }
  return 0;
}

void sp__colcache_free(sp_reader_t *r) {
  for (int c = 0; r->cc && c < 5; c++) free(r->cc->col[c].data);
  free(r->cc);
  r->cc = NULL;
}
