/* h5_calls_shim.c - LD_PRELOAD shim counting HDF5 dataset opens and reads.
 *
 * Interposes H5Dopen2 and H5Dread (passed on to the real ones) and, at
 * exit, appends "H5Dopen2 N" and "H5Dread M" to the file named by
 * SP_H5_CALLS_FILE. check_h5_calls.py uses it to hold the postprocessor to
 * one H5Dopen2 per dataset (issue 26: each open cost more than the read).
 * Also counts group opens and link iterations ("H5Gopen2", "H5Oopen_by_addr"
 * and "H5Literate" lines), for check_stab.py (groups read from their symbol
 * tables, reader_stab.c). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <hdf5.h>

static long opens, reads, gopens, oopens, iters;

__attribute__((visibility("default"))) hid_t H5Gopen2(hid_t loc, const char *name, hid_t gapl) {
  static hid_t (*real)(hid_t, const char *, hid_t);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "H5Gopen2");
  gopens++;
  return real ? real(loc, name, gapl) : -1;
}

__attribute__((visibility("default"))) hid_t H5Oopen_by_addr(hid_t loc, haddr_t addr) {
  static hid_t (*real)(hid_t, haddr_t);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "H5Oopen_by_addr");
  oopens++;
  return real ? real(loc, addr) : -1;
}

__attribute__((visibility("default"))) herr_t H5Literate(hid_t g, H5_index_t idx,
                                                         H5_iter_order_t order, hsize_t *at,
                                                         H5L_iterate_t op, void *data) {
  static herr_t (*real)(hid_t, H5_index_t, H5_iter_order_t, hsize_t *, H5L_iterate_t, void *);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "H5Literate");
  iters++;
  return real ? real(g, idx, order, at, op, data) : -1;
}

__attribute__((visibility("default"))) hid_t H5Dopen2(hid_t loc, const char *name, hid_t dapl) {
  static hid_t (*real)(hid_t, const char *, hid_t);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "H5Dopen2");
  opens++;
  return real ? real(loc, name, dapl) : -1;
}

__attribute__((visibility("default"))) herr_t H5Dread(hid_t d, hid_t mt, hid_t ms, hid_t fs,
                                                      hid_t xfer, void *buf) {
  static herr_t (*real)(hid_t, hid_t, hid_t, hid_t, hid_t, void *);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "H5Dread");
  reads++;
  return real ? real(d, mt, ms, fs, xfer, buf) : -1;
}

__attribute__((destructor)) static void sp_calls_report(void) {
  const char *path = getenv("SP_H5_CALLS_FILE");
  FILE *f = path ? fopen(path, "a") : NULL;
  if (!f) return;
  fprintf(f, "H5Dopen2 %ld\nH5Dread %ld\nH5Gopen2 %ld\nH5Oopen_by_addr %ld\nH5Literate %ld\n",
          opens, reads, gopens, oopens, iters);
  fclose(f);
}
