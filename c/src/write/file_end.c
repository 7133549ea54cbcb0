/* file_end.c - a written profile's end against HDF5's end of allocation
 * (file_end.h). */
#include <errno.h>
#include <hdf5.h>
#include <string.h>
#include <sys/stat.h>

#include "file_end.h"

int sp__file_end_stored(const char *path, uint64_t *eoa) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return SP_EHDF5;
  H5Pset_fapl_sec2(fapl);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  H5Pclose(fapl);
  if (f < 0) return SP_EHDF5;
  haddr_t a = HADDR_UNDEF;
  herr_t e = H5Fget_eoa(f, &a);
  if (H5Fclose(f) < 0 || e < 0 || a == HADDR_UNDEF) return SP_EHDF5;
  *eoa = (uint64_t)a;
  return 0;
}

int sp__file_end_check(const char *path, const char *what) {
  struct stat sb;
  if (stat(path, &sb) != 0) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "the profile for '%s' is gone before publication ('%s'): %s", what, path,
            strerror(errno));
    return SP_EIO;
  }
  uint64_t eoa = 0;
  if (sp__file_end_stored(path, &eoa) != 0) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "the profile for '%s' came out unreadable (HDF5 cannot open it, %lld bytes); not "
            "published",
            what, (long long)sb.st_size);
    return SP_EHDF5;
  }
  if ((uint64_t)sb.st_size < eoa) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "the profile for '%s' came out truncated (%lld bytes, HDF5 allocated %llu); not "
            "published",
            what, (long long)sb.st_size, (unsigned long long)eoa);
    return SP_EHDF5;
  }
  return 0;
}
