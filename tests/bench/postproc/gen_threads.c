/* gen_threads.c - a one-rank trace of many calls on several threads,
 * recorded by the library itself (the file a real run writes).
 *
 * usage: gen_threads FILE [CALLS [THREADS [recursive]]]   (default 1e7 calls, 8 threads)
 * Each thread repeats "outer" holding "inner" (two calls a round) until the
 * threads together made CALLS calls; with "recursive", "outer" holds
 * another "outer" (recursion one deep: the pair's calls nest, stored as
 * they end; --summary counts the outermost ones). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scope_profiler.h"

static long rounds;
static int h_outer, h_inner, h_held; /* h_held: inner, or outer itself */

static void *worker(void *arg) {
  (void)arg;
  for (long i = 0; i < rounds; i++) {
    sp_start(h_outer);
    sp_start(h_held);
    sp_stop(h_held);
    sp_stop(h_outer);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: gen_threads FILE [CALLS [THREADS]]\n");
    return 2;
  }
  long calls = argc > 2 ? (long)atof(argv[2]) : 10000000L;
  int nthreads = argc > 3 ? atoi(argv[3]) : 8;
  if (nthreads < 1 || nthreads > 256 || calls < 2 * nthreads) {
    fprintf(stderr, "gen_threads: need 1 to 256 threads and 2 calls per thread\n");
    return 2;
  }
  rounds = calls / (2L * nthreads);
  sp_config c;
  sp_config_init(&c);
  c.file_path = argv[1];
  if (sp_setup(&c) != 0) return 1;
  h_outer = sp_region("outer");
  h_inner = sp_region("inner");
  h_held = argc > 4 && strcmp(argv[4], "recursive") == 0 ? h_outer : h_inner;
  pthread_t t[256];
  for (int i = 0; i < nthreads; i++)
    if (pthread_create(&t[i], NULL, worker, NULL) != 0) return 1;
  for (int i = 0; i < nthreads; i++) pthread_join(t[i], NULL);
  int rc = sp_finalize();
  if (rc != 0) fprintf(stderr, "gen_threads: %s\n", sp_strerror(rc));
  return rc != 0;
}
