/* sp_gen_synthetic.c - deterministic large profiles written with the HDF5 C API. */
#include "sp_gen_synthetic.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static herr_t sp_write_i64(hid_t g, const char *name, const int64_t *v, hsize_t n) {
  hid_t s = H5Screate_simple(1, &n, NULL);
  hid_t d = H5Dcreate2(g, name, H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t rc = d >= 0 ? H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) : -1;
  if (d >= 0) H5Dclose(d);
  H5Sclose(s);
  return rc;
}

static void sp_attr_i64(hid_t obj, const char *name, int64_t v) {
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_INT64, &v);
  H5Aclose(a);
  H5Sclose(s);
}

int sp_gen_synthetic(const char *path, int nranks, int nregions, int64_t total) {
  int64_t iters = total / ((int64_t)nranks * nregions);
  if (iters < 1) iters = 1;
  const int64_t slot = 1000000; /* 1 ms per region call slot */
  int64_t *st = malloc((size_t)iters * sizeof *st), *en = malloc((size_t)iters * sizeof *en);
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (!st || !en || f < 0) return -1;
  uint64_t lcg = 12345;
  int rc = 0;
  for (int r = 0; r < nranks && rc == 0; r++) {
    char name[64];
    snprintf(name, sizeof name, "rank%d", r);
    hid_t rg = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t regs = H5Gcreate2(rg, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (int g = 0; g < nregions && rc == 0; g++) {
      for (int64_t i = 0; i < iters; i++) {
        lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t len = slot * 6 / 10 + (int64_t)((lcg >> 33) % (uint64_t)(slot * 3 / 10));
        st[i] = 1000000000 + (i * nregions + g) * slot + r * 1000;
        en[i] = st[i] + len;
      }
      snprintf(name, sizeof name, "region_%02d", g);
      hid_t rgn = H5Gcreate2(regs, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      sp_attr_i64(rgn, "num_calls", iters);
      if (sp_write_i64(rgn, "start_times", st, (hsize_t)iters) < 0 ||
          sp_write_i64(rgn, "end_times", en, (hsize_t)iters) < 0)
        rc = -1;
      H5Gclose(rgn);
    }
    H5Gclose(regs);
    H5Gclose(rg);
  }
  free(st);
  free(en);
  if (H5Fclose(f) < 0) rc = -1;
  return rc;
}
