/* reader_heap_ids.c - the heap IDs of a variable-length attribute checked
 * before HDF5 follows them.
 *
 * A variable-length string attribute holds, per element, the string's
 * length (4 bytes), the address of a global heap collection (8) and the
 * object's index in it (4). HDF5 1.10's H5HG_read trusts both: an index
 * past the collection's object table reads past that table (a flipped
 * index crashed every reader in --summary, --list and the Python reader),
 * an absent one yields an empty string, and an object larger than the
 * length is copied whole into a buffer of the length. This checks the
 * references, and reader_gheap.c the collections they name (each parsed by
 * the rule of its whole-file scan when first named), so that reading
 * attributes needs no whole-file scan.
 *
 * The IDs are the attribute's raw bytes, which HDF5 has read whether the
 * attribute sits in the object header or in dense storage (a fractal
 * heap): they are taken through HDF5's own conversion machinery, with a
 * soft conversion from any variable-length type to an opaque type of our
 * tag that leaves the stored bytes as they are. HDF5 touches no collection
 * for this: each ID is looked up in the objects of the collection it names,
 * read by reader_gheap.c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

#define SP_ID_SIZE 16 /* length, 8-byte address, index: files with 8-byte addresses */
#define SP_ID_TAG "scope-profiler raw heap ID"
#define SP_IDS_MAX ((hssize_t)1 << 24)

/* The conversion: accepted only towards our tag and from the stored form
 * (16 bytes; in memory a string is a pointer), then nothing to do: the
 * buffer already holds the stored bytes, as wide as the target's. */
static herr_t sp_raw_conv(hid_t src, hid_t dst, H5T_cdata_t *cd, size_t n, size_t stride,
                          size_t bkg_stride, void *buf, void *bkg, hid_t dxpl) {
  (void)n, (void)stride, (void)bkg_stride, (void)buf, (void)bkg, (void)dxpl;
  if (cd->command != H5T_CONV_INIT) return 0;
  char *tag = H5Tget_class(dst) == H5T_OPAQUE ? H5Tget_tag(dst) : NULL;
  int ours = tag && strcmp(tag, SP_ID_TAG) == 0;
  if (tag) H5free_memory(tag);
  cd->need_bkg = H5T_BKG_NO;
  return ours && H5Tget_size(src) == SP_ID_SIZE && H5Tget_size(dst) == SP_ID_SIZE ? 0 : -1;
}

void sp__heap_ids_open(sp_reader_t *r) {
  r->heap_id_type = -1;
  if (!r->gheap) return;
  hid_t t = H5Tcreate(H5T_OPAQUE, SP_ID_SIZE);
  hid_t v = H5Tvlen_create(H5T_NATIVE_UCHAR);
  /* Registered anew at each open, the last registration first removed:
   * one entry in HDF5's table however many files are opened, and one
   * after H5close and a new start of the library too. */
  int ok = t >= 0 && v >= 0 && H5Tset_tag(t, SP_ID_TAG) >= 0;
  if (ok) H5Tunregister(H5T_PERS_SOFT, "sp_raw_heap_id", v, t, sp_raw_conv);
  ok = ok && H5Tregister(H5T_PERS_SOFT, "sp_raw_heap_id", v, t, sp_raw_conv) >= 0;
  if (v >= 0) H5Tclose(v);
  if (!ok && t >= 0) H5Tclose(t);
  r->heap_id_type = ok ? t : -1; /* none: the IDs are not checked */
}

void sp__heap_ids_close(sp_reader_t *r) {
  if (r->heap_id_type >= 0) H5Tclose(r->heap_id_type);
  r->heap_id_type = -1;
}

/* Bytes per element of what the IDs point to: 1 for strings. */
static size_t sp_base_size(hid_t ftype) {
  if (H5Tget_class(ftype) == H5T_STRING) return 1;
  hid_t b = H5Tget_super(ftype);
  size_t s = b >= 0 ? H5Tget_size(b) : 0;
  if (b >= 0) H5Tclose(b);
  return s;
}

/* The object's name for the message: its path, or "an object". */
static void sp_obj_name(hid_t obj, char *out, size_t cap) {
  ssize_t n = H5Iget_name(obj, out, cap);
  if (n <= 0 || (size_t)n >= cap) snprintf(out, cap, "an object");
}

/* NULL when the ID at p is sound, else why not (into why). */
static const char *sp_id_problem(const sp_reader_t *r, const unsigned char *p, size_t base,
                                 char *why, size_t cap) {
  uint64_t len = sp__le(p, 4), addr = sp__le(p + 4, 8), size = 0;
  uint32_t idx = (uint32_t)sp__le(p + 12, 4);
  if (addr == 0) return NULL; /* a null string: HDF5 reads nothing */
  int found = sp__gheap_object(r, addr, idx, &size);
  if (found == 2) return NULL; /* not judged alone; the whole file's collections are sound */
  if (found == -3)             /* the file's collections fail the whole-file scan: its message */
    snprintf(why, cap, "%s", sp__gheap_scan_failed(r));
  else if (found < 0)
    snprintf(why, cap, "its heap ID points to byte %llu, where there is no global heap collection",
             (unsigned long long)addr);
  else if (found == 0)
    snprintf(why, cap,
             "its heap ID names object %lu of the global heap collection at byte %llu, which "
             "has no such object",
             (unsigned long)idx, (unsigned long long)addr);
  else if (size != len * base)
    snprintf(why, cap,
             "its heap ID gives a length of %llu bytes, object %lu of the global heap "
             "collection at byte %llu holds %llu",
             (unsigned long long)(len * base), (unsigned long)idx, (unsigned long long)addr,
             (unsigned long long)size);
  else
    return NULL;
  return why;
}

/* The IDs cannot be checked one by one: the whole-file scan instead. */
static int sp_ids_unchecked(const sp_reader_t *r) {
  if (sp__gheap_sound(r) == 0) return 0;
  sp__gheap_damage(r, sp__gheap_scan_failed(r));
  return -1;
}

int sp__heap_ids_check(const sp_reader_t *r, hid_t obj, hid_t a, hid_t ftype, const char *name) {
  if (!r || !r->gheap) return 0;
  H5T_class_t c = H5Tget_class(ftype);
  if (c != H5T_VLEN && !(c == H5T_STRING && H5Tis_variable_str(ftype) > 0)) return 0;
  if (sp__gheap_scan_failed(r)) return sp_ids_unchecked(r); /* refused since */
  hid_t raw = r->heap_id_type, s = H5Aget_space(a);
  hssize_t n = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
  if (s >= 0) H5Sclose(s);
  size_t base = sp_base_size(ftype);
  unsigned char *ids =
      raw >= 0 && n > 0 && n <= SP_IDS_MAX && base > 0 ? malloc((size_t)n * SP_ID_SIZE) : NULL;
  /* Not read (an ID of another width, no memory): the whole file's scan. */
  if (!ids || H5Aread(a, raw, ids) < 0) {
    free(ids);
    return n == 0 ? 0 : sp_ids_unchecked(r);
  }
  char why[400], where[256], msg[800];
  const char *bad = NULL;
  for (hssize_t i = 0; !bad && i < n; i++)
    bad = sp_id_problem(r, ids + (size_t)i * SP_ID_SIZE, base, why, sizeof why);
  free(ids);
  if (!bad) return 0;
  if (sp__gheap_scan_failed(r)) { /* the open's message before: the collections, not this ID */
    sp__gheap_damage(r, bad);
    return -1;
  }
  sp_obj_name(obj, where, sizeof where);
  snprintf(msg, sizeof msg, "damaged file: attribute '%s' of %s is not read: %s", name, where, bad);
  sp__gheap_damage(r, msg);
  return -1;
}
