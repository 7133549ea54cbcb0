/* likwid_stub.c - LIKWID glue in a build without LIKWID: never used,
 * because sp_setup turns use_likwid off when this says unavailable. */
#include "par.h"

int sp__likwid_available(void) { return 0; }
void sp__likwid_init(void) {}
void sp__likwid_thread_init(void) {}
void sp__likwid_start(int32_t h) { (void)h; }
void sp__likwid_stop(int32_t h) { (void)h; }
int sp__likwid_finalize(struct sp_par *par, const char *partial_path, const char *columnar_path) {
  (void)par;
  (void)partial_path;
  (void)columnar_path;
  return 0;
}
