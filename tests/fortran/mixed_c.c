/* mixed_c.c - the C half of the mixed-language test: regions recorded
 * from C inside regions the Fortran program opened, into one session. */
#include "scope_profiler.h"

int sp_test_c_region(void);
void sp_test_c_work(int n);
void sp_test_c_stop_shared(void);

/* The handle C gets for "shared"; Fortran must get the same one. */
int sp_test_c_region(void) { return sp_region("shared"); }

/* n calls of "c inner" by handle and one SP_BLOCK, as a C library would. */
void sp_test_c_work(int n) {
  int h = sp_region("c inner");
  for (int i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
  SP_BLOCK("c block") { (void)0; }
}

/* Closes by name in C the call Fortran opened by handle. */
void sp_test_c_stop_shared(void) { sp_stop_name("shared"); }
