/* nvtx_stub.c - NVTX forwarding in a build without the NVTX3 headers:
 * never used, because sp_setup turns nvtx off when this says unavailable. */
#include "sp_internal.h"

int sp__nvtx_available(void) { return 0; }
void sp__nvtx_init(void) {}
void sp__nvtx_start(int32_t h) { (void)h; }
void sp__nvtx_stop(int32_t h) { (void)h; }
