/* mykernel.c - the native kernel of bindings/README.md's ctypes example,
 * built as ./libmykernel.so by the case bindings-python-kernel: it records
 * its own region in the session the Python driver set up. */
#include <scope_profiler.h>

void run(int n);

void run(int n) {
  int h = sp_region("kernel"); /* looked up in the driver's session */
  for (int i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
}
