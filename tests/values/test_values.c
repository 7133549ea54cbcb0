/* test_values.c - values per call (docs/values.md), with its own oracle.
 *
 * test_values FILE MODE [ORACLE]
 *   MODE run:    under MPI (any number of ranks), NTHREADS threads each make
 *                calls of "solve" (int, real and string values, some calls
 *                without some keys, a key set twice), "outer" with "inner"
 *                nested in it (each its own value; "outer" one more after
 *                "inner" ended), and a recursion of "recurse" (a value at
 *                each depth, before and after the call nested in it); a
 *                value set with no call open (SP_EINVAL, counted, the
 *                program goes on); "wide" with 70 keys a call (64 kept,
 *                SP_ETOOMANY for the others).
 *   MODE killed: the same without MPI, then SIGKILL before sp_finalize
 *                (scope-profiler-merge recovers the spill file); the oracle
 *                is line-buffered, as a kill may come at any moment.
 * Every value it sets, it also prints to ORACLE.<rank> (default FILE.oracle),
 * one line per value: rank thread region seq key kind value, where seq is
 * the call's number among the thread's starts of that region (0 first): its
 * place in start_times among that thread's calls. check_values.py holds
 * the file to these lines. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "scope_profiler.h"

#define NTHREADS 3
#define NSOLVE 700 /* more than the small buffer_limit below: spills happen */
#define NOUTER 50
#define NREC 20
#define DEPTH 5
#define NWIDE 4
#define NWIDE_KEYS 70

static FILE *oracle;
static pthread_mutex_t omu = PTHREAD_MUTEX_INITIALIZER;
static int rank;

enum { R_SOLVE, R_OUTER, R_INNER, R_RECURSE, R_WIDE, R_MMO, R_MMI, NREG };
static const char *const names[NREG] = {"solve", "outer",    "inner",   "recurse",
                                        "wide",  "mm_outer", "mm_inner"};
static int handles[NREG];

typedef struct {
  int tid;
  int64_t seq[NREG];
} worker_t;

static int64_t start(worker_t *w, int r) {
  sp_start(handles[r]);
  return w->seq[r]++;
}

static void say(const worker_t *w, int r, int64_t seq, const char *key, const char *kind,
                const char *val) {
  pthread_mutex_lock(&omu);
  fprintf(oracle, "%d\t%d\t%s\t%" PRId64 "\t%s\t%s\t%s\n", rank, w->tid, names[r], seq, key, kind,
          val);
  pthread_mutex_unlock(&omu);
}

static void set_i(const worker_t *w, int r, int64_t seq, const char *key, int64_t v) {
  if (sp_call_set_int(key, v) != 0) abort();
  char b[32];
  snprintf(b, sizeof b, "%" PRId64, v);
  say(w, r, seq, key, "i", b);
}

static void set_d(const worker_t *w, int r, int64_t seq, const char *key, double v) {
  if (sp_call_set_real(key, v) != 0) abort();
  char b[40];
  snprintf(b, sizeof b, "%.17g", v);
  say(w, r, seq, key, "d", b);
}

static void set_s(const worker_t *w, int r, int64_t seq, const char *key, const char *v) {
  if (sp_call_set(key, v) != 0) abort();
  say(w, r, seq, key, "s", v);
}

static void recurse(worker_t *w, int depth) {
  int64_t seq = start(w, R_RECURSE);
  set_i(w, R_RECURSE, seq, "depth", depth);
  if (depth + 1 < DEPTH) recurse(w, depth + 1);
  set_i(w, R_RECURSE, seq, "after", 100 * depth + w->tid); /* the inner calls ended */
  sp_stop(handles[R_RECURSE]);
}

/* Threads number themselves by their first call (thread_ids): each waits
 * for the one before it to have made its first, then all run at once. */
static int turn = 1;
static pthread_mutex_t tmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tcv = PTHREAD_COND_INITIALIZER;

static void *work(void *arg) {
  worker_t *w = arg;
  char buf[64];
  if (w->tid > 0) {
    pthread_mutex_lock(&tmu);
    while (turn != w->tid) pthread_cond_wait(&tcv, &tmu);
    pthread_mutex_unlock(&tmu);
  }
  for (int i = 0; i < NSOLVE; i++) {
    int64_t seq = start(w, R_SOLVE);
    /* the same key twice in one call: the second value is kept */
    if (sp_call_set_int("iterations", -1) != 0) abort();
    set_i(w, R_SOLVE, seq, "iterations", 1000 * rank + 10 * i + w->tid);
    if (i % 3 != 0) set_d(w, R_SOLVE, seq, "residual", pow(0.5, i % 50) * (rank + 1) + w->tid);
    snprintf(buf, sizeof buf, "r%d/t%d %d ü", rank, w->tid, i);
    if (i % 4 != 1) set_s(w, R_SOLVE, seq, "precond.name", buf);
    /* one buffer holding another key from call to call (cached by pointer) */
    char kb[32];
    snprintf(kb, sizeof kb, "%s", i % 3 == 0 ? "alt" : i % 3 == 1 ? "alt.longer.key" : "alt2");
    set_i(w, R_SOLVE, seq, kb, i - 7 * w->tid);
    sp_stop(handles[R_SOLVE]);
    if (i == 0 && w->tid > 0) { /* numbered: the next thread's turn */
      pthread_mutex_lock(&tmu);
      turn++;
      pthread_cond_broadcast(&tcv);
      pthread_mutex_unlock(&tmu);
    }
  }
  for (int i = 0; i < NOUTER; i++) {
    int64_t so = start(w, R_OUTER);
    set_i(w, R_OUTER, so, "level", 1);
    int64_t si = start(w, R_INNER);
    set_i(w, R_INNER, si, "level", 2);
    set_d(w, R_INNER, si, "x", i + 0.25);
    sp_stop(handles[R_INNER]);
    set_i(w, R_OUTER, so, "after_inner", i * 7 + rank);
    sp_stop(handles[R_OUTER]);
  }
  for (int i = 0; i < NREC; i++) recurse(w, 0);
  for (int i = 0; i < NWIDE; i++) {
    int64_t seq = start(w, R_WIDE);
    for (int k = 0; k < NWIDE_KEYS; k++) {
      char key[16];
      snprintf(key, sizeof key, "k%02d", k);
      if (k < 64) {
        set_i(w, R_WIDE, seq, key, k * 1000 + i);
      } else if (sp_call_set_int(key, k) != SP_ETOOMANY) {
        abort();
      }
    }
    sp_stop(handles[R_WIDE]);
  }
  /* A stop that does not match drops the calls open inside it: mm_inner A
   * (its value with it); B, nested in A and closed before, moves to A's
   * place, its value with it (the seq A would have had is B's). */
  for (int i = 0; i < 10; i++) {
    int64_t so = start(w, R_MMO);
    set_i(w, R_MMO, so, "i", i);
    sp_start(handles[R_MMI]); /* A: never in the file */
    if (sp_call_set_int("dropped", 1) != 0) abort();
    int64_t sb = start(w, R_MMI);
    set_i(w, R_MMI, sb, "v", 10 * i + w->tid);
    sp_stop(handles[R_MMI]);
    sp_stop(handles[R_MMO]); /* A still open: dropped */
  }
  /* An ended thread's record goes to the next new thread: none ends
   * before all are numbered. */
  pthread_mutex_lock(&tmu);
  while (turn < NTHREADS) pthread_cond_wait(&tcv, &tmu);
  pthread_mutex_unlock(&tmu);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  const int killed = strcmp(argv[2], "killed") == 0;
  if (!killed) MPI_Init(&argc, &argv);
  if (!killed) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char path[4096];
  if (argc > 3)
    snprintf(path, sizeof path, "%s.%d", argv[3], rank);
  else
    snprintf(path, sizeof path, "%s.oracle.%d", argv[1], rank);
  oracle = fopen(path, "w");
  if (!oracle) return 2;
  /* Killed, maybe mid-run (killed_merge.py's kill_shim.c): every line of a
   * call whose events reached the spill file was written before its stop. */
  if (killed) setvbuf(oracle, NULL, _IOLBF, 0);
  sp_config cfg;
  sp_config_init(&cfg);
  cfg.file_path = argv[1];
  cfg.buffer_limit = 256; /* spills mid-run: values go through the spill file */
  if (sp_setup(&cfg) != 0) return 3;
  /* No call open: refused, counted, the program goes on. */
  if (sp_call_set_int("nothing", 1) != SP_EINVAL || sp_call_set("nothing", "x") != SP_EINVAL ||
      sp_misuse_count(SP_MISUSE_VALUE_NO_CALL) != 2)
    return 4;
  if (sp_call_set_int(NULL, 1) != SP_EINVAL || sp_call_set_real("", 1.0) != SP_EINVAL) return 5;
  for (int r = 0; r < NREG; r++) handles[r] = sp_region(names[r]);
  pthread_t th[NTHREADS];
  worker_t w[NTHREADS];
  memset(w, 0, sizeof w);
  for (int t = 0; t < NTHREADS; t++) w[t].tid = t;
  /* thread 0 is the main thread: thread_ids number threads by first call */
  sp_start(handles[R_SOLVE]);
  sp_stop(handles[R_SOLVE]);
  w[0].seq[R_SOLVE] = 1;
  for (int t = 1; t < NTHREADS; t++) pthread_create(&th[t], NULL, work, &w[t]);
  work(&w[0]);
  for (int t = 1; t < NTHREADS; t++) pthread_join(th[t], NULL);
  printf("no-call misuse %" PRId64 ", lost %" PRId64 "\n", sp_misuse_count(SP_MISUSE_VALUE_NO_CALL),
         sp_misuse_count(SP_MISUSE_VALUES_LOST));
  fflush(stdout);
  fclose(oracle);
  if (killed) {
    /* Cut by killed_merge.py's shim (SP_KILL_AFTER): the writer thread may
     * still be writing the buffers handed to it; the shim kills the run
     * when the cut's record goes out (a cut past the last: 20 s, then the
     * driver sees the run was not cut). */
    for (int i = 0; getenv("SP_KILL_AFTER") && i < 200; i++)
      nanosleep(&(struct timespec){0, 100000000L}, NULL);
    /* a last flush of what the buffers hold would be finalize's: none */
    raise(SIGKILL);
  }
  int rc = sp_finalize();
  MPI_Finalize();
  printf("finalize %d\n", rc);
  return rc == 0 ? 0 : 6;
}
