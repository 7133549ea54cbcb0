/* bench_nested.c - see bench_nested.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "bench_nested.h"

#include <stddef.h>
#include <stdlib.h>
#include <time.h>

/* Start-order position of region g's call inside one step. */
static const int sp_pos[SP_NREG] = {0, 1, 6, 11, 2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 14, 15};

void sp_nested_call(int g, int64_t i, int r, uint64_t *lcg, int64_t *s, int64_t *e, int64_t *id,
                    int64_t *pid) {
  int64_t base = 1000000000 + i * 1000000 + r * 100;
  *lcg = *lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  int64_t jit = (int64_t)((*lcg >> 33) % 5000);
  int64_t parent;
  if (g == 0) {
    *s = base;
    *e = base + 900000 + jit;
    parent = -1;
  } else if (g <= 3) {
    *s = base + (g - 1) * 300000 + 1000;
    *e = *s + 280000 + jit;
    parent = i * SP_NREG;
  } else {
    int p = 1 + (g - 4) / 4, q = (g - 4) % 4;
    *s = base + (p - 1) * 300000 + 1000 + q * 70000 + 1000;
    *e = *s + 60000 + jit;
    parent = i * SP_NREG + sp_pos[p];
  }
  if (id) *id = i * SP_NREG + sp_pos[g];
  if (pid) *pid = parent;
}

int sp_h5_put(hid_t grp, const char *name, hid_t ftype, hid_t mtype, const void *v, hsize_t n) {
  hid_t s = H5Screate_simple(1, &n, NULL);
  hid_t d = H5Dcreate2(grp, name, ftype, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rc = d >= 0 && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 ? 0 : -1;
  if (d >= 0) H5Dclose(d);
  H5Sclose(s);
  return rc;
}

static int sp_dcmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double sp_median_of(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, sp_dcmp);
  return v[n / 2];
}

double sp_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
