/* nvtx_forward.c - regions of a program that calls sp_* only, run with
 * SCOPE_PROFILER_NVTX=1 and the recording injection library nvtx_record:
 * check_forward.py compares the NVTX calls recorded with the regions made.
 *   outer > inner (2), by_name, a > b with a stopped first (b's range ends
 *   with it), and on a second thread worker > step (2) */
#include <pthread.h>
#include <stdio.h>

#include "scope_profiler.h"

static void *worker(void *arg) {
  (void)arg;
  int w = sp_region("worker"), s = sp_region("step");
  sp_start(w);
  for (int i = 0; i < 2; i++) {
    sp_start(s);
    sp_stop(s);
  }
  sp_stop(w);
  return NULL;
}

int main(void) {
  if (sp_setup(NULL) != 0) return 1;
  int outer = sp_region("outer"), inner = sp_region("inner");
  sp_start(outer);
  for (int i = 0; i < 2; i++) {
    sp_start(inner);
    sp_stop(inner);
  }
  sp_stop(outer);
  sp_start_name("by_name");
  sp_stop_name("by_name");
  int a = sp_region("a"), b = sp_region("b");
  sp_start(a);
  sp_start(b);
  sp_stop(a); /* misuse on purpose: b is dropped, its NVTX range ends too */
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  return sp_finalize() == 0 ? 0 : 2;
}
