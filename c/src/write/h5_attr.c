/* h5_attr.c - scalar attributes and one-dimensional datasets of the written files (h5_attr.h). */
#include "h5_attr.h"

int sp__h5_attr(hid_t obj, const char *name, hid_t type, const void *value) {
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t w = a >= 0 ? H5Awrite(a, type, value) : -1;
  if (a >= 0) H5Aclose(a);
  H5Sclose(space);
  return (a >= 0 && w >= 0) ? 0 : SP_EHDF5;
}

int sp__h5_attr_str(hid_t obj, const char *name, const char *value) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  int rc = sp__h5_attr(obj, name, t, &value);
  H5Tclose(t);
  return rc;
}

int sp__h5_dataset_1d(hid_t g, const char *name, hid_t mem, hid_t file, int64_t n,
                      const void *data) {
  hsize_t dims[1] = {(hsize_t)n};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t d = H5Dcreate2(g, name, file, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t w = d >= 0 && n > 0 ? H5Dwrite(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) : 0;
  if (d >= 0) H5Dclose(d);
  H5Sclose(space);
  return d >= 0 && w >= 0 ? 0 : SP_EHDF5;
}
