/* stubs.c - what the documentation's C fragments call but do not define,
 * for tests/docs/run_case.sh (c_program). Not a snippet itself. */
#include <stdio.h>

#define SP_DOC_UNUSED __attribute__((unused)) /* not every fragment calls each stub */

static volatile double sp_doc_sink;
static const int nsteps SP_DOC_UNUSED = 3;
SP_DOC_UNUSED static void do_compute(void) {
  for (int k = 0; k < 1000; k++) sp_doc_sink += k * 0.5;
}
SP_DOC_UNUSED static void write_output(void) { sp_doc_sink += 1.0; }
