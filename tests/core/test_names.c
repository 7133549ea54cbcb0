/* test_names.c - the by-name paths and their per-thread cache of name
 * pointers: test_names CASE. Each case writes CASE.h5 and the calls it
 * made to CASE.expect.rank0.json; tests.core.names.CASE.h5 compares the
 * two with h5py (check_profile.py). The cache maps a name's address to a
 * region, so every case hands the library one address holding different
 * names in turn: a hit trusted on the pointer alone would record a wrong
 * region. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scope_profiler.h"
#include "sp_test_util.h"

static sp_test_expect_t expect;

static void setup_file(const char *path) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  c.buffer_limit = 1000; /* a few flushes on the way */
  ASSERT_EQ(sp_setup(&c), 0);
}

static void finish(const char *tag) {
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_MISMATCH), 0);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 0);
  ASSERT_EQ(sp_finalize(), 0);
  sp_test_expect_write(tag, 0, &expect);
}

/* One buffer rewritten between calls, as a program formats names into a
 * scratch array: "alpha" and "beta" (same length) and "gamma_longer". */
static void case_reused_buffer(void) {
  static const char *const names[] = {"alpha", "beta_", "gamma_longer"};
  char buf[32];
  setup_file("reused_buffer.h5");
  for (int i = 0; i < 3000; i++) {
    const char *nm = names[i % 3];
    strcpy(buf, nm);
    sp_start_name(buf);
    sp_stop_name(buf);
    sp_test_expect_add(&expect, nm, 1);
  }
  finish("reused_buffer");
}

/* One address, several lengths: Fortran passes (address, len_trim), and
 * "abcdef"(1:3) is the region "abc", not "abcdef". Nested, so that the
 * stop by name must tell the innermost call's name from its prefix. */
static void case_same_pointer_lengths(void) {
  const char *text = "abcdef";
  setup_file("same_pointer_lengths.h5");
  for (int i = 0; i < 2000; i++) {
    sp_start_name_n(text, 6);
    sp_start_name_n(text, 3);
    sp_start_name_n(text, 1);
    sp_stop_name_n(text, 1);
    sp_stop_name_n(text, 3);
    sp_stop_name_n(text, 6);
  }
  sp_test_expect_add(&expect, "abcdef", 2000);
  sp_test_expect_add(&expect, "abc", 2000);
  sp_test_expect_add(&expect, "a", 2000);
  finish("same_pointer_lengths");
}

/* A stop through an address whose name changed since the start is a stop
 * of the name it holds now, never of the call started through it. */
static void case_changed_before_stop(void) {
  char buf[16];
  setup_file("changed_before_stop.h5");
  for (int i = 0; i < 100; i++) {
    /* Now "outer", an enclosing call: a mismatch that drops "opened". */
    sp_start_name("outer");
    strcpy(buf, "opened");
    sp_start_name(buf);
    strcpy(buf, "outer");
    sp_stop_name(buf);
    /* Now "never", not open at all: refused, "opened" stays open. */
    strcpy(buf, "opened");
    sp_start_name(buf);
    strcpy(buf, "never");
    sp_stop_name(buf);
    strcpy(buf, "opened");
    sp_stop_name(buf);
  }
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_MISMATCH), 100);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 100);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_UNBALANCED), 0);
  sp_test_expect_add(&expect, "outer", 100);
  sp_test_expect_add(&expect, "opened", 100); /* the dropped ones are not written */
  sp_test_expect_write("changed_before_stop", 0, &expect);
}

/* The same addresses in a second session, which registers the names in
 * the other order: the handles the cache kept now belong to other names. */
static void case_sessions(void) {
  static const char first[] = "first", second[] = "second";
  setup_file("sessions_discarded.h5");
  for (int i = 0; i < 10; i++) {
    sp_start_name(first);
    sp_stop_name(first);
    sp_start_name(second);
    sp_stop_name(second);
  }
  ASSERT_EQ(sp_finalize(), 0);
  setup_file("sessions.h5");
  for (int i = 0; i < 30; i++) {
    sp_start_name(second);
    sp_stop_name(second);
  }
  for (int i = 0; i < 20; i++) {
    sp_start_name(first);
    sp_stop_name(first);
  }
  sp_test_expect_add(&expect, "second", 30);
  sp_test_expect_add(&expect, "first", 20);
  finish("sessions");
}

/* More names than the cache has slots, nested three deep, from an array
 * of names 16 bytes apart and from literals: many share a slot. */
static void case_many_names(void) {
  enum { N = 200 };
  static char names[N][16];
  static long long counts[N];
  static const char *table[N];
  setup_file("many_names.h5");
  for (int i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "name_%03d", i);
    table[i] = names[i];
  }
  for (int round = 0; round < 20; round++) {
    for (int i = 0; i < N; i++) {
      int j = (i * 7 + round) % N, k = (i * 13 + 5) % N;
      sp_start_name(names[i]);
      sp_start_name(names[j]);
      sp_start_name("literal");
      sp_stop_name("literal");
      if (k != i && k != j) {
        sp_start_name(names[k]);
        sp_stop_name(names[k]);
        counts[k]++;
      }
      sp_stop_name(names[j]);
      sp_stop_name(names[i]);
      counts[i]++;
      counts[j]++;
    }
  }
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_MISMATCH), 0);
  ASSERT_EQ(sp_finalize(), 0);
  static const char *all[N + 1];
  static long long all_counts[N + 1];
  for (int i = 0; i < N; i++) {
    all[i] = table[i];
    all_counts[i] = counts[i];
  }
  all[N] = "literal";
  all_counts[N] = 20LL * N;
  sp_test_expect_write_table("many_names", 0, all, all_counts, N + 1);
}

/* A number that sp_region never returned but that is below the thread's
 * buffer capacity (16) is refused, in both modes, so no call of it is open
 * when a stop by name reads the innermost call's name. */
static void unregistered_handle_in(const char *path, int time_trace) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  c.time_trace = time_trace;
  ASSERT_EQ(sp_setup(&c), 0);
  int h = sp_region("only");
  ASSERT_EQ(h, 0);
  sp_start(h);
  sp_stop(h);
  sp_start(h + 3);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_INVALID_HANDLE), 1);
  sp_stop_name("only"); /* nothing open: refused */
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 1);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_UNBALANCED), 0);
}

static void case_unregistered_handle(void) {
  unregistered_handle_in("unregistered_handle_counts.h5", 0);
  unregistered_handle_in("unregistered_handle.h5", 1);
  sp_test_expect_add(&expect, "only", 1);
  sp_test_expect_write("unregistered_handle", 0, &expect);
}

/* Threads with caches of their own: each rewrites its own buffer and
 * shares an array of names with the others. */
enum { NTHREADS = 4, ROUNDS = 3000 };
static const char *const shared_names[4] = {"shared_a", "shared_b", "shared_c", "shared_d"};

static void *thread_body(void *arg) {
  int id = (int)(long)arg;
  char mine[32];
  for (int i = 0; i < ROUNDS; i++) {
    snprintf(mine, sizeof mine, "t%d_%s", id, i % 2 ? "odd" : "even");
    sp_start_name(shared_names[(i + id) % 4]);
    sp_start_name(mine);
    sp_stop_name(mine);
    sp_stop_name(shared_names[(i + id) % 4]);
  }
  return NULL;
}

static void case_threads(void) {
  setup_file("threads.h5");
  pthread_t th[NTHREADS];
  for (long t = 0; t < NTHREADS; t++)
    ASSERT_EQ(pthread_create(&th[t], NULL, thread_body, (void *)t), 0);
  for (int t = 0; t < NTHREADS; t++) ASSERT_EQ(pthread_join(th[t], NULL), 0);
  static char labels[NTHREADS][2][32];
  for (int t = 0; t < NTHREADS; t++) {
    snprintf(labels[t][0], 32, "t%d_even", t);
    snprintf(labels[t][1], 32, "t%d_odd", t);
    sp_test_expect_add(&expect, labels[t][0], ROUNDS / 2);
    sp_test_expect_add(&expect, labels[t][1], ROUNDS / 2);
  }
  for (int s = 0; s < 4; s++) sp_test_expect_add(&expect, shared_names[s], NTHREADS * ROUNDS / 4);
  finish("threads");
}

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    void (*fn)(void);
  } cases[] = {
      {"reused_buffer", case_reused_buffer},
      {"same_pointer_lengths", case_same_pointer_lengths},
      {"changed_before_stop", case_changed_before_stop},
      {"sessions", case_sessions},
      {"many_names", case_many_names},
      {"unregistered_handle", case_unregistered_handle},
      {"threads", case_threads},
  };
  for (size_t i = 0; argc > 1 && i < sizeof cases / sizeof cases[0]; i++) {
    if (strcmp(argv[1], cases[i].name) == 0) {
      cases[i].fn();
      printf("%s: ok\n", argv[1]);
      return 0;
    }
  }
  fprintf(stderr, "usage: test_names CASE\n");
  return 2;
}
