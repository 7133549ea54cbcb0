/* term_victim.c - a program killed by SIGTERM before sp_finalize, for the
 * docs/recovery.md's blocks (cases readme-merge and
 * readme-flush-signals). With SCOPE_PROFILER_FLUSH_SIGNALS=TERM its
 * finished calls reach profiling_data.h5.spill/ before it dies.
 *
 * Records 10 calls of "victim step", raises SIGTERM, then keeps making
 * profiler calls (the next one appends the calls to the spill file and
 * lets the signal end the process). Exit 1 if it is still alive. */
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include <scope_profiler.h>

int main(void) {
  if (sp_setup(NULL) != 0) return 1;
  int step = sp_region("victim step");
  int spin = sp_region("victim spin");
  for (int i = 0; i < 10; i++) {
    sp_start(step);
    sp_stop(step);
  }
  raise(SIGTERM);
  struct timespec pause = {0, 1000000};
  for (int i = 0; i < 10000; i++) { /* at most ~10 s */
    sp_start(spin);
    sp_stop(spin);
    nanosleep(&pause, NULL);
  }
  fputs("term_victim: still alive after SIGTERM\n", stderr);
  return 1;
}
