/* test_reader_direct.c - the reader's direct reads (pread at a dataset's
 * offset, postproc/src/reader_direct.c) against H5Dread.
 * usage: test_reader_direct CASE DIR; each case is its own CTest test.
 *
 * Each case writes its own file with the HDF5 C API: one rank, region "a"
 * stored as the case says (contiguous, chunked, compressed, big-endian,
 * with thread ids) and region "b" always contiguous. Every array is read
 * twice, through the direct path and with SCOPE_PROFILER_READER_DIRECT=0
 * (H5Dread only), and must be identical and equal to what was written.
 * Damaged layouts (an offset past the end of the file, a file that shrank
 * after open) must give an error, never other bytes. sp_reader_read_range
 * (slices into the caller's arrays) is checked the same two ways. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "scope_profiler_reader.h"
#include "sp_reader_test.h"
#include "sp_test_cases.h"

static const char *dir;
#define N 1000
#define T0 1000000000000LL

enum { PLAIN, CHUNKED, DEFLATE, BIG_ENDIAN, THREADS };

static void path_of(char *out, size_t cap, const char *name) {
  snprintf(out, cap, "%s/direct_%s.h5", dir, name);
}

/* Region group name of rank0 with start, end (and thread ids) of N calls:
 * start i = T0 + 100 i + seed, end = start + 50 + (i % 7). */
static void region_write(hid_t regions, const char *name, int kind, int seed) {
  hid_t g = H5Gcreate2(regions, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int64_t *s = malloc(N * sizeof *s), *e = malloc(N * sizeof *e);
  int32_t *t = malloc(N * sizeof *t);
  for (int i = 0; i < N; i++) {
    s[i] = T0 + 100 * (int64_t)i + seed;
    e[i] = s[i] + 50 + i % 7;
    t[i] = i % 3;
  }
  hsize_t dims[1] = {N}, chunk[1] = {64};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (kind == CHUNKED || kind == DEFLATE) H5Pset_chunk(dcpl, 1, chunk);
  if (kind == DEFLATE) H5Pset_deflate(dcpl, 6);
  hid_t ftype = kind == BIG_ENDIAN ? H5T_STD_I64BE : H5T_STD_I64LE;
  hid_t ds = H5Dcreate2(g, "start_times", ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, s);
  H5Dclose(ds);
  ds = H5Dcreate2(g, "end_times", ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, e);
  H5Dclose(ds);
  if (kind == THREADS) {
    ds = H5Dcreate2(g, "thread_ids", H5T_STD_I32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dwrite(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, t);
    H5Dclose(ds);
  }
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Gclose(g);
  free(s);
  free(e);
  free(t);
}

static void file_write(const char *path, int kind) {
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t rank = H5Gcreate2(f, "rank0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t regions = H5Gcreate2(rank, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  region_write(regions, "a", kind, 0);
  region_write(regions, "b", PLAIN, 3);
  H5Gclose(regions);
  H5Gclose(rank);
  H5Fclose(f);
}

/* Byte offset of rank0/regions/<region>/<name> as HDF5 reports it. */
static haddr_t offset_of(const char *path, const char *region, const char *name) {
  char p[256];
  snprintf(p, sizeof p, "/rank0/regions/%s/%s", region, name);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, p, H5P_DEFAULT);
  haddr_t a = H5Dget_offset(d);
  H5Dclose(d);
  H5Fclose(f);
  return a;
}

static sp_reader_t *reader_open(const char *path, int direct) {
  if (direct)
    unsetenv("SCOPE_PROFILER_READER_DIRECT");
  else
    setenv("SCOPE_PROFILER_READER_DIRECT", "0", 1);
  sp_reader_t *r = sp_test_open(NULL, path);
  unsetenv("SCOPE_PROFILER_READER_DIRECT");
  return r;
}

/* Loads region name both ways; both must succeed with identical arrays
 * equal to what region_write wrote with seed. */
static void same_arrays(sp_reader_t *direct, sp_reader_t *h5, const char *name, int seed,
                        int threads) {
  sp_reader_intervals_t a, b;
  int ga = sp_test_region(direct, name), gb = sp_test_region(h5, name);
  CHECK_INT(sp_reader_load(direct, ga, 0, &a), 0);
  CHECK_INT(sp_reader_load(h5, gb, 0, &b), 0);
  CHECK_INT(a.n, N);
  CHECK_INT(b.n, N);
  if (a.n == N && b.n == N) {
    CHECK_INT(memcmp(a.start, b.start, N * sizeof *a.start), 0);
    CHECK_INT(memcmp(a.end, b.end, N * sizeof *a.end), 0);
    CHECK_INT(a.start[0], T0 + seed);
    CHECK_INT(a.start[N - 1], T0 + 100 * (N - 1) + seed);
    CHECK_INT(a.end[N - 1] - a.start[N - 1], 50 + (N - 1) % 7);
    CHECK_INT(a.thread_ids != NULL, threads);
    CHECK_INT(b.thread_ids != NULL, threads);
    if (threads && a.thread_ids && b.thread_ids) {
      CHECK_INT(memcmp(a.thread_ids, b.thread_ids, N * sizeof *a.thread_ids), 0);
      CHECK_INT(a.thread_ids[N - 1], (N - 1) % 3);
    }
  }
  int64_t f1, l1, f2, l2;
  CHECK_INT(sp_reader_extent(direct, ga, 0, &f1, &l1), 0);
  CHECK_INT(sp_reader_extent(h5, gb, 0, &f2, &l2), 0);
  CHECK_INT(f1, f2);
  CHECK_INT(l1, l2);
  CHECK_INT(f1, T0 + seed);
  CHECK_INT(l1, T0 + 100 * (N - 1) + seed + 50 + (N - 1) % 7);
  sp_reader_intervals_free(&a);
  sp_reader_intervals_free(&b);
}

static void both_ways(const char *name, int kind) {
  char path[4096];
  path_of(path, sizeof path, name);
  file_write(path, kind);
  sp_reader_t *d = reader_open(path, 1), *h = reader_open(path, 0);
  same_arrays(d, h, "a", 0, kind == THREADS);
  same_arrays(d, h, "b", 3, 0);
  sp_reader_close(d);
  sp_reader_close(h);
}

static void case_contiguous(void) { both_ways("contiguous", PLAIN); }
static void case_thread_ids(void) { both_ways("thread_ids", THREADS); }
static void case_chunked(void) { both_ways("chunked", CHUNKED); }
static void case_compressed(void) { both_ways("compressed", DEFLATE); }
static void case_big_endian(void) { both_ways("big_endian", BIG_ENDIAN); }

/* sp_reader_read_range of region name in slices of 97 (not a divisor of
 * N) must give what region_write wrote with seed, thread ids 0 where none
 * were written; NULL thread ids, a slice past the end and bad arguments. */
static void ranges_match(sp_reader_t *r, const char *name, int seed, int threads) {
  int g = sp_test_region(r, name);
  int64_t s[97], e[97];
  int32_t t[97];
  int64_t at = 0, n, bad = 0;
  while ((n = sp_reader_read_range(r, g, 0, at, 97, s, e, t)) > 0) {
    for (int64_t i = 0; i < n; i++) {
      int64_t k = at + i;
      bad += s[i] != T0 + 100 * k + seed || e[i] - s[i] != 50 + k % 7 ||
             t[i] != (threads ? (int32_t)(k % 3) : 0);
    }
    at += n;
  }
  CHECK_INT(n, 0);
  CHECK_INT(at, N);
  CHECK_INT(bad, 0);
  CHECK_INT(sp_reader_read_range(r, g, 0, N - 10, 97, s, e, NULL), 10);
  CHECK_INT(s[9], T0 + 100 * (N - 1) + seed);
  CHECK_INT(sp_reader_read_range(r, g, 0, N + 5, 97, s, e, t), 0);
  CHECK_INT(sp_reader_read_range(r, g, 0, -1, 97, s, e, t), SP_READER_EINVAL);
  CHECK_INT(sp_reader_read_range(r, g, 1, 0, 97, s, e, t), SP_READER_EINVAL);
}

/* Slices through both paths, of a contiguous and a chunked file. */
static void case_ranges(void) {
  static const int kinds[2] = {THREADS, CHUNKED};
  for (int k = 0; k < 2; k++) {
    char path[4096];
    path_of(path, sizeof path, k ? "ranges_chunked" : "ranges_threads");
    file_write(path, kinds[k]);
    for (int direct = 0; direct < 2; direct++) {
      sp_reader_t *r = reader_open(path, direct);
      ranges_match(r, "a", 0, kinds[k] == THREADS);
      ranges_match(r, "b", 3, 0);
      sp_reader_close(r);
    }
  }
}

/* Rewrites the layout message of a's end_times (version 3, contiguous:
 * address then size, both 8 bytes) to put its data 16 bytes before the
 * end of the file: the bytes it declares run past the end. The object
 * headers of the default format carry no checksum, so HDF5 accepts it. */
static void patch_past_end(const char *path) {
  haddr_t at = offset_of(path, "a", "end_times");
  FILE *f = fopen(path, "r+b");
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  unsigned char *buf = malloc((size_t)size);
  fseek(f, 0, SEEK_SET);
  if (fread(buf, 1, (size_t)size, f) != (size_t)size) exit(1);
  uint64_t want[2] = {(uint64_t)at, (uint64_t)N * 8}; /* the host is little-endian here */
  long hit = -1;
  int hits = 0;
  for (long i = 0; i + 16 <= size; i++)
    if (memcmp(buf + i, want, 16) == 0) hit = i, hits++;
  CHECK_INT(hits, 1);
  uint64_t moved = (uint64_t)size - 16;
  fseek(f, hit, SEEK_SET);
  fwrite(&moved, 8, 1, f);
  fclose(f);
  free(buf);
  CHECK_INT(offset_of(path, "a", "end_times"), size - 16);
}

/* Region a's end_times declared past the end of the file: the reader
 * refuses the file both ways (HDF5 alone would read zeros there), never
 * reading bytes from elsewhere. */
static void case_offset_past_end(void) {
  char path[4096];
  path_of(path, sizeof path, "past_end");
  file_write(path, PLAIN);
  patch_past_end(path);
  for (int direct = 0; direct < 2; direct++) {
    if (!direct) setenv("SCOPE_PROFILER_READER_DIRECT", "0", 1);
    sp_reader_t *r = NULL;
    char msg[512] = "";
    CHECK_INT(sp_reader_open(path, &r, msg, sizeof msg), SP_READER_ENOTHDF5);
    unsetenv("SCOPE_PROFILER_READER_DIRECT");
    CHECK_INT(r == NULL, 1);
    CHECK_INT(strstr(msg, "rank0/regions/a/end_times") != NULL, 1);
    CHECK_INT(strstr(msg, "run past the end of the file") != NULL, 1);
    if (sp_test_failures) fprintf(stderr, "message: %s\n", msg);
    sp_reader_close(r);
  }
}

/* The file shrinks after open (a run rewriting it): the direct read of the
 * cut array must fail, not return a short or zero-filled array. */
static void case_shrunk_after_open(void) {
  char path[4096];
  path_of(path, sizeof path, "shrunk");
  file_write(path, PLAIN);
  /* The array stored last in the file is cut after its first element. */
  const char *regions[2] = {"a", "b"}, *names[2] = {"start_times", "end_times"};
  haddr_t last = 0;
  int lr = 0;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      haddr_t o = offset_of(path, regions[i], names[j]);
      if (o > last) last = o, lr = i;
    }
  sp_reader_t *d = reader_open(path, 1);
  CHECK_INT(truncate(path, (off_t)last + 8), 0);
  sp_reader_intervals_t iv;
  CHECK_INT(sp_reader_load(d, sp_test_region(d, regions[lr]), 0, &iv), SP_READER_EHDF5);
  CHECK_INT(iv.n, 0);
  sp_reader_close(d);
}

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {
      SP_TEST_CASE(contiguous),        SP_TEST_CASE(thread_ids), SP_TEST_CASE(chunked),
      SP_TEST_CASE(compressed),        SP_TEST_CASE(big_endian), SP_TEST_CASE(offset_past_end),
      SP_TEST_CASE(shrunk_after_open), SP_TEST_CASE(ranges),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  if (argc != 3) {
    fprintf(stderr, "usage: test_reader_direct CASE DIR\n");
    return 2;
  }
  dir = argv[2];
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the damaged cases make HDF5 complain */
  sp_test_case_run(c);
  return sp_test_failures ? 1 : 0;
}
