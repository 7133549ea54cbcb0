/* test_values_profile.c - values per call in profile mode (docs/values.md
 * "Profile mode"), with its own oracle.
 *
 * test_values_profile FILE MODE
 *   MODE run:  under MPI, NTHREADS threads each make calls of "solve" (an
 *              int key set twice a call, the last value counts; a real key
 *              in two calls of three; a string key, counted only), "solve"
 *              inside "outer" (another call path), "outer" with "inner"
 *              nested (each its own values, "outer" one more after "inner"
 *              ended) and a recursion of "recurse" (a value at each depth,
 *              before and after the call nested in it); sp_finalize.
 *   MODE exit: the same without MPI, then exit(0) without sp_finalize:
 *              the aggregates go to an .aggspill file (scope-profiler-merge).
 * Every call's last value of each key goes to FILE.oracle.<rank>, one line
 * each: rank thread path key kind value, path the call's regions from the
 * outermost joined by '/'. check_values_profile.py holds the file to it. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "scope_profiler.h"

#define NTHREADS 3
#define NSOLVE 300
#define NOUTER 40
#define NREC 15
#define DEPTH 4

static FILE *oracle;
static pthread_mutex_t omu = PTHREAD_MUTEX_INITIALIZER;
static int rank;
static int h_solve, h_outer, h_inner, h_rec;

static void say(int tid, const char *path, const char *key, const char *kind, const char *val) {
  pthread_mutex_lock(&omu);
  fprintf(oracle, "%d\t%d\t%s\t%s\t%s\t%s\n", rank, tid, path, key, kind, val);
  pthread_mutex_unlock(&omu);
}

static void set_i(int tid, const char *path, const char *key, int64_t v) {
  if (sp_call_set_int(key, v) != 0) abort();
  char b[32];
  snprintf(b, sizeof b, "%" PRId64, v);
  say(tid, path, key, "i", b);
}

static void set_d(int tid, const char *path, const char *key, double v) {
  if (sp_call_set_real(key, v) != 0) abort();
  char b[40];
  snprintf(b, sizeof b, "%.17g", v);
  say(tid, path, key, "d", b);
}

static void solve(int tid, int i, const char *path) {
  sp_start(h_solve);
  if (sp_call_set_int("iters", -999999) != 0) abort(); /* replaced below */
  set_i(tid, path, "iters", (int64_t)(1000 * rank + 37 * (i % 17) - 50 * tid));
  if (i % 3 != 0) set_d(tid, path, "res", 1.0 / (1 + i) + 0.5 * rank - 0.25 * tid);
  if (i % 4 != 1) {
    if (sp_call_set("method", i % 2 ? "cg" : "gmres") != 0) abort();
    say(tid, path, "method", "s", i % 2 ? "cg" : "gmres");
  }
  /* One buffer holding another key from call to call (the C path caches a
   * key by its pointer), and a key passed by length in a buffer with more
   * bytes after it (the bindings' path, cached by the key's bytes). */
  char kb[32];
  snprintf(kb, sizeof kb, "%s", i % 3 == 0 ? "alt" : i % 3 == 1 ? "alt.longer.key" : "alt2");
  set_i(tid, path, kb, i * 3 - 100);
  char fb[32];
  const char *fk = i % 2 ? "by_len" : "by_len_b";
  const size_t fl = strlen(fk);
  memcpy(fb, fk, fl);
  memcpy(fb + fl, "_tail_bytes", 12); /* not part of the key */
  const int64_t fv = 7 * i - tid;
  if (sp__call_set_f(fb, fl, 2, &fv, sizeof fv) != 0) abort();
  char b[32];
  snprintf(b, sizeof b, "%" PRId64, fv);
  say(tid, path, fk, "i", b);
  sp_stop(h_solve);
}

static void recurse(int tid, int depth, char *path) {
  size_t len = strlen(path);
  sprintf(path + len, "%srecurse", len ? "/" : "");
  sp_start(h_rec);
  set_i(tid, path, "depth", depth);
  if (depth + 1 < DEPTH) recurse(tid, depth + 1, path);
  set_d(tid, path, "after", 100.5 * depth + tid + rank);
  sp_stop(h_rec);
  path[len] = '\0';
}

static void *work(void *arg) {
  int tid = (int)(intptr_t)arg;
  for (int i = 0; i < NSOLVE; i++) solve(tid, i, "solve");
  for (int i = 0; i < NOUTER; i++) {
    sp_start(h_outer);
    set_i(tid, "outer", "level", 1);
    sp_start(h_inner);
    set_i(tid, "outer/inner", "level", 2);
    set_d(tid, "outer/inner", "x", i * -0.75 + tid);
    sp_stop(h_inner);
    solve(tid, i + 7, "outer/solve");
    set_i(tid, "outer", "after_inner", i * 7 + rank);
    sp_stop(h_outer);
  }
  char path[256] = "";
  for (int i = 0; i < NREC; i++) recurse(tid, 0, path);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  const int ex = strcmp(argv[2], "exit") == 0;
  if (!ex) MPI_Init(&argc, &argv);
  if (!ex) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char path[4096];
  snprintf(path, sizeof path, "%s.oracle.%d", argv[1], rank);
  oracle = fopen(path, "w");
  if (!oracle) return 2;
  sp_config cfg;
  sp_config_init(&cfg);
  cfg.file_path = argv[1];
  cfg.aggregate = 1;
  cfg.time_trace = 0;
  if (sp_setup(&cfg) != 0) return 3;
  h_solve = sp_region("solve");
  h_outer = sp_region("outer");
  h_inner = sp_region("inner");
  h_rec = sp_region("recurse");
  pthread_t th[NTHREADS];
  for (int t = 1; t < NTHREADS; t++) pthread_create(&th[t], NULL, work, (void *)(intptr_t)t);
  work(NULL);
  for (int t = 1; t < NTHREADS; t++) pthread_join(th[t], NULL);
  fclose(oracle);
  if (ex) {
    printf("exit without sp_finalize\n");
    fflush(stdout);
    exit(0);
  }
  int rc = sp_finalize();
  MPI_Finalize();
  printf("finalize %d\n", rc);
  return rc == 0 ? 0 : 6;
}
