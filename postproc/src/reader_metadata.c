/* reader_metadata.c - attributes of the /metadata group as text (run
 * size, threads, host...: the x-axis of scaling plots). */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

/* The scalar attribute a as text: integers in decimal, floats %.17g,
 * strings as stored. Returns 0, or -1 for another type or shape. */
static int sp_attr_text(hid_t obj, const char *name, hid_t a, char *out, size_t cap) {
  hid_t t = H5Aget_type(a), s = H5Aget_space(a);
  int rc = -1;
  if (t >= 0 && s >= 0 && H5Sget_simple_extent_npoints(s) == 1) {
    H5T_class_t c = H5Tget_class(t);
    if (c == H5T_INTEGER) {
      long long v;
      if (H5Aread(a, H5T_NATIVE_LLONG, &v) >= 0) rc = snprintf(out, cap, "%lld", v) < 0 ? -1 : 0;
    } else if (c == H5T_FLOAT) {
      double v;
      if (H5Aread(a, H5T_NATIVE_DOUBLE, &v) >= 0) rc = snprintf(out, cap, "%.17g", v) < 0 ? -1 : 0;
    } else if (c == H5T_STRING) {
      char *v = sp__attr_string(obj, name);
      if (v) rc = snprintf(out, cap, "%s", v) < 0 ? -1 : 0;
      free(v);
    }
  }
  if (t >= 0) H5Tclose(t);
  if (s >= 0) H5Sclose(s);
  return rc;
}

int sp_reader_metadata(sp_reader_t *r, const char *name, char *out, size_t cap) {
  if (!r || !name || !out || cap == 0) return SP_READER_EINVAL;
  out[0] = '\0';
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  int rc = SP_READER_EINVAL;
  hid_t g = H5Lexists(r->file, "metadata", H5P_DEFAULT) > 0 &&
                    sp__link_kind(r->file, "metadata") == SP_LINK_LOCAL
                ? H5Gopen2(r->file, "metadata", H5P_DEFAULT)
                : -1;
  if (g >= 0 && H5Aexists(g, name) > 0) {
    hid_t a = H5Aopen(g, name, H5P_DEFAULT);
    if (a >= 0 && sp_attr_text(g, name, a, out, cap) == 0) rc = 0;
    if (a >= 0) H5Aclose(a);
  }
  if (g >= 0) H5Gclose(g);
  sp__h5_quiet_end(&q);
  if (rc) return sp__reader_fail(r, rc, "no readable /metadata attribute '%s'", name);
  return 0;
}

/* The /metadata group, or -1 (call inside a quiet section). */
static hid_t sp_metadata_open(sp_reader_t *r) {
  return H5Lexists(r->file, "metadata", H5P_DEFAULT) > 0 &&
                 sp__link_kind(r->file, "metadata") == SP_LINK_LOCAL
             ? H5Gopen2(r->file, "metadata", H5P_DEFAULT)
             : -1;
}

static herr_t sp_attr_count(hid_t g, const char *name, const H5A_info_t *info, void *n) {
  (void)g, (void)name, (void)info;
  ++*(int *)n;
  return 0;
}

int sp_reader_metadata_count(sp_reader_t *r) {
  if (!r) return 0;
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  hid_t g = sp_metadata_open(r);
  int n = 0;
  hsize_t at = 0;
  if (g >= 0 && H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &at, sp_attr_count, &n) < 0) n = 0;
  if (g >= 0) H5Gclose(g);
  sp__h5_quiet_end(&q);
  return n;
}

int sp_reader_metadata_name(sp_reader_t *r, int i, char *out, size_t cap) {
  if (!r || i < 0 || !out || cap == 0) return SP_READER_EINVAL;
  out[0] = '\0';
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  hid_t g = sp_metadata_open(r);
  ssize_t len = g >= 0 ? H5Aget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, (hsize_t)i, out,
                                            cap, H5P_DEFAULT)
                       : -1;
  if (g >= 0) H5Gclose(g);
  sp__h5_quiet_end(&q);
  if (len < 0) {
    out[0] = '\0';
    return sp__reader_fail(r, SP_READER_EINVAL, "no /metadata attribute number %d", i);
  }
  return 0;
}
