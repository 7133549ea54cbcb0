/* reader_metadata.c - attributes of the /metadata group as text (run
 * size, threads, host...: the x-axis of scaling plots). */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

/* The scalar attribute a as text: integers in decimal, floats in the
 * shortest %.Ng (N <= 17) that reads back exactly,
 * strings as stored. Returns 0, -1 for another type or shape, -2 for a
 * string whose heap ID is damaged (sp__heap_ids_check). kind, if not
 * NULL, receives its SP_READER_META_* kind. */
static int sp_attr_text(const sp_reader_t *r, hid_t obj, const char *name, hid_t a, char *out,
                        size_t cap, int *kind) {
  hid_t t = H5Aget_type(a), s = H5Aget_space(a);
  int rc = -1;
  if (t >= 0 && s >= 0 && H5Sget_simple_extent_npoints(s) == 1) {
    H5T_class_t c = H5Tget_class(t);
    if (c == H5T_INTEGER) {
      long long v;
      if (H5Aread(a, H5T_NATIVE_LLONG, &v) >= 0) rc = snprintf(out, cap, "%lld", v) < 0 ? -1 : 0;
    } else if (c == H5T_FLOAT) {
      double v;
      /* The shortest %.Ng that reads back as v (1e+300, not
       * 1.0000000000000001e+300). */
      if (H5Aread(a, H5T_NATIVE_DOUBLE, &v) >= 0) {
        char buf[40];
        for (int prec = 1; prec <= 17; prec++) {
          snprintf(buf, sizeof buf, "%.*g", prec, v);
          if (strtod(buf, NULL) == v) break;
        }
        rc = snprintf(out, cap, "%s", buf) < 0 ? -1 : 0;
      }
    } else if (c == H5T_STRING && sp__heap_ids_check(r, obj, a, t, name) != 0) {
      rc = -2;
    } else if (c == H5T_STRING) {
      char *v = sp__attr_string(r, obj, name);
      if (v) rc = snprintf(out, cap, "%s", v) < 0 ? -1 : 0;
      free(v);
    }
  }
  if (rc == 0 && kind) {
    H5T_class_t c = H5Tget_class(t);
    *kind = c == H5T_INTEGER ? SP_READER_META_INT
            : c == H5T_FLOAT ? SP_READER_META_FLOAT
                             : SP_READER_META_STRING;
  }
  if (t >= 0) H5Tclose(t);
  if (s >= 0) H5Sclose(s);
  return rc;
}

/* The file's /metadata group (a local link), or -1 when it has none. */
static hid_t sp_metadata_group(const sp_reader_t *r) {
  return H5Lexists(r->file, "metadata", H5P_DEFAULT) > 0 &&
                 sp__link_kind(r->file, "metadata") == SP_LINK_LOCAL
             ? H5Gopen2(r->file, "metadata", H5P_DEFAULT)
             : -1;
}

int sp_reader_metadata(sp_reader_t *r, const char *name, char *out, size_t cap) {
  if (!r || !name || !out || cap == 0) return SP_READER_EINVAL;
  out[0] = '\0';
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  int rc = SP_READER_EINVAL;
  hid_t g = sp_metadata_group(r);
  if (g >= 0 && H5Aexists(g, name) > 0) {
    hid_t a = H5Aopen(g, name, H5P_DEFAULT);
    int t = a >= 0 ? sp_attr_text(r, g, name, a, out, cap, NULL) : -1;
    rc = t == 0 ? 0 : t == -2 ? SP_READER_ELAYOUT : rc;
    if (a >= 0) H5Aclose(a);
  }
  if (g >= 0) H5Gclose(g);
  sp__h5_quiet_end(&q);
  if (rc == SP_READER_ELAYOUT) return sp__reader_fail(r, rc, "%s", sp__gheap_damaged(r));
  if (rc) return sp__reader_fail(r, rc, "no readable /metadata attribute '%s'", name);
  return 0;
}

int sp_reader_metadata_count(sp_reader_t *r) {
  if (!r) return 0;
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  hid_t g = sp_metadata_group(r);
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t oi;
  int n = g >= 0 && H5Oget_info3(g, &oi, H5O_INFO_NUM_ATTRS) >= 0 ? (int)oi.num_attrs : 0;
#else
  H5O_info_t oi;
  int n = g >= 0 && H5Oget_info2(g, &oi, H5O_INFO_NUM_ATTRS) >= 0 ? (int)oi.num_attrs : 0;
#endif
  if (g >= 0) H5Gclose(g);
  sp__h5_quiet_end(&q);
  return n;
}

int sp_reader_metadata_entry(sp_reader_t *r, int i, char *name, size_t namecap, char *value,
                             size_t valcap, int *kind) {
  if (!r || i < 0 || !name || namecap == 0 || !value || valcap == 0 || !kind)
    return SP_READER_EINVAL;
  name[0] = value[0] = '\0';
  *kind = SP_READER_META_OTHER;
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  hid_t g = sp_metadata_group(r);
  hid_t a = g >= 0 ? H5Aopen_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, (hsize_t)i, H5P_DEFAULT,
                                    H5P_DEFAULT)
                   : -1;
  int rc = a >= 0 ? 0 : SP_READER_EINVAL, t = 0;
  if (a >= 0) {
    ssize_t len = H5Aget_name(a, namecap, name);
    if (len < 0 || (size_t)len >= namecap)
      rc = SP_READER_EINVAL; /* a name that does not fit is not half-returned */
    else if ((t = sp_attr_text(r, g, name, a, value, valcap, kind)) != 0)
      value[0] = '\0'; /* an array or compound: its name only, kind OTHER */
    if (t == -2) rc = SP_READER_ELAYOUT;
    H5Aclose(a);
  }
  if (g >= 0) H5Gclose(g);
  sp__h5_quiet_end(&q);
  if (rc == SP_READER_ELAYOUT) return sp__reader_fail(r, rc, "%s", sp__gheap_damaged(r));
  if (rc) {
    name[0] = '\0';
    return sp__reader_fail(r, rc, "no /metadata attribute number %d (or its name is too long)", i);
  }
  return 0;
}

/* H5Aiterate2's callback: one attribute's heap IDs. */
static herr_t sp_meta_ids_one(hid_t g, const char *name, const H5A_info_t *info, void *data) {
  (void)info;
  const sp_reader_t *r = data;
  hid_t a = H5Aopen(g, name, H5P_DEFAULT), t = a >= 0 ? H5Aget_type(a) : -1;
  int bad = t >= 0 && sp__heap_ids_check(r, g, a, t, name) != 0;
  if (t >= 0) H5Tclose(t);
  if (a >= 0) H5Aclose(a);
  return bad ? 1 : 0; /* the first damaged one stops the walk */
}

void sp__metadata_ids_check(const sp_reader_t *r) {
  if (!r->gheap) return;
  hid_t g = sp_metadata_group(r);
  if (g < 0) return;
  hsize_t idx = 0;
  H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, sp_meta_ids_one, (void *)r);
  H5Gclose(g);
}
