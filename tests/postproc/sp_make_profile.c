/* sp_make_profile.c - writes the test profiles with the HDF5 C API, in the
 * documented layout, independently of the core library.
 *
 * usage: sp_make_profile DIR   (writes every case below into DIR)
 *
 * basic.h5 (times in seconds after T = 1000 s; hand-computed values are in
 * tests/postproc/CMakeLists.txt):
 *   rank r = 0..3:
 *     main          one call [0.1 r, 10]
 *     solver/step   (link solver%2Fstep, name attribute) r+1 calls,
 *                   call j: [1 + 2j, 1 + 2j + 0.5 (j+1)]
 *   rank0: omp      thread_ids: thread 0 [2, 2.2], [2.4, 2.5]; thread 1 [0.05, 0.1]
 *   rank1: 50%      (link 50%25) [3, 3.1]
 *   rank0, rank2: io [9, 9.25]
 *   rank0: a/b      link a%2Fb WITHOUT name attribute (decoded from the link)
 *                   [9.5, 9.6]
 *   plus: ignored root objects "metadata", "rank01", "rankX", "notes".
 *
 * likwid.h5: LIKWID results as the core writes them (c/src/likwid/likwid_glue.c),
 * group FLOPS_DP, events INSTR_RETIRED_ANY and FP_ARITH_SCALAR_DOUBLE
 * (values in the table are per thread):
 *   main         rank0 2 threads, counts 1 1, times 2 1.5,   events 100 10 | 200 20
 *                rank1 1 thread,  count 1,    time 4,        events 1000 5
 *                rank2 2 threads, counts 1 1, times .25 .25, events 50 .5 | 50 .5
 *   solver/step  rank0 count 3, time .75, events 1.5e12 7;
 *                rank1 count 2, time .5,  events 2.5e12 3  (rank1 names: fixed-length strings)
 *   io           rank2 only, timed but without LIKWID results
 * likwid_bad.h5: events of shape [1][3] but two event names. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_gen_synthetic.h"

#define T0 1000000000000LL /* 1000 s in ns: stamps are far from zero like real ones */
#define S(x) ((int64_t)(T0 + (x)*1e9 + 0.5))

static char sp_dir[4096];

static const char *sp_path(const char *name) {
  static char buf[8192];
  snprintf(buf, sizeof buf, "%s/%s", sp_dir, name);
  return buf;
}

static void sp_attr_str(hid_t obj, const char *name, const char *value) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, t, &value);
  H5Aclose(a);
  H5Sclose(s);
  H5Tclose(t);
}

static void sp_attr_int(hid_t obj, const char *name, hid_t type, int64_t v) {
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, type, s, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_INT64, &v);
  H5Aclose(a);
  H5Sclose(s);
}

static void sp_dataset(hid_t g, const char *name, hid_t file_type, hid_t mem_type, const void *v,
                       hsize_t n) {
  hid_t s = H5Screate_simple(1, &n, NULL);
  hid_t d = H5Dcreate2(g, name, file_type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (n) H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  H5Dclose(d);
  H5Sclose(s);
}

static hid_t sp_file_new(const char *name) {
  hid_t f = H5Fcreate(sp_path(name), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) {
    fprintf(stderr, "sp_make_profile: cannot create %s\n", sp_path(name));
    exit(1);
  }
  sp_attr_int(f, "scope_profiler_schema", H5T_STD_I32LE, 1);
  hid_t m = H5Gcreate2(f, "metadata", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  sp_attr_str(m, "hostname", "testhost");
  sp_attr_str(m, "library_version", SP_TEST_LIBRARY_VERSION);
  sp_attr_str(m, "clock", "CLOCK_MONOTONIC");
  H5Gclose(m);
  return f;
}

/* rank<r>/regions, created on first use. */
static hid_t sp_regions(hid_t f, int r) {
  char name[64];
  snprintf(name, sizeof name, "rank%d", r);
  hid_t rg = H5Lexists(f, name, H5P_DEFAULT) > 0
                 ? H5Gopen2(f, name, H5P_DEFAULT)
                 : H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t regs = H5Lexists(rg, "regions", H5P_DEFAULT) > 0
                   ? H5Gopen2(rg, "regions", H5P_DEFAULT)
                   : H5Gcreate2(rg, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Gclose(rg);
  return regs;
}

/* One region: name attribute when name != NULL; arrays as int64. */
static void sp_region(hid_t f, int r, const char *link, const char *name, const int64_t *st,
                      const int64_t *en, const int32_t *tid, int n) {
  hid_t regs = sp_regions(f, r);
  hid_t g = H5Gcreate2(regs, link, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (name) sp_attr_str(g, "name", name);
  sp_attr_int(g, "num_calls", H5T_STD_I64LE, n);
  if (st) sp_dataset(g, "start_times", H5T_STD_I64LE, H5T_NATIVE_INT64, st, (hsize_t)n);
  if (en) sp_dataset(g, "end_times", H5T_STD_I64LE, H5T_NATIVE_INT64, en, (hsize_t)n);
  if (tid) sp_dataset(g, "thread_ids", H5T_STD_I32LE, H5T_NATIVE_INT32, tid, (hsize_t)n);
  H5Gclose(g);
  H5Gclose(regs);
}

static void sp_make_basic(void) {
  hid_t f = sp_file_new("basic.h5");
  for (int r = 0; r < 4; r++) {
    int64_t s[4], e[4];
    s[0] = S(0.1 * r);
    e[0] = S(10.0);
    sp_region(f, r, "main", "main", s, e, NULL, 1);
    for (int j = 0; j <= r; j++) {
      s[j] = S(1.0 + 2 * j);
      e[j] = S(1.0 + 2 * j + 0.5 * (j + 1));
    }
    sp_region(f, r, "solver%2Fstep", "solver/step", s, e, NULL, r + 1);
  }
  int64_t os[3] = {S(2.0), S(2.4), S(0.05)}, oe[3] = {S(2.2), S(2.5), S(0.1)};
  int32_t ot[3] = {0, 0, 1};
  sp_region(f, 0, "omp", "omp", os, oe, ot, 3);
  int64_t ps = S(3.0), pe = S(3.1);
  sp_region(f, 1, "50%25", "50%", &ps, &pe, NULL, 1);
  int64_t is = S(9.0), ie = S(9.25);
  sp_region(f, 0, "io", "io", &is, &ie, NULL, 1);
  sp_region(f, 2, "io", "io", &is, &ie, NULL, 1);
  int64_t as = S(9.5), ae = S(9.6);
  sp_region(f, 0, "a%2Fb", NULL, &as, &ae, NULL, 1);
  /* Root objects that are not ranks and must be ignored. */
  const char *others[] = {"rank01", "rankX", "notes"};
  for (int i = 0; i < 3; i++)
    H5Gclose(H5Gcreate2(f, others[i], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Fclose(f);
}

/* Count-only mode: num_calls and no datasets. */
static void sp_make_count_only(void) {
  hid_t f = sp_file_new("count_only.h5");
  sp_region(f, 0, "main", "main", NULL, NULL, NULL, 5);
  sp_region(f, 1, "main", "main", NULL, NULL, NULL, 7);
  H5Fclose(f);
}

static void sp_make_empty_region(void) {
  hid_t f = sp_file_new("empty_region.h5");
  sp_region(f, 0, "idle", "idle", NULL, NULL, NULL, 0);
  hid_t regs = sp_regions(f, 0);
  hid_t g = H5Gopen2(regs, "idle", H5P_DEFAULT);
  int64_t none = 0;
  sp_dataset(g, "start_times", H5T_STD_I64LE, H5T_NATIVE_INT64, &none, 0);
  sp_dataset(g, "end_times", H5T_STD_I64LE, H5T_NATIVE_INT64, &none, 0);
  H5Gclose(g);
  H5Gclose(regs);
  H5Fclose(f);
}

static void sp_make_no_regions(void) {
  hid_t f = sp_file_new("no_regions.h5");
  H5Gclose(sp_regions(f, 0));
  H5Fclose(f);
}

static void sp_make_no_ranks(void) {
  hid_t f = sp_file_new("no_ranks.h5");
  H5Gclose(H5Gcreate2(f, "rank01", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Gclose(H5Gcreate2(f, "data", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  int64_t v = 1;
  sp_dataset(f, "rank3", H5T_STD_I64LE, H5T_NATIVE_INT64, &v, 1); /* a dataset, not a group */
  H5Fclose(f);
}

static void sp_make_bad_cases(void) {
  int64_t s[2] = {S(1.0), S(2.0)}, e[2] = {S(1.5), S(2.5)}, back[2] = {S(1.5), S(1.9)};
  hid_t f = sp_file_new("one_dataset.h5");
  sp_region(f, 0, "half", "half", s, NULL, NULL, 2);
  H5Fclose(f);

  f = sp_file_new("length_mismatch.h5");
  hid_t regs = sp_regions(f, 0);
  hid_t g = H5Gcreate2(regs, "uneven", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  sp_dataset(g, "start_times", H5T_STD_I64LE, H5T_NATIVE_INT64, s, 2);
  sp_dataset(g, "end_times", H5T_STD_I64LE, H5T_NATIVE_INT64, e, 1);
  H5Gclose(g);
  H5Gclose(regs);
  H5Fclose(f);

  f = sp_file_new("end_before_start.h5");
  sp_region(f, 0, "ok", "ok", s, e, NULL, 2);
  sp_region(f, 0, "backwards", "backwards", s, back, NULL, 2);
  H5Fclose(f);

  f = sp_file_new("wrong_dtype.h5");
  double ds[2] = {1.0, 2.0}, de[2] = {1.5, 2.5};
  regs = sp_regions(f, 0);
  g = H5Gcreate2(regs, "floaty", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  sp_dataset(g, "start_times", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, ds, 2);
  sp_dataset(g, "end_times", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, de, 2);
  H5Gclose(g);
  H5Gclose(regs);
  H5Fclose(f);

  f = sp_file_new("future_schema.h5");
  H5Adelete(f, "scope_profiler_schema");
  sp_attr_int(f, "scope_profiler_schema", H5T_STD_I32LE, 99);
  sp_region(f, 0, "ok", "ok", s, e, NULL, 2);
  H5Fclose(f);
}

/* rank<r>/likwid/regions/<link>: one region's LIKWID results. */
static void sp_likwid_region(hid_t f, int r, const char *link, const char *name, int t, int e,
                             const int64_t *counts, const double *times, const double *ev,
                             int fixed_names) {
  static const char *names[] = {"INSTR_RETIRED_ANY", "FP_ARITH_SCALAR_DOUBLE", "X"};
  char path[256];
  snprintf(path, sizeof path, "rank%d/likwid", r);
  hid_t lw = H5Lexists(f, path, H5P_DEFAULT) > 0
                 ? H5Gopen2(f, path, H5P_DEFAULT)
                 : H5Gcreate2(f, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (H5Aexists(lw, "group") <= 0) sp_attr_str(lw, "group", "FLOPS_DP");
  hid_t regs = H5Lexists(lw, "regions", H5P_DEFAULT) > 0
                   ? H5Gopen2(lw, "regions", H5P_DEFAULT)
                   : H5Gcreate2(lw, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t g = H5Gcreate2(regs, link, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  sp_attr_str(g, "name", name);
  sp_attr_str(g, "tag", name);
  int32_t cpus[4];
  for (int i = 0; i < t; i++) cpus[i] = (int32_t)(2 * r + i);
  sp_dataset(g, "cpus", H5T_STD_I32LE, H5T_NATIVE_INT32, cpus, (hsize_t)t);
  sp_dataset(g, "counts", H5T_STD_I64LE, H5T_NATIVE_INT64, counts, (hsize_t)t);
  sp_dataset(g, "times", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, times, (hsize_t)t);
  hsize_t d2[2] = {(hsize_t)t, (hsize_t)e}, ne = 2;
  hid_t s = H5Screate_simple(2, d2, NULL);
  hid_t d = H5Dcreate2(g, "events", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, ev);
  H5Dclose(d);
  H5Sclose(s);
  hid_t st = H5Tcopy(H5T_C_S1);
  H5Tset_size(st, fixed_names ? 24 : H5T_VARIABLE);
  H5Tset_cset(st, H5T_CSET_UTF8);
  char fixed[2][24] = {{0}};
  for (int i = 0; i < 2; i++) snprintf(fixed[i], sizeof fixed[i], "%s", names[i]);
  s = H5Screate_simple(1, &ne, NULL);
  d = H5Dcreate2(g, "event_names", st, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const void *buf = fixed_names ? (const void *)fixed : (const void *)names;
  H5Dwrite(d, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  H5Dclose(d);
  H5Sclose(s);
  H5Tclose(st);
  H5Gclose(g);
  H5Gclose(regs);
  H5Gclose(lw);
}

static void sp_make_likwid(void) {
  hid_t f = sp_file_new("likwid.h5");
  int64_t s[2], e[2];
  for (int r = 0; r < 3; r++) {
    s[0] = S(0.0);
    e[0] = S(5.0);
    sp_region(f, r, "main", "main", s, e, NULL, 1);
  }
  s[0] = S(1.0), e[0] = S(2.0), s[1] = S(2.0), e[1] = S(3.0);
  sp_region(f, 0, "solver%2Fstep", "solver/step", s, e, NULL, 2);
  sp_region(f, 1, "solver%2Fstep", "solver/step", s, e, NULL, 2);
  sp_region(f, 2, "io", "io", s, e, NULL, 1);
  int64_t c11[2] = {1, 1}, c3 = 3, c2 = 2;
  double t0[2] = {2.0, 1.5}, e0[4] = {100, 10, 200, 20};
  double t1 = 4.0, e1[2] = {1000, 5};
  double t2[2] = {0.25, 0.25}, e2[4] = {50, 0.5, 50, 0.5};
  sp_likwid_region(f, 0, "main", "main", 2, 2, c11, t0, e0, 0);
  sp_likwid_region(f, 1, "main", "main", 1, 2, c11, &t1, e1, 1);
  sp_likwid_region(f, 2, "main", "main", 2, 2, c11, t2, e2, 0);
  double ts0 = 0.75, es0[2] = {1.5e12, 7}, ts1 = 0.5, es1[2] = {2.5e12, 3};
  sp_likwid_region(f, 0, "solver%2Fstep", "solver/step", 1, 2, &c3, &ts0, es0, 0);
  sp_likwid_region(f, 1, "solver%2Fstep", "solver/step", 1, 2, &c2, &ts1, es1, 1);
  H5Fclose(f);

  /* events [1][3] but two event names: the reader must refuse it. */
  f = sp_file_new("likwid_bad.h5");
  sp_region(f, 0, "main", "main", s, e, NULL, 1);
  double eb[3] = {1, 2, 3};
  sp_likwid_region(f, 0, "main", "main", 1, 3, &c3, &ts0, eb, 0);
  H5Fclose(f);
}

/* Stamps at both ends of int64 (a damaged or foreign file): every span
 * the CLI computes would overflow int64 if subtracted as signed. */
static void sp_make_extreme_stamps(void) {
  int64_t es[2] = {INT64_MIN, INT64_MIN + 10}, ee[2] = {INT64_MIN + 5, INT64_MIN + 20};
  int64_t ls[2] = {INT64_MAX - 20, INT64_MAX - 10}, le[2] = {INT64_MAX - 15, INT64_MAX};
  hid_t f = sp_file_new("extreme_stamps.h5");
  sp_region(f, 0, "early", "early", es, ee, NULL, 2);
  sp_region(f, 1, "late", "late", ls, le, NULL, 2);
  H5Fclose(f);
}

/* Copies the first half of basic.h5, as a job killed while copying would. */
static void sp_make_truncated(void) {
  FILE *in = fopen(sp_path("basic.h5"), "rb");
  fseek(in, 0, SEEK_END);
  long n = ftell(in);
  fseek(in, 0, SEEK_SET);
  char *buf = malloc((size_t)n);
  size_t got = fread(buf, 1, (size_t)n, in);
  fclose(in);
  FILE *out = fopen(sp_path("truncated.h5"), "wb");
  fwrite(buf, 1, got / 2, out);
  fclose(out);
  free(buf);
  out = fopen(sp_path("not_hdf5.h5"), "wb");
  fputs("this is a text file, not HDF5\n", out);
  fclose(out);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: sp_make_profile DIR\n");
    return 2;
  }
  snprintf(sp_dir, sizeof sp_dir, "%s", argv[1]);
  sp_make_basic();
  sp_make_count_only();
  sp_make_empty_region();
  sp_make_no_regions();
  sp_make_no_ranks();
  sp_make_bad_cases();
  sp_make_truncated();
  sp_make_extreme_stamps();
  sp_make_likwid();
  /* 1024 ranks x 20 regions, 2 intervals per lane: label thinning. */
  if (sp_gen_synthetic(sp_path("wide.h5"), 1024, 20, 1024 * 20 * 2) != 0) return 1;
  /* Many lanes, cheap to open (the HTML report's binned lanes under ASan). */
  if (sp_gen_synthetic(sp_path("mid.h5"), 64, 8, 20000) != 0) return 1;
  printf("wrote test profiles to %s\n", sp_dir);
  return 0;
}
