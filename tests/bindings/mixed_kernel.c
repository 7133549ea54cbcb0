/* mixed_kernel.c - a C kernel that a Python driver loads through ctypes.
 * It records its own regions with the C API; they must land in the same
 * profile as the driver's Python regions (one copy of the core per
 * process). The region "kernel/step" also checks that '/' is encoded. */
#include <scope_profiler.h>

int sp_test_kernel_run(int n);

static volatile double sp_test_sink;

int sp_test_kernel_run(int n) {
  /* Handles are per session and the driver owns the session, so look
   * them up on each call (a hash lookup, outside the timed loop). */
  int h = sp_region("kernel");
  int step = sp_region("kernel/step");
  int done = 0;
  sp_start(h);
  for (int i = 0; i < n; ++i) {
    sp_start(step);
    for (int k = 0; k < 1000; ++k) sp_test_sink = sp_test_sink + k;
    sp_stop(step);
    ++done;
  }
  sp_stop(h);
  return done;
}
