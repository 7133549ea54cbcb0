/* test_write.c - MPI cases that write a profile; run as
 *   mpirun -np N test_write CASE
 * Each rank writes CASE.expect.rank<R>.json with the calls it made, which
 * tests/common/check_profile.py compares with the file through h5py (an
 * independent reader), together with the layout's invariants. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <signal.h>
#include <time.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scope_profiler.h"
#include "scope_profiler_mpi.h"
#include "sp_test_cases.h"
#include "sp_test_util.h"

static int rank, size;

/* A failed check ends every rank, not only the one that saw it. */
static void abort_all(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

static void setup_with(const char *file, long long limit, int time_trace) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = file;
  c.buffer_limit = limit;
  c.time_trace = time_trace;
  ASSERT_EQ(sp_setup(&c), 0);
}

/* Per-rank counts, nesting and handle/name calls hitting one region. */
static void case_counts(void) {
  sp_test_expect_t e = {0};
  setup_with("counts.h5", 100000, 1);
  int work = sp_region("work"), outer = sp_region("outer"), inner = sp_region("inner");
  ASSERT(work >= 0 && sp_region("work") == work);
  for (int i = 0; i < 10 + rank; i++) {
    sp_start(work);
    sp_stop(work);
  }
  sp_test_expect_add(&e, "work", 10 + rank);
  for (int i = 0; i < 5; i++) {
    sp_start(outer);
    for (int j = 0; j < 3; j++) {
      sp_start_name("inner");
      sp_stop(inner);
    }
    sp_stop_name("outer");
  }
  sp_test_expect_add(&e, "outer", 5);
  sp_test_expect_add(&e, "inner", 15);
  SP_BLOCK("block") {}
  sp_test_expect_add(&e, "block", 1);
  ASSERT_EQ(sp_finalize(), 0);
  sp_test_expect_write("counts", rank, &e);
}

/* A few tens of ns of work: back-to-back calls can get the same stamp (the
 * TSC reads here advance in steps of ~10 ns and are not serialising), and
 * two identical intervals cannot be ordered by the checker. */
static void spin(void) {
  for (volatile int i = 0; i < 40; i++) {}
}

/* One deterministic call sequence, used with and without flushes. */
static void run_sequence(sp_test_expect_t *e) {
  int h[5];
  char names[5][16];
  for (int i = 0; i < 5; i++) {
    snprintf(names[i], sizeof names[i], "r%d", i);
    h[i] = sp_region(names[i]);
  }
  static const char *const fixed[5] = {"r0", "r1", "r2", "r3", "r4"};
  for (int it = 0; it < 1000; it++) {
    int a = it % 5, b = (it * 7 + 3) % 5;
    sp_start(h[a]);
    spin();
    if (b != a) {
      sp_start(h[b]);
      spin();
      sp_stop(h[b]);
      spin();
      if (e) sp_test_expect_add(e, fixed[b], 1);
    }
    sp_stop(h[a]);
    spin();
    if (e) sp_test_expect_add(e, fixed[a], 1);
  }
}

static void case_flush(void) {
  sp_test_expect_t e = {0};
  setup_with("flush7.h5", 7, 1);
  run_sequence(&e);
  ASSERT_EQ(sp_finalize(), 0);
  setup_with("noflush.h5", 1000000, 1);
  run_sequence(NULL);
  ASSERT_EQ(sp_finalize(), 0);
  sp_test_expect_write("flush", rank, &e);
}

static void case_names(void) {
  sp_test_expect_t e = {0};
  static char longname[SP_NAME_MAX + 1];
  memset(longname, 'L', SP_NAME_MAX);
  longname[0] = '/';
  longname[SP_NAME_MAX] = '\0';
  const char *names[] = {"solver/step",
                         "with space",
                         "\xc3\xbcnic\xc3\xb8"
                         "de",
                         ".",
                         "%",
                         "a%2Fb",
                         "x.y",
                         "..",
                         longname};
  setup_with("names.h5", 100000, 1);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    int h = sp_region(names[i]);
    ASSERT(h >= 0);
    sp_start(h);
    sp_stop(h);
    sp_test_expect_add(&e, names[i], 1);
  }
  ASSERT_EQ(sp_region(NULL), SP_EINVAL);
  ASSERT_EQ(sp_region(""), SP_EINVAL);
  char toolong[SP_NAME_MAX + 2];
  memset(toolong, 'x', sizeof toolong - 1);
  toolong[sizeof toolong - 1] = '\0';
  ASSERT_EQ(sp_region(toolong), SP_ENAMETOOLONG);
  ASSERT_EQ(sp_finalize(), 0);
  sp_test_expect_write("names", rank, &e);
}

/* Hundreds of regions, a different number on each rank: each rank's
 * offsets (24 bytes a region) are over Open MPI's 4-kB eager limit, so
 * where ranks share cores and rank 0 sends them point to point, each
 * message needs its receiver to take part. */
static void case_many(void) {
  enum { MOST = 130 + 90 * 7 };
  static char names[MOST][16];
  static const char *name_of[MOST];
  static long long calls[MOST];
  int n = 130 + 90 * (rank % 8);
  setup_with("many.h5", 100000, 1);
  for (int i = 0; i < n; i++) {
    snprintf(names[i], sizeof names[i], "r%d", i);
    name_of[i] = names[i];
    calls[i] = 1 + (i + rank) % 3;
    int h = sp_region(names[i]);
    ASSERT(h >= 0);
    for (long long c = 0; c < calls[i]; c++) {
      sp_start(h);
      sp_stop(h);
    }
  }
  ASSERT_EQ(sp_finalize(), 0);
  sp_test_expect_write_table("many", rank, name_of, calls, n);
}

static void case_threads(void) {
  sp_test_expect_t e = {0};
  setup_with("threads.h5", 1000, 1);
  int h = sp_region("omp_work");
  const int per_thread = 5000;
#pragma omp parallel num_threads(4)
  {
    char mine[32];
    snprintf(mine, sizeof mine, "thread%d", omp_get_thread_num());
    for (int i = 0; i < per_thread; i++) {
      sp_start(h);
      sp_start_name(mine);
      sp_stop_name(mine);
      sp_stop(h);
    }
  }
  sp_test_expect_add(&e, "omp_work", 4L * per_thread);
  static const char *const tn[4] = {"thread0", "thread1", "thread2", "thread3"};
  for (int t = 0; t < 4; t++) sp_test_expect_add(&e, tn[t], per_thread);
  ASSERT_EQ(sp_finalize(), 0);
  sp_test_expect_write("threads", rank, &e);
}

/* `rounds` calls of "worker_only" on OpenMP thread 1 only, each
 * overlapping a call of "main_only" on thread 0 without nesting: without
 * thread_ids a reader takes both for thread 0's and sees them cross. With
 * last_open the last round's calls are started and never stopped. The
 * caller's thread must already be profiler thread 0. */
static void overlap_two_threads(int rounds, int last_open, sp_test_expect_t *e) {
#pragma omp parallel num_threads(2)
  for (int i = 0; i < rounds; i++) {
    int me = omp_get_thread_num(), stop = !(last_open && i == rounds - 1);
    if (me == 1) sp_start_name("worker_only");
#pragma omp barrier
    if (me == 0) sp_start_name("main_only");
#pragma omp barrier
    if (me == 1 && stop) sp_stop_name("worker_only");
#pragma omp barrier
    if (me == 0 && stop) sp_stop_name("main_only");
  }
  sp_test_expect_add(e, "worker_only", rounds - last_open);
  sp_test_expect_add(e, "main_only", rounds - last_open);
}

/* A region recorded only by thread 1 (see overlap_two_threads). */
static void case_lone_thread(void) {
  sp_test_expect_t e = {0};
  setup_with("lone_thread.h5", 100000, 1);
  SP_BLOCK("main_first") {} /* the main thread is thread 0 */
  sp_test_expect_add(&e, "main_first", 1);
  overlap_two_threads(1, 0, &e);
  ASSERT_EQ(sp_finalize(), 0);
  sp_test_expect_write("lone_thread", rank, &e);
}

/* Full buffers of 16384 and 24000 events (256 and 375 KiB) come from the slab of
 * event_arrays.c: 4 threads fill buffers of 6 regions, flush them and
 * trade arrays with the writer thread; "deep" stays open across a full
 * buffer, so its array grows out of the slab. The second session has
 * another slot size, after the first one's slab was unmapped. */
static void slab_session(const char *file, long long limit, sp_test_expect_t *e) {
  static const char *const rn[6] = {"s0", "s1", "s2", "s3", "s4", "s5"};
  const int per_region = 30000, deep_inner = 25000;
  setup_with(file, limit, 1);
#pragma omp parallel num_threads(4)
  {
    for (int i = 0; i < 6 * per_region; i++) {
      sp_start_name(rn[i % 6]);
      spin();
      sp_stop_name(rn[i % 6]);
    }
#pragma omp master
    {
      int deep = sp_region("deep");
      sp_start(deep);
      for (int i = 0; i < deep_inner; i++) {
        sp_start(deep);
        spin();
        sp_stop(deep);
      }
      sp_stop(deep);
    }
  }
  for (int r = 0; r < 6; r++) sp_test_expect_add(e, rn[r], 4L * per_region);
  sp_test_expect_add(e, "deep", deep_inner + 1);
  ASSERT_EQ(sp_finalize(), 0);
}

static void case_slab(void) {
  sp_test_expect_t first = {0}, second = {0};
  slab_session("slab_first.h5", 16384, &first);
  slab_session("slab.h5", 24000, &second);
  sp_test_expect_write("slab_first", rank, &first);
  sp_test_expect_write("slab", rank, &second);
}

static void case_count_only(void) {
  sp_test_expect_t e = {0};
  setup_with("count_only.h5", 100000, 0);
  int h = sp_region("counted");
  for (int i = 0; i < 42 + rank; i++) {
    sp_start(h);
    sp_stop(h);
  }
  sp_test_expect_add(&e, "counted", 42 + rank);
  ASSERT_EQ(sp_finalize(), 0);
  sp_test_expect_write("count_only", rank, &e);
}

/* Rank 1 records nothing but must still get its group. */
static void case_empty_rank(void) {
  sp_test_expect_t e = {0};
  setup_with("empty_rank.h5", 100000, 1);
  if (rank != 1) {
    sp_start_name("only_others");
    sp_stop_name("only_others");
    sp_test_expect_add(&e, "only_others", 1);
  }
  ASSERT_EQ(sp_finalize(), 0);
  sp_test_expect_write("empty_rank", rank, &e);
}

static long recurse(int h, int depth) {
  long calls = 1;
  sp_start(h);
  if (depth > 0) calls += recurse(h, depth - 1) + recurse(h, depth - 1);
  sp_stop(h);
  return calls;
}

/* Recursion with a buffer smaller than the recursion: open calls must stay
 * in memory while finished ones are flushed. */
static void case_recursion(void) {
  sp_test_expect_t e = {0};
  setup_with("recursion.h5", 3, 1);
  int h = sp_region("rec");
  long calls = 0;
  for (int i = 0; i < 3; i++) calls += recurse(h, 5);
  sp_test_expect_add(&e, "rec", calls);
  ASSERT_EQ(sp_finalize(), 0);
  sp_test_expect_write("recursion", rank, &e);
}

static void case_resetup(void) {
  sp_test_expect_t e = {0};
  setup_with("resetup_first.h5", 4, 1);
  for (int i = 0; i < 20; i++) {
    sp_start_name("discarded");
    sp_stop_name("discarded");
  }
  setup_with("resetup.h5", 4, 1); /* discards the session above */
  for (int i = 0; i < 9; i++) {
    sp_start_name("kept");
    sp_stop_name("kept");
  }
  sp_test_expect_add(&e, "kept", 9);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT_EQ(sp_finalize(), 0); /* harmless */
  sp_test_expect_write("resetup", rank, &e);
}

/* No sp_finalize: MPI_Finalize writes the profile. */
static void case_mpi_finalize_hook(void) {
  sp_test_expect_t e = {0};
  setup_with("mpi_finalize_hook.h5", 5, 1);
  for (int i = 0; i < 12; i++) {
    sp_start_name("hooked");
    sp_stop_name("hooked");
  }
  sp_test_expect_add(&e, "hooked", 12);
  sp_test_expect_write("mpi_finalize_hook", rank, &e);
}

/* A sub-communicator: only its ranks take part and are numbered in it. */
static void case_subcomm(void) {
  sp_test_expect_t e = {0};
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int hr;
  MPI_Comm_rank(half, &hr);
  char file[64];
  snprintf(file, sizeof file, "subcomm%d.h5", rank % 2);
  setup_with(file, 100000, 1);
  ASSERT_EQ(sp_mpi_set_comm(half), 0);
  sp_start_name("sub");
  sp_stop_name("sub");
  sp_test_expect_add(&e, "sub", 1);
  ASSERT_EQ(sp_finalize(), 0);
  char tag[32];
  snprintf(tag, sizeof tag, "subcomm%d", rank % 2);
  sp_test_expect_write(tag, hr, &e); /* ranks of the sub-communicator */
  MPI_Comm_free(&half);
}

/* Calls flushed by the time call `calls`+1 starts, with buffers of `limit`:
 * a full buffer is flushed when the next call starts. */
static long flushed_by(long calls, long limit) {
  return calls > 0 ? limit * ((calls - 1) / limit) : 0;
}

/* Dies by SIGKILL after K steps (no finalize): spill files must hold every
 * flushed event (the test sets SCOPE_PROFILER_ASYNC_FLUSH=0 so "flushed"
 * means written). */
static void case_killed(void) {
  sp_test_expect_t e = {0};
  const long limit = 10, steps = 95 + 10 * rank;
  setup_with("killed.h5", limit, 1);
  int step = sp_region("step"), inner = sp_region("solver/inner");
  for (long i = 0; i < steps; i++) {
    sp_start(step);
    for (int j = 0; j < 2; j++) {
      sp_start(inner);
      sp_stop(inner);
    }
    sp_stop(step);
  }
  /* The flushes happened at starts of calls 11, 21, ...; plus the start of
   * the step that would follow is not made: expectations are exact. */
  sp_test_expect_add(&e, "step", flushed_by(steps, limit));
  sp_test_expect_add(&e, "solver/inner", flushed_by(2 * steps, limit));
  /* A region of thread 1 only: the recovered file must keep its thread
   * id. The starts of the 11th round flush the first 10 calls of each. */
  overlap_two_threads((int)limit + 1, 1, &e);
  sp_test_expect_write("killed", rank, &e);
  MPI_Barrier(MPI_COMM_WORLD);
  raise(SIGKILL);
}

/* SIGTERM with SCOPE_PROFILER_FLUSH_SIGNALS=TERM: the next profiler call
 * flushes every finished call, then the default action ends the process. */
static void case_sigterm(void) {
  sp_test_expect_t e = {0};
  const long steps = 40 + rank;
  setup_with("sigterm.h5", 1000000, 1); /* no flush before the signal */
  int step = sp_region("step");
  for (long i = 0; i < steps; i++) {
    sp_start(step);
    sp_stop(step);
  }
  sp_test_expect_add(&e, "step", steps);
  sp_test_expect_write("sigterm", rank, &e);
  MPI_Barrier(MPI_COMM_WORLD);
  raise(SIGTERM);
  for (int i = 0; i < 1000; i++) { /* the first start flushes; then we are ended */
    sp_start(step);
    struct timespec ms = {0, 10000000};
    nanosleep(&ms, NULL);
    sp_stop(step);
  }
  fprintf(stderr, "rank %d: still alive 10 s after SIGTERM\n", rank);
  exit(3);
}

/* sp_setup before MPI_Init: the rank is learned later, the spill file is
 * named after the process, and finalize still writes one file. */
static int init_after_setup(int *argc, char ***argv) {
  sp_test_expect_t e = {0};
  sp_config c;
  sp_config_init(&c);
  c.file_path = "init_after_setup.h5";
  c.buffer_limit = 5;
  if (sp_setup(&c) != 0) return 1;
  for (int i = 0; i < 12; i++) {
    sp_start_name("before_init");
    sp_stop_name("before_init");
  }
  int provided;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sp_test_set_rank(rank);
  sp_test_on_failure(abort_all);
  for (int i = 0; i < 7; i++) {
    sp_start_name("after_init");
    sp_stop_name("after_init");
  }
  sp_test_expect_add(&e, "before_init", 12);
  sp_test_expect_add(&e, "after_init", 7);
  ASSERT_EQ(sp_finalize(), 0);
  sp_test_expect_write("init_after_setup", rank, &e);
  MPI_Finalize();
  return 0;
}

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {
      {"init_after_setup", NULL, NULL}, /* run by main itself: it calls MPI_Init late */
      SP_TEST_CASE(counts),
      SP_TEST_CASE(flush),
      SP_TEST_CASE(names),
      SP_TEST_CASE(many),
      SP_TEST_CASE(threads),
      SP_TEST_CASE(slab),
      SP_TEST_CASE(lone_thread),
      SP_TEST_CASE(count_only),
      SP_TEST_CASE(empty_rank),
      SP_TEST_CASE(recursion),
      SP_TEST_CASE(resetup),
      SP_TEST_CASE(mpi_finalize_hook),
      SP_TEST_CASE(subcomm),
      SP_TEST_CASE(killed),
      SP_TEST_CASE(sigterm),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  if (!strcmp(c->name, "init_after_setup")) return init_after_setup(&argc, &argv);
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sp_test_set_rank(rank);
  sp_test_on_failure(abort_all);
  sp_test_case_run(c);
  MPI_Finalize();
  return 0;
}
