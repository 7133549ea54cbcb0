/* test_omp_resetup.c - sp_setup again between OpenMP parallel regions
 * (issue 36 item 17), with a real libgomp pool: its threads recorded in
 * the first region and wait idle, inside no profiler call, for the next.
 *
 *   test_omp_resetup finalize_between  setup, parallel, finalize, setup,
 *                                      parallel with the same pool, finalize
 *   test_omp_resetup setup_between     setup, parallel, setup again (was
 *                                      refused with SP_EBUSY: "other threads
 *                                      have recorded"), parallel, finalize
 *
 * Each thread records in a region of its own (t<i>, u<i>), (i+1) x 1000
 * and x 700 pairs, and all in "shared": the h5py check of each file
 * (check_profile.py --expect) then holds every thread's count exactly. */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sp_test_cases.h"
#include "sp_test_util.h"
#include "scope_profiler.h"

#define NT 4

static pthread_t pool[2][NT];

static void setup_at(const char *path) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  c.buffer_limit = 500; /* full buffers go through the writer thread */
  unlink(path);
  ASSERT_EQ(sp_setup(&c), 0);
}

/* One parallel region: thread i records (i+1) x per pairs in <prefix><i>
 * and `shared` pairs in "shared". */
static void parallel_record(int round, const char *prefix, int per, int shared) {
  int sh = sp_region("shared");
#pragma omp parallel num_threads(NT)
  {
    int i = omp_get_thread_num();
    pool[round][i] = pthread_self();
    char name[16];
    snprintf(name, sizeof name, "%s%d", prefix, i);
    int h = sp_region(name);
    for (int k = 0; k < (i + 1) * per; k++) {
      sp_start(h);
      sp_stop(h);
    }
    for (int k = 0; k < shared; k++) {
      sp_start(sh);
      sp_stop(sh);
    }
  }
}

static void expect(const char *tag, const char *prefix, int per, int shared) {
  char names[NT + 1][16];
  const char *np[NT + 1];
  long long calls[NT + 1];
  for (int i = 0; i < NT; i++) {
    snprintf(names[i], sizeof names[i], "%s%d", prefix, i);
    np[i] = names[i];
    calls[i] = (long long)(i + 1) * per;
  }
  np[NT] = "shared";
  calls[NT] = (long long)NT * shared;
  sp_test_expect_write_table(tag, 0, np, calls, NT + 1);
}

/* The second region ran on the first one's threads (the pool was reused). */
static void same_pool(void) {
  for (int i = 1; i < NT; i++) ASSERT(pthread_equal(pool[0][i], pool[1][i]));
}

static void case_finalize_between(void) {
  setup_at("omp_first.h5");
  parallel_record(0, "t", 1000, 500);
  ASSERT_EQ(sp_finalize(), 0);
  setup_at("omp_second.h5");
  parallel_record(1, "u", 700, 300);
  ASSERT_EQ(sp_finalize(), 0);
  same_pool();
  expect("omp_first", "t", 1000, 500);
  expect("omp_second", "u", 700, 300);
}

static void case_setup_between(void) {
  setup_at("omp_discarded.h5");
  parallel_record(0, "t", 1000, 500);
  setup_at("omp_resetup.h5"); /* the pool's threads are idle: allowed */
  parallel_record(1, "u", 700, 300);
  ASSERT_EQ(sp_finalize(), 0);
  same_pool();
  ASSERT(!sp_test_file_exists("omp_discarded.h5")); /* its session was discarded */
  expect("omp_resetup", "u", 700, 300);
}

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {
      SP_TEST_CASE(finalize_between),
      SP_TEST_CASE(setup_between),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  sp_test_case_run(c);
  printf("%s: ok\n", c->name);
  return 0;
}
