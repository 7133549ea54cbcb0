/* test_reader.c - cases of the reader library on the generator's files
 * (ref_*: on make_reference_files.py's).
 * usage: test_reader CASE DIR; each case is its own CTest test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scope_profiler_reader.h"
#include "sp_reader_test.h"
#include "sp_test_cases.h"

static const char *dir;
#define T0 1000000000000LL

static sp_reader_t *open_file(const char *name) { return sp_test_open(dir, name); }

static void case_decode(void) {
  char out[64];
  CHECK_INT(sp_reader_name_decode("solver%2Fstep", out, sizeof out), 11);
  CHECK_STR(out, "solver/step");
  sp_reader_name_decode("50%25", out, sizeof out);
  CHECK_STR(out, "50%");
  sp_reader_name_decode("%2E", out, sizeof out);
  CHECK_STR(out, ".");
  sp_reader_name_decode("a b.c \xc3\xa9", out, sizeof out);
  CHECK_STR(out, "a b.c \xc3\xa9");
  sp_reader_name_decode("bad%zz%2", out, sizeof out); /* malformed escapes kept */
  CHECK_STR(out, "bad%zz%2");
  CHECK_INT(sp_reader_name_decode("abcdef", out, 4), 6); /* truncated, still terminated */
  CHECK_STR(out, "abc");
}

static void case_open_basic(void) {
  sp_reader_t *r = open_file("basic.h5");
  CHECK_INT(sp_reader_schema(r), 1);
  CHECK_STR(sp_reader_errmsg(r), "");
  sp_reader_close(r);
  sp_reader_close(NULL);
}

static void case_ranks(void) {
  sp_reader_t *r = open_file("basic.h5");
  CHECK_INT(sp_reader_num_ranks(r), 4); /* rank01, rankX are not ranks */
  CHECK_INT(sp_reader_rank_id(r, 3), 3);
  CHECK_INT(sp_reader_rank_id(r, 4), -1);
  CHECK_INT(sp_reader_rank_index(r, 2), 2);
  CHECK_INT(sp_reader_rank_index(r, 9), -1);
  sp_reader_close(r);
}

static void case_regions_order(void) {
  static const char *want[] = {"main", "omp", "solver/step", "50%", "io", "a/b"};
  sp_reader_t *r = open_file("basic.h5");
  CHECK_INT(sp_reader_num_regions(r), 6);
  for (int g = 0; g < 6; g++) CHECK_STR(sp_reader_region_name(r, g), want[g]);
  CHECK_INT(sp_reader_region_first_start(r, 1), T0 + 50000000); /* omp: thread 1 started first */
  CHECK_INT(sp_reader_region_name(r, 6) == NULL, 1);
  sp_reader_close(r);
}

static void case_names(void) {
  sp_reader_t *r = open_file("basic.h5");
  sp_reader_info_t info;
  /* a/b has no name attribute: decoded from its link a%2Fb. */
  CHECK_INT(sp_reader_info(r, sp_test_region(r, "a/b"), 0, &info), 0);
  CHECK_INT(info.present, 1);
  CHECK_INT(info.num_intervals, 1);
  sp_reader_close(r);
}

static void case_filter(void) {
  sp_reader_t *r = open_file("basic.h5");
  int sel[16], n = -1;
  const char *inc[] = {"solver", "a"}, *exc[] = {"a/"};
  CHECK_INT(sp_reader_filter(r, inc, 2, exc, 1, sel, &n), 0);
  CHECK_INT(n, 1);
  CHECK_STR(sp_reader_region_name(r, sel[0]), "solver/step");
  const char *mid[] = {"step"}; /* anchored at the start, as re.match */
  CHECK_INT(sp_reader_filter(r, mid, 1, NULL, 0, sel, &n), 0);
  CHECK_INT(n, 0);
  CHECK_INT(sp_reader_filter(r, NULL, 0, NULL, 0, sel, &n), 0);
  CHECK_INT(n, 6);
  const char *alt[] = {"io|omp"};
  CHECK_INT(sp_reader_filter(r, alt, 1, NULL, 0, sel, &n), 0);
  CHECK_INT(n, 2);
  sp_reader_close(r);
}

static void case_filter_bad(void) {
  sp_reader_t *r = open_file("basic.h5");
  int sel[16], n = -1;
  const char *bad[] = {"a)(b"};
  CHECK_INT(sp_reader_filter(r, bad, 1, NULL, 0, sel, &n), SP_READER_EPATTERN);
  CHECK_INT(strstr(sp_reader_errmsg(r), "a)(b") != NULL, 1);
  sp_reader_close(r);
}

static void case_info_thread(void) {
  sp_reader_t *r = open_file("basic.h5");
  sp_reader_info_t info;
  int g = sp_test_region(r, "omp");
  sp_reader_info(r, g, 0, &info);
  CHECK_INT(info.has_thread_ids, 1);
  CHECK_INT(info.num_calls, 3);
  sp_reader_info(r, g, 1, &info);
  CHECK_INT(info.present, 0);
  CHECK_INT(sp_reader_info(r, g, 99, &info), SP_READER_EINVAL);
  sp_reader_intervals_t iv;
  CHECK_INT(sp_reader_load(r, g, 0, &iv), 0);
  CHECK_INT(iv.n, 3);
  CHECK_INT(iv.thread_ids != NULL, 1);
  CHECK_INT(iv.thread_ids[2], 1);
  sp_reader_intervals_free(&iv);
  sp_reader_close(r);
}

static void case_load_stats(void) {
  sp_reader_t *r = open_file("basic.h5");
  sp_reader_intervals_t iv;
  sp_reader_stats_t st;
  int g = sp_test_region(r, "solver/step");
  CHECK_INT(sp_reader_load(r, g, 3, &iv), 0);
  CHECK_INT(iv.n, 4);
  CHECK_INT(iv.start[1], T0 + 3000000000LL);
  sp_reader_stats_compute(&iv, &st);
  CHECK_INT(st.total, 5000000000LL);
  CHECK_INT(st.min, 500000000LL);
  CHECK_INT(st.max, 2000000000LL);
  CHECK_INT((long long)st.mean, 1250000000LL);
  sp_reader_intervals_free(&iv);
  CHECK_INT(iv.start == NULL, 1);
  /* A pair that does not exist loads as empty, not as an error. */
  CHECK_INT(sp_reader_load(r, sp_test_region(r, "io"), 1, &iv), 0);
  CHECK_INT(iv.n, 0);
  sp_reader_close(r);
}

static void case_extent(void) {
  sp_reader_t *r = open_file("basic.h5");
  int64_t a, b;
  CHECK_INT(sp_reader_extent(r, sp_test_region(r, "omp"), 0, &a, &b), 0);
  CHECK_INT(a, T0 + 50000000);
  CHECK_INT(b, T0 + 2500000000LL);
  CHECK_INT(sp_reader_extent(r, sp_test_region(r, "io"), 1, &a, &b), 0);
  CHECK_INT(a, INT64_MAX);
  sp_reader_close(r);
}

static void case_errors_open(void) {
  static const struct {
    const char *file;
    int err;
  } cases[] = {{"no_such.h5", SP_READER_EIO},
               {"not_hdf5.h5", SP_READER_ENOTHDF5},
               {"no_ranks.h5", SP_READER_ELAYOUT},
               {"one_dataset.h5", SP_READER_ELAYOUT},
               {"length_mismatch.h5", SP_READER_ELAYOUT},
               {"wrong_dtype.h5", SP_READER_ELAYOUT},
               {"future_schema.h5", SP_READER_ESCHEMA}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char path[4096], msg[512] = "unchanged";
    snprintf(path, sizeof path, "%s/%s", dir, cases[i].file);
    sp_reader_t *r = (sp_reader_t *)1;
    CHECK_INT(sp_reader_open(path, &r, msg, sizeof msg), cases[i].err);
    CHECK_INT(r == NULL, 1);
    CHECK_INT(msg[0] != '\0' && strcmp(msg, "unchanged") != 0, 1);
    printf("%s: %s\n", cases[i].file, msg);
  }
  CHECK_STR(sp_reader_err_name(SP_READER_EDATA), "SP_READER_EDATA");
  CHECK_STR(sp_reader_strerror(0), "success");
  CHECK_STR(sp_reader_version_string(), SP_READER_VERSION_STRING);
  CHECK_INT(sp_reader_version_number(), SP_READER_VERSION_NUMBER);
}

static void case_end_before_start(void) {
  sp_reader_t *r = open_file("end_before_start.h5");
  sp_reader_intervals_t iv;
  CHECK_INT(sp_reader_load(r, sp_test_region(r, "ok"), 0, &iv), 0);
  sp_reader_intervals_free(&iv);
  CHECK_INT(sp_reader_load(r, sp_test_region(r, "backwards"), 0, &iv), SP_READER_EDATA);
  CHECK_INT(iv.start == NULL && iv.n == 0, 1);
  CHECK_INT(strstr(sp_reader_errmsg(r), "interval 1 ends before it starts") != NULL, 1);
  sp_reader_close(r);
}

static void case_count_only(void) {
  sp_reader_t *r = open_file("count_only.h5");
  sp_reader_intervals_t iv;
  sp_reader_info_t info;
  sp_reader_info(r, 0, 1, &info);
  CHECK_INT(info.has_times, 0);
  CHECK_INT(info.num_calls, 7);
  CHECK_INT(sp_reader_load(r, 0, 1, &iv), 0);
  CHECK_INT(iv.n, 0);
  CHECK_INT(iv.num_calls, 7);
  sp_reader_close(r);
}

/* likwid.h5 as described in sp_make_profile.c. */
static void case_likwid(void) {
  sp_reader_t *r = open_file("likwid.h5");
  sp_reader_likwid_t lw;
  CHECK_INT(sp_reader_likwid_num_ranks(r), 3);
  CHECK_STR(sp_reader_likwid_group(r, 2), "FLOPS_DP");
  CHECK_INT(sp_reader_likwid_group(r, 3) == NULL, 1);
  CHECK_INT(sp_reader_likwid_load(r, sp_test_region(r, "main"), 0, &lw), 0);
  CHECK_INT(lw.present, 1);
  CHECK_INT(lw.nthreads, 2);
  CHECK_INT(lw.nevents, 2);
  CHECK_STR(lw.event_names[0], "INSTR_RETIRED_ANY");
  CHECK_STR(lw.event_names[1], "FP_ARITH_SCALAR_DOUBLE");
  CHECK_INT(lw.cpus[1], 1);
  CHECK_INT(lw.counts[0], 1);
  CHECK_INT(lw.times[1] == 1.5, 1);
  CHECK_INT(lw.events[2] == 200 && lw.events[3] == 20, 1); /* thread 1, row-major */
  sp_reader_likwid_free(&lw);
  CHECK_INT(lw.events == NULL && lw.nthreads == 0, 1);
  /* rank 1 stores fixed-length names; link solver%2Fstep found from the region. */
  CHECK_INT(sp_reader_likwid_load(r, sp_test_region(r, "solver/step"), 1, &lw), 0);
  CHECK_INT(lw.present, 1);
  CHECK_STR(lw.event_names[1], "FP_ARITH_SCALAR_DOUBLE");
  CHECK_INT(lw.counts[0], 2);
  CHECK_INT(lw.events[0] == 2.5e12, 1);
  sp_reader_likwid_free(&lw);
  /* Timed on rank 2 but not measured by LIKWID there: none, not an error. */
  CHECK_INT(sp_reader_likwid_load(r, sp_test_region(r, "io"), 2, &lw), 0);
  CHECK_INT(lw.present, 0);
  CHECK_INT(sp_reader_likwid_load(r, 99, 0, &lw), SP_READER_EINVAL);
  sp_reader_close(r);
}

static void case_likwid_none(void) {
  sp_reader_t *r = open_file("basic.h5");
  sp_reader_likwid_t lw;
  CHECK_INT(sp_reader_likwid_num_ranks(r), 0);
  CHECK_INT(sp_reader_likwid_group(r, 0) == NULL, 1);
  CHECK_INT(sp_reader_likwid_load(r, 0, 0, &lw), 0);
  CHECK_INT(lw.present, 0);
  CHECK_INT(lw.event_names == NULL, 1);
  sp_reader_likwid_free(NULL);
  sp_reader_close(r);
}

static void case_likwid_bad(void) {
  sp_reader_t *r = open_file("likwid_bad.h5"); /* opening reads no LIKWID arrays */
  sp_reader_likwid_t lw;
  CHECK_INT(sp_reader_likwid_load(r, 0, 0, &lw), SP_READER_ELAYOUT);
  CHECK_INT(lw.present == 0 && lw.events == NULL, 1);
  CHECK_INT(strstr(sp_reader_errmsg(r), "events 1x3, event_names 2") != NULL, 1);
  sp_reader_close(r);
}

/* The regions name[0..n-1] of rank id rank loaded into iv; their indices into g. */
static void load_pairs(sp_reader_t *r, int rank, const char *const *name, int n, int *g,
                       sp_reader_intervals_t *iv) {
  for (int q = 0; q < n; q++) {
    g[q] = sp_test_region(r, name[q]);
    CHECK_INT(sp_reader_load(r, g[q], sp_reader_rank_index(r, rank), &iv[q]), 0);
  }
}

/* ref_parents.h5 (make_reference_files.py): parents by the call ids, not the
 * stamps; calls numbered pair after pair, each pair's calls by end. */
static void case_ref_call_parents(void) {
  sp_reader_t *r = open_file("ref_parents.h5");
  CHECK_INT(sp_reader_has_call_ids(r), 1);
  const char *const n0[3] = {"main", "solver/rhs", "omp"};
  sp_reader_intervals_t iv[3];
  int g[3];
  int64_t par[6];
  load_pairs(r, 0, n0, 3, g, iv);
  /* main; rhs x3 (the last under the thread-1 omp call, call 4); omp on
   * thread 1 (a root on its thread), omp on thread 0 (a root by its id) */
  const int64_t want[6] = {-1, 0, 0, 4, -1, -1};
  CHECK_INT(sp_reader_call_parents(r, 0, iv, g, 3, par), 0);
  for (int c = 0; c < 6; c++) CHECK_INT(par[c], want[c]);
  /* main not selected: the calls under it become roots */
  const int64_t want_sel[5] = {-1, -1, 3, -1, -1};
  CHECK_INT(sp_reader_call_parents(r, 0, iv + 1, g + 1, 2, par), 0);
  for (int c = 0; c < 5; c++) CHECK_INT(par[c], want_sel[c]);
  for (int q = 0; q < 3; q++) sp_reader_intervals_free(&iv[q]);
  /* rank 2: io names a parent id that no call has (a root) */
  const char *const n2[3] = {"main", "solver/rhs", "io"};
  load_pairs(r, 2, n2, 3, g, iv);
  CHECK_INT(sp_reader_call_parents(r, sp_reader_rank_index(r, 2), iv, g, 3, par), 0);
  CHECK_INT(par[0], -1);
  CHECK_INT(par[1], 0);
  CHECK_INT(par[2], -1);
  CHECK_INT(sp_reader_call_parents(r, 99, iv, g, 3, par), SP_READER_EINVAL);
  for (int q = 0; q < 3; q++) sp_reader_intervals_free(&iv[q]);
  sp_reader_close(r);
  /* A file without ids: none to follow. */
  r = open_file("ref_rows.h5");
  CHECK_INT(sp_reader_has_call_ids(r), 0);
  load_pairs(r, 0, n0, 1, g, iv);
  CHECK_INT(sp_reader_call_parents(r, 0, iv, g, 1, par), SP_READER_EINVAL);
  CHECK_STR(sp_reader_errmsg(r), "the file has no call ids");
  sp_reader_intervals_free(&iv[0]);
  sp_reader_close(r);
}

/* ref_aggregate.h5: the figures the aggregate layout stores per pair. */
static void case_ref_aggregate(void) {
  const int64_t MS = 1000000;
  sp_reader_t *r = open_file("ref_aggregate.h5");
  sp_reader_aggregate_t a;
  CHECK_INT(sp_reader_aggregate(r, sp_test_region(r, "main"), 0, &a), 0);
  CHECK_INT(a.present, 1);
  CHECK_INT(a.have,
            SP_READER_AGG_TOTAL | SP_READER_AGG_MIN | SP_READER_AGG_MAX | SP_READER_AGG_EXCLUSIVE);
  CHECK_INT(a.calls, 1);
  CHECK_INT(a.total, 100 * MS);
  CHECK_INT(a.min, 100 * MS);
  CHECK_INT(a.max, 100 * MS);
  CHECK_INT(a.exclusive, 64 * MS); /* minus solver/rhs (26 ms) and omp on thread 0 (10 ms) */
  CHECK_INT(sp_reader_aggregate(r, sp_test_region(r, "solver/rhs"), 0, &a), 0);
  CHECK_INT(a.calls, 3);
  CHECK_INT(a.total, 26 * MS);
  CHECK_INT(a.min, 1 * MS);
  CHECK_INT(a.max, 15 * MS);
  CHECK_INT(sp_reader_aggregate(r, sp_test_region(r, "io"), 0, &a), 0); /* not on rank 0 */
  CHECK_INT(a.present + a.have, 0);
  CHECK_INT(sp_reader_aggregate(r, 99, 0, &a), SP_READER_EINVAL);
  sp_reader_close(r);
  r = open_file("ref_aggregate_counts.h5"); /* counts only: no time known */
  CHECK_INT(sp_reader_aggregate(r, sp_test_region(r, "solver/rhs"), 0, &a), 0);
  CHECK_INT(a.present, 1);
  CHECK_INT(a.calls, 3);
  CHECK_INT(a.have, 0);
  sp_reader_close(r);
  r = open_file("ref_rows.h5"); /* stamps: nothing aggregated */
  CHECK_INT(sp_reader_aggregate(r, sp_test_region(r, "main"), 0, &a), 0);
  CHECK_INT(a.present + a.have, 0);
  sp_reader_close(r);
}

/* /metadata listed by index, in name order, with its kinds. */
static void case_metadata_list(void) {
  sp_reader_t *r = open_file("basic.h5");
  char name[64], value[64];
  int kind = -1;
  CHECK_INT(sp_reader_metadata_count(r), 3);
  static const char *want[] = {"clock", "hostname", "library_version"};
  for (int i = 0; i < 3; i++) {
    CHECK_INT(sp_reader_metadata_entry(r, i, name, sizeof name, value, sizeof value, &kind), 0);
    CHECK_STR(name, want[i]);
    CHECK_INT(kind, SP_READER_META_STRING);
  }
  CHECK_INT(sp_reader_metadata_entry(r, 1, name, sizeof name, value, sizeof value, &kind), 0);
  CHECK_STR(value, "testhost");
  CHECK_INT(sp_reader_metadata_entry(r, 3, name, sizeof name, value, sizeof value, &kind),
            SP_READER_EINVAL);
  CHECK_STR(name, "");
  CHECK_INT(strstr(sp_reader_errmsg(r), "number 3") != NULL, 1);
  /* A name that does not fit is refused, not cut. */
  CHECK_INT(sp_reader_metadata_entry(r, 2, name, 8, value, sizeof value, &kind), SP_READER_EINVAL);
  CHECK_INT(sp_reader_metadata_entry(r, 0, NULL, 8, value, sizeof value, &kind), SP_READER_EINVAL);
  CHECK_INT(sp_reader_metadata_count(NULL), 0);
  sp_reader_close(r);
}

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {
      SP_TEST_CASE(decode),
      SP_TEST_CASE(open_basic),
      SP_TEST_CASE(ranks),
      SP_TEST_CASE(regions_order),
      SP_TEST_CASE(names),
      SP_TEST_CASE(filter),
      SP_TEST_CASE(filter_bad),
      SP_TEST_CASE(info_thread),
      SP_TEST_CASE(load_stats),
      SP_TEST_CASE(extent),
      SP_TEST_CASE(errors_open),
      SP_TEST_CASE(end_before_start),
      SP_TEST_CASE(count_only),
      SP_TEST_CASE(likwid),
      SP_TEST_CASE(likwid_none),
      SP_TEST_CASE(likwid_bad),
      SP_TEST_CASE(ref_call_parents),
      SP_TEST_CASE(ref_aggregate),
      SP_TEST_CASE(metadata_list),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  if (argc != 3) {
    fprintf(stderr, "usage: test_reader CASE DIR\n");
    return 2;
  }
  dir = argv[2];
  sp_test_case_run(c);
  return sp_test_failures ? 1 : 0;
}
